"""The strong player's quick checks: in-process matches on duplicate deals, a variant against an
opponent, and the same deals played by the default player beside it.

The quick checks of docs/research.md ("What was tried", "Where the strength left is") are
played this way: the engine alone (no processes, no network), each deal (a match seed) played
twice with the seats swapped, the same deals for every variant, so two variants compare deal by
deal. It prints the share of matches won and the points a match (the final score minus the
opponent's), each with the standings' 95% interval over the deals
(:func:`tournaments.results.standings.mean_interval`), and the difference to the default player
on the same deals.

Opponents: ``reference`` (:mod:`ginref_rl.lookahead`), ``simple`` (a Python copy of the EAAI
framework's SimpleGinRummyPlayer: takes the face-up card only if it melds, discards a card
leaving the least deadwood, at random among equals, knocks as soon as it may; it scores about as
the real one, docs/research.md). Variants: the :class:`~ginref_rl.strong_player.Tuning` options,
and ``--oracle``, the opponent model replaced by the opponent's true hand (every card held for
sure or not at all): a ceiling for what a better model could give.

Run: ``.venv/bin/python benchmarks/bench_strong.py [--opponent reference|simple]
[--profile P] [--deals N] [--seed S] [-j J] [--danger-weight W] [--no-model-stock]
[--hold-low D] [--oracle]``.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from multiprocessing import Pool

from ginref_rl import lookahead, strong_player
from ginref_rl.opponent_model import meld_partners
from ginref_rl.reference_bot import PLAYED
from ginref_rl.strong_player import Tuning
from referee.engine.actions import Action, Discard, DrawDiscard, DrawStock, Knock, Pass
from referee.engine.cards import mask_of
from referee.engine.match import Match
from referee.engine.melds import deadwood_by_discard
from referee.engine.observation import Observation, observe
from referee.engine.outcomes import Phase
from referee.engine.rules import Rules
from tournaments.results.standings import mean_interval


@dataclass(frozen=True)
class Setting:
    profile: str
    opponent: str
    tuning: Tuning
    oracle: bool


def simple(obs: Observation, rng: random.Random) -> Action:
    """The Python copy of SimpleGinRummyPlayer (the module docstring)."""
    legal = obs.legal_actions
    hand = mask_of(obs.hand)
    if obs.phase is not Phase.DISCARD:
        top = obs.discard_pile[-1] if obs.discard_pile else None
        melds = top is not None and any(
            hand >> a & 1 and hand >> b & 1 for a, b in meld_partners(top)
        )
        wanted = DrawDiscard if melds else (Pass, DrawStock)  # the upcard is taken by DrawDiscard
        return next((a for a in legal if isinstance(a, wanted)), legal[0])
    left = deadwood_by_discard(hand)
    knocks = [a for a in legal if isinstance(a, Knock)]
    if knocks:
        return min(knocks, key=lambda a: left[a.card])
    cards = [a.card for a in legal if isinstance(a, Discard)]
    least = min(left[c] for c in cards)
    return Discard(rng.choice([c for c in cards if left[c] == least]))


def play(args: tuple[Setting, int, int]) -> tuple[float, int]:
    """One match of seed ``seed`` with the strong player at ``seat``: (its score: 1, ½ or 0,
    its final points minus the opponent's)."""
    setting, seed, seat = args
    m = Match(Rules.profile(setting.profile), seed)
    rng = random.Random(seed * 2 + seat)
    holding = strong_player.holding_probabilities  # type: ignore[attr-defined]
    if setting.oracle:
        # The opponent's true hand in place of the model (the module docstring).
        def truth(unseen: Sequence[int], concealed: int, history: object) -> dict[int, float]:
            assert m.hand is not None
            held = m.hand.held(1 - seat)
            return {u: float(held >> u & 1) for u in unseen}

        strong_player.holding_probabilities = truth  # type: ignore[attr-defined]
    try:
        while m.to_act is not None:
            obs = observe(m, m.to_act)
            if m.phase not in PLAYED or len(obs.legal_actions) == 1:
                m.apply(obs.legal_actions[0])
            elif m.to_act == seat:
                view = strong_player.strong_view_of(obs)
                m.apply(strong_player.choose(view, setting.tuning))
            elif setting.opponent == "simple":
                m.apply(simple(obs, rng))
            else:
                m.apply(lookahead.choose(lookahead.view_of(obs)))
    finally:
        strong_player.holding_probabilities = holding  # type: ignore[attr-defined]
    result = m.result
    assert result is not None
    won = 1.0 if result.winner == seat else 0.5 if result.winner is None else 0.0
    return won, result.final[seat] - result.final[1 - seat]


def mean_half(xs: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% interval (0 under two values)."""
    interval = mean_interval(xs)
    return sum(xs) / len(xs), 0.0 if interval is None else (interval[1] - interval[0]) / 2


def by_deal(results: Sequence[tuple[float, int]]) -> tuple[list[float], list[float]]:
    """Each deal's mean score and mean points (its two matches are consecutive)."""
    pairs = range(0, len(results), 2)
    won = [(results[i][0] + results[i + 1][0]) / 2 for i in pairs]
    points = [(results[i][1] + results[i + 1][1]) / 2 for i in pairs]
    return won, points


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--opponent", choices=("reference", "simple"), default="reference")
    parser.add_argument("--profile", default="standard")
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1000, help="the first deal's match seed")
    parser.add_argument("-j", type=int, default=2, help="processes")
    parser.add_argument("--danger-weight", type=float, default=Tuning().danger_weight)
    parser.add_argument("--no-model-stock", action="store_true")
    parser.add_argument("--hold-low", type=int, default=Tuning().hold_low)
    parser.add_argument("--oracle", action="store_true")
    args = parser.parse_args(argv)
    tuning = replace(
        Tuning(),
        danger_weight=args.danger_weight,
        weighted_stock=not args.no_model_stock,
        hold_low=args.hold_low,
    )
    variant = Setting(args.profile, args.opponent, tuning, args.oracle)
    default = Setting(args.profile, args.opponent, Tuning(), False)
    seeds = range(args.seed, args.seed + args.deals)
    with Pool(args.j) as pool:
        figures = {
            name: by_deal(pool.map(play, [(s, seed, seat) for seed in seeds for seat in (0, 1)]))
            for name, s in (("variant", variant), ("default", default))
            if name == "variant" or s != variant
        }
    print(
        f"{args.deals} deals ({2 * args.deals} matches), {args.profile}, "
        f"against {args.opponent}, deal seeds {args.seed}..{args.seed + args.deals - 1}"
    )
    for name, (won, points) in figures.items():
        w, wi = mean_half(won)
        p, pi = mean_half(points)
        print(f"{name:8s} won {100 * w:5.1f}% ±{100 * wi:.1f}   points a match {p:+6.1f} ±{pi:.1f}")
    if len(figures) == 2:
        (vw, vp), (dw, dp) = figures["variant"], figures["default"]
        w, wi = mean_half([a - b for a, b in zip(vw, dw, strict=True)])
        p, pi = mean_half([a - b for a, b in zip(vp, dp, strict=True)])
        print(
            f"variant minus default, deal by deal: won {100 * w:+.1f} ±{100 * wi:.1f} "
            f"matches in a hundred, points a match {p:+.1f} ±{pi:.1f}"
        )


if __name__ == "__main__":
    main()
