"""Chance: the documented mapping from a match seed to dealers and deck orders (R2, R11.4).

Everything random in a match comes from SplitMix64, so that a log replays identically anywhere
and another language can re-derive every deal. The algorithm, exactly:

- ``splitmix64``: state ``s`` (unsigned 64-bit); each call does ``s += 0x9E3779B97F4A7C15`` then
  returns ``z ^ (z >> 31)`` where ``z = s``, ``z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9``,
  ``z = (z ^ (z >> 27)) * 0x94D049BB133111EB`` (all mod 2^64).
- The match generator is ``splitmix64`` started at ``state = seed``. Its first output is the
  initial state of the *dealer stream* (first dealer, R2.2); its output number ``k + 2`` is the
  initial state of the stream of hand ``k`` (``k`` = 0, 1, ... counts every deal, redeals
  included). Hand streams are independent of how many draws any other stream used.
- ``uniform(n)`` draws ``x`` until ``x < 2^64 - (2^64 mod n)`` and returns ``x mod n`` (no bias).
- ``shuffle``: start from ``[0, 1, ..., 51]`` (card ``suit * 13 + rank``, clubs..spades, A..K) and
  for ``i`` from 51 down to 1 swap positions ``i`` and ``uniform(i + 1)`` (Fisher-Yates).
- ``random`` first dealer: ``uniform(2)`` from the dealer stream is the seat that deals.
  ``cut_*``: shuffle a deck with the dealer stream; seat 0 cuts position 0, seat 1 position 1;
  equal ranks re-draw with the next pair (positions 2 and 3, ...), R2.2.
- Three players (R10.1): ``random`` is ``uniform(3)``; ``cut_low_deals`` deals the dealer-stream
  deck in groups of three (seat 0, 1, 2) and takes the first group whose lowest rank is held by
  one seat only. Partnerships (R10.2) decide each table's first dealer side in table order:
  ``uniform(2)`` each, or cut in groups of four (seats 0..3), the first group in which the two
  seats at each first-round table (0 and 1, 2 and 3) cut different ranks.

A hand's deck order is dealt as :mod:`referee.engine.hand` describes: positions 0..19 alternately
to the non-dealer and the dealer (non-dealer first; to seat 0 and seat 1 under ``deal_order =
seat0_first``), position 20 the upcard, 21.. the stock, top first.

A match may be given its decks instead (``new_game(rules, seed, decks=..., first_dealer=...)``:
a deal file's, docs/tournaments.md#deal-sets): hand ``k``, redeals included, is dealt from the
given deck ``k`` and the first hand by the given dealer; the hands beyond them from the seed, as
above. The engine takes the decks as data; reading the file is the tournament's.
"""

from __future__ import annotations

from referee.engine.cards import Card

_MASK64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15


class SplitMix64:
    """The SplitMix64 generator (Steele, Lea, Flood 2014)."""

    __slots__ = ("state",)

    def __init__(self, state: int) -> None:
        self.state = state & _MASK64

    def next(self) -> int:
        """The next 64-bit output."""
        self.state = (self.state + _GAMMA) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def uniform(self, n: int) -> int:
        """An unbiased integer in ``0 .. n-1`` by rejection."""
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next()
            if x < limit:
                return x % n


def _output(seed: int, index: int) -> int:
    """Output number ``index`` (0-based) of the match generator started at ``seed``."""
    gen = SplitMix64((seed + index * _GAMMA) & _MASK64)
    return gen.next()


def shuffled_deck(rng: SplitMix64) -> list[Card]:
    """A uniformly random permutation of the 52 cards (Fisher-Yates, see the module doc)."""
    deck = list(range(52))
    for i in range(51, 0, -1):
        j = rng.uniform(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def hand_deck(seed: int, hand_index: int) -> list[Card]:
    """The deck order of hand ``hand_index`` (0-based, redeals included) of the match ``seed``."""
    return shuffled_deck(SplitMix64(_output(seed, hand_index + 1)))


def dealer_stream(seed: int) -> SplitMix64:
    """The generator that decides the first dealer (R2.2)."""
    return SplitMix64(_output(seed, 0))


def cut_cards(seed: int) -> tuple[Card, Card]:
    """The two cards cut for the first deal (R2.2): the first pair of different ranks."""
    rng = dealer_stream(seed)
    while True:
        deck = shuffled_deck(rng)
        for k in range(0, 52, 2):
            if deck[k] % 13 != deck[k + 1] % 13:
                return deck[k], deck[k + 1]


def group_first_dealer_draws(seed: int, count: int) -> list[int]:
    """``count`` draws of ``uniform(2)`` (partnerships) or one of ``uniform(3)`` (three
    players, ``count == 0``): the ``random`` first dealers of §10."""
    rng = dealer_stream(seed)
    if count == 0:
        return [rng.uniform(3)]
    return [rng.uniform(2) for _ in range(count)]


def group_cut(seed: int, players: int) -> tuple[Card, ...]:
    """The cards cut by seats 0.. for the first deal with 3 or 4 players (R2.2, §10).

    Three players: the first group whose lowest rank is unique. Four: the first group in which
    seats 0 and 1, and seats 2 and 3, cut different ranks.
    """
    rng = dealer_stream(seed)
    while True:
        deck = shuffled_deck(rng)
        for k in range(0, 52 - players + 1, players):
            group = deck[k : k + players]
            ranks = [c % 13 for c in group]
            if players == 3 and ranks.count(min(ranks)) == 1:
                return tuple(group)
            if players == 4 and ranks[0] != ranks[1] and ranks[2] != ranks[3]:
                return tuple(group)
