"""The session's fault policy, clock and events, through fakes: no process, socket or real time.

Each test plays a match between two :class:`~tests.referee.fakes.FakeLink` bots on a
:class:`~tests.referee.fakes.FakeClock`, so times are exact: with a move time of 1 s and a bank of
2 s, a reply after 1.5 s leaves a bank of exactly 1.5 s. What needs a real process or a real
server (a crash, a signal, the launch, the tokens) is in test_faults.py.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import hashlib
import os
import random
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from referee.bots.process import ExitStatus
from referee.convert import CARD_STRINGS, action_from_pb, action_pb, arrangement_pb
from referee.engine.actions import action_to_dict
from referee.engine.cards import parse_cards
from referee.engine.hand import Hand
from referee.engine.match import Match
from referee.engine.melds import best_arrangement
from referee.engine.outcomes import Termination
from referee.engine.rules import Rules
from referee.errors import DisconnectedError
from referee.faults import CONDUCT_RULE, Fault, FaultKind
from referee.link import Player
from referee.results import MatchOutcome, MatchPlan, SeatInfo
from referee.session import (
    CRASH_PROBE,
    MAX_REJECTIONS_LOGGED,
    BeforeResult,
    OnFinished,
    OnSend,
    Session,
)
from referee.settings import RefereeOptions
from referee.transport import InvalidMessage, parse_bot_message
from referee.wire import ginrummy_pb2 as pb
from tests.referee.fakes import (
    FakeClock,
    FakeLink,
    FakeProcess,
    Policy,
    ScriptedBot,
    Step,
    answer_after,
    fake_player,
    first_legal,
    knock_or_random,
    knock_or_random_index,
    no_answer,
    run_on,
)
from tests.support.event_checker import EventChecker, hand_events
from tests.support.referee_helpers import (
    assert_both_forfeit,
    assert_forfeit,
    assert_log_agrees,
    of_type,
)

RULES = Rules.profile("standard")
SEED = 11  # seat 1 is offered the upcard first
OPTIONS = RefereeOptions(move_time=1.0, bank=2.0)
NO_BANK = RefereeOptions(move_time=1.0, bank=0.0)
EPSILON = 2.0**-10  # exact in binary, so sums of times stay exact
# The fault of a late reply: the bank's when there is one, else the move time's.
WITH_AND_WITHOUT_BANK = pytest.mark.parametrize(
    ("options", "kind"),
    [(OPTIONS, FaultKind.TIME_BANK_EXHAUSTED), (NO_BANK, FaultKind.DEADLINE_MISSED)],
    ids=["bank", "no-bank"],
)


def in_loop(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async test in a fresh event loop (the session needs a running loop)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


@dataclass
class Bots:
    """Two fake bots and their clock; bot i plays seat i unless a plan says otherwise."""

    clock: FakeClock
    players: list[Player]
    links: list[FakeLink]
    procs: list[FakeProcess]

    def script(
        self,
        index: int,
        policy: Policy = first_legal,
        steps: Mapping[int, Step] | None = None,
        think: float = 0.0,
    ) -> ScriptedBot:
        """Let bot ``index`` answer by ``policy``, with ``steps`` at chosen decisions."""
        return ScriptedBot(self.links[index], policy, think=think, script=steps)


def make_bots(folder: Path, connected: tuple[bool, bool] = (True, True)) -> Bots:
    """Two fake bots on a fresh clock, wired to their players as the series wires real ones."""
    clock = FakeClock()
    made = [fake_player(i, clock, folder, connected=connected[i]) for i in (0, 1)]
    return Bots(clock, [m[0] for m in made], [m[1] for m in made], [m[2] for m in made])


async def play(
    folder: Path,
    bots: Bots,
    options: RefereeOptions = OPTIONS,
    *,
    rules: Rules = RULES,
    seed: int = SEED,
    number: int = 1,
    order: tuple[int, int] = (0, 1),
    length: int = 1,
    on_send: OnSend | None = None,
    on_finished: OnFinished | None = None,
    before_result: BeforeResult | None = None,
) -> MatchOutcome:
    """Match ``number`` of a series of ``length`` between ``bots``, made as the series makes it."""
    plan = MatchPlan(f"m{number}", number, seed, order, folder / f"m{number}.jsonl")
    session = Session(
        plan,
        rules,
        bots.players,
        options,
        length,
        on_send,
        on_finished=on_finished,
        clock=bots.clock,
    )
    session.write_header()
    if number == 1:
        # The series logs each bot's connection into its first match's log.
        for player in bots.players:
            if player.link is not None:
                session.log_connected(player)
    return await run_on(bots.clock, session.run(before_result))


def illegal_when_drawing(policy: Policy = first_legal) -> Policy:
    """Discard during the draw (R4.1) the first time the bot must draw, else ``policy``."""
    done = False

    def choose(request: pb.DecisionRequest) -> pb.Action:
        nonlocal done
        if not done and request.observation.phase == pb.PHASE_DRAW:
            done = True
            return pb.Action(discard=pb.Discard(card=request.observation.hand[0]))
        return policy(request)

    return choose


def reply_with(action: pb.Action, after: float = 0.0) -> Step:
    """A step: answer with ``action`` whatever the request, ``after`` seconds later."""
    return answer_after(after, lambda request: action)


def decisions_of(outcome: MatchOutcome, seat: int) -> list[tuple[float, float]]:
    """``(think_ms, bank_ms)`` of each decision of ``seat`` in the log."""
    records = of_type(outcome.log_path, "decision")
    return [(d["think_ms"], d["bank_ms"]) for d in records if d["seat"] == seat]


# --- a whole match ------------------------------------------------------------------------------


def engine_alone(rules: Rules, seed: int, rng: random.Random) -> tuple[Match, int]:
    """The match played by the engine with the same choices, and its number of decisions."""
    match = Match(rules, seed)
    decisions = 0
    while match.result is None:
        legal = match.legal_actions()
        match.apply(legal[knock_or_random_index([action_pb(a) for a in legal], rng)])
        decisions += 1
    return match, decisions


@pytest.mark.parametrize(
    ("rules", "seed"),
    [(RULES, 1), (Rules.profile("oklahoma", first_dealer="cut_high_chooses"), 4)],
    ids=["standard", "oklahoma-choose-dealer"],
)
@in_loop
async def test_a_match_through_fakes_scores_as_the_engine_alone(
    tmp_path: Path, rules: Rules, seed: int
) -> None:
    bots = make_bots(tmp_path)
    rng = random.Random(seed)
    for index in (0, 1):
        bots.script(index, knock_or_random(rng))  # one generator: the engine's order of choices
    events = EventChecker()
    outcome = await play(tmp_path, bots, rules=rules, seed=seed, on_send=events)
    match, decisions = engine_alone(rules, seed, random.Random(seed))
    assert outcome.result == match.result and outcome.result.termination is not Termination.FORFEIT
    assert outcome.hand_results == tuple(match.hand_results) and len(match.hand_results) > 2
    assert outcome.decisions == decisions and outcome.faults == ()
    assert_log_agrees(outcome.log_path)
    for link in bots.links:
        assert link.kinds()[0] == "match_start" and link.kinds()[-1] == "match_end"
        end = link.sent[-1].match_end.result
        assert tuple(end.final_scores) == match.result.final
    # Each public event reached each seat exactly once, in order; none as an Event mid-hand.
    assert events.problems == []
    assert events.hands_checked == 2 * len(outcome.hand_results)
    assert outcome.elapsed == 0.0  # the bots answered at once, and no real time counts


@in_loop
async def test_events_not_yet_sent_go_to_a_seat_before_the_match_ends_by_a_fault(
    tmp_path: Path,
) -> None:
    """Seat 1's own moves reach it as Event messages when seat 0's fault ends the hand."""
    bots = make_bots(tmp_path)
    hands: list[Hand | None] = []
    bots.script(0, steps={2: reply_with(pb.Action())})  # malformed: no kind
    bots.script(1)
    outcome = await play(tmp_path, bots, on_send=lambda seat, message, hand: hands.append(hand))
    assert_forfeit(outcome, 0, FaultKind.MALFORMED_ACTION)
    hand = hands[-1]
    assert hand is not None
    kinds = bots.links[1].kinds()
    last_request = len(kinds) - 1 - kinds[::-1].index("decision_request")
    assert set(kinds[last_request + 1 : -1]) == {"event"} and kinds[-1] == "match_end"
    for seat, link in enumerate(bots.links):
        start = len(link.kinds()) - 1 - link.kinds()[::-1].index("hand_start")
        got: list[pb.GameEvent] = []
        for message in link.sent[start:]:
            if message.HasField("event"):
                got.append(message.event)
            elif message.HasField("decision_request"):
                got.extend(message.decision_request.new_events)
        assert got == hand_events(seat, hand)


def malformed_once_ahead(policy: Policy) -> Policy:
    """Answer by ``policy`` until the seat leads the match, then send an action with no kind."""

    def choose(request: pb.DecisionRequest) -> pb.Action:
        obs = request.observation
        scores = [s.points for s in obs.scores]
        if len(scores) == 2 and scores[obs.seat] > scores[1 - obs.seat]:
            return pb.Action()
        return policy(request)

    return choose


@in_loop
async def test_a_seat_that_forfeits_while_ahead_loses_by_a_margin_of_zero(tmp_path: Path) -> None:
    """The forfeit's winner trails on points: the result keeps the scores, and the margin (what
    the winner is paid, R9.6) is 0, never negative."""
    bots = make_bots(tmp_path)
    rng = random.Random(4)
    bots.script(0, malformed_once_ahead(knock_or_random(rng)))
    bots.script(1, malformed_once_ahead(knock_or_random(rng)))
    outcome = await play(tmp_path, bots)
    forfeit = outcome.forfeit
    assert forfeit is not None and forfeit.kind is FaultKind.MALFORMED_ACTION
    result = outcome.result
    leader = forfeit.seat
    assert result.winner == 1 - leader
    assert result.final[leader] > result.final[1 - leader]  # the loser was ahead
    assert result.margin == 0
    (end,) = of_type(outcome.log_path, "match_result")
    assert end["margin"] == 0 and end["final"] == list(result.final)
    assert_log_agrees(outcome.log_path)


# --- the clock ----------------------------------------------------------------------------------


@in_loop
async def test_time_beyond_the_move_time_is_taken_from_the_bank(tmp_path: Path) -> None:
    bots = make_bots(tmp_path)
    steps = {1: answer_after(1.5), 2: answer_after(0.25), 3: answer_after(2.25), 4: no_answer}
    bots.script(0, steps=steps)
    bots.script(1)
    outcome = await play(tmp_path, bots)
    # 0.5 s over the move time, then none, then 1.25 s of the 1.5 s left.
    assert decisions_of(outcome, 0) == [(1500.0, 1500.0), (250.0, 1500.0), (2250.0, 250.0)]
    requests = bots.links[0].requests()
    assert [(r.time_left_ms, r.bank_ms) for r in requests] == [
        (3000, 2000),
        (2500, 1500),
        (2500, 1500),
        (1250, 250),
    ]
    assert {r.move_time_ms for r in requests} == {1000}
    assert_forfeit(outcome, 0, FaultKind.TIME_BANK_EXHAUSTED)
    fault = outcome.faults[0]
    rid = requests[3].request_id
    assert (fault.request_id, fault.think_ms) == (rid, 1250.0)
    assert fault.reason == (
        f"no reply to request {rid} after 1.250 s: the move time (1 s) and the time bank "
        "(2 s per match) are used up"
    )
    assert outcome.elapsed == 1.5 + 0.25 + 2.25 + 1.25


@WITH_AND_WITHOUT_BANK
@in_loop
async def test_a_reply_just_inside_the_budget_counts(
    tmp_path: Path, options: RefereeOptions, kind: FaultKind
) -> None:
    budget = options.move_time + options.bank
    bots = make_bots(tmp_path)
    bots.script(0)
    bots.script(1, steps={1: answer_after(budget - EPSILON), 2: no_answer})
    outcome = await play(tmp_path, bots, options)
    think_ms = round((budget - EPSILON) * 1000, 3)
    bank_ms = round(EPSILON * 1000, 3) if options.bank else 0.0
    assert decisions_of(outcome, 1)[0] == (think_ms, bank_ms)
    # Its next decision may take the move time and what is left of the bank, and no more.
    assert_forfeit(outcome, 1, kind)
    assert outcome.faults[0].think_ms == round((options.move_time + bank_ms / 1000) * 1000, 3)


@WITH_AND_WITHOUT_BANK
@pytest.mark.parametrize("read_first", [False, True], ids=["timer-first", "read-first"])
@in_loop
async def test_a_reply_just_outside_the_budget_is_too_late(
    tmp_path: Path, options: RefereeOptions, kind: FaultKind, read_first: bool
) -> None:
    """Too late when the deadline's timer fires first, and when a busy loop reads it first."""
    budget = options.move_time + options.bank

    def late(link: FakeLink, request: pb.DecisionRequest) -> None:
        answer = pb.ActionReply(request_id=request.request_id, action=first_legal(request))
        message, arrival = pb.BotMessage(action_reply=answer), link.clock.time() + budget + EPSILON
        if read_first:
            link.on_message(message, arrival)  # stamped after the deadline, before its timer ran
        else:
            link.deliver(message, arrival)

    bots = make_bots(tmp_path)
    bots.script(0)
    bots.script(1, steps={1: late})
    outcome = await play(tmp_path, bots, options)
    assert_forfeit(outcome, 1, kind)
    if read_first:
        assert outcome.faults[0].think_ms == round((budget + EPSILON) * 1000, 3)
        assert outcome.elapsed == 0.0
    else:
        assert outcome.faults[0].think_ms == budget * 1000  # the timer fired on time
        assert outcome.elapsed == budget


@in_loop
async def test_no_reply_within_the_move_time_without_bank_misses_the_deadline(
    tmp_path: Path,
) -> None:
    bots = make_bots(tmp_path)
    bots.script(0)
    bots.script(1, steps={1: no_answer})
    outcome = await play(tmp_path, bots, NO_BANK)
    assert_forfeit(outcome, 1, FaultKind.DEADLINE_MISSED)
    (request,) = bots.links[1].requests()
    assert (request.time_left_ms, request.move_time_ms, request.bank_ms) == (1000, 1000, 0)
    (record,) = of_type(outcome.log_path, "fault")
    assert record["think_ms"] == 1000.0 and record["request_id"] == request.request_id
    assert record["reason"] == (
        f"no reply to request {request.request_id} within the move time of 1 s"
    )
    # The sleeping bot is told, then both get the result.
    faults = bots.links[1].faults()
    assert [(f.kind, f.rule, f.retry) for f in faults] == [
        (pb.FAULT_KIND_DEADLINE_MISSED, "R11.5", False)
    ]
    assert bots.links[1].kinds()[-2:] == ["fault", "match_end"]
    assert bots.links[0].kinds()[-1] == "match_end"


@WITH_AND_WITHOUT_BANK
@in_loop
async def test_the_bots_clock_starts_when_its_side_has_the_request(
    tmp_path: Path, options: RefereeOptions, kind: FaultKind
) -> None:
    """Its side has each request 0.75 s after the referee sends it (a busy referee, a slow
    relay): a reply 0.5 s into the budget's last second, by the bot's clock, still counts, and
    the referee's timer, which fires first, asks the link before it charges anyone."""
    budget = options.move_time + options.bank
    bots = make_bots(tmp_path)
    bots.links[1].delay = 0.75
    bots.script(0)
    think = budget - 0.5
    bots.script(1, steps={1: answer_after(0.75 + think), 2: no_answer})
    outcome = await play(tmp_path, bots, options)
    assert decisions_of(outcome, 1)[0][0] == think * 1000
    assert bots.links[1].settles >= 1  # the referee's clock ran out first and asked
    # Its next decision: charged at the budget by its own clock, not the referee's.
    assert_forfeit(outcome, 1, kind)
    bank_left = options.bank - max(0.0, think - options.move_time)
    assert outcome.faults[0].think_ms == (options.move_time + bank_left) * 1000


# --- actions refused, and retries ---------------------------------------------------------------


@in_loop
async def test_an_illegal_action_forfeits_and_names_the_rule(tmp_path: Path) -> None:
    bots = make_bots(tmp_path)
    bots.script(0, illegal_when_drawing())
    bots.script(1)
    outcome = await play(tmp_path, bots)
    assert_forfeit(outcome, 0, FaultKind.ILLEGAL_ACTION, "R4.1")
    (record,) = of_type(outcome.log_path, "fault")
    assert record["action"]["kind"] == "discard"
    # The action, once, then the rule's words.
    named = f"discard {record['action']['card']}: "
    assert record["reason"] == named + "you must draw from the stock or the discard pile"
    assert record["hand"] == 1 and record["retry"] is False
    assert record["request_id"] == bots.links[0].requests()[-1].request_id
    (fault,) = bots.links[0].faults()
    assert (fault.kind, fault.rule, fault.retry) == (pb.FAULT_KIND_ILLEGAL_ACTION, "R4.1", False)
    assert fault.message == record["reason"]
    assert bots.links[0].kinds()[-2:] == ["fault", "match_end"]
    assert bots.links[1].faults() == []  # the other bot is not told of it


@pytest.mark.parametrize(
    ("action", "words"),
    [
        (pb.Action(discard=pb.Discard(card="10D")), "'10D' is not a card"),
        (pb.Action(), "no kind"),
    ],
    ids=["non-canonical-card", "no-kind"],
)
@in_loop
async def test_a_malformed_action_forfeits(tmp_path: Path, action: pb.Action, words: str) -> None:
    bots = make_bots(tmp_path)
    bots.script(0)
    bots.script(1, steps={1: reply_with(action)})
    outcome = await play(tmp_path, bots)
    assert_forfeit(outcome, 1, FaultKind.MALFORMED_ACTION)
    assert outcome.result.forfeit_reason is not None and words in outcome.result.forfeit_reason
    assert [f.kind for f in bots.links[1].faults()] == [pb.FAULT_KIND_MALFORMED_ACTION]


def declaring_knocks(wrong: bool, policy: Policy) -> Policy:
    """Knock whenever a knock is legal, with an arrangement of its own (the proto lets a bot add
    one to a listed knock): best melds of the hand without the discard, and the deadwood outside
    them, or, ``wrong``, a deadwood list that is not those cards. Otherwise ``policy``."""

    def choose(request: pb.DecisionRequest) -> pb.Action:
        knocks = [a for a in request.legal_actions if a.HasField("knock")]
        if not knocks:
            return policy(request)
        hand = list(request.observation.hand)
        discard = knocks[0].knock.discard
        arrangement = arrangement_pb(best_arrangement(parse_cards(c for c in hand if c != discard)))
        if wrong:
            outside = next(c for c in CARD_STRINGS if c not in hand)
            arrangement.deadwood[:] = [outside, *arrangement.deadwood[1:]]
        return pb.Action(knock=pb.Knock(discard=discard, arrangement=arrangement))

    return choose


@pytest.mark.parametrize("wrong", [False, True], ids=["its-deadwood", "other-cards"])
@in_loop
async def test_a_declared_deadwood_is_checked_against_the_knockers_hand(
    tmp_path: Path, wrong: bool
) -> None:
    """A declared deadwood list must be exactly the knocker's cards outside its melds
    (docs/referee.md: otherwise malformed_action); when it is, the knock is the bot's own."""
    bots = make_bots(tmp_path)
    rng = random.Random(6)
    for index in (0, 1):
        bots.script(index, declaring_knocks(wrong, knock_or_random(rng)))
    outcome = await play(tmp_path, bots)
    knocks = [d for d in of_type(outcome.log_path, "decision") if d["action"]["kind"] == "knock"]
    if wrong:
        assert knocks == []
        assert outcome.forfeit is not None
        assert_forfeit(outcome, outcome.forfeit.seat, FaultKind.MALFORMED_ACTION)
        assert "is not the cards outside the melds" in outcome.forfeit.reason
    else:
        assert outcome.faults == () and outcome.result.termination is Termination.TARGET
        assert knocks and all(k["action"].get("melds") for k in knocks)  # declared, not arranged
        assert_log_agrees(outcome.log_path)


@in_loop
async def test_a_retry_asks_again_for_the_same_decision_with_the_time_left(
    tmp_path: Path,
) -> None:
    bots = make_bots(tmp_path)
    bots.script(0)
    malformed = pb.Action(discard=pb.Discard(card="10D"))
    steps = {2: reply_with(malformed, 0.5), 3: answer_after(1.0), 4: no_answer}
    bots.script(1, steps=steps)
    outcome = await play(tmp_path, bots, RefereeOptions(move_time=1.0, bank=2.0, retries=1))
    first, again = bots.links[1].requests()[1:3]
    assert again.request_id == first.request_id + 1
    assert again.observation == first.observation and again.legal_actions == first.legal_actions
    assert (first.time_left_ms, first.bank_ms) == (3000, 2000)
    assert (again.time_left_ms, again.bank_ms) == (2500, 2000)  # the clock ran on: 0.5 s used
    assert len(first.new_events) > 0 and len(again.new_events) == 0  # events go once
    kinds = bots.links[1].kinds()
    asked = [i for i, kind in enumerate(kinds) if kind == "decision_request"][1]
    assert kinds[asked : asked + 3] == ["decision_request", "fault", "decision_request"]
    retry = bots.links[1].faults()[0]
    assert (retry.kind, retry.request_id, retry.retry) == (
        pb.FAULT_KIND_MALFORMED_ACTION,
        first.request_id,
        True,
    )
    records = of_type(outcome.log_path, "fault")
    assert [(r["kind"], r["retry"]) for r in records] == [
        ("malformed_action", True),
        ("time_bank_exhausted", False),
    ]
    assert (records[0]["request_id"], records[0]["think_ms"]) == (first.request_id, 500.0)
    # The answer to the retry is charged from the first request: 1.5 s, 0.5 s of it to the bank.
    decision = [d for d in of_type(outcome.log_path, "decision") if d["seat"] == 1][1]
    assert decision["request_id"] == again.request_id
    assert (decision["think_ms"], decision["bank_ms"]) == (1500.0, 1500.0)


@in_loop
async def test_the_retry_policy_forgives_an_illegal_action_and_the_match_goes_on(
    tmp_path: Path,
) -> None:
    bots = make_bots(tmp_path)
    rng = random.Random(1)
    bots.script(0, illegal_when_drawing(knock_or_random(rng)))
    bots.script(1, knock_or_random(rng))
    outcome = await play(tmp_path, bots, RefereeOptions(retries=1), seed=1)
    assert outcome.result.termination is Termination.TARGET
    assert outcome.forfeit is None
    (record,) = of_type(outcome.log_path, "fault")
    assert (record["kind"], record["rule"], record["retry"]) == ("illegal_action", "R4.1", True)
    assert [(f.rule, f.retry) for f in bots.links[0].faults()] == [("R4.1", True)]
    assert_log_agrees(outcome.log_path)


@in_loop
async def test_when_the_retries_run_out_the_seat_forfeits(tmp_path: Path) -> None:
    bots = make_bots(tmp_path)
    bots.script(0)
    malformed = reply_with(pb.Action())
    bots.script(1, steps={1: malformed, 2: malformed})
    outcome = await play(tmp_path, bots, RefereeOptions(retries=1))
    assert_forfeit(outcome, 1, FaultKind.MALFORMED_ACTION)
    assert [r["retry"] for r in of_type(outcome.log_path, "fault")] == [True, False]
    assert [f.retry for f in bots.links[1].faults()] == [True, False]
    assert bots.links[1].kinds()[-1] == "match_end"


# --- out of turn ---------------------------------------------------------------------------------


@in_loop
async def test_a_second_answer_is_out_of_turn(tmp_path: Path) -> None:
    """Both answers are read before the referee moves on: the second one is the fault."""

    def twice(link: FakeLink, request: pb.DecisionRequest) -> None:
        link.reply(request.request_id, first_legal(request))
        link.reply(request.request_id, first_legal(request))

    bots = make_bots(tmp_path)
    bots.script(0)
    bots.script(1, steps={2: twice})
    outcome = await play(tmp_path, bots)
    assert_forfeit(outcome, 1, FaultKind.OUT_OF_TURN)
    rid = bots.links[1].requests()[1].request_id
    assert outcome.result.forfeit_reason == (
        f"a second reply to request {rid}: no request is outstanding"
    )
    assert [f.kind for f in bots.links[1].faults()] == [pb.FAULT_KIND_OUT_OF_TURN]
    # The first answer counted: it is the seat's last decision in the log.
    last = [d for d in of_type(outcome.log_path, "decision") if d["seat"] == 1][-1]
    assert last["request_id"] == rid


@in_loop
async def test_a_reply_to_the_request_a_retry_replaced_is_out_of_turn(tmp_path: Path) -> None:
    """The retried request was answered (by the refused action): another reply to it is a
    second answer, not a late one to ignore, and the request outstanding is the new one."""

    def old_id(link: FakeLink, request: pb.DecisionRequest) -> None:
        link.reply(request.request_id - 1, first_legal(request))

    bots = make_bots(tmp_path)
    bots.script(0)
    bots.script(1, steps={2: reply_with(pb.Action()), 3: old_id})
    outcome = await play(tmp_path, bots, RefereeOptions(retries=1))
    assert_forfeit(outcome, 1, FaultKind.OUT_OF_TURN)
    again = bots.links[1].requests()[2].request_id
    assert outcome.result.forfeit_reason == (
        f"a reply to request {again - 1}, but the outstanding request is {again}"
    )
    assert [f.retry for f in bots.links[1].faults()] == [True, False]


@in_loop
async def test_an_answer_after_the_referee_moved_on_is_out_of_turn(tmp_path: Path) -> None:
    """A second answer read while the other seat decides: only the bot that sent it is at fault."""

    def twice(link: FakeLink, request: pb.DecisionRequest) -> None:
        link.reply(request.request_id, first_legal(request))
        link.reply(request.request_id, first_legal(request), link.clock.time() + 0.25)

    bots = make_bots(tmp_path)
    bots.script(0, think=0.5)
    bots.script(1, steps={1: twice})
    outcome = await play(tmp_path, bots)
    assert_forfeit(outcome, 1, FaultKind.OUT_OF_TURN)
    rid = bots.links[1].requests()[0].request_id
    assert outcome.result.forfeit_reason == (
        f"a reply to request {rid}, but no request is outstanding for this seat"
    )
    assert bots.links[0].faults() == [] and len(outcome.faults) == 1


@in_loop
async def test_an_unknown_request_id_is_out_of_turn(tmp_path: Path) -> None:
    def wrong_id(link: FakeLink, request: pb.DecisionRequest) -> None:
        link.reply(request.request_id + 1000, first_legal(request))

    bots = make_bots(tmp_path)
    bots.script(0, steps={1: wrong_id})
    bots.script(1)
    outcome = await play(tmp_path, bots)
    assert_forfeit(outcome, 0, FaultKind.OUT_OF_TURN)
    rid = bots.links[0].requests()[0].request_id
    assert outcome.result.forfeit_reason == (
        f"a reply to request {rid + 1000}, but the outstanding request is {rid}"
    )


@in_loop
async def test_an_answer_cut_short_by_the_other_seats_fault_is_no_fault(tmp_path: Path) -> None:
    """The other bot's fault interrupts a decision; the answer then arriving is not a fault.

    A race no real bot can be made to hit on purpose: seat 0 answers out of turn while seat 1
    is deciding, and seat 1's answer arrives before the referee has moved on. Only seat 0 is at
    fault (R11.5: a fault never harms the other bot's record); a true second answer still is
    (test_a_second_answer_is_out_of_turn).
    """
    bots = make_bots(tmp_path)
    other = bots.links[0]

    def cut_short(link: FakeLink, request: pb.DecisionRequest) -> None:
        other.reply(3, pb.Action(draw_stock=pb.DrawStock()))  # seat 0, out of turn
        link.reply(request.request_id, first_legal(request))  # seat 1's answer, just after

    bots.script(0)
    bots.script(1, steps={2: cut_short})
    outcome = await play(tmp_path, bots)
    assert_forfeit(outcome, 0, FaultKind.OUT_OF_TURN)
    assert len(outcome.faults) == 1
    assert bots.links[1].faults() == [] and bots.links[1].kinds()[-1] == "match_end"
    # The cut-short answer was not applied either: seat 1's last decision is its first.
    assert len([d for d in of_type(outcome.log_path, "decision") if d["seat"] == 1]) == 1


@pytest.mark.parametrize("cause", ["timed-out", "cut-short"])
@in_loop
async def test_a_late_answer_to_an_abandoned_request_is_ignored_in_the_next_match(
    tmp_path: Path, cause: str
) -> None:
    """Request ids run over the series, so an answer to the last match's request is recognised.

    The request was abandoned when its deadline passed, or when the other bot's fault cut the
    decision short; either way the answer comes during the next match, and is no fault there.
    """
    bots = make_bots(tmp_path)

    def cut_short(link: FakeLink, request: pb.DecisionRequest) -> None:
        bots.links[0].deliver(pb.BotMessage())  # the other bot's fault ends the match at once
        answer_after(0.75)(link, request)

    rng = random.Random(1)
    late = answer_after(1.5) if cause == "timed-out" else cut_short
    bots.script(0, knock_or_random(rng), think=0.25)
    bots.script(1, knock_or_random(rng), steps={1: late}, think=0.25)
    first = await play(tmp_path, bots, NO_BANK, length=2)
    if cause == "timed-out":
        assert_forfeit(first, 1, FaultKind.DEADLINE_MISSED)
    else:
        assert_forfeit(first, 0, FaultKind.PROTOCOL_ERROR)
    # The next match of the series, seats swapped; the late answer comes 0.5 or 0.75 s into it.
    second = await play(tmp_path, bots, NO_BANK, seed=1, number=2, order=(1, 0), length=2)
    assert second.elapsed > 0.75
    assert second.faults == () and second.result.termination is Termination.TARGET


# --- a flood of replies out of turn ---------------------------------------------------------------

THINK = 0.5  # the honest bot's think time, well within the move time
SHORT = Rules.profile("standard", target=50)  # a whole match after the flood, in less time
FLOOD_REPEATS = 30  # each message of a flood is sent this many times
UNPARSEABLE = b"\xff\xff\xff\x7f not a protobuf message"


class Flood:
    """Replies to no request, sent all at once by the bot on ``link`` when it is called.

    Guesses at its next request ids (they run 1, 2, 3... over the series), its last id again,
    and ids never issued, each with every action it might play: the draws, the pass, what was
    legal at its last request, each card of its hand discarded and knocked with, an action of
    no kind and a card not written canonically. Then what is no reply at all: an unreadable
    message, an empty one, a second Hello. All of it :data:`FLOOD_REPEATS` times over.
    """

    def __init__(self, link: FakeLink) -> None:
        self.link = link
        self.request: pb.DecisionRequest | None = None  # the last one its bot was sent
        self.hand: list[str] = []
        self.first = 0  # the request id of the flood's first reply
        self.sent = 0

    def watch(self, message: pb.RefereeMessage) -> None:
        """What the bot reads: its last request, and its hand."""
        if message.HasField("hand_start"):
            self.hand = list(message.hand_start.hand)
        elif message.HasField("decision_request"):
            self.request = message.decision_request
            self.hand = list(self.request.observation.hand)

    def __call__(self) -> None:
        assert self.sent == 0, "one flood a test"
        last = self.request.request_id if self.request is not None else 0
        ids = [last + 1, last + 2, last + 3, last, 0, -1, 2**63 - 1]
        actions = [
            pb.Action(draw_stock=pb.DrawStock()),
            pb.Action(draw_discard=pb.DrawDiscard()),
            pb.Action(pass_offer=pb.Pass()),
            *(self.request.legal_actions if self.request is not None else ()),
            *(pb.Action(discard=pb.Discard(card=card)) for card in self.hand),
            *(pb.Action(knock=pb.Knock(discard=card)) for card in self.hand),
            pb.Action(),
            pb.Action(discard=pb.Discard(card="10D")),
        ]
        replies = [
            pb.BotMessage(action_reply=pb.ActionReply(request_id=rid, action=action))
            for rid in ids
            for action in actions
        ]
        self.first = ids[0]
        unreadable = invalid(UNPARSEABLE)
        for _ in range(FLOOD_REPEATS):
            for reply in replies:
                self.link.deliver(reply)
            self.link.deliver_invalid(unreadable)
            self.link.deliver(pb.BotMessage())
            self.link.deliver(pb.BotMessage(hello=pb.Hello(token="t", bot_name="again")))
            self.sent += len(replies) + 3


def recording(policy: Policy, answers: dict[int, pb.Action]) -> Policy:
    """``policy``, keeping each answer it gives by request id."""

    def choose(request: pb.DecisionRequest) -> pb.Action:
        action = policy(request)
        answers[request.request_id] = action
        return action

    return choose


def assert_own_answers(
    outcome: MatchOutcome, bots: Bots, answers: list[dict[int, pb.Action]], order: tuple[int, int]
) -> None:
    """Every decision in the log is its bot's own answer to a request it was sent."""
    sent = [{r.request_id for r in link.requests()} for link in bots.links]
    for record in of_type(outcome.log_path, "decision"):
        bot = order[record["seat"]]
        rid = record["request_id"]
        assert rid in sent[bot], record
        assert record["action"] == action_to_dict(action_from_pb(answers[bot][rid])), record


# Where in the hand bot 0 floods (seat 0; seat 1, the honest bot, is offered the upcard first),
# and how many decisions of each seat the referee takes before the match ends: on its HandStart,
# before it is asked anything (seat 1 is deciding); halfway through seat 1's fourth decision;
# with its third answer, before the referee has moved on; and before its third answer, with
# that request outstanding.
FLOOD_POINTS = {
    "deal": (0, 0),
    "opponent-thinks": (3, 3),
    "with-its-answer": (3, 3),
    "before-its-answer": (2, 3),
}


@pytest.mark.parametrize("point", FLOOD_POINTS)
@in_loop
async def test_a_flood_of_replies_out_of_turn_answers_nothing(tmp_path: Path, point: str) -> None:
    """Only an answer to the request outstanding is taken (R11.5): the flood's first reply is
    the flooder's one fault, every other message of it counts for nothing, and none of it is
    taken as the answer to a later request, in this match or the next of the series, even where
    it guessed that request's id. The honest bot is charged neither a fault nor a millisecond."""
    bots = make_bots(tmp_path)
    answers: list[dict[int, pb.Action]] = [{}, {}]
    rng = random.Random(5)
    flooder, honest = bots.links
    flood = Flood(flooder)

    def flood_while_honest_thinks(link: FakeLink, request: pb.DecisionRequest) -> None:
        link.clock.call_at(link.clock.time() + THINK / 2, flood)
        answer_after(THINK, recording(knock_or_random(rng), answers[1]))(link, request)

    def answer_then_flood(link: FakeLink, request: pb.DecisionRequest) -> None:
        answer_after(0, recording(knock_or_random(rng), answers[0]))(link, request)
        flood()

    def flood_then_answer(link: FakeLink, request: pb.DecisionRequest) -> None:
        flood()
        answer_after(0, recording(knock_or_random(rng), answers[0]))(link, request)

    steps = {"with-its-answer": answer_then_flood, "before-its-answer": flood_then_answer}
    scripted = bots.script(
        0,
        recording(knock_or_random(rng), answers[0]),
        {3: steps[point]} if point in steps else None,
    )
    bots.script(
        1,
        recording(knock_or_random(rng), answers[1]),
        {4: flood_while_honest_thinks} if point == "opponent-thinks" else None,
        think=THINK,
    )

    def flooding_bot(message: pb.RefereeMessage) -> None:
        flood.watch(message)
        if point == "deal" and message.HasField("hand_start") and flood.sent == 0:
            flood()
        scripted(message)

    flooder.bot = flooding_bot
    outcome = await play(tmp_path, bots, rules=SHORT, length=2)
    assert flood.sent > 5000
    assert_forfeit(outcome, 0, FaultKind.OUT_OF_TURN)
    (fault,) = outcome.faults
    assert (fault.seat, fault.request_id) == (0, flood.first)
    assert fault.reason.startswith(f"a reply to request {flood.first}, but "), fault.reason
    assert [f.kind for f in flooder.faults()] == [pb.FAULT_KIND_OUT_OF_TURN]  # told once
    flooded, taken = FLOOD_POINTS[point]
    assert len(decisions_of(outcome, 0)) == flooded
    assert_own_answers(outcome, bots, answers, (0, 1))
    assert honest.faults() == [] and honest.kinds()[-1] == "match_end"
    # Each decision of the honest bot took its think time exactly, and none of its bank.
    assert decisions_of(outcome, 1) == [(THINK * 1000, OPTIONS.bank * 1000)] * taken

    # The next match of the series, seats swapped: the flood is over and counts for nothing.
    # (The honest bot's answer to the request the flood cut short, if any, comes in it too.)
    second = await play(tmp_path, bots, rules=SHORT, number=2, order=(1, 0), length=2)
    assert second.faults == () and second.result.termination is Termination.TARGET
    assert_own_answers(second, bots, answers, (1, 0))
    asked = [r.request_id for r in flooder.requests()[-len(decisions_of(second, 1)) :]]
    assert flood.first in asked  # the flood guessed this request's id, and still was not taken
    assert set(decisions_of(second, 0)) == {(THINK * 1000, OPTIONS.bank * 1000)}


# --- messages that are no answer -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        (pb.BotMessage(hello=pb.Hello(token="t", bot_name="again")), "a second Hello"),
        (pb.BotMessage(), "an empty message (no kind set)"),
    ],
    ids=["second-hello", "empty"],
)
@in_loop
async def test_a_message_that_is_no_answer_is_a_protocol_error(
    tmp_path: Path, message: pb.BotMessage, reason: str
) -> None:
    """Sent while the other seat decides: that decision is cut short, the sender forfeits."""
    bots = make_bots(tmp_path)
    other = bots.links[0]
    bots.script(0)
    bots.script(1, steps={2: lambda link, request: other.deliver(message)})
    outcome = await play(tmp_path, bots)
    assert_forfeit(outcome, 0, FaultKind.PROTOCOL_ERROR)
    assert outcome.result.forfeit_reason == reason
    (fault,) = other.faults()
    assert (fault.kind, fault.message) == (pb.FAULT_KIND_PROTOCOL_ERROR, reason)
    assert bots.links[1].faults() == []


def invalid(data: bytes, max_bytes: int = 64) -> str:
    parsed = parse_bot_message(data, max_bytes)
    assert isinstance(parsed, InvalidMessage)
    return parsed.reason


@pytest.mark.parametrize(
    ("reason", "words"),
    [
        (invalid(b"x" * 100), "a message of 100 bytes, over the maximum message size of 64"),
        (invalid(b"\xff\xff\xff\x7f not a protobuf message"), "not a ginrummy.v1.BotMessage"),
    ],
    ids=["oversized", "unparseable"],
)
@in_loop
async def test_an_unreadable_message_is_a_protocol_error_and_the_bot_is_told(
    tmp_path: Path, reason: str, words: str
) -> None:
    bots = make_bots(tmp_path)
    bots.script(0)
    bots.script(1, steps={1: lambda link, request: link.deliver_invalid(reason)})
    outcome = await play(tmp_path, bots)
    assert_forfeit(outcome, 1, FaultKind.PROTOCOL_ERROR)
    assert words in reason and outcome.result.forfeit_reason == reason
    assert [f.message for f in bots.links[1].faults()] == [reason]  # the stream stayed open


# --- connections and processes -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("exit_after", "kind"),
    [(CRASH_PROBE / 2, FaultKind.CRASHED), (CRASH_PROBE * 1.5, FaultKind.DISCONNECTED)],
    ids=["exit-within-the-probe", "exit-after-it"],
)
@in_loop
async def test_a_lost_stream_is_a_crash_only_if_the_process_exits_within_the_probe(
    tmp_path: Path, exit_after: float, kind: FaultKind
) -> None:
    bots = make_bots(tmp_path)
    proc = bots.procs[0]

    def leave(link: FakeLink, request: pb.DecisionRequest) -> None:
        link.lose()
        proc.exit(3, link.clock.time() + exit_after)

    bots.script(0, steps={2: leave})
    bots.script(1)
    outcome = await play(tmp_path, bots)
    assert_forfeit(outcome, 0, kind)
    assert proc.probes == [CRASH_PROBE]
    lost = "the bot disconnected (its stream was cancelled)"
    if kind is FaultKind.CRASHED:
        reason = f"the bot process exited with code 3 during the match ({lost})"
        assert (outcome.result.forfeit_reason, outcome.elapsed) == (reason, exit_after)
    else:
        assert (outcome.result.forfeit_reason, outcome.elapsed) == (lost, CRASH_PROBE)
    assert len(outcome.faults) == 1
    assert bots.links[0].faults() == []  # a lost stream cannot be told


@pytest.mark.parametrize("stream_breaks", [False, True], ids=["exit-alone", "with-the-stream"])
@in_loop
async def test_a_process_exit_mid_match_is_one_crash(tmp_path: Path, stream_breaks: bool) -> None:
    """Seen as an exit, or first as a broken stream and then as an exit: one fault either way."""
    bots = make_bots(tmp_path)
    proc = bots.procs[1]

    def die(link: FakeLink, request: pb.DecisionRequest) -> None:
        proc.exit(-9)
        if stream_breaks:
            link.lose()

    bots.script(0)
    bots.script(1, steps={2: die})
    outcome = await play(tmp_path, bots)
    assert_forfeit(outcome, 1, FaultKind.CRASHED)  # one fault record
    reason = "the bot process exited with code -9 during the match"
    if stream_breaks:
        reason += " (the bot disconnected (its stream was cancelled))"
    assert outcome.result.forfeit_reason == reason
    assert proc.probes == ([CRASH_PROBE] if stream_breaks else [])
    assert len(outcome.faults) == 1 and outcome.elapsed == 0.0


@in_loop
async def test_a_half_close_mid_match_is_a_disconnect(tmp_path: Path) -> None:
    bots = make_bots(tmp_path)
    bots.script(0)
    bots.script(1, steps={3: lambda link, request: link.half_close()})
    outcome = await play(tmp_path, bots)
    assert_forfeit(outcome, 1, FaultKind.DISCONNECTED)
    assert outcome.result.forfeit_reason is not None
    assert "closed its side" in outcome.result.forfeit_reason
    # It can still read: no Fault message (it has left), but the MatchEnd.
    assert bots.links[1].faults() == [] and bots.links[1].kinds()[-1] == "match_end"


@in_loop
async def test_a_write_that_fails_is_a_disconnect(tmp_path: Path) -> None:
    bots = make_bots(tmp_path)
    broken = "writing to the bot failed: the socket broke"

    def break_the_other(link: FakeLink, request: pb.DecisionRequest) -> None:
        bots.links[1].write_error = broken
        link.reply(request.request_id, first_legal(request))

    bots.script(0, steps={1: break_the_other})
    bots.script(1)
    outcome = await play(tmp_path, bots)
    assert_forfeit(outcome, 1, FaultKind.DISCONNECTED)
    assert outcome.result.forfeit_reason == broken
    # The fault names the request the referee could not write: the seat's next id.
    (record,) = of_type(outcome.log_path, "fault")
    assert record["request_id"] == bots.links[1].requests()[-1].request_id + 1


@in_loop
async def test_a_bot_that_left_before_the_match_forfeits_it(tmp_path: Path) -> None:
    bots = make_bots(tmp_path)
    bots.links[1].lose("the bot closed its side of the stream", half=True)
    outcome = await play(tmp_path, bots)
    assert_forfeit(outcome, 1, FaultKind.DISCONNECTED)
    assert outcome.result.forfeit_reason == (
        "the bot left before this match (the bot closed its side of the stream)"
    )
    assert bots.links[0].kinds() == ["match_start", "match_end"]
    assert bots.links[1].kinds() == ["match_start", "match_end"]  # half-closed: it still reads
    assert outcome.decisions == 0 and outcome.hand_results == ()


@in_loop
async def test_a_bot_that_never_connected_forfeits_in_the_seat_it_was_given(
    tmp_path: Path,
) -> None:
    bots = make_bots(tmp_path, connected=(False, True))
    why = "the bot did not connect within 10 s"
    bots.players[0].gone = Fault(0, FaultKind.NOT_CONNECTED, CONDUCT_RULE, why)
    outcome = await play(tmp_path, bots, order=(1, 0))  # bot 0 plays seat 1
    assert_forfeit(outcome, 1, FaultKind.NOT_CONNECTED)
    assert outcome.result.forfeit_reason == why and outcome.hand_results == ()
    (start,) = [m.match_start for m in bots.links[1].sent if m.HasField("match_start")]
    # No Hello: its label stands for the name, and it has no version to tell.
    assert (start.seat, start.opponent_name, start.opponent_version) == (0, "fake0", "")
    assert bots.links[1].kinds() == ["match_start", "match_end"] and bots.links[0].sent == []
    # No hand was dealt in the log, though the engine had dealt the first: the outcome, the log
    # and MatchEnd all say 0 hands, as verify and the replay count them.
    (end,) = of_type(outcome.log_path, "match_result")
    told = bots.links[1].sent[-1].match_end.result.hands_played
    assert outcome.hands_played == end["hands_played"] == told == 0
    assert of_type(outcome.log_path, "deal") == []


# --- both seats at fault -------------------------------------------------------------------------


@in_loop
async def test_both_bots_gone_forfeit_every_match_of_a_series(tmp_path: Path) -> None:
    bots = make_bots(tmp_path, connected=(False, False))
    reasons = ("the bot could not start: no such file", "the bot exited with code 4")
    for player, reason in zip(bots.players, reasons, strict=True):
        player.gone = Fault(0, FaultKind.NOT_CONNECTED, CONDUCT_RULE, reason)
    for number, order in ((1, (0, 1)), (2, (1, 0))):
        outcome = await play(tmp_path, bots, number=number, order=order, length=2)
        assert_both_forfeit(outcome, (FaultKind.NOT_CONNECTED, FaultKind.NOT_CONNECTED))
        assert outcome.hand_results == () and outcome.decisions == 0
        both = outcome.result.forfeit_reason
        assert both is not None and all(reason in both for reason in reasons)


@in_loop
async def test_both_bots_that_left_before_the_match_both_forfeit(tmp_path: Path) -> None:
    bots = make_bots(tmp_path)
    for link in bots.links:
        link.lose()
    outcome = await play(tmp_path, bots)
    assert_both_forfeit(outcome, (FaultKind.DISCONNECTED, FaultKind.DISCONNECTED))
    assert [p.probes for p in bots.procs] == [[CRASH_PROBE], [CRASH_PROBE]]
    assert outcome.elapsed == 2 * CRASH_PROBE  # each told apart from a crash in turn
    assert [link.sent for link in bots.links] == [[], []]


@in_loop
async def test_a_fault_of_each_seat_during_one_decision_makes_both_forfeit(
    tmp_path: Path,
) -> None:
    bots = make_bots(tmp_path)
    other = bots.links[0]

    def both(link: FakeLink, request: pb.DecisionRequest) -> None:
        other.deliver(pb.BotMessage())  # seat 0: an empty message
        link.reply(request.request_id + 1, first_legal(request))  # seat 1: a wrong id

    bots.script(0)
    bots.script(1, steps={2: both})
    outcome = await play(tmp_path, bots)
    assert_both_forfeit(outcome, (FaultKind.PROTOCOL_ERROR, FaultKind.OUT_OF_TURN))
    assert outcome.forfeits[0].seat == 0  # the fault that interrupted the decision came first
    for link in bots.links:
        assert len(link.faults()) == 1 and link.kinds()[-1] == "match_end"
        result = link.sent[-1].match_end.result
        assert not result.HasField("winner")
        assert result.forfeit.both_seats and result.forfeit.seat == -1


@in_loop
async def test_refused_connections_fill_the_log_only_so_far(tmp_path: Path) -> None:
    """A bot knocking on its socket all match long with wrong tokens: the first refusals are
    recorded, the last of them saying so, and no more."""
    bots = make_bots(tmp_path)
    plan = MatchPlan("m1", 1, SEED, (0, 1), tmp_path / "m1.jsonl")
    session = Session(plan, RULES, bots.players, OPTIONS, 1, clock=bots.clock)
    session.write_header()
    for _ in range(MAX_REJECTIONS_LOGGED + 50):
        session.log_rejected(bots.players[0], "UNAUTHENTICATED", "unknown seat token")
    session.log.close()
    rejected = of_type(plan.log_path, "connection_rejected")
    assert len(rejected) == MAX_REJECTIONS_LOGGED
    assert {r["seat"] for r in rejected} == {0}
    assert "the last refusal this log records" in rejected[-1]["reason"]
    assert rejected[-1]["reason"].startswith("unknown seat token")  # its own reason, and why
    assert "last refusal" not in rejected[-2]["reason"]


@in_loop
async def test_a_refused_connection_of_no_seat_is_logged_with_a_null_seat(tmp_path: Path) -> None:
    """A token that matches no seat names none (docs/replay-log.md: ``seat`` null)."""
    bots = make_bots(tmp_path)
    plan = MatchPlan("m1", 1, SEED, (0, 1), tmp_path / "m1.jsonl")
    session = Session(plan, RULES, bots.players, OPTIONS, 1, clock=bots.clock)
    session.write_header()
    session.log_rejected(None, "UNAUTHENTICATED", "unknown seat token")
    session.log_rejected(bots.players[1], "ALREADY_EXISTS", "the seat is already connected")
    session.log.close()
    rejected = of_type(plan.log_path, "connection_rejected")
    assert [(r["seat"], r["code"]) for r in rejected] == [
        (None, "UNAUTHENTICATED"),
        (1, "ALREADY_EXISTS"),
    ]


# --- what each seat is told at the start and the end of a match ----------------------------------

# first_dealer = cut_high_chooses: the high cutter decides whether to deal (R2.2).
CHOOSING = Rules.profile("oklahoma", first_dealer="cut_high_chooses")


def commitment_of(seed: int, salt: bytes) -> bytes:
    """The deal commitment as docs/security.md ("Provably fair deals") tells a bot to check it:
    SHA-256 of "ginref-deal-v1", a zero byte, the 32-byte salt and the seed, 8 bytes big-endian."""
    return hashlib.sha256(b"ginref-deal-v1" + b"\x00" + salt + seed.to_bytes(8, "big")).digest()


def sent_of(link: FakeLink, kind: str) -> list[pb.RefereeMessage]:
    """The messages of one kind written to ``link``, in order."""
    return [m for m in link.sent if m.WhichOneof("kind") == kind]


@in_loop
async def test_match_start_tells_each_seat_the_match_its_seat_the_clock_and_the_commitment(
    tmp_path: Path,
) -> None:
    """Every field of MatchStart (proto), for a match that is not the first of its series, with
    the seats swapped and a clock whose values are each their own; the commitment opens with the
    seed and salt MatchEnd reveals, as a bot checks it."""
    bots = make_bots(tmp_path)
    bots.links[1].version = "2.5"  # the two bots' versions differ, so each must get the other's
    rng = random.Random(3)
    for index in (0, 1):
        bots.script(index, knock_or_random(rng))
    options = RefereeOptions(move_time=1.5, bank=2.25)
    outcome = await play(tmp_path, bots, options, number=2, order=(1, 0), length=3)
    assert outcome.result.termination is Termination.TARGET
    (header,) = of_type(outcome.log_path, "header")
    (record,) = of_type(outcome.log_path, "match_result")
    names = [bots.links[1].name, bots.links[0].name]  # by seat: bot 1 plays seat 0
    commitments = set()
    for bot, link in enumerate(bots.links):
        seat = 1 - bot
        other = bots.links[1 - bot]
        assert link.kinds()[0] == "match_start"
        (message,) = sent_of(link, "match_start")
        start = message.match_start
        assert (start.match_id, start.match_number, start.series_length) == ("m2", 2, 3)
        assert start.seat == seat
        assert (start.time_control.move_time_ms, start.time_control.bank_ms) == (1500, 2250)
        assert (start.opponent_name, start.opponent_version) == (other.name, other.version)
        assert (start.players, list(start.player_names)) == (2, names)
        assert (start.team, start.partner) == (0, -1)  # no partnerships
        assert start.rules.profile == "standard"
        assert all(r.observation.rules == start.rules for r in link.requests())
        # The clock the requests then run on is the one announced.
        first = link.requests()[0]
        assert (first.move_time_ms, first.bank_ms, first.time_left_ms) == (1500, 2250, 3750)
        end = link.sent[-1].match_end
        assert end.match_id == "m2" and end.deal_seed == SEED and len(end.deal_salt) == 32
        assert commitment_of(end.deal_seed, end.deal_salt) == start.deal_commitment
        assert header["deal_commitment"] == start.deal_commitment.hex()
        assert record["deal_salt"] == end.deal_salt.hex()
        commitments.add(start.deal_commitment)
    assert len(commitments) == 1  # both seats are committed to the same deal


@in_loop
async def test_match_end_gives_both_seats_the_result_they_saw_played(tmp_path: Path) -> None:
    """A whole match: the result's running totals are the last HandEnd's (proto: before the
    end-of-match bonuses), its hands those each seat was dealt, its final scores the match's."""
    bots = make_bots(tmp_path)
    rng = random.Random(2)
    for index in (0, 1):
        bots.script(index, knock_or_random(rng))
    outcome = await play(tmp_path, bots)
    assert outcome.result.termination is Termination.TARGET and outcome.result.winner is not None
    (record,) = of_type(outcome.log_path, "match_result")
    dealt = len(of_type(outcome.log_path, "deal"))
    assert dealt > 2
    ends = [link.sent[-1].match_end for link in bots.links]
    assert ends[0] == ends[1]  # public: both seats are sent the same
    result = ends[0].result
    last_hand = sent_of(bots.links[0], "hand_end")[-1].hand_end
    assert list(result.scores) == list(last_hand.scores) and result.scores[result.winner].points
    assert result.hands_played == dealt == record["hands_played"]
    assert all(len(sent_of(link, "hand_start")) == dealt for link in bots.links)
    assert tuple(result.final_scores) == outcome.result.final
    assert (result.winner, result.players) == (outcome.result.winner, 2)
    assert not result.HasField("forfeit")


def never_knocking_in_the_first_hand(then: Policy) -> Policy:
    """Play out the first hand without knocking (so that it dies), then ``then``."""

    def choose(request: pb.DecisionRequest) -> pb.Action:
        if request.observation.hand_number == 1:
            actions = request.legal_actions
            action: pb.Action = next(
                a for a in actions if a.WhichOneof("kind") not in ("knock", "big_gin")
            )
            return action
        return then(request)

    return choose


@in_loop
async def test_match_end_names_the_forfeit_after_a_dead_hand(tmp_path: Path) -> None:
    """A dead first hand (no showdown), then seat 1's malformed action in the second: MatchEnd
    carries the forfeit as the log records it, and every message written has a kind."""
    bots = make_bots(tmp_path)
    bots.script(0, never_knocking_in_the_first_hand(first_legal))
    bots.script(1, never_knocking_in_the_first_hand(lambda request: pb.Action()))
    outcome = await play(tmp_path, bots)
    assert_forfeit(outcome, 1, FaultKind.MALFORMED_ACTION)
    (dead,) = of_type(outcome.log_path, "hand_result")
    assert dead["outcome"] == "dead"
    for link in bots.links:
        assert "" not in link.kinds()  # a hand without a showdown sends no empty event
        result = link.sent[-1].match_end.result
        assert result.forfeit == pb.Forfeit(
            seat=1,
            kind=pb.FAULT_KIND_MALFORMED_ACTION,
            rule="R11.5",
            reason=outcome.result.forfeit_reason,
            both_seats=False,
        )
        assert (result.winner, result.hands_played) == (0, 2)
        (hand_end,) = sent_of(link, "hand_end")
        assert list(result.scores) == list(hand_end.hand_end.scores)


@pytest.mark.parametrize(("seed", "chooser", "deal"), [(1, 0, True), (3, 1, False)])
@in_loop
async def test_the_choice_of_dealer_is_asked_of_the_high_cutter_and_told_to_both_seats(
    tmp_path: Path, seed: int, chooser: int, deal: bool
) -> None:
    """Only the chooser is asked (R2.2); each seat hears the choice once, as an Event before the
    first HandStart (proto, GameEvent.choose_deal), and the first dealer is the one chosen."""

    def choose(request: pb.DecisionRequest) -> pb.Action:
        if request.observation.phase == pb.PHASE_CHOOSE_DEALER:
            return pb.Action(choose_deal=pb.ChooseDeal(deal=deal))
        return pb.Action()  # malformed: the match ends at the hand's first decision

    bots = make_bots(tmp_path)
    for index in (0, 1):
        bots.script(index, choose)
    outcome = await play(tmp_path, bots, rules=CHOOSING, seed=seed)
    dealer = chooser if deal else 1 - chooser
    assert_forfeit(outcome, 1 - dealer, FaultKind.MALFORMED_ACTION)  # the non-dealer acts first
    for bot, link in enumerate(bots.links):
        phases = [r.observation.phase for r in link.requests()]
        assert phases.count(pb.PHASE_CHOOSE_DEALER) == (1 if bot == chooser else 0)
        told = [(i, m.event) for i, m in enumerate(link.sent) if m.event.HasField("choose_deal")]
        again = [e for r in link.requests() for e in r.new_events if e.HasField("choose_deal")]
        assert len(told) == 1 and again == []
        index, event = told[0]
        assert (event.seat, event.choose_deal.deal) == (chooser, deal)
        (start,) = sent_of(link, "hand_start")
        assert index < link.sent.index(start) and start.hand_start.dealer == dealer
    (choice,) = [d for d in of_type(outcome.log_path, "decision") if d["hand"] == 0]
    assert (choice["seat"], choice["action"]) == (chooser, {"kind": "choose_deal", "deal": deal})


@in_loop
async def test_a_fault_before_the_first_deal_is_of_no_hand(tmp_path: Path) -> None:
    """The chooser's malformed choice: the fault record's hand is null (no hand was dealt)."""
    bots = make_bots(tmp_path)
    bots.script(0, lambda request: pb.Action())
    bots.script(1)
    outcome = await play(tmp_path, bots, rules=CHOOSING, seed=1)  # seat 0 chooses
    assert_forfeit(outcome, 0, FaultKind.MALFORMED_ACTION)
    (record,) = of_type(outcome.log_path, "fault")
    assert record["hand"] is None
    assert (outcome.hands_played, outcome.hand_results) == (0, ())
    assert [link.kinds() for link in bots.links] == [
        ["match_start", "decision_request", "fault", "match_end"],
        ["match_start", "match_end"],
    ]


# --- the outcome: what the log records, kept in memory -------------------------------------------


@in_loop
async def test_the_outcome_holds_what_the_log_records(tmp_path: Path) -> None:
    """MatchOutcome's counts are the log's (results.py: "so that no caller has to trust the
    file"): each seat's decisions and think time summed, the hands dealt, the header's creation
    time (UTC), and the SHA-256 and size of the very bytes on disk."""
    bots = make_bots(tmp_path)
    rng = random.Random(2)
    bots.script(0, knock_or_random(rng), think=0.25)
    bots.script(1, knock_or_random(rng), think=0.375)  # binary fractions: the sums are exact
    outcome = await play(tmp_path, bots, rules=SHORT)
    assert outcome.result.termination is Termination.TARGET
    assert (outcome.forfeit, outcome.forfeits, outcome.faults) == (None, (), ())
    assert (outcome.match_id, outcome.rules, outcome.seed) == ("m1", SHORT, SEED)
    assert outcome.seats == tuple(
        SeatInfo(player.label, player.command, link.name, link.version, proc.output)
        for player, link, proc in zip(bots.players, bots.links, bots.procs, strict=True)
    )
    decisions = of_type(outcome.log_path, "decision")
    by_seat = [[d["think_ms"] for d in decisions if d["seat"] == seat] for seat in (0, 1)]
    assert all(len(thinks) > 2 for thinks in by_seat)
    assert outcome.seat_decisions == tuple(len(thinks) for thinks in by_seat)
    assert outcome.decisions == len(decisions)
    assert outcome.seat_think_ms == tuple(sum(thinks) for thinks in by_seat)
    assert outcome.seat_think_ms == (250.0 * len(by_seat[0]), 375.0 * len(by_seat[1]))
    assert outcome.elapsed == sum(outcome.seat_think_ms) / 1000  # nobody else's time counts
    (record,) = of_type(outcome.log_path, "match_result")
    assert outcome.hands_played == record["hands_played"] == len(of_type(outcome.log_path, "deal"))
    (header,) = of_type(outcome.log_path, "header")
    assert outcome.created == header["created"]
    assert dt.datetime.fromisoformat(outcome.created).utcoffset() == dt.timedelta(0)
    data = outcome.log_path.read_bytes()
    assert outcome.log_bytes == len(data) == outcome.log_path.stat().st_size
    assert outcome.log_sha256 == hashlib.sha256(data).hexdigest()
    assert outcome.exits == (None, None)  # both processes still run
    assert record["exits"] == [None, None]


@in_loop
async def test_the_outcome_is_handed_over_once_the_log_is_complete_before_the_bots_hear(
    tmp_path: Path,
) -> None:
    """on_finished (a series' caller may commit the match then): the log already ends with its
    result, and neither bot has been sent MatchEnd yet; they are, after."""
    bots = make_bots(tmp_path)
    bots.script(0)
    bots.script(1, steps={3: reply_with(pb.Action())})
    handed: list[tuple[MatchOutcome, bytes, list[bool]]] = []

    def finished(outcome: MatchOutcome) -> None:
        told = ["match_end" in link.kinds() for link in bots.links]
        handed.append((outcome, outcome.log_path.read_bytes(), told))

    outcome = await play(tmp_path, bots, on_finished=finished)
    ((given, data, told),) = handed
    assert given is outcome and told == [False, False]
    assert data == outcome.log_path.read_bytes()
    assert hashlib.sha256(data).hexdigest() == outcome.log_sha256
    assert of_type(outcome.log_path, "match_result")
    assert [link.kinds()[-1] for link in bots.links] == ["match_end", "match_end"]


@in_loop
async def test_the_last_match_of_a_series_records_how_the_bots_ended(tmp_path: Path) -> None:
    """docs/replay-log.md, "How the bot processes ended": the bots are sent MatchEnd and stopped
    before the match_result is written, which then holds each exit; the outcome holds them too."""
    bots = make_bots(tmp_path)
    bots.script(0)
    bots.script(1, steps={2: reply_with(pb.Action())})
    heard: list[list[int]] = []

    async def stop() -> None:
        heard.append([link.kinds().count("match_end") for link in bots.links])
        for proc, code in zip(bots.procs, (0, 3), strict=True):
            proc.exit(code)  # after the match: no fault of anyone's

    outcome = await play(tmp_path, bots, before_result=stop)
    assert heard == [[1, 1]]
    assert_forfeit(outcome, 1, FaultKind.MALFORMED_ACTION)
    assert [link.kinds().count("match_end") for link in bots.links] == [1, 1]  # told once
    exits = tuple(ExitStatus(code, None, False, f"exited with code {code}") for code in (0, 3))
    assert outcome.exits == exits
    (record,) = of_type(outcome.log_path, "match_result")
    assert record["exits"] == [status.to_dict() for status in exits]


@in_loop
async def test_with_fsync_each_record_reaches_the_disk_as_it_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """RefereeOptions.fsync: each line is synced as it is written, so that not even a machine
    that stops loses a record already written (flushing alone only survives the referee's end)."""
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)  # what the log writer calls per line
    bots = make_bots(tmp_path)
    bots.script(0)
    bots.script(1, steps={2: reply_with(pb.Action())})
    outcome = await play(tmp_path, bots, RefereeOptions(move_time=1.0, bank=2.0, fsync=True))
    lines = outcome.log_path.read_bytes().count(b"\n")
    assert lines > 5 and len(synced) == lines


# --- the clock's edges, and retries --------------------------------------------------------------


@WITH_AND_WITHOUT_BANK
@in_loop
async def test_a_reply_at_exactly_the_time_left_counts(
    tmp_path: Path, options: RefereeOptions, kind: FaultKind
) -> None:
    """time_left_ms is "the whole time this bot has"; only "a reply that arrives later is a
    fault" (proto, DecisionRequest). Its side has each request 0.75 s after the referee sends
    it, so the referee's timer, which fires first, waits on for the bot's own clock, and the
    reply lands at the very instant that clock reaches the budget."""
    budget = options.move_time + options.bank
    bots = make_bots(tmp_path)
    bots.links[1].delay = 0.75
    bots.script(0)
    bots.script(1, steps={1: answer_after(0.75 + budget), 2: no_answer})
    outcome = await play(tmp_path, bots, options)
    # The reply at the budget was taken: the fault is of the next request.
    assert outcome.faults[0].request_id != bots.links[1].requests()[0].request_id
    assert decisions_of(outcome, 1)[0] == (budget * 1000, 0.0)  # the whole bank, and no fault
    # The bank is spent: the next decision has the move time alone.
    second = bots.links[1].requests()[1]
    assert (second.time_left_ms, second.bank_ms) == (1000, 0)
    assert_forfeit(outcome, 1, kind)
    assert outcome.faults[0].think_ms == options.move_time * 1000


@in_loop
async def test_a_refused_action_that_used_the_whole_time_forfeits_without_a_retry(
    tmp_path: Path,
) -> None:
    """A retry comes "with the time that is left" (docs/referee.md, Faults): at the budget none
    is, so the refusal forfeits as what it is, not as a timeout of a request the bot could never
    answer in time."""
    budget = OPTIONS.move_time + OPTIONS.bank
    bots = make_bots(tmp_path)
    bots.links[1].delay = 0.75  # as above: the reply lands as the bot's clock reaches the budget
    bots.script(0)
    # A retry, were one sent, would go unanswered.
    bots.script(1, steps={1: reply_with(pb.Action(), 0.75 + budget), 2: no_answer})
    outcome = await play(tmp_path, bots, RefereeOptions(move_time=1.0, bank=2.0, retries=1))
    assert_forfeit(outcome, 1, FaultKind.MALFORMED_ACTION)
    assert outcome.faults[0].think_ms == budget * 1000
    assert [f.retry for f in bots.links[1].faults()] == [False]
    assert len(bots.links[1].requests()) == 1


@in_loop
async def test_with_two_retries_two_refused_actions_of_a_seat_are_forgiven_and_the_third_forfeits(
    tmp_path: Path,
) -> None:
    """Retries are counted per seat and match (docs/referee.md): seat 1's two refusals in its
    first decision use its two, seat 0's refusal uses one of its own, and seat 1's next refusal,
    two decisions later, forfeits. Each retry has the time left: 1.5 s, then 0.5 s."""
    bots = make_bots(tmp_path)
    malformed = pb.Action(discard=pb.Discard(card="10D"))
    bots.script(0, steps={1: reply_with(malformed)})
    steps = {
        1: reply_with(malformed, 1.5),
        2: reply_with(malformed, 1.0),
        3: answer_after(0.25),  # takes the upcard: its next decision is its discard
        5: reply_with(malformed),
    }
    bots.script(1, steps=steps)
    outcome = await play(tmp_path, bots, RefereeOptions(move_time=1.0, bank=2.0, retries=2))
    assert_forfeit(outcome, 1, FaultKind.MALFORMED_ACTION)
    records = of_type(outcome.log_path, "fault")
    retried = [(r["seat"], r["retry"]) for r in records]
    assert retried == [(1, True), (1, True), (0, True), (1, False)]
    assert [r["think_ms"] for r in records[:2]] == [1500.0, 2500.0]
    assert [f.retry for f in bots.links[1].faults()] == [True, True, False]
    assert [f.retry for f in bots.links[0].faults()] == [True]
    requests = bots.links[1].requests()
    assert [(r.time_left_ms, r.bank_ms) for r in requests[:3]] == [
        (3000, 2000),
        (1500, 1500),
        (500, 500),
    ]
    assert len(decisions_of(outcome, 1)) == 2 and len(decisions_of(outcome, 0)) == 2


# --- pondering -----------------------------------------------------------------------------------


def pause_states(bots: Bots) -> tuple[bool | None, ...]:
    """Whether each bot's process is frozen now (None: never paused nor thawed)."""
    return tuple(proc.pauses[-1] if proc.pauses else None for proc in bots.procs)


@in_loop
async def test_without_pondering_a_bot_is_frozen_while_the_other_decides(tmp_path: Path) -> None:
    """docs/referee.md: "from its reply to its next request it runs nothing"; it is thawed for
    its own decisions, to read MatchEnd, and after the match (a series' next match, its exit)."""
    bots = make_bots(tmp_path)
    rng = random.Random(2)
    for index in (0, 1):
        bots.script(index, knock_or_random(rng))
    seen: list[tuple[int, str, tuple[bool | None, ...]]] = []

    def watch(seat: int, message: pb.RefereeMessage, hand: Hand | None) -> None:
        seen.append((seat, message.WhichOneof("kind") or "", pause_states(bots)))

    outcome = await play(tmp_path, bots, rules=SHORT, on_send=watch)
    assert outcome.result.termination is Termination.TARGET
    asked = [(seat, states) for seat, kind, states in seen if kind == "decision_request"]
    assert {seat for seat, _ in asked} == {0, 1}
    for seat, states in asked:
        assert states[seat] is False and states[1 - seat] is True, (seat, states)
    assert [states for _, kind, states in seen if kind == "match_end"] == [(False, False)] * 2
    assert pause_states(bots) == (False, False)


@in_loop
async def test_with_pondering_no_bot_is_ever_frozen(tmp_path: Path) -> None:
    bots = make_bots(tmp_path)
    rng = random.Random(2)
    for index in (0, 1):
        bots.script(index, knock_or_random(rng))
    options = RefereeOptions(move_time=1.0, bank=2.0, ponder=True)
    outcome = await play(tmp_path, bots, options, rules=SHORT)
    assert outcome.decisions > 10
    assert all(True not in proc.pauses for proc in bots.procs)


# --- streams gone, and faults found together -----------------------------------------------------


@in_loop
async def test_a_seat_whose_stream_is_gone_when_it_must_act_forfeits_unasked(
    tmp_path: Path,
) -> None:
    """The link knows its stream is gone, but its report has not reached the session yet: the
    referee writes nothing more to it, asks it nothing, and the seat forfeits when it must act."""
    bots = make_bots(tmp_path)
    gone = bots.links[0]
    marked: list[int] = []
    seen: list[int] = []

    def break_the_other(link: FakeLink, request: pb.DecisionRequest) -> None:
        gone.lost = "the stream broke"  # no on_lost: the report is still on its way
        marked.append(len(seen))
        link.reply(request.request_id, first_legal(request))

    bots.script(0)
    bots.script(1, steps={1: break_the_other})
    outcome = await play(tmp_path, bots, on_send=lambda seat, message, hand: seen.append(seat))
    assert_forfeit(outcome, 0, FaultKind.DISCONNECTED)
    (record,) = of_type(outcome.log_path, "fault")
    assert (record["reason"], record["request_id"]) == ("the bot has left", 0)  # no request
    assert gone.requests() == [] and 0 not in seen[marked[0] :]
    assert bots.links[1].kinds()[-1] == "match_end"


@in_loop
async def test_a_match_start_that_cannot_be_written_forfeits_the_seat_before_any_decision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write that fails (the link not having reported a loss) is the seat's fault at the
    next opportunity: before anyone is asked anything."""
    bots = make_bots(tmp_path)
    broken = "writing to the bot failed: the socket broke"

    def refuse(message: pb.RefereeMessage | bytes) -> None:
        raise DisconnectedError(broken)

    monkeypatch.setattr(bots.links[0], "send", refuse)
    bots.script(0)
    bots.script(1)
    outcome = await play(tmp_path, bots)
    assert_forfeit(outcome, 0, FaultKind.DISCONNECTED)
    (record,) = of_type(outcome.log_path, "fault")
    assert (record["reason"], record["request_id"]) == (broken, 0)
    assert outcome.decisions == 0
    assert bots.links[1].kinds() == ["match_start", "match_end"]


@in_loop
async def test_a_bot_with_no_stream_and_no_reason_forfeits_as_gone(tmp_path: Path) -> None:
    """A player the series never attached, with no recorded reason: the match still ends in
    its forfeit, never in an error of the referee's."""
    bots = make_bots(tmp_path, connected=(True, False))
    bots.script(0)
    outcome = await play(tmp_path, bots)
    assert_forfeit(outcome, 1, FaultKind.DISCONNECTED)
    assert outcome.result.forfeit_reason is not None
    assert outcome.result.forfeit_reason.startswith("the bot left before this match")
    assert bots.links[0].kinds() == ["match_start", "match_end"]


@in_loop
async def test_a_fault_while_a_gone_bot_is_told_from_a_crash_before_the_match_makes_both_forfeit(
    tmp_path: Path,
) -> None:
    """Bot 1 left before the match; while the referee waits to tell a disconnect from a crash,
    bot 0 sends an empty message: both faults were found before the match could go on."""
    bots = make_bots(tmp_path)
    bots.links[1].lose()
    bots.links[0].deliver(pb.BotMessage(), bots.clock.time() + CRASH_PROBE / 2)
    outcome = await play(tmp_path, bots)
    assert_both_forfeit(outcome, (FaultKind.PROTOCOL_ERROR, FaultKind.DISCONNECTED))
    assert outcome.forfeits[0].seat == 1  # the fault found first
    assert outcome.decisions == 0


@in_loop
async def test_a_fault_while_a_lost_stream_is_told_from_a_crash_mid_match_makes_both_forfeit(
    tmp_path: Path,
) -> None:
    """The same mid-match: seat 1's stream is lost while it decides, and seat 0 errs while the
    referee waits to tell that from a crash."""
    bots = make_bots(tmp_path)
    other = bots.links[0]

    def leave(link: FakeLink, request: pb.DecisionRequest) -> None:
        link.lose()
        other.deliver(pb.BotMessage(), link.clock.time() + CRASH_PROBE / 2)

    bots.script(0)
    bots.script(1, steps={3: leave})
    outcome = await play(tmp_path, bots)
    assert_both_forfeit(outcome, (FaultKind.PROTOCOL_ERROR, FaultKind.DISCONNECTED))
    assert outcome.forfeits[0].seat == 1 and outcome.elapsed == CRASH_PROBE
    assert [len(link.faults()) for link in bots.links] == [1, 0]  # the gone bot cannot be told
