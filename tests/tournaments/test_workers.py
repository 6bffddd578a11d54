"""The worker-process executor, end to end: real worker processes, real bots, real kills.

The test bots (tests/support/testbot.py, TESTBOT_HOLD) write their parent's pid, the referee
that started them, so a test sees which process refereed each match; the first bot to start
waits before connecting until the test releases it, so that a test can kill a process while
that match is known to be in flight, with no sleep standing in for it.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ginref.cli import main
from tests.support.hostile_helpers import processes_with_env, sandboxed_processes
from tests.support.referee_helpers import ROOT, TESTBOT
from tests.support.sandbox_helpers import SANDBOX
from tournaments.executors.workers import WorkerExecutor
from tournaments.file.config import load_file
from tournaments.journal.records import MatchRecord
from tournaments.journal.store import open_journal
from tournaments.runner import RunResult, TournamentRunner

pytestmark = pytest.mark.slow  # tournaments played by real worker processes

MARK = "GINREF_WORKERS_TRIAL"
MATCHES = 6  # per pairing: 6 matches in all
DEADLINE = 300.0  # seconds: far beyond what any wait here needs


def tournament(path: Path, hold: Path, *, processes: str = "fresh") -> Path:
    """Two test bots; each inherits TESTBOT_HOLD (and the mark that finds them afterwards)."""
    hold.mkdir(exist_ok=True)
    env = f'env = {{ TESTBOT_HOLD = "{hold}", {MARK} = "{path}" }}'
    file = path / "workers.toml"
    file.write_text(
        f"""name = "workers"
seed = 11
matches = {MATCHES}
processes = "{processes}"
[time]
connect_timeout = 120.0
[faults]
exit_grace = 0.5
kill_grace = 0.5
[sandbox]
mode = "none"

[[bots]]
name = "one"
command = "{{python}} {TESTBOT} play"
{env}

[[bots]]
name = "two"
command = "{{python}} {TESTBOT} first"
{env}
"""
    )
    return file


def play(file: Path, out: Path, workers: int, executor: Any = None) -> RunResult:
    config = load_file(file).with_changes(out=str(out))
    runner = TournamentRunner(config)
    try:
        return asyncio.run(runner.run(2, executor=executor, workers=workers, check=False))
    finally:
        runner.close()


def records(out: Path) -> list[MatchRecord]:
    journal = open_journal(out, create=False)
    try:
        return journal.records()
    finally:
        journal.close()


def parents(hold: Path) -> list[int]:
    """The referee process of every bot that started."""
    return [int(p.read_text()) for p in hold.glob("parent.*")]


def comparable(record: MatchRecord) -> dict[str, Any]:
    """A record without what differs from run to run: times, match ids, log names and bytes."""
    fields = dict(record.__class__.__dataclass_fields__)
    timing = {"match_id", "think_ms", "log_path", "log_sha256", "log_bytes", "started"}
    timing |= {"elapsed_s", "startup_s"}
    return {name: getattr(record, name) for name in fields if name not in timing}


def log_lines(path: Path) -> list[dict[str, Any]]:
    """A replay log without its times, its match id and its random commitment, its bots'
    connections in seat order, and without how its bots' processes ended: a bot still exiting
    when the 0.5 s exit grace runs out (a busy machine) is stopped by SIGTERM, one that was
    quicker exited of itself."""
    lines = []
    for text in path.read_text().splitlines():
        line = json.loads(text)
        for key in (
            "match_id",
            "created",
            "deal_commitment",
            "deal_salt",
            "think_ms",
            "bank_ms",
            "exits",
        ):
            line.pop(key, None)
        for bot in line.get("bots", []):
            bot.pop("output", None)  # named after the match id
        lines.append(line)
    # The bots connect in whichever order they start: the one line of the log that timing orders.
    at = [i for i, line in enumerate(lines) if line["type"] == "connected"]
    for i, line in zip(at, sorted((lines[i] for i in at), key=lambda x: x["seat"]), strict=True):
        lines[i] = line
    return lines


def wait_for(path: Path, proc: subprocess.Popen[bytes] | None = None) -> str:
    """The file's text once it exists (a bot wrote it: the match is in flight)."""
    end = time.monotonic() + DEADLINE
    while not path.exists():
        assert proc is None or proc.poll() is None, "the tournament ended first"
        assert time.monotonic() < end, f"{path} never appeared"
        time.sleep(0.01)  # polling for the file: the condition ends the wait
    return path.read_text()


def no_process_left(value: str) -> None:
    """Wait until no process carries the mark (bots, workers); fail at the deadline."""
    end = time.monotonic() + DEADLINE
    while left := processes_with_env(MARK, value):
        assert time.monotonic() < end, f"still running: {left}"
        time.sleep(0.05)  # polling for their exit: the condition ends the wait


def test_workers_play_what_the_in_process_referee_plays(tmp_path: Path) -> None:
    """The same seed through 2 workers and in-process: the same records and logs but for
    times, ids and commitments; and the bots' parents show both workers refereed."""
    hold = tmp_path / "hold"
    file = tournament(tmp_path, hold)
    hold.mkdir(exist_ok=True)
    (hold / "release").touch()  # nobody waits
    alone = play(file, tmp_path / "alone", workers=0)
    in_process = set(parents(hold))
    for path in hold.glob("parent.*"):
        path.unlink()
    spread = play(file, tmp_path / "spread", workers=2)
    assert alone.status == spread.status == "complete"
    assert in_process == {os.getpid()}
    workers = set(parents(hold))
    assert len(workers) == 2 and os.getpid() not in workers
    first = {r.key: r for r in records(tmp_path / "alone")}
    second = {r.key: r for r in records(tmp_path / "spread")}
    assert sorted(first) == sorted(second) and len(first) == MATCHES
    for key, record in first.items():
        assert comparable(record) == comparable(second[key]), key
        a = log_lines(tmp_path / "alone" / record.log_path)
        b = log_lines(tmp_path / "spread" / second[key].log_path)
        assert a == b, key


def test_a_worker_killed_mid_match_loses_only_that_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGKILL of the worker whose bot is known to be starting: the tournament completes on a
    new worker, every match journaled once with an intact log, verify accepts them, and no
    process of the killed worker (nor any other) is left."""
    monkeypatch.setenv(MARK, str(tmp_path))  # the workers carry it too
    hold = tmp_path / "hold"
    file = tournament(tmp_path, hold, processes="keep")
    out = tmp_path / "out"
    config = load_file(file).with_changes(out=str(out))
    runner = TournamentRunner(config)
    executor = WorkerExecutor(config, runner.directory, workers=2)
    killed: list[int] = []

    async def kill_when_held() -> None:
        end = time.monotonic() + DEADLINE
        while not (hold / "held").exists():
            assert time.monotonic() < end, "no bot ever started"
            await asyncio.sleep(0.01)  # polling for the bot's file
        worker = int((hold / "held").read_text())
        os.kill(worker, signal.SIGKILL)
        killed.append(worker)
        (hold / "release").touch()

    async def both() -> RunResult:
        killer = asyncio.ensure_future(kill_when_held())
        result = await runner.run(2, executor=executor, check=False)
        await killer
        return result

    try:
        result = asyncio.run(both())
        journal = runner.journal
        keys = [r.key for r in journal.records()]
        schedule = [s.key for s in journal.schedule()]
    finally:
        runner.close()
    assert result.status == "complete", result.errors
    assert sorted(keys) == sorted(schedule) and len(set(keys)) == len(keys) == MATCHES
    assert executor.started == 3  # the two, and the one in place of the killed
    assert killed and killed[0] not in executor.placed.values()
    on_disk = {str(p.relative_to(out)) for p in (out / "logs").rglob("*.jsonl")}
    assert on_disk == {r.log_path for r in records(out)}  # the lost match's files are gone
    verified = CliRunner().invoke(main, ["verify", str(out)])
    assert verified.exit_code == 0, verified.output
    no_process_left(str(tmp_path))


def test_the_tournament_killed_leaves_nothing_and_resumes_exactly(tmp_path: Path) -> None:
    """SIGKILL of ``ginref tournament`` while a match is in flight on a worker: the workers
    and bots exit by themselves; run again, it plays exactly the matches not journaled."""
    hold = tmp_path / "hold"
    file = tournament(tmp_path, hold)
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "ginref.cli", "tournament", str(file), "--out", str(out)]
    argv += ["-j", "2", "--workers", "2", "-q"]
    env = {**os.environ, MARK: str(tmp_path)}
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stderr=subprocess.PIPE)
    worker = int(wait_for(hold / "held", proc))
    assert worker != proc.pid
    proc.kill()
    proc.communicate()
    no_process_left(str(tmp_path))  # the workers (the held bot's parent among them) and bots
    journaled = len(records(out))
    (hold / "release").touch()
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, timeout=DEADLINE)
    assert done.returncode == 0, done.stderr.decode()
    final = records(out)
    assert len(final) == len({r.key for r in final}) == MATCHES
    journal = open_journal(out, create=False)
    try:
        sessions = journal.sessions()
    finally:
        journal.close()
    assert sessions[-1]["status"] == "complete"
    assert sessions[-1]["played"] == MATCHES - journaled
    verified = CliRunner().invoke(main, ["verify", str(out)])
    assert verified.exit_code == 0, verified.output
    no_process_left(str(tmp_path))


def test_a_worker_that_cannot_start_is_one_line(tmp_path: Path) -> None:
    """A worker whose interpreter fails at once: one error line, exit 1, no hang."""
    hold = tmp_path / "hold"
    file = tournament(tmp_path, hold)
    # Python runs sitecustomize in every interpreter: this one breaks the workers only.
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import sys\n"
        "if 'tournaments.executors.worker_process' in sys.orig_argv:\n"
        "    raise SystemExit('a broken worker')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    argv = [sys.executable, "-m", "ginref.cli", "tournament", str(file), "--out"]
    argv += [str(tmp_path / "out"), "-j", "2", "--workers", "2", "-q", "--no-check-bots"]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, timeout=DEADLINE)
    err = done.stderr.decode()
    assert done.returncode == 1, err
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("Error:")]
    assert len(lines) == 1 and "referee worker could not start" in lines[0], err


def parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def test_sandboxed_bots_die_with_their_killed_worker(tmp_path: Path) -> None:
    """Sandboxed bots (bubblewrap, the tests' uids) through 2 workers: SIGKILL of the worker of
    a running bot, seen from /proc; the tournament completes on a new worker, without a fault,
    and no process is left under a sandbox uid."""
    out = tmp_path / "out"
    file = tmp_path / "sandboxed.toml"
    file.write_text(
        f"""name = "sandboxed"
seed = 5
matches = {MATCHES}
processes = "keep"
[time]
connect_timeout = 120.0
[faults]
exit_grace = 0.5
kill_grace = 0.5
[sandbox]
uid_base = {SANDBOX.uid_base}
uid_count = {SANDBOX.uid_count}

[[bots]]
name = "one"
command = "{{python}} {TESTBOT} play"

[[bots]]
name = "two"
command = "{{python}} {TESTBOT} first"
"""
    )
    config = load_file(file).with_changes(out=str(out))
    runner = TournamentRunner(config)
    executor = WorkerExecutor(config, runner.directory, workers=2)
    killed: list[int] = []

    async def kill_a_running_bots_worker() -> None:
        end = time.monotonic() + DEADLINE
        while not killed:
            assert time.monotonic() < end, "no sandboxed bot ever ran"
            workers = {w.pid for w in executor.workers}
            for bot in sandboxed_processes(SANDBOX):
                pid: int | None = bot
                while pid is not None and pid > 1 and pid not in workers:
                    pid = parent_of(pid)  # bot <- bubblewrap <- ... <- its worker
                if pid in workers:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                    break
            await asyncio.sleep(0.01)  # polling /proc for a bot

    async def both() -> RunResult:
        killer = asyncio.ensure_future(kill_a_running_bots_worker())
        result = await runner.run(2, executor=executor, check=False)
        await killer
        return result

    try:
        result = asyncio.run(both())
        done = runner.journal.records()
    finally:
        runner.close()
    assert result.status == "complete", result.errors
    assert len(done) == len({r.key for r in done}) == MATCHES
    assert all(r.forfeit is None and not r.faults for r in done)
    assert executor.started == 3 and killed
    verified = CliRunner().invoke(main, ["verify", str(out)])
    assert verified.exit_code == 0, verified.output
    end = time.monotonic() + DEADLINE
    while left := sandboxed_processes(SANDBOX):
        assert time.monotonic() < end, f"sandboxed processes left: {left}"
        time.sleep(0.05)  # polling for their exit
