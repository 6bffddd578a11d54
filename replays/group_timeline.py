"""The replay log of three players (R10.1) or two partnerships (R10.2), walked through the engine.

Such a log (docs/replay-log.md: the header's ``rules.players`` is 3 or 4) is walked the way
:mod:`referee.timeline` walks a two-player one, one :class:`GroupStep` per record with the
engine's state after it, but through a :class:`~referee.engine.group.GroupMatch`: the header's
rules and seed, the decks of the ``deal`` records in dealing order, every decision applied for
the match seat it names, a forfeit applied at the match result for every seat it names.

Every hand of such a match is a two-player hand, so a step also says where its hand sits: the
match seats at the hand's seats 0 and 1 (``seats``) and the partnership table (``table``).

:func:`load_any_replay` reads a log of any size and walks it the right way;
:func:`admit_round_results` reports a ``round_result`` record outside a partnership log.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from referee.engine.actions import Action, action_from_dict
from referee.engine.cards import Card, parse_card
from referee.engine.group import GroupMatch
from referee.engine.hand import Hand
from referee.engine.outcomes import HandResult, RoundResult
from referee.engine.rules import Rules
from referee.errors import CardError, GinRefError, ReplayLogError
from referee.replay_log import ReplayError, ReplayLog, describe_problem, read_text_log
from referee.timeline import LogWalk, Timeline, build_timeline, collector_paused


@dataclass(frozen=True, slots=True)
class GroupStep:
    """One record of a 3- or 4-player log and the engine's state right after it.

    ``hand`` is the 1-based number of the hand the record is about (0 before any deal): a deal's
    hand, or the hand in play at the table whose decision was awaited. ``played`` is that hand
    as it stands after the record (a decision that ended it still holds its last events);
    ``seats`` are the match seats at its hand seats 0 and 1 and ``table`` its table.
    """

    line: int
    record: dict[str, Any]
    hand: int
    before: GroupMatch
    after: GroupMatch
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


@dataclass(slots=True)
class GroupTimeline(LogWalk[GroupStep]):
    """A replayed 3- or 4-player log: its steps, and where the engine could not follow it."""

    log: ReplayLog
    rules: Rules
    seed: int
    steps: list[GroupStep] = field(default_factory=list)
    stopped: tuple[int, str] | None = None
    decks: dict[int, list[Card]] = field(default_factory=dict)  # by line of the deal record
    _labels: dict[int, str] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def players(self) -> int:
        """3, or 4 in two partnerships."""
        return self.rules.players

    @property
    def teams(self) -> bool:
        """Whether this is a partnership match (R10.2)."""
        return self.rules.players == 4

    def team_of(self, seat: int) -> int:
        """The seat's team (R10.2: team 0 is seats 0 and 2, team 1 seats 1 and 3)."""
        return seat % 2


def players_of(log: ReplayLog) -> int:
    """The number of players the log's header names (2 when it names none)."""
    header = log.header
    rules = header.get("rules") if header is not None else None
    players = rules.get("players", 2) if isinstance(rules, dict) else 2
    return players if type(players) is int else 2


def admit_round_results(log: ReplayLog, path: str | os.PathLike[str]) -> ReplayLog:
    """``log``, with each ``round_result`` record outside a partnership log a problem.

    ``path`` is unused: kept so that callers read every log the same way.
    """
    del path
    players = players_of(log)
    if players == 4:
        return log
    why = f"a round_result record in a match of {players} players: only partnerships have rounds"
    stray = [(n, why) for n, record in log.records if record.get("type") == "round_result"]
    log.problems = sorted(log.problems + stray)
    return log


def load_any_replay(path: str | os.PathLike[str]) -> Timeline | GroupTimeline:
    """Read and replay the log at ``path``, of two players or more; raise :class:`ReplayError`
    naming the first bad line (as :func:`referee.timeline.load_replay` does)."""
    with collector_paused():
        log = admit_round_results(read_text_log(path), path)
        if log.problems:
            line, message = min(log.problems, key=lambda p: (p[0] == 0, p[0]))
            raise ReplayError(path, line, describe_problem(log, line, message))
        try:
            timeline = build_group_timeline(log) if players_of(log) > 2 else build_timeline(log)
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


def _start(log: ReplayLog) -> tuple[Rules, int, dict[int, list[Card]]]:
    """The rules, the seed and the decks (by line) the walk starts from."""
    header = log.header
    if header is None:
        raise ReplayLogError([(1, "the first line is not a ginref header")])
    try:
        rules = Rules.from_dict(header["rules"])
    except (GinRefError, TypeError, ValueError, AttributeError) as exc:
        raise ReplayLogError([(1, f"rules: {exc}")]) from None
    if rules.players not in (3, 4):
        raise ReplayLogError([(1, f"rules: players = {rules.players}: not a 3- or 4-player log")])
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
    return rules, seed, decks


def build_group_timeline(log: ReplayLog) -> GroupTimeline:
    """Replay a 3- or 4-player ``log`` through the engine, one :class:`GroupStep` a record.

    Decisions are applied in order; the engine refusing one (a wrong seat, an illegal action)
    stops the walk and sets :attr:`GroupTimeline.stopped`. Raises :class:`ReplayLogError` for a
    header or deck the engine cannot start from.
    """
    rules, seed, decks = _start(log)
    match = GroupMatch(rules, seed, decks=list(decks.values()))
    timeline = GroupTimeline(log, rules, seed, decks=decks)
    results = rounds = 0
    for number, record in log.records:
        before = match
        kind = record["type"]
        hand_no = before.hand.number + 1
        if kind == "decision":
            step, stop = _decision(number, record, match)
            if stop is not None:
                timeline.stopped = (number, stop)
                break
            assert step is not None
            timeline.steps.append(step)
            match = step.after
            continue
        if kind == "match_result" and match.result is None:
            seats = forfeit_seats(record.get("forfeit"), rules.players)
            if seats:
                forfeit = record["forfeit"]
                match = match.copy()
                match.forfeit(seats, str(forfeit.get("rule")), str(forfeit.get("reason")))
                timeline.steps.append(GroupStep(number, record, hand_no, before, match))
                continue
        step = GroupStep(number, record, hand_no, before, match)
        if kind == "deal":
            table = next((t for t in match.tables if t.hand.number + 1 == record.get("hand")), None)
            if table is not None:
                step = GroupStep(
                    number, record, table.hand.number + 1, before, match, table.hand,
                    table.seats, table.number,
                )  # fmt: skip
        # A result record reports the first ended hand (round) not yet reported; one that comes
        # before its hand has ended reports none, so that one out of place does not shift the
        # rest.
        elif kind == "hand_result" and results < len(match.hand_results):
            result = match.hand_results[results]
            results += 1
            step = GroupStep(
                number, record, result.number + 1, before, match, None, result.seats,
                result.table, result=result,
            )  # fmt: skip
        elif kind == "round_result" and rounds < len(match.round_results):
            finished = match.round_results[rounds]
            step = GroupStep(number, record, hand_no, before, match, round=finished)
            rounds += 1
        timeline.steps.append(step)
    return timeline


def _decision(
    line: int, record: dict[str, Any], match: GroupMatch
) -> tuple[GroupStep | None, str | None]:
    """The step of a decision record, or why the engine cannot take it here."""
    if match.to_act != record["seat"]:
        who = "nobody's" if match.to_act is None else f"seat {match.to_act}'s"
        return None, f"seat {record['seat']} acts, but it is {who} turn"
    try:
        action = action_from_dict(record["action"])
    except CardError as exc:
        return None, f"the recorded action cannot be read: {exc}"
    after = match.copy()
    table = after.table
    # apply() changes the copy's hand in place: ``played`` keeps a finished hand's last events
    # although the match may have dealt the next.
    played = table.hand
    start = len(played.events)
    try:
        after.apply(action)
    except GinRefError as exc:
        return None, f"the recorded action is refused: {exc}"
    step = GroupStep(
        line, record, played.number + 1, match, after, played, table.seats, table.number, start,
        action,
    )  # fmt: skip
    return step, None


def forfeit_seats(forfeit: Any, players: int) -> list[int]:
    """The seats a match result's ``forfeit`` names (``seats``, else ``seat``); empty when it
    names none that can play in a match of ``players``."""
    if not isinstance(forfeit, dict):
        return []
    named = forfeit.get("seats")
    if not isinstance(named, list):
        named = [forfeit.get("seat")]
    seats = [s for s in named if type(s) is int and 0 <= s < players]
    return seats if len(seats) == len(named) and seats else []
