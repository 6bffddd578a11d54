"""The greedy bot against the random bot in matches of three players and partnerships (§10).

Three line-ups, ``--matches`` matches each, seeds 0, 1, ... (the same figures on every run):

1. Three players, one greedy bot and two random bots: the greedy bot's places (R10.1, placings
   as ``MatchResult.placings`` gives them: 1 the winner, the others by final score).
2. Three players, two greedy bots and one random bot: the random bot's places.
3. Partnerships, two greedy partners against two random partners: the greedy team's wins
   (R10.2).

The seats rotate from match to match (the greedy team takes seats 0 and 2 in even matches, 1
and 3 in odd ones), and each random bot is seeded from the match. The bots are
``sample_bots.greedy_bot.decide`` and ``sample_bots.random_bot.make_decide``, answering the
wire requests the referee would send (tests/support/group_play.py), in this process: the same
decisions as the bots' processes, many more matches per minute. Each share is given with its
95% Wilson interval.

Run: ``.venv/bin/python benchmarks/bench_group_strength.py [--matches N] [--profile NAME]``.
"""

from __future__ import annotations

import argparse
import collections
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.engine.rules import Rules  # noqa: E402
from sample_bots import greedy_bot, random_bot  # noqa: E402
from tests.support.group_play import Policy, play_group  # noqa: E402


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a share."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def share(successes: int, n: int) -> str:
    low, high = wilson(successes, n)
    return f"{successes}/{n} = {successes / n:.1%} (95% CI {low:.1%}-{high:.1%})"


def three_players(rules: Rules, matches: int, greedy_bots: int) -> collections.Counter[int]:
    """The places of the odd bot out: the greedy one (``greedy_bots`` 1) or the random one (2)."""
    places: collections.Counter[int] = collections.Counter()
    for seed in range(matches):
        odd = seed % 3
        policies: list[Policy] = []
        for seat in range(3):
            greedy = (seat == odd) == (greedy_bots == 1)
            rnd = random_bot.make_decide(seed * 3 + seat)
            policies.append(greedy_bot.decide if greedy else rnd)
        places[play_group(rules, seed, policies).placings(3)[odd]] += 1
    return places


def partnerships(rules: Rules, matches: int) -> int:
    """Matches won by the greedy team."""
    won = 0
    for seed in range(matches):
        strong = seed % 2
        policies: list[Policy] = [
            greedy_bot.decide if seat % 2 == strong else random_bot.make_decide(seed * 4 + seat)
            for seat in range(4)
        ]
        won += play_group(rules, seed, policies).winner == strong
    return won


def describe(places: collections.Counter[int], n: int) -> str:
    mean = sum(place * count for place, count in places.items()) / n
    spread = ", ".join(f"{place}: {places[place]}" for place in sorted(places))
    return f"first {share(places[1], n)}; places {{{spread}}}; mean place {mean:.2f}"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--matches", type=int, default=300, help="matches per line-up")
    parser.add_argument("--profile", default="standard", help="rule profile (default standard)")
    args = parser.parse_args(argv)
    n: int = args.matches
    print(f"profile {args.profile}, {n} matches per line-up")
    start = time.perf_counter()
    places = three_players(Rules.profile(args.profile, players=3), n, greedy_bots=1)
    print(f"3 players, greedy v 2 random: greedy {describe(places, n)}", flush=True)
    places = three_players(Rules.profile(args.profile, players=3), n, greedy_bots=2)
    print(f"3 players, 2 greedy v random: random {describe(places, n)}", flush=True)
    won = partnerships(Rules.profile(args.profile, players=4), n)
    print(f"partnerships, greedy team v random team: greedy team wins {share(won, n)}")
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
