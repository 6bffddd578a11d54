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

A frame holds each table in play (``tables``), whatever the number of players: a two-player
match is the case of one table; with three players (R10.1) one table, beside it the seat that
dealt and sits out; with partnerships (R10.2) two, each with its hand number and the match seats
at its hand seats 0 and 1. The page draws a score board of the players (or the teams), then a
felt per table, with one drawer and one set of element ids for any number of players. A table
shows its hand until the next deal there, so a finished hand stays on view with its showdown.

Writing a page formats each record's text once, and what the other player at the table was told
of a record only for a record that moved a card it did not see; neither needs a seat's whole
observation.

The page reads its position from the URL: ``page.html#line=57`` opens at the record of log line
57, ``&show=0`` shows only seat 0's cards (``show=0,2``, ``show=none``, ``show=all``). Each drawn
card is an element with ``data-card="TD"``; a hidden card is a ``.back`` without one. Seat N's
cards are in ``#handN``, table T's discard pile in ``#pileT``, side N's score in ``#sideN``.
"""

from __future__ import annotations

import base64
import html
import json
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cache
from importlib import resources
from typing import Any

from referee.engine.cards import Card, card_str, cards_of, sort_key
from referee.engine.hand import Hand
from referee.engine.observation import seen_events
from referee.engine.outcomes import Event, HandOutcome, HandResult
from referee.timeline import Step, Timeline, collector_paused
from replays.breakdown import format_showdown
from replays.view import format_header, format_step
from replays.words import GUTTER, PLAIN, Style, knock_discard_words

_TEXT = Style(symbols=True, color=False)


# Each card's code by its index: a look-up rather than card_str's checks, as every frame names
# both hands and the pile.
_CODES = tuple(card_str(c) for c in range(52))


def _cards(cards: Iterable[Card]) -> list[str]:
    return [_CODES[c] for c in cards]


def _sorted(cards: Iterable[Card]) -> list[str]:
    return _cards(sorted(cards, key=sort_key))


def showdown_data(timeline: Timeline, result: HandResult) -> dict[str, Any]:
    """A finished hand as the page shows it: its table, the melds, layoffs and deadwood of its
    two players (``names``: the match seats that played its hand seats), the title and who won
    what."""
    text = [line.strip() for line in format_showdown(timeline, result, _TEXT)]
    arrangement = result.knocker_arrangement
    defender = result.defender
    dead = result.outcome is HandOutcome.DEAD
    return {
        "table": result.table,
        "names": [f"Seat {s} ({timeline.label(s)})" for s in result.seats],
        "outcome": result.outcome.value,
        "winner": result.winner,
        "points": result.points,
        "knocker": result.knocker,
        "knockDiscard": None if result.knock_discard is None else card_str(result.knock_discard),
        "knockDiscardLies": knock_discard_words(timeline.rules),
        "knockerMelds": [] if arrangement is None else [_cards(m.cards) for m in arrangement.melds],
        "knockerDeadwood": [] if arrangement is None else _sorted(arrangement.deadwood),
        "knockerCount": result.knocker_deadwood,
        "defenderMelds": [] if defender is None else [_cards(m.cards) for m in defender.melds],
        "layoffs": [] if defender is None else [[card_str(c), i] for c, i in defender.layoffs],
        "defenderDeadwood": [] if defender is None else _sorted(defender.deadwood),
        "defenderCount": result.defender_deadwood,
        "deadReason": result.dead_reason,
        "finalHands": [_sorted(h) for h in result.final_hands],
        "dead": dead,
        "title": text[0],
        # Who won what, the line before format_showdown's last; not that last line, the running
        # score, which the page's score board shows (with partnerships it is the round's).
        "verdict": [] if dead else text[-2:-1],
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


# A frame's fields, in the order _frame_values gives them; and a table's, in _Table's order.
FIELDS = (
    "line", "kind", "hand", "round", "text", "actor", "public", "moved", "toAct", "sittingOut",
    "tables", "scores", "games", "showdown", "result", "over",
)  # fmt: skip
# What is fixed at a table's deal comes first, then what a record there may change.
TABLE_FIELDS = (
    "table", "hand", "seats", "dealer", "upcard", "knockLimit", "hands", "pile", "stock", "over",
)  # fmt: skip
_LINE, _TABLES = FIELDS.index("line"), FIELDS.index("tables")
_HAND, _HANDS, _PILE, _STOCK, _OVER = (
    TABLE_FIELDS.index(f) for f in ("hand", "hands", "pile", "stock", "over")
)


class _Table:
    """What a table's deal fixed, as a frame holds it (:data:`TABLE_FIELDS` up to ``hands``):
    made once per hand, so that the frames of a hand share the very objects, which frame_changes
    need not compare."""

    def __init__(self, number: int) -> None:
        self.number = number
        self._hand = -1
        self._dealt: tuple[Any, ...] = ()

    def dealt(self, seats: tuple[int, int], hand: Hand) -> tuple[Any, ...]:
        """The table's number, the hand's (1-based), its seats, dealer, upcard and knock limit."""
        number = hand.number
        if number != self._hand:
            self._hand = number
            upcard = None if hand.upcard is None else _CODES[hand.upcard]
            self._dealt = (self.number, number + 1, list(seats), hand.dealer, upcard,
                           hand.knock_limit)  # fmt: skip
        return self._dealt


class _Reused:
    """A value's form for the page (``shown``), made again only when the value changes: until
    then the very object of the frame before."""

    def __init__(self, shown: Callable[[Any], list[Any]]) -> None:
        self._shown = shown
        self._value: Any = None
        self._form: list[Any] = []

    def __call__(self, value: Any) -> list[Any]:
        if value != self._value:
            self._value = value
            self._form = self._shown(value)
        return self._form


def _frame_values(timeline: Timeline) -> Iterator[tuple[Any, ...]]:
    """Each record's frame: the values of :data:`FIELDS`, in that order, and each table's of
    :data:`TABLE_FIELDS`. A table shows its hand until the next deal there, so a finished
    hand stays on view with its showdown."""
    tables: tuple[tuple[Any, ...], ...] = ()
    shown: list[tuple[Any, ...]] = []  # the same, as the next record changes it
    makers: list[_Table] = []
    scores, games = _Reused(list), _Reused(lambda points: [list(g) for g in points])
    # Each Hollywood game's running scores (R9.8): only two players play Hollywood, and their
    # match alone keeps them.
    hollywood = timeline.rules.hollywood
    no_games: list[list[int]] = []
    teams = timeline.teams
    sitting_out: int | None = None
    for step in timeline.steps:
        kind = step.kind
        played = step.played
        if played is not None:
            number = step.table
            while len(makers) <= number:
                makers.append(_Table(len(makers)))
            # The table's values, but for its hands as two card masks and its pile as its
            # cards, bottom to top: compared and told apart at the cost of a few integers, and
            # named by code only where a frame shows them.
            table = (
                *makers[number].dealt(step.seats, played),
                (played.held(0), played.held(1)),
                played.pile,
                played.stock_size,
                played.to_act is None,
            )
            if number < len(shown):
                shown[number] = table
            else:
                shown.append(table)
            tables = tuple(shown)
        match = step.after
        events: tuple[Event, ...] = ()
        if kind == "decision" and played is not None:
            events = played.events[step.events_from :]
        elif kind == "deal":  # the seat that sits out this hand (R10.1), until the next deal
            sitting_out = match.sitting_out
        text = _lines(timeline, step)
        result = match.result
        over = result is not None and kind == "match_result"
        final = result.final if over and result is not None else match.scores
        dealt = step.hand
        yield (
            step.line,
            kind,
            dealt or None,
            (dealt - 1) // 2 + 1 if teams and dealt else None,
            text,
            step.seat if kind in ("decision", "fault") else None,
            _told_other(timeline, step, events),
            _moved(events),
            match.to_act,
            sitting_out,
            tables,
            scores(final),
            games(match.board.game_points) if hollywood else no_games,  # type: ignore[attr-defined]
            None if step.result is None else showdown_data(timeline, step.result),
            text if over else None,
            over,
        )


def _table_dict(values: tuple[Any, ...]) -> dict[str, Any]:
    table = dict(zip(TABLE_FIELDS, values, strict=True))
    # cards_of gives the cards' order, which is the display order (sort_key).
    table["hands"] = [_cards(cards_of(mask)) for mask in values[_HANDS]]
    table["pile"] = _cards(values[_PILE])
    return table


def _frame_dict(values: tuple[Any, ...]) -> dict[str, Any]:
    frame = dict(zip(FIELDS, values, strict=True))
    frame["tables"] = [_table_dict(t) for t in values[_TABLES]]
    return frame


def replay_frames(timeline: Timeline) -> list[dict[str, Any]]:
    """One frame per record: what the tables look like just after it (the page's ``FRAMES``):
    with two players one table, with three one (beside it the seat that dealt and sits out),
    with partnerships two, each with its hand number and the match seats at its hand seats 0
    and 1.

    Frames share the lists that did not change between them: read them, do not change them.
    """
    return [_frame_dict(values) for values in _frame_values(timeline)]


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


def _tables_change(
    olds: tuple[tuple[Any, ...], ...], news: tuple[tuple[Any, ...], ...]
) -> list[dict[str, Any] | None] | None:
    """The tables of the frame before, as many as now, as what changed: for each table None
    (nothing), ``{"set": table}`` (a new hand), or the fields that changed, with the hands and
    the pile as the cards that left and came (``handsDiff``: one string per hand seat;
    ``pileDiff``). None if no table changed."""
    diff: list[dict[str, Any] | None] = []
    changed = False
    for old, new in zip(olds, news, strict=True):
        change: dict[str, Any] | None = None
        if new is old:
            pass
        elif new[_HAND] != old[_HAND]:
            change = {"set": _table_dict(new)}
        else:
            # The same hand: what its deal fixed is the very objects of before (_Table), so
            # only its cards, its stock and whether it is over can differ.
            change = {}
            before, after = old[_HANDS], new[_HANDS]
            if before != after:
                change["handsDiff"] = [
                    "" if a == b else _hand_changes(a, b)
                    for a, b in zip(before, after, strict=True)
                ]
            if new[_PILE] != old[_PILE]:
                change["pileDiff"] = _pile_changes(old[_PILE], new[_PILE])
            if new[_STOCK] != old[_STOCK]:
                change["stock"] = new[_STOCK]
            if new[_OVER] != old[_OVER]:
                change["over"] = new[_OVER]
        if change:
            changed = True
            diff.append(change)
        else:
            diff.append(None)
    return diff if changed else None


def frame_changes(timeline: Timeline) -> list[dict[str, Any]]:
    """Each frame of :func:`replay_frames` as what changed since the one before: what the page
    holds, and rebuilds the frames from in its script.

    The first frame is whole. After it a field is present only if its value changed; ``line`` is
    left out when it is the previous line plus one; the tables, when only their cards moved, as
    ``tablesDiff``: for each table what :func:`_tables_change` gives, which for a record is a
    card or two, where the whole hands and pile would be some thirty cards.
    """
    changes: list[dict[str, Any]] = []
    before: tuple[Any, ...] | None = None
    for values in _frame_values(timeline):
        if before is None:
            changes.append(_frame_dict(values))
            before = values
            continue
        # What did not change is mostly the very object of the frame before: "is" settles it
        # without a comparison. The tables, the same object while no table changed, are told
        # apart table by table below.
        fields = zip(FIELDS, values, before, strict=True)
        change = {k: v for k, v, old in fields if v is not old and k != "tables" and v != old}
        if change.get("line") == before[_LINE] + 1:
            del change["line"]
        tables, olds = values[_TABLES], before[_TABLES]
        if tables is not olds:
            if len(tables) != len(olds):
                change["tables"] = [_table_dict(t) for t in tables]
            else:
                diff = _tables_change(olds, tables)
                if diff is not None:
                    change["tablesDiff"] = diff
        changes.append(change)
        before = values
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
    # The frames hold no cycles either. They are packed, and freed, before the collector runs
    # again: else its next collection would walk every object they are made of.
    with collector_paused():
        frames = _packed(frame_changes(timeline))
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
        "frames": frames,
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
