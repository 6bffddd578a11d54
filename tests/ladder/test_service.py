"""The ladder's service plays the pool around the clock: every pairing it chooses is written to
the journal's schedule before it starts, every finished match is journaled then rated once,
duplicate pairs are one deal with the seats swapped, and killed with SIGKILL at any moment it
resumes: the matches left without a result are played first, the matches journaled but not
rated are rated, and nothing is rated twice."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from tests.support.referee_helpers import ROOT, TESTBOT
from tournaments.journal.records import MatchRecord
from tournaments.journal.store import open_journal
from tournaments.ladder.board import results_of, stored_results
from tournaments.ladder.season import load_season
from tournaments.ladder.service import PLAY, LadderService
from tournaments.ladder.store import open_season

pytestmark = pytest.mark.slow  # real bot processes in the sandbox


def season_dir(tmp_path: Path, extra: str = "") -> Path:
    directory = tmp_path / "season"
    directory.mkdir()
    text = 'name = "s"\n[ladder]\nmax_per_bot = 2\n' + extra
    text += "[faults]\nexit_grace = 0.5\nkill_grace = 0.5\n"
    for name, mode in (("play", "play"), ("first", "first"), ("again", "play")):
        text += f'\n[[bots]]\nname = "{name}"\ncommand = "{{python}} {TESTBOT} {mode}"\n'
    (directory / "season.toml").write_text(text)
    return directory


class Counting(LadderService):
    """The service, stopped once ``wanted`` matches are journaled."""

    wanted = 6

    def _commit(self, record: MatchRecord) -> bool:
        go_on = super()._commit(record)
        if self.tally.played >= self.wanted:
            self.stop()
        return go_on


def check_consistent(directory: Path) -> tuple[list[MatchRecord], int]:
    """The journal's matches, each rated once in the store; the scheduled matches left."""
    journal = open_journal(directory / PLAY, create=False)
    try:
        records = journal.records()
        schedule = journal.schedule()
    finally:
        journal.close()
    store = open_season(directory)
    try:
        rated = store.rated()
        ratings = store.ratings()
        kept = stored_results(store)
        (rows,) = store.db.execute("SELECT COUNT(*) FROM rated").fetchone()
    finally:
        store.close()
    keys = [r.key for r in records]
    assert len(keys) == len(set(keys))
    assert rated == set(keys) and rows == len(keys)  # each rated, once
    recount = results_of(records)  # the leaderboard's counts, kept as matches were rated
    assert (kept.wins, kept.draws, kept.losses) == (recount.wins, recount.draws, recount.losses)
    assert kept.faults == recount.faults
    games = Counter(bot for r in records for bot in r.seats)
    assert {bot: r.games for bot, r in ratings.items()} == dict(games)
    return records, len(schedule) - len(records)


def test_the_service_plays_duplicate_pairs_in_fresh_processes_and_rates_each_match_once(
    tmp_path: Path,
) -> None:
    directory = season_dir(tmp_path)
    service = Counting(load_season(directory), lanes=2, workers=0, rng=random.Random(1))
    tally = asyncio.run(service.run())
    assert tally.played >= 6
    records, _ = check_consistent(directory)
    by_deal: dict[int, list[MatchRecord]] = {}
    for record in records:
        by_deal.setdefault(record.deal, []).append(record)
    pairs = [group for group in by_deal.values() if len(group) == 2]
    assert pairs
    for first, second in pairs:
        assert first.seed == second.seed and first.seats == second.seats[::-1]
        # Each match of a pair started its own processes: none carries the first's deck into
        # the second (a job's first match is the one with a start-up time).
        assert first.startup_s is not None and second.startup_s is not None
    # The ratings moved: the bot that always plays its first legal action is not on top.
    store = open_season(directory)
    try:
        ratings = store.ratings()
        assert store.history(records[0].seats[0])
    finally:
        store.close()
    assert len({round(r.mu, 6) for r in ratings.values()}) > 1
    # The play directory is a tournament's: every log on disk (none left by the matches cut
    # at the stop) agrees with the engine and the journal.
    verified = CliRunner().invoke(main, ["verify", str(directory / PLAY)])
    assert verified.exit_code == 0, verified.output


def journal_count(directory: Path) -> int:
    path = directory / PLAY / "journal.sqlite"
    if not path.exists():
        return 0
    db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
    except sqlite3.Error:
        return 0
    finally:
        db.close()


def journaled_keys(directory: Path) -> set[str]:
    db = sqlite3.connect(f"{(directory / PLAY / 'journal.sqlite').as_uri()}?mode=ro", uri=True)
    try:
        return {row[0] for row in db.execute("SELECT key FROM matches")}
    finally:
        db.close()


def test_killed_with_sigkill_the_service_resumes_where_it_was(tmp_path: Path) -> None:
    directory = season_dir(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "ginref", "ladder", "run", str(directory), "-j", "2"]
    rng = random.Random(7)
    for _ in range(3):
        before = journal_count(directory)
        process = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT
        )
        deadline = time.monotonic() + 300  # far beyond what a few matches need
        target = before + 1 + rng.randrange(3)
        while journal_count(directory) < target:
            assert process.poll() is None, process.stdout.read().decode() if process.stdout else ""
            assert time.monotonic() < deadline, "no match journaled in 300 s"
            time.sleep(0.05)
        time.sleep(rng.random() * 0.3)  # amid the next commit, its rating or a start
        process.send_signal(signal.SIGKILL)
        out, _ = process.communicate()
        assert process.returncode == -signal.SIGKILL
        assert journal_count(directory) >= target
    # A last run, stopped cleanly: the matches left without a result are played first, and
    # everything journaled is rated exactly once.
    journal = open_journal(directory / PLAY, create=False)
    try:
        waiting = {s.key for s in journal.schedule()} - journal.finished_keys()
    finally:
        journal.close()
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT
    )
    target = journal_count(directory) + 2

    def settled() -> bool:
        """Two more matches, and every match left without a result is played (the second
        match of a pair waits for the first: a new pairing may be played meanwhile)."""
        return journal_count(directory) >= target and waiting <= journaled_keys(directory)

    deadline = time.monotonic() + 300
    while not settled():
        assert process.poll() is None
        assert time.monotonic() < deadline
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=120)
    assert process.returncode == 0, out.decode()
    assert b"Traceback" not in out
    records, _ = check_consistent(directory)
    assert waiting <= {r.key for r in records}
    if waiting:
        assert b"no result: they are played first" in out


@pytest.mark.parametrize("workers", [0, 1])
def test_a_bot_added_to_a_running_executor_plays_its_matches(tmp_path: Path, workers: int) -> None:
    from tournaments.file.bots import BotEntry
    from tournaments.runner import make_executor
    from tournaments.schedule import Job, MatchSpec

    season = load_season(season_dir(tmp_path))
    root = tmp_path / "out"
    root.mkdir()
    newcomer = BotEntry("newcomer", (sys.executable, str(TESTBOT), "play"))
    spec = MatchSpec(
        "newcomer.play.001", 1, 1, ("newcomer", "play"), 1, 1, 12345, ("newcomer", "play")
    )
    records: list[MatchRecord] = []

    def keep(record: MatchRecord) -> bool:
        records.append(record)
        return True

    async def main() -> None:
        executor = make_executor(season.config, root, None, 1, workers)
        await executor.start()
        try:
            executor.add_bots([newcomer])
            await executor.run(Job("j", (spec,), False), root / "j", keep)
        finally:
            await executor.close()

    asyncio.run(main())
    assert [r.seats for r in records] == [("newcomer", "play")]
    assert records[0].hands_played > 0 and not records[0].faults
