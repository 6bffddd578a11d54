"""The record checks of ``ginref verify``, on the one walk of a log through the engine.

:class:`RecordChecker` goes through the steps of a :class:`~referee.timeline.Timeline` of two,
three or four players and collects every problem as a ``(line, message)`` pair, line 0 meaning
the end of the file; :mod:`replays.verify` says which checks these are. Every check is made on
the match seats whatever the size of the match; where the log says more with three players or
partnerships (where a hand sits, the rounds, every forfeiting seat), so do the checks.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from referee.engine.actions import action_from_dict
from referee.engine.cards import card_str
from referee.engine.deal import hand_deck
from referee.engine.game import Game
from referee.engine.outcomes import Phase
from referee.errors import CardError, GinRefError, IllegalActionError
from referee.fairness import GivenDecks, opens
from referee.faults import CONDUCT_RULE, FaultKind
from referee.replay_log import hand_result_dict, match_result_dict, round_result_dict
from referee.timeline import Step, Timeline, forfeit_seats, header_deck_source

# Clock values are rounded to 0.001 ms in the log; the header's move time to 1 ms.
CLOCK_TOLERANCE_MS = 1.0
_DECISION_FAULTS = frozenset(
    {
        FaultKind.ILLEGAL_ACTION.value,
        FaultKind.MALFORMED_ACTION.value,
        FaultKind.DEADLINE_MISSED.value,
        FaultKind.TIME_BANK_EXHAUSTED.value,
    }
)
_RETRYABLE = frozenset(k.value for k in FaultKind if k.retryable)
ENDS_EARLY = "the log ends before the match result"
# A deal file's decks by the deal's number (1-based): tournaments.file.deals.DealSet.decks.
DeckFile = Callable[[int], GivenDecks | None]


def value_text(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 70 else text[:67] + "..."


def first_difference(recorded: dict[str, Any], expected: dict[str, Any]) -> str | None:
    for key, want in expected.items():
        got = recorded.get(key)
        if got != want:
            return f"{key}: recorded {value_text(got)}, engine {value_text(want)}"
    extra = next((key for key in recorded if key not in expected), None)
    if extra is not None:
        return f"{extra}: recorded {value_text(recorded[extra])}, engine has no such field"
    return None


def number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


class RecordChecker:
    """The checks of :func:`replays.verify.timeline_problems`, record by record: :meth:`run`
    calls the method named after each record's type. ``deck_file``: the deal file a match dealt
    from decks was dealt from (None: not given, and such decks are not checked)."""

    def __init__(self, timeline: Timeline, deck_file: DeckFile | None = None) -> None:
        header = timeline.header
        self.timeline = timeline
        self.deck_file = deck_file
        self.records = dict(timeline.log.records)  # by line
        self.problems: list[tuple[int, str]] = []
        clock = header.get("time_control")
        clock = clock if isinstance(clock, dict) else {}
        self.move_ms = number(clock.get("move_time_ms"))
        bank = number(clock.get("bank_ms"))
        self.has_bank = bank is not None and bank > 0
        self.players = timeline.players
        self.teams = timeline.teams
        self.banks: list[float | None] = [bank] * self.players
        policy = header.get("fault_policy")
        retries = policy.get("retries") if isinstance(policy, dict) else None
        self.retries = retries if isinstance(retries, int) else 0
        self.retries_used = [0] * self.players
        self.last_rid: list[int | None] = [None] * self.players
        series = header.get("series")
        self.first_match = isinstance(series, dict) and series.get("match_number") == 1
        self.connected: set[int] = set()
        self.dealt: set[int] = set()
        self.deals = 0  # deal records seen
        self.dealt_to: dict[int, int | None] = {}  # seat -> the hand last dealt to it (None: out)
        self.results = 0
        self.rounds = 0  # round_result records seen
        self.forfeits: list[Step] = []  # faults with retry false

    def add(self, step: Step, message: str) -> None:
        self.problems.append((step.line, message))

    def run(self) -> None:
        self._decks()
        for step in self.timeline.steps:
            handler = getattr(self, f"_{step.kind}", None)
            if handler is not None:
                handler(step)
        self._end()

    def _decks(self) -> None:
        """Each deal record's deck against the seed's deck of that hand (dead hands count), or
        for a match dealt from a deal file, the first ones against the file's decks."""
        source = header_deck_source(self.timeline.header)
        count, given = 0, None
        if source is not None:
            count = source["decks"] if type(source.get("decks")) is int else 0
            given = self._given(source)
        for index, (line, deck) in enumerate(self.timeline.decks.items()):
            hand = self.records[line]["hand"]
            if index >= count:
                if deck != hand_deck(self.timeline.seed, index):
                    self.problems.append((line, f"the deck of hand {hand} is not the seed's"))
            elif given is not None and deck != list(given.decks[index]):
                self.problems.append(
                    (line, f"the deck of hand {hand} is not deck {index + 1} of deal "
                     f"{given.deal} of the deal file")
                )  # fmt: skip

    def _given(self, source: dict[str, Any]) -> GivenDecks | None:
        """The deal file's decks the header names, if the file was given and holds them."""
        deal = source.get("deal")
        if self.deck_file is None or type(deal) is not int or deal < 1:
            return None
        given = self.deck_file(deal)
        if given is None:
            self.problems.append((1, f"deck_source: deal {deal} of the deal file is a seed"))
        elif given.header() != {**source, "file": given.file}:
            self.problems.append(
                (1, f"deck_source: deal {deal} of the deal file is not the one this match was "
                 "dealt from (other decks or another first dealer)")
            )  # fmt: skip
        else:
            return given
        return None

    def _end(self) -> None:
        """Where the walk stopped, or a log without its match result."""
        stopped = self.timeline.stopped
        if stopped is not None:
            line, _ = stopped
            record = self.records[line]
            # The state the refused record met: the last step's, since every record before it
            # has one.
            before = self.timeline.steps[-1].after
            if record["type"] == "decision" and before.to_act == record["seat"]:
                self._phase(line, record, before)
            self.problems.append(stopped)
        elif not any(s.kind == "match_result" for s in self.timeline.steps):
            self.problems.append((0, ENDS_EARLY))

    def _phase(self, line: int, record: dict[str, Any], before: Game) -> None:
        if before.phase.value != record["phase"]:
            self.problems.append(
                (line, f"phase {record['phase']!r} recorded, engine in {before.phase.value!r}")
            )

    def _connected(self, step: Step) -> None:
        self.connected.add(step.record["seat"])

    def _deal(self, step: Step) -> None:
        self.deals += 1
        r = step.record
        h = step.played
        if h is None or step.after.result is not None or h.number + 1 != r["hand"]:
            self.add(step, f"hand {r['hand']} is not being dealt here")
        elif h.dealer != r["dealer"] or list(h.deck) != self.timeline.decks.get(step.line):
            self.add(step, f"hand {r['hand']}: dealer or deck differs")
        if h is None:
            return
        due = self._results_due(r["hand"])
        if self.results < due:
            self.add(step, f"hand {due} has no hand_result record before this deal")
        self._placed(step)
        self.dealt.add(h.number + 1)
        upcard = None if h.upcard is None else card_str(h.upcard)
        if r["upcard"] != upcard:
            self.add(step, f"hand {r['hand']}: upcard: recorded {value_text(r['upcard'])}, engine "
                     f"{value_text(upcard)}")  # fmt: skip
        if r["knock_limit"] != h.knock_limit:
            self.add(step, f"hand {r['hand']}: knock_limit: recorded {r['knock_limit']}, "
                     f"engine {h.knock_limit}")  # fmt: skip

    def _results_due(self, hand: int) -> int:
        """How many hand results come before the deal of ``hand``: every earlier hand's; with
        partnerships, both hands of every earlier round."""
        return 2 * ((hand - 1) // 2) if self.teams else hand - 1

    def _placed(self, step: Step) -> None:
        """Where the dealt hand sits: the match seats at its hand seats and its table, as the
        engine seats them (R10.1: the dealer sits out; R10.2: opponents swap every round); a
        two-player deal says nothing of it. With partnerships, the rounds before it reported."""
        r = step.record
        for seat in range(self.players):
            if seat in step.seats:
                self.dealt_to[seat] = r["hand"]
            elif not self.teams:
                self.dealt_to[seat] = None  # sits this hand out
        if self.players == 2:
            extra = next((key for key in ("seats", "table") if key in r), None)
            if extra is not None:
                self.add(
                    step,
                    f"hand {r['hand']}: {extra}: a field of 3- and 4-player logs, in a 2-player "
                    "log",
                )
            return
        for key, want in (("seats", list(step.seats)), ("table", step.table)):
            if r.get(key) != want:
                self.add(
                    step,
                    f"hand {r['hand']}: {key}: recorded {value_text(r.get(key))}, engine "
                    f"{value_text(want)}",
                )
                break
        due = (r["hand"] - 1) // 2 if self.teams else 0
        if self.rounds < due:
            self.add(step, f"round {due} has no round_result record before this deal")

    def _request_id(self, step: Step, seat: int) -> None:
        rid = step.record["request_id"]
        last = self.last_rid[seat]
        if last is not None and rid != last + 1:
            self.add(
                step,
                f"seat {seat}'s request ids jump from {last} to {rid}: a record of that seat "
                "is missing or out of place",
            )
        self.last_rid[seat] = rid

    def _decision(self, step: Step) -> None:
        r = step.record
        seat = r["seat"]
        before = step.before
        self._phase(step.line, r, before)
        hand = 0 if before.phase is Phase.CHOOSE_DEALER else step.hand
        if r["hand"] != hand:
            self.add(step, f"hand: recorded {r['hand']}, engine {hand}")
        elif hand and hand not in self.dealt:
            self.add(step, f"hand {hand} is played, but its deal record is missing")
        if self.first_match and seat not in self.connected:
            self.add(step, f"seat {seat} decides, but no connected record says it connected")
        if self.forfeits:
            self.add(step, f"a decision after the forfeiting fault of line {self.forfeits[0].line}")
        self._request_id(step, seat)
        self._clock(step, seat)

    def _clock(self, step: Step, seat: int) -> None:
        think = number(step.record["think_ms"])
        after = number(step.record["bank_ms"])
        bank = self.banks[seat]
        self.banks[seat] = after
        if think is None or after is None or bank is None or self.move_ms is None:
            return
        if think > self.move_ms + bank + CLOCK_TOLERANCE_MS:
            self.add(
                step,
                f"think_ms {think:g} is more than the time left ({self.move_ms + bank:g} ms): "
                "a timeout fault was due",
            )
        expected = bank - max(0.0, think - self.move_ms)
        if abs(after - expected) > CLOCK_TOLERANCE_MS:
            self.add(step, f"bank_ms: recorded {after:g}, engine {expected:g} (from think_ms)")

    def _fault(self, step: Step) -> None:
        r = step.record
        seat, kind = r["seat"], r["kind"]
        if not 0 <= seat < self.players:
            self.add(step, f"a fault of seat {seat}, in a match of {self.players} players")
            return
        before = step.before
        hand = self._fault_hand(step, seat)
        if r["hand"] != hand:
            self.add(
                step, f"fault hand: recorded {value_text(r['hand'])}, engine {value_text(hand)}"
            )
        if kind in _DECISION_FAULTS:
            if before.to_act != seat:
                self.add(step, f"a {kind} fault of seat {seat}, who was not asked to decide")
            else:
                self._request_id(step, seat)
        if kind != FaultKind.ILLEGAL_ACTION.value and r["rule"] != CONDUCT_RULE:
            self.add(step, f"a {kind} fault breaks {CONDUCT_RULE}, not {r['rule']}")
        if kind == FaultKind.ILLEGAL_ACTION.value:
            self._illegal(step)
        if kind in (FaultKind.DEADLINE_MISSED.value, FaultKind.TIME_BANK_EXHAUSTED.value):
            self._timeout(step)
        if r["retry"]:
            if kind not in _RETRYABLE:
                self.add(step, f"a {kind} fault cannot be retried")
            self.retries_used[seat] += 1
            if self.retries_used[seat] > self.retries:
                self.add(
                    step,
                    f"retry {self.retries_used[seat]} of seat {seat}, but the fault policy "
                    f"allows {self.retries}",
                )
        else:
            self.forfeits.append(step)

    def _fault_hand(self, step: Step, seat: int) -> int | None:
        """The hand a fault of ``seat`` is recorded in: the one last dealt to it; the one in
        play (None before a deal) before the seat's first deal, or while it sits out."""
        dealt = self.dealt_to.get(seat)
        if dealt is not None:
            return dealt
        hand = step.before.hand
        return None if hand is None else hand.number + 1

    def _illegal(self, step: Step) -> None:
        r = step.record
        if r["action"] is None or step.before.to_act != r["seat"]:
            return
        try:
            action = action_from_dict(r["action"])
        except CardError as exc:
            self.add(step, f"the refused action cannot be read: {exc}")
            return
        probe = step.before.copy()
        try:
            probe.apply(action)
        except IllegalActionError as exc:
            if exc.rule != r["rule"]:
                self.add(step, f"rule: recorded {r['rule']}, engine {exc.rule} ({exc.reason})")
            return
        except GinRefError as exc:
            self.add(step, f"the refused action cannot be applied: {exc}")
            return
        self.add(step, f"an illegal_action fault, but the engine accepts {action}")

    def _timeout(self, step: Step) -> None:
        r = step.record
        kind = r["kind"]
        want = (FaultKind.TIME_BANK_EXHAUSTED if self.has_bank else FaultKind.DEADLINE_MISSED).value
        if kind != want:
            bank = "a time bank" if self.has_bank else "no time bank"
            self.add(step, f"a {kind} fault in a match with {bank} (expected {want})")
        think = number(r["think_ms"])
        bank_left = self.banks[r["seat"]]
        if think is not None and bank_left is not None and self.move_ms is not None:
            limit = self.move_ms + bank_left
            if think < limit - CLOCK_TOLERANCE_MS:
                self.add(step, f"a timeout after {think:g} ms, but {limit:g} ms were left")

    def _hand_result(self, step: Step) -> None:
        self.results += 1
        if step.result is None:
            self.add(step, f"hand {step.record['hand']} has not ended in the engine")
            return
        got = {k: v for k, v in step.record.items() if k != "type"}
        diff = first_difference(got, hand_result_dict(step.result, group=self.players > 2))
        if diff is not None:
            self.add(step, f"hand {step.record['hand']}: {diff}")

    def _round_result(self, step: Step) -> None:
        """A partnership round's result against the engine's (team hand points, who scores
        how many, the scores after)."""
        self.rounds += 1
        number = step.record.get("round")
        if step.round is None:
            self.add(step, f"round {value_text(number)} has not ended in the engine")
            return
        got = {k: v for k, v in step.record.items() if k != "type"}
        diff = first_difference(got, round_result_dict(step.round))
        if diff is not None:
            self.add(step, f"round {step.round.number + 1}: {diff}")

    def _match_result(self, step: Step) -> None:
        r = step.record
        forfeit = r["forfeit"]
        named = forfeit_seats(forfeit, self.players)
        if step.before.result is None and isinstance(forfeit, dict) and not named:
            self.add(step, self._unnamed(forfeit))
        elif step.after.result is None:
            self.add(step, "the match result is recorded, but the match goes on")
        first = self.forfeits[0] if self.forfeits else None
        if r["termination"] != "forfeit":
            if first is not None:
                self.add(
                    step, f"the fault of line {first.line} forfeits, but the result is no forfeit"
                )
        elif first is None:
            self.add(step, "a forfeit, but no fault record with retry false")
        elif isinstance(forfeit, dict):
            self._forfeit(step, forfeit, first, named)
        result = step.after.result
        if result is not None:
            kind = forfeit.get("kind") if isinstance(forfeit, dict) else None
            # The hands dealt in the log; earlier referees counted a hand the engine dealt but
            # a forfeit before the first deal never logged, and their logs stay valid.
            hands = r.get("hands_played")
            if hands != step.after.hands_dealt:
                hands = self.deals
            expected = match_result_dict(result, hands, kind, self.players)
            # The salt is checked by _seal; how the bot processes ended is not the engine's (the
            # schema checks its shape).
            shown = {k: v for k, v in r.items() if k not in ("type", "deal_salt", "exits")}
            diff = first_difference(shown, expected)
            if diff is not None:
                self.add(step, f"match result: {diff}")
        played = len(step.after.round_results)
        if self.rounds < played:
            self.add(step, f"round {played} has no round_result record before the match result")
        self._seal(step)

    def _unnamed(self, forfeit: dict[str, Any]) -> str:
        """Why a forfeit names no seat of this match."""
        if self.players == 2:
            return f"forfeit: seat {forfeit.get('seat')!r} is not 0, 1 or null"
        seats = forfeit.get("seats", forfeit.get("seat"))
        return (
            f"forfeit: {value_text(seats)} names no seats of this match (0 to {self.players - 1})"
        )

    def _forfeit(
        self, step: Step, forfeit: dict[str, Any], first: Step, named: tuple[int, ...]
    ) -> None:
        """A forfeit's seats are those of the faults recorded with retry false, and one seat's
        forfeit is its fault's (kind, rule, reason). A two-player log names one seat, or null
        for both; a larger one every seat in ``seats``."""
        faulted = sorted({s.record["seat"] for s in self.forfeits})
        seat = forfeit.get("seat")
        if self.players == 2:
            if seat is None and len(faulted) < 2:
                self.add(step, "both seats forfeit, but only one seat's fault is recorded")
            elif seat is not None and seat != first.record["seat"]:
                self.add(
                    step,
                    f"forfeit seat: recorded {seat}, but the fault of line {first.line} is seat "
                    f"{first.record['seat']}'s",
                )
            if seat is None:
                return
        else:
            if named and sorted(named) != faulted:
                self.add(
                    step,
                    f"forfeit seats: recorded {value_text(sorted(named))}, but the faults with "
                    f"retry false are seat {' and '.join(map(str, faulted))}'s",
                )
                return
            if len(faulted) != 1:
                return
        for key in ("kind", "rule", "reason"):
            if forfeit.get(key) != first.record[key]:
                self.add(
                    step,
                    f"forfeit {key}: recorded {value_text(forfeit.get(key))}, the fault of line "
                    f"{first.line} says {value_text(first.record[key])}",
                )
                return

    def _seal(self, step: Step) -> None:
        """The header's commitment to the deal, opened by the seed and the revealed salt."""
        committed = self.timeline.header.get("deal_commitment")
        salt = step.record.get("deal_salt")
        if committed is None and salt is None:
            return  # a log of a referee that did not commit
        if not isinstance(committed, str) or not isinstance(salt, str):
            self.add(step, "deal commitment: the header's commitment or the revealed salt is lost")
            return
        source = header_deck_source(self.timeline.header)
        try:
            # A match dealt from a file's decks committed to them (their digest) too.
            decks = None if source is None else bytes.fromhex(str(source.get("sha256")))
            opened = opens(bytes.fromhex(committed), self.timeline.seed, bytes.fromhex(salt), decks)
        except ValueError:
            opened = False
        if not opened:
            self.add(
                step,
                "deal commitment: the seed and the revealed salt do not hash to the header's "
                "deal_commitment, so the deal was not the one committed to before play",
            )
