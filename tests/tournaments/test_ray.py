"""Tournaments over a real Ray cluster: ``ginref tournament --executor ray``.

The module starts one cluster of two nodes on this machine (``ray start --block``: a head and a
second node, one CPU each, in a temporary directory of their own, on free ports) and stops it
at the end by ending what it started, never with ``ray stop``, which would stop every Ray on
the machine. Each tournament runs as a real ``ginref`` process. Matches are few and short.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.hostile_helpers import processes_with_env
from tests.support.referee_helpers import ROOT, TESTBOT, alive
from tournaments.journal.store import JOURNAL_FILE, open_journal

pytestmark = pytest.mark.slow  # a Ray cluster, real bots, real ginref processes

pytest.importorskip("ray")

VENV_BIN = Path(sys.executable).parent
GINREF = [sys.executable, "-m", "ginref"]
STARTUP = 120.0  # seconds, at most, for a node to start: far more than it needs
PATIENCE = 180.0  # seconds, at most, for a tournament or an event awaited
MARK = "GINREF_RAY_TRIAL"
# A private cluster on loopback, its nodes and drivers alike without Ray's token check (which
# needs a token shared by all of them, docs/ray.md).
RAY_ENV = {"RAY_AUTH_MODE": "disabled"}
ENV = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")} | RAY_ENV

# What differs between two runs of the same match: ids, clocks, the commitment's salt, the
# bots' output file names (the match id), and the order in which the bots' Hellos arrived.
LOG_VARYING = {"match_id", "created", "deal_commitment", "deal_salt", "think_ms", "output"}
RECORD_VARYING = {
    "match_id",
    "log_path",
    "log_sha256",
    "log_bytes",
    "started",
    "elapsed_s",
    "startup_s",
    "think_ms",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Node:
    """One ``ray start --block`` process: it stops what it started when it is terminated."""

    def __init__(self, args: list[str], temp: Path, env: dict[str, str]) -> None:
        ports = {
            "--node-manager-port": free_port(),
            "--object-manager-port": free_port(),
            "--dashboard-agent-listen-port": free_port(),
            "--dashboard-agent-grpc-port": free_port(),
            "--metrics-export-port": free_port(),
            "--runtime-env-agent-port": free_port(),
        }
        command = [str(VENV_BIN / "ray"), "start", "--block", *args, "--num-cpus", "1"]
        command += [f"{k}={v}" for k, v in ports.items()]
        command += ["--disable-usage-stats", "--temp-dir", str(temp)]
        self.output = temp.parent / f"node-{len(list(temp.parent.glob('node-*')))}.out"
        with self.output.open("wb") as out:
            self.process = subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )
        deadline = time.monotonic() + STARTUP
        while b"Ray runtime started" not in self.output.read_bytes():
            assert self.process.poll() is None, self.output.read_text()
            assert time.monotonic() < deadline, self.output.read_text()
            time.sleep(0.1)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(60)
        # Whatever it left in its session (raylet, workers, agents).
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """The address of a two-node Ray cluster on this machine."""
    root = Path(tempfile.mkdtemp(prefix="ginref-raytest-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")} | RAY_ENV
    env["PATH"] = f"{VENV_BIN}:{env.get('PATH', '')}"
    port = free_port()
    address = f"127.0.0.1:{port}"
    nodes: list[Node] = []
    try:
        head = ["--head", "--node-ip-address", "127.0.0.1", "--port", str(port)]
        head += ["--include-dashboard=false", "--ray-client-server-port", str(free_port())]
        nodes.append(Node(head, root / "ray", env))
        second = ["--address", address, "--node-ip-address", "127.0.0.1"]
        nodes.append(Node(second, root / "ray", env))
        yield address
    finally:
        for node in reversed(nodes):
            node.stop()
        shutil.rmtree(root, ignore_errors=True)


def tournament(
    path: Path,
    *,
    matches: int,
    mark: str,
    keep: bool = False,
    sandbox: str = "bwrap",
    second: str = "first",
    move_time: float = 10.0,
) -> Path:
    file = path / "t.toml"
    text = f'name = "ray"\nseed = 11\nmatches = {matches}\n'
    text += f'processes = "{"keep" if keep else "fresh"}"\n'
    text += f"[time]\nmove_time = {move_time}\n"
    # A bot exits in milliseconds once told the series is over; the grace is far above that so
    # that a busy machine does not turn "exited with code 0" into "killed" in one run only.
    text += "[faults]\nexit_grace = 30\nkill_grace = 0.5\n"
    text += f'[sandbox]\nmode = "{sandbox}"\n'
    for name, mode in (("play", "play"), ("second", second)):
        text += f'\n[[bots]]\nname = "{name}"\ncommand = "{{python}} {TESTBOT} {mode}"\n'
        text += f'[bots.env]\n{MARK} = "{mark}"\nTESTBOT_MARKER = "{path / "marker"}"\n'
    file.write_text(text)
    return file


def ginref(*args: str | Path, timeout: float = PATIENCE) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*GINREF, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=ENV,
        cwd=ROOT,
    )


def records(out: Path) -> list[dict[str, Any]]:
    journal = open_journal(out, create=False)
    try:
        rows = journal.records()
    finally:
        journal.close()
    out_rows = []
    for record in rows:
        row = {k: getattr(record, k) for k in record.__slots__ if k not in RECORD_VARYING}
        out_rows.append(row)
    return out_rows


def log_lines(path: Path) -> list[Any]:
    """A replay log without what differs between two runs of the match."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in LOG_VARYING}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    lines = [strip(json.loads(line)) for line in path.read_text().splitlines()]
    # The two bots connect at once: their Hellos may come in either order.
    connected = sorted((x for x in lines if x["type"] == "connected"), key=lambda x: x["seat"])
    return connected + [x for x in lines if x["type"] != "connected"]


def logs_by_match(out: Path) -> dict[str, list[Any]]:
    journal = open_journal(out, create=False)
    try:
        return {r.key: log_lines(out / r.log_path) for r in journal.records()}
    finally:
        journal.close()


def journaled_keys(out: Path) -> list[str]:
    if not (out / JOURNAL_FILE).exists():
        return []
    try:
        with sqlite3.connect(f"file:{out / JOURNAL_FILE}?mode=ro", uri=True) as db:
            return [row[0] for row in db.execute("SELECT key FROM matches")]
    except sqlite3.Error:
        return []  # not created yet


def wait_for(what: str, condition: Any, process: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        assert process is None or process.poll() is None, f"ginref ended before {what}"
        assert time.monotonic() < deadline, f"no {what} in {PATIENCE} s"
        time.sleep(0.05)


def assert_complete(out: Path, file: Path) -> list[str]:
    """The journal holds every scheduled match once, verify agrees; the keys."""
    journal = open_journal(out, create=False)
    try:
        keys = [r.key for r in journal.records()]
        schedule = [s.key for s in journal.schedule()]
        logs = {r.log_path for r in journal.records()}
    finally:
        journal.close()
    assert sorted(keys) == sorted(schedule) and len(set(keys)) == len(keys)
    assert {str(p.relative_to(out)) for p in (out / "logs").rglob("*.jsonl")} == logs
    assert not list((out / "logs").rglob(".*.part"))
    verified = ginref("verify", out)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "the journal agrees with the logs" in verified.stdout
    return keys


def test_same_records_and_logs_as_local(cluster: str, tmp_path: Path) -> None:
    file = tournament(tmp_path, matches=4, mark=str(tmp_path), keep=True)
    local = ginref("tournament", file, "--out", tmp_path / "local", "-j", "2", "-q")
    assert local.returncode == 0, local.stderr
    ray = ginref(
        "tournament",
        file,
        "--out",
        tmp_path / "ray",
        "-j",
        "2",
        "-q",
        "--executor",
        "ray",
        "--address",
        cluster,
    )
    assert ray.returncode == 0, ray.stderr
    assert records(tmp_path / "ray") == records(tmp_path / "local")
    assert len(records(tmp_path / "ray")) == 4
    assert logs_by_match(tmp_path / "ray") == logs_by_match(tmp_path / "local")
    assert_complete(tmp_path / "ray", file)
    # The checks' output came back too.
    assert sorted(p.name for p in (tmp_path / "ray" / "checks").iterdir()) == [
        "play.log",
        "second.log",
    ]
    assert not processes_with_env(MARK, str(tmp_path))


def test_a_killed_worker_loses_no_match(cluster: str, tmp_path: Path) -> None:
    # Kept processes, so a job is a series: its second match hangs (a bot that waits for the
    # kill), its first is delivered and must not be played again.
    file = tournament(
        tmp_path,
        matches=4,
        mark=str(tmp_path),
        keep=True,
        sandbox="none",
        second="hang_once 2",
        move_time=600.0,
    )
    marker = tmp_path / "marker"
    out = tmp_path / "out"
    with subprocess.Popen(
        [
            *GINREF,
            "tournament",
            str(file),
            "--out",
            str(out),
            "-j",
            "1",
            "-q",
            "--executor",
            "ray",
            "--address",
            cluster,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=ENV,
    ) as run:
        wait_for("hanging bot", lambda: marker.exists() and marker.read_text(), run)
        bot = int(marker.read_text())
        wait_for("first match", lambda: journaled_keys(out) == ["play.second.001"], run)
        worker = ray_worker_of(bot)
        os.kill(worker, signal.SIGKILL)
        _, stderr = run.communicate(timeout=PATIENCE)
    assert run.returncode == 0, stderr.decode()
    lines = stderr.decode().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("Warning: job play.second/m001-004 lost on the Ray cluster ("), lines
    assert lines[0].endswith("its 3 matches not delivered are played again"), lines
    wait_for("the hung bot's end", lambda: not alive(bot))
    keys = assert_complete(out, file)
    assert sorted(keys) == [f"play.second.{g:03d}" for g in range(1, 5)]
    assert not processes_with_env(MARK, str(tmp_path))


def ray_worker_of(pid: int) -> int:
    """The Ray worker process above ``pid`` (its task's process)."""
    current = pid
    while current > 1:
        title = Path(f"/proc/{current}/cmdline").read_bytes().decode(errors="replace")
        if title.startswith("ray::"):
            return current
        stat = Path(f"/proc/{current}/stat").read_text()
        current = int(stat.rsplit(")", 1)[1].split()[1])
    raise AssertionError(f"no Ray worker above process {pid}")


def test_resume_after_the_driver_is_killed(cluster: str, tmp_path: Path) -> None:
    file = tournament(tmp_path, matches=6, mark=str(tmp_path))
    out = tmp_path / "out"
    command = [
        *GINREF,
        "tournament",
        str(file),
        "--out",
        str(out),
        "-j",
        "2",
        "-q",
        "--executor",
        "ray",
        "--address",
        cluster,
    ]
    with subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT, env=ENV
    ) as run:
        wait_for("first match", lambda: len(journaled_keys(out)) >= 1, run)
        run.kill()
    first = journaled_keys(out)
    assert len(first) < 6, "the run ended before it could be killed"
    again = ginref(*command[3:])
    assert again.returncode == 0, again.stderr
    keys = assert_complete(out, file)
    assert len(keys) == 6
    # The killed driver's tasks and their bots are gone: Ray ends an owner's tasks with it.
    wait_for("no bot left", lambda: not processes_with_env(MARK, str(tmp_path)))
    # The killed tasks' directories were swept by the tasks after them.
    assert not [p for p in task_directories() if not alive(int(p.name.split("-")[2]))]


def task_directories() -> list[Path]:
    return list(Path(tempfile.gettempdir()).glob("ginref-ray-*-*"))


def test_unreachable_address_is_one_line(tmp_path: Path) -> None:
    file = tournament(tmp_path, matches=2, mark=str(tmp_path))
    run = ginref(
        "tournament",
        file,
        "--out",
        tmp_path / "out",
        "--executor",
        "ray",
        "--address",
        f"127.0.0.1:{free_port()}",
    )
    assert run.returncode == 1
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: --address 127.0.0.1:"), run.stderr
    assert "no Ray cluster answers there" in lines[0]
