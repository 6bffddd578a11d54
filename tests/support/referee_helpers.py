"""Shared helpers of the referee's end-to-end tests: launch the test bot, read its traces."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from referee.bots.sandbox import SandboxSettings
from referee.bots.spec import BotSpec
from referee.engine.rules import Rules
from referee.options import RefereeOptions
from referee.results import MatchOutcome
from referee.series import run_match

ROOT = Path(__file__).resolve().parents[2]
TESTBOT = ROOT / "tests" / "support" / "testbot.py"

# Short limits keep the fault tests fast; the clock tests set their own. Unsandboxed: these
# tests watch the test bot's processes through what it inherits from the referee (its pid
# file, its environment); the sandbox has tests of its own (tests/bots/test_sandbox_*.py).
UNSANDBOXED = SandboxSettings(mode="none")
FAST = RefereeOptions(connect_timeout=15.0, exit_grace=0.5, kill_grace=0.5, sandbox=UNSANDBOXED)


def bot(mode: str = "play", arg: float | None = None) -> BotSpec:
    """The test bot in ``mode`` (see tests/support/testbot.py)."""
    argv = [sys.executable, str(TESTBOT), mode]
    if arg is not None:
        argv.append(str(arg))
    return BotSpec(tuple(argv), f"testbot-{mode}")


def play(
    tmp_path: Path,
    a: BotSpec,
    b: BotSpec,
    *,
    profile: str = "standard",
    seed: int = 11,
    options: RefereeOptions = FAST,
    **overrides: Any,
) -> MatchOutcome:
    """One match between two bots under ``profile``; logs in ``tmp_path``."""
    return run_match(a, b, Rules.profile(profile, **overrides), seed, tmp_path, options)


def records(path: Path) -> list[dict[str, Any]]:
    """Every record of a replay log."""
    return [json.loads(line) for line in path.read_text().splitlines()]


def of_type(path: Path, kind: str) -> list[dict[str, Any]]:
    """The records of one type."""
    return [r for r in records(path) if r["type"] == kind]


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def pids(pidfile: Path) -> list[int]:
    """The pids the test bots wrote (TESTBOT_PIDFILE.<seat>)."""
    return [int(p.read_text()) for p in sorted(pidfile.parent.glob(pidfile.name + ".*"))]


def env_pidfile(monkeypatch: Any, tmp_path: Path) -> Path:
    """Make every test bot write its pid; return the pidfile prefix."""
    prefix = tmp_path / "pid"
    monkeypatch.setenv("TESTBOT_PIDFILE", str(prefix))
    return prefix


def no_process_left(prefix: Path) -> None:
    """Assert that every bot that wrote a pid is gone."""
    for pid in pids(prefix):
        assert not alive(pid), f"bot process {pid} is still running"
