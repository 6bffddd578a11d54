"""Tournament throughput by executor: in-process, one worker process, two worker processes.

A round robin of four C++ sample bots (``sample_bots/cpp/out/greedy_bot`` and ``random_bot``,
two of each, seeded as in ``tournaments/languages.toml``), ``--matches`` matches per pairing,
kept processes (one pair per series, so start-ups do not dominate), unsandboxed, ``-j``
``--lanes`` jobs at once. The C++ bots answer in microseconds, so the referee is the
bottleneck. Each round plays the same tournament (same master seed) once per executor, the
executors in turn, so that a machine whose load drifts harms each alike; the figures are
medians over ``--rounds`` rounds.

For each executor: decisions per second and matches per minute of the run's play (the bots'
check and the workers' start before it excluded), and the referee's CPU per decision: the
tournament process's CPU during play plus every worker's own CPU since it was ready (its
start-up excluded), over the decisions played. The ratio is each round's decisions per second
against the in-process executor's in the same round, median over the rounds.
Beside them, how busy the machine's cores were during the run (``/proc/stat``: every process,
other people's too): workers can only use cores that are free.

Run: ``.venv/bin/python benchmarks/bench_workers.py [--matches N] [--rounds N] [--lanes N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tournaments.executors.local import Executor, LocalExecutor  # noqa: E402
from tournaments.executors.workers import WorkerExecutor  # noqa: E402
from tournaments.file.config import parse_text  # noqa: E402
from tournaments.runner import TournamentRunner  # noqa: E402

CPP = ROOT / "sample_bots" / "cpp" / "out"
MODES = ("in-process", "1 worker", "2 workers")


def config_text(matches: int, seed: int) -> str:
    bots = [("greedy-a", "greedy_bot", 0), ("greedy-b", "greedy_bot", 0)]
    bots += [("random-a", "random_bot", 3), ("random-b", "random_bot", 4)]
    text = f'name = "bench-workers"\nseed = {seed}\nmatches = {matches}\nprocesses = "keep"\n'
    text += 'check_bots = false\n[sandbox]\nmode = "none"\n'
    for name, program, bot_seed in bots:
        text += f'\n[[bots]]\nname = "{name}"\ncommand = "{CPP / program}"\n'
        if bot_seed:
            text += f'env = {{ GINREF_BOT_SEED = "{bot_seed}" }}\n'
    return text


def busy() -> tuple[int, int]:
    """The machine's busy and total CPU ticks so far (every core, every process)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return sum(fields) - idle, sum(fields)


def run(mode: str, matches: int, seed: int, lanes: int, work: Path) -> dict[str, float]:
    config = parse_text(config_text(matches, seed), base=ROOT)
    config = config.with_changes(out=str(work / f"{mode.replace(' ', '-')}-{seed}"))
    runner = TournamentRunner(config)
    executor: Executor
    if mode == "in-process":
        executor = LocalExecutor(config, runner.directory)
    else:
        executor = WorkerExecutor(config, runner.directory, workers=int(mode.split()[0]))
    busy0, total0 = busy()
    try:
        result = asyncio.run(runner.run(lanes, executor=executor))
        busy1, total1 = busy()
        decisions = sum(sum(r.decisions) for r in runner.journal.records())
    finally:
        runner.close()
    assert result.status == "complete", result.errors
    cpu = result.referee_cpu
    return {
        "decisions_per_s": decisions / result.wall,
        "matches_per_min": 60 * result.played / result.wall,
        "cpu_us_per_decision": 1e6 * cpu / decisions,
        "decisions": decisions,
        "machine_busy": (busy1 - busy0) / max(1, total1 - total0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=6, help="per pairing (6 pairings)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--lanes", type=int, default=4, help="-j: jobs at once")
    args = parser.parse_args()
    missing = [p for p in ("greedy_bot", "random_bot") if not (CPP / p).exists()]
    if missing:
        sys.exit(f"build the C++ sample bots first (sample_bots/cpp): {', '.join(missing)}")
    results: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
    with tempfile.TemporaryDirectory() as tmp:
        for round_ in range(args.rounds):
            for mode in MODES:
                figures = run(mode, args.matches, 1000 + round_, args.lanes, Path(tmp))
                results[mode].append(figures)
                print(
                    f"round {round_ + 1} {mode:>10}: {figures['decisions_per_s']:7.0f} dec/s "
                    f"{figures['matches_per_min']:6.1f} matches/min "
                    f"{figures['cpu_us_per_decision']:5.0f} us CPU/decision, "
                    f"cores {100 * figures['machine_busy']:3.0f}% busy",
                    flush=True,
                )
    print(f"\nMedians of {args.rounds} rounds, {6 * args.matches} matches each, -j {args.lanes}:")
    print(
        f"{'executor':>10}  {'dec/s':>7}  {'matches/min':>11}  {'us CPU/dec':>10}  "
        f"{'cores busy':>10}  ratio"
    )
    for mode in MODES:
        dps = statistics.median(r["decisions_per_s"] for r in results[mode])
        mpm = statistics.median(r["matches_per_min"] for r in results[mode])
        cpu = statistics.median(r["cpu_us_per_decision"] for r in results[mode])
        load = statistics.median(r["machine_busy"] for r in results[mode])
        # The median of each round's ratio: a round's executors shared that round's machine.
        ratio = statistics.median(
            r["decisions_per_s"] / b["decisions_per_s"]
            for r, b in zip(results[mode], results[MODES[0]], strict=True)
        )
        print(
            f"{mode:>10}  {dps:7.0f}  {mpm:11.1f}  {cpu:10.0f}  {100 * load:9.0f}%  {ratio:5.2f}x"
        )


if __name__ == "__main__":
    main()
