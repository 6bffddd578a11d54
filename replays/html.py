"""``ginref replay LOG --html OUT.html``: the match as one self-contained web page.

:func:`replay_frames` turns a replayed log (:mod:`referee.timeline`) into one frame per
record: the hands, the discard pile, the stock, the scores, what happened, and for a finished
hand the showdown (melds, layoffs, deadwood). The page holds them as :func:`frame_changes`
gives them, each frame as what changed since the one before (a card or two, where the whole
table is some thirty cards and the text), as JSON deflated and in base64. :func:`render_html`
puts that into the page, ``replays/replay-page.html``, whose inline script inflates it with the
vendored tiny-inflate (``replays/vendor/``: synchronously, so that the page is drawn by its load
event), rebuilds the frames, draws the table with CSS cards and steps through the frames
(buttons, a slider, the arrow keys, a list of every event). The page loads nothing from
anywhere: no fonts, scripts or images.

Two players' frames hold their one table's fields; with three players (R10.1) or partnerships
(R10.2) a frame holds each table in play (``tables``: one with three players, beside it the seat
that dealt and sits out; two with partnerships, each with its hand number and the match seats
at its hand seats 0 and 1), and the page draws a score board of the players or the teams above
them. A table shows its hand until the next deal there, so a finished hand stays on view with
its showdown.

Writing a page formats each record's text once, and what the other player at the table was told
of a record only for a record that moved a card it did not see; neither needs a seat's whole
observation.

The page reads its position from the URL: ``page.html#line=57`` opens at the record of log line
57, ``&show=0`` shows only seat 0's cards (``show=0,2``, ``show=none``, ``show=all``). Each drawn
card is an element with ``data-card="TD"``; a hidden card is a ``.back`` without one.
"""

from __future__ import annotations

import base64
import html
import json
import zlib
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from importlib import resources
from typing import Any

from referee.engine.cards import Card, card_str, cards_of, sort_key
from referee.engine.hand import Hand
from referee.engine.observation import seen_events
from referee.engine.outcomes import Event, HandOutcome, HandResult
from referee.timeline import Step, Timeline, collector_paused
from replays.breakdown import format_showdown, result_lines
from replays.view import format_header, format_step
from replays.words import GUTTER, PLAIN, Style

_TEXT = Style(symbols=True, color=False)


# Each card's code by its index: a look-up rather than card_str's checks, as every frame names
# both hands and the pile.
_CODES = tuple(card_str(c) for c in range(52))


def _cards(cards: Iterable[Card]) -> list[str]:
    return [_CODES[c] for c in cards]


def _sorted(cards: Iterable[Card]) -> list[str]:
    return _cards(sorted(cards, key=sort_key))


def showdown_data(timeline: Timeline, result: HandResult) -> dict[str, Any]:
    """A finished hand as the page shows it: the melds, layoffs and deadwood of both players,
    the title and who won what."""
    text = [line.strip() for line in format_showdown(timeline, result, _TEXT)]
    arrangement = result.knocker_arrangement
    defender = result.defender
    return {
        "outcome": result.outcome.value,
        "winner": result.winner,
        "points": result.points,
        "knocker": result.knocker,
        "knockDiscard": None if result.knock_discard is None else card_str(result.knock_discard),
        "knockerMelds": [] if arrangement is None else [_cards(m.cards) for m in arrangement.melds],
        "knockerDeadwood": [] if arrangement is None else _sorted(arrangement.deadwood),
        "knockerCount": result.knocker_deadwood,
        "defenderMelds": [] if defender is None else [_cards(m.cards) for m in defender.melds],
        "layoffs": [] if defender is None else [[card_str(c), i] for c, i in defender.layoffs],
        "defenderDeadwood": [] if defender is None else _sorted(defender.deadwood),
        "defenderCount": result.defender_deadwood,
        "deadReason": result.dead_reason,
        "finalHands": [_sorted(h) for h in result.final_hands],
        "dead": result.outcome is HandOutcome.DEAD,
        "title": text[0],
        # The last lines of format_showdown: who won what, and the score.
        "verdict": text[-1:] if result.outcome is HandOutcome.DEAD else text[-2:],
    }


# The events whose card the page outlines: the discard, or the card taken.
_MOVES = frozenset({"discard", "draw_stock", "draw_discard", "take_upcard"})


def _moved(events: Iterable[Event]) -> str | None:
    """The card a record's events moved, to highlight."""
    for event in events:
        if event.card is not None and event.kind in _MOVES:
            return _CODES[event.card]
    return None


def _lines(timeline: Timeline, step: Step, seat: int | None = None) -> list[str]:
    lines = (
        format_header(timeline, _TEXT)
        if step.kind == "header"
        else format_step(timeline, step, _TEXT, seat)
    )
    return [line[GUTTER:].rstrip() for line in lines if line.strip()]


def _told_other(timeline: Timeline, step: Step, events: tuple[Event, ...]) -> list[str] | None:
    """What the other player at the table was told of a record that moved a card it did not
    see (a stock draw, a face-down knock discard): the page shows it while the actor's cards are
    face down. None for a record that hid nothing."""
    actor = step.seat
    if actor is None or not events:
        return None
    seats = step.seats
    other = 1 - seats.index(actor)
    # The record's events alone (a whole observation would copy every event of the hand);
    # what the other player sees differs from them only by the cards it was not shown.
    if seen_events(events, other) == events:
        return None
    return _lines(timeline, step, seats[other])


# A frame's fields, in the order _frame_values gives them.
FIELDS = (
    "line", "kind", "hand", "text", "actor", "dealer", "hands", "pile", "stock", "upcard",
    "knockLimit", "toAct", "moved", "scores", "games", "showdown", "result", "over", "public",
)  # fmt: skip
_LINE, _HANDS, _PILE = FIELDS.index("line"), FIELDS.index("hands"), FIELDS.index("pile")
_UNDEALT: tuple[int | None, int | None, str | None, int | None] = (None, None, None, None)


class _Table:
    """The values the frames share from one record to the next, made again only when they
    change: until then the very objects of the frame before, which frame_changes tells at once."""

    def __init__(self) -> None:
        self._number = -1
        self._dealt = _UNDEALT
        self._scores: tuple[int, ...] = ()
        self._score_list: list[int] = []
        self._game_points: tuple[tuple[int, int], ...] = ()
        self._games: list[list[int]] = []

    def dealt(self, hand: Hand) -> tuple[int | None, int | None, str | None, int | None]:
        """The hand's number (1-based), dealer, upcard and knock limit: all fixed at its deal."""
        if hand.number != self._number:
            self._number = hand.number
            upcard = hand.upcard
            self._dealt = (
                hand.number + 1,
                hand.dealer,
                None if upcard is None else _CODES[upcard],
                hand.knock_limit,
            )
        return self._dealt

    def scores(self, scores: tuple[int, ...]) -> list[int]:
        if scores != self._scores:
            self._scores = scores
            self._score_list = list(scores)
        return self._score_list

    def games(self, game_points: tuple[tuple[int, int], ...]) -> list[list[int]]:
        if game_points != self._game_points:
            self._game_points = game_points
            self._games = [list(g) for g in game_points]
        return self._games


def _game_points(match: Any) -> tuple[tuple[int, int], ...]:
    """Each Hollywood game's running scores: a two-player match's (R9.8; more players never play
    Hollywood), which no other match has."""
    points: tuple[tuple[int, int], ...] = match.board.game_points
    return points


def _frame_values(timeline: Timeline) -> Iterator[tuple[Any, ...]]:
    """Each record's frame: the values of :data:`FIELDS`, in that order, but for the hands as
    two card masks (or None) and the pile as its cards, bottom to top: compared and told apart
    at the cost of a few integers, and named by code only where a frame shows them."""
    hand: Hand | None = None
    showdown: dict[str, Any] | None = None
    table = _Table()
    for step in timeline.steps:
        kind = step.kind
        played = step.played
        if played is not None:
            if kind == "deal":
                showdown = None
            hand = played
        if kind == "hand_result" and step.result is not None:
            showdown = showdown_data(timeline, step.result)
        match = step.after
        text = _lines(timeline, step)
        seat = step.seat
        events: tuple[Event, ...] = ()
        if kind == "decision" and played is not None:
            events = played.events[step.events_from :]
        public = _told_other(timeline, step, events)
        over = match.result is not None and kind == "match_result"
        scores = match.result.final if over and match.result is not None else match.scores
        result = None
        if over:
            result = [text[0], *(result_lines(timeline, step.record, list(scores)))]
        number, dealer, upcard, limit = _UNDEALT if hand is None else table.dealt(hand)
        yield (
            step.line,
            kind,
            number,
            text,
            seat if kind in ("decision", "fault") else None,
            dealer,
            None if hand is None else (hand.held(0), hand.held(1)),
            () if hand is None else hand.pile,
            0 if hand is None else hand.stock_size,
            upcard,
            limit,
            None if hand is None else hand.to_act,
            _moved(events),
            table.scores(scores),
            table.games(_game_points(match)),
            showdown if kind == "hand_result" else None,
            result,
            over,
            public,
        )


def _hand_codes(masks: tuple[int, int] | None) -> list[list[str]] | None:
    # cards_of gives the cards' order, which is the display order (sort_key).
    return None if masks is None else [_cards(cards_of(mask)) for mask in masks]


def replay_frames(timeline: Timeline) -> list[dict[str, Any]]:
    """One frame per record: what the table (the tables) looks like just after it (the page's
    ``FRAMES``).

    Frames share the lists that did not change between them: read them, do not change them.
    """
    if timeline.players > 2:
        return _tables_frames(timeline)
    frames: list[dict[str, Any]] = []
    for values in _frame_values(timeline):
        frame = dict(zip(FIELDS, values, strict=True))
        frame["hands"] = _hand_codes(values[_HANDS])
        frame["pile"] = _cards(values[_PILE])
        frames.append(frame)
    return frames


def _pile_changes(old: tuple[Card, ...], new: tuple[Card, ...]) -> str:
    """What turns the pile ``old`` into ``new``: ``-XX`` for each card taken off, then ``+XX``
    for each card put on, bottom to top. A record puts one card on or takes one off."""
    if len(new) == len(old) + 1 and new[:-1] == old:
        return "+" + _CODES[new[-1]]
    if len(old) == len(new) + 1 and old[:-1] == new:
        return "-" + _CODES[old[-1]]
    kept = 0
    for a, b in zip(old, new, strict=False):
        if a != b:
            break
        kept += 1
    return "".join("-" + _CODES[c] for c in old[kept:]) + "".join(
        "+" + _CODES[c] for c in new[kept:]
    )


def _hand_changes(old: int, new: int) -> str:
    """What turns the hand (a card mask) ``old`` into ``new``: ``-XX`` for each card gone, then
    ``+XX`` for each card come (the page puts a hand in the cards' order itself)."""
    return _signed(old & ~new, "-") + _signed(new & ~old, "+")


def _signed(mask: int, sign: str) -> str:
    """``sign`` and the code of each card of ``mask``: a record moves a card or two, so the
    mask's bits are taken one by one."""
    out = ""
    while mask:
        low = mask & -mask
        out += sign + _CODES[low.bit_length() - 1]
        mask ^= low
    return out


def frame_changes(timeline: Timeline) -> list[dict[str, Any]]:
    """Each frame of :func:`replay_frames` as what changed since the one before: what the page
    holds, and rebuilds the frames from in its script.

    The first frame is whole. After it a field is present only if its value changed; ``line`` is
    left out when it is the previous line plus one; a change of the hands or the pile is given
    as the cards that left and came (``handsDiff``: one string per seat; ``pileDiff``), which is
    a card or two, where the whole hands and pile would be some thirty cards per record.
    """
    if timeline.players > 2:
        return _tables_changes(timeline)
    changes: list[dict[str, Any]] = []
    before: tuple[Any, ...] | None = None
    for values in _frame_values(timeline):
        if before is None:
            change = dict(zip(FIELDS, values, strict=True))
            change["hands"] = _hand_codes(values[_HANDS])
            change["pile"] = _cards(values[_PILE])
            changes.append(change)
            before = values
            continue
        # What did not change is mostly the very object of the frame before (_Table): "is"
        # settles it without a comparison.
        fields = zip(FIELDS, values, before, strict=True)
        change = {k: v for k, v, old in fields if v is not old and v != old}
        if change.get("line") == before[_LINE] + 1:
            del change["line"]
        if "pile" in change:
            change["pileDiff"] = _pile_changes(before[_PILE], change.pop("pile"))
        if "hands" in change:
            hands, old = change.pop("hands"), before[_HANDS]
            if hands is None or old is None:
                change["hands"] = _hand_codes(hands)
            else:
                change["handsDiff"] = [
                    "" if old[s] == hands[s] else _hand_changes(old[s], hands[s]) for s in (0, 1)
                ]
        changes.append(change)
        before = values
    return changes


# --- three players and partnerships: a frame holds each table in play --------------------------


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


def _table_showdown(timeline: Timeline, result: HandResult) -> dict[str, Any]:
    """A showdown with its hand seats named by the match seats that played them, and its
    table."""
    data = showdown_data(timeline, result)
    data["table"] = result.table
    data["names"] = [f"Seat {s} ({timeline.label(s)})" for s in result.seats]
    # Who won what; the scores after it are the board's (with partnerships, the round's).
    data["verdict"] = data["verdict"][:-1]
    return data


def _tables_frames(timeline: Timeline) -> list[dict[str, Any]]:
    """One frame per record of three players or partnerships: the tables, the scores and what
    happened, just after it."""
    frames: list[dict[str, Any]] = []
    tables: list[dict[str, Any]] = []
    teams = timeline.players == 4
    steps: Sequence[Step] = timeline.steps
    for step in steps:
        kind = step.kind
        played = step.played
        number = step.table
        if played is not None:
            table = _table(number, step.seats, played)
            tables = list(tables)
            if number < len(tables):
                tables[number] = table
            else:
                tables.append(table)
        events: tuple[Event, ...] = ()
        if kind == "decision" and played is not None:
            events = played.events[step.events_from :]
        match = step.after
        text = _lines(timeline, step)
        over = match.result is not None and kind == "match_result"
        scores = match.result.final if over and match.result is not None else match.scores
        frames.append(
            {
                "line": step.line,
                "kind": kind,
                "hand": step.hand or None,
                "round": (step.hand - 1) // 2 + 1 if teams and step.hand else None,
                "text": text,
                "actor": step.seat if kind in ("decision", "fault") else None,
                "public": _told_other(timeline, step, events),
                "moved": _moved(events),
                "toAct": match.to_act,
                "sittingOut": None if teams or not tables else 3 - sum(tables[0]["seats"]),
                "tables": tables,
                "scores": list(scores),
                "showdown": _table_showdown(timeline, step.result) if step.result else None,
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


def _tables_changes(timeline: Timeline) -> list[dict[str, Any]]:
    """Each frame of :func:`_tables_frames` as what changed since the one before (the first
    whole): a field is present only if its value changed, ``line`` only when it is not the
    previous line plus one, and the tables, when only their cards moved, as ``tablesDiff``:
    for each table null (unchanged), ``{"set": table}`` (a new hand) or the fields that changed,
    with the hands and the pile as the cards that left and came (``handsDiff``, ``pileDiff``)."""
    changes: list[dict[str, Any]] = []
    before: dict[str, Any] | None = None
    for frame in _tables_frames(timeline):
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


def _packed(value: Any) -> dict[str, Any]:
    """``value`` as JSON, deflated (raw, as the page's inflate reads it) and in base64 without
    its padding: ``{"deflate": ..., "size": bytes of the JSON}``."""
    # check_circular: frames hold no cycles, and checking for them is a fifth of the time.
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), check_circular=False)
    raw = text.encode("utf-8")
    packer = zlib.compressobj(_LEVEL, zlib.DEFLATED, -15)
    deflated = packer.compress(raw) + packer.flush()
    return {"deflate": base64.b64encode(deflated).decode("ascii").rstrip("="), "size": len(raw)}


# On a long match's 5 MB of changes, level 5 gives 524 KB in 0.05 s; zlib's default, 6, saves
# 8% more for twice the time, level 1 is faster still but two-thirds bigger.
_LEVEL = 5


@cache
def _resource(name: str) -> str:
    """A file of the package: the page (replay-page.html, its markup, styles and script, with
    ``{{TITLE}}``, ``{{INFLATE}}`` and ``{{DATA}}`` to fill) and the vendored decoder it runs."""
    return (resources.files("replays") / name).read_text(encoding="utf-8")


def render_html(timeline: Timeline, *, hand: int | None = None) -> str:
    """The page: the frames and the seats' names as JSON in replay-page.html's inline script.

    ``hand`` opens the page at that hand's deal (the URL's ``#line=`` still wins).
    """
    header = timeline.header
    with collector_paused():  # the frames hold no cycles either
        changes = frame_changes(timeline)
    head = format_header(timeline, PLAIN)
    # The page opens at the first deal (or hand ``hand``'s): the table, not the header.
    first = hand if hand is not None else min(timeline.hands(), default=None)
    steps: Sequence[Step] = timeline.steps
    start = next(
        (
            i
            for i, step in enumerate(steps)
            if step.kind == "deal" and step.played is not None and step.played.number + 1 == first
        ),
        0,
    )
    cut = timeline.log.truncated
    names = {r["seat"]: f"{r['name']} {r['version']}" for r in timeline.log.of_type("connected")}
    players = timeline.players
    data = {
        "matchId": header["match_id"],
        "title": head[0].strip().split("  ", 1)[-1],
        "players": players,
        "teams": players == 4,
        "seats": [{"label": timeline.label(s), "bot": names.get(s, "")} for s in range(players)],
        "complete": timeline.complete,
        "warning": None
        if cut is None
        else f"line {cut} is cut short (the referee stopped while writing it): shown up to "
        f"line {cut - 1}",
        "start": start,
        "frames": _packed(changes),
    }
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    # Inside <script>, "</" would end the element: JSON allows "<\/" for it.
    payload = payload.replace("</", "<\\/")
    title = html.escape(f"ginref replay {header['match_id']}")
    return (
        _resource("replay-page.html")
        .replace("{{TITLE}}", title)
        .replace("{{INFLATE}}", _resource("vendor/tiny-inflate.js"))
        .replace("{{DATA}}", payload)
    )
