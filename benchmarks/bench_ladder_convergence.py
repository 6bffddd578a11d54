"""How fast the ladder's leaderboard finds the true order of its bots, against a round robin.

Six bots of known order: ``random`` (the random sample bot), ``greedy-e60``, ``greedy-e30`` and
``greedy-e10`` (the greedy sample bot, which plays a uniformly random legal action instead with
probability 0.6, 0.3, 0.1), ``greedy`` (the greedy sample bot) and ``reference`` (the
look-ahead player of ``ginref_rl.reference_bot``, every candidate discard weighed: no clock).

1. **The truth.** A large round robin: every pairing plays ``--deals`` duplicate pairs (deals
   1, 2, ...; each deal twice, seats swapped), standard profile (to 100 points), the match
   decided as the referee decides it. The true order is the order of the bots' points in it
   (1 a win, ½ no winner), printed with every pairing's score. These matches are the pool the
   rest draws from: a job of the runs below is one of its pairing's duplicate pairs, drawn at
   random (with replacement), so the truth is exactly the expectation of what the runs see.
2. **The runs**, on the same budget of matches (``--budget``), each over ``--seeds`` seeds:

   - ``ladder``: the bots arrive in a random order, two at the start and the others one
     every ``--arrive-every`` matches (default 50); ``--slots`` jobs are in play at once
     (a job is a duplicate pair), and whenever one finishes its two matches are rated
     (``tournaments.ladder.rating``, openskill's Plackett–Luce) and the next job is chosen by
     ``tournaments.ladder.matchmaking.choose`` from the ratings of that moment; the leaderboard
     ranks by the conservative rating ``mu - k sigma``. A bot is ``new`` for its first 10
     matches. The ratings' and the matchmaker's settings are the season's defaults unless
     given (``--model``, ``--tau``, ``--k``, ``--sharpness``), so that others can be compared.
   - ``ladder, all at start``: the same with every bot there from the first match.
   - ``round robin, points``: every pairing in turn (each cycle in a new random order), ranked
     by points (a tie is not an order).
   - ``round robin, openskill``: the same matches rated as the ladder rates its own.

   For each: the number of matches after which the leaderboard's order is the true one and
   stays so to the end of the budget (medians and quartiles over the seeds; ``>B`` if it was
   not right at the end), and Kendall's tau (tau-b) between the leaderboard and the truth at
   fixed budgets (a bot not yet arrived is ranked last, tied with the others not there); and
   the share of the matches played between neighbours in the true order, the pairings that
   decide it.

The matches are played in this process on the engine (``referee.engine.match.Match``), the
bots' own decision functions (``sample_bots``, ``ginref_rl.reference_bot``) answering the
requests the referee would send (``bench_pairing.play``; no bot processes, no sockets, no
clock): what is measured is the rating and the matchmaking, not the referee. The pool is
played over ``-j`` worker processes (about 2.5 minutes on two idle cores, 5.5 at a load of 4)
and can be kept in a file (``--pool``) so that a second run only simulates (half a minute).
Figures: docs/ladder.md, "How soon the leaderboard is right".

Run: ``.venv/bin/python benchmarks/bench_ladder_convergence.py [--seeds N] [--budget B]
[--deals D] [--slots S] [--max-per-bot M] [--arrive-every N] [-j J] [--pool FILE]``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from scipy.stats import kendalltau

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_pairing import Policy, play  # noqa: E402

from ginref_rl import reference_bot  # noqa: E402
from referee.engine.rules import Rules  # noqa: E402
from referee.wire import ginrummy_pb2 as pb  # noqa: E402
from sample_bots import greedy_bot, random_bot  # noqa: E402
from tournaments.ladder.matchmaking import SHARPNESS, Candidate, choose  # noqa: E402
from tournaments.ladder.rating import Rating, RatingModel  # noqa: E402

# Weakest first: the true order, if the round robin agrees (it is checked, not assumed).
BOTS = ("random", "greedy-e60", "greedy-e30", "greedy-e10", "greedy", "reference")
EPSILON = {"greedy-e60": 0.6, "greedy-e30": 0.3, "greedy-e10": 0.1}
NEW_MATCHES = 10  # a bot is "new" to the matchmaker for its first matches
Pair = tuple[float, float]  # the lower-indexed bot's score in seat 0, then in seat 1


def policy(bot: str, seed: int) -> Policy:
    """``bot``'s decision function for one match, its random moves seeded by ``seed``."""
    if bot == "random":
        return random_bot.make_decide(seed)
    if bot == "greedy":
        return greedy_bot.decide
    if bot == "reference":
        # A clock that never moves: every candidate discard is weighed, whatever the load.
        return reference_bot.make_decide(clock=lambda: 0.0)
    eps, rng = EPSILON[bot], random.Random(seed)

    def decide(request: pb.DecisionRequest) -> pb.Action:
        if rng.random() < eps:
            choice: pb.Action = rng.choice(request.legal_actions)
            return choice
        return greedy_bot.decide(request)

    return decide


def duplicate_pairs(task: tuple[int, int, Sequence[int]]) -> list[Pair]:
    """Bot ``i``'s scores against bot ``j`` on each deal of ``deals``, both seatings."""
    i, j, deals = task
    rules = Rules.profile("standard")
    out = []
    for d in deals:
        a, b = BOTS[i], BOTS[j]
        first = play(rules, d, policy(a, 4 * d), policy(b, 4 * d + 1))
        second = 1.0 - play(rules, d, policy(b, 4 * d + 2), policy(a, 4 * d + 3))
        out.append((first, second))
    return out


def build_pool(deals: int, workers: int) -> dict[tuple[int, int], list[Pair]]:
    """Every pairing's duplicate pairs on deals 1..``deals``, over ``workers`` processes."""
    chunk = 10
    tasks = [
        (i, j, range(k, min(k + chunk, deals + 1)))
        for i, j in itertools.combinations(range(len(BOTS)), 2)
        for k in range(1, deals + 1, chunk)
    ]
    pool: dict[tuple[int, int], list[Pair]] = {}
    with ProcessPoolExecutor(workers) as executor:
        for (i, j, _), pairs in zip(tasks, executor.map(duplicate_pairs, tasks), strict=True):
            pool.setdefault((i, j), []).extend(pairs)
    return pool


# --- the truth --------------------------------------------------------------------------------


def truth(pool: dict[tuple[int, int], list[Pair]]) -> list[int]:
    """The bots by their round robin points, best first."""
    points = [0.0] * len(BOTS)
    for (i, j), pairs in pool.items():
        won = sum(a + b for a, b in pairs)
        points[i] += won
        points[j] += 2 * len(pairs) - won
    return sorted(range(len(BOTS)), key=lambda b: -points[b])


def truth_table(pool: dict[tuple[int, int], list[Pair]], order: list[int]) -> str:
    """Each pairing's score (the better bot's share, with a 95% interval over the deals)."""
    lines = [f"{'pairing':<26} {'matches':>7}  {'score of the first':>18}  95% interval"]
    for hi, lo in itertools.combinations(order, 2):
        i, j = min(hi, lo), max(hi, lo)
        pair_means = [(a + b) / 2 if hi == i else 1 - (a + b) / 2 for a, b in pool[(i, j)]]
        mean = statistics.fmean(pair_means)
        half = 1.96 * statistics.stdev(pair_means) / math.sqrt(len(pair_means))
        lines.append(
            f"{BOTS[hi] + ' v ' + BOTS[lo]:<26} {2 * len(pair_means):>7}  {mean:>18.3f}  "
            f"[{mean - half:.3f}, {mean + half:.3f}]"
        )
    return "\n".join(lines)


# --- the runs ---------------------------------------------------------------------------------


@dataclass
class Board:
    """Ratings and points of the bots so far, and the leaderboard each one ranks by."""

    model: RatingModel
    ratings: dict[int, Rating] = field(default_factory=dict)
    games: dict[int, int] = field(default_factory=dict)
    points: dict[int, float] = field(default_factory=dict)
    played: Counter[tuple[int, int]] = field(default_factory=Counter)  # matches per pairing

    def join(self, bot: int) -> None:
        self.ratings[bot], self.games[bot], self.points[bot] = self.model.initial(), 0, 0.0

    def job(
        self, pool: dict[tuple[int, int], list[Pair]], a: int, b: int, rng: random.Random
    ) -> None:
        """A duplicate pair of ``a`` (seat 0 first) and ``b``, drawn from the pool, rated."""
        for first, second, score in zip((a, b), (b, a), draw(pool, a, b, rng), strict=True):
            self.record(first, second, score if first == a else 1.0 - score)
        self.played[(min(a, b), max(a, b))] += 2

    def record(self, first: int, second: int, score: float) -> None:
        """One match of ``first`` (seat 0) and ``second``, ``score`` the first's."""
        places = [1, 1] if score == 0.5 else [1, 2] if score == 1.0 else [2, 1]
        a, b = self.model.rate([self.ratings[first], self.ratings[second]], places)
        self.ratings[first], self.ratings[second] = a, b
        for bot, got in ((first, score), (second, 1.0 - score)):
            self.games[bot] += 1
            self.points[bot] += got

    def by_rating(self) -> list[float]:
        return self._keys(lambda b: self.model.conservative(self.ratings[b]))

    def by_points(self) -> list[float]:
        return self._keys(lambda b: self.points[b])

    def _keys(self, value: Callable[[int], float]) -> list[float]:
        # A bot not arrived yet is last.
        return [value(b) if b in self.ratings else -math.inf for b in range(len(BOTS))]


@dataclass
class Trace:
    """One run's leaderboard after each job: (matches so far, each bot's sort key)."""

    points: list[tuple[int, list[float]]] = field(default_factory=list)
    played: Counter[tuple[int, int]] = field(default_factory=Counter)

    def neighbours(self, order: list[int]) -> float:
        """The share of the matches played between neighbours in the true order."""
        near = sum(self.played[(min(a, b), max(a, b))] for a, b in itertools.pairwise(order))
        return near / max(1, sum(self.played.values()))

    def settled(self, order: list[int], budget: int) -> float:
        """The matches after which the order was right to the end (inf: not right at the end)."""
        when = math.inf
        for matches, keys in reversed(self.points):
            if not right(keys, order):
                break
            when = matches
        return when if self.points and self.points[-1][0] >= budget else math.inf

    def tau(self, order: list[int], at: int) -> float:
        keys = next(k for m, k in self.points if m >= at)
        truth_rank = [len(order) - order.index(b) for b in range(len(BOTS))]
        return float(kendalltau(truth_rank, keys).statistic)


def right(keys: list[float], order: list[int]) -> bool:
    """Whether ``keys`` rank the bots strictly in ``order`` (best first)."""
    return all(keys[a] > keys[b] for a, b in itertools.pairwise(order))


def draw(pool: dict[tuple[int, int], list[Pair]], a: int, b: int, rng: random.Random) -> Pair:
    """A duplicate pair of ``a`` (seat 0 first) and ``b``, drawn from the pool: ``a``'s scores."""
    first, second = rng.choice(pool[(min(a, b), max(a, b))])
    return (first, second) if a < b else (1.0 - first, 1.0 - second)


def model(args: argparse.Namespace) -> RatingModel:
    return RatingModel(args.model, tau=args.tau, k=args.k)


def ladder(
    pool: dict[tuple[int, int], list[Pair]], args: argparse.Namespace, seed: int, arrive: bool
) -> Trace:
    rng = random.Random(seed)
    board, trace = Board(model(args)), Trace()
    arrivals = list(range(len(BOTS)))
    rng.shuffle(arrivals)
    start = 2 if arrive else len(BOTS)
    due = [(0, b) for b in arrivals[:start]]
    due += [(args.arrive_every * (n + 1), b) for n, b in enumerate(arrivals[start:])]
    inflight: list[tuple[int, int]] = []
    matches = 0
    while matches < args.budget:
        while due and due[0][0] <= matches:
            board.join(due.pop(0)[1])
        busy: dict[str, int] = {}
        for job in inflight:
            for b in job:
                busy[BOTS[b]] = busy.get(BOTS[b], 0) + 1
        candidates = [
            Candidate(BOTS[b], r, board.games[b], board.games[b] < NEW_MATCHES)
            for b, r in board.ratings.items()
        ]
        for p in choose(
            candidates,
            args.slots - len(inflight),
            rng,
            busy=busy,
            max_per_bot=args.max_per_bot,
            sharpness=args.sharpness,
            model=board.model,
        ):
            inflight.append((BOTS.index(p.first), BOTS.index(p.second)))
        if not inflight:  # fewer than two bots yet: the next arrival comes sooner
            matches = due[0][0]
            continue
        board.job(pool, *inflight.pop(0), rng)  # the oldest job finishes first
        matches += 2
        trace.points.append((matches, board.by_rating()))
    trace.played = board.played
    return trace


def round_robin(
    pool: dict[tuple[int, int], list[Pair]], args: argparse.Namespace, seed: int
) -> tuple[Trace, Trace]:
    rng = random.Random(seed)
    board = Board(model(args))
    for b in range(len(BOTS)):
        board.join(b)
    by_points, by_rating = Trace(), Trace()
    pairings = list(itertools.combinations(range(len(BOTS)), 2))
    matches = 0
    while matches < args.budget:
        rng.shuffle(pairings)
        for a, b in pairings:
            if matches >= args.budget:
                break
            board.job(pool, a, b, rng)
            matches += 2
            by_points.points.append((matches, board.by_points()))
            by_rating.points.append((matches, board.by_rating()))
    by_points.played = by_rating.played = board.played
    return by_points, by_rating


# --- the report -------------------------------------------------------------------------------


def quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    """The lower quartile, median and upper quartile, each a value of ``values`` (nearest
    rank), so that an unsettled run (inf) counts as more than the budget and nothing else."""
    ranked = sorted(values)
    return tuple(ranked[round(q * (len(ranked) - 1))] for q in (0.25, 0.5, 0.75))  # type: ignore[return-value]


def settled_words(values: Sequence[float], budget: int) -> str:
    q1, med, q3 = (f">{budget}" if math.isinf(v) else f"{v:.0f}" for v in quartiles(values))
    return f"{med} [{q1}, {q3}]"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seeds", type=int, default=100, help="runs of each method")
    parser.add_argument("--budget", type=int, default=1200, help="matches per run")
    parser.add_argument("--deals", type=int, default=100, help="duplicate pairs per pairing")
    parser.add_argument("--slots", type=int, default=2, help="ladder jobs in play at once")
    parser.add_argument("--max-per-bot", type=int, default=4, help="ladder jobs per bot at once")
    parser.add_argument("--arrive-every", type=int, default=50, help="matches between arrivals")
    parser.add_argument("--sharpness", type=float, default=SHARPNESS, help="for close matches")
    parser.add_argument("--model", default="plackett-luce", help="openskill's model")
    parser.add_argument("--tau", type=float, default=0.0, help="openskill's drift per match")
    parser.add_argument("--k", type=float, default=3.0, help="the leaderboard's mu - k sigma")
    parser.add_argument("-j", type=int, default=min(2, os.cpu_count() or 1), help="processes")
    parser.add_argument("--pool", type=Path, help="keep the round robin's results in this file")
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.budget < 2 or args.deals < 2 or args.slots < 1:
        parser.error("--seeds, --slots: at least 1; --budget, --deals: at least 2")

    print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    print("matches played in this process on the engine (no bot processes, no referee clock):")
    print("what is measured is the rating and the matchmaking\n")
    started = time.perf_counter()
    if args.pool is not None and args.pool.exists():
        raw = json.loads(args.pool.read_text())
        pool = {(int(k.split(",")[0]), int(k.split(",")[1])): [tuple(p) for p in v]
                for k, v in raw.items()}  # fmt: skip
    else:
        pool = build_pool(args.deals, args.j)
        if args.pool is not None:
            args.pool.write_text(json.dumps({f"{i},{j}": v for (i, j), v in pool.items()}))
    order = truth(pool)
    deals = len(next(iter(pool.values())))
    print(f"The truth: a round robin of {deals} duplicate pairs per pairing "
          f"({2 * deals * len(pool)} matches, standard profile, "
          f"{time.perf_counter() - started:.0f} s)")  # fmt: skip
    print("order, best first: " + " > ".join(BOTS[b] for b in order))
    print(truth_table(pool, order) + "\n")

    # Early budgets: by the end every method has the order nearly right, the question is when.
    fixed = sorted({max(2, args.budget * n // 24) for n in (1, 2, 4, 12)})
    traces: dict[str, list[Trace]] = {
        "ladder": [],
        "ladder, all at start": [],
        "round robin, points": [],
        "round robin, openskill": [],
    }
    started = time.perf_counter()
    for seed in range(1, args.seeds + 1):
        traces["ladder"].append(ladder(pool, args, seed, arrive=True))
        traces["ladder, all at start"].append(ladder(pool, args, seed, arrive=False))
        points, rated = round_robin(pool, args, seed)
        traces["round robin, points"].append(points)
        traces["round robin, openskill"].append(rated)
    print(
        f"{args.seeds} seeds, budget {args.budget} matches, ladder: {args.slots} jobs at once, "
        f"at most {args.max_per_bot} per bot, duplicate pairs "
        f"({time.perf_counter() - started:.0f} s)"
    )
    head = f"{'method':<24} {'right at end':>12}  {'settled after':>22}  {'neighbours':>10}"
    head += "".join(f"  {'tau @ ' + str(b):>18}" for b in fixed)
    print("median [lower quartile, upper quartile] over the seeds; settled after: the matches")
    print("after which the leaderboard's order was the true one and stayed so to the end of the")
    print("budget; neighbours: the share of the matches played between bots next to each other")
    print("in the true order (the ones that decide it); tau: Kendall's tau-b with the truth")
    print(head)
    for name, runs in traces.items():
        settle = [t.settled(order, args.budget) for t in runs]
        ok = sum(not math.isinf(s) for s in settle)
        near = statistics.median(t.neighbours(order) for t in runs)
        line = f"{name:<24} {f'{ok}/{len(runs)}':>12}  {settled_words(settle, args.budget):>22}"
        line += f"  {near:>10.0%}"
        for b in fixed:
            q1, med, q3 = quartiles([t.tau(order, b) for t in runs])
            line += f"  {med:>5.2f} [{q1:.2f}, {q3:.2f}]"
        print(line)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
