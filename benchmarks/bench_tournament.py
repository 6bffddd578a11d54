"""Tournament throughput, where the wall time goes, and what duplicate deals buy.

Part 1, throughput: a round robin of the two sample bots (greedy against random, seeded) under
the standard profile, ``--matches`` matches, played by the tournament runner in-process at
``-j 1`` and ``-j 2``, with fresh processes per match and with one process pair kept for the
series. The bots are the sample bots' own policies wrapped in a stopwatch
(benchmarks/timed_bot.py). For each run: matches per minute, and the share of lane time
(wall time x lanes) spent

- in bot start-up: from launching the bots to the first MatchStart (journal ``startup_s``);
- in bot exit and idle lanes: lane time in neither start-up nor a match (bots exiting after a
  job, a lane with no job left);
- in the bots' thinking: their own ``decide`` time;
- in gRPC: the referee's measured round trip (request written -> reply read, the log's
  ``think_ms``) minus the bots' thinking: serialization and transport on both sides;
- in the referee: this process's CPU time (all threads, grpc's included), which is the figure
  the target "referee CPU under 10% of wall time" is about; the event-loop thread alone (engine,
  converters, scheduler, journal) is shown beside it.

Part 2, duplicate deals: the same bots plus the test suite's trivial bot (tests/support/testbot.py:
knock as soon as legal), a round robin of ``--dup-matches`` matches per pairing, once with
duplicate deals and once with independent deals (same master seed). For each pairing: the 95%
interval width of the mean score difference per match (X's final score minus Y's) from the
paired totals, from the same matches taken as independent, and from the independent run; and
the correlation of the two matches' differences within a deal (duplicate narrows the interval
only when it is negative). A control pairs two copies of the deterministic greedy bot, where the
two matches of a deal are the same game and the paired interval collapses to 0.

Run: ``.venv/bin/python benchmarks/bench_tournament.py [--matches N] [--dup-matches N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tournaments.file.config import parse_text  # noqa: E402
from tournaments.results.standings import compute_standings, mean_interval  # noqa: E402
from tournaments.runner import TournamentRunner  # noqa: E402

TIMED = ROOT / "benchmarks" / "timed_bot.py"
TESTBOT = ROOT / "tests" / "support" / "testbot.py"

SAMPLE_BOTS = f"""
[[bots]]
name = "greedy"
command = "{{python}} {TIMED} greedy"

[[bots]]
name = "random"
command = "{{python}} {TIMED} random"
env = {{ GINREF_BOT_SEED = "1" }}
"""
TRIVIAL_BOT = f"""
[[bots]]
name = "trivial"
command = "{{python}} {TESTBOT} play"
"""


def config_text(matches: int, processes: str, bots: str, extra: str = "") -> str:
    return (
        f'name = "bench"\nseed = 7\nmatches = {matches}\nprocesses = "{processes}"\n{extra}\n'
        "[faults]\nexit_grace = 2.0\n" + bots
    )


def decide_seconds(directory: Path) -> float:
    total = 0.0
    for path in directory.rglob("*.log"):
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("decide_seconds "):
                total += float(line.split()[1])
    return total


def run(text: str, concurrency: int, work: Path) -> tuple[dict[str, Any], TournamentRunner]:
    config = parse_text(text, "<bench>", ROOT)
    runner = TournamentRunner(config, work)
    result = asyncio.run(runner.run(concurrency=concurrency))
    assert result.status == "complete", result
    records = runner.journal.records()
    lanes = result.wall * concurrency
    startup = sum(r.startup_s or 0.0 for r in records)
    think = sum(r.think_ms[0] + r.think_ms[1] for r in records) / 1000
    compute = decide_seconds(work)
    in_matches = sum(r.elapsed_s or 0.0 for r in records)
    return {
        "matches": len(records),
        "wall": result.wall,
        "per_min": 60 * len(records) / result.wall,
        "startup": startup / lanes,
        "shutdown": max(0.0, lanes - startup - in_matches) / lanes,
        "bots": compute / lanes,
        "grpc": max(0.0, think - compute) / lanes,
        "referee_cpu": result.cpu / result.wall,
        "referee_main": result.main_cpu / result.wall,
        "decisions": sum(sum(r.decisions) for r in records),
    }, runner


def part1(matches: int) -> None:
    print(f"Part 1: round robin of the sample bots, {matches} matches, standard profile")
    head = (
        f"{'run':<16}{'matches/min':>12}{'start-up':>10}{'exit, gaps':>11}{'bots think':>11}"
        f"{'gRPC':>7}{'referee CPU':>12}{'(loop thread)':>14}{'µs CPU/decision':>16}"
    )
    print(head)
    for processes in ("fresh", "keep"):
        for j in (1, 2):
            with tempfile.TemporaryDirectory() as tmp:
                stats, runner = run(config_text(matches, processes, SAMPLE_BOTS), j, Path(tmp))
                runner.close()
            per = 1e6 * stats["referee_cpu"] * stats["wall"] / max(1, stats["decisions"])
            print(
                f"{processes + ', -j ' + str(j):<16}{stats['per_min']:>12.1f}"
                f"{100 * stats['startup']:>9.0f}%{100 * stats['shutdown']:>10.0f}%"
                f"{100 * stats['bots']:>10.1f}%{100 * stats['grpc']:>6.0f}%"
                f"{100 * stats['referee_cpu']:>11.0f}%{100 * stats['referee_main']:>13.0f}%"
                f"{per:>16.0f}"
            )
    print()


def diffs(runner: TournamentRunner, pairing: tuple[str, str]) -> list[float]:
    x = pairing[0]
    return [
        float(r.final[r.seat_of(x)] - r.final[1 - r.seat_of(x)])
        for r in runner.journal.records()
        if r.key.startswith(f"{pairing[0]}.{pairing[1]}.")
    ]


def pair_diffs(
    runner: TournamentRunner, pairing: tuple[str, str]
) -> tuple[list[float], list[float]]:
    """X's score difference in the first and in the second match of each deal."""
    x = pairing[0]
    by_deal: dict[int, list[float]] = {}
    for r in runner.journal.records():
        if r.key.startswith(f"{pairing[0]}.{pairing[1]}."):
            by_deal.setdefault(r.deal, []).append(
                float(r.final[r.seat_of(x)] - r.final[1 - r.seat_of(x)])
            )
    pairs = [v for v in by_deal.values() if len(v) == 2]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def correlation(a: list[float], b: list[float]) -> float:
    try:
        return statistics.correlation(a, b)
    except statistics.StatisticsError:
        return float("nan")


def width(interval: tuple[float, float] | None) -> float:
    return float("nan") if interval is None else interval[1] - interval[0]


def part2(matches: int) -> None:
    print(f"Part 2: duplicate against independent deals, {matches} matches per pairing")
    bots = SAMPLE_BOTS + TRIVIAL_BOT
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        dup, dup_runner = run(
            config_text(matches, "keep", bots, "duplicate = true"), 2, Path(tmp) / "d"
        )
        ind, ind_runner = run(config_text(matches, "keep", bots), 2, Path(tmp) / "i")
        names = dup_runner.journal.bot_names()
        standings = compute_standings(
            "dup", names, dup_runner.journal.records(), matches, duplicate=True, ratings=False
        )
        print(
            f"{'pairing':<20}{'mean diff':>10}{'paired':>9}{'same, unpaired':>16}"
            f"{'independent run':>17}{'narrowing':>11}"
        )
        ratios = []
        for d in standings.duplicate:
            independent = diffs(ind_runner, (d.x, d.y))
            ci_ind = mean_interval(independent)
            ratio = width(ci_ind) / width(d.paired_ci)
            ratios.append(ratio)
            print(
                f"{d.x + ' v ' + d.y:<20}{d.mean_diff or 0:>+10.1f}{width(d.paired_ci):>9.1f}"
                f"{width(d.unpaired_ci):>16.1f}{width(ci_ind):>17.1f}{ratio:>10.2f}x"
            )
            firsts, seconds = pair_diffs(dup_runner, (d.x, d.y))
            print(
                f"{'':<20}independent run mean {statistics.fmean(independent):+.1f}; "
                f"deal pairs {len(d.pairs)}: X won {d.x_pair_wins}, split {d.split}, "
                f"Y won {d.y_pair_wins}; within-pair correlation of the differences "
                f"{correlation(firsts, seconds):+.2f}"
            )
        dup_runner.close()
        ind_runner.close()
        # Control: two copies of the deterministic greedy bot. Each deal's two matches are the
        # same game with the bots' names swapped, so the paired difference is exactly 0.
        twins = SAMPLE_BOTS.split("[[bots]]")[1]
        twin_bots = "[[bots]]" + twins + "[[bots]]" + twins.replace('"greedy"', '"greedy-twin"', 1)
        _, twin_runner = run(
            config_text(20, "keep", twin_bots, "duplicate = true"), 2, Path(tmp) / "t"
        )
        (twin,) = compute_standings(
            "twin",
            twin_runner.journal.bot_names(),
            twin_runner.journal.records(),
            20,
            duplicate=True,
            ratings=False,
        ).duplicate
        print(
            f"{'control: greedy v greedy-twin':<32}paired {width(twin.paired_ci):.1f}, "
            f"same matches unpaired {width(twin.unpaired_ci):.1f} ({len(twin.pairs)} deal pairs)"
        )
        twin_runner.close()
    print(
        f"(95% interval widths of the mean score difference per match; {dup['matches']} + "
        f"{ind['matches']} matches in {time.perf_counter() - started:.0f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=24)
    parser.add_argument("--dup-matches", type=int, default=40)
    parser.add_argument("--skip", choices=("throughput", "duplicate"))
    args = parser.parse_args()
    if args.skip != "throughput":
        part1(args.matches)
    if args.skip != "duplicate":
        part2(args.dup_matches)


if __name__ == "__main__":
    main()
