"""The resource watch over bots' process groups: ``/proc`` polled, limits held, stragglers swept.

A :class:`GroupWatch` (one per event loop) reads ``/proc`` every :data:`POLL_INTERVAL` seconds
and sums, over each bot's processes, the CPU time, the resident memory and the number of
processes, and checks the size of its output file; a bot over a limit (:mod:`referee.bots.limits`)
is killed and the reason kept in its :class:`Guard`. A bot's processes are those of its session,
their descendants, and any process whose environment carries the bot's secret token.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from referee.bots.limits import MIB, Limits, size_text

POLL_INTERVAL = 0.25
# How long Guard.close keeps looking for stragglers of a killed bot.
SWEEP_TIME = 2.0

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


# --- /proc --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Proc:
    """One line of ``/proc/<pid>/stat``, the fields the watch needs."""

    pid: int
    start: int  # start time in clock ticks after boot: (pid, start) names a process for good
    zombie: bool
    ppid: int
    session: int
    cpu_ticks: int  # utime + stime + cutime + cstime
    rss_pages: int


def _read_stat(pid: int) -> _Proc | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after the last ")".
    f = data[data.rfind(b")") + 2 :].split()
    try:
        return _Proc(
            pid=pid,
            start=int(f[19]),
            zombie=f[0] in (b"Z", b"X"),
            ppid=int(f[1]),
            session=int(f[3]),
            cpu_ticks=int(f[11]) + int(f[12]) + int(f[13]) + int(f[14]),
            rss_pages=int(f[21]),
        )
    except (IndexError, ValueError):
        return None


def scan_processes() -> dict[int, _Proc]:
    """Every process now, by pid (about 15 µs each)."""
    out: dict[int, _Proc] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if name.isdigit():
            proc = _read_stat(int(name))
            if proc is not None:
                out[proc.pid] = proc
    return out


def _environ_has(pid: int, marker: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return marker in fh.read().split(b"\0")
    except OSError:
        return False


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)


# --- the watch ----------------------------------------------------------------------------------


@dataclass(slots=True)
class Usage:
    """What a bot's processes used at one poll."""

    processes: int = 0
    cpu_seconds: float = 0.0
    memory_bytes: int = 0
    output_bytes: int = 0


@dataclass(slots=True, eq=False)  # a guard is itself: compared by identity
class Guard:
    """One bot under watch: its leader's pid (also its session id), limits and processes."""

    pid: int
    limits: Limits
    output: Path | None
    marker: bytes | None  # b"NAME=value" in the environment of every process of the bot
    start: int = 0
    members: dict[int, int] = field(default_factory=dict)  # pid -> start time
    usage: Usage = field(default_factory=Usage)
    peak: Usage = field(default_factory=Usage)
    breach: str | None = None  # why the watch killed the bot
    _watch: GroupWatch | None = None

    def find(self, procs: Mapping[int, _Proc], owned: Mapping[int, Guard | None]) -> list[_Proc]:
        """The bot's processes among ``procs``: its session, descendants, marked ones, and
        those seen before that are still the same processes."""
        found = {
            p.pid: p
            for p in procs.values()
            if p.session == self.pid
            or self.members.get(p.pid) == p.start
            or owned.get(p.pid) is self
        }
        children: dict[int, list[_Proc]] = {}
        for p in procs.values():
            children.setdefault(p.ppid, []).append(p)
        stack = list(found)
        while stack:
            for child in children.get(stack.pop(), ()):
                if child.pid not in found and child.pid != os.getpid():
                    found[child.pid] = child
                    stack.append(child.pid)
        found.pop(os.getpid(), None)
        self.members = {p.pid: p.start for p in found.values()}
        return list(found.values())

    def measure(self, members: Sequence[_Proc]) -> Usage:
        """Sum the usage of ``members``, keep the peak, and return it."""
        output = 0
        if self.output is not None and self.limits.output_bytes:
            with contextlib.suppress(OSError):
                output = self.output.stat().st_size
        usage = Usage(
            processes=len(members),
            cpu_seconds=sum(p.cpu_ticks for p in members) / _TICKS,
            memory_bytes=sum(p.rss_pages for p in members) * _PAGE,
            output_bytes=output,
        )
        self.usage = usage
        peak = self.peak
        peak.processes = max(peak.processes, usage.processes)
        peak.cpu_seconds = max(peak.cpu_seconds, usage.cpu_seconds)
        peak.memory_bytes = max(peak.memory_bytes, usage.memory_bytes)
        peak.output_bytes = max(peak.output_bytes, usage.output_bytes)
        return usage

    def over(self, usage: Usage) -> str | None:
        """Which limit ``usage`` breaks, as a sentence, or None."""
        lim = self.limits
        if lim.processes and usage.processes > lim.processes:
            return (
                f"the process limit: {usage.processes} processes in its group, "
                f"over the limit of {lim.processes}"
            )
        if lim.memory_bytes and usage.memory_bytes > lim.memory_bytes:
            return (
                f"the memory limit: its processes used {usage.memory_bytes / MIB:.0f} MiB, "
                f"over the limit of {lim.memory_bytes / MIB:g} MiB"
            )
        if lim.cpu_seconds and usage.cpu_seconds > lim.cpu_seconds:
            return (
                f"the CPU time limit: its processes used {usage.cpu_seconds:.2f} s of CPU "
                f"time, over the limit of {lim.cpu_seconds:g} s"
            )
        if lim.output_bytes and usage.output_bytes >= lim.output_bytes:
            return f"the output limit: its output reached {size_text(lim.output_bytes)}"
        return None

    def check(self, procs: Mapping[int, _Proc], owned: Mapping[int, Guard | None]) -> None:
        """Measure the bot's processes; kill them all if one limit is broken."""
        members = self.find(procs, owned)
        reason = self.over(self.measure(members))
        if reason is not None and self.breach is None:
            self.breach = reason
        if self.breach is not None:
            self.kill(members)

    def kill(self, members: Sequence[_Proc]) -> None:
        """SIGKILL to the bot's process group and to each of its processes."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        for p in members:
            if not p.zombie:
                _kill(p.pid)

    async def close(self) -> None:
        """Stop watching; kill whatever is left of the bot (children that escaped its group)."""
        watch, self._watch = self._watch, None
        if watch is None:
            return
        watch.remove(self)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + SWEEP_TIME
        while True:
            procs = scan_processes()
            alive = [p for p in self.find(procs, watch.owners(procs, self)) if not p.zombie]
            if not alive or loop.time() > deadline:
                return
            self.kill(alive)
            await asyncio.sleep(0.01)


class GroupWatch:
    """Polls ``/proc`` for every guarded bot of one event loop (:meth:`current`)."""

    _by_loop: ClassVar[weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, GroupWatch]] = (
        weakref.WeakKeyDictionary()
    )

    def __init__(self, interval: float = POLL_INTERVAL) -> None:
        self.interval = interval
        self._guards: list[Guard] = []
        self._owners: dict[tuple[int, int], Guard | None] = {}  # (pid, start) -> marked owner
        self._task: asyncio.Task[None] | None = None

    @classmethod
    def current(cls) -> GroupWatch:
        """The watch of the running event loop."""
        loop = asyncio.get_running_loop()
        watch = cls._by_loop.get(loop)
        if watch is None:
            watch = cls._by_loop[loop] = GroupWatch()
        return watch

    def guard(
        self, pid: int, limits: Limits, output: Path | None = None, marker: bytes | None = None
    ) -> Guard:
        """Start watching the bot whose leader is ``pid``."""
        proc = _read_stat(pid)
        guard = Guard(pid, limits, output, marker, start=proc.start if proc else 0)
        if proc is not None:
            guard.members[pid] = proc.start
        self.add(guard)
        return guard

    def add(self, guard: Guard) -> None:
        """Watch ``guard`` (again)."""
        guard._watch = self
        if guard not in self._guards:
            self._guards.append(guard)
        # Processes looked at before this bot was known may be its own: look again.
        for key in [k for k, v in self._owners.items() if v is None and k[1] >= guard.start]:
            del self._owners[key]
        if guard.limits.polled and self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    def remove(self, guard: Guard) -> None:
        """Stop watching ``guard``."""
        if guard in self._guards:
            self._guards.remove(guard)

    async def _run(self) -> None:
        try:
            while any(g.limits.polled for g in self._guards):
                await asyncio.sleep(self.interval)
                self.poll()
        finally:
            self._task = None  # a finished task would keep the loop (the key) alive

    def poll(self) -> None:
        """One look at every process: measure each guarded bot, kill those over a limit."""
        if not self._guards:
            return
        procs = scan_processes()
        owned = self.owners(procs)
        for guard in list(self._guards):
            if guard.limits.polled or guard.breach is not None:
                guard.check(procs, owned)

    def owners(self, procs: Mapping[int, _Proc], only: Guard | None = None) -> dict[int, Guard]:
        """The processes whose environment carries a guarded bot's marker, by pid.

        Each process's environment is read once (it is fixed at exec), and only for processes
        that started no earlier than the oldest guarded bot.
        """
        guards = [only] if only is not None else self._guards
        marked = [g for g in guards if g.marker]
        live = {(p.pid, p.start) for p in procs.values()}
        for key in [k for k in self._owners if k not in live]:
            del self._owners[key]
        if not marked:
            return {}
        oldest = min(g.start for g in marked)
        out: dict[int, Guard] = {}
        for p in procs.values():
            if p.start < oldest or p.zombie:
                continue
            key = (p.pid, p.start)
            if key not in self._owners or only is not None:
                owner = next(
                    (g for g in marked if g.marker and _environ_has(p.pid, g.marker)), None
                )
                if only is None or owner is not None:
                    self._owners[key] = owner
            owner = self._owners.get(key)
            if owner is not None:
                out[p.pid] = owner
        return out
