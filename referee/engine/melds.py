"""Meld arithmetic (R1, R5.3, R5.4): sets, runs, arrangements, deadwood (layoffs, R6, are
:mod:`referee.engine.layoffs`).

Pure functions over card masks (see :mod:`referee.engine.cards`). Minimum deadwood uses a
decomposition that makes it a handful of table look-ups for most hands: runs live inside one suit,
so the best runs-only deadwood of every 13-bit suit mask is tabulated once (8192 entries); sets are
the only melds that cross suits, and a 10- or 11-card hand has at most three ranks with three or
more cards, so the few ways of taking sets out of those ranks are enumerated and the rest is looked
up per suit. This is exact (every arrangement is some choice of sets plus runs in each suit).
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from referee.engine.cards import (
    CARD_VALUES,
    RANK_VALUES,
    SUIT_MASK,
    Card,
    LazyTable,
    card_str,
    cards_of,
    mask_of,
)
from referee.engine.errors import CardError

_INF = 1 << 30
_RANK_BITS = 1 | 1 << 13 | 1 << 26 | 1 << 39  # the ace of each suit; shift by a rank for others


class MeldKind(enum.Enum):
    """R1.4 set (group) or R1.5 run (sequence)."""

    SET = "set"
    RUN = "run"


@dataclass(frozen=True, slots=True)
class Meld:
    """A valid set or run; ``cards`` are sorted by rank then suit."""

    kind: MeldKind
    cards: tuple[Card, ...]
    mask: int = field(compare=False, repr=False)

    @staticmethod
    def of(cards: Iterable[Card]) -> Meld:
        """Build a meld from its cards, or raise :class:`CardError` if they are not one."""
        cs = list(cards)
        kind = meld_kind(cs)
        if kind is None:
            raise CardError(f"not a meld: {' '.join(card_str(c) for c in cs) or '(empty)'}")
        ordered = tuple(sorted(cs, key=lambda c: (c % 13, c // 13)))
        return Meld(kind, ordered, mask_of(ordered))

    @staticmethod
    def from_mask(mask: int) -> Meld:
        """Build a meld from a card mask (must be valid)."""
        return Meld.of(cards_of(mask))

    def __str__(self) -> str:
        return " ".join(card_str(c) for c in self.cards)


def meld_kind(cards: Sequence[Card]) -> MeldKind | None:
    """The kind of meld these cards form (R1.4, R1.5), or ``None``."""
    if len(cards) < 3 or len(set(cards)) != len(cards):
        return None
    ranks = {c % 13 for c in cards}
    if len(ranks) == 1:
        return MeldKind.SET if len(cards) <= 4 else None
    if len({c // 13 for c in cards}) != 1 or len(ranks) != len(cards):
        return None
    # Ace is low only (R1.5): ranks must be consecutive integers 0..12, no wrap.
    return MeldKind.RUN if max(ranks) - min(ranks) == len(cards) - 1 else None


def is_meld(mask: int) -> bool:
    """Whether the cards of ``mask`` form one valid meld."""
    return meld_kind(cards_of(mask)) is not None


# --- Per-suit run tables --------------------------------------------------------------------


def _build_run_tables() -> tuple[list[int], list[tuple[int, ...]]]:
    best = [0] * 8192
    runs: list[tuple[int, ...]] = [()] * 8192
    for m in range(1, 8192):
        low = m & -m
        r = low.bit_length() - 1
        # The lowest card is either deadwood or the low end of a run.
        val = RANK_VALUES[r] + best[m ^ low]
        dec = runs[m ^ low]
        run = low
        k = r + 1
        while k < 13 and m >> k & 1:
            run |= 1 << k
            k += 1
            if k - r >= 3 and best[m ^ run] < val:
                val = best[m ^ run]
                dec = (run, *runs[m ^ run])
        best[m] = val
        runs[m] = dec
    return best, runs


RUN_DW, RUN_DECOMP = _build_run_tables()
# Best runs-only deadwood of a suit after removing one of its cards: (rank, deadwood) pairs.
RUN_DROP: LazyTable[tuple[tuple[int, int], ...]] = LazyTable(
    lambda m: tuple((r, RUN_DW[m ^ (1 << r)]) for r in range(13) if m >> r & 1)
)


def _build_drop_min() -> list[int]:
    out = [_INF] * 8192
    for m in range(1, 8192):
        rest = m
        best = _INF
        while rest:
            low = rest & -rest
            rest ^= low
            v = RUN_DW[m ^ low]
            if v < best:
                best = v
        out[m] = best
    return out


RUN_DW1: list[int] = _build_drop_min()  # min over single removals; infinite for no cards


def _suits(mask: int) -> tuple[int, int, int, int]:
    return (
        mask & SUIT_MASK,
        mask >> 13 & SUIT_MASK,
        mask >> 26 & SUIT_MASK,
        mask >> 39 & SUIT_MASK,
    )


def _set_choices(a: int, b: int, c: int, d: int) -> Iterator[tuple[int, int, int, int, int]]:
    """Every way to take sets out of the ranks holding 3+ cards.

    Yields ``(a, b, c, d, sets_mask)``: the suit masks left for runs and the cards put in sets.
    """
    trips = (a & b & (c | d)) | (c & d & (a | b))
    if not trips:
        yield a, b, c, d, 0
        return
    options: list[list[int]] = []
    ranks: list[int] = []
    while trips:
        low = trips & -trips
        r = low.bit_length() - 1
        trips ^= low
        pattern = (a >> r & 1) | (b >> r & 1) << 1 | (c >> r & 1) << 2 | (d >> r & 1) << 3
        opts = [0]
        if pattern == 15:
            opts += [15, 14, 13, 11, 7]
        else:
            opts.append(pattern)
        options.append(opts)
        ranks.append(r)
    for combo in itertools.product(*options):
        ra, rb, rc, rd, sets = a, b, c, d, 0
        for r, pattern in zip(ranks, combo, strict=True):
            if not pattern:
                continue
            bit = 1 << r
            if pattern & 1:
                ra ^= bit
                sets |= 1 << r
            if pattern & 2:
                rb ^= bit
                sets |= 1 << (13 + r)
            if pattern & 4:
                rc ^= bit
                sets |= 1 << (26 + r)
            if pattern & 8:
                rd ^= bit
                sets |= 1 << (39 + r)
        yield ra, rb, rc, rd, sets


def min_deadwood(cards: int | Iterable[Card]) -> int:
    """Exact minimum deadwood ``dw*`` of a collection of cards (R1.8), as a mask or cards."""
    mask = cards if isinstance(cards, int) else mask_of(cards)
    a = mask & SUIT_MASK
    b = mask >> 13 & SUIT_MASK
    c = mask >> 26 & SUIT_MASK
    d = mask >> 39 & SUIT_MASK
    if not ((a & b & (c | d)) | (c & d & (a | b))):
        return RUN_DW[a] + RUN_DW[b] + RUN_DW[c] + RUN_DW[d]
    best = _INF
    for ra, rb, rc, rd, _ in _set_choices(a, b, c, d):
        v = RUN_DW[ra] + RUN_DW[rb] + RUN_DW[rc] + RUN_DW[rd]
        if v < best:
            best = v
    return best


def _after_discard(a: int, b: int, c: int, d: int) -> int:
    """Runs-only deadwood of four suit masks after the best single discard."""
    wa, wb, wc, wd = RUN_DW[a], RUN_DW[b], RUN_DW[c], RUN_DW[d]
    return (
        wa + wb + wc + wd + min(RUN_DW1[a] - wa, RUN_DW1[b] - wb, RUN_DW1[c] - wc, RUN_DW1[d] - wd)
    )


# For a rank's suit pattern (bit s = suit s present), the patterns of sets that can be taken.
_SET_OPTIONS: tuple[tuple[int, ...], ...] = tuple(
    (0, 15, 14, 13, 11, 7) if p == 15 else (0, p) for p in range(16)
)


def min_deadwood_after_discard(cards: int | Iterable[Card]) -> int:
    """Minimum over every discard ``d`` of ``dw*(cards - d)`` (the 11-card figure)."""
    mask = cards if isinstance(cards, int) else mask_of(cards)
    a = mask & SUIT_MASK
    b = mask >> 13 & SUIT_MASK
    c = mask >> 26 & SUIT_MASK
    d = mask >> 39 & SUIT_MASK
    trips = (a & b & (c | d)) | (c & d & (a | b))
    if not trips:
        # No rank holds three cards: no sets, so each suit is independent. (Inlined: this is
        # the engine's hottest line.)
        wa, wb, wc, wd = RUN_DW[a], RUN_DW[b], RUN_DW[c], RUN_DW[d]
        return (
            wa
            + wb
            + wc
            + wd
            + min(RUN_DW1[a] - wa, RUN_DW1[b] - wb, RUN_DW1[c] - wc, RUN_DW1[d] - wd)
        )
    if not trips & (trips - 1):
        # One rank with three or four cards (the usual case): try each way to meld it.
        r = trips.bit_length() - 1
        pattern = (a >> r & 1) | (b >> r & 1) << 1 | (c >> r & 1) << 2 | (d >> r & 1) << 3
        best = _after_discard(a, b, c, d)
        for p in _SET_OPTIONS[pattern]:
            if p:
                v = _after_discard(
                    a ^ trips if p & 1 else a,
                    b ^ trips if p & 2 else b,
                    c ^ trips if p & 4 else c,
                    d ^ trips if p & 8 else d,
                )
                if v < best:
                    best = v
        return best
    return min(_after_discard(ra, rb, rc, rd) for ra, rb, rc, rd, _ in _set_choices(a, b, c, d))


def deadwood_by_discard(cards: int | Iterable[Card]) -> dict[Card, int]:
    """For each card ``d`` of the hand, ``dw*(hand - d)`` (knock legality, best discards)."""
    mask = cards if isinstance(cards, int) else mask_of(cards)
    out: dict[Card, int] = {}
    get = out.get
    for suits in _set_choices(*_suits(mask)):
        total = RUN_DW[suits[0]] + RUN_DW[suits[1]] + RUN_DW[suits[2]] + RUN_DW[suits[3]]
        for s in range(4):
            x = suits[s]
            if not x:
                continue
            base = total - RUN_DW[x]
            offset = 13 * s
            for r, v in RUN_DROP[x]:
                card = offset + r
                v += base
                if v < get(card, _INF):
                    out[card] = v
    return out


# --- Arrangements -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Arrangement:
    """Disjoint melds of a hand (R1.7) and the hand's remaining deadwood cards (R1.8)."""

    melds: tuple[Meld, ...]
    deadwood: tuple[Card, ...]

    @property
    def deadwood_count(self) -> int:
        """Sum of the deadwood cards' values."""
        return sum(CARD_VALUES[c] for c in self.deadwood)

    @property
    def melded_mask(self) -> int:
        """Mask of every melded card."""
        m = 0
        for meld in self.melds:
            m |= meld.mask
        return m

    @staticmethod
    def of(hand: int | Iterable[Card], melds: Iterable[Meld | Iterable[Card]]) -> Arrangement:
        """Check that ``melds`` are valid, disjoint and inside ``hand``; the rest is deadwood."""
        hand_mask = hand if isinstance(hand, int) else mask_of(hand)
        used = 0
        out: list[Meld] = []
        for item in melds:
            meld = item if isinstance(item, Meld) else Meld.of(item)
            if meld.mask & ~hand_mask:
                missing = cards_of(meld.mask & ~hand_mask)
                raise CardError(
                    f"meld {meld} uses cards not in the hand: {' '.join(map(card_str, missing))}"
                )
            if meld.mask & used:
                raise CardError(
                    f"meld {meld} shares {' '.join(map(card_str, cards_of(meld.mask & used)))} "
                    "with another meld (R1.7)"
                )
            used |= meld.mask
            out.append(meld)
        return Arrangement(_canonical(out), tuple(cards_of(hand_mask & ~used)))

    def __str__(self) -> str:
        parts = [str(m) for m in self.melds]
        if self.deadwood:
            parts.append("| " + " ".join(card_str(c) for c in self.deadwood))
        return " · ".join(parts) if parts else "(no cards)"


def _canonical(melds: Iterable[Meld]) -> tuple[Meld, ...]:
    return tuple(sorted(melds, key=lambda m: (m.kind is MeldKind.RUN, m.cards)))


def best_arrangement(cards: int | Iterable[Card]) -> Arrangement:
    """One arrangement with minimum deadwood (deterministic: the first in enumeration order)."""
    mask = cards if isinstance(cards, int) else mask_of(cards)
    best_val = _INF
    best: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)
    for choice in _set_choices(*_suits(mask)):
        v = RUN_DW[choice[0]] + RUN_DW[choice[1]] + RUN_DW[choice[2]] + RUN_DW[choice[3]]
        if v < best_val:
            best_val, best = v, choice
    *suit_masks, sets = best
    melds: list[Meld] = []
    for r in range(13):
        group = sets & _RANK_BITS << r
        if group:
            melds.append(Meld.from_mask(group))
    for s, m in enumerate(suit_masks):
        for run in RUN_DECOMP[m]:
            melds.append(Meld.from_mask(run << (13 * s)))
    return Arrangement.of(mask, melds)


def best_discard_arrangement(
    cards: int | Iterable[Card], allowed: int | None = None
) -> tuple[Card, Arrangement]:
    """For 11 cards: the best discard (among ``allowed``) and the best arrangement of the rest.

    Ties between discards go to the lowest card index.
    """
    mask = cards if isinstance(cards, int) else mask_of(cards)
    by_discard = deadwood_by_discard(mask)
    choices = [
        (v, card) for card, v in by_discard.items() if allowed is None or allowed >> card & 1
    ]
    if not choices:
        raise CardError("no card may be discarded")
    _, card = min(choices)
    return card, best_arrangement(mask & ~(1 << card))


def all_melds(cards: int | Iterable[Card]) -> list[int]:
    """Every meld (as a mask) inside a collection of cards: 3- and 4-sets, every sub-run."""
    mask = cards if isinstance(cards, int) else mask_of(cards)
    out: list[int] = []
    suits = _suits(mask)
    for r in range(13):
        present = [s for s in range(4) if suits[s] >> r & 1]
        if len(present) >= 3:
            bits = [1 << (13 * s + r) for s in present]
            if len(bits) == 4:
                out.append(bits[0] | bits[1] | bits[2] | bits[3])
            for trio in itertools.combinations(bits, 3):
                out.append(trio[0] | trio[1] | trio[2])
    for s, m in enumerate(suits):
        for lo in range(13):
            if not m >> lo & 1:
                continue
            run = 0
            for hi in range(lo, 13):
                if not m >> hi & 1:
                    break
                run |= 1 << hi
                if hi - lo >= 2:
                    out.append(run << (13 * s))
    return out


def _runs_touch(a: int, b: int) -> bool:
    # Two runs of one suit that touch end to end are the same meld as their union; listing both
    # forms would only duplicate arrangements.
    return bool((a << 1 | a >> 1) & b) and is_meld(a | b)


def all_arrangements(cards: int | Iterable[Card]) -> Iterator[Arrangement]:
    """Every arrangement (R1.7) of the cards, including partial ones; runs are never split."""
    mask = cards if isinstance(cards, int) else mask_of(cards)
    melds = all_melds(mask)

    def rec(start: int, used: int, chosen: list[int]) -> Iterator[list[int]]:
        yield chosen
        for i in range(start, len(melds)):
            m = melds[i]
            if m & used or any(_runs_touch(m, o) for o in chosen):
                continue
            chosen.append(m)
            yield from rec(i + 1, used | m, chosen)
            chosen.pop()

    for chosen in rec(0, 0, []):
        yield Arrangement.of(mask, [Meld.from_mask(m) for m in chosen])


def direct_layoff_cards(melds: Iterable[Meld]) -> int:
    """Mask of the cards that could be laid off directly on these melds (R6.2, one step)."""
    out = 0
    for meld in melds:
        if meld.kind is MeldKind.SET:
            if len(meld.cards) == 3:
                rank = meld.cards[0] % 13
                out |= (_RANK_BITS << rank) & ~meld.mask
        else:
            lo, hi = meld.cards[0], meld.cards[-1]
            if lo % 13 > 0:
                out |= 1 << (lo - 1)
            if hi % 13 < 12:
                out |= 1 << (hi + 1)
    return out


def default_knock_arrangement(hand: int | Iterable[Card], seen_elsewhere: int = 0) -> Arrangement:
    """The referee's arrangement for a knocker who declares none (R5.4).

    Minimum deadwood; among ties, the fewest cards that could be laid off directly and that the
    knocker has not seen (``seen_elsewhere``: the knocker's own 11 cards and the discard pile);
    remaining ties by the melds' card order.
    """
    mask = hand if isinstance(hand, int) else mask_of(hand)
    target = min_deadwood(mask)
    best: tuple[int, tuple[tuple[int, ...], ...]] | None = None
    best_arr: Arrangement | None = None
    for arr in all_arrangements(mask):
        if arr.deadwood_count != target:
            continue
        exposed = (direct_layoff_cards(arr.melds) & ~seen_elsewhere & ~mask).bit_count()
        key = (exposed, tuple(m.cards for m in arr.melds))
        if best is None or key < best:
            best, best_arr = key, arr
    assert best_arr is not None  # dw* is always reached by some arrangement
    return best_arr
