"""Bot faults (R11.5) that only real processes on a real server show: one end-to-end test each.

A crash and a kill by a signal, told apart by the process's exit; a stream cancelled over real
gRPC; a timeout end to end; bots that never connect, exit first or cannot start; refused
connections; and that no bot process, nor any child of one, is left behind. The fault policy
itself (every kind, retries, the clock, both seats at fault, events) is tested without
processes in test_session.py.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from referee.bots.spec import BotSpec
from referee.engine.outcomes import Termination
from referee.engine.rules import Rules
from referee.faults import FaultKind
from referee.series import run_match
from referee.settings import RefereeOptions
from referee.wire import ginrummy_pb2 as pb
from tests.support.referee_helpers import (
    FAST,
    alive,
    assert_forfeit,
    assert_log_agrees,
    bot,
    of_type,
    pids,
    play,
)

pytestmark = pytest.mark.slow  # faults of real bot processes on a real server


def told(outcome: Any, seat: int) -> str:
    """What the bot in ``seat`` printed (the test bot prints each Fault it receives)."""
    return Path(outcome.seats[seat].output).read_text()


def test_missed_deadline_without_bank(tmp_path: Path, pidfile: Path) -> None:
    # Both seats have 5 s a decision, far more than the good bot needs on a busy machine; the
    # hanging bot never answers, so its fault comes at 5 s, however fast the machine.
    options = RefereeOptions(
        move_time=5.0, bank=0, connect_timeout=60, exit_grace=0.5, kill_grace=0.5
    )
    sent: list[tuple[int, Any]] = []
    outcome = run_match(
        bot("slow", 3600),
        bot(),
        Rules.profile("standard"),
        11,
        tmp_path,
        options,
        on_send=lambda seat, message, hand: sent.append((seat, message)),
    )
    assert_forfeit(outcome, 0, FaultKind.DEADLINE_MISSED)
    (record,) = of_type(outcome.log_path, "fault")
    assert record["think_ms"] >= 5000
    # The hanging bot is told, though it is killed before it reads it.
    faults = [m.fault for seat, m in sent if seat == 0 and m.WhichOneof("kind") == "fault"]
    assert [(f.kind, f.rule, f.retry) for f in faults] == [
        (pb.FAULT_KIND_DEADLINE_MISSED, "R11.5", False)
    ]
    assert sent[-1][1].WhichOneof("kind") == "match_end"


def test_crash_mid_match(tmp_path: Path, pidfile: Path) -> None:
    outcome = play(tmp_path, bot(), bot("crash", 5))
    assert_forfeit(outcome, 1, FaultKind.CRASHED)
    assert "code 3" in outcome.result.forfeit_reason


def test_bot_killed_mid_match(
    tmp_path: Path, pidfile: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The test kills seat 1's process with SIGKILL after its 20th message."""
    sent = [0]

    def kill_seat_1(seat: int, message: Any, hand: Any) -> None:
        if seat == 1:
            sent[0] += 1
            if sent[0] == 20:
                (pid,) = [int(p.read_text()) for p in tmp_path.glob("pid.1")]
                os.kill(pid, signal.SIGKILL)

    outcome = run_match(
        bot(), bot(), Rules.profile("standard"), 11, tmp_path, FAST, on_send=kill_seat_1
    )
    assert_forfeit(outcome, 1, FaultKind.CRASHED)
    assert "-9" in outcome.result.forfeit_reason


def test_disconnect_mid_match(tmp_path: Path, pidfile: Path) -> None:
    outcome = play(tmp_path, bot("disconnect", 4), bot())
    assert_forfeit(outcome, 0, FaultKind.DISCONNECTED)


def test_never_connecting(tmp_path: Path, pidfile: Path) -> None:
    # The good bot needs well under 10 s to connect, even on a busy machine.
    options = RefereeOptions(connect_timeout=10.0, exit_grace=0.2, kill_grace=0.5)
    outcome = play(tmp_path, bot(), bot("never"), options=options)
    assert_forfeit(outcome, 1, FaultKind.NOT_CONNECTED)
    assert "did not connect within 10 s" in outcome.result.forfeit_reason
    assert outcome.hand_results == ()


def test_exiting_before_connecting(tmp_path: Path, pidfile: Path) -> None:
    outcome = play(tmp_path, bot("exit"), bot())
    assert_forfeit(outcome, 0, FaultKind.NOT_CONNECTED)
    assert "exited with code 4" in outcome.result.forfeit_reason


def test_command_that_cannot_start(tmp_path: Path, pidfile: Path) -> None:
    missing = BotSpec(("/nonexistent/ginref-bot",), "missing")
    outcome = play(tmp_path, bot(), missing)
    assert_forfeit(outcome, 1, FaultKind.NOT_CONNECTED)
    assert "could not start" in outcome.result.forfeit_reason


def test_wrong_token_is_rejected_without_taking_the_seat(tmp_path: Path, pidfile: Path) -> None:
    outcome = play(tmp_path, bot("wrong_token"), bot())
    assert outcome.forfeit is None  # the seat stayed free: the right token then played it
    assert outcome.result.termination is Termination.TARGET
    (rejected,) = of_type(outcome.log_path, "connection_rejected")
    assert rejected["code"] == "UNAUTHENTICATED" and rejected["rule"] == "R11.5"
    assert rejected["seat"] is None
    assert "refused as expected: UNAUTHENTICATED" in told(outcome, 0)


def test_second_connection_for_a_taken_seat(tmp_path: Path, pidfile: Path) -> None:
    outcome = play(tmp_path, bot(), bot("twice"))
    assert outcome.forfeit is None  # the first connection played the whole match
    assert outcome.result.termination is Termination.TARGET
    (rejected,) = of_type(outcome.log_path, "connection_rejected")
    assert (rejected["seat"], rejected["code"]) == (1, "ALREADY_EXISTS")
    assert "refused as expected: ALREADY_EXISTS" in told(outcome, 1)
    assert_log_agrees(outcome.log_path)


def test_children_of_a_bot_are_gone_after_the_match(tmp_path: Path, pidfile: Path) -> None:
    outcome = play(tmp_path, bot("spawn"), bot())
    assert outcome.forfeit is None
    line = next(x for x in told(outcome, 0).splitlines() if x.startswith("child pid"))
    child = int(line.split()[-1])
    # The child got SIGKILL with its group; give the kernel a moment to finish it (a bound far
    # from what it needs: the loop ends as soon as the child is gone).
    until = time.monotonic() + 60.0
    while alive(child) and time.monotonic() < until:
        time.sleep(0.01)
    assert not alive(child)


def test_a_bot_ignoring_sigterm_is_killed(tmp_path: Path, pidfile: Path) -> None:
    outcome = play(tmp_path, bot("stubborn"), bot())
    assert outcome.forfeit is None
    assert len(pids(pidfile)) == 2  # the fixture checks that both are gone
