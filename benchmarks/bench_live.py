"""What watching a tournament costs: the live page's poll (``ginref live``,
tournaments/live/watch.py).

Part 1, the poll against the tournament's size: a directory with N journaled matches (each log
in a job directory of its own, as fresh processes leave them) and two matches in progress,
whose logs grow by 20 records between two polls. For each N: the time of a poll when nothing
changed, of one when the two logs grew, of one after a match was committed (the journal read
again, standings not yet refitted), of a standings refit (journal read and ratings fitted), and
the size of the state the page downloads.

Part 2, ``ginref live`` beside a real tournament: the embedded default tournament (the sample
bots, 18 matches) run by ``ginref tournament -j 2`` while ``ginref live`` watches it with the
default interval (1 s); the live process's CPU time against the wall time of the run.

Run: ``.venv/bin/python benchmarks/bench_live.py [--sizes 100,1000,4000] [--no-tournament]``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from replays.spectate import Spectator  # noqa: E402
from tests.support.live_tournament import Tournament, spec  # noqa: E402
from tournaments.live.watch import FRESH_S, TournamentWatch  # noqa: E402


def timed(action: object, repeat: int) -> float:
    """Median seconds of ``repeat`` calls."""
    assert callable(action)
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        action()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def poll_costs(size: int, folder: Path) -> dict[str, float]:
    names = ("ann", "bob")
    schedule = [spec(f"ann.bob.{k:05d}", k, names if k % 2 else names[::-1], k + 1, k + 1)
                for k in range(size + 3)]  # fmt: skip
    t = Tournament(folder / f"t{size}", schedule)
    # As a run of fresh processes lays them out: logs/<pairing>/m<game>/, here 20 pairings.
    t.path = (
        lambda key: (  # type: ignore[method-assign]
            t.directory / "logs" / f"p{int(key[-5:]) % 20:02d}" / f"m{key[-5:]}" / f"{key}.jsonl"
        )
    )
    # Every journaled match gets its own (small) log, in its own job directory.
    template = None
    for s in schedule[:size]:
        if template is None:
            t.log(s.key)
            template = t.lines[s.key]
        else:
            t.lines[s.key] = template
        t.finish(s.key)
    live = [s.key for s in schedule[size : size + 2]]
    for key in live:
        t.log(key)
    watch = TournamentWatch(t.directory, Spectator)
    watch.open()
    watch.poll()
    watch.poll()  # the standings' first fit (and its library's import) out of the way
    time.sleep(FRESH_S)  # as a run's finished directories are: not changed in the last seconds
    watch.poll()
    quiet = timed(watch.poll, 50)

    def grow() -> None:
        for key in live:
            t.grow(key, 20)
        watch.poll()

    growing = timed(grow, 5)
    state = len(json.dumps(watch.state(), separators=(",", ":")))
    t.log(schedule[size + 2].key)
    t.finish(schedule[size + 2].key)
    watch._standings_next = float("inf")  # the commit alone, without the refit
    commit = timed(watch.poll, 1)
    watch._standings_next = 0.0
    refit = timed(watch._refit, 3)
    watch.close()
    t.journal.close()
    return {"quiet": quiet, "growing": growing, "commit": commit, "refit": refit, "state": state}


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def beside_a_tournament(folder: Path) -> tuple[float, float, int]:
    out = folder / "run"
    ginref = [sys.executable, "-m", "ginref"]
    began = time.monotonic()
    run = subprocess.Popen([*ginref, "tournament", "--out", str(out), "-j", "2", "-q"], cwd=ROOT,
                           stdout=subprocess.DEVNULL)  # fmt: skip
    while not (out / "journal.sqlite").exists():
        time.sleep(0.05)
    live = subprocess.Popen([*ginref, "live", str(out), "--port", "0"], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert live.stdout is not None
    live.stdout.readline()
    start_cpu = cpu_seconds(live.pid)
    watched = time.monotonic()
    run.wait()
    time.sleep(2)  # two more polls: the end of the run seen
    wall = time.monotonic() - watched
    cpu = cpu_seconds(live.pid) - start_cpu
    live.send_signal(signal.SIGINT)
    live.wait()
    del began
    return wall, cpu, len(list((out / "logs").rglob("*.jsonl")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100,1000,4000")
    parser.add_argument("--no-tournament", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        print("journaled  quiet poll  2 logs +20 records  a commit  standings refit  state")
        for size in (int(n) for n in args.sizes.split(",")):
            c = poll_costs(size, folder)
            print(
                f"{size:9d}  {c['quiet'] * 1e3:7.2f} ms  {c['growing'] * 1e3:15.2f} ms"
                f"  {c['commit'] * 1e3:6.1f} ms  {c['refit'] * 1e3:12.1f} ms"
                f"  {c['state'] / 1024:5.1f} KiB"
            )
        if not args.no_tournament:
            wall, cpu, logs = beside_a_tournament(folder)
            print(
                f"ginref live beside the default tournament ({logs} matches, -j 2): "
                f"{cpu:.2f} s CPU in {wall:.1f} s of wall time ({100 * cpu / wall:.1f}%)"
            )


if __name__ == "__main__":
    main()
