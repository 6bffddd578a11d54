"""A model of the opponent's concealed cards, from what it did with the face-up cards.

Every face-up card the opponent met tells something: a card it **took** from the discard pile
is (almost always) in or next to one of its melds, so the cards that meld with it are more
likely in its hand; a card it **declined** (passed on the upcard, or drew from the stock with it
on top) or **discarded** did not meld with what it held, so the cards that would have melded
with it are less likely there. :func:`holding_probabilities` turns this into a probability for
each unseen card of being in the opponent's hand, summing to the number of cards it holds that
the seat has not seen; :func:`meld_danger` reads those to say how likely a discard is to give
the opponent a meld (the discards to avoid: "unsafe" discards).

Only the hand's public events are read (:class:`History`), so the model is the same in the bot
process and in an in-process game.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from referee.engine.cards import Card

# How much a related card's chance of being held is multiplied by, per card the opponent took,
# declined or discarded. Two kinds of relation: same rank, or same suit and one rank apart
# ("close": a set or a run could use both), and same suit two ranks apart ("far": a run only,
# with the card between). Set by hand, then checked in play (docs/research.md, "A strong bot").
TAKEN_CLOSE = 2.5
TAKEN_FAR = 1.6
SHUNNED_CLOSE = 0.45
SHUNNED_FAR = 0.75
# No card is ever quite certain to be held: a taken card may be a bluff or a poor play.
MAX_PROBABILITY = 0.95


@dataclass(frozen=True, slots=True)
class History:
    """What the opponent did with face-up cards this hand (its current known cards aside)."""

    taken: tuple[Card, ...] = ()  # taken from the discard pile (the upcard included)
    declined: tuple[Card, ...] = ()  # left on top of the pile: passed, or drew from the stock
    discarded: tuple[Card, ...] = ()


def history_of_events(
    events: Iterable[tuple[int | None, str, Card | None]], opponent: int, upcard: Card | None
) -> History:
    """The opponent's :class:`History` from a hand's events ``(seat, kind, card)``, oldest
    first, with the engine's kind names (``pass``, ``take_upcard``, ``draw_stock``, ...)."""
    pile: list[Card] = [] if upcard is None else [upcard]
    taken: list[Card] = []
    declined: list[Card] = []
    discarded: list[Card] = []
    for seat, kind, card in events:
        mine = seat == opponent
        if kind in ("take_upcard", "draw_discard"):
            top = pile.pop() if pile else card
            if mine and top is not None:
                taken.append(top)
        elif kind in ("pass", "draw_stock"):
            if mine and pile:
                declined.append(pile[-1])
        elif kind in ("discard", "knock", "gin", "big_gin") and card is not None:
            pile.append(card)
            if mine:
                discarded.append(card)
    return History(tuple(taken), tuple(declined), tuple(discarded))


def _relation(a: Card, b: Card) -> str | None:
    """``close`` (same rank, or same suit one apart), ``far`` (same suit two apart) or None."""
    if a == b:
        return None
    if a % 13 == b % 13:
        return "close"
    if a // 13 == b // 13:
        gap = abs(a % 13 - b % 13)
        return "close" if gap == 1 else "far" if gap == 2 else None
    return None


def holding_probabilities(
    unseen: Sequence[Card], concealed: int, history: History
) -> dict[Card, float]:
    """For each unseen card, the chance it is one of the opponent's ``concealed`` cards (those
    it holds that the seat has not seen); the chances sum to ``concealed`` (capped per card)."""
    if not unseen or concealed <= 0:
        return {c: 0.0 for c in unseen}
    factors = {
        "taken": {"close": TAKEN_CLOSE, "far": TAKEN_FAR},
        "shunned": {"close": SHUNNED_CLOSE, "far": SHUNNED_FAR},
    }
    clues = [(x, "taken") for x in history.taken]
    clues += [(x, "shunned") for x in (*history.declined, *history.discarded)]
    weight: dict[Card, float] = {}
    for c in unseen:
        w = 1.0
        for x, how in clues:
            rel = _relation(c, x)
            if rel is not None:
                w *= factors[how][rel]
        weight[c] = w
    # Scale to the number of concealed cards; a few rounds push the excess of capped cards
    # onto the others.
    fixed: dict[Card, float] = {}
    for _ in range(4):
        free = [c for c in unseen if c not in fixed]
        room = concealed - sum(fixed.values())
        total = sum(weight[c] for c in free)
        if not free or total <= 0:
            break
        over = [c for c in free if weight[c] * room / total > MAX_PROBABILITY]
        if not over:
            fixed.update({c: weight[c] * room / total for c in free})
            break
        fixed.update({c: MAX_PROBABILITY for c in over})
    return {c: min(fixed.get(c, MAX_PROBABILITY), MAX_PROBABILITY) for c in unseen}


def meld_partners(card: Card) -> list[tuple[Card, Card]]:
    """Every pair of cards that makes a three-card meld with ``card``."""
    rank, suit = card % 13, card // 13
    same = [s * 13 + rank for s in range(4) if s != suit]
    pairs = [(same[i], same[j]) for i in range(3) for j in range(i + 1, 3)]
    base = suit * 13
    for lo in (rank - 2, rank - 1, rank):
        if lo >= 0 and lo + 2 <= 12:
            a, b = (base + r for r in range(lo, lo + 3) if r != rank)
            pairs.append((a, b))
    return pairs


def meld_danger(card: Card, held: dict[Card, float]) -> float:
    """The chance that the opponent holds two cards that make a meld with ``card``, from
    ``held``: each card's chance of being in its hand (1 for its known cards; absent: 0)."""
    miss = 1.0
    for a, b in meld_partners(card):
        miss *= 1.0 - held.get(a, 0.0) * held.get(b, 0.0)
    return 1.0 - miss
