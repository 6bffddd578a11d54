"""One end-to-end test per bot fault of R11.5: real server, real bot processes.

Each test checks the outcome (who forfeits, with which fault kind and rule), the replay log's
fault record, that the faulty bot was told (its output shows the Fault message), and that no
bot process is left behind.
"""

from __future__ import annotations

import asyncio
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
from referee.options import RefereeOptions
from referee.replay_log import verify_file
from referee.series import run_match, run_series
from referee.wire import ginrummy_pb2 as pb
from tests.support.referee_helpers import (
    FAST,
    alive,
    bot,
    of_type,
    pids,
    play,
)

pytestmark = pytest.mark.slow  # faults of real bot processes on a real server


def assert_forfeit(outcome: Any, seat: int, kind: FaultKind, rule: str = "R11.5") -> None:
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
    verify_file(outcome.log_path)  # a forfeited match re-adjudicates too


def told(outcome: Any, seat: int) -> str:
    """What the bot in ``seat`` printed (the test bot prints each Fault it receives)."""
    return Path(outcome.seats[seat].output).read_text()


def test_illegal_action_forfeits_and_names_the_rule(tmp_path: Path, pidfile: Path) -> None:
    outcome = play(tmp_path, bot("illegal"), bot())
    assert_forfeit(outcome, 0, FaultKind.ILLEGAL_ACTION, "R4.1")
    (record,) = of_type(outcome.log_path, "fault")
    assert record["action"]["kind"] == "discard"
    assert "must draw" in record["reason"]
    assert 'rule: "R4.1"' in told(outcome, 0)


def test_retry_policy_forgives_an_illegal_action_within_the_time(
    tmp_path: Path, pidfile: Path
) -> None:
    options = RefereeOptions(connect_timeout=15, exit_grace=0.5, kill_grace=0.5, retries=1)
    outcome = play(tmp_path, bot("illegal_once"), bot(), options=options)
    assert outcome.result.termination is Termination.TARGET
    assert outcome.forfeit is None
    (record,) = of_type(outcome.log_path, "fault")
    assert (record["kind"], record["rule"], record["retry"]) == ("illegal_action", "R4.1", True)
    assert "retry: true" in told(outcome, 0)
    verify_file(outcome.log_path)


def test_malformed_card_forfeits(tmp_path: Path, pidfile: Path) -> None:
    outcome = play(tmp_path, bot(), bot("malformed"))
    assert_forfeit(outcome, 1, FaultKind.MALFORMED_ACTION)
    assert "'10D' is not a card" in outcome.result.forfeit_reason
    assert "FAULT_KIND_MALFORMED_ACTION" in told(outcome, 1)


def test_action_without_kind_is_malformed(tmp_path: Path, pidfile: Path) -> None:
    outcome = play(tmp_path, bot("nokind"), bot())
    assert_forfeit(outcome, 0, FaultKind.MALFORMED_ACTION)
    assert "no kind" in outcome.result.forfeit_reason


def test_second_answer_is_out_of_turn(tmp_path: Path, pidfile: Path) -> None:
    outcome = play(tmp_path, bot(), bot("double"))
    assert_forfeit(outcome, 1, FaultKind.OUT_OF_TURN)
    assert "reply to request" in outcome.result.forfeit_reason
    assert "FAULT_KIND_OUT_OF_TURN" in told(outcome, 1)


def test_unknown_request_id_is_out_of_turn(tmp_path: Path, pidfile: Path) -> None:
    outcome = play(tmp_path, bot("badid"), bot())
    assert_forfeit(outcome, 0, FaultKind.OUT_OF_TURN)


def test_missed_deadline_without_bank(tmp_path: Path, pidfile: Path) -> None:
    options = RefereeOptions(
        move_time=0.3, bank=0, connect_timeout=15, exit_grace=0.5, kill_grace=0.5
    )
    sent: list[tuple[int, Any]] = []
    outcome = run_match(
        bot("slow", 2.0),
        bot(),
        Rules.profile("standard"),
        11,
        tmp_path,
        options,
        on_send=lambda seat, message, hand: sent.append((seat, message)),
    )
    assert_forfeit(outcome, 0, FaultKind.DEADLINE_MISSED)
    (record,) = of_type(outcome.log_path, "fault")
    assert 300 <= record["think_ms"] < 1500
    # The sleeping bot is told, though it is killed before it reads it.
    faults = [m.fault for seat, m in sent if seat == 0 and m.WhichOneof("kind") == "fault"]
    assert [(f.kind, f.rule, f.retry) for f in faults] == [
        (pb.FAULT_KIND_DEADLINE_MISSED, "R11.5", False)
    ]
    assert sent[-1][1].WhichOneof("kind") == "match_end"


def test_time_bank_runs_out(tmp_path: Path, pidfile: Path) -> None:
    # 0.15 s per answer against 0.05 s of move time eats 0.1 s of a 0.4 s bank each time.
    options = RefereeOptions(
        move_time=0.05, bank=0.4, connect_timeout=15, exit_grace=0.5, kill_grace=0.5
    )
    outcome = play(tmp_path, bot(), bot("slow", 0.15), options=options)
    assert_forfeit(outcome, 1, FaultKind.TIME_BANK_EXHAUSTED)
    banks = [d["bank_ms"] for d in of_type(outcome.log_path, "decision") if d["seat"] == 1]
    assert 2 <= len(banks) <= 4
    assert banks == sorted(banks, reverse=True) and banks[0] < 400


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


def test_half_close_mid_match_is_a_disconnect(tmp_path: Path, pidfile: Path) -> None:
    outcome = play(tmp_path, bot(), bot("halfclose", 4))
    assert_forfeit(outcome, 1, FaultKind.DISCONNECTED)
    assert "closed its side" in outcome.result.forfeit_reason


def test_never_connecting(tmp_path: Path, pidfile: Path) -> None:
    options = RefereeOptions(connect_timeout=2.0, exit_grace=0.2, kill_grace=0.5)
    outcome = play(tmp_path, bot(), bot("never"), options=options)
    assert_forfeit(outcome, 1, FaultKind.NOT_CONNECTED)
    assert "did not connect within 2 s" in outcome.result.forfeit_reason
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
    verify_file(outcome.log_path)


def test_children_of_a_bot_are_gone_after_the_match(tmp_path: Path, pidfile: Path) -> None:
    outcome = play(tmp_path, bot("spawn"), bot())
    assert outcome.forfeit is None
    line = next(x for x in told(outcome, 0).splitlines() if x.startswith("child pid"))
    child = int(line.split()[-1])
    # The child got SIGKILL with its group; give the kernel a moment to finish it.
    until = time.monotonic() + 2.0
    while alive(child) and time.monotonic() < until:
        time.sleep(0.01)
    assert not alive(child)


def test_a_bot_ignoring_sigterm_is_killed(tmp_path: Path, pidfile: Path) -> None:
    outcome = play(tmp_path, bot("stubborn"), bot())
    assert outcome.forfeit is None
    assert len(pids(pidfile)) == 2  # the fixture checks that both are gone


# --- both seats at fault ------------------------------------------------------------------------


def assert_both_forfeit(outcome: Any, kinds: tuple[FaultKind, FaultKind]) -> None:
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
    assert forfeit["seat"] is None and forfeit["kind"] == outcome.forfeit.kind.value
    assert forfeit["rule"] == "R11.5"
    assert forfeit["reason"].startswith("both seats forfeit: seat 0: ")
    assert "; seat 1: " in forfeit["reason"]
    verify_file(outcome.log_path)


def test_neither_bot_can_start(tmp_path: Path) -> None:
    missing = BotSpec(("/nonexistent/ginref-bot",), "missing")
    outcome = play(tmp_path, missing, missing)
    assert_both_forfeit(outcome, (FaultKind.NOT_CONNECTED, FaultKind.NOT_CONNECTED))
    assert "could not start" in outcome.result.forfeit_reason


def test_neither_bot_connects(tmp_path: Path, pidfile: Path) -> None:
    options = RefereeOptions(connect_timeout=2.0, exit_grace=0.2, kill_grace=0.5)
    outcome = play(tmp_path, bot("never"), bot("exit"), options=options)
    assert_both_forfeit(outcome, (FaultKind.NOT_CONNECTED, FaultKind.NOT_CONNECTED))
    reason = outcome.result.forfeit_reason
    assert "did not connect within 2 s" in reason and "exited with code 4" in reason


def test_both_bots_exit_early_in_every_match_of_a_series(tmp_path: Path, pidfile: Path) -> None:
    series = run_series(
        (bot("exit"), bot("exit")), Rules.profile("standard"), [1, 2], tmp_path, FAST
    )
    for outcome in series.matches:
        assert_both_forfeit(outcome, (FaultKind.NOT_CONNECTED, FaultKind.NOT_CONNECTED))
        assert outcome.hand_results == () and outcome.decisions == 0


def test_an_answer_cut_short_by_the_other_seats_fault_is_no_fault(tmp_path: Path) -> None:
    """The other bot's fault interrupts a decision; the answer then arriving is not a fault.

    A race no real bot can be made to hit on purpose: seat 1 answers out of turn while seat 0
    is deciding, and seat 0's answer arrives before the referee has moved on. Only seat 1 is at
    fault (R11.5: a fault never harms the other bot's record); a true second answer still is.
    """
    from referee.bots.process import BotProcess
    from referee.link import Player
    from referee.session import Faulted, MatchPlan, Session, Waiter

    def reply(rid: int) -> pb.BotMessage:
        action = pb.Action(draw_stock=pb.DrawStock())
        return pb.BotMessage(action_reply=pb.ActionReply(request_id=rid, action=action))

    async def main() -> None:
        loop = asyncio.get_running_loop()
        conns = [
            Player(i, spec.name, spec.command, BotProcess(spec, tmp_path / f"{i}.log"))
            for i, spec in enumerate((bot(), bot()))
        ]
        plan = MatchPlan("m", 1, 1, (0, 1), tmp_path / "m.jsonl")
        session = Session(plan, Rules.profile("standard"), conns, FAST, 1, None)
        seat0 = session.seats[0]
        future: asyncio.Future[Any] = loop.create_future()
        session._waiter = Waiter(seat0, 7, future)
        seat0.outstanding = 7
        session.on_message(conns[1], reply(3), loop.time())  # seat 1, out of turn
        error = future.exception()
        assert isinstance(error, Faulted) and error.fault.seat == 1
        session.on_message(conns[0], reply(7), loop.time())  # seat 0's answer, just after
        assert session._pending == []
        answered: asyncio.Future[Any] = loop.create_future()
        answered.set_result((reply(8).action_reply, loop.time()))
        session._waiter = Waiter(seat0, 8, answered)
        session.on_message(conns[0], reply(8), loop.time())  # a second answer to request 8
        assert [(f.seat, f.kind) for f in session._pending] == [(0, FaultKind.OUT_OF_TURN)]
        session.log.close()

    asyncio.run(main())
