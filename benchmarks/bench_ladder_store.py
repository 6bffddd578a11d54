"""What a season costs as it grows: the journal's and the store's bytes per match, the time to
journal and rate one match, to choose a pairing among N bots, and to read the leaderboard.

    .venv/bin/python benchmarks/bench_ladder_store.py [--matches 20000] [--bots 200]

Matches are copies of one real match's record (a greedy-bot match played in-process) under new
keys and seats, so the sizes are a real match's; a million matches is this figure times 50.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import random
import statistics
import tempfile
import time
from pathlib import Path

from tournaments.journal.records import MatchRecord
from tournaments.journal.store import open_journal
from tournaments.ladder.matchmaking import choose
from tournaments.ladder.ratings_book import RatingsBook
from tournaments.ladder.store import open_season
from tournaments.schedule import MatchSpec


def one_record(directory: Path) -> MatchRecord:
    """A real match: two greedy bots, unsandboxed, in-process."""
    from tournaments.file.config import parse_text
    from tournaments.runner import TournamentRunner

    text = """name = "b"
matches = 1
workers = 0
[sandbox]
mode = "none"
[[bots]]
name = "a"
command = "{python} -m sample_bots.greedy_bot"
[[bots]]
name = "b"
command = "{python} -m sample_bots.greedy_bot"
"""
    config = parse_text(text).with_changes(out=str(directory / "t"))
    runner = TournamentRunner(config)
    try:
        asyncio.run(runner.run(1, check=False))
        return runner.journal.records()[0]
    finally:
        runner.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=20000)
    parser.add_argument("--bots", type=int, default=200)
    args = parser.parse_args()
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        sample = one_record(root)
        play = root / "play"
        play.mkdir()
        journal = open_journal(play)
        journal.initialise({"ladder": "bench"}, {}, [], [])
        bots = [f"e{i}@1" for i in range(args.bots)]
        journal.extend([{"name": b} for b in bots], [])
        store = open_season(root, create=True)
        book = RatingsBook(store, {})
        session = journal.start_session(1)
        commit, rate = [], []
        for n in range(1, args.matches + 1):
            a, b = rng.sample(bots, 2)
            spec = MatchSpec(f"{a}.{b}.{n:07d}", n, 1, (a, b), n, n, n, (a, b))
            record = dataclasses.replace(sample, key=spec.key, seats=(a, b), log_path=f"l/{n}")
            t0 = time.perf_counter()
            journal.extend([], [spec])
            journal.commit_match(record, session)
            t1 = time.perf_counter()
            book.rate(record)
            t2 = time.perf_counter()
            commit.append(t1 - t0)
            rate.append(t2 - t1)
        candidates = [book.candidate(b) for b in bots]
        picks = []
        for _ in range(200):
            t0 = time.perf_counter()
            choose(candidates, 1, rng, model=book.model)
            picks.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        records = journal.records()
        read = time.perf_counter() - t0
        journal.close()
        store.close()
        jbytes = sum(p.stat().st_size for p in play.glob("journal.sqlite*"))
        sbytes = sum(p.stat().st_size for p in root.glob("season.sqlite*"))
        per = args.matches
        print(f"{per} matches among {args.bots} bots; one match's log: {sample.log_bytes} bytes")
        print(f"journal: {jbytes / per:.0f} bytes a match; store: {sbytes / per:.0f} bytes a match")
        ms = statistics.median(commit) * 1e3
        print(f"journal one match (schedule + commit): median {ms:.2f} ms")
        print(f"rate one match (openskill + store): median {statistics.median(rate) * 1e3:.2f} ms")
        print(f"choose a pairing among {args.bots}: median {statistics.median(picks) * 1e3:.2f} ms")
        print(f"read every record ({len(records)}): {read:.2f} s")


if __name__ == "__main__":
    main()
