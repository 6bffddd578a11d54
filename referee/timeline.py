"""A replay log walked through the rules engine: one step per record, with the engine's state.

This is the one walk of a log through the engine, for two, three or four players; every
consumer takes its steps: ``ginref verify`` checks them (:mod:`replays.verify`), ``ginref
replay`` prints them, draws them (``--html``) or sends one of their positions to a bot
(``--ask``), a tournament's audit compares them with its journal, and the live page's
spectator view (:mod:`replays.spectate`) follows a log that is still being written (a match
dealt from a deal file's decks too, each deck read as its ``deal`` record arrives).

:class:`LogFold` is the walk itself, a fold over the records: the engine started from the
header's rules and seed (and, for a whole log, the decks of its ``deal`` records), fed one
record at a time (:meth:`LogFold.feed`), each decision applied for the match seat it names, a
result record reporting the first ended hand (round) not yet reported, a forfeit applied at the
match result for every seat it names. Each record gives a :class:`Step`, the engine's state
before and after it; a hand is a two-player hand wherever it is played, so a step also says
which match seats play it (``seats``, its hand seats 0 and 1) and at which table.

:class:`Timeline` keeps every step of a log (:func:`build_timeline`, :func:`load_replay`), so any
position can be shown, checked or asked about. What a seat saw comes from
:func:`referee.engine.observation.observe` alone (:func:`seat_observation`; :func:`seat_events`
for one record's events, by the rule observe applies to them).

Events are numbered by their **line number** in the log: ``ginref replay`` shows it in its left
column, ``ginref verify`` names it, and ``ginref replay --at N`` takes it.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, cast

from referee.engine.actions import Action, action_from_dict
from referee.engine.cards import Card, parse_card
from referee.engine.game import Game, new_game
from referee.engine.hand import Hand
from referee.engine.match import Match
from referee.engine.observation import Observation, observe, observe_seat, seen_events
from referee.engine.outcomes import Event, HandResult, RoundResult
from referee.engine.rules import Rules
from referee.errors import GinRefError, ReplayLogError
from referee.replay_log import ReplayError, ReplayLog, describe_problem, read_text_log


@dataclass(frozen=True, slots=True)
class Step:
    """One record of the log and the engine's state right after it.

    ``hand`` is the 1-based number of the hand the record is about (0 before the first deal): a
    deal's hand, a decision's, a hand result's, else the hand of the seat to act. ``played`` is
    that hand as it stands after the record, for a deal or a decision: a decision that ended it
    still holds the whole hand (its last events), although ``after`` may have dealt the next.
    ``events_from`` is where this record's events start in ``played.events``. ``seats`` are the
    match seats at the hand's seats 0 and 1 and ``table`` its table (with two players always
    seats 0 and 1 at table 0).
    """

    line: int
    record: dict[str, Any]
    hand: int
    before: Game
    after: Game
    played: Hand | None = None
    seats: tuple[int, int] = (0, 1)
    table: int = 0
    events_from: int = 0
    action: Action | None = None
    result: HandResult | None = None
    round: RoundResult | None = None

    @property
    def kind(self) -> str:
        """The record's type: header, deal, decision, round_result, ..."""
        return str(self.record["type"])

    @property
    def seat(self) -> int | None:
        """The record's (match) seat, if it has one."""
        seat = self.record.get("seat")
        return seat if isinstance(seat, int) and not isinstance(seat, bool) else None

    def hand_seat(self, seat: int) -> int | None:
        """``seat``'s hand seat in the step's hand; None if it does not play it."""
        return self.seats.index(seat) if seat in self.seats else None


# --- what the walk starts from ------------------------------------------------------------------


class UnreadableRules(ReplayLogError):
    """The header's rules cannot be read (line 1); ``detail`` says why."""

    def __init__(self, detail: str) -> None:
        super().__init__([(1, f"rules: {detail}")])
        self.detail = detail


def header_rules(header: dict[str, Any]) -> Rules:
    """The rules a header names; raises :class:`UnreadableRules`."""
    try:
        return Rules.from_dict(header["rules"])
    except (GinRefError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise UnreadableRules(str(exc)) from None


def header_seed(header: dict[str, Any]) -> int:
    """The seed a header names; raises :class:`ReplayLogError` (line 1) for none to deal from."""
    seed = header.get("seed")
    if type(seed) is not int:
        raise ReplayLogError([(1, f"seed {seed!r} is not a number")])
    if seed < 0:
        raise ReplayLogError([(1, f"seed {seed} is negative")])
    return seed


def header_deck_source(header: dict[str, Any]) -> dict[str, Any] | None:
    """A header's ``deck_source`` (a match dealt from a deal file's decks), or None: an older
    log's, or a match dealt from its seed. Raises :class:`ReplayLogError` (line 1) for one whose
    first dealer no seat is."""
    source = header.get("deck_source")
    if source is None:
        return None
    dealer = source.get("first_dealer") if isinstance(source, dict) else None
    if type(dealer) is not int or not 0 <= dealer <= 2:
        raise ReplayLogError([(1, f"deck_source: first dealer {dealer!r} is not a seat")])
    return cast(dict[str, Any], source)


def record_deck(record: dict[str, Any]) -> list[Card] | None:
    """A ``deal`` record's deck, or None unless it is the 52 cards once each."""
    try:
        cards = [parse_card(c) for c in record.get("deck")]  # type: ignore[union-attr]
    except (GinRefError, TypeError, AttributeError):
        return None
    return cards if sorted(cards) == list(range(52)) else None


def players_of(log: ReplayLog) -> int:
    """The number of players the log's header names (2 when it names none)."""
    header = log.header
    rules = header.get("rules") if header is not None else None
    players = rules.get("players", 2) if isinstance(rules, dict) else 2
    return players if type(players) is int else 2


def admit_round_results(log: ReplayLog) -> ReplayLog:
    """``log``, with each ``round_result`` record outside a partnership log a problem."""
    players = players_of(log)
    if players == 4:
        return log
    why = f"a round_result record in a match of {players} players: only partnerships have rounds"
    stray = [(n, why) for n, record in log.records if record.get("type") == "round_result"]
    log.problems = sorted(log.problems + stray)
    return log


def forfeit_seats(forfeit: Any, players: int) -> tuple[int, ...]:
    """The seats a match result's ``forfeit`` names; empty when it names none that can play in
    a match of ``players``.

    With two players that is its ``seat``, null for both seats; with three or four its
    ``seats`` (else its ``seat``).
    """
    if not isinstance(forfeit, dict):
        return ()
    named = forfeit.get("seats") if players > 2 else None
    if not isinstance(named, list):
        seat = forfeit.get("seat")
        named = [0, 1] if seat is None and players == 2 else [seat]
    seats = tuple(s for s in named if type(s) is int and 0 <= s < players)
    return seats if len(seats) == len(named) and seats else ()


def _hand_number(match: Game) -> int:
    """The 1-based number of the hand of the seat to act; 0 before the first deal."""
    return 0 if match.hand is None else match.hand.number + 1


# --- the walk -----------------------------------------------------------------------------------


class LogFold:
    """The engine following a log record by record: :meth:`feed` takes the next record and
    gives its :class:`Step`, so a log still being written is followed as its lines arrive.

    ``decks`` (by line of their ``deal`` record) are the decks a whole log deals; the engine
    deals from them in order, then from the seed. Followed line by line, a log's decks are the
    seed's (every honest log's are), and a deal's step shows the engine's hand for the record's
    deck to be compared with.

    ``first_dealer``: the seat (side) that deals first, for a match dealt from a deal file's
    decks (the header's ``deck_source``); None: the one the seed and the rules give.

    ``read_decks``: follow such a match line by line, its decks read as their ``deal`` records
    arrive. The engine deals a hand as soon as the one before it ends, from the seed, a record
    before the log says which deck it came from; a ``deal`` record whose deck is not the one
    dealt replaces it: the game is rebuilt with every deck read so far and the decisions read so
    far applied again (the new hand has none yet). That costs a replay of the match so far per
    file deck (some 4 µs a decision), for such a match only; the hands dealt from the seed
    after the file's decks cost nothing.

    ``history``: whether each step keeps the engine's state as it was (a copy per decision, for
    a :class:`Timeline`). Without it the engine is changed in place, so a step's ``before`` is
    its ``after``, the present state: for a follower that keeps no step (the spectator view).
    """

    def __init__(
        self,
        rules: Rules,
        seed: int,
        *,
        decks: dict[int, list[Card]] | None = None,
        history: bool = True,
        first_dealer: int | None = None,
        read_decks: bool = False,
    ) -> None:
        self.rules = rules
        self.seed = seed
        self.decks: dict[int, list[Card]] = dict(decks or {})  # by line of the deal record
        self.first_dealer = first_dealer
        # A match dealt from a file's decks names its first dealer; the seed's would be another.
        self.match: Game = new_game(
            rules, seed, decks=list(self.decks.values()), first_dealer=first_dealer
        )
        self.history = history
        # The decisions applied, in order, to deal again from: only when decks are read live.
        self._applied: list[Action] | None = [] if read_decks else None
        self.stopped: tuple[int, str] | None = None  # (line, why) of the record refused
        # What refused it: the reader's or the engine's error; None for a seat out of turn.
        self.refusal: Exception | None = None
        self._results = 0  # hand_result records that reported a hand
        self._rounds = 0  # round_result records that reported a round

    @property
    def reads_decks(self) -> bool:
        """Whether each ``deal`` record's deck is dealt as it arrives (``read_decks``)."""
        return self._applied is not None

    def feed(self, line: int, record: dict[str, Any]) -> Step | None:
        """The step of the record on ``line``; None once the engine could not follow the log
        (for the record it refuses, too: :attr:`stopped` then says why)."""
        if self.stopped is not None:
            return None
        kind = record.get("type")
        if kind == "decision":
            return self._decision(line, record)
        match = self.match
        hand = _hand_number(match)
        if kind == "match_result" and match.result is None:
            seats = forfeit_seats(record.get("forfeit"), self.rules.players)
            if seats:
                forfeit = record["forfeit"]
                after = match.copy() if self.history else match
                after.forfeit(seats, str(forfeit.get("rule")), str(forfeit.get("reason")))
                self.match = after
                return Step(line, record, hand, match, after)
        if kind == "deal":
            deck = record_deck(record)
            if deck is not None:
                self.decks.setdefault(line, deck)
            number = record.get("hand")
            for table in match.tables:
                if table.hand.number + 1 == number:
                    if (
                        self._applied is not None
                        and deck is not None
                        and (tuple(deck) != table.hand.deck)
                    ):
                        return self._deal_again(line, record)
                    h = table.hand
                    return Step(line, record, number, match, match, h, table.seats, table.number)
        # A result record reports the first ended hand (round) not yet reported; one that comes
        # before its hand has ended reports none, so a record out of place or written twice does
        # not shift every later hand's.
        elif kind == "hand_result" and self._results < len(match.hand_results):
            result = match.hand_results[self._results]
            self._results += 1
            return Step(
                line, record, result.number + 1, match, match, None, result.seats, result.table,
                result=result,
            )  # fmt: skip
        elif kind == "round_result" and self._rounds < len(match.round_results):
            done = match.round_results[self._rounds]
            self._rounds += 1
            return Step(line, record, hand, match, match, round=done)
        return Step(line, record, hand, match, match)

    def _decision(self, line: int, record: dict[str, Any]) -> Step | None:
        before = self.match
        seat = record.get("seat")
        if type(seat) is not int or before.to_act != seat:
            who = "nobody's" if before.to_act is None else f"seat {before.to_act}'s"
            self._stop(line, f"seat {seat} acts, but it is {who} turn", None)
            return None
        try:
            action = action_from_dict(record["action"])
        except (GinRefError, KeyError, TypeError, ValueError, AttributeError) as exc:
            self._stop(line, f"the recorded action cannot be read: {exc}", exc)
            return None
        after = before.copy() if self.history else before
        table = after.table_of(seat)  # None only while the high cutter chooses (R2.2)
        # apply() changes the hand in place: ``played`` keeps a finished hand's last events
        # although the match may deal the next.
        played, seats, number = (
            (None, (0, 1), 0) if table is None else (table.hand, table.seats, table.number)
        )
        start = 0 if played is None else len(played.events)
        try:
            after.apply(action)
        except GinRefError as exc:
            self._stop(line, f"the recorded action is refused: {exc}", exc)
            return None
        self.match = after
        if self._applied is not None:
            self._applied.append(action)
        hand = 0 if played is None else played.number + 1
        return Step(line, record, hand, before, after, played, seats, number, start, action)

    def _deal_again(self, line: int, record: dict[str, Any]) -> Step | None:
        """The step of a ``deal`` record whose deck is not the one the engine dealt, decks read
        live: the game rebuilt with the decks read so far; None if it cannot be (stopped)."""
        before = self.match
        after = new_game(
            self.rules, self.seed, decks=list(self.decks.values()), first_dealer=self.first_dealer
        )
        # The decisions were applied to the same decks before: only the new hand has changed,
        # and it has none yet. A log whose deal records are out of place may not replay.
        try:
            for action in self._applied or ():
                after.apply(action)
        except GinRefError as exc:
            self._stop(line, f"the decks read so far do not replay the match: {exc}", exc)
            return None
        self.match = after
        number = record["hand"]
        for table in after.tables:
            if table.hand.number + 1 == number:
                h = table.hand
                return Step(line, record, number, before, after, h, table.seats, table.number)
        return Step(line, record, number, before, after)  # no hand of that number to show

    def _stop(self, line: int, why: str, refusal: Exception | None) -> None:
        self.stopped = (line, why)
        self.refusal = refusal


@dataclass(slots=True)
class Timeline:
    """A replayed log: its steps, and where (if anywhere) the engine could not follow it."""

    log: ReplayLog
    fold: LogFold
    steps: list[Step] = field(default_factory=list)
    # label()'s answers: a replay's text names a seat for nearly every record.
    _labels: dict[int, str] = field(default_factory=dict, init=False, repr=False, compare=False)

    def feed(self, line: int, record: dict[str, Any]) -> Step | None:
        """Walk the log's next record (see :meth:`LogFold.feed`) and keep its step."""
        step = self.fold.feed(line, record)
        if step is not None:
            self.steps.append(step)
        return step

    @property
    def rules(self) -> Rules:
        """The header's rules."""
        return self.fold.rules

    @property
    def seed(self) -> int:
        """The header's seed."""
        return self.fold.seed

    @property
    def decks(self) -> dict[int, list[Card]]:
        """The decks of the ``deal`` records, by line."""
        return self.fold.decks

    @property
    def stopped(self) -> tuple[int, str] | None:
        """The line of the record the engine refused, and why; None if it followed them all."""
        return self.fold.stopped

    @property
    def players(self) -> int:
        """2, 3, or 4 in two partnerships."""
        return self.rules.players

    @property
    def teams(self) -> bool:
        """Whether this is a partnership match (R10.2)."""
        return self.rules.players == 4

    def team_of(self, seat: int) -> int:
        """The seat's team (R10.2: team 0 is seats 0 and 2, team 1 seats 1 and 3)."""
        return seat % 2

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

    def step_at(self, line: int) -> Step | None:
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

    def deal_step(self, hand: int) -> Step | None:
        """The ``deal`` step of a 1-based hand number."""
        return next((s for s in self.steps if s.kind == "deal" and s.record["hand"] == hand), None)


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
    """Read and replay the log at ``path``, of any number of players; raise
    :class:`ReplayError` naming the first bad line.

    A log that stops early (no match result) replays as far as it goes: check
    :attr:`Timeline.complete`.
    """
    # One pause for both: the collection the pause puts off runs once, when it ends.
    with collector_paused():
        log = admit_round_results(read_text_log(path))
        if log.problems:
            line, message = min(log.problems, key=lambda p: (p[0] == 0, p[0]))
            raise ReplayError(path, line, describe_problem(log, line, message))
        try:
            timeline = build_timeline(log)
        except ReplayLogError as exc:
            line, message = exc.problems[0]
            raise ReplayError(path, line, message) from None
    if timeline.stopped is not None:
        line, message = timeline.stopped
        raise ReplayError(path, line, message)
    return timeline


def build_timeline(log: ReplayLog) -> Timeline:
    """Replay ``log`` (which must have a header) through the engine, one :class:`Step` a record.

    Decisions are applied in order; the engine refusing one (a wrong seat, an illegal action)
    stops the walk and sets :attr:`Timeline.stopped`. Raises :class:`ReplayLogError` for a
    header or deck the engine cannot start from.
    """
    header = log.header
    if header is None:
        raise ReplayLogError([(1, "the first line is not a ginref header")])
    rules = header_rules(header)
    seed = header_seed(header)
    decks: dict[int, list[Card]] = {}
    for number, record in log.records:
        if record["type"] == "deal":
            deck = record_deck(record)
            if deck is None:
                raise ReplayLogError([(number, "deck: not the 52 cards once each")])
            decks[number] = deck
    source = header_deck_source(header)
    dealer = None if source is None else source["first_dealer"]
    timeline = Timeline(log, LogFold(rules, seed, decks=decks, first_dealer=dealer))
    for number, record in log.records:
        if timeline.feed(number, record) is None:
            break
    return timeline


# --- what a seat saw ----------------------------------------------------------------------------


def two_player(match: Game) -> Match:
    """A two-player match as the engine's :class:`Match` (its board, :meth:`Match.with_hand`):
    raises ValueError for a match of more players."""
    if match.players != 2:
        raise ValueError(f"a {match.players}-player match, not a two-player one")
    return cast(Match, match)


def seat_observation(step: Step, seat: int) -> Observation:
    """What ``seat`` could see just after ``step``'s record (two players), by :func:`observe`.

    For a decision that ended a hand, that is the finished hand (its last events and result),
    before the next deal.
    """
    match = two_player(step.after)
    played = step.played
    if played is not None:
        current = match.hand
        if current is None or current.number != played.number:
            match = match.with_hand(played)
    return observe(match, seat)


def seat_events(step: Step, seat: int) -> tuple[Event, ...]:
    """The events of ``step``'s record as hand seat ``seat`` saw them (:func:`seen_events`, the
    rule :func:`observe` applies), without building the whole observation."""
    played = step.played
    if played is None:
        return ()
    return seen_events(played.events[step.events_from :], seat)


def request_observation(step: Step) -> Observation | None:
    """The acting seat's observation when it was asked the decision of ``step`` (or faulted)."""
    seat = step.seat
    if seat is None or step.before.to_act != seat:
        return None
    return observe_seat(step.before, seat)


def iter_from_hand(timeline: Timeline, hand: int) -> Iterator[Step]:
    """The steps from the deal of ``hand`` to the end."""
    started = False
    for step in timeline.steps:
        if step.kind == "deal" and step.record["hand"] == hand:
            started = True
        if started:
            yield step
