"""What a spectator may see of a match while its log is being written: public information only.

:class:`Spectator` follows a replay log record by record (:meth:`Spectator.feed`) through the
engine, by the one walk of a log (:class:`referee.timeline.LogFold`), and answers
:meth:`Spectator.view`, a JSON-able mapping built from the walk's state; :func:`spectator_view`
is the view of a whole prefix of records. ``ginref live`` (:mod:`tournaments.live.server`)
serves these views.

What the view holds: the match id, the rules' profile, target and players, each seat's label and
the name and version its bot said in its Hello (as :func:`referee.text.safe_text` makes them),
the scores after the last hand result read, every finished hand's outcome, winner and points,
each fault's seat, kind and rule, and per table (one, or two with partnerships) the hand number,
the match seats playing it (and, with three players, who sits out), the dealer, whose turn, the
phase, the upcard, the discard pile in order, the stock size, each player's card count and the
cards of his hand that are public (taken from the discard pile and not discarded since), and the
hand's events with the card of a stock draw and of the face-down knock discard hidden (the
rule :func:`referee.engine.observation.seen_events` applies, for a seat that plays neither
hand). Only once the hand's ``hand_result`` record is read does the table show the engine's
result of that hand (both hands, melds, layoffs, deadwood, points) and every event's card. Once
the ``match_result`` is read, the match's result (without the forfeit's reason).

What it never holds: the seed, a deck, the deal commitment or its salt, a bot's command or
output file, a fault's reason or the action it refused (either may name a card in hand), the
cards of a hand cut short by a forfeit.

The record that makes something public is the trigger; what is shown comes from the engine, not
from the record, so a log rewritten by someone else cannot put words in the view beyond names.

The walk is fed each record as it is written and keeps no history (``history=False``): a
:class:`~referee.timeline.Timeline` keeps the engine's state after every record, and rebuilding
one each second as a log grows costs some 0.7 s for a 6,000-record partnership match, where the
fold applies each new record once (microseconds) and keeps only the present. The view stops
following the log where the walk does (a decision the engine refuses), and besides where a
``deal`` record is not the engine's next deal or its deck not the one the header's seed deals.

A match dealt from a deal file's decks (the header's ``deck_source``) is followed from the
decks its ``deal`` records carry, as its whole log is read: the file's first dealer deals first,
and each hand is dealt again from its record's deck when that record arrives (the engine deals
a hand as soon as the one before it ends, a record earlier; the fold's ``read_decks``). What
the file's decks are, and so whether a record's deck is the one the header's commitment seals,
cannot be checked here, without the file: the view follows the log's decks, and ``ginref
verify LOG --deals FILE`` is the check. Each file deck replays the match so far (some 4 µs a
record read): a few milliseconds in all for a match of ten file decks; a three-player match of
22,000 records dealt from 190 of them takes 60 to 90 ms at each of its last deals and 8.7 s
over the whole match (0.1 s dealt from its seed).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from referee.engine.cards import card_str, cards_of
from referee.engine.hand import Hand
from referee.engine.observation import seen_events
from referee.engine.outcomes import Event, HandResult, MatchResult, RoundResult
from referee.engine.rules import Rules
from referee.errors import ReplayLogError
from referee.replay_log import hand_result_dict
from referee.text import safe_text
from referee.timeline import (
    LogFold,
    Step,
    UnreadableRules,
    header_deck_source,
    header_rules,
    header_seed,
)
from replays.words import knock_discard_words

# A seat that plays no hand: seen_events hides every private card from it.
SPECTATOR = -1


@dataclass(slots=True)
class _Shown:
    """The hand a table shows: the engine's own (changed in place as decisions are applied)."""

    hand: Hand
    seats: tuple[int, int]  # the match seats at hand seats 0 and 1
    table: int
    result: HandResult | None = None  # once its hand_result record is read


def _int(value: Any) -> int | None:
    return value if type(value) is int else None


def _cards(cards: Iterable[int]) -> list[str]:
    return [card_str(c) for c in cards]


def hidden_events(events: Iterable[Event]) -> tuple[Event, ...]:
    """The events of a hand in play as a spectator sees them: no private card."""
    return seen_events(events, SPECTATOR)


class Spectator:
    """A spectator's view of one match, fed its log's records in order."""

    def __init__(self) -> None:
        self.records = 0  # records fed
        self.stopped: str | None = None  # why the engine no longer follows the log
        self._header: dict[str, Any] | None = None
        self._rules: Rules | None = None
        self._fold: LogFold | None = None  # the walk, once the header gives it a start
        self._names: dict[int, tuple[str, str]] = {}  # Hello's name and version, by seat
        self._labels: dict[int, str] = {}  # the header's, by seat
        self._tables: dict[int, _Shown] = {}
        self._hand = 0  # the last hand dealt (1-based)
        self._results: list[dict[str, Any]] = []
        self._round_list: list[dict[str, Any]] = []
        self._faults: list[dict[str, Any]] = []
        self._scores: list[int] = []
        self._over = False
        self._outcome: dict[str, Any] | None = None
        self._view: dict[str, Any] | None = None

    # --- feeding --------------------------------------------------------------------------------

    def feed(self, record: dict[str, Any]) -> None:
        """Take the log's next record."""
        self.records += 1
        self._view = None
        kind = record.get("type")
        if self._header is None:
            if kind == "header":
                self._start(record)
            else:
                self.stopped = self.stopped or "the log does not start with its header"
            return
        if kind == "connected":
            seat = _int(record.get("seat"))
            if seat is not None and 0 <= seat < self.players:
                name = safe_text(str(record.get("name", "")))
                self._names[seat] = (name, safe_text(str(record.get("version", ""))))
        elif kind == "fault":
            self._fault(record)
        fold = self._fold
        if fold is None or self.stopped is not None:
            if kind == "match_result":
                self._over = True
            return
        step = fold.feed(self.records, record)
        if step is None:
            seat = _int(record.get("seat"))
            refusal = fold.refusal
            self.stopped = (
                f"the deal of hand {_int(record.get('hand'))} does not replay: {refusal}"
                if kind == "deal"
                else f"seat {seat} acts out of turn"
                if refusal is None
                else f"the engine refuses seat {seat}'s action: {refusal}"
            )
        elif kind == "deal":
            self._deal(step, fold)
        elif step.result is not None:
            self._hand_result(step.result)
        elif step.round is not None:
            self._round_result(step.round)
        elif kind == "match_result":
            self._match_result(step)

    def _start(self, header: dict[str, Any]) -> None:
        self._header = header
        bots = header.get("bots")
        for bot in bots if isinstance(bots, list) else ():
            if isinstance(bot, dict) and _int(bot.get("seat")) is not None:
                self._labels[bot["seat"]] = safe_text(str(bot.get("label", "")))
        try:
            rules = header_rules(header)
        except UnreadableRules as exc:
            self.stopped = f"the header's rules cannot be read: {exc.detail}"
            return
        self._rules = rules
        self._scores = [0] * (2 if rules.players == 4 else rules.players)
        try:
            seed = header_seed(header)
        except ReplayLogError:
            self.stopped = "the header has no seed to follow the match from"
            return
        try:
            source = header_deck_source(header)
        except ReplayLogError as exc:
            self.stopped = f"the header's {exc.problems[0][1]}"
            return
        if source is None:
            # The seed deals exactly as the referee dealt (it plays the same game from it);
            # each deal record's deck is checked against it.
            self._fold = LogFold(rules, seed, history=False)
        else:
            # A deal file's decks: each hand is dealt from its deal record's deck as it arrives.
            dealer = source["first_dealer"]
            self._fold = LogFold(rules, seed, history=False, first_dealer=dealer, read_decks=True)

    def _fault(self, record: dict[str, Any]) -> None:
        seat = _int(record.get("seat"))
        if seat is None or not 0 <= seat < self.players:
            return
        self._faults.append(
            {
                "hand": _int(record.get("hand")),
                "seat": seat,
                "kind": safe_text(str(record.get("kind", ""))),
                "rule": safe_text(str(record.get("rule", ""))),
                "retry": record.get("retry") is True,
            }
        )

    def _deal(self, step: Step, fold: LogFold) -> None:
        number = _int(step.record.get("hand"))
        hand = step.played
        if hand is None or number is None:
            self.stopped = f"the deal of hand {number} is not the engine's next"
            return
        deck = fold.decks.get(step.line)
        if deck is None or tuple(deck) != hand.deck:
            self.stopped = (
                f"the deck of hand {number} is not the one the header's seed deals"
                if not fold.reads_decks
                else f"the deck of hand {number} cannot be dealt (not 52 cards, or out of place)"
            )
            return
        # The engine's own hand, changed in place as the walk applies each decision.
        self._tables[step.table] = _Shown(hand, step.seats, step.table)
        self._hand = max(self._hand, number)
        # A deal from a file's deck may have rebuilt the game: a hand shown in play is now the
        # new game's (a finished one is left as it ended, the same in both).
        for table in fold.match.tables:
            shown = self._tables.get(table.number)
            if shown is not None and shown.hand.number == table.hand.number:
                shown.hand = table.hand

    def _hand_result(self, result: HandResult) -> None:
        # As the walk reads it: the first finished hand not yet reported.
        for shown in self._tables.values():
            if shown.hand.number == result.number:
                shown.result = result
        self._scores = list(result.scores_after)
        self._results.append(
            {
                "hand": result.number + 1,
                "table": result.table,
                "seats": list(result.seats),
                "outcome": result.outcome.value,
                "winner": result.match_seat(result.winner),
                "points": result.points,
                "scores_after": list(result.scores_after),
            }
        )

    def _round_result(self, done: RoundResult) -> None:
        self._scores = list(done.scores_after)
        self._round_list.append(
            {
                "round": done.number + 1,
                "hands": [h + 1 for h in done.hands],
                "team_hand_points": list(done.won),
                "winner": done.winner,
                "points": done.points,
                "scores_after": list(done.scores_after),
            }
        )

    def _match_result(self, step: Step) -> None:
        self._over = True
        forfeit = step.record.get("forfeit")
        kind = safe_text(str(forfeit.get("kind"))) if isinstance(forfeit, dict) else None
        # The walk applied the forfeit, if the record names seats that can forfeit.
        result = step.after.result
        if result is not None:
            self._outcome = self._result_view(result, kind)

    def _result_view(self, result: MatchResult, kind: str | None) -> dict[str, Any]:
        players = self.players
        forfeit = None
        if result.forfeit_rule is not None:
            seats = result.forfeit_seats or (
                (result.forfeit_seat,) if result.forfeit_seat is not None else (0, 1)
            )
            forfeit = {"seats": list(seats), "kind": kind, "rule": result.forfeit_rule}
        return {
            "termination": result.termination.value,
            "winner": result.winner,
            "final": list(result.final),
            "margin": result.margin,
            "placings": list(result.placings(players)),
            "forfeit": forfeit,
        }

    # --- the view -------------------------------------------------------------------------------

    @property
    def players(self) -> int:
        """Seats at the match (2 until the header says otherwise)."""
        return self._rules.players if self._rules is not None else 2

    @property
    def seed(self) -> int | None:
        """The header's seed, for the caller to tell which deal the match plays (a tournament
        hides the tables of a deal others still play); never part of :meth:`view`."""
        return None if self._header is None else _int(self._header.get("seed"))

    @property
    def labels(self) -> tuple[str, ...]:
        """The header's label of each seat, in seat order (a tournament's bot names)."""
        return tuple(self._labels.get(seat, "") for seat in range(self.players))

    @property
    def started(self) -> bool:
        """Whether the header has been read."""
        return self._header is not None

    @property
    def over(self) -> bool:
        """Whether the match result has been read."""
        return self._over

    def view(self) -> dict[str, Any]:
        """The spectator's view after the records fed so far (JSON-able; a new dict each time
        something was fed, the same one otherwise)."""
        if self._view is None:
            self._view = self._build()
        return self._view

    def _build(self) -> dict[str, Any]:
        header = self._header or {}
        rules = self._rules
        players = self.players
        teams = players == 4
        seats = []
        for seat in range(players):
            name, version = self._names.get(seat, ("", ""))
            seats.append(
                {
                    "seat": seat,
                    "label": self._labels.get(seat, f"seat {seat}"),
                    "name": name,
                    "version": version,
                    "team": seat % 2 if teams else None,
                }
            )
        series = header.get("series")
        tables = [self._table_view(self._tables[t]) for t in sorted(self._tables)]
        sitting_out = None
        if players == 3 and self._tables:
            playing = self._tables[0].seats
            sitting_out = 3 - playing[0] - playing[1]
        return {
            "match_id": safe_text(str(header.get("match_id", ""))),
            "started": safe_text(str(header.get("created", ""))),
            "players": players,
            "teams": teams,
            "rules": None
            if rules is None
            else {
                "profile": rules.profile_name,
                "target": rules.target,
                "players": players,
                "knock_discard": knock_discard_words(rules),  # how the page says it lies
            },
            "series": {
                "match": _int(series.get("match_number")),
                "of": _int(series.get("length")),
            }
            if isinstance(series, dict)
            else None,
            "seats": seats,
            "scores": list(self._scores),
            "hand": self._hand,
            "sitting_out": sitting_out,
            "tables": tables,
            "hands": list(self._results),
            "rounds": list(self._round_list),
            "faults": list(self._faults),
            "over": self._over,
            "result": self._outcome,
            "stopped": self.stopped,
        }

    def _table_view(self, shown: _Shown) -> dict[str, Any]:
        hand, seats, result = shown.hand, shown.seats, shown.result
        revealed = result is not None
        events = hand.events if revealed else hidden_events(hand.events)
        to_act = hand.to_act
        # With three players the dealer sits out, and hand seat 1 plays the dealer's part (R10.1).
        dealer = 3 - seats[0] - seats[1] if self.players == 3 else seats[hand.dealer]
        return {
            "table": shown.table,
            "hand": hand.number + 1,
            "seats": list(seats),
            "dealer": dealer,
            "to_act": None if to_act is None or revealed else seats[to_act],
            "phase": hand.phase.value,
            "upcard": None if hand.upcard is None else card_str(hand.upcard),
            "knock_limit": hand.knock_limit,
            "pile": _cards(hand.pile),
            "stock": hand.stock_size,
            "held": [hand.held(s).bit_count() for s in (0, 1)],
            "known": [_cards(cards_of(hand.known(s))) for s in (0, 1)],
            "events": [
                {
                    "seat": None if e.seat is None else seats[e.seat],
                    "kind": e.kind,
                    "card": None if e.card is None else card_str(e.card),
                }
                for e in events
            ],
            "result": None if result is None else _hand_result_view(result, seats),
        }


def _hand_result_view(result: HandResult, seats: tuple[int, int]) -> dict[str, Any]:
    """A finished hand, everything in it public: the referee's spelling of the engine's result,
    its seats turned into match seats."""
    record = hand_result_dict(result)

    def seat(hand_seat: int | None) -> int | None:
        return None if hand_seat is None else seats[hand_seat]

    knocker = record["knocker_arrangement"] or {"melds": [], "deadwood": []}
    defender = record["defender"] or {"melds": [], "layoffs": [], "deadwood": []}
    return {
        "outcome": record["outcome"],
        "winner": seat(record["winner"]),
        "points": record["points"],
        "knocker": seat(record["knocker"]),
        "knock_discard": record["knock_discard"],
        "knocker_melds": knocker["melds"],
        "knocker_deadwood_cards": knocker["deadwood"],
        "knocker_deadwood": record["knocker_deadwood"],
        "defender_melds": defender["melds"],
        "layoffs": defender["layoffs"],
        "defender_deadwood_cards": defender["deadwood"],
        "defender_deadwood": record["defender_deadwood"],
        "doubled": record["doubled"],
        "extra_boxes": record["extra_boxes"],
        "dead_reason": record["dead_reason"],
        "final_hands": record["final_hands"],
        "scores_after": record["scores_after"],
    }


def spectator_view(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The spectator's view of a match after ``records`` (a log's first records, in order)."""
    spectator = Spectator()
    for record in records:
        spectator.feed(record)
    return spectator.view()
