"""Shared helpers of the referee's tests: launch the test bot, read logs, check forfeits."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from referee.bots.sandbox import SandboxSettings
from referee.bots.spec import BotSpec
from referee.engine.outcomes import Termination
from referee.engine.rules import Rules
from referee.faults import FaultKind
from referee.results import MatchOutcome
from referee.series import run_match
from referee.settings import RefereeOptions
from replays.verify import check_file

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


def assert_log_agrees(path: Path) -> None:
    """The log at ``path`` re-adjudicates: ``ginref verify``'s checks find nothing."""
    check = check_file(path)
    assert check.ok, check.problems


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # gone: no such file, or ESRCH from a process being reaped
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


def assert_forfeit(outcome: MatchOutcome, seat: int, kind: FaultKind, rule: str = "R11.5") -> None:
    """``seat`` forfeited with ``kind`` under ``rule``: in the outcome, the log and its result."""
    result = outcome.result
    assert result.termination is Termination.FORFEIT
    assert result.winner == 1 - seat
    assert result.forfeit_seat == seat
    assert result.forfeit_rule == rule
    assert outcome.forfeit is not None and outcome.forfeit.kind is kind, outcome.forfeit
    (record,) = [f for f in of_type(outcome.log_path, "fault") if not f["retry"]]
    assert (record["seat"], record["kind"], record["rule"]) == (seat, kind.value, rule)
    assert record["reason"]
    (end,) = of_type(outcome.log_path, "match_result")
    assert end["forfeit"] == {
        "seat": seat,
        "kind": kind.value,
        "rule": rule,
        "reason": result.forfeit_reason,
    }
    assert_log_agrees(outcome.log_path)  # a forfeited match re-adjudicates too


def assert_both_forfeit(outcome: MatchOutcome, kinds: tuple[FaultKind, FaultKind]) -> None:
    """Both seats forfeited, each with its fault kind; nobody wins, everywhere."""
    result = outcome.result
    assert result.termination is Termination.FORFEIT
    assert result.winner is None and result.forfeit_seat is None and result.margin == 0
    assert outcome.both_forfeit
    assert sorted((f.seat, f.kind) for f in outcome.forfeits) == [(0, kinds[0]), (1, kinds[1])]
    assert outcome.forfeit is outcome.forfeits[0]
    records = of_type(outcome.log_path, "fault")
    assert sorted((r["seat"], r["kind"], r["retry"]) for r in records) == [
        (0, kinds[0].value, False),
        (1, kinds[1].value, False),
    ]
    (end,) = of_type(outcome.log_path, "match_result")
    assert end["winner"] is None and end["margin"] == 0
    forfeit = end["forfeit"]
    assert forfeit["seat"] is None and forfeit["kind"] == outcome.forfeits[0].kind.value
    assert forfeit["rule"] == "R11.5"
    assert forfeit["reason"].startswith("both seats forfeit: seat 0: ")
    assert "; seat 1: " in forfeit["reason"]
    assert_log_agrees(outcome.log_path)
