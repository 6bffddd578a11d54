"""No bot plays one deal in two matches at once: its two instances could tell each other the
cards its opponents hold (docs/security.md). The runner holds a job back while one in play
shares a deal and a bot with it, and plays the others meanwhile."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from referee.bot_check import BotCheck
from tests.tournaments.test_config import config_of, record
from tournaments.executors.local import OnMatch
from tournaments.runner import TournamentRunner
from tournaments.schedule import Job, build_schedule, clash, make_jobs

KEY = b"k" * 32


def test_jobs_clash_when_a_bot_would_play_one_deal_twice() -> None:
    # Bots a, b, c; a round robin on shared deals (each pairing's own: test_deal_sharing.py).
    config = config_of("duplicate = true\nmatches = 4\nshared_deals = true\n")
    specs = build_schedule(config, KEY)
    jobs = {j.key: j for j in make_jobs(specs, keep=False)}
    # A duplicate pair: both bots, the same deal.
    assert clash(jobs["a.b/m001"], jobs["a.b/m002"])
    # Game 1 of every pairing plays the same deal: a and b each meet c on it.
    assert clash(jobs["a.b/m001"], jobs["a.c/m001"])
    assert clash(jobs["a.b/m001"], jobs["b.c/m001"])
    # Another deal, or no bot in common: nothing to tell.
    assert not clash(jobs["a.b/m001"], jobs["a.b/m003"])
    assert not clash(jobs["a.b/m001"], jobs["a.c/m003"])
    four = build_schedule(
        config_of('matches = 4\nshared_deals = true\n[[bots]]\nname = "d"\ncommand = "x"\n'), KEY
    )
    by_key = {j.key: j for j in make_jobs(four, keep=False)}
    assert not clash(by_key["a.b/m001"], by_key["d.c/m001"])
    # A kept series holds all its deals.
    series = make_jobs(specs, keep=True)
    assert clash(series[0], series[1])


class Recorder:
    """An executor that plays nothing: it notes what is in play whenever a job starts, lets
    the other lanes run, and reports each match."""

    def __init__(self) -> None:
        self.active: list[Job] = []
        self.clashes: list[tuple[str, str]] = []
        self.most = 0

    async def start(self) -> None:
        return None

    async def close(self, complete: bool = False) -> None:
        return None

    async def check(self, bots: Sequence[str], directory: Path, concurrency: int) -> list[BotCheck]:
        return []

    async def run(self, job: Job, directory: Path, on_match: OnMatch) -> None:
        self.clashes += [(job.key, other.key) for other in self.active if clash(job, other)]
        self.active.append(job)
        self.most = max(self.most, len(self.active))
        for _ in range(5):
            await asyncio.sleep(0)  # every other lane takes its turn meanwhile
        for spec in job.matches:
            on_match(record(spec.key, (spec.seats[0], spec.seats[1]), 0, (100, 0)))
        self.active.remove(job)


def test_the_runner_never_plays_clashing_jobs_at_once(tmp_path: Path) -> None:
    config = config_of("duplicate = true\nmatches = 6\n").with_changes(out=str(tmp_path / "t"))
    runner = TournamentRunner(config)
    executor = Recorder()
    try:
        result = asyncio.run(runner.run(concurrency=3, executor=executor, check=False))
    finally:
        runner.close()
    assert result.status == "complete" and result.done == 18
    assert executor.clashes == []
    assert executor.most >= 2  # jobs that share no deal still ran side by side
