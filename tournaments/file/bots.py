"""A tournament file's bots (``[[bots]]``) and sandbox (``[sandbox]``): what each bot is, how it
is started, and what every bot sees; the tables' parsers report mistakes by line and key."""

from __future__ import annotations

import dataclasses
import re
import shlex
from dataclasses import dataclass
from typing import Any

from referee.bots.sandbox import SANDBOX_MODES, TRANSPORTS, SandboxSettings, Transport
from referee.bots.spec import BotSpec, expand_python
from referee.errors import ConfigError, GinRefError
from tournaments.file.toml_lines import Reader

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
_BOT_KEYS = ("name", "command", "cwd", "env", "dir", "transport", "remote")
_SANDBOX_KEYS = ("mode", "uid_base", "uid_count", "tmp_mb", "binds")


@dataclass(frozen=True, slots=True)
class BotEntry:
    """One bot of a tournament: its name, command line, working directory and extra env."""

    name: str
    command: tuple[str, ...]
    cwd: str | None = None  # absolute, or None: the referee's working directory
    env: tuple[tuple[str, str], ...] = ()
    dirs: tuple[str, ...] = ()  # absolute: what it sees as its own in the sandbox
    transport: Transport = "unix"
    remote: bool = False  # connects to ``ginref serve`` by itself; no command

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (the sandbox's keys only when set, so older journals still match)."""
        if self.remote:
            return {"name": self.name, "remote": True}
        out: dict[str, Any] = {
            "name": self.name,
            "command": list(self.command),
            "cwd": self.cwd,
            "env": dict(self.env),
        }
        if self.dirs:
            out["dir"] = list(self.dirs)
        if self.transport != "unix":
            out["transport"] = self.transport
        return out

    def spec(self) -> BotSpec:
        """What the referee launches (a remote bot is not launched: see ``ginref serve``)."""
        if self.remote:
            raise ConfigError(f"bot {self.name!r} is remote: it is not started by the referee")
        return BotSpec(self.command, self.name, self.cwd, self.env, self.dirs, self.transport)


def parse_bot(r: Reader, item: dict[str, Any], i: int) -> BotEntry:
    """The bot of ``[[bots]]`` table number ``i``."""
    path: tuple[str | int, ...] = ("bots", i)
    r.check_keys(item, _BOT_KEYS, path)
    remote = "remote" in item and r.get(item, "remote", bool, path, "true or false")
    for key in ("name",) if remote else ("name", "command"):
        if key not in item:
            raise r.error(path, f"missing key {key!r}")
    name = r.get(item, "name", str, path, "a string")
    if not _NAME.match(name):
        raise r.error((*path, "name"), f"{name!r}: use 1 to 40 letters, digits, '-' or '_'")
    if remote:
        # It runs on its entrant's machine: nothing here says how to start it.
        extra = next((k for k in _BOT_KEYS[1:-1] if k in item), None)
        if extra is not None:
            raise r.error((*path, extra), "a remote bot is not started by the referee: remove it")
        return BotEntry(name, (), remote=True)
    raw = item["command"]
    if isinstance(raw, str):
        try:
            argv = shlex.split(raw)
        except ValueError as exc:
            raise r.error((*path, "command"), f"cannot split {raw!r}: {exc}") from None
    elif isinstance(raw, list) and all(isinstance(a, str) for a in raw):
        argv = list(raw)
    else:
        raise r.error((*path, "command"), f"expected a string or a list of strings, got {raw!r}")
    if not argv:
        raise r.error((*path, "command"), "must not be empty")
    argv = list(expand_python(argv))
    cwd = None
    if "cwd" in item:
        text = r.get(item, "cwd", str, path, "a directory path")
        directory = (r.base / text).resolve()
        if not directory.is_dir():
            raise r.error((*path, "cwd"), f"{text!r} is not a directory ({directory})")
        cwd = str(directory)
    env: list[tuple[str, str]] = []
    if "env" in item:
        table = r.get(item, "env", dict, path, "a table of NAME = value")
        for key, value in table.items():
            if isinstance(value, bool) or not isinstance(value, str | int | float):
                raise r.error((*path, "env", key), f"expected a string, got {value!r}")
            env.append((key, str(value)))
    dirs: list[str] = []
    if "dir" in item:
        raw_dirs = item["dir"]
        texts = [raw_dirs] if isinstance(raw_dirs, str) else raw_dirs
        if not isinstance(texts, list) or not all(isinstance(d, str) for d in texts):
            raise r.error((*path, "dir"), "expected a directory path or a list of them")
        for text in texts:
            directory = (r.base / text).resolve()
            if not directory.exists():
                raise r.error((*path, "dir"), f"{text!r} does not exist ({directory})")
            dirs.append(str(directory))
    transport: Transport = "unix"
    if "transport" in item:
        value = r.get(item, "transport", str, path, "a string")
        if value not in TRANSPORTS:
            raise r.error((*path, "transport"), f"{value!r}: expected one of unix, tcp")
        transport = "tcp" if value == "tcp" else "unix"
    return BotEntry(name, tuple(argv), cwd, tuple(env), tuple(dirs), transport)


def parse_sandbox(r: Reader, table: dict[str, Any]) -> SandboxSettings:
    """The ``[sandbox]`` table."""
    path: tuple[str | int, ...] = ("sandbox",)
    r.check_keys(table, _SANDBOX_KEYS, path)
    settings = SandboxSettings()
    if "mode" in table:
        mode = r.get(table, "mode", str, path, "a string")
        if mode not in SANDBOX_MODES:
            raise r.error((*path, "mode"), f"{mode!r}: expected one of {', '.join(SANDBOX_MODES)}")
        settings = dataclasses.replace(settings, mode="none" if mode == "none" else "bwrap")
    for key in ("uid_base", "uid_count"):
        if key in table:
            settings = dataclasses.replace(
                settings, **{key: r.get(table, key, int, path, "a whole number")}
            )
    if "tmp_mb" in table:
        size = r.get(table, "tmp_mb", float, path, "a number of MiB")
        settings = dataclasses.replace(settings, tmp_bytes=round(size * (1 << 20)))
    if "binds" in table:
        binds = table["binds"]
        if not isinstance(binds, list) or not all(isinstance(b, str) for b in binds):
            raise r.error((*path, "binds"), "expected a list of absolute paths")
        settings = dataclasses.replace(settings, binds=tuple(binds))
    try:
        return settings.validate()
    except GinRefError as exc:
        raise r.error(path, str(exc)) from None
