"""The sequential test's error rates and lengths, measured over simulated runs.

For each kind of unit, ``--runs`` tests are simulated with the true Elo difference at elo0 (so
accepting H1 is a false positive, whose rate should be at most alpha) and ``--runs`` more with
it at elo1 (accepting H0 is a false negative, at most beta). A run draws its units one by one,
independently, from a model with that Elo, and stops exactly as ``ginref sprt`` does
(:func:`tournaments.results.sprt.simulate`: the LLR of :func:`tournaments.results.sprt.llr` after
every unit, the first bound crossed, or the maximum). The units:

- ``trinomial``: single matches, won with the model's score, no draws (Gin matches have a
  winner);
- ``pentanomial, rho``: pairs of matches on one deal with the seats swapped, each won with the
  model's score, their results correlated ``rho``: -0.5 is what duplicate deals give two close
  bots (the greedy bot against a variant of it, benchmarks/bench_pairing.py), 0 pairs of
  independent deals, +0.4 a deal that favours the same bot in both seats;
- ``trinomial count of pairs, rho +0.4``: the same correlated pairs counted as single matches,
  which is what pairs must not be: its false positive rate shows why ``ginref sprt`` counts
  pairs.

Under ``--model normalized`` the model's score is the one whose normalized Elo is elo0 (elo1)
for that kind of unit (found with scipy's brentq). Each rate is given with its 95% Wilson
interval; "ok" means the interval reaches down to the nominal rate or below, i.e. the measured
rate is not significantly above it.

Run: ``.venv/bin/python benchmarks/bench_sprt.py [--runs N] [--elo0 E] [--elo1 E]
[--alpha A] [--beta B] [--model logistic|normalized|both] [--max-matches N] [--seed S]``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from scipy.optimize import brentq  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tournaments.results.sprt import NELO_PER_UNIT, PENTANOMIAL, TRINOMIAL, simulate  # noqa: E402
from tournaments.results.sprt_settings import SprtSettings, elo_to_score  # noqa: E402

AS_MATCHES = [[2, 0, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, 2]]


def single(score: float) -> list[float]:
    """A match won with probability ``score``."""
    return [1.0 - score, 0.0, score]


def pairs(rho: float) -> Callable[[float], list[float]]:
    """Pairs of matches each won with probability ``score``, correlated ``rho``."""

    def probabilities(score: float) -> list[float]:
        both = score * score + rho * score * (1 - score)
        neither = (1 - score) ** 2 + rho * score * (1 - score)
        return [neither, 0.0, 1.0 - both - neither, 0.0, both]

    return probabilities


def normalized_elo(p: Sequence[float]) -> float:
    """The nElo of a unit distribution, as fastchess defines it for matches and for pairs."""
    scores = np.array(TRINOMIAL if len(p) == 3 else PENTANOMIAL)
    q = np.asarray(p)
    mean = float(np.sum(q * scores))
    variance = float(np.sum(q * (scores - mean) ** 2)) * (2.0 if len(p) == 5 else 1.0)
    return (mean - 0.5) / math.sqrt(variance) * NELO_PER_UNIT


def score_for(elo: float, model: str, unit: Callable[[float], list[float]]) -> float:
    """The per-match score whose Elo under ``model`` is ``elo`` for this kind of unit."""
    if model == "logistic":
        return elo_to_score(elo)
    return float(brentq(lambda s: normalized_elo(unit(s)) - elo, 0.05, 0.95))


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def rate(k: int, n: int, nominal: float) -> str:
    low, high = wilson(k, n)
    verdict = "ok" if low <= nominal else "ABOVE"
    return f"{k / n:6.1%} [{low:.1%}, {high:.1%}] {verdict}"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=1000, help="simulated tests per cell")
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=10.0)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--model", choices=["logistic", "normalized", "both"], default="both")
    parser.add_argument("--max-matches", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    models = ["logistic", "normalized"] if args.model == "both" else [args.model]
    units: list[tuple[str, Callable[[float], list[float]], list[list[int]] | None]] = [
        ("trinomial", single, None),
        ("pentanomial, rho -0.5", pairs(-0.5), None),
        ("pentanomial, rho 0", pairs(0.0), None),
        ("pentanomial, rho +0.4", pairs(0.4), None),
        ("trinomial count of pairs, rho +0.4", pairs(0.4), AS_MATCHES),
    ]
    rng = np.random.default_rng(args.seed)
    print(
        f"{args.runs} runs per cell; elo0 {args.elo0:g}, elo1 {args.elo1:g}, alpha "
        f"{args.alpha:g}, beta {args.beta:g}, at most {args.max_matches} matches; seed {args.seed}"
    )
    for model in models:
        settings = SprtSettings(
            elo0=args.elo0,
            elo1=args.elo1,
            alpha=args.alpha,
            beta=args.beta,
            model="normalized" if model == "normalized" else "logistic",
            max_matches=args.max_matches,
        )
        print(f"\nmodel {model}")
        print(
            f"{'units':38} {'false positives (true elo0)':34} {'false negatives (true elo1)':34}"
            f" {'matches at elo0 / elo1':>22} {'undecided':>9}"
        )
        for name, unit, increments in units:
            began = time.perf_counter()
            matches = []
            cells = []
            undecided = 0
            for elo, wrong, nominal in ((args.elo0, 1, args.alpha), (args.elo1, 0, args.beta)):
                if increments is not None and model == "normalized":
                    cells.append("-")  # the nElo of correlated pairs counted as matches is moot
                    continue
                probabilities = unit(score_for(elo, model, unit))
                sim = simulate(probabilities, settings, args.runs, rng, increments=increments)
                per_unit = 2 if len(probabilities) == 5 else 1
                cells.append(rate(int(np.sum(sim.decisions == wrong)), args.runs, nominal))
                matches.append(f"{per_unit * sim.units.mean():.0f}")
                undecided += int(np.sum(sim.decisions == -1))
            if not matches:
                continue
            print(
                f"{name:38} {cells[0]:34} {cells[1]:34} {' / '.join(matches):>22} "
                f"{undecided:>9}  ({time.perf_counter() - began:.0f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
