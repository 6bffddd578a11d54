"""Layoffs (R6): what the defender may lay off on the knocker's melds, and how well.

The referee's optimum (R6.6, every way of laying off, chains included), the Neller framework's
greedy play (after melds the defender declares, ``defender_play = declared_melds``, or that the
referee picks, ``auto_greedy``), and the check of a play a defender declares (``defender_play =
declared``). Pure functions over card masks, like :mod:`referee.engine.melds`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from referee.engine.cards import CARD_VALUES, Card, card_str, cards_of, mask_of
from referee.engine.errors import CardError
from referee.engine.melds import (
    Arrangement,
    Meld,
    MeldKind,
    all_arrangements,
    best_arrangement,
    is_meld,
    min_deadwood,
)


@dataclass(frozen=True, slots=True)
class DefenderPlay:
    """The defender's final partition (R6.1): own melds, layoffs, deadwood."""

    melds: tuple[Meld, ...]
    layoffs: tuple[tuple[Card, int], ...]  # (card, index of the knocker meld it extends)
    deadwood: tuple[Card, ...]

    @property
    def deadwood_count(self) -> int:
        """D of R6.4."""
        return sum(CARD_VALUES[c] for c in self.deadwood)


def _layoff_targets(knocker: Sequence[Meld], pool: int) -> dict[Card, list[int]]:
    """For each card of ``pool``, the knocker melds it could extend with a chain inside ``pool``."""
    targets: dict[Card, list[int]] = {}
    for i, meld in enumerate(knocker):
        if meld.kind is MeldKind.SET:
            if len(meld.cards) == 3:
                rank = meld.cards[0] % 13
                for s in range(4):
                    card = 13 * s + rank
                    if pool >> card & 1 and not meld.mask >> card & 1:
                        targets.setdefault(card, []).append(i)
            continue
        lo, hi = meld.cards[0], meld.cards[-1]
        card = lo - 1
        while card % 13 != 12 and card >= 0 and pool >> card & 1:
            targets.setdefault(card, []).append(i)
            card -= 1
        card = hi + 1
        while card % 13 != 0 and card < 52 and pool >> card & 1:
            targets.setdefault(card, []).append(i)
            card += 1
    return targets


def layoff_assignment(knocker: Sequence[Meld], layoffs: int) -> list[tuple[Card, int]] | None:
    """Assign every card of ``layoffs`` to a knocker meld it extends (R6.5), or ``None``.

    Feasible iff each 3-set receives at most its missing fourth card, 4-sets receive nothing, and
    each run with its cards forms one run.
    """
    targets = _layoff_targets(knocker, layoffs)
    cards = cards_of(layoffs)
    if any(c not in targets for c in cards):
        return None
    assigned = [0] * len(knocker)
    choice: list[tuple[Card, int]] = []

    def ok() -> bool:
        for i, meld in enumerate(knocker):
            if assigned[i] and not is_meld(meld.mask | assigned[i]):
                return False
        return True

    def rec(k: int) -> bool:
        if k == len(cards):
            return ok()
        card = cards[k]
        for i in targets[card]:
            assigned[i] |= 1 << card
            choice.append((card, i))
            if rec(k + 1):
                return True
            choice.pop()
            assigned[i] ^= 1 << card
        return False

    return choice if rec(0) else None


def defender_optimum(defender: int | Iterable[Card], knocker: Sequence[Meld]) -> DefenderPlay:
    """The defender's minimum deadwood with optimal melds and chained layoffs (R6.6, A.3).

    ``knocker`` is empty for gin / big gin (no layoffs, R6.3a).
    """
    mask = defender if isinstance(defender, int) else mask_of(defender)
    candidates = sorted(_layoff_targets(knocker, mask)) if knocker else []
    best_val = min_deadwood(mask)
    best_x = 0
    best_assign: list[tuple[Card, int]] = []
    if candidates:
        for bits in range(1, 1 << len(candidates)):
            x = 0
            for k, card in enumerate(candidates):
                if bits >> k & 1:
                    x |= 1 << card
            # A layoff can only help if what it removes is worth more than the best we have
            # lost so far; cheap bound first, the exact feasibility test second.
            v = min_deadwood(mask & ~x)
            if v >= best_val:
                continue
            assign = layoff_assignment(knocker, x)
            if assign is None:
                continue
            best_val, best_x, best_assign = v, x, assign
    own = best_arrangement(mask & ~best_x)
    return DefenderPlay(own.melds, tuple(sorted(best_assign)), own.deadwood)


def defender_greedy(
    defender: int | Iterable[Card],
    knocker: Sequence[Meld],
    order: Sequence[Meld] | None = None,
) -> DefenderPlay:
    """First-fit layoffs after the defender's own melds, with the own melds that do best.

    ``order`` given (``declared_melds``): the framework's sweep (:func:`framework_layoffs`) over
    the knocker's melds in that order; the result is the referee's proposal to a defender who
    declares its melds. ``None`` (``auto_greedy``, how earlier logs were scored): cards are laid
    off in card order, each on the first meld of the arrangement's own order (sets before runs)
    that takes it, repeating until none fits. Either placement can miss the optimum when a card
    fits two melds (E13); E11 credits the defender with breaking a meld to lay its cards off.
    """
    mask = defender if isinstance(defender, int) else mask_of(defender)
    best: DefenderPlay | None = None
    arrangements = all_arrangements(mask) if knocker else iter([best_arrangement(mask)])
    for own in arrangements:
        if order is None:
            play = _greedy_layoffs(own, knocker)
        else:
            play = framework_layoffs(own, knocker, order)
        if best is None or play.deadwood_count < best.deadwood_count:
            best = play
    assert best is not None
    return best


def _greedy_layoffs(own: Arrangement, knocker: Sequence[Meld]) -> DefenderPlay:
    current = [m.mask for m in knocker]
    dead = list(own.deadwood)
    layoffs: list[tuple[Card, int]] = []
    changed = bool(knocker)
    while changed:
        changed = False
        for card in list(dead):
            for i, meld_mask in enumerate(current):
                if is_meld(meld_mask | 1 << card):
                    current[i] |= 1 << card
                    layoffs.append((card, i))
                    dead.remove(card)
                    changed = True
                    break
    return DefenderPlay(own.melds, tuple(sorted(layoffs)), tuple(dead))


def framework_layoffs(
    own: Arrangement, knocker: Sequence[Meld], order: Sequence[Meld]
) -> DefenderPlay:
    """Neller's framework's layoffs of the deadwood of ``own`` (``declared_melds``, R6.6).

    ``knocker`` is the knocker's arrangement (the layoffs' meld indices point into it; empty
    against gin) and ``order`` the same melds as the knocker declared them. Each sweep takes the
    defender's deadwood in the framework's card order and lays off the first card that extends a
    meld, on the first meld in ``order`` that it extends; then it sweeps again from the first
    card, until no card fits. The framework numbers its suits clubs, hearts, spades, diamonds,
    and card order here is ours (clubs, diamonds, hearts, spades), but only the order within a
    suit can change where a card goes: a card extends its own rank's set or its own suit's runs,
    and the cards of one suit come in rank order in both.
    """
    if not knocker:
        return DefenderPlay(own.melds, (), own.deadwood)
    index = {m.cards: i for i, m in enumerate(knocker)}
    current = [m.mask for m in order]
    dead = sorted(own.deadwood)
    layoffs: list[tuple[Card, int]] = []
    while True:
        fit = next(
            (
                (card, j)
                for card in dead
                for j, meld_mask in enumerate(current)
                if is_meld(meld_mask | 1 << card)
            ),
            None,
        )
        if fit is None:
            return DefenderPlay(own.melds, tuple(sorted(layoffs)), tuple(sorted(dead)))
        card, j = fit
        current[j] |= 1 << card
        dead.remove(card)
        layoffs.append((card, index[order[j].cards]))


def declared_melds_play(
    defender: int | Iterable[Card],
    knocker: Sequence[Meld],
    order: Sequence[Meld],
    melds: Iterable[Meld | Iterable[Card]],
) -> DefenderPlay:
    """The defender's declared own ``melds``, the rest laid off by :func:`framework_layoffs`.

    Raises :class:`CardError` if the melds are not valid, disjoint melds of the defender's hand.
    """
    mask = defender if isinstance(defender, int) else mask_of(defender)
    return framework_layoffs(Arrangement.of(mask, melds), knocker, order)


def check_defender_play(
    defender: int | Iterable[Card],
    knocker: Sequence[Meld],
    melds: Iterable[Meld | Iterable[Card]],
    layoffs: Iterable[Card],
    layoffs_allowed: bool,
) -> DefenderPlay:
    """Validate a declared defender play (R6.2-R6.5); raise :class:`CardError` if invalid."""
    mask = defender if isinstance(defender, int) else mask_of(defender)
    own = Arrangement.of(mask, melds)
    x = mask_of(layoffs)
    if x and not layoffs_allowed:
        raise CardError("no layoffs against gin or big gin (R6.3a)")
    if x & ~mask:
        raise CardError(
            "laid-off cards not in the defender's hand: "
            + " ".join(map(card_str, cards_of(x & ~mask)))
        )
    if x & own.melded_mask:
        raise CardError(
            "a card cannot be both in an own meld and laid off: "
            + " ".join(map(card_str, cards_of(x & own.melded_mask)))
        )
    assign = layoff_assignment(knocker, x)
    if assign is None:
        raise CardError(
            "these cards cannot all be laid off on the knocker's melds (R6.2, R6.5): "
            + " ".join(map(card_str, cards_of(x)))
        )
    rest = tuple(c for c in own.deadwood if not x >> c & 1)
    return DefenderPlay(own.melds, tuple(sorted(assign)), rest)
