"""``ginref replay`` in the terminal: pure functions from a replayed log to lines of text.

Nothing here prints. :func:`format_replay` yields one block of lines per log record (the
command prints them, pausing between blocks with ``--step``); every block starts with the
record's line number, which is the event number ``ginref replay --at`` takes. The words (cards,
actions, events, requests) are :mod:`replays.words`'; a hand's showdown and the match result term
by term are :mod:`replays.breakdown`'s.

A match of any number of players is shown the same way: every hand is a two-player hand, its
players named by their match seats. Two players are the case of one table. With three players
(R10.1) each deal says who deals and sits out and who plays the hand (the seat after the dealer
plays first; the other takes the dealer's part), and the scores are the three players'. With
partnerships (R10.2: team 0 is seats 0 and 2) each deal names its round and table, each decision
is tagged with its table, and after both hands of a round comes the round's team scoring (the
team whose players won more hand points scores the difference).

With a seat (``--seat N``) only what the referee sent that seat is shown: its own cards and
requests (rebuilt with :func:`referee.engine.observation.observe_seat`), the other player's
moves at its table as it saw them (a card drawn from the stock stays hidden, so does a face-down
knock discard), its own faults, and the public hand, round and match results; of a hand it sits
out (three players) the deal without the cards, and of the other table's hands (partnerships)
nothing.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from referee.engine.actions import Action, ChooseDeal, DefenderPlay, Discard, Pass
from referee.engine.observation import observe_seat, seen_events
from referee.engine.outcomes import Phase
from referee.text import safe_text
from referee.timeline import Step, Timeline
from replays.breakdown import format_showdown, result_lines, side_name
from replays.words import (
    INDENT,
    PLAIN,
    Style,
    action_text,
    card_text,
    event_text,
    gutter,
    mask_line,
    place_text,
    request_text,
    score_text,
    seat_name,
    team_name,
    think_text,
)


def format_header(timeline: Timeline, style: Style = PLAIN, seat: int | None = None) -> list[str]:
    """The match: id, rules, seed, the players (and their teams)."""
    header = timeline.header
    rules = timeline.rules
    players = rules.players
    scope = "one hand" if rules.scope == "single_hand" else f"target {rules.target}"
    extra = ", Hollywood" if rules.hollywood else ""
    size = {3: ", 3 players", 4: ", partnerships"}.get(players, "")
    head = (
        f"Match {header['match_id']}: {rules.profile_name} ({scope}{extra}{size}), "
        f"seed {timeline.seed}"
    )
    series = header.get("series", {})
    if isinstance(series, dict) and series.get("length", 1) != 1:
        head += f", match {series.get('match_number')} of {series.get('length')}"
    names = {
        r["seat"]: f"{r['name']} {r['version']}".strip()
        for r in timeline.log.of_type("connected")
        if r["seat"] in range(players)
    }
    lines = [gutter(1, style) + style.bold(head)]
    for s in range(players):
        who = f"seat {s}: {timeline.label(s)}"
        if s in names:
            who += f" ({names[s]})"
        if players == 4:
            who += f" · team {s % 2}"
        lines.append(INDENT + who + ("  <- you" if s == seat else ""))
    if players == 4:
        lines.append(INDENT + "team 0 is seats 0 and 2, team 1 seats 1 and 3 (R10.2)")
    return lines


def format_replay(
    timeline: Timeline,
    style: Style = PLAIN,
    *,
    seat: int | None = None,
    hand: int | None = None,
) -> Iterator[list[str]]:
    """One block of lines per record shown, from the header (or hand ``hand``'s deal) on."""
    yield format_header(timeline, style, seat)
    started = hand is None
    steps: Sequence[Step] = timeline.steps
    for step in steps:
        if step.kind == "header":
            continue
        if not started:
            if step.kind != "deal" or step.record["hand"] != hand:
                continue
            started = True
        block = format_step(timeline, step, style, seat)
        if block:
            yield block
    if not timeline.complete:
        yield [
            INDENT + f"(the log ends at line {timeline.last_line} without a match result: "
            "the match was cut short)"
        ]


def format_step(
    timeline: Timeline, step: Step, style: Style = PLAIN, seat: int | None = None
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


def _deal_head(timeline: Timeline, step: Step, seat: int | None) -> str:
    """A deal's first line: the hand, who deals (and sits out), and the scores before it."""
    h = step.played
    assert h is not None
    players = timeline.players
    first, second = seats = step.seats
    dealer = seat_name(timeline, seats[h.dealer], seat)
    tail = f"knock limit {h.knock_limit} · "
    scores = score_text(step.before.scores)
    # With partnerships a round is a hand at each table, dealt one after the other (R10.2).
    if players == 2:
        return f"══ Hand {h.number + 1} · dealer: {dealer} · {tail}score {scores}"
    if players == 3:
        out = seat_name(timeline, 3 - first - second, seat)
        return f"══ Hand {h.number + 1} · {out} deals and sits out · {tail}scores {scores}"
    return (
        f"══ Round {h.number // 2 + 1} · Hand {h.number + 1} at table {step.table}: "
        f"{seat_name(timeline, first, seat)} v {seat_name(timeline, second, seat)} · "
        f"dealer {dealer} · {tail}teams {scores}"
    )


def _deal(timeline: Timeline, step: Step, style: Style, seat: int | None) -> list[str]:
    h = step.played
    if h is None:
        return [gutter(step.line, style) + f"hand {step.record['hand']} is not dealt here"]
    players = timeline.players
    seats = step.seats
    if seat is not None and seat not in seats and players == 4:
        return []  # the other table's hand
    lines = ["", gutter(step.line, style) + style.bold(_deal_head(timeline, step, seat))]
    # What each player is besides its seat: its team, or its part with three players.
    parts = {3: (", plays first", ", the dealer's part")}.get(players, ("", ""))
    for hand_seat, s in enumerate(seats):
        what = f", team {s % 2}" if players == 4 else parts[hand_seat]
        if seat is None or s == seat:
            cards = mask_line(h.held(hand_seat), style)
        else:
            cards = f"{h.held(hand_seat).bit_count()} cards"
        lines.append(INDENT + f"{seat_name(timeline, s, seat)}{what}: {cards}")
    up = "none (eleven-card deal)" if h.upcard is None else card_text(h.upcard, style)
    lines.append(INDENT + f"upcard {up} · stock {h.stock_size}")
    return lines


def _decision(timeline: Timeline, step: Step, style: Style, seat: int | None) -> list[str]:
    actor = step.record["seat"]
    action = step.action
    assert action is not None
    played = step.played
    seats = step.seats
    viewer = None if seat is None or seat not in seats else seats.index(seat)
    if seat is not None and viewer is None:
        return []  # a hand this seat does not play
    tag = f"[table {step.table}] " if timeline.players == 4 else ""
    lines: list[str] = []
    left = gutter(step.line, style) + tag
    if seat is not None and actor == seat:
        first, second = request_text(step.record, observe_seat(step.before, seat), style)
        lines += [left + style.dim(first), INDENT + style.dim(second)]
        left = INDENT + tag
    events = () if played is None else played.events[step.events_from :]
    if viewer is not None:
        events = seen_events(events, viewer)
    texts = [t for t in (event_text(e, timeline.rules, style) for e in events) if t]
    if not texts or isinstance(action, ChooseDeal):
        texts = [_decision_words(step, action, style)]
    # A seat is not told how long its opponent thought.
    think = think_text(step.record, style) if seat is None or actor == seat else ""
    lines.append(left + f"{seat_name(timeline, actor, seat)} " + "; ".join(texts) + think)
    if isinstance(action, Discard) and (seat is None or actor == seat) and played is not None:
        # The actor's own cards: its observation's hand, without building the observation.
        held = played.held(seats.index(actor))
        lines.append(INDENT + "  " + style.dim("holds ") + mask_line(held, style))
    return lines


def _decision_words(step: Step, action: Action, style: Style) -> str:
    """A decision whose events say nothing (or not enough) in words of its own."""
    if isinstance(action, ChooseDeal):
        return "chooses to deal first" if action.deal else "chooses not to deal"
    if isinstance(action, Pass):
        before = step.before
        if before.phase is Phase.WALL:
            return "passes the last discard: the hand is dead"
        pile = before.hand.pile if before.hand is not None else []
        return f"passes the upcard {card_text(pile[-1], style)}" if pile else "passes"
    if isinstance(action, DefenderPlay):
        return "declares the defence: " + action_text(action, style)
    return action_text(action, style)


def _hand_result(timeline: Timeline, step: Step, style: Style, seat: int | None) -> list[str]:
    players = timeline.players
    where = f" (table {step.table})" if players == 4 else ""
    head = gutter(step.line, style) + style.bold(f"── Hand {step.record['hand']} result{where}")
    result = step.result
    if result is None:
        return [head, INDENT + "recorded, but the engine has not finished this hand"]
    lines = format_showdown(timeline, result, style, seat)
    if players == 4:
        lines = lines[:-1]  # the teams' score is the round's, on its own record
    elif players == 3:
        lines[-1] = f"  scores {score_text(result.scores_after)} (hand points of seats 0, 1, 2)"
    return [head] + [INDENT + line for line in lines]


def _round_result(timeline: Timeline, step: Step, style: Style) -> list[str]:
    """A partnership round's team scoring (R10.2)."""
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


def _match_result(timeline: Timeline, step: Step, style: Style, seat: int | None) -> list[str]:
    r = step.record
    result = step.after.result
    players = timeline.players
    final = list(r["final"]) if result is None else list(result.final)
    winner = r["winner"] if result is None else result.winner
    forfeit = r["termination"] == "forfeit"
    if winner is None:
        what = "no winner"
    else:
        what = f"{side_name(timeline, winner, seat)} wins" + (" by forfeit" if forfeit else "")
    termination = {
        "target": "target reached",
        "single_hand": "one-hand match",
        "hollywood": "all three Hollywood games settled",
    }.get(r["termination"])
    score = score_text(final) + (f" ({termination})" if termination else "")
    if forfeit:
        score = f"hand points {score_text(final)} as they stood"
    dealt = r["hands_played"]
    hands = f"{dealt} hand{'' if dealt == 1 else 's'} dealt"
    text = f"══ Result: {what}, {score}, margin {r['margin']}, {hands}"
    lines = ["", gutter(step.line, style) + style.bold(text)]
    if players > 2:  # two players' places are the winner and the other
        placings = result.placings(players) if result is not None else r.get("placings")
        if isinstance(placings, Sequence) and len(placings) == players:
            order = sorted(range(players), key=lambda s: (placings[s], s))
            places = ", ".join(
                f"{seat_name(timeline, s, seat)} {place_text(placings[s])}" for s in order
            )
            lines.append(INDENT + f"places: {places}")
    lines += [INDENT + line for line in result_lines(timeline, r, final, seat)]
    exits = r.get("exits")  # absent from the logs of earlier referees
    if isinstance(exits, list):
        for n, item in enumerate(exits[:players]):
            if isinstance(item, dict):
                how = safe_text(str(item.get("reason", "")), None)
                lines.append(INDENT + f"{seat_name(timeline, n, seat)} process: {how}")
    return lines
