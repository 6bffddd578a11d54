"""A submission's manifest, ``ginref-bot.toml`` at its archive's root: its language, how to
build it and how to run it (docs/ladder.md, "Submitting a bot")."""

from __future__ import annotations

import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

from referee.bots.sandbox import TRANSPORTS, Transport
from referee.bots.spec import BotSpec
from referee.errors import ConfigError
from tournaments.ladder.errors import SubmissionError

MANIFEST = "ginref-bot.toml"
# The languages of sample_bots/, whose toolchains the season's image holds.
LANGUAGES = ("python", "javascript", "cpp", "go", "java")
KEYS = ("language", "build", "run", "transport")
# Debian's grpc-java cannot dial a Unix socket (docs/bots-in-any-language.md).
DEFAULT_TRANSPORT: dict[str, Transport] = {"java": "tcp"}


@dataclass(frozen=True, slots=True)
class Manifest:
    """What ``ginref-bot.toml`` says."""

    language: str
    run: tuple[str, ...]  # the bot's command, ``{python}`` expanded
    build: str | None = None  # a shell command, run once in the bot's directory
    transport: Transport = "unix"
    run_text: str = ""  # the run command as written (``{python}`` kept), as the store keeps it

    def spec(self, directory: Path, label: str, env: tuple[tuple[str, str], ...] = ()) -> BotSpec:
        """The bot as the referee starts it: its command in ``directory``, which is all it sees
        of its own (a path in its command cannot widen that)."""
        return BotSpec(
            self.run,
            label,
            cwd=str(directory),
            env=env,
            dirs=(".",),
            transport=self.transport,
        )


def _error(message: str) -> SubmissionError:
    return SubmissionError("manifest", f"{MANIFEST}: {message}")


def _text(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise _error(f"{key} must be a non-empty string, got {value!r}")
    return value


def parse_manifest(text: str) -> Manifest:
    """The manifest in ``text``; raise :class:`SubmissionError` (step ``manifest``) naming the
    key that is wrong."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _error(f"not valid TOML: {exc}") from None
    unknown = [key for key in data if key not in KEYS]
    if unknown:
        raise _error(f"unknown key {unknown[0]!r}; known: {', '.join(KEYS)}")
    language = _text(data, "language")
    if language is None:
        raise _error(f"no language; one of {', '.join(LANGUAGES)}")
    if language not in LANGUAGES:
        raise _error(f"language {language!r}: expected one of {', '.join(LANGUAGES)}")
    run = _text(data, "run")
    if run is None:
        raise _error('no run command (run = "..."), the command that starts the bot')
    try:
        argv = BotSpec.parse(run).command
    except ConfigError as exc:
        raise _error(f"run: {exc}") from None
    transport = _text(data, "transport") or DEFAULT_TRANSPORT.get(language, "unix")
    if transport not in get_args(Transport):
        raise _error(f"transport {transport!r}: expected one of {', '.join(TRANSPORTS)}")
    build = _text(data, "build")
    if build is not None:
        try:
            shlex.split(build)
        except ValueError as exc:
            raise _error(f"build: cannot parse {build!r}: {exc}") from None
    return Manifest(language, argv, build, transport, run)  # type: ignore[arg-type]


def read_manifest(directory: Path) -> Manifest:
    """The manifest of the unpacked submission in ``directory``."""
    path = directory / MANIFEST
    if not path.is_file() or path.is_symlink():
        nested = sorted(directory.glob(f"*/{MANIFEST}"))
        hint = ""
        if nested:
            folder = nested[0].parent.name
            hint = f" (found {folder}/{MANIFEST}: archive the folder's contents, not the folder)"
        raise SubmissionError("manifest", f"no {MANIFEST} at the archive's root{hint}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise _error("not UTF-8 text") from None
    return parse_manifest(text)
