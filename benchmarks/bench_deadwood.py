"""Exact minimum deadwood per second: ginref (``referee.engine.melds``) vs OpenSpiel's C++.

Both sides get the same random hands, converted outside the timed loop into the form each API
wants: a 52-bit int mask for ours, a list of OpenSpiel card indices for ``pyspiel``
(``GinRummyUtils(13, 4, 10).min_deadwood(list)``; OpenSpiel's index of our card ``c`` is
``(c + 13) % 52``). 10-card hands: ``min_deadwood`` on both sides. 11-card hands: ours is
``min_deadwood_after_discard`` (exact); OpenSpiel's ``min_deadwood`` on 11 cards discards the
highest card left after its best meld group (occasionally 1 too high on tied groups).

Run: ``.venv/bin/python benchmarks/bench_deadwood.py [--hands N] [--rounds R] [--seed S]``.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from collections.abc import Callable, Sequence
from importlib.metadata import version

import pyspiel  # type: ignore[import-not-found]

from referee.engine.cards import mask_of
from referee.engine.melds import min_deadwood, min_deadwood_after_discard


def to_os(cards: Sequence[int]) -> list[int]:
    """Our card indices (suits C D H S) -> OpenSpiel's (suits s c d h, same ranks)."""
    return [(c + 13) % 52 for c in cards]


def rate(fn: Callable[[], object], n: int, rounds: int) -> float:
    """Median hands per second over ``rounds`` timed runs of ``fn`` (which does ``n`` hands)."""
    rates = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        rates.append(n / (time.perf_counter() - start))
    return statistics.median(rates)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--hands", type=int, default=100_000, help="hands per round")
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds (median reported)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random hands")
    args = parser.parse_args(argv)
    n: int = args.hands
    rounds: int = args.rounds

    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    os_min_deadwood = utils.min_deadwood
    rng = random.Random(args.seed)
    deck = list(range(52))

    print(
        f"exact minimum deadwood, {n:,} random hands per round, median of {rounds} rounds "
        f"(Python {platform.python_version()}, open-spiel {version('open-spiel')})"
    )
    header = (
        f"{'hand':>8} | {'ginref (hands/s)':>17} | {'OpenSpiel (hands/s)':>20} | {'ours/OS':>8}"
    )
    print(header)
    print("-" * len(header))
    for size in (10, 11):
        hands = [rng.sample(deck, size) for _ in range(n)]
        masks = [mask_of(h) for h in hands]
        os_hands = [to_os(h) for h in hands]
        ours_fn = min_deadwood if size == 10 else min_deadwood_after_discard

        # Warm-up (table building, caches) and a consistency check outside the timing.
        ours_vals = [ours_fn(m) for m in masks]
        os_vals = [os_min_deadwood(h) for h in os_hands]
        if size == 10:
            assert ours_vals == os_vals, "10-card results differ from OpenSpiel"
        else:
            assert all(a <= b for a, b in zip(ours_vals, os_vals, strict=True))

        def run_ours(fn: Callable[[int], int] = ours_fn, ms: list[int] = masks) -> None:
            for m in ms:
                fn(m)

        def run_os(hs: list[list[int]] = os_hands) -> None:
            for h in hs:
                os_min_deadwood(h)

        ours_rate = rate(run_ours, n, rounds)
        os_rate = rate(run_os, n, rounds)
        ratio = ours_rate / os_rate
        print(f"{size:>3} card | {ours_rate:>17,.0f} | {os_rate:>20,.0f} | {ratio:>7.2f}x")


if __name__ == "__main__":
    main()
