"""Shared by the sandbox's attack tests (tests/bots/test_sandbox_*.py): a sandbox of their own,
matches between the attacker (tests/support/attacker.py) and the test bot, a watch from outside
while they play, and the checks that an attack failed."""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import referee.series
from ginref.cli import main
from referee.bots.cgroup import _keyed
from referee.bots.limits import Limits
from referee.bots.sandbox import SandboxSettings
from referee.bots.spec import BotSpec
from referee.engine.rules import Rules
from referee.results import MatchOutcome
from referee.series import run_match
from referee.settings import RefereeOptions
from tests.support.hostile_helpers import sandboxed_processes, told
from tests.support.referee_helpers import ROOT, assert_log_agrees, bot
from tests.support.uids import SANDBOX_TESTS, own_uids
from tournaments.journal.records import MatchRecord
from tournaments.journal.store import open_journal

ATTACKER = ROOT / "tests" / "support" / "attacker.py"
# A uid range of these tests' own (and of this test process's own, tests/support/uids.py): no
# other ginref run leases it, so "no process of a sandbox uid is left" speaks of these bots only.
SANDBOX = own_uids(SANDBOX_TESTS)
OPTIONS = RefereeOptions(connect_timeout=60.0, exit_grace=0.5, kill_grace=0.5, sandbox=SANDBOX)
NAMESPACES = ("pid", "net", "mnt", "ipc", "uts")


def options(**limits: float) -> RefereeOptions:
    """The tests' options with ``[limits]`` keys set (``memory_mb=128``)."""
    return replace(OPTIONS, limits=Limits().with_keys(limits))


def attacker(mode: str, env: Mapping[str, str] | None = None) -> BotSpec:
    """The attacker in ``mode``."""
    return BotSpec(
        (sys.executable, str(ATTACKER), mode), f"attacker-{mode}", env=tuple((env or {}).items())
    )


def opponent(env: Mapping[str, str] | None = None) -> BotSpec:
    """The ordinary opponent: the test bot playing (it prints its tally when its stream ends)."""
    return replace(bot(), env=tuple((env or {}).items()))


@dataclass
class Seen:
    """A process under a sandbox uid, as read from outside (the referee's /proc)."""

    pid: int
    uid: int
    comm: str
    cmdline: str
    token: str | None  # GINREF_TOKEN in its environment
    ns: dict[str, str]  # namespace -> its identity (the link in /proc/<pid>/ns)
    nice: set[int] = field(default_factory=set)  # every value seen
    states: set[str] = field(default_factory=set)  # every state seen (R, S, T for stopped...)
    sightings: int = 1  # at how many requests it was seen

    @staticmethod
    def read(pid: int) -> Seen | None:
        """The process now, or None if it is gone."""
        try:
            proc = Path(f"/proc/{pid}")
            environ = (proc / "environ").read_bytes().split(b"\0")
            token = next((e[13:].decode() for e in environ if e.startswith(b"GINREF_TOKEN=")), None)
            stat = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            return Seen(
                pid,
                proc.stat().st_uid,
                (proc / "comm").read_text().strip(),
                (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"),
                token,
                {name: os.readlink(proc / "ns" / name) for name in NAMESPACES},
                {int(stat[16])},  # field 19 of stat, counted after the command's ")"
                {stat[0]},
            )
        except (OSError, IndexError, ValueError):
            return None


class Spy:
    """An ``on_send`` hook that looks from outside, at every DecisionRequest, at each process
    under a sandbox uid, and at how many descriptors the referee holds."""

    def __init__(self, settings: SandboxSettings = SANDBOX) -> None:
        self.settings = settings
        self.seen: dict[int, Seen] = {}
        self.requests = 0
        self.fds_first = 0  # the referee's descriptors at the first request (bots connected)
        self.fds_max = 0

    def __call__(self, seat: int, message: Any, hand: object) -> None:
        if message.WhichOneof("kind") != "decision_request":
            return
        self.requests += 1
        fds = len(os.listdir("/proc/self/fd"))
        self.fds_first = self.fds_first or fds
        self.fds_max = max(self.fds_max, fds)
        for pid in sandboxed_processes(self.settings):
            now = Seen.read(pid)
            if now is None:
                continue
            if pid in self.seen:
                seen = self.seen[pid]
                seen.nice |= now.nice
                seen.states |= now.states
                seen.sightings += 1
            else:
                self.seen[pid] = now

    def running(self, needle: str) -> list[Seen]:
        """The processes seen whose command line holds ``needle``."""
        return [s for s in self.seen.values() if needle in s.cmdline]

    def uid_of(self, needle: str) -> int:
        """The one uid of the processes whose command line holds ``needle``."""
        uids = {s.uid for s in self.running(needle)}
        assert len(uids) == 1, (needle, self.seen)
        return uids.pop()

    def token_of(self, needle: str) -> str:
        """The seat token in the environment of the process running ``needle``."""
        tokens = {s.token for s in self.running(needle) if s.token}
        assert len(tokens) == 1, (needle, tokens)
        return tokens.pop()


@dataclass
class Duel:
    """A match between the attacker and the test bot, and what was seen of it."""

    outcome: MatchOutcome
    spy: Spy
    seat: int  # the attacker's

    @property
    def text(self) -> str:
        """Everything the attacker printed."""
        return told(self.outcome, self.seat)

    @property
    def opponent_text(self) -> str:
        return told(self.outcome, 1 - self.seat)


def duel(
    out: Path,
    mode: str,
    *,
    env: Mapping[str, str] | None = None,
    opponent_env: Mapping[str, str] | None = None,
    seat: int = 0,
    run_options: RefereeOptions = OPTIONS,
    seed: int = 11,
) -> Duel:
    """One sandboxed match, the attacker in ``seat``; logs in ``out``."""
    spy = Spy()
    bots = [attacker(mode, env), opponent(opponent_env)]
    if seat == 1:
        bots.reverse()
    rules = Rules.profile("standard")
    outcome = run_match(bots[0], bots[1], rules, seed, out, run_options, on_send=spy)
    return Duel(outcome, spy, seat)


def fixed_match_id(monkeypatch: pytest.MonkeyPatch, match_id: str) -> None:
    """Make the next match's id (and so its log's and output files' names) known beforehand."""
    monkeypatch.setattr(referee.series, "new_match_id", lambda: match_id)


def mark() -> str:
    """A fresh string no file holds by chance."""
    return f"MARK{secrets.token_hex(8)}"


def attempts(text: str, mode: str) -> list[str]:
    """The attacker's report lines of ``mode``."""
    return [line for line in text.splitlines() if line.startswith(f"ATTACK {mode}: ")]


def assert_attempted(text: str, mode: str, phases: Sequence[str] = ("early", "late")) -> None:
    """The attack ran in each phase and the attacker saw no success."""
    lines = attempts(text, mode)
    for phase in phases:
        assert any(f"[{phase}]" in line for line in lines), (phase, text[-3000:])
    succeeded = [line for line in lines if ": SUCCEEDED: " in line]
    assert not succeeded, succeeded


def assert_played_out(duel: Duel) -> None:
    """The match ended normally: no fault on either side, both bots saw the end of their stream
    with status OK, and the log re-adjudicates."""
    outcome = duel.outcome
    assert outcome.faults == () and outcome.forfeit is None, outcome.faults
    assert "decisions " in duel.opponent_text, duel.opponent_text
    assert "ATTACKER done:" in duel.text and "exit 0" in duel.text, duel.text[-2000:]
    assert_log_agrees(outcome.log_path)


def assert_opponent_unharmed(duel: Duel) -> None:
    """The opponent has no fault, played to the end and saw its stream end with status OK."""
    outcome = duel.outcome
    other = 1 - duel.seat
    assert all(f.seat != other for f in outcome.faults), outcome.faults
    assert outcome.result.forfeit_seat != other
    assert "decisions " in duel.opponent_text, duel.opponent_text
    assert_log_agrees(outcome.log_path)


def assert_killed_for(duel: Duel, limit: str) -> None:
    """The attacker crashed, killed by the referee for breaking ``limit``; the opponent won."""
    outcome = duel.outcome
    assert outcome.forfeit is not None, outcome
    assert outcome.forfeit.seat == duel.seat, outcome.forfeit
    assert outcome.forfeit.kind.value == "crashed", outcome.forfeit
    assert limit in outcome.forfeit.reason, outcome.forfeit.reason
    assert_opponent_unharmed(duel)


def assert_nothing_left() -> None:
    """No process runs under one of the tests' sandbox uids."""
    left = sandboxed_processes(SANDBOX)
    assert left == [], [Seen.read(pid) for pid in left]


def played_tournament(file: Path, out: Path, lanes: int, matches: int) -> list[MatchRecord]:
    """Run ``ginref tournament FILE`` into ``out``; check it played all ``matches`` without a
    fault, each log intact (its journaled digest) and re-adjudicating; return the records."""
    argv = ["tournament", str(file), "--out", str(out), "-j", str(lanes)]
    result = CliRunner().invoke(main, argv)
    assert result.exit_code == 0, result.output
    assert f"Tournament complete: {matches} of {matches} matches" in result.output, result.output
    journal = open_journal(out, create=False)
    try:
        records = journal.records()
    finally:
        journal.close()
    assert len(records) == matches
    for record in records:
        log = out / record.log_path
        assert hashlib.sha256(log.read_bytes()).hexdigest() == record.log_sha256
        assert_log_agrees(log)
        assert record.forfeit is None and not record.faults, record
    return records


def files_under(path: Path) -> dict[str, bytes]:
    """Every file below ``path`` and its content."""
    found = {}
    for item in sorted(path.rglob("*")):
        if item.is_file():
            with contextlib.suppress(OSError):
                found[str(item.relative_to(path))] = item.read_bytes()
    return found


@dataclass(frozen=True, slots=True)
class CpuSample:
    """One reading of a bot's group: CPU charged to it, and the CFS bandwidth periods the kernel
    counted for the group that holds its CPU limit (0 where it has none)."""

    wall: float  # monotonic seconds
    cpu: float  # CPU seconds charged to the spinner's group
    periods: int  # periods in which the limited group ran (``nr_periods``)
    throttled: int  # periods at whose end it was throttled (``nr_throttled``)


def cpu_limit(group: Path, mount: Path) -> tuple[Path, int, int] | None:
    """The directory at or above ``group`` (up to ``mount``) that holds a CPU quota, with the
    quota and period in microseconds (v1 ``cpu.cfs_quota_us``, v2 ``cpu.max``); None if none."""
    for path in [group, *group.parents]:
        if not path.is_relative_to(mount):
            break
        try:
            if (path / "cpu.max").exists():
                quota, period = (path / "cpu.max").read_text().split()
            else:
                quota = (path / "cpu.cfs_quota_us").read_text().strip()
                period = (path / "cpu.cfs_period_us").read_text().strip()
        except (OSError, ValueError):
            continue
        if quota not in ("max", "-1"):
            return path, int(quota), int(period)
    return None


class GroupCpu(threading.Thread):
    """Samples, from outside, the CPU time the kernel charges to the cgroup of the first process
    named ``spinner`` under a sandbox uid (cgroup v2's ``cpu.stat``, which every group has), and
    the bandwidth periods of the group that limits its CPU (``cpu.stat`` of the v1 ``cpu``
    hierarchy, or of the v2 group with ``cpu.max``)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.samples: list[CpuSample] = []
        self.usage_file: Path | None = None
        self.limit: tuple[Path, int, int] | None = None  # the limiting group, quota, period
        self.error: Exception | None = None  # what stopped the sampling, if not the group's end
        self.done = threading.Event()

    def find(self) -> bool:
        """Find the spinner's group (for its CPU time) and the group that limits its CPU."""
        for pid in sandboxed_processes(SANDBOX):
            try:
                if Path(f"/proc/{pid}/comm").read_text().strip() != "spinner":
                    continue
                lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
            except OSError:
                continue
            groups: dict[str, str] = {}
            for line in lines:
                _, names, path = line.split(":", 2)
                for name in names.split(",") if names else [""]:
                    groups[name] = path.lstrip("/")
            unified = next(
                mount
                for mount in (Path("/sys/fs/cgroup/unified"), Path("/sys/fs/cgroup"))
                if (mount / "cgroup.controllers").exists()
            )
            mount = Path("/sys/fs/cgroup/cpu") if "cpu" in groups else unified
            group = mount / groups.get("cpu", groups[""])
            if not group.is_dir():
                # A spinner on its way out whose group was already removed: read as having
                # no quota, it would hide the limit its group had.
                continue
            self.usage_file = unified / groups[""] / "cpu.stat"
            self.limit = cpu_limit(group, mount)
            return True
        return False

    def run(self) -> None:
        try:
            while not self.find() and not self.done.wait(0.05):
                pass
        except Exception as error:  # kept for the test's message: a thread's error is lost
            self.error = error
            return
        while self.usage_file is not None and not self.done.wait(0.1):
            try:
                usage = _keyed(self.usage_file.read_text())["usage_usec"] / 1e6
                stat = (self.limit[0] / "cpu.stat").read_text() if self.limit else ""
                bandwidth = _keyed(stat)
            except (OSError, KeyError):
                return  # the group is gone
            periods, throttled = bandwidth.get("nr_periods", 0), bandwidth.get("nr_throttled", 0)
            self.samples.append(CpuSample(time.monotonic(), usage, periods, throttled))

    def rate(self, start: float, end: float) -> float:
        """Cores' worth of CPU the group had from ``start`` to ``end``."""
        inside = [s for s in self.samples if start <= s.wall <= end]
        assert len(inside) >= 10, self.samples
        first, last = inside[0], inside[-1]
        return (last.cpu - first.cpu) / (last.wall - first.wall)
