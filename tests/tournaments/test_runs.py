"""``ginref tournament`` as a new user meets it, through the real command in a subprocess: bots
checked before play (and the check skipped), forfeits of bots that never connected, Ctrl-C once
(the running matches finish) and twice (they are cut, the standings still written), resume.

Synchronisation is on what the command prints and on the files its bots write, never on sleeps;
the only deadlines are bounds far above what the work needs.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import pytest

from tests.support.referee_helpers import ROOT, TESTBOT, alive
from tournaments.journal.store import open_journal

pytestmark = pytest.mark.slow  # real tournaments of real bot processes

PLAY = f"{{python}} {TESTBOT} play"
FIRST = f"{{python}} {TESTBOT} first"
MISSING = "bots/never-built/greedy_bot"
BOOM = (  # prints to stderr, then exits with code 3
    '{python} -c \'import sys; print(\\"bad config: no model file\\", file=sys.stderr); '
    "sys.exit(3)'"
)
SILENT = f"{{python}} {TESTBOT} never"
BOUND = 120.0  # seconds: far above what any step here needs


def write_file(
    tmp_path: Path, bots: list[tuple[str, str]], extra: str = "", name: str = "t.toml"
) -> Path:
    text = f'name = "t"\nseed = 9\n{extra}\n[faults]\nexit_grace = 0.5\nkill_grace = 0.5\n'
    for bot, command in bots:
        text += f'\n[[bots]]\nname = "{bot}"\ncommand = "{command}"\n'
    path = tmp_path / name
    path.write_text(text)
    return path


def ginref(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ginref.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=BOUND * 3,
        env=env,
    )


def journaled(out: Path) -> tuple[int, int]:
    """(matches in the journal, matches scheduled)."""
    journal = open_journal(out, create=False)
    try:
        return len(journal.records()), len(journal.schedule())
    finally:
        journal.close()


def test_bots_that_cannot_start_stop_the_tournament_before_any_match(tmp_path: Path) -> None:
    out = tmp_path / "out"
    broken = [("missing", MISSING), ("boom", BOOM), ("silent", SILENT)]
    # 15 s: far above the start of a bot that exits at once, even on a busy machine.
    file = write_file(tmp_path, broken, "matches = 2\n[time]\nconnect_timeout = 15.0")
    began = time.monotonic()
    done = ginref("tournament", str(file), "--out", str(out), "-j", "3")
    assert time.monotonic() - began < BOUND
    assert done.returncode == 1, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 3  # one line per bot, naming it and why
    missing, boom, silent = errors
    assert missing.startswith("Error: bot 'missing' cannot start: could not start ")
    assert "No such file or directory" in missing
    assert boom.startswith("Error: bot 'boom' cannot start: it exited with code 3 before its Hello")
    assert boom.endswith("its output ends: bad config: no model file")
    assert silent == (
        "Error: bot 'silent' cannot start: no Hello within 15 s (raise it with "
        "--connect-timeout, or connect_timeout in a tournament file's [time])"
    )
    assert "No match was played: 3 of 3 bots could not start" in done.stderr
    assert "--no-check-bots" in done.stderr and "check_bots = false" in done.stderr
    assert not (out / "logs").exists()
    assert (out / "checks" / "boom.log").read_text().startswith("bad config")
    # Nothing was journaled: the fixed file runs in the same directory as a new tournament.
    fixed = write_file(tmp_path, [("a", PLAY), ("b", FIRST)], "matches = 2", "fixed.toml")
    again = ginref("tournament", str(fixed), "--out", str(out), "-j", "2")
    assert again.returncode == 0, again.stderr
    assert "Checked 2 bots before play: each started and said Hello" in again.stdout
    assert "Tournament complete: 2 of 2 matches" in again.stdout
    assert journaled(out) == (2, 2)


def test_without_the_check_forfeits_of_bots_that_never_connected_fail_the_run(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    bots = [("a", PLAY), ("b", FIRST), ("missing", MISSING)]
    file = write_file(tmp_path, bots, "matches = 2\ncheck_bots = false")
    done = ginref("tournament", str(file), "--out", str(out), "-j", "0")
    assert done.returncode == 3, done.stderr
    assert "Tournament complete: 6 of 6 matches" in done.stdout
    assert f"-j {len(os.sched_getaffinity(0))};" in done.stdout  # -j 0: every core
    assert "Checked" not in done.stdout
    (warning,) = [line for line in done.stderr.splitlines() if line.startswith("Warning: 4")]
    assert "4 matches forfeited because a bot never connected: missing (4)" in warning
    standings = json.loads((out / "standings.json").read_text())
    assert standings["matches_done"] == 6
    # The option overrides the file: with the check, the same file stops before play.
    fresh = tmp_path / "fresh"
    checked = ginref("tournament", str(file), "--out", str(fresh), "--check-bots")
    assert checked.returncode == 1 and "Error: bot 'missing' cannot start" in checked.stderr


def test_the_check_runs_at_most_concurrency_bots_at_once(tmp_path: Path) -> None:
    """Four bots that never connect, each noting how many of them are running as it starts
    (its own file is there until the referee stops it)."""
    running = tmp_path / "running"
    running.mkdir()
    script = tmp_path / "bots" / "count.py"
    script.parent.mkdir()
    script.write_text(
        "import os, signal, sys, time\n"
        "mine = os.path.join(sys.argv[1], str(os.getpid()))\n"
        "open(mine, 'w').close()\n"
        "def bye(*_):\n"
        "    os.remove(mine)\n"
        "    sys.exit(0)\n"
        "signal.signal(signal.SIGTERM, bye)\n"
        "print(len(os.listdir(sys.argv[1])), flush=True)\n"
        "time.sleep(600)\n"
    )
    bots = [(f"c{i}", f"{{python}} {script} {running}") for i in range(4)]
    # 15 s: time enough for each bot to start and note itself, even on a busy machine.
    file = write_file(tmp_path, bots, "[time]\nconnect_timeout = 15.0")
    out = tmp_path / "out"
    done = ginref("tournament", str(file), "--out", str(out), "-j", "2", "--sandbox", "none")
    assert done.returncode == 1 and done.stderr.count("no Hello within 15 s") == 4
    counts = [int((out / "checks" / f"c{i}.log").read_text().split()[0]) for i in range(4)]
    # Two at a time: never more, and the second of a pair starts while the first waits.
    assert max(counts) == 2, counts
    assert list(running.iterdir()) == []  # each was stopped


def read_until(stream: IO[str], wanted: str, seen: list[str]) -> bool:
    """Read lines into ``seen`` until one contains ``wanted``; False at the end of ``stream``."""
    for line in stream:
        seen.append(line)
        if wanted in line:
            return True
    return False


def test_ctrl_c_once_lets_the_running_matches_finish_and_resume_completes(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    file = write_file(tmp_path, [("play", PLAY), ("first", FIRST)], "matches = 8")
    argv = [sys.executable, "-m", "ginref.cli", "tournament", str(file), "--out", str(out)]
    proc = subprocess.Popen(
        [*argv, "-j", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert proc.stdout is not None and proc.stderr is not None
    seen: list[str] = []
    assert read_until(proc.stdout, "[1/8]", seen)
    proc.send_signal(signal.SIGINT)
    rest = proc.stdout.read()
    err = proc.stderr.read()
    assert proc.wait(timeout=BOUND) == 130, err
    assert "Stopping: no new match starts, the running ones finish" in err
    assert "Traceback" not in err and "Aborted" not in err
    assert "Interrupted:" in rest and "Run the same command again to resume" in rest
    done, total = journaled(out)
    assert 1 <= done < total == 8
    standings = json.loads((out / "standings.json").read_text())
    assert standings["matches_done"] == done  # the standings of what finished
    on_disk = sorted((out / "logs").rglob("*.jsonl"))
    assert len(on_disk) == done  # no partial log of a cut match
    again = ginref("tournament", str(file), "--out", str(out), "-j", "1")
    assert again.returncode == 0, again.stderr
    assert f"this run played {8 - done} " in again.stdout
    assert journaled(out) == (8, 8)


def test_ctrl_c_twice_cuts_the_running_matches_and_still_writes_the_standings(
    tmp_path: Path,
) -> None:
    """A slow bot keeps its first match going; each bot writes its pid when it starts."""
    out = tmp_path / "out"
    slow = f"{{python}} {TESTBOT} slow 0.2"
    file = write_file(tmp_path, [("play", PLAY), ("slow", slow)], "matches = 2")
    pidfile = tmp_path / "pid"
    env = {**os.environ, "TESTBOT_PIDFILE": str(pidfile)}
    argv = [sys.executable, "-m", "ginref.cli", "tournament", str(file), "--out", str(out)]
    proc = subprocess.Popen(
        [*argv, "-j", "1", "--sandbox", "none", "--no-check-bots"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    began = time.monotonic()
    pids: list[Path] = []
    while len(pids) < 2:  # both bots of the first match have started
        assert time.monotonic() - began < BOUND and proc.poll() is None
        time.sleep(0.02)  # how often to look; what decides is the files
        pids = list(tmp_path.glob("pid.*"))
    proc.send_signal(signal.SIGINT)
    seen: list[str] = []
    assert read_until(proc.stderr, "Stopping:", seen)
    cut_at = time.monotonic()
    proc.send_signal(signal.SIGINT)
    rest = proc.stdout.read()
    err = "".join(seen) + proc.stderr.read()
    assert proc.wait(timeout=BOUND) == 130, err
    # Cut, not finished: a match of the slow bot takes far longer than the bound below.
    assert time.monotonic() - cut_at < BOUND / 4
    assert "Cutting the running matches now" in err
    assert "Traceback" not in err and "Aborted" not in err
    assert "Interrupted: 0 of 2 matches" in rest and "Standings: t, 0 of 2 matches" in rest
    assert json.loads((out / "standings.json").read_text())["matches_done"] == 0
    for path in pids:
        assert not alive(int(path.read_text())), "a bot of the cut match is still running"
    assert not list((out / "logs").rglob("*.jsonl"))  # the cut match left no log
    assert journaled(out) == (0, 2)


def test_sigterm_during_the_check_stops_at_once_and_plays_nothing(tmp_path: Path) -> None:
    """A bot that never connects holds the check for a minute; SIGTERM cuts it."""
    out = tmp_path / "out"
    file = write_file(
        tmp_path, [("play", PLAY), ("silent", SILENT)], "[time]\nconnect_timeout = 60.0"
    )
    pidfile = tmp_path / "pid"
    env = {**os.environ, "TESTBOT_PIDFILE": str(pidfile)}
    argv = [sys.executable, "-m", "ginref.cli", "tournament", str(file), "--out", str(out)]
    proc = subprocess.Popen(
        [*argv, "--sandbox", "none"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )
    began = time.monotonic()
    while not list(tmp_path.glob("pid.*")):  # the check has started a bot (each as seat 0)
        assert time.monotonic() - began < BOUND and proc.poll() is None
        time.sleep(0.02)  # how often to look; what decides is the files
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=BOUND)
    assert proc.returncode == 130, stderr
    assert time.monotonic() - sent < 40.0  # not the minute the check would have waited
    assert "Stopped: stopped during the bots' check, before the first match" in stderr
    assert "Traceback" not in stderr and stdout == ""
    for path in tmp_path.glob("pid.*"):
        assert not alive(int(path.read_text()))
    journal = open_journal(out, create=False)
    try:
        assert not journal.initialised  # nothing was scheduled: the file may still change
    finally:
        journal.close()
