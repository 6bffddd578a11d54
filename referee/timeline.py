"""A replay log walked through the rules engine: one step per record, with the engine's state.

This is the one walk of a log through the engine; every consumer takes its :class:`Timeline`:
``ginref verify`` checks it (:mod:`replays.verify`), ``ginref replay`` prints it, draws it
(``--html``) or sends one of its positions to a bot (``--ask``).

:func:`load_replay` reads a log file (:func:`referee.replay_log.load_log`, so every problem has a
line number) and :func:`build_timeline` rebuilds the match from the header's rules and seed and
the decks of the ``deal`` records, applying every recorded decision with :meth:`Match.apply`.
Each :class:`Step` keeps the engine's state just after its record, so any position can be shown,
checked or asked about. What a seat saw comes from :func:`referee.engine.observation.observe`
alone (:func:`seat_observation`; :func:`seat_events` for one record's events, by the rule observe
applies to them).

Events are numbered by their **line number** in the log: ``ginref replay`` shows it in its left
column, ``ginref verify`` names it, and ``ginref replay --at N`` takes it.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from referee.engine.actions import Action, action_from_dict
from referee.engine.cards import Card, parse_card
from referee.engine.hand import Hand
from referee.engine.match import Match
from referee.engine.observation import Observation, observe, seen_events
from referee.engine.outcomes import Event, HandResult
from referee.engine.rules import Rules
from referee.errors import CardError, GinRefError, ReplayLogError
from referee.replay_log import ReplayError, ReplayLog, load_log


@dataclass(frozen=True, slots=True)
class Step:
    """One record of the log and the engine's state right after it.

    ``hand`` is the engine's 1-based hand number when the record was written (0 before the first
    deal). ``played`` is the engine's hand the record is about, as it stands after the record: for
    a decision that ended the hand it still holds the whole hand (its last events), although
    ``after`` has dealt the next one. ``events_from`` is where this record's events start in
    ``played.events``.
    """

    line: int
    record: dict[str, Any]
    hand: int
    before: Match
    after: Match
    played: Hand | None = None
    events_from: int = 0
    action: Action | None = None
    result: HandResult | None = None

    @property
    def kind(self) -> str:
        """The record's type: header, deal, decision, ..."""
        return str(self.record["type"])

    @property
    def seat(self) -> int | None:
        """The record's seat, if it has one."""
        seat = self.record.get("seat")
        return seat if isinstance(seat, int) and not isinstance(seat, bool) else None


class _StepLike(Protocol):
    @property
    def line(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def record(self) -> dict[str, Any]: ...


S = TypeVar("S", bound=_StepLike)


class LogWalk(Generic[S]):
    """What every replayed log answers, whatever its number of players: its header, its steps
    by line and by hand, and its seats' labels (:class:`Timeline`, and the replays' walk of
    three- and four-player logs)."""

    __slots__ = ()
    log: ReplayLog
    steps: list[S]
    stopped: tuple[int, str] | None
    _labels: dict[int, str]

    @property
    def header(self) -> dict[str, Any]:
        """The header record."""
        header = self.log.header
        assert header is not None
        return header

    @property
    def complete(self) -> bool:
        """Whether the log ends with its match result and the engine followed it to there."""
        return self.stopped is None and any(s.kind == "match_result" for s in self.steps)

    @property
    def last_line(self) -> int:
        """The line number of the last record."""
        return self.log.records[-1][0] if self.log.records else 0

    def step_at(self, line: int) -> S | None:
        """The step of the record on ``line``, if there is one."""
        for step in self.steps:
            if step.line == line:
                return step
        return None

    def require_hand(self, hand: int, option: str, path: str) -> None:
        """Raise :class:`ReplayError` (naming ``option`` and the log's ``path``) unless the log
        deals hand ``hand`` (1-based)."""
        if hand not in self.hands():
            dealt = self.hands()
            span = f"hands 1 to {dealt[-1]}" if dealt else "no hand"
            raise ReplayError(path, 0, f"{option} {hand}: the log has {span}")

    def hands(self) -> list[int]:
        """The numbers of the hands dealt in the log."""
        return [s.record["hand"] for s in self.steps if s.kind == "deal"]

    def label(self, seat: int) -> str:
        """A seat's label from the header (``greedy_bot``), or ``seat N``."""
        known = self._labels.get(seat)
        if known is not None:
            return known
        label = f"seat {seat}"
        for bot in self.header.get("bots", []):
            if isinstance(bot, dict) and bot.get("seat") == seat and bot.get("label"):
                label = str(bot["label"])
                break
        self._labels[seat] = label
        return label

    def deal_step(self, hand: int) -> S | None:
        """The ``deal`` step of a 1-based hand number."""
        return next((s for s in self.steps if s.kind == "deal" and s.record["hand"] == hand), None)


@dataclass(slots=True)
class Timeline(LogWalk[Step]):
    """A replayed log: its steps, and where (if anywhere) the engine could not follow it."""

    log: ReplayLog
    rules: Rules
    seed: int
    steps: list[Step] = field(default_factory=list)
    stopped: tuple[int, str] | None = None  # (line, why) of the record the engine refused
    decks: dict[int, list[Card]] = field(default_factory=dict)  # by line of the deal record
    # label()'s answers: a replay's text names a seat for nearly every record.
    _labels: dict[int, str] = field(default_factory=dict, init=False, repr=False, compare=False)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for the block (as it was before, after it).

    A timeline holds an engine state per record: millions of objects, none in a cycle, which
    each full collection walks again. Building one, or a page from one, triggers such
    collections for nothing; paused, a long match loads in half the time.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def load_replay(path: str | os.PathLike[str]) -> Timeline:
    """Read and replay the log at ``path``; raise :class:`ReplayError` naming the first bad line.

    A log that stops early (no match result) replays as far as it goes: check
    :attr:`Timeline.complete`.
    """
    # One pause for both: the collection the pause puts off runs once, when it ends.
    with collector_paused():
        log = load_log(path)
        try:
            timeline = build_timeline(log)
        except ReplayLogError as exc:
            line, message = exc.problems[0]
            raise ReplayError(path, line, message) from None
    if timeline.stopped is not None:
        line, message = timeline.stopped
        raise ReplayError(path, line, message)
    return timeline


def _deck(record: dict[str, Any]) -> list[Card] | None:
    try:
        cards = [parse_card(c) for c in record["deck"]]
    except (CardError, TypeError):
        return None
    return cards if sorted(cards) == list(range(52)) else None


def build_timeline(log: ReplayLog) -> Timeline:
    """Replay ``log`` (which must have a header) through the engine, one :class:`Step` a record.

    Decisions are applied in order; the engine refusing one (a wrong seat, an illegal action)
    stops the walk and sets :attr:`Timeline.stopped`. A forfeit is applied at the match result.
    Raises :class:`ReplayLogError` for a header or deck the engine cannot start from.
    """
    header = log.header
    if header is None:
        raise ReplayLogError([(1, "the first line is not a ginref header")])
    try:
        rules = Rules.from_dict(header["rules"])
    except GinRefError as exc:
        raise ReplayLogError([(1, f"rules: {exc}")]) from None
    except (TypeError, ValueError, AttributeError) as exc:
        raise ReplayLogError([(1, f"rules: {exc}")]) from None
    seed = header["seed"]
    if seed < 0:
        raise ReplayLogError([(1, f"seed {seed} is negative")])
    decks: dict[int, list[Card]] = {}
    for number, record in log.records:
        if record["type"] == "deal":
            deck = _deck(record)
            if deck is None:
                raise ReplayLogError([(number, "deck: not the 52 cards once each")])
            decks[number] = deck
    match = Match(rules, seed, decks=list(decks.values()))
    timeline = Timeline(log, rules, seed, decks=decks)
    results_seen = 0
    for number, record in log.records:
        before = match
        kind = record["type"]
        hand_no = 0 if match.hand is None else match.hand.number + 1
        if kind == "decision":
            action, stop = _read_decision(match, record)
            after = match.copy()
            # apply() changes the copy's hand in place: ``played`` keeps a finished hand's last
            # events although ``after`` deals the next one.
            played = after.hand
            start = 0 if played is None else len(played.events)
            if action is not None:
                try:
                    after.apply(action)
                except GinRefError as exc:
                    stop = f"the recorded action is refused: {exc}"
            if stop is not None:
                timeline.stopped = (number, stop)
                break
            timeline.steps.append(
                Step(number, record, hand_no, before, after, played, start, action)
            )
            match = after
            continue
        if kind == "match_result" and match.result is None:
            forfeit = record["forfeit"]
            if isinstance(forfeit, dict) and forfeit_seat_ok(forfeit.get("seat")):
                after = match.copy()
                # seat null: both seats forfeited.
                seat = forfeit.get("seat")
                after.forfeit(
                    (0, 1) if seat is None else (seat,),
                    str(forfeit.get("rule")),
                    str(forfeit.get("reason")),
                )
                timeline.steps.append(Step(number, record, hand_no, before, after))
                match = after
                continue
        result = None
        # A hand_result record reports the first ended hand not yet reported; one that comes
        # before its hand has ended reports none, so a record out of place or written twice does
        # not shift every later hand's.
        if kind == "hand_result" and results_seen < len(match.hand_results):
            result = match.hand_results[results_seen]
            results_seen += 1
        dealt = match.hand if kind == "deal" else None
        timeline.steps.append(Step(number, record, hand_no, before, match, dealt, 0, None, result))
    return timeline


def forfeit_seat_ok(seat: Any) -> bool:
    """Whether a match result's ``forfeit.seat`` is 0, 1 or null (true and false are not)."""
    return seat is None or (type(seat) is int and seat in (0, 1))


def _read_decision(match: Match, record: dict[str, Any]) -> tuple[Action | None, str | None]:
    """The recorded action, or why the engine cannot take it from this seat here."""
    if match.to_act != record["seat"]:
        who = "nobody's" if match.to_act is None else f"seat {match.to_act}'s"
        return None, f"seat {record['seat']} acts, but it is {who} turn"
    try:
        return action_from_dict(record["action"]), None
    except CardError as exc:
        return None, f"the recorded action cannot be read: {exc}"


def seat_observation(step: Step, seat: int) -> Observation:
    """What ``seat`` could see just after ``step``'s record, by :func:`observe`.

    For a decision that ended a hand, that is the finished hand (its last events and result),
    before the next deal.
    """
    match = step.after
    played = step.played
    if played is not None:
        current = match.hand
        if current is None or current.number != played.number:
            match = match.with_hand(played)
    return observe(match, seat)


def seat_events(step: Step, seat: int) -> tuple[Event, ...]:
    """The events of ``step``'s record as ``seat`` saw them (:func:`seen_events`, the rule
    :func:`observe` applies), without building the whole observation."""
    played = step.played
    if played is None:
        return ()
    return seen_events(played.events[step.events_from :], seat)


def request_observation(step: Step) -> Observation | None:
    """The acting seat's observation when it was asked the decision of ``step`` (or faulted)."""
    seat = step.seat
    if seat is None or step.before.to_act != seat:
        return None
    return observe(step.before, seat)


def iter_from_hand(timeline: Timeline, hand: int) -> Iterator[Step]:
    """The steps from the deal of ``hand`` to the end."""
    started = False
    for step in timeline.steps:
        if step.kind == "deal" and step.record["hand"] == hand:
            started = True
        if started:
            yield step
