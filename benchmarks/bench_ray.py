"""Time per job, local executor vs Ray executor: what a Ray task adds to a match.

Two trivial bots (``sample_bots.random_bot``, two of them, single-hand matches: a few
milliseconds of play) play ``--jobs`` one-match jobs one after another, first through
:class:`~tournaments.executors.local.LocalExecutor`, then through
:class:`~tournaments.executors.cluster.RayExecutor` (a local Ray instance started for the run, or
``--address``). Each job is timed from the executor's ``run`` call to its return: bot start,
match, bot stop, and with Ray the task's scheduling, its own referee server and sandbox check,
and the record and files sent back. The first job of each executor is a warm-up, not counted.

Run: ``.venv/bin/python benchmarks/bench_ray.py [--jobs N] [--sandbox none|bwrap]
[--address ADDR]`` (needs ``pip install 'ginref[ray]'``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

from tournaments.executors.cluster import RayExecutor
from tournaments.executors.local import Executor, LocalExecutor
from tournaments.file.config import parse_text
from tournaments.runner import TournamentRunner
from tournaments.schedule import make_jobs

FILE = """
name = "bench-ray"
seed = 1
matches = {matches}
[rules.set]
scope = "single_hand"
[sandbox]
mode = "{sandbox}"
[faults]
exit_grace = 0.5
kill_grace = 0.5
[[bots]]
name = "a"
command = "{{python}} -m sample_bots.random_bot"
env = {{ GINREF_BOT_SEED = "1" }}
[[bots]]
name = "b"
command = "{{python}} -m sample_bots.random_bot"
env = {{ GINREF_BOT_SEED = "2" }}
"""


async def per_job(executor: Executor, runner: TournamentRunner, jobs: int) -> list[float]:
    """Seconds per job, ``jobs`` + 1 one-match jobs in a row, the first left out."""
    await executor.start()
    times: list[float] = []
    try:
        for job in make_jobs(runner.schedule[: jobs + 1], keep=False, lanes=1):
            began = time.perf_counter()
            await executor.run(job, runner.job_directory(job), lambda record: True)
            times.append(time.perf_counter() - began)
    finally:
        await executor.close()
    return times[1:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=20)
    parser.add_argument("--sandbox", choices=("none", "bwrap"), default="bwrap")
    parser.add_argument("--address", help="a Ray cluster (default: a local one for the run)")
    args = parser.parse_args()
    results: dict[str, list[float]] = {}
    for name in ("local", "ray"):
        with tempfile.TemporaryDirectory(prefix="bench-ray-") as tmp:
            text = FILE.format(matches=args.jobs + 1, sandbox=args.sandbox)
            config = parse_text(text, base=Path(tmp)).with_changes(out=str(Path(tmp) / "t"))
            runner = TournamentRunner(config)
            try:
                executor: Executor = (
                    LocalExecutor(config, runner.directory)
                    if name == "local"
                    else RayExecutor(config, runner.directory, args.address)
                )
                results[name] = asyncio.run(per_job(executor, runner, args.jobs))
            finally:
                runner.close()
    print(
        f"python {platform.python_version()}, ray {version('ray')}, {os.cpu_count()} CPUs, "
        f"sandbox {args.sandbox}, {args.jobs} one-match jobs each (single-hand, random bots)"
    )
    for name, times in results.items():
        print(
            f"{name:6} median {statistics.median(times) * 1000:7.1f} ms/job   "
            f"min {min(times) * 1000:7.1f}   max {max(times) * 1000:7.1f}"
        )
    overhead = statistics.median(results["ray"]) - statistics.median(results["local"])
    print(f"Ray adds {overhead * 1000:.1f} ms per job (median)")


if __name__ == "__main__":
    main()
