"""``ginref tournament`` killed with SIGKILL at random moments, then run again to completion.

Each chain is a small tournament (three fast test bots, kept processes, two lanes). Its command
is started, killed with SIGKILL at a random (seeded) moment, and started again, several times;
a run that finishes before its moment ends the chain early. After every kill the journal must
open, hold only scheduled matches, each once, each with its log intact (SHA-256); after the
last run it must hold exactly the schedule, no other log may be on disk, ``ginref verify``
must accept every log, and no bot process of any killed runner may be left (the runners' bots
die with them: referee/bots/preexec.py sets a parent-death signal).

The moments are set by the run's progress, not by the clock, so that a busy machine kills at
the same points as an idle one: the first kill of a chain comes a random fraction of a second
after the start (start-up), the others once the journal holds a random number of matches more
than at the start of the run, plus a random fraction of a second (amid the matches, their
commits and the standings at the end).
"""

from __future__ import annotations

import hashlib
import os
import random
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from tests.support.hostile_helpers import processes_with_env
from tests.support.referee_helpers import ROOT, TESTBOT
from tournaments.journal.store import JOURNAL_FILE, open_journal

pytestmark = pytest.mark.slow  # a real tournament runner, killed and resumed

KILLS = 20  # the number required: 4 chains of 5, each a runner start-up or more (seconds)
CHAINS = 16  # at most; each takes up to KILLS_PER_CHAIN kills, fewer if a run finishes first
KILLS_PER_CHAIN = 5
START_DELAY = 0.4  # at most, seconds: the first kill of a chain, during start-up
EXTRA_DELAY = 0.3  # at most, seconds after the journal reached the kill's match count
MARK = "GINREF_KILL_TRIAL"
MATCHES = 8  # per pairing: 24 matches in all


def tournament(path: Path, seed: int) -> Path:
    file = path / f"t{seed}.toml"
    bots = [("play", "play"), ("first", "first"), ("again", "play")]
    text = f'name = "kill"\nseed = {seed}\nmatches = {MATCHES}\nprocesses = "keep"\n'
    text += "[faults]\nexit_grace = 0.5\nkill_grace = 0.5\n"
    for name, mode in bots:
        text += f'\n[[bots]]\nname = "{name}"\ncommand = "{{python}} {TESTBOT} {mode}"\n'
    file.write_text(text)
    return file


def journaled(out: Path, *, complete: bool) -> int:
    """Check the journal against the disk; return how many matches it holds."""
    if not (out / JOURNAL_FILE).exists():
        return 0
    journal = open_journal(out, create=False)
    try:
        records = journal.records()
        schedule = [s.key for s in journal.schedule()]
        sessions = journal.sessions()
    finally:
        journal.close()
    keys = [r.key for r in records]
    assert len(set(keys)) == len(keys) and set(keys) <= set(schedule)
    for record in records:
        data = (out / record.log_path).read_bytes()
        assert hashlib.sha256(data).hexdigest() == record.log_sha256, record.key
        assert len(data) == record.log_bytes
    if complete:
        assert keys == schedule
        on_disk = {str(p.relative_to(out)) for p in (out / "logs").rglob("*.jsonl")}
        assert on_disk == {r.log_path for r in records}
        assert sessions[-1]["status"] == "complete"
        assert all(s["status"] in ("running", "complete") for s in sessions[:-1])
    return len(records)


def committed(out: Path) -> int:
    """How many matches the journal holds now, read as a second reader would (WAL)."""
    path = out / JOURNAL_FILE
    if not path.exists():
        return 0
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=60)
        try:
            return int(db.execute("SELECT count(*) FROM matches").fetchone()[0])
        finally:
            db.close()
    except sqlite3.OperationalError:
        return 0  # created but not set up yet


def wait_until(proc: subprocess.Popen[bytes], out: Path, matches: int) -> bool:
    """Wait until the journal holds ``matches`` matches; False if the run ended first."""
    while committed(out) < matches:
        if proc.poll() is not None:
            return False
        time.sleep(0.01)  # polling the journal: the condition, not the time, ends the wait
    return True


def test_sigkill_at_random_moments_loses_and_repeats_no_match(tmp_path: Path) -> None:
    rng = random.Random(20261129)
    env = {**os.environ, MARK: str(tmp_path)}  # inherited by every bot: found afterwards
    began = time.monotonic()
    kills = 0
    moments: list[tuple[str, int]] = []  # (when, matches journaled at the kill)
    for chain in range(CHAINS):
        if kills >= KILLS:
            break
        out = tmp_path / f"run{chain}"
        file = tournament(tmp_path, 100 + chain)
        argv = [sys.executable, "-m", "ginref.cli", "tournament", str(file)]
        argv += ["--out", str(out), "-j", "2", "-q"]
        for attempt in range(KILLS_PER_CHAIN):
            at_start = committed(out)
            proc = subprocess.Popen(
                argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
            if attempt == 0:
                when = "start-up"
                delay = rng.uniform(0.0, START_DELAY)
            else:
                more = rng.randint(1, 3 * MATCHES - at_start) if at_start < 3 * MATCHES else 0
                when = f"+{more} matches"
                delay = rng.uniform(0.0, EXTRA_DELAY)
                if not wait_until(proc, out, at_start + more):
                    delay = 0.0
            try:
                _, err = proc.communicate(timeout=delay)  # the random part of the moment
            except subprocess.TimeoutExpired:
                proc.kill()
                _, err = proc.communicate()
                kills += 1
                moments.append((when, journaled(out, complete=False)))
                continue
            assert proc.returncode == 0, err.decode()
            break  # the run finished before its moment: this chain is complete
        done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, timeout=600)
        assert done.returncode == 0, done.stderr.decode()
        assert journaled(out, complete=True) == 3 * MATCHES
        result = CliRunner().invoke(main, ["verify", str(out)])
        assert result.exit_code == 0, result.output
    elapsed = time.monotonic() - began
    print(f"{kills} kills in {chain + 1} chains, {elapsed:.1f} s; (when, journaled): {moments}")
    assert kills >= 20, f"only {kills} kills in {CHAINS} chains"
    assert any(n == 0 for _, n in moments)  # some kills came before the first commit
    assert any(0 < n < 3 * MATCHES for _, n in moments)  # and some amid the matches
    assert not processes_with_env(MARK, str(tmp_path)), "a killed runner's bot is still running"
