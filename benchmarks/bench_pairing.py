"""What pairing buys a test of two bots: how much the paired formats narrow the estimate of
which bot is better, against independent matches.

A pair is two matches with the seats swapped, the first bot in seat 0 then in seat 1. Its score
is the first bot's mean score per match over the two (1 a win, ½ no winner, 0 a loss): the unit a
sequential test counts (docs/testing-bots.md). For ``--pairs`` pairs of each format, seeds 1, 2,
..., the benchmark measures the correlation of the two matches' results within a pair and the
variance of the pair's score; the smaller the variance, the fewer matches a test needs for the
same error rates, in proportion. The formats:

- ``independent``: each match its own deal (the pair's second match on seed + 10^6);
- ``duplicate``: both matches on one seed (``duplicate = true``): every hand's deck is the
  same, dealt by role (R2.4), so a hand is mirrored when both matches have the same seat
  dealing it;
- ``duplicate, seat0_first``: both on one seed with ``deal_order = seat0_first``: every hand
  mirrored seat by seat, whoever deals it;
- ``single hands, independent`` and ``single hands, duplicate``: one-hand matches (``scope =
  single_hand``): each pair is one deal played twice with the seats swapped. Its unit is a hand,
  not a match, so it is compared with independent single hands, and it tests which bot wins
  more hands, which is not quite which wins more matches.

The bots are the sample bots' own policies answering the wire requests the referee would send
(tests/support/group_play.py's ``request_for``), in this process: ``greedy`` (the greedy sample
bot), ``cautious`` (the greedy bot, but it knocks only with 5 deadwood or less, else discards as
the greedy bot would: a close rival, as a new version of a bot is to its old one) and ``random``
(the random sample bot, seeded per match). ``--profile`` sets the rules (``standard``: the
dealer alternates; ``pagat``: the loser deals, so the dealers of the two matches part).

Each variance ratio comes with a 95% bootstrap interval (1,000 resamples of the pairs).

Run: ``.venv/bin/python benchmarks/bench_pairing.py [--pairs N] [--profile NAME ...]
[--bots greedy-cautious random-random greedy-random ...]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.convert import action_from_pb  # noqa: E402
from referee.engine.cards import parse_cards  # noqa: E402
from referee.engine.match import Match  # noqa: E402
from referee.engine.rules import Rules  # noqa: E402
from referee.wire import ginrummy_pb2 as pb  # noqa: E402
from sample_bots import greedy_bot, random_bot  # noqa: E402
from sample_bots.client import action_kind, card_index, hand_mask  # noqa: E402
from tests.support.group_play import request_for  # noqa: E402

Policy = Callable[[pb.DecisionRequest], pb.Action]
MakePolicy = Callable[[int], Policy]  # from a match seed, for the random bot's own seed


def cautious(request: pb.DecisionRequest) -> pb.Action:
    """The greedy bot, but a knock only with 5 deadwood or less (gin always)."""
    action = greedy_bot.decide(request)
    if action_kind(action) != "knock":
        return action
    hand = hand_mask(request.observation.hand)
    left = greedy_bot.deadwood_by_discard(hand)
    if left[card_index(action.knock.discard)] <= 5:
        return action
    discards = {
        card_index(a.discard.card): a for a in request.legal_actions if action_kind(a) == "discard"
    }
    return discards[greedy_bot.best_card(hand, list(discards))] if discards else action


BOTS: dict[str, MakePolicy] = {
    "greedy": lambda seed: greedy_bot.decide,
    "cautious": lambda seed: cautious,
    "random": lambda seed: random_bot.make_decide(seed),
}


def play(rules: Rules, seed: int, seat0: Policy, seat1: Policy) -> float:
    """Seat 0's score in a match of ``rules`` on ``seed``: 1 a win, ½ no winner, 0 a loss."""
    match = Match(rules, seed)
    policies = (seat0, seat1)
    while match.result is None:
        seat = match.to_act
        assert seat is not None
        request = request_for(match, seat)
        action = policies[seat](request)
        match.apply(action_from_pb(action, parse_cards(" ".join(request.observation.hand))))
    winner = match.result.winner
    return 0.5 if winner is None else float(winner == 0)


def pairs_of(
    rules: Rules, first: MakePolicy, second: MakePolicy, count: int, shared: bool
) -> list[tuple[float, float]]:
    """``count`` pairs: the first bot's score in seat 0, then in seat 1."""
    out = []
    for k in range(1, count + 1):
        other = k if shared else k + 10**6
        a = play(rules, k, first(2 * k), second(2 * k + 1))
        b = 1.0 - play(rules, other, second(2 * k + 1), first(2 * k))
        out.append((a, b))
    return out


def variance(pairs: Sequence[tuple[float, float]]) -> float:
    return statistics.pvariance([(a + b) / 2 for a, b in pairs])


def correlation(pairs: Sequence[tuple[float, float]]) -> float:
    x, y = [a for a, _ in pairs], [b for _, b in pairs]
    if statistics.pvariance(x) == 0 or statistics.pvariance(y) == 0:
        return float("nan")
    return statistics.correlation(x, y)


def ratio_interval(
    base: Sequence[tuple[float, float]], paired: Sequence[tuple[float, float]], seed: int = 0
) -> tuple[float, float]:
    """A 95% bootstrap interval of variance(paired) / variance(base)."""
    rng = np.random.default_rng(seed)
    b = np.array([(x + y) / 2 for x, y in base])
    p = np.array([(x + y) / 2 for x, y in paired])
    ratios = []
    for _ in range(1000):
        vb = b[rng.integers(0, b.size, b.size)].var()
        vp = p[rng.integers(0, p.size, p.size)].var()
        if vb > 0:
            ratios.append(vp / vb)
    low, high = np.percentile(ratios, [2.5, 97.5])
    return float(low), float(high)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pairs", type=int, default=300, help="pairs per format")
    parser.add_argument("--profile", nargs="+", default=["standard", "pagat"])
    parser.add_argument(
        "--bots", nargs="+", default=["greedy-cautious", "random-random", "greedy-random"]
    )
    args = parser.parse_args(argv)
    n: int = args.pairs
    print(f"{n} pairs per format; the first bot's score per match; variance of a pair's score")
    for line_up in args.bots:
        one, two = (BOTS[name] for name in line_up.split("-"))
        for profile in args.profile:
            began = time.perf_counter()
            rules = Rules.profile(profile)
            keyed = Rules.profile(profile, deal_order="seat0_first")
            hand = Rules.profile(profile, scope="single_hand")
            formats = {
                "independent": pairs_of(rules, one, two, n, shared=False),
                "duplicate": pairs_of(rules, one, two, n, shared=True),
                "duplicate, seat0_first": pairs_of(keyed, one, two, n, shared=True),
                "single hands, independent": pairs_of(hand, one, two, n, shared=False),
                "single hands, duplicate": pairs_of(hand, one, two, n, shared=True),
            }
            print(f"\n{line_up}, {profile} ({time.perf_counter() - began:.0f} s)")
            print(
                f"  {'format':28} {'score':>6} {'corr':>6} {'variance':>9}"
                f"  {'vs independent [95%]':>24}"
            )
            for name, pairs in formats.items():
                base = formats[
                    "single hands, independent" if name.startswith("single") else "independent"
                ]
                mean = statistics.mean(a + b for a, b in pairs) / 2
                v, vb = variance(pairs), variance(base)
                if pairs is base or vb == 0:
                    versus = "1" if pairs is base else "-"
                else:
                    low, high = ratio_interval(base, pairs)
                    versus = f"{v / vb:.2f} [{low:.2f}, {high:.2f}]"
                print(
                    f"  {name:28} {mean:6.3f} {correlation(pairs):+6.2f} {v:9.4f}  {versus:>24}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
