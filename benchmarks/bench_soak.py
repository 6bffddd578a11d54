"""Soak: many matches of random bots at once for a while; does the referee hold steady?

``--lanes`` series run concurrently on one referee server (loopback only, 127.0.0.1), each a
pair of random bots (sample_bots/random_bot.py) kept for ``--series`` matches and then
replaced by a fresh pair, until ``--seconds`` have passed or ``--matches`` matches are done
(the series in flight then finish). The rules are ``standard`` with ``scope = single_hand``:
two random bots rarely knock, so a match to 100 points takes thousands of decisions.
The bots run under the default resource limits (referee/bots/limits.py), so the watch over their
process groups is part of what is measured.

Reported, for the referee's own process: resident memory, open file descriptors and threads at
the start (server up, before the first bot) and at the end (every bot stopped), and at every
``--every`` seconds in between; decisions per second over each interval and overall, and the
matches played (a decision is counted when its request is written). A referee that leaks
grows in memory, descriptors or threads from interval to interval; one that slows shows falling
decisions per second.

Run: ``.venv/bin/python benchmarks/bench_soak.py [--lanes 8] [--seconds 60] [--matches 2000]``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import resource
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.bots.spec import BotSpec  # noqa: E402
from referee.engine.hand import Hand  # noqa: E402
from referee.engine.rules import Rules  # noqa: E402
from referee.series import run_series_async  # noqa: E402
from referee.server import RefereeServer  # noqa: E402
from referee.settings import RefereeOptions  # noqa: E402
from referee.wire import ginrummy_pb2 as pb  # noqa: E402

RANDOM = BotSpec((sys.executable, "-m", "sample_bots.random_bot"), "random")


@dataclass
class Sample:
    """The referee process at one moment."""

    at: float
    rss_mb: float
    fds: int
    threads: int
    children: int
    matches: int
    decisions: int


def rss_mb() -> float:
    """Resident memory of this process now (not the peak), MiB."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1 << 20)


def children() -> int:
    """Bot processes alive now (direct children of this process)."""
    me = str(os.getpid())
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if stat.rsplit(")", 1)[1].split()[1] == me:
                count += 1
    return count


class Soak:
    """The lanes, the counters and the samples."""

    def __init__(self, args: argparse.Namespace, out: Path) -> None:
        self.args = args
        self.out = out
        self.matches = 0
        self.decisions = 0
        self.faults = 0
        self.samples: list[Sample] = []
        self.began = time.perf_counter()
        self.rules = Rules.profile("standard", scope="single_hand")
        self.options = RefereeOptions(exit_grace=0.5, kill_grace=0.5)

    def sample(self) -> Sample:
        gc.collect()
        sample = Sample(
            at=time.perf_counter() - self.began,
            rss_mb=rss_mb(),
            fds=len(os.listdir("/proc/self/fd")),
            threads=len(os.listdir("/proc/self/task")),
            children=children(),
            matches=self.matches,
            decisions=self.decisions,
        )
        self.samples.append(sample)
        return sample

    def count(self, seat: int, message: pb.RefereeMessage, hand: Hand | None) -> None:
        if message.WhichOneof("kind") == "decision_request":
            self.decisions += 1

    def more(self) -> bool:
        a = self.args
        return bool(time.perf_counter() - self.began < a.seconds and self.matches < a.matches)

    async def lane(self, server: RefereeServer, number: int) -> None:
        seed = number * 1_000_000
        while self.more():
            seeds = list(range(seed, seed + self.args.series))
            seed += self.args.series
            series = await run_series_async(
                (RANDOM, RANDOM),
                self.rules,
                seeds,
                self.out / f"lane{number}",
                self.options,
                server=server,
                on_send=self.count,
            )
            for outcome in series.matches:
                self.matches += 1
                self.faults += len(outcome.faults)
            for log in (self.out / f"lane{number}").iterdir():
                log.unlink()  # keep the disk flat: the soak is about the referee

    async def run(self) -> None:
        server = RefereeServer()
        await server.start()
        first = self.sample()
        print(format_sample("start", first, None), flush=True)
        lanes = [asyncio.ensure_future(self.lane(server, n)) for n in range(self.args.lanes)]

        async def report() -> None:
            previous = first
            while True:
                await asyncio.sleep(self.args.every)
                now = self.sample()
                print(format_sample("", now, previous), flush=True)
                previous = now

        reporter = asyncio.ensure_future(report())
        try:
            await asyncio.gather(*lanes)
        finally:
            reporter.cancel()
            await asyncio.gather(reporter, return_exceptions=True)
            # The end, like the start, with the server up and no bot running.
            print(format_sample("end", self.sample(), None), flush=True)
            await server.stop(0.5)
        print(format_sample("stop", self.sample(), None), flush=True)


def format_sample(label: str, s: Sample, previous: Sample | None) -> str:
    rate = ""
    if previous is not None and s.at > previous.at:
        rate = f"{(s.decisions - previous.decisions) / (s.at - previous.at):8.0f} dec/s"
    return (
        f"{label:>5} {s.at:6.1f} s  rss {s.rss_mb:7.1f} MiB  fds {s.fds:4d}  threads {s.threads:3d}"
        f"  bots {s.children:3d}  matches {s.matches:5d}  decisions {s.decisions:8d}  {rate}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lanes", type=int, default=8, help="series at once")
    parser.add_argument("--series", type=int, default=10, help="matches per pair of processes")
    parser.add_argument("--seconds", type=float, default=60.0, help="stop starting series after")
    parser.add_argument("--matches", type=int, default=2000, help="stop after this many matches")
    parser.add_argument("--every", type=float, default=10.0, help="seconds between samples")
    args = parser.parse_args()
    print(
        f"soak: {args.lanes} lanes of random v random, {args.series} matches per process pair, "
        f"{args.seconds:g} s or {args.matches} matches; loopback; {os.cpu_count()} cores; "
        f"Python {sys.version.split()[0]}"
    )
    with tempfile.TemporaryDirectory(prefix="ginref-soak-") as tmp:
        soak = Soak(args, Path(tmp))
        asyncio.run(soak.run())
    first, last, stopped = soak.samples[0], soak.samples[-2], soak.samples[-1]
    steady = soak.samples[1:-2]
    rates = [
        (b.decisions - a.decisions) / (b.at - a.at)
        for a, b in zip(soak.samples[:-3], soak.samples[1:-2], strict=True)
        if b.at > a.at
    ]
    wall = last.at
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print()
    print(f"matches {soak.matches}, decisions {soak.decisions}, faults {soak.faults}, {wall:.1f} s")
    print(f"decisions/s overall: {soak.decisions / wall:.0f}", end="")
    if rates:
        print(f"; per interval: min {min(rates):.0f}, max {max(rates):.0f}")
    else:
        print()
    print(
        f"memory: {first.rss_mb:.1f} MiB at the start, {last.rss_mb:.1f} MiB at the end "
        f"(peak in between {max([s.rss_mb for s in steady] or [last.rss_mb]):.1f}; "
        f"max RSS {usage.ru_maxrss / 1024:.1f} MiB)"
    )
    print(
        f"open file descriptors: {first.fds} at the start, {last.fds} at the end "
        f"({stopped.fds} once the server stopped)"
    )
    print(
        f"threads: {first.threads} at the start, {last.threads} at the end "
        f"({stopped.threads} once the server stopped; python: {threading.active_count()})"
    )
    print(f"bot processes left: {last.children}")
    print(f"referee CPU: {usage.ru_utime + usage.ru_stime:.1f} s over {wall:.1f} s of wall time")


if __name__ == "__main__":
    main()
