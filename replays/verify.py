"""``ginref verify``: re-adjudicate replay logs with the rules engine and say where they differ.

Each log is read once (:func:`referee.replay_log.read_text_log`) and walked once through the
engine (:func:`referee.timeline.build_timeline`: the header's rules and seed, the decks of the
``deal`` records, every decision applied in order, a forfeit applied at the match result);
:func:`timeline_problems` checks that walk:

- each deck against the one the seed gives (:mod:`referee.engine.deal`); each ``deal``: that the
  engine deals that hand there, with the recorded dealer, deck, upcard and knock limit, and that
  every hand's deal and result are recorded;
- each ``decision``: that it is the recorded seat's turn, in the recorded phase and hand, and
  legal (the walk stops at the first the engine cannot take); that its seat had connected; that
  the seat's request ids run without a gap (a missing record leaves one); the clock: the bank
  after the decision;
- each ``fault``: the hand, that a decision fault is the seat to act's, that an illegal action is
  one (the engine refuses it, naming the recorded rule), that a retry was allowed, that a timeout
  ran out the time there was, and that the forfeit in the match result is the recorded fault's;
- each hand result and the match result against the engine's, naming the first field that
  differs with both values; and that the log does not end before its match result;
- the deal's commitment: the header's ``deal_commitment`` opened by the seed and the salt the
  match result reveals (:mod:`referee.fairness`);
- every line against the log's JSON Schema (:mod:`replays.schema`), and a last line cut short
  (the log is truncated: never a pass).

Problems are ``(line, message)`` pairs, line 0 meaning the end of the file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.engine.actions import action_from_dict
from referee.engine.cards import card_str
from referee.engine.deal import hand_deck
from referee.engine.match import Match
from referee.engine.outcomes import Phase
from referee.errors import CardError, GinRefError, IllegalActionError, ReplayLogError
from referee.fairness import opens
from referee.faults import CONDUCT_RULE, FaultKind
from referee.replay_log import (
    TRUNCATED,
    ReplayError,
    ReplayLog,
    describe_problem,
    hand_result_dict,
    match_result_dict,
    read_text_log,
)
from referee.timeline import Step, Timeline, build_timeline, forfeit_seat_ok
from replays.schema import schema_problems

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


@dataclass(frozen=True, slots=True)
class LogCheck:
    """The verdict on one log file."""

    path: Path
    problems: tuple[tuple[int, str], ...]  # by line; line 0: the end of the file
    kinds: dict[int, str]  # record type by line, to say what a problem's line holds
    last_line: int
    summary: str  # what the match was (empty when the log could not be read)

    @property
    def ok(self) -> bool:
        """Whether the log re-adjudicates without a single difference."""
        return not self.problems


def find_logs(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Files as given; for a directory, every ``*.jsonl`` below it, sorted."""
    found: list[Path] = []
    for item in paths:
        path = Path(item)
        if path.is_dir():
            logs = sorted(p for p in path.rglob("*.jsonl") if p.is_file())
            found.extend(logs or [path])
        else:
            found.append(path)
    return found


def check_file(path: str | os.PathLike[str]) -> LogCheck:
    """Read and re-adjudicate the log at ``path``; never raises for a bad file."""
    path = Path(path)
    if path.is_dir():
        return LogCheck(path, ((0, "no replay logs (*.jsonl) in this directory"),), {}, 0, "")
    try:
        log = read_text_log(path)
    except ReplayError as exc:
        return LogCheck(path, ((exc.line, exc.message),), {}, 0, "")
    kinds = {n: str(r["type"]) for n, r in log.records}
    last = max([0, *(n for n, _ in log.records), *(n for n, _ in log.problems)])
    # A cut line is the log's last; "the log ends before the match result" then says no more.
    cut = [] if log.truncated is None else [(log.truncated, TRUNCATED)]
    last = max(last, log.truncated or 0)
    if log.problems:
        problems = [(n, describe_problem(log, n, m)) for n, m in log.problems]
        if log.header is None:  # a foreign file: its first line says it all
            problems = list(_ordered(problems)[:1])
        return LogCheck(path, _ordered(problems + cut), kinds, last, "")
    problems, summary = check_log(log)
    problems += schema_problems(log.records)
    if cut:
        problems = [p for p in problems if p != (0, ENDS_EARLY)] + cut
    return LogCheck(path, _ordered(problems), kinds, last, summary)


def check_log(log: ReplayLog) -> tuple[list[tuple[int, str]], str]:
    """Every problem of a log that parsed, and a one-line summary of the match (one walk)."""
    try:
        timeline = build_timeline(log)
    except ReplayLogError as exc:
        return list(exc.problems), ""
    except Exception as exc:  # a tampered log must not crash the verifier; say what broke
        return [(0, f"cannot re-adjudicate: {type(exc).__name__}: {exc}")], ""
    return timeline_problems(timeline), summarize(timeline)


def _ordered(problems: Sequence[tuple[int, str]]) -> tuple[tuple[int, str], ...]:
    return tuple(sorted(problems, key=lambda p: (p[0] == 0, p[0])))


def summarize(timeline: Timeline) -> str:
    """``standard, seed 7, 3 hands, 98 decisions: seat 0 (greedy_bot) wins 139-0``."""
    hands = len(timeline.hands())
    decisions = sum(1 for s in timeline.steps if s.kind == "decision")
    text = (
        f"{timeline.rules.profile_name}, seed {timeline.seed}, {hands} hand"
        f"{'' if hands == 1 else 's'}, {decisions} decisions"
    )
    end = next((s for s in timeline.steps if s.kind == "match_result"), None)
    if end is None or end.after.result is None:
        return text
    result = end.after.result
    final = f"{result.final[0]}-{result.final[1]}"
    if result.winner is None:
        return f"{text}: no winner, {final} ({result.termination.value})"
    who = f"seat {result.winner} ({timeline.label(result.winner)})"
    return f"{text}: {who} wins {final} ({result.termination.value})"


def _value(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 70 else text[:67] + "..."


def _first_difference(recorded: dict[str, Any], expected: dict[str, Any]) -> str | None:
    for key, want in expected.items():
        got = recorded.get(key)
        if got != want:
            return f"{key}: recorded {_value(got)}, engine {_value(want)}"
    extra = next((key for key in recorded if key not in expected), None)
    if extra is not None:
        return f"{extra}: recorded {_value(recorded[extra])}, engine has no such field"
    return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


class _Checker:
    """The checks of :func:`timeline_problems`, record by record."""

    def __init__(self, timeline: Timeline) -> None:
        header = timeline.header
        self.timeline = timeline
        self.records = dict(timeline.log.records)  # by line
        self.problems: list[tuple[int, str]] = []
        clock = header.get("time_control")
        clock = clock if isinstance(clock, dict) else {}
        self.move_ms = _number(clock.get("move_time_ms"))
        bank = _number(clock.get("bank_ms"))
        self.has_bank = bank is not None and bank > 0
        self.banks: list[float | None] = [bank, bank]
        policy = header.get("fault_policy")
        retries = policy.get("retries") if isinstance(policy, dict) else None
        self.retries = retries if isinstance(retries, int) else 0
        self.retries_used = [0, 0]
        self.last_rid: list[int | None] = [None, None]
        series = header.get("series")
        self.first_match = isinstance(series, dict) and series.get("match_number") == 1
        self.connected: set[int] = set()
        self.dealt: set[int] = set()
        self.results = 0
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
        """Each deal record's deck against the seed's deck of that hand (dead hands count)."""
        for index, (line, deck) in enumerate(self.timeline.decks.items()):
            if deck != hand_deck(self.timeline.seed, index):
                hand = self.records[line]["hand"]
                self.problems.append((line, f"the deck of hand {hand} is not the seed's"))

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

    def _phase(self, line: int, record: dict[str, Any], before: Match) -> None:
        if before.phase.value != record["phase"]:
            self.problems.append(
                (line, f"phase {record['phase']!r} recorded, engine in {before.phase.value!r}")
            )

    def _connected(self, step: Step) -> None:
        self.connected.add(step.record["seat"])

    def _deal(self, step: Step) -> None:
        r = step.record
        h = step.played
        if h is None or step.after.result is not None or h.number + 1 != r["hand"]:
            self.add(step, f"hand {r['hand']} is not being dealt here")
        elif h.dealer != r["dealer"] or list(h.deck) != self.timeline.decks.get(step.line):
            self.add(step, f"hand {r['hand']}: dealer or deck differs")
        if h is None:
            return
        if r["hand"] > 1 and self.results < r["hand"] - 1:
            self.add(step, f"hand {r['hand'] - 1} has no hand_result record before this deal")
        self.dealt.add(h.number + 1)
        upcard = None if h.upcard is None else card_str(h.upcard)
        if r["upcard"] != upcard:
            self.add(step, f"hand {r['hand']}: upcard: recorded {_value(r['upcard'])}, engine "
                     f"{_value(upcard)}")  # fmt: skip
        if r["knock_limit"] != h.knock_limit:
            self.add(step, f"hand {r['hand']}: knock_limit: recorded {r['knock_limit']}, "
                     f"engine {h.knock_limit}")  # fmt: skip

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
        think = _number(step.record["think_ms"])
        after = _number(step.record["bank_ms"])
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
        before = step.before
        hand = None if before.hand is None else before.hand.number + 1
        if r["hand"] != hand:
            self.add(step, f"fault hand: recorded {_value(r['hand'])}, engine {_value(hand)}")
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
        think = _number(r["think_ms"])
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
        diff = _first_difference(got, hand_result_dict(step.result))
        if diff is not None:
            self.add(step, f"hand {step.record['hand']}: {diff}")

    def _match_result(self, step: Step) -> None:
        r = step.record
        forfeit = r["forfeit"]
        if (
            step.before.result is None
            and isinstance(forfeit, dict)
            and not forfeit_seat_ok(forfeit.get("seat"))
        ):
            self.add(step, f"forfeit: seat {forfeit.get('seat')!r} is not 0, 1 or null")
        elif step.after.result is None:
            self.add(step, "the match result is recorded, but the match goes on")
        first = self.forfeits[0] if self.forfeits else None
        if r["termination"] == "forfeit":
            if first is None:
                self.add(step, "a forfeit, but no fault record with retry false")
            elif isinstance(forfeit, dict):
                seats = {s.record["seat"] for s in self.forfeits}
                if forfeit.get("seat") is None and len(seats) < 2:
                    self.add(step, "both seats forfeit, but only one seat's fault is recorded")
                elif (
                    forfeit.get("seat") is not None and forfeit.get("seat") != first.record["seat"]
                ):
                    self.add(
                        step,
                        f"forfeit seat: recorded {forfeit.get('seat')}, but the fault of line "
                        f"{first.line} is seat {first.record['seat']}'s",
                    )
                for key in ("kind", "rule", "reason") if forfeit.get("seat") is not None else ():
                    if forfeit.get(key) != first.record[key]:
                        self.add(
                            step,
                            f"forfeit {key}: recorded {_value(forfeit.get(key))}, the fault of "
                            f"line {first.line} says {_value(first.record[key])}",
                        )
                        break
        elif first is not None:
            self.add(step, f"the fault of line {first.line} forfeits, but the result is no forfeit")
        result = step.after.result
        if result is not None:
            kind = forfeit.get("kind") if isinstance(forfeit, dict) else None
            expected = match_result_dict(result, step.after.hands_dealt, kind)
            # The salt is checked by _seal; how the bot processes ended is not the engine's (the
            # schema checks its shape).
            shown = {k: v for k, v in r.items() if k not in ("type", "deal_salt", "exits")}
            diff = _first_difference(shown, expected)
            if diff is not None:
                self.add(step, f"match result: {diff}")
        self._seal(step)

    def _seal(self, step: Step) -> None:
        """The header's commitment to the deal, opened by the seed and the revealed salt."""
        committed = self.timeline.header.get("deal_commitment")
        salt = step.record.get("deal_salt")
        if committed is None and salt is None:
            return  # a log of a referee that did not commit
        if not isinstance(committed, str) or not isinstance(salt, str):
            self.add(step, "deal commitment: the header's commitment or the revealed salt is lost")
            return
        try:
            opened = opens(bytes.fromhex(committed), self.timeline.seed, bytes.fromhex(salt))
        except ValueError:
            opened = False
        if not opened:
            self.add(
                step,
                "deal commitment: the seed and the revealed salt do not hash to the header's "
                "deal_commitment, so the deal was not the one committed to before play",
            )


def timeline_problems(timeline: Timeline) -> list[tuple[int, str]]:
    """Every problem of a replayed log: the checks of the module docstring."""
    checker = _Checker(timeline)
    try:
        checker.run()
    except Exception as exc:  # a tampered log must not crash the verifier; say what broke
        checker.problems.append((0, f"cannot check the records: {type(exc).__name__}: {exc}"))
    return checker.problems


def format_check(check: LogCheck, *, verbose: bool = False) -> str:
    """One line per log: ``OK  path  summary`` or ``FAIL  path  line N (record): message``."""
    if check.ok:
        return f"OK    {check.path}  {check.summary}"
    first = check.problems[0]
    more = len(check.problems) - 1
    tail = f"  (+{more} more)" if more and not verbose else ""
    lines = [f"FAIL  {check.path}  {format_problem(check, first)}{tail}"]
    if verbose:
        lines += [f"        {format_problem(check, p)}" for p in check.problems[1:]]
    return "\n".join(lines)


def format_problem(check: LogCheck, problem: tuple[int, str]) -> str:
    """``line 57 (decision): message``; line 0 is the end of the file."""
    line, message = problem
    if line == 0:
        if check.last_line == 0:
            return message
        return f"end of file (after line {check.last_line}): {message}"
    kind = check.kinds.get(line)
    return f"line {line}" + (f" ({kind})" if kind else "") + f": {message}"


def difference_warning(log: str, timeline: Timeline) -> str | None:
    """One line saying that the log does not re-adjudicate (the first difference), or None: a
    replay shows the engine's view, which such a log does not agree with."""
    # A log that stops early is shown with a note of its own (and a cut line with a warning).
    problems = [p for p in timeline_problems(timeline) if p != (0, ENDS_EARLY)]
    if not problems:
        return None
    kinds = {n: str(r["type"]) for n, r in timeline.log.records}
    check = LogCheck(Path(log), tuple(problems), kinds, timeline.last_line, "")
    return (
        f"{log}: {format_problem(check, problems[0])} (ginref verify {log} lists every difference)"
    )
