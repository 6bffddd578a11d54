"""``ginref replay`` of three players (R10.1) and partnerships (R10.2): pure functions to text.

The same view as :mod:`replays.view` gives a two-player log, one block of lines per record,
each starting with the record's line number, with what a larger match adds:

- three players: who deals and sits out each hand and who plays it (the seat after the dealer
  plays first; the other takes the dealer's part), the two players' hands, and the three
  players' scores;
- partnerships: the teams (team 0 is seats 0 and 2, team 1 seats 1 and 3), which table each
  hand is at and who plays it there, each decision tagged with its table, and after both hands
  of a round the round's team scoring (the team whose players won more hand points scores the
  difference).

With a seat (``--seat N``) only what that seat was dealt and decided, and the other player's
moves at its own table as it saw them (:func:`referee.engine.observation.observe_seat`), are
shown; of a hand it sits out (three players) the deal without the cards, and of the other
table's hands (partnerships) nothing; the hand results, the rounds and the match result, which
its players are told, always.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from referee.engine.actions import Discard
from referee.engine.observation import observe_seat, seen_events
from referee.engine.scoring import final_terms
from referee.text import safe_text
from replays.breakdown import term_text
from replays.group_timeline import GroupStep, GroupTimeline
from replays.view import (
    INDENT,
    PLAIN,
    Style,
    action_text,
    card_text,
    event_text,
    format_showdown,
    gutter,
    mask_line,
    request_text,
    score_text,
    seat_name,
    think_text,
)


def team_name(timeline: GroupTimeline, team: int) -> str:
    """``team 0 (ann, cat)``: a team and its players' labels."""
    return f"team {team} ({timeline.label(team)}, {timeline.label(team + 2)})"


def _place(place: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(place, f"{place}th")


def format_group_header(
    timeline: GroupTimeline, style: Style = PLAIN, seat: int | None = None
) -> list[str]:
    """The match: id, rules, seed, the players (and their teams)."""
    header = timeline.header
    rules = timeline.rules
    size = "partnerships" if timeline.teams else "3 players"
    head = (
        f"Match {header['match_id']}: {rules.profile_name} (target {rules.target}, {size}), "
        f"seed {timeline.seed}"
    )
    series = header.get("series", {})
    if isinstance(series, dict) and series.get("length", 1) != 1:
        head += f", match {series.get('match_number')} of {series.get('length')}"
    names = {
        r["seat"]: f"{r['name']} {r['version']}".strip() for r in timeline.log.of_type("connected")
    }
    lines = [gutter(1, style) + style.bold(head)]
    for s in range(timeline.players):
        who = f"seat {s}: {timeline.label(s)}"
        if s in names:
            who += f" ({names[s]})"
        if timeline.teams:
            who += f" · team {timeline.team_of(s)}"
        lines.append(INDENT + who + ("  <- you" if s == seat else ""))
    if timeline.teams:
        lines.append(INDENT + "team 0 is seats 0 and 2, team 1 seats 1 and 3 (R10.2)")
    return lines


def format_group_replay(
    timeline: GroupTimeline,
    style: Style = PLAIN,
    *,
    seat: int | None = None,
    hand: int | None = None,
) -> Iterator[list[str]]:
    """One block of lines per record shown, from the header (or hand ``hand``'s deal) on."""
    yield format_group_header(timeline, style, seat)
    started = hand is None
    for step in timeline.steps:
        if step.kind == "header":
            continue
        if not started:
            if step.kind != "deal" or step.record["hand"] != hand:
                continue
            started = True
        block = format_group_step(timeline, step, style, seat)
        if block:
            yield block
    if not timeline.complete:
        yield [
            INDENT + f"(the log ends at line {timeline.last_line} without a match result: "
            "the match was cut short)"
        ]


def format_group_step(
    timeline: GroupTimeline, step: GroupStep, style: Style = PLAIN, seat: int | None = None
) -> list[str]:
    """The lines of one record; empty when ``seat`` was not sent anything about it."""
    kind = step.kind
    r = step.record
    left = gutter(step.line, style)
    if kind == "connected":
        text = f"seat {r['seat']} connected: {r['name']} {r['version']}"
        return [] if seat is not None else [left + text]
    if kind == "connection_rejected":
        who = "unknown token" if r["seat"] is None else f"seat {r['seat']}"
        text = f"connection refused ({who}): {r['code']} ({r['rule']}): {r['reason']}"
        return [] if seat is not None else [left + text]
    if kind == "fault":
        if seat is not None and r["seat"] != seat:
            return []
        then = "a new request follows" if r["retry"] else "the seat forfeits the match"
        text = (
            f"FAULT {seat_name(timeline, r['seat'], seat)}: {r['kind']} ({r['rule']}): "
            f"{r['reason']} -- {then}"
        )
        return [left + style.bold(text)]
    if kind == "deal":
        return _deal(timeline, step, style, seat)
    if kind == "decision":
        return _decision(timeline, step, style, seat)
    if kind == "hand_result":
        return _hand_result(timeline, step, style, seat)
    if kind == "round_result":
        return _round_result(timeline, step, style)
    if kind == "match_result":
        return _match_result(timeline, step, style, seat)
    return []


def _table_tag(timeline: GroupTimeline, step: GroupStep) -> str:
    return f"[table {step.table}] " if timeline.teams else ""


def _deal(timeline: GroupTimeline, step: GroupStep, style: Style, seat: int | None) -> list[str]:
    h = step.played
    if h is None:
        return [gutter(step.line, style) + f"hand {step.record['hand']} is not dealt here"]
    if seat is not None and seat not in step.seats and timeline.teams:
        return []  # the other table's hand
    first, second = step.seats
    scores = score_text(step.before.scores)
    if timeline.teams:
        head = (
            f"══ Round {step.after.round + 1} · Hand {h.number + 1} at table {step.table}: "
            f"{seat_name(timeline, first, seat)} v {seat_name(timeline, second, seat)} · dealer "
            f"{seat_name(timeline, step.seats[h.dealer], seat)} · knock limit {h.knock_limit} "
            f"· teams {scores}"
        )
    else:
        out = 3 - first - second
        head = (
            f"══ Hand {h.number + 1} · {seat_name(timeline, out, seat)} deals and sits out · "
            f"knock limit {h.knock_limit} · scores {scores}"
        )
    lines = ["", gutter(step.line, style) + style.bold(head)]
    parts = ("plays first", "the dealer's part")
    for hand_seat, s in enumerate(step.seats):
        who = seat_name(timeline, s, seat)
        what = f"team {timeline.team_of(s)}" if timeline.teams else parts[hand_seat]
        if seat is None or s == seat:
            cards = mask_line(h.held(hand_seat), style)
        else:
            cards = f"{h.held(hand_seat).bit_count()} cards"
        lines.append(INDENT + f"{who}, {what}: {cards}")
    up = "none (eleven-card deal)" if h.upcard is None else card_text(h.upcard, style)
    lines.append(INDENT + f"upcard {up} · stock {h.stock_size}")
    return lines


def _decision(
    timeline: GroupTimeline, step: GroupStep, style: Style, seat: int | None
) -> list[str]:
    actor = step.record["seat"]
    action = step.action
    played = step.played
    assert action is not None and played is not None
    viewer = None if seat is None else step.hand_seat(seat)
    if seat is not None and viewer is None:
        return []  # a hand this seat does not play
    lines: list[str] = []
    left = gutter(step.line, style) + _table_tag(timeline, step)
    if seat is not None and actor == seat:
        asked = observe_seat(step.before, seat)
        first, second = request_text(step, asked, style)
        lines += [left + style.dim(first), INDENT + style.dim(second)]
        left = INDENT + _table_tag(timeline, step)
    events = played.events[step.events_from :]
    if viewer is not None:
        events = seen_events(events, viewer)
    texts = [t for t in (event_text(e, style) for e in events) if t] or [action_text(action)]
    think = think_text(step.record, style) if seat is None or actor == seat else ""
    lines.append(left + f"{seat_name(timeline, actor, seat)} " + "; ".join(texts) + think)
    if isinstance(action, Discard) and (seat is None or actor == seat):
        held = played.held(step.seats.index(actor))
        lines.append(INDENT + "  " + style.dim("holds ") + mask_line(held, style))
    return lines


def _hand_result(
    timeline: GroupTimeline, step: GroupStep, style: Style, seat: int | None
) -> list[str]:
    number = step.record["hand"]
    where = f" (table {step.table})" if timeline.teams else ""
    head = gutter(step.line, style) + style.bold(f"── Hand {number} result{where}")
    result = step.result
    if result is None:
        return [head, INDENT + "recorded, but the engine has not finished this hand"]
    lines = format_showdown(timeline, result, style, seat)
    if timeline.teams:
        lines = lines[:-1]  # the teams' score is the round's, on its own record
    else:
        lines[-1] = f"  scores {score_text(result.scores_after)} (hand points of seats 0, 1, 2)"
    return [head] + [INDENT + line for line in lines]


def _round_result(timeline: GroupTimeline, step: GroupStep, style: Style) -> list[str]:
    done = step.round
    number = step.record.get("round", "?")
    head = gutter(step.line, style) + style.bold(f"── Round {number} result")
    if done is None:
        return [head, INDENT + "recorded, but the engine has not finished this round"]
    won = done.won
    hands = f"hands {done.hands[0] + 1} and {done.hands[1] + 1}"
    if done.winner is None:
        what = f"both teams won {won[0]} hand points ({hands}): nobody scores"
    else:
        what = (
            f"team 0 won {won[0]} hand points, team 1 {won[1]} ({hands}): "
            f"{team_name(timeline, done.winner)} scores {done.points}"
        )
    return [head + " · " + what, INDENT + f"teams {score_text(done.scores_after)}"]


def _match_result(
    timeline: GroupTimeline, step: GroupStep, style: Style, seat: int | None
) -> list[str]:
    r = step.record
    result = step.after.result
    final = list(r["final"]) if result is None else list(result.final)
    winner = r["winner"] if result is None else result.winner
    forfeit = r["termination"] == "forfeit"
    if winner is None:
        what = "no winner"
    else:
        name = team_name(timeline, winner) if timeline.teams else seat_name(timeline, winner, seat)
        what = f"{name} wins" + (" by forfeit" if forfeit else "")
    reason = {"target": " (target reached)"}.get(r["termination"], "")
    score = f"hand points {score_text(final)} as they stood" if forfeit else score_text(final)
    dealt = r["hands_played"]
    text = (
        f"══ Result: {what}, {score}{reason}, margin {r['margin']}, {dealt} "
        f"hand{'' if dealt == 1 else 's'} dealt"
    )
    lines = ["", gutter(step.line, style) + style.bold(text)]
    placings = result.placings(timeline.players) if result is not None else r.get("placings")
    if isinstance(placings, Sequence) and len(placings) == timeline.players:
        order = sorted(range(timeline.players), key=lambda s: (placings[s], s))
        places = ", ".join(f"{seat_name(timeline, s, seat)} {_place(placings[s])}" for s in order)
        lines.append(INDENT + f"places: {places}")
    body = _forfeit_lines(timeline, r, final, seat) if forfeit else _game_lines(timeline, r, seat)
    lines += [INDENT + line for line in body]
    exits = r.get("exits")
    if isinstance(exits, list):
        for n, item in enumerate(exits[: timeline.players]):
            if isinstance(item, dict):
                how = safe_text(str(item.get("reason", "")), None)
                lines.append(INDENT + f"{seat_name(timeline, n, seat)} process: {how}")
    return lines


def _side(timeline: GroupTimeline, side: int, seat: int | None) -> str:
    """A seat (three players) or a team (partnerships), by its index in the scores."""
    return team_name(timeline, side) if timeline.teams else seat_name(timeline, side, seat)


def _ints(value: Any, size: int) -> list[int] | None:
    ok = isinstance(value, list) and len(value) == size and all(type(v) is int for v in value)
    return value if ok else None


def _game_lines(timeline: GroupTimeline, record: dict[str, Any], seat: int | None) -> list[str]:
    """Each seat's (team's) final score of the settled game, term by term (R9.3-R9.6)."""
    games = record.get("games")
    game = games[0] if isinstance(games, list) and len(games) == 1 else None
    size = 2 if timeline.teams else 3
    if not isinstance(game, dict):
        return ["(the game's record cannot be read: ginref verify says why)"]
    keys = ("hand_points", "hands_won", "extra_boxes")
    points, won, extra = (_ints(game.get(key), size) for key in keys)
    winner = game.get("winner")
    if points is None or won is None or extra is None or type(winner) is not int:
        return ["(the game's record cannot be read: ginref verify says why)"]
    if not 0 <= winner < size:
        return ["(the game's record cannot be read: ginref verify says why)"]
    terms = final_terms(timeline.rules, points, won, extra, winner)
    totals = [sum(t.points for t in side) for side in terms]
    lines = []
    for side, side_terms in enumerate(terms):
        parts = " + ".join(term_text(t) for t in side_terms)
        lines.append(f"{_side(timeline, side, seat)}: {parts} = {totals[side]}")
    if timeline.teams and any(t.what == "boxes" for side in terms for t in side):
        lines.append("(partnerships: a box for each round a team scored, R10.2)")
    if _ints(game.get("final"), size) != totals:
        lines.append(
            f"(these terms come to {score_text(totals)}, the log says "
            f"{score_text(game.get('final') or [])}: ginref verify names the difference)"
        )
    return lines


def _forfeit_lines(
    timeline: GroupTimeline, record: dict[str, Any], final: Sequence[int], seat: int | None
) -> list[str]:
    forfeit = record.get("forfeit")
    if not isinstance(forfeit, dict):
        return []
    named = forfeit.get("seats")
    seats = named if isinstance(named, list) else [forfeit.get("seat")]
    who = " and ".join(seat_name(timeline, s, seat) for s in seats if isinstance(s, int))
    why = f"{forfeit.get('kind')} ({forfeit.get('rule')}): {forfeit.get('reason')}"
    stood = f"the hand points stand as they were ({score_text(final)}): no game is settled"
    if timeline.teams:
        teams = sorted({s % 2 for s in seats if isinstance(s, int)})
        lost = " and ".join(team_name(timeline, t) for t in teams)
        return [
            f"{who} forfeit{'s' if len(seats) == 1 else ''}: {why}",
            f"it counts as a loss for {lost}"
            + (f" and a win for {team_name(timeline, 1 - teams[0])}" if len(teams) == 1 else "")
            + f"; {stood}",
        ]
    return [
        f"{who} forfeit{'s' if len(seats) == 1 else ''}: {why}",
        "last place for the seat at fault; the others are not beaten by one another (nobody "
        f"wins unless one seat is left), margin {record.get('margin')}; {stood}",
    ]
