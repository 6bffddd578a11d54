"""Cards: integer encoding, notation and parsing.

A card is an ``int`` in ``0..51``: ``suit * 13 + rank`` with ranks ``A23456789TJQK`` (0..12) and
suits ``CDHS`` (0..3). A collection of cards is often a 52-bit mask (bit ``card`` set), which makes
meld arithmetic a matter of shifts and table look-ups; the suit ``s`` occupies bits
``13*s .. 13*s+12`` so that ``(mask >> 13*s) & 0x1FFF`` is that suit's rank mask.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TypeVar

from referee.engine.errors import CardError

Card = int
_V = TypeVar("_V")

RANKS = "A23456789TJQK"
SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
NUM_CARDS = 52
FULL_MASK = (1 << NUM_CARDS) - 1
SUIT_MASK = 0x1FFF

# Pip values by rank index (R1.3): A = 1, 2..10 = pips, J Q K = 10.
RANK_VALUES: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
CARD_VALUES: tuple[int, ...] = tuple(RANK_VALUES[c % 13] for c in range(NUM_CARDS))

_SYMBOL_TO_SUIT = {
    "♣": "C",
    "♧": "C",
    "♦": "D",
    "♢": "D",
    "♥": "H",
    "♡": "H",
    "♠": "S",
    "♤": "S",
}
_CARD_RE = re.compile(r"^(10|[A2-9TJQK])([CDHS])$")


def make_card(rank: int, suit: int) -> Card:
    """The card of rank index ``rank`` (0 = ace) and suit index ``suit`` (0 = clubs)."""
    return suit * 13 + rank


def rank_of(card: Card) -> int:
    """Rank index, 0 (ace) .. 12 (king)."""
    return card % 13


def suit_of(card: Card) -> int:
    """Suit index, 0..3 for clubs, diamonds, hearts, spades."""
    return card // 13


def value_of(card: Card) -> int:
    """Deadwood value (R1.3)."""
    return CARD_VALUES[card]


def card_str(card: Card) -> str:
    """Canonical two-character notation, e.g. ``TD``."""
    if not 0 <= card < NUM_CARDS:
        raise CardError(f"not a card index: {card!r}")
    return RANKS[card % 13] + SUITS[card // 13]


def card_symbol(card: Card) -> str:
    """Notation with a suit symbol, e.g. ``10♦`` (for people, never for parsing)."""
    rank = RANKS[card % 13]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[card // 13]


def parse_card(text: str) -> Card:
    """Parse one card: ``TD``, ``10D``, ``td``, ``T♦``, ``10♦`` are all the ten of diamonds."""
    if not isinstance(text, str):
        raise CardError(f"invalid card: {text!r} (expected a string such as 'TD')")
    norm = text.strip().upper()
    norm = "".join(_SYMBOL_TO_SUIT.get(ch, ch) for ch in norm)
    match = _CARD_RE.match(norm)
    if match is None:
        raise CardError(
            f"invalid card: {text!r} (expected rank A23456789TJQK or 10, then suit CDHS "
            "or a suit symbol, e.g. 'TD', '10D', '7♥')"
        )
    rank_text, suit_text = match.groups()
    rank = 9 if rank_text == "10" else RANKS.index(rank_text)
    return make_card(rank, SUITS.index(suit_text))


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse cards separated by spaces or commas (or an iterable of card strings).

    Duplicates are rejected: a hand never holds a card twice.
    """
    items = re.split(r"[\s,]+", text.strip()) if isinstance(text, str) else list(text)
    cards: list[Card] = []
    seen: set[Card] = set()
    for item in items:
        if item == "":
            continue
        card = parse_card(item)
        if card in seen:
            raise CardError(f"duplicate card {item!r} in {text!r}")
        seen.add(card)
        cards.append(card)
    return cards


def mask_of(cards: Iterable[Card]) -> int:
    """The 52-bit mask of a collection of cards."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


class LazyTable(dict[int, _V]):
    """A look-up table over small integer keys, each entry computed on first use.

    The engine's per-suit tables have 8192 entries each; building them all at import would cost
    a bot or the command line a noticeable fraction of a second, most of it for masks a run
    never meets. A missing key is computed once and then served at plain dict speed.
    """

    __slots__ = ("_compute",)

    def __init__(self, compute: Callable[[int], _V]) -> None:
        super().__init__()
        self._compute = compute

    def __missing__(self, key: int) -> _V:
        value = self[key] = self._compute(key)
        return value


def _suit_cards(suit: int) -> LazyTable[tuple[Card, ...]]:
    return LazyTable(lambda m: tuple(13 * suit + r for r in range(13) if m >> r & 1))


_SUIT_CARDS = tuple(_suit_cards(s) for s in range(4))


def cards_of(mask: int) -> list[Card]:
    """The cards of a mask, in index order (clubs A..K, then diamonds, hearts, spades)."""
    return [
        *_SUIT_CARDS[0][mask & SUIT_MASK],
        *_SUIT_CARDS[1][mask >> 13 & SUIT_MASK],
        *_SUIT_CARDS[2][mask >> 26 & SUIT_MASK],
        *_SUIT_CARDS[3][mask >> 39 & SUIT_MASK],
    ]


def mask_value(mask: int) -> int:
    """Sum of the deadwood values of the cards of a mask."""
    total = 0
    while mask:
        low = mask & -mask
        total += CARD_VALUES[low.bit_length() - 1]
        mask ^= low
    return total


def sort_key(card: Card) -> tuple[int, int]:
    """Display order: by suit, then rank (the order of :func:`cards_of`)."""
    return (card // 13, card % 13)


def cards_str(cards: Iterable[Card]) -> str:
    """Space-separated canonical notation, in the given order."""
    return " ".join(card_str(c) for c in cards)
