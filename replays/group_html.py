"""The replay page of three players (R10.1) and partnerships (R10.2): its frames.

The page is the two-player page (:mod:`replays.html`, ``replays/replay-page.html``) with a
layout of its own for more seats, drawn by ``replays/replay-group.js``: a score board of the
players (three players) or the teams (partnerships), a table per hand in play (one with three
players, with the seat that dealt and sits out beside it; two with partnerships, table 0 above
table 1) and under them the showdown and the result.

:func:`group_frames` gives one frame per record: what happened (the text of
:mod:`replays.group_view`), the scores, and each table as it stands after the record: its hand
number, the match seats at its hand seats 0 and 1, both hands, the pile, the stock. A table
shows its hand until the next deal there, so a finished hand stays on view with its showdown.
:func:`group_frame_changes` gives each frame as what changed since the one before, as the
two-player page holds its frames: a table's hands and pile as the cards that left and came.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from referee.engine.cards import Card, card_str, cards_of
from referee.engine.hand import Hand
from referee.engine.observation import seen_events
from referee.engine.outcomes import Event, HandResult
from referee.timeline import GroupStep, GroupTimeline, collector_paused
from replays.view import format_header as format_group_header
from replays.view import format_step as format_group_step
from replays.words import GUTTER, Style

_TEXT = Style(symbols=True, color=False)
_CODES = tuple(card_str(c) for c in range(52))
_MOVES = frozenset({"discard", "draw_stock", "draw_discard", "take_upcard"})


def _cards(cards: Iterable[Card]) -> list[str]:
    return [_CODES[c] for c in cards]


def _lines(timeline: GroupTimeline, step: GroupStep, seat: int | None = None) -> list[str]:
    lines = (
        format_group_header(timeline, _TEXT)
        if step.kind == "header"
        else format_group_step(timeline, step, _TEXT, seat)
    )
    return [line[GUTTER:].rstrip() for line in lines if line.strip()]


def _table(number: int, seats: tuple[int, int], hand: Hand) -> dict[str, Any]:
    """A table as a frame shows it: the hand's cards by hand seat, in the cards' order."""
    return {
        "table": number,
        "hand": hand.number + 1,
        "seats": list(seats),
        "dealer": hand.dealer,
        "hands": [_cards(cards_of(hand.held(s))) for s in (0, 1)],
        "pile": _cards(hand.pile),
        "stock": hand.stock_size,
        "upcard": None if hand.upcard is None else _CODES[hand.upcard],
        "knockLimit": hand.knock_limit,
        "over": hand.to_act is None,
    }


Showdown = Callable[[HandResult], dict[str, Any]]


def _showdown(timeline: GroupTimeline, result: HandResult, showdown: Showdown) -> dict[str, Any]:
    """The two-player page's showdown, its hand seats named by the match seats that played
    them, and its table."""
    data = showdown(result)
    data["table"] = result.table
    data["names"] = [f"Seat {s} ({timeline.label(s)})" for s in result.seats]
    # Who won what; the scores after it are the board's (with partnerships, the round's).
    data["verdict"] = data["verdict"][:-1]
    return data


def _moved(events: Iterable[Event]) -> str | None:
    return next((_CODES[e.card] for e in events if e.card is not None and e.kind in _MOVES), None)


def group_frames(timeline: GroupTimeline, showdown: Showdown) -> list[dict[str, Any]]:
    """One frame per record: the tables, the scores and what happened, just after it.

    ``showdown`` gives a finished hand's showdown as the two-player page shows it.
    """
    frames: list[dict[str, Any]] = []
    tables: list[dict[str, Any]] = []
    for step in timeline.steps:
        kind = step.kind
        played = step.played
        if played is not None:
            table = _table(step.table, step.seats, played)
            tables = list(tables)
            if step.table < len(tables):
                tables[step.table] = table
            else:
                tables.append(table)
        events: tuple[Event, ...] = ()
        if kind == "decision" and played is not None:
            events = played.events[step.events_from :]
        actor = step.seat if kind in ("decision", "fault") else None
        public = None
        if actor is not None and events and played is not None:
            # What the other player at the table was told, shown while the actor's cards are
            # face down (a stock draw, a face-down knock discard).
            other = 1 - step.seats.index(actor)
            if seen_events(events, other) != events:
                public = _lines(timeline, step, step.seats[other])
        match = step.after
        text = _lines(timeline, step)
        over = match.result is not None and kind == "match_result"
        scores = match.result.final if over and match.result is not None else match.scores
        frames.append(
            {
                "line": step.line,
                "kind": kind,
                "hand": step.hand or None,
                "round": (step.hand - 1) // 2 + 1 if timeline.teams and step.hand else None,
                "text": text,
                "actor": actor,
                "public": public,
                "moved": _moved(events),
                "toAct": match.to_act,
                "sittingOut": None if timeline.teams or not tables else 3 - sum(tables[0]["seats"]),
                "tables": tables,
                "scores": list(scores),
                "showdown": _showdown(timeline, step.result, showdown) if step.result else None,
                "result": text if over else None,
                "over": over,
            }
        )
    return frames


def _diff(old: list[str], new: list[str], ordered: bool) -> str:
    """``-XX`` for each card gone, then ``+XX`` for each card come. The page puts a hand in the
    cards' order itself (``ordered``); a pile it keeps as it was with the new cards on top, so
    a pile that changed otherwise is given whole, every old card out and every new one in."""
    gone = [c for c in old if c not in new]
    come = [c for c in new if c not in old]
    if not ordered and [c for c in old if c not in gone] + come != new:
        gone, come = old, new
    return "".join("-" + c for c in gone) + "".join("+" + c for c in come)


def _table_change(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any] | None:
    if old is new or old == new:
        return None
    if old["hand"] != new["hand"]:
        return {"set": new}
    change = {k: v for k, v in new.items() if k not in ("hands", "pile") and old[k] != v}
    if new["hands"] != old["hands"]:
        change["handsDiff"] = [_diff(old["hands"][s], new["hands"][s], True) for s in (0, 1)]
    if new["pile"] != old["pile"]:
        change["pileDiff"] = _diff(old["pile"], new["pile"], False)
    return change


def group_frame_changes(timeline: GroupTimeline, showdown: Showdown) -> list[dict[str, Any]]:
    """Each frame of :func:`group_frames` as what changed since the one before (the first
    whole): a field is present only if its value changed, ``line`` only when it is not the
    previous line plus one, and the tables, when only their cards moved, as ``tablesDiff``:
    for each table null (unchanged), ``{"set": table}`` (a new hand) or the fields that changed,
    with the hands and the pile as the cards that left and came (``handsDiff``, ``pileDiff``)."""
    changes: list[dict[str, Any]] = []
    before: dict[str, Any] | None = None
    with collector_paused():
        frames = group_frames(timeline, showdown)
    for frame in frames:
        if before is None:
            changes.append(frame)
            before = frame
            continue
        change = {k: v for k, v in frame.items() if before[k] != v}
        if change.get("line") == before["line"] + 1:
            del change["line"]
        if "tables" in change and len(frame["tables"]) == len(before["tables"]):
            olds = before["tables"]
            change["tablesDiff"] = [
                _table_change(o, n) for o, n in zip(olds, change.pop("tables"), strict=True)
            ]
        changes.append(change)
        before = frame
    return changes
