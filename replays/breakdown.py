"""What a result is made of, in words: pure functions from a hand's or a match's result to lines.

:func:`format_showdown` says how a hand ended: the melds, layoffs and deadwood, who won how many
points, or why the hand was dead. The running score of a match is hand points (R9.1); its result
adds what settling each game adds (R9.3-R9.7: game bonus, boxes, extra boxes, the shutout) and,
under Hollywood (R9.8), sums three games. :func:`result_lines` says so term by term for each
seat, or each team with partnerships (R10.2), from the ``match_result`` record as logged and the
engine's own :func:`referee.engine.scoring.final_terms`, and says when the terms do not add up to
what the log records. A forfeit says who forfeited, why, and what it counts as (R11 with two
players, R10.1 with three, R10.2 for partnerships); a one-hand match says what its payoffs were
when the profile transforms them (R8.7).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.engine.outcomes import HandOutcome, HandResult
from referee.engine.scoring import Term, final_terms
from referee.timeline import Timeline
from replays.words import (
    PLAIN,
    Labelled,
    Style,
    card_text,
    cards_text,
    knock_discard_words,
    meld_text,
    score_text,
    seat_name,
    team_name,
)


def format_showdown(
    timeline: Labelled,
    result: HandResult,
    style: Style = PLAIN,
    you: int | None = None,
) -> list[str]:
    """A finished hand: the knocker's melds and deadwood, the defender's melds, layoffs and
    deadwood, who won how many points (or why the hand was dead), and the score (its last line).

    The hand's seats are named as the match seats that played them (with two players, the
    same): ``you`` is a match seat.
    """

    def name(hand_seat: int | None) -> str:
        return seat_name(timeline, result.match_seat(hand_seat), you)

    lines: list[str] = []
    outcome = result.outcome
    if outcome is HandOutcome.DEAD:
        reason = (result.dead_reason or "").replace("_", " ")
        lines.append(f"dead hand ({reason}): nobody scores")
        for s in (0, 1):
            lines.append(f"  {name(s)} held {cards_text(result.final_hands[s], style)}")
    else:
        knocker = result.knocker
        arrangement = result.knocker_arrangement
        assert knocker is not None and arrangement is not None
        verb = {
            HandOutcome.GIN: "gin",
            HandOutcome.BIG_GIN: "big gin",
        }.get(outcome, "knock")
        if outcome in (HandOutcome.UNDERCUT, HandOutcome.PUSH):
            verb = "knock"
        discard = (
            ""
            if result.knock_discard is None
            else f", discarding {card_text(result.knock_discard, style)} "
            f"{knock_discard_words(timeline.rules)}"
        )
        lines.append(f"{verb} by {name(knocker)}{discard}")
        melds = " ".join(meld_text(m.cards, style) for m in arrangement.melds) or "none"
        lines.append(
            f"  {name(knocker)} melds {melds} · deadwood "
            f"{cards_text(arrangement.deadwood, style)} = {result.knocker_deadwood}"
        )
        defender = result.defender
        if defender is not None:
            dmelds = " ".join(meld_text(m.cards, style) for m in defender.melds) or "none"
            lays = ", ".join(
                f"{card_text(c, style)} on {meld_text(arrangement.melds[i].cards, style)}"
                for c, i in defender.layoffs
            )
            lines.append(
                f"  {name(1 - knocker)} melds {dmelds}"
                + (f" · lays off {lays}" if lays else " · lays off nothing")
                + f" · deadwood {cards_text(defender.deadwood, style)} = {result.defender_deadwood}"
            )
        if outcome is HandOutcome.PUSH:
            lines.append("  a tie: nobody scores (push)")
        else:
            how = {
                HandOutcome.UNDERCUT: "undercut",
                HandOutcome.KNOCK: "knock",
                HandOutcome.GIN: "gin",
                HandOutcome.BIG_GIN: "big gin",
            }[outcome]
            notes = ""
            if result.doubled:
                notes += ", doubled (spade upcard)"
            if result.extra_boxes:
                notes += f", {result.extra_boxes} extra boxes"
            winner = name(result.winner)
            lines.append(f"  {winner} wins {result.points} points ({how}{notes})")
    lines.append(f"  running score {score_text(result.scores_after)} (hand points)")
    return lines


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


def sides(timeline: Timeline) -> int:
    """How many scores a match keeps: one per seat, or two with partnerships (R10.2)."""
    players = timeline.players
    return 2 if players == 4 else players


def side_name(timeline: Timeline, side: int, you: int | None = None) -> str:
    """A seat, or with partnerships a team, by its index in the scores."""
    if timeline.players == 4:
        return team_name(timeline, side)
    return seat_name(timeline, side, you)


def _ints(value: Any, size: int) -> list[int] | None:
    ok = isinstance(value, list) and len(value) == size and all(type(v) is int for v in value)
    return value if ok else None  # type is int: true and false are no scores


def game_lines(
    timeline: Timeline, game: Any, you: int | None = None
) -> tuple[list[str], list[int] | None]:
    """Each seat's (team's) final score of one logged game, term by term, and the totals of the
    terms (None when the record cannot be read)."""
    size = sides(timeline)
    fields = game if isinstance(game, dict) else {}
    points, won, extra = (_ints(fields.get(k), size) for k in ("hand_points", "hands_won",
                                                                "extra_boxes"))  # fmt: skip
    winner: Any = fields.get("winner")
    if points is None or won is None or extra is None or winner not in range(size):
        # A match of more players settles its one game: "the" game.
        which = "the" if timeline.players > 2 else "this"
        return [f"({which} game's record cannot be read: ginref verify says why)"], None
    terms = final_terms(timeline.rules, points, won, extra, winner)
    totals = [sum(t.points for t in side) for side in terms]
    lines = []
    for side, side_terms in enumerate(terms):
        parts = " + ".join(term_text(t) for t in side_terms)
        lines.append(f"{side_name(timeline, side, you)}: {parts} = {totals[side]}")
    if timeline.players == 4 and any(t.what == "boxes" for side in terms for t in side):
        lines.append("(partnerships: a box for each round a team scored, R10.2)")
    logged = _ints(fields.get("final"), size)
    if logged != totals:
        shown = "unreadable" if logged is None else score_text(logged)
        lines.append(
            f"(these terms come to {score_text(totals)}, the log says {shown}: "
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
    # Only two players play for anything but points (R8.7, R10).
    rules = timeline.rules
    if rules.payoff == "points":
        return []
    total = _payoffs(timeline)
    if total is None:
        return []
    seats = ", ".join(f"{seat_name(timeline, s, you)} {total[s]:+g}" for s in (0, 1))
    return [
        f"payoff ({rules.payoff}, R8.7): {seats}: what each seat is paid, not part of the score"
    ]


def _forfeit_lines(
    timeline: Timeline, record: dict[str, Any], final: Sequence[int], you: int | None
) -> list[str]:
    forfeit = record.get("forfeit")
    if not isinstance(forfeit, dict):
        return []
    why = f"{forfeit.get('kind')} ({forfeit.get('rule')}): {forfeit.get('reason')}"
    players = timeline.players
    if players == 2:
        # Two players name one seat, or null: both.
        seat = forfeit.get("seat")
        seats: list[Any] = [seat] if seat in (0, 1) else [0, 1]
    else:
        named = forfeit.get("seats")
        seats = named if isinstance(named, list) else [forfeit.get("seat")]
    if players == 2 and len(seats) == 2:
        who = "both seats"
    else:
        who = " and ".join(seat_name(timeline, s, you) for s in seats if isinstance(s, int))
    first = f"{who} forfeit{'s' if len(seats) == 1 else ''}: {why}"
    return [first, _counts_as(timeline, record, seats, final, you)]


def _counts_as(
    timeline: Timeline,
    record: dict[str, Any],
    seats: list[Any],
    final: Sequence[int],
    you: int | None,
) -> str:
    """What a forfeit of ``seats`` counts as: a loss for them, and for the others what the
    rules make of it (R11.2 with two players, R10.1 with three, R10.2 for partnerships)."""
    players = timeline.players
    margin = record.get("margin")
    if players == 2:
        stood = f"{final[0]}–{final[1]}" if len(final) == 2 else "?"
        if len(seats) == 2:
            return (
                "it counts as a loss for each seat: no winner, margin 0; the hand points stand "
                f"as they were ({stood}), and no game is settled"
            )
        seat = seats[0]
        return (
            f"it counts as a win for {seat_name(timeline, 1 - seat, you)} and a loss for "
            f"{seat_name(timeline, seat, you)}, margin {margin}; the hand points stand "
            f"as they were ({stood}): no game bonus or boxes are settled"
        )
    stood = f"the hand points stand as they were ({score_text(final)}): no game is settled"
    if players == 4:
        teams = sorted({s % 2 for s in seats if isinstance(s, int)})
        lost = " and ".join(team_name(timeline, t) for t in teams)
        won = f" and a win for {team_name(timeline, 1 - teams[0])}" if len(teams) == 1 else ""
        return f"it counts as a loss for {lost}{won}; {stood}"
    return (
        "last place for the seat at fault; the others are not beaten by one another (nobody "
        f"wins unless one seat is left), margin {margin}; {stood}"
    )


def result_lines(
    timeline: Timeline,
    record: dict[str, Any],
    final: Sequence[int],
    you: int | None = None,
) -> list[str]:
    """Why the result is what it is: the forfeit, or each game's terms; then the payoffs."""
    termination = record.get("termination")
    if termination == "forfeit":
        return _forfeit_lines(timeline, record, final, you) + _payoff_line(timeline, you)
    if termination == "single_hand":
        lines = ["one hand (R9.9): the score is that hand's points; no game bonus or boxes"]
        return lines + _payoff_line(timeline, you)
    games = record.get("games")
    games = games if isinstance(games, list) else []
    if timeline.players > 2 and len(games) != 1:
        games = [None]  # more players settle one game (R10): any other count cannot be read
    lines = []
    totals = [0] * sides(timeline)
    for number, game in enumerate(games, start=1):
        if not isinstance(game, dict) and timeline.players == 2:
            continue  # unreadable: ginref verify says so
        body, sums = game_lines(timeline, game, you)
        if len(games) > 1:
            winner = game.get("winner")
            who = seat_name(timeline, winner, you) if winner in (0, 1) else "?"
            shut = ", a shutout" if game.get("shutout") else ""
            lines.append(f"game {number} ({who} wins{shut}):")
            body = ["  " + line for line in body]
        lines += body
        if sums is not None:
            totals = [a + b for a, b in zip(totals, sums, strict=True)]
    if len(games) > 1:
        lines.append(f"the match: the three games added up, {score_text(totals)} (Hollywood, R9.8)")
    return lines + _payoff_line(timeline, you)
