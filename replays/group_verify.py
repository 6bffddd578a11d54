"""``ginref verify`` for three players (R10.1) and partnerships (R10.2).

A 3- or 4-player log is walked through a :class:`~referee.engine.group.GroupMatch`
(:mod:`replays.group_timeline`) and checked by :class:`GroupChecker`: every check of a two-player
log (:class:`replays.checks.RecordChecker`: decks, turns, phases, request ids, clocks, faults,
the deal's commitment) on the match seats, and besides

- each ``deal``: the match seats at its hand seats 0 and 1 and its table, as the engine seats
  them (R10.1: the dealer sits out; R10.2: opponents swap every round);
- each ``hand_result`` against the engine's, its ``seats`` and ``table`` included, and with
  partnerships each ``round_result`` (the team hand points, who scores how many, the scores
  after); a round with no record of its result before the next deal or the match result;
- the ``match_result`` against the engine's, its ``players``, ``placings`` (each seat's place)
  and ``teams`` included; a forfeit's ``seats`` against the faults recorded with retry false.
"""

from __future__ import annotations

from referee.replay_log import hand_result_dict, match_result_dict, round_result_dict
from replays.checks import RecordChecker, WalkStep, first_difference, value_text
from replays.group_timeline import GroupStep, GroupTimeline, forfeit_seats


class GroupChecker(RecordChecker):
    """The checks of a 3- or 4-player log (the module docstring)."""

    def __init__(self, timeline: GroupTimeline) -> None:
        super().__init__(timeline)
        self.group = timeline
        self.rounds = 0  # round_result records seen
        self.dealt_to: dict[int, int | None] = {}  # seat -> the hand last dealt to it (None: out)

    def _own(self, step: WalkStep) -> GroupStep:
        assert isinstance(step, GroupStep)
        return step

    def _fault_hand(self, step: WalkStep, seat: int) -> int | None:
        """The hand last dealt to the faulting seat; the one in play before the seat's first
        deal, or while it sits out."""
        dealt = self.dealt_to.get(seat)
        if dealt is not None:
            return dealt
        hand = step.before.hand
        return None if hand is None else hand.number + 1

    def _results_due(self, hand: int) -> int:
        """Partnerships: both hands of every earlier round; three players: every earlier hand."""
        return 2 * ((hand - 1) // 2) if self.group.teams else hand - 1

    def _placed(self, step: WalkStep) -> None:
        s = self._own(step)
        r = s.record
        for seat in range(self.group.players):
            if seat in s.seats:
                self.dealt_to[seat] = r["hand"]
            elif not self.group.teams:
                self.dealt_to[seat] = None  # sits this hand out
        for key, want in (("seats", list(s.seats)), ("table", s.table)):
            if r.get(key) != want:
                self.add(
                    s,
                    f"hand {r['hand']}: {key}: recorded {value_text(r.get(key))}, engine "
                    f"{value_text(want)}",
                )
                break
        due = (r["hand"] - 1) // 2 if self.group.teams else 0
        if self.rounds < due:
            self.add(s, f"round {due} has no round_result record before this deal")

    def _hand_result(self, step: WalkStep) -> None:
        self.results += 1
        r = step.record
        if step.result is None:
            self.add(step, f"hand {r['hand']} has not ended in the engine")
            return
        got = {k: v for k, v in r.items() if k != "type"}
        diff = first_difference(got, hand_result_dict(step.result, group=True))
        if diff is not None:
            self.add(step, f"hand {r['hand']}: {diff}")

    def _round_result(self, step: WalkStep) -> None:
        s = self._own(step)
        self.rounds += 1
        number = s.record.get("round")
        if s.round is None:
            self.add(s, f"round {value_text(number)} has not ended in the engine")
            return
        got = {k: v for k, v in s.record.items() if k != "type"}
        diff = first_difference(got, round_result_dict(s.round))
        if diff is not None:
            self.add(s, f"round {s.round.number + 1}: {diff}")

    def _match_result(self, step: WalkStep) -> None:
        r = step.record
        forfeit = r["forfeit"]
        players = self.group.players
        named = forfeit_seats(forfeit, players)
        if step.before.result is None and isinstance(forfeit, dict) and not named:
            seats = forfeit.get("seats", forfeit.get("seat"))
            self.add(step, f"forfeit: {value_text(seats)} names no seats of this match (0 to "
                     f"{players - 1})")  # fmt: skip
        elif step.after.result is None:
            self.add(step, "the match result is recorded, but the match goes on")
        self._forfeits(step, named)
        result = step.after.result
        if result is not None:
            kind = forfeit.get("kind") if isinstance(forfeit, dict) else None
            expected = match_result_dict(result, step.after.hands_dealt, kind, players)
            shown = {k: v for k, v in r.items() if k not in ("type", "deal_salt", "exits")}
            diff = first_difference(shown, expected)
            if diff is not None:
                self.add(step, f"match result: {diff}")
        played = len(self._own(step).after.round_results)
        if self.group.teams and self.rounds < played:
            self.add(step, f"round {played} has no round_result record before the match result")
        self._seal(step)

    def _forfeits(self, step: WalkStep, named: list[int]) -> None:
        """A forfeit's seats are those of the faults recorded with retry false."""
        r = step.record
        first = self.forfeits[0] if self.forfeits else None
        if r["termination"] != "forfeit":
            if first is not None:
                self.add(
                    step, f"the fault of line {first.line} forfeits, but the result is no forfeit"
                )
            return
        if first is None:
            self.add(step, "a forfeit, but no fault record with retry false")
            return
        faulted = sorted({s.record["seat"] for s in self.forfeits})
        if named and sorted(named) != faulted:
            self.add(
                step,
                f"forfeit seats: recorded {value_text(sorted(named))}, but the faults with retry "
                f"false are seat {' and '.join(map(str, faulted))}'s",
            )
            return
        forfeit = r["forfeit"]
        if len(faulted) != 1 or not isinstance(forfeit, dict):
            return
        for key in ("kind", "rule", "reason"):
            if forfeit.get(key) != first.record[key]:
                self.add(
                    step,
                    f"forfeit {key}: recorded {value_text(forfeit.get(key))}, the fault of line "
                    f"{first.line} says {value_text(first.record[key])}",
                )
                return


def group_problems(timeline: GroupTimeline) -> list[tuple[int, str]]:
    """Every problem of a replayed 3- or 4-player log."""
    checker = GroupChecker(timeline)
    try:
        checker.run()
    except Exception as exc:  # a tampered log must not crash the verifier; say what broke
        checker.problems.append((0, f"cannot check the records: {type(exc).__name__}: {exc}"))
    return checker.problems


def summarize_group(timeline: GroupTimeline) -> str:
    """``standard, seed 7, 3 players, 9 hands, 812 decisions: seat 2 (cat) wins 104-31-0``; with
    partnerships, ``team 0 (seats 0 and 2) wins 131-87``."""
    hands = len(timeline.hands())
    decisions = sum(1 for s in timeline.steps if s.kind == "decision")
    who = "4 players in two teams" if timeline.teams else f"{timeline.players} players"
    text = (
        f"{timeline.rules.profile_name}, seed {timeline.seed}, {who}, {hands} hand"
        f"{'' if hands == 1 else 's'}, {decisions} decisions"
    )
    end = next((s for s in timeline.steps if s.kind == "match_result"), None)
    if end is None or end.after.result is None:
        return text
    result = end.after.result
    final = "-".join(str(f) for f in result.final)
    if result.winner is None:
        return f"{text}: no winner, {final} ({result.termination.value})"
    if timeline.teams:
        mates = [s for s in range(4) if s % 2 == result.winner]
        name = f"team {result.winner} (seats {mates[0]} and {mates[1]})"
    else:
        name = f"seat {result.winner} ({timeline.label(result.winner)})"
    return f"{text}: {name} wins {final} ({result.termination.value})"
