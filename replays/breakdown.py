"""What a match result is made of, in words: pure functions from the logged result to lines.

The running score of a match is hand points (R9.1); its result adds what settling each game
adds (R9.3-R9.7: game bonus, boxes, extra boxes, the shutout) and, under Hollywood (R9.8), sums
three games. :func:`result_lines` says so term by term, from the ``match_result`` record as
logged and the engine's own :func:`referee.engine.scoring.final_terms`, and says when the terms
do not add up to what the log records. A forfeit says who forfeited, why, and what it counts
as; a one-hand match says what its payoffs were when the profile transforms them (R8.7).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.engine.rules import Rules
from referee.engine.scoring import Term, final_terms
from referee.timeline import Timeline


def _seat(timeline: Timeline, seat: int, you: int | None) -> str:
    if you is not None and seat == you:
        return f"seat {seat} (you)"
    return f"seat {seat} ({timeline.label(seat)})"


def term_text(term: Term) -> str:
    """One term: ``180 hand points``, ``60 for 3 boxes × 20``, ``100 shutout (game bonus
    doubled)``."""
    n = term.points
    return {
        "hand_points": f"{n} hand points",
        "boxes_in_hand_points": f"{n} for {term.count} boxes × {term.each} (counted in the "
        "hand points as each hand was won)",
        "shutout_hand_points": f"{n} shutout (hand points doubled)",
        "game_bonus": f"{n} game bonus",
        "shutout_game_bonus": f"{n} shutout (game bonus doubled)",
        "boxes": f"{n} for {term.count} box{'' if term.count == 1 else 'es'} × {term.each} "
        "(hands won)",
        "extra_boxes": f"{n} for {term.count} extra box{'' if term.count == 1 else 'es'} × "
        f"{term.each}",
        "shutout_total": f"{n} shutout (total doubled)",
    }.get(term.what, f"{n} {term.what}")


def _pair(value: Any) -> tuple[int, int] | None:
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(type(v) is int for v in value)  # not bool
    ):
        return value[0], value[1]
    return None


def game_lines(
    timeline: Timeline, game: dict[str, Any], you: int | None = None
) -> tuple[list[str], tuple[int, int] | None]:
    """Each seat's final score of one logged game, term by term, and the totals of the terms
    (None when the record cannot be read)."""
    points = _pair(game.get("hand_points"))
    won = _pair(game.get("hands_won"))
    extra = _pair(game.get("extra_boxes"))
    winner = game.get("winner")
    if points is None or won is None or extra is None or winner not in (0, 1):
        return ["(this game's record cannot be read: ginref verify says why)"], None
    terms = final_terms(timeline.rules, points, won, extra, winner)
    totals = (sum(t.points for t in terms[0]), sum(t.points for t in terms[1]))
    lines = []
    for seat in (0, 1):
        parts = " + ".join(term_text(t) for t in terms[seat])
        lines.append(f"{_seat(timeline, seat, you)}: {parts} = {totals[seat]}")
    logged = _pair(game.get("final"))
    if logged != totals:
        shown = "unreadable" if logged is None else f"{logged[0]}–{logged[1]}"
        lines.append(
            f"(these terms come to {totals[0]}–{totals[1]}, the log says {shown}: "
            "ginref verify names the difference)"
        )
    return lines, totals


def _payoffs(timeline: Timeline) -> tuple[float, float] | None:
    """The hands' payoffs summed per seat, from the logged hand results."""
    total = [0.0, 0.0]
    for record in timeline.log.of_type("hand_result"):
        payoffs = record.get("payoffs")
        if not isinstance(payoffs, list) or len(payoffs) != 2:
            return None
        for seat in (0, 1):
            value = payoffs[seat]
            if not isinstance(value, int | float) or isinstance(value, bool):
                return None
            total[seat] += value
    return total[0], total[1]


def _payoff_line(timeline: Timeline, you: int | None) -> list[str]:
    rules: Rules = timeline.rules
    if rules.payoff == "points":
        return []
    total = _payoffs(timeline)
    if total is None:
        return []
    seats = ", ".join(f"{_seat(timeline, s, you)} {total[s]:+g}" for s in (0, 1))
    return [
        f"payoff ({rules.payoff}, R8.7): {seats}: what each seat is paid, not part of the score"
    ]


def _forfeit_lines(
    timeline: Timeline, record: dict[str, Any], final: Sequence[int], you: int | None
) -> list[str]:
    forfeit = record.get("forfeit")
    if not isinstance(forfeit, dict):
        return []
    seat = forfeit.get("seat")
    why = f"{forfeit.get('kind')} ({forfeit.get('rule')}): {forfeit.get('reason')}"
    stood = f"{final[0]}–{final[1]}" if len(final) == 2 else "?"
    if seat not in (0, 1):
        return [
            f"both seats forfeit: {why}",
            "it counts as a loss for each seat: no winner, margin 0; the hand points stand "
            f"as they were ({stood}), and no game is settled",
        ]
    return [
        f"{_seat(timeline, seat, you)} forfeits: {why}",
        f"it counts as a win for {_seat(timeline, 1 - seat, you)} and a loss for "
        f"{_seat(timeline, seat, you)}, margin {record.get('margin')}; the hand points stand "
        f"as they were ({stood}): no game bonus or boxes are settled",
    ]


def result_lines(
    timeline: Timeline,
    record: dict[str, Any],
    final: Sequence[int],
    you: int | None = None,
) -> list[str]:
    """Why the result is what it is: the forfeit, or each game's terms; then the payoffs."""
    termination = record.get("termination")
    lines: list[str] = []
    if termination == "forfeit":
        lines += _forfeit_lines(timeline, record, final, you)
    elif termination == "single_hand":
        lines.append("one hand (R9.9): the score is that hand's points; no game bonus or boxes")
    else:
        games = record.get("games")
        games = games if isinstance(games, list) else []
        totals = [0, 0]
        for number, game in enumerate(games, start=1):
            if not isinstance(game, dict):
                continue
            body, sums = game_lines(timeline, game, you)
            if len(games) > 1:
                winner = game.get("winner")
                who = _seat(timeline, winner, you) if winner in (0, 1) else "?"
                shut = ", a shutout" if game.get("shutout") else ""
                lines.append(f"game {number} ({who} wins{shut}):")
                body = ["  " + line for line in body]
            lines += body
            if sums is not None:
                totals = [totals[0] + sums[0], totals[1] + sums[1]]
        if len(games) > 1:
            lines.append(
                f"the match: the three games added up, {totals[0]}–{totals[1]} (Hollywood, R9.8)"
            )
    return lines + _payoff_line(timeline, you)
