"""The words of ``ginref replay``'s text: cards, melds, actions, events, requests and seats.

Cards are shown with suit symbols (``10♦``) or letters (``TD``), red suits in red when colour is
on (:class:`Style`); each record's lines start with its line number in a column of their own
(:func:`gutter`). :mod:`replays.view` writes a whole log with these words, :mod:`replays.position`
one position, :mod:`replays.html` the page's texts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from referee.engine.actions import (
    Action,
    BigGin,
    ChooseDeal,
    DeclareDead,
    DefenderPlay,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    Pass,
)
from referee.engine.cards import (
    NUM_CARDS,
    RANKS,
    SUIT_MASK,
    SUIT_SYMBOLS,
    SUITS,
    Card,
    LazyTable,
    mask_of,
    sort_key,
)
from referee.engine.melds import min_deadwood
from referee.engine.observation import Observation
from referee.engine.outcomes import Event, Phase
from referee.engine.rules import Rules


class Labelled(Protocol):
    """What names a seat: a replayed log's labels, from its header; and the rules it was
    played under, which some words depend on (a knock discard face up or down)."""

    @property
    def rules(self) -> Rules: ...

    def label(self, seat: int) -> str:
        """A seat's label (``greedy_bot``), or ``seat N``."""
        ...


def knock_discard_words(rules: Rules) -> str:
    """How the knock discard lies until the showdown (R5.2): ``face down``, or ``face up``."""
    return "face up" if rules.knock_discard == "face_up" else "face down"


_RED = "\x1b[31m"
_BOLD = "\x1b[1m"
_DIM = "\x1b[2m"
_RESET = "\x1b[0m"
GUTTER = 7  # width of the line-number column, spaces included


@dataclass(frozen=True, slots=True)
class Style:
    """How cards look: suit symbols or letters; ANSI colours or none."""

    symbols: bool = True
    color: bool = False

    def bold(self, text: str) -> str:
        """``text`` in bold when colour is on."""
        return f"{_BOLD}{text}{_RESET}" if self.color else text

    def dim(self, text: str) -> str:
        """``text`` dimmed when colour is on."""
        return f"{_DIM}{text}{_RESET}" if self.color else text


PLAIN = Style(symbols=False, color=False)


def _one_card_text(card: Card, symbols: bool, color: bool) -> str:
    rank, suit = RANKS[card % 13], card // 13
    if not symbols:
        return rank + SUITS[suit]
    text = ("10" if rank == "T" else rank) + SUIT_SYMBOLS[suit]
    if color and suit in (1, 2):
        return f"{_RED}{text}{_RESET}"
    return text


def _suit_table(texts: tuple[str, ...], suit: int) -> LazyTable[str]:
    cards = texts[13 * suit : 13 * suit + 13]
    return LazyTable(lambda bits: " ".join(cards[r] for r in range(13) if bits >> r & 1))


# Every card's text by (symbols, color), then by card; and per suit, the text of its cards by
# their 13-bit rank mask. Looked up, not formatted: a long match's replay names a million cards.
_CARD_TEXTS = {
    (symbols, color): tuple(_one_card_text(card, symbols, color) for card in range(NUM_CARDS))
    for symbols in (False, True)
    for color in (False, True)
}
_SUIT_TEXTS = {
    key: tuple(_suit_table(texts, s) for s in range(4)) for key, texts in _CARD_TEXTS.items()
}


def card_text(card: Card, style: Style = PLAIN) -> str:
    """One card: ``10♦`` (red when coloured) or ``TD``."""
    return _CARD_TEXTS[style.symbols, style.color][card]


def _mask_text(mask: int, style: Style) -> str:
    clubs, diamonds, hearts, spades = _SUIT_TEXTS[style.symbols, style.color]
    suits = (
        clubs[mask & SUIT_MASK],
        diamonds[mask >> 13 & SUIT_MASK],
        hearts[mask >> 26 & SUIT_MASK],
        spades[mask >> 39 & SUIT_MASK],
    )
    return "  ".join(suit for suit in suits if suit) or "-"


def cards_text(cards: Iterable[Card], style: Style = PLAIN, *, sort: bool = True) -> str:
    """Cards separated by spaces; sorted by suit then rank, two spaces between suits."""
    if not sort:
        texts = _CARD_TEXTS[style.symbols, style.color]
        return " ".join(texts[card] for card in cards) or "-"
    return _mask_text(mask_of(cards), style)


def meld_text(cards: Sequence[Card], style: Style = PLAIN) -> str:
    """A meld in brackets, in its own order: ``[7♦ 7♥ 7♠]``."""
    return "[" + " ".join(card_text(c, style) for c in cards) + "]"


def action_text(action: Action, style: Style = PLAIN) -> str:
    """An action in words: ``discard 10♦``, ``knock with K♠``, ``draw stock``."""
    if isinstance(action, Discard):
        return f"discard {card_text(action.card, style)}"
    if isinstance(action, Knock):
        melds = (
            ""
            if action.melds is None
            else ": " + " ".join(meld_text(m, style) for m in action.melds)
        )
        return f"knock with {card_text(action.card, style)}{melds}"
    if isinstance(action, BigGin):
        melds = (
            ""
            if action.melds is None
            else ": " + " ".join(meld_text(m, style) for m in action.melds)
        )
        return "big gin" + melds
    if isinstance(action, DefenderPlay):
        melds = " ".join(meld_text(m, style) for m in action.melds) or "no melds"
        lay = " ".join(card_text(c, style) for c in action.layoffs) or "none"
        return f"defend: {melds}; lay off {lay}"
    if isinstance(action, ChooseDeal):
        return "deal first" if action.deal else "let the other seat deal"
    if isinstance(action, DrawStock | DrawDiscard | Pass | DeclareDead):
        return str(action)
    return str(action)  # pragma: no cover (every kind is handled above)


def legal_text(actions: Sequence[Action], style: Style = PLAIN) -> str:
    """The legal actions of a request, discards and knocks grouped."""
    discards = [a.card for a in actions if isinstance(a, Discard)]
    knocks = [a.card for a in actions if isinstance(a, Knock)]
    parts: list[str] = []
    if discards:
        parts.append(f"discard any of {len(discards)}")
    if knocks:
        parts.append(
            "knock with " + " ".join(card_text(c, style) for c in sorted(knocks, key=sort_key))
        )
    parts += [action_text(a, style) for a in actions if not isinstance(a, Discard | Knock)]
    return ", ".join(parts) or "-"


def seat_name(timeline: Labelled, seat: int | None, you: int | None = None) -> str:
    """``seat 0 (greedy_bot)``; ``you`` for the viewing seat."""
    if seat is None:
        return "nobody"
    if you is not None and seat == you:
        return f"seat {seat} (you)"
    return f"seat {seat} ({timeline.label(seat)})"


def team_name(timeline: Labelled, team: int) -> str:
    """``team 0 (ann, cat)``: a partnership (R10.2) and its players' labels."""
    return f"team {team} ({timeline.label(team)}, {timeline.label(team + 2)})"


def place_text(place: int) -> str:
    """``1st``, ``2nd``: a seat's place in a match of more than two players."""
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(place, f"{place}th")


def gutter(line: int, style: Style) -> str:
    """The line-number column: the record's line, dimmed, right-aligned."""
    return style.dim(f"{line:>{GUTTER - 2}}") + "  "


INDENT = " " * GUTTER


def phase_words(phase: Phase) -> str:
    """A phase in words: ``upcard offer``."""
    return {
        Phase.CHOOSE_DEALER: "choice of dealer",
        Phase.UPCARD_OFFER: "upcard offer",
        Phase.DRAW: "draw",
        Phase.DISCARD: "discard",
        Phase.WALL: "the wall (two cards left)",
        Phase.DEFENDER: "defence",
        Phase.MATCH_OVER: "over",
    }[phase]


def event_text(event: Event, rules: Rules, style: Style = PLAIN) -> str | None:
    """An engine event in words (its card is None when hidden from the viewer)."""
    card = None if event.card is None else card_text(event.card, style)
    kind = event.kind
    if kind == "take_upcard":
        return f"takes the upcard {card}"
    if kind == "draw_discard":
        return f"takes the discard {card}"
    if kind == "draw_stock":
        return f"draws {card} from the stock" if card else "draws from the stock"
    if kind == "discard":
        return f"discards {card}"
    if kind == "pass":
        return "passes"
    if kind == "declare_dead":
        return "declares the hand dead"
    if kind in ("knock", "gin", "big_gin"):
        verb = {"knock": "knocks", "gin": "goes gin", "big_gin": "declares big gin"}[kind]
        if kind == "big_gin" and card is None:
            return verb
        lies = knock_discard_words(rules)
        return f"{verb}, discarding {card} {lies}" if card else f"{verb} (discard {lies})"
    if kind == "defender_play":
        # R6.6: under declared_melds the referee lays the defender's deadwood off itself.
        only = rules.defender_play == "declared_melds"
        return "declares melds" if only else "declares melds and layoffs"
    return None  # deal, hand_over: shown by the deal and result records


def think_text(record: dict[str, Any], style: Style) -> str:
    """A decision's think time, ``  (1.5 ms)``, or nothing."""
    think = record.get("think_ms")
    if not isinstance(think, int | float) or isinstance(think, bool):
        return ""
    return style.dim(f"  ({think:.1f} ms)")


def hand_line(cards: Sequence[Card], style: Style) -> str:
    """A hand and its minimum deadwood."""
    return mask_line(mask_of(cards), style)


def mask_line(mask: int, style: Style) -> str:
    """A hand given as a card mask, and its minimum deadwood."""
    return f"{_mask_text(mask, style)}  (deadwood {min_deadwood(mask)})"


def score_text(scores: Sequence[int]) -> str:
    """Scores by seat (or team): ``120–35``, ``50–50–95``."""
    return "–".join(str(s) for s in scores)


def request_text(record: dict[str, Any], obs: Observation, style: Style = PLAIN) -> list[str]:
    """The request a seat was sent, in two lines: phase and legal actions; hand, pile, stock."""
    rid = record.get("request_id", "?")
    pile = obs.discard_pile
    count = "1 card" if len(pile) == 1 else f"{len(pile)} cards"
    top = f"{card_text(pile[-1], style)} on top ({count})" if pile else "empty"
    return [
        f"request {rid} ({phase_words(obs.phase)}) · legal: {legal_text(obs.legal_actions, style)}",
        f"  hand {cards_text(obs.hand, style)} · discard pile {top} · stock {obs.stock_size}",
    ]


def can_print(text: str, encoding: str | None) -> bool:
    """Whether a stream in ``encoding`` (None: ASCII) can show ``text``."""
    try:
        text.encode(encoding or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True
