"""A bot to launch: its command line, working directory and environment; the launch contract.

Launch contract (docs/writing-a-bot.md): the referee starts each bot from its command line with
``GINREF_ADDRESS`` (where the referee listens), ``GINREF_TOKEN`` (its seat's secret token) and
``GINREF_SEAT`` (its seat in the first match) added to the environment, and the directory of the
referee's interpreter first on its ``PATH`` (so ``python`` is the one ginref runs on).
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from referee.errors import ConfigError

ENV_ADDRESS = "GINREF_ADDRESS"
ENV_TOKEN = "GINREF_TOKEN"
ENV_SEAT = "GINREF_SEAT"
# A bot command's word for the interpreter ginref runs on, on the command line as in a file.
PYTHON_PLACEHOLDER = "{python}"


def expand_python(argv: Iterable[str]) -> tuple[str, ...]:
    """``argv`` with each word ``{python}`` the interpreter ginref runs on (``sys.executable``),
    so that a Python bot runs in ginref's environment whatever ``python`` the PATH finds."""
    return tuple(sys.executable if word == PYTHON_PLACEHOLDER else word for word in argv)


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A bot to launch: its command line (argv), a label, its working directory and environment."""

    command: tuple[str, ...]
    label: str = ""
    cwd: str | None = None  # where it starts (default: the referee's working directory)
    env: tuple[tuple[str, str], ...] = ()  # added to its environment
    dirs: tuple[str, ...] = ()  # what it sees as its own in a sandbox (default: from command)
    transport: Literal["unix", "tcp"] = "unix"  # how it reaches the referee from a sandbox

    @staticmethod
    def parse(text: str, label: str = "") -> BotSpec:
        """A command line as a shell would split it, e.g. ``"python -m sample_bots.random_bot"``,
        ``{python}`` the interpreter ginref runs on."""
        try:
            argv = expand_python(shlex.split(text))
        except ValueError as exc:
            raise ConfigError(f"cannot parse the bot command {text!r}: {exc}") from None
        if not argv:
            raise ConfigError("a bot command must not be empty")
        return BotSpec(argv, label or default_label(argv))

    @property
    def name(self) -> str:
        """The label, or one derived from the command."""
        return self.label or default_label(self.command)


def default_label(argv: Sequence[str]) -> str:
    """A short file-safe name for a command: the module after ``-m``, else the program's stem."""
    words = list(argv)
    if "-m" in words[:-1]:
        name = words[words.index("-m") + 1].rsplit(".", 1)[-1]
    else:
        script = next((w for w in words[1:] if w.endswith(".py")), words[0] if words else "bot")
        name = Path(script).stem
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:40] or "bot"


def bot_environment(
    address: str,
    token: str,
    seat: int,
    base: Mapping[str, str] | None = None,
    extra: Sequence[tuple[str, str]] = (),
) -> dict[str, str]:
    """The environment a bot starts with: ``base`` (default: the referee's), the bot's own
    ``extra`` variables, then the launch contract (which ``extra`` cannot override).

    The directory of the referee's own interpreter goes first on PATH, so that a bot command
    such as ``python -m sample_bots.random_bot`` runs the interpreter ginref runs on (with grpc
    and the client) even when ginref was started as ``.venv/bin/ginref`` without activating the
    virtualenv. ``sys.executable`` is not resolved: a virtualenv's ``bin/python`` is a symlink
    out of it.
    """
    env = dict(os.environ if base is None else base)
    bindir = os.path.dirname(sys.executable)
    if bindir:
        env["PATH"] = bindir + os.pathsep + env.get("PATH", os.defpath)
    env.update(extra)
    env.update({ENV_ADDRESS: address, ENV_TOKEN: token, ENV_SEAT: str(seat)})
    return env
