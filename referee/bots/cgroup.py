"""A control group per bot: its memory, processes and threads, and CPU, accounted and limited by
the kernel; the whole group killed at the end.

Two layouts, detected once (:func:`detect_layout`):

- **cgroup v2** (the unified hierarchy with the ``memory``, ``pids`` and ``cpu`` controllers):
  one directory per bot with ``memory.max`` (shared memory and memfd pages are charged to it
  too), ``memory.swap.max = 0``, ``pids.max`` (threads count), ``cpu.max``; ``cgroup.kill``
  ends everything in it at once.
- **cgroup v1** (``memory``, ``pids``, ``cpu``/``cpuacct`` hierarchies, and ``freezer``): the
  same limits in each controller's directory. Where the unified hierarchy is mounted beside
  them (a hybrid system), the bot joins a v2 directory too, for ``cgroup.kill``; otherwise the
  group is frozen, every task killed, and thawed.
- **Both**: a controller no v1 hierarchy holds is used on the unified hierarchy where it is
  there (a machine whose v1 ``cpu`` hierarchy was unmounted gives ``cpu`` back to v2), each
  limit written and each count read where its controller is.

A bot joins its groups before it becomes the bot: the launcher (:mod:`referee.bots.preexec`)
writes its own pid into each directory's ``cgroup.procs``, so no process of the bot ever runs
outside them. The groups live under a directory of this referee process
(``ginref-<pid>`` beside the referee's own group), removed when it exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from referee.bots.limits import MIB, Limits, size_text

CGROUP_ROOT = Path("/sys/fs/cgroup")
V1_CONTROLLERS = ("memory", "pids", "cpu", "cpuacct", "freezer")
V2_CONTROLLERS = frozenset({"memory", "pids", "cpu"})
CPU_PERIOD_US = 100_000
# How long kill_all keeps killing before it reports that the group would not empty.
KILL_TIMEOUT = 5.0


@dataclass(frozen=True, slots=True)
class Layout:
    """Where this referee creates its bots' groups, by hierarchy."""

    v1: dict[str, Path]  # controller -> this referee's parent directory in its hierarchy
    v2: Path | None  # this referee's parent directory in the unified hierarchy
    # The controllers of V2_CONTROLLERS this referee's bots get on the unified hierarchy: all
    # of them on a pure cgroup v2 machine, those no v1 hierarchy holds on a mixed one.
    v2_controllers: frozenset[str] = frozenset()

    @property
    def v2_limits(self) -> bool:
        """Whether any limit is set on the unified hierarchy (bots then sit in ``<name>/bot``)."""
        return bool(self.v2_controllers)

    @property
    def description(self) -> str:
        """``cgroup v2``, ``cgroup v1 (memory, pids, ...)``, or both, for messages."""
        if self.v2_controllers == V2_CONTROLLERS:
            return "cgroup v2"
        names = ", ".join(self.v1)
        if self.v2_controllers:
            return f"cgroup v1 ({names}) with cgroup v2 ({', '.join(sorted(self.v2_controllers))})"
        return f"cgroup v1 ({names})" + (" with cgroup v2 for kills" if self.v2 else "")


def _own_groups(proc_cgroup: str) -> dict[str, str]:
    """``/proc/self/cgroup`` as controller -> path ('' is the unified hierarchy)."""
    groups: dict[str, str] = {}
    for line in proc_cgroup.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        for name in controllers.split(",") if controllers else [""]:
            groups[name] = path
    return groups


def _v2_mount(root: Path) -> Path | None:
    if (root / "cgroup.controllers").exists():
        return root  # pure v2
    unified = root / "unified"
    return unified if (unified / "cgroup.controllers").exists() else None


def detect_layout(root: Path = CGROUP_ROOT, proc_cgroup: str | None = None) -> Layout | str:
    """The layout this machine allows, or why there is none (one sentence).

    A directory ``ginref-<pid>`` is made in each usable hierarchy, beside this process's own
    group; a hierarchy where it cannot be made is not used.
    """
    if proc_cgroup is None:
        try:
            proc_cgroup = Path("/proc/self/cgroup").read_text()
        except OSError as exc:
            return f"cannot read /proc/self/cgroup: {exc}"
    own = _own_groups(proc_cgroup)
    name = f"ginref-{os.getpid()}"
    v1: dict[str, Path] = {}
    for controller in V1_CONTROLLERS:
        base = root / controller
        if controller not in own or not (base / "cgroup.procs").exists():
            continue
        parent = base / own[controller].lstrip("/") / name
        _sweep(parent.parent)
        if _make(parent):
            v1[controller] = parent
    v2: Path | None = None
    on_v2: frozenset[str] = frozenset()
    mount = _v2_mount(root)
    if mount is not None and "" in own:
        base = mount / own[""].lstrip("/")
        _sweep(base)
        parent = base / name
        if _make(parent):
            v2 = parent
            wanted = V2_CONTROLLERS - set(v1)
            available = set(_read(base / "cgroup.controllers").split())
            if wanted and wanted <= available:
                line = " ".join(f"+{c}" for c in sorted(wanted))
                if not wanted <= set(_read(base / "cgroup.subtree_control").split()):
                    # A v2 group hands controllers to its children only while it holds no
                    # process itself: this process moves to a leaf of its own first. That
                    # works where ginref runs alone in a delegated group (systemd-run --scope
                    # -p Delegate=yes, a container); elsewhere enabling fails and bots fall
                    # back to the /proc watch.
                    leaf = base / f"{name}-referee"
                    if _make(leaf) and _write(leaf / "cgroup.procs", str(os.getpid())):
                        _write(base / "cgroup.subtree_control", line)
                # The bots' groups are children of ours, which holds no process either.
                if _write(parent / "cgroup.subtree_control", line):
                    on_v2 = frozenset(wanted)
    if not {"memory", "pids"} <= set(v1) | on_v2:
        for path in [*v1.values(), *([v2] if v2 else [])]:
            with contextlib.suppress(OSError):
                path.rmdir()
        return (
            "no cgroup with the memory and pids controllers can be made here (cgroup v2 with "
            "them delegated, or the v1 hierarchies, writable by this user)"
        )
    return Layout(v1, v2, on_v2)


def _sweep(base: Path) -> None:
    """Remove what referees killed before they could clean up left under ``base``: the groups
    ``ginref-<pid>`` of processes that are gone, if they are empty (their bots died with them)."""
    with contextlib.suppress(OSError):
        for entry in base.iterdir():
            pid = entry.name.removeprefix("ginref-").removesuffix("-referee")
            if not entry.name.startswith("ginref-") or not pid.isdigit():
                continue
            if Path(f"/proc/{pid}").exists():
                continue
            for path in sorted(entry.rglob("*"), key=lambda p: -len(p.parts)):
                if path.is_dir():
                    with contextlib.suppress(OSError):
                        path.rmdir()
            with contextlib.suppress(OSError):
                entry.rmdir()


def _make(path: Path) -> bool:
    try:
        path.mkdir(exist_ok=True)
    except OSError:
        return False
    return True


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def _write(path: Path, value: str) -> bool:
    try:
        path.write_text(value)
    except OSError:
        return False
    return True


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 0


def _keyed(text: str) -> dict[str, int]:
    """``key value`` lines (memory.events, cpu.stat, pids.events) as a dict."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        out[key] = _int(value.strip())
    return out


@dataclass(frozen=True, slots=True)
class CgroupUsage:
    """What a bot's group used, as the kernel counts it."""

    cpu_seconds: float
    memory_bytes: int  # now
    memory_peak: int
    processes: int  # tasks (threads included) now
    oom_kills: int  # processes the kernel killed for the memory limit
    refused_forks: int  # fork/clone calls refused by the process limit


class BotCgroup:
    """One bot's groups: made with its limits, joined by its launcher, killed and removed.

    The bot's relay (:mod:`referee.relay`, which speaks gRPC with it) shares its CPU share and
    CPU time, not its memory or processes: it joins a ``relay`` group beneath the bot's in the
    ``cpu`` and ``cpuacct`` hierarchies (cgroup v1), or beside the bot's processes under one
    group that holds ``cpu.max`` (cgroup v2: ``<name>/bot`` and ``<name>/relay``).
    """

    def __init__(self, layout: Layout, name: str, limits: Limits) -> None:
        self.layout = layout
        self.name = name
        self.limits = limits
        self.dirs: dict[str, Path] = {c: p / name for c, p in layout.v1.items()}
        self.v2: Path | None = layout.v2 / name if layout.v2 is not None else None
        # Where the bot's own processes are in the unified hierarchy.
        self.v2_bot: Path | None = self.v2
        if self.v2 is not None and layout.v2_limits:
            self.v2_bot = self.v2 / "bot"
        self._freeze_fd: int | None = None

    @property
    def join_paths(self) -> list[Path]:
        """Every directory whose ``cgroup.procs`` the bot's launcher writes its pid to."""
        paths = list(self.dirs.values())
        if self.v2_bot is not None:
            paths.append(self.v2_bot)
        return paths

    @property
    def relay_paths(self) -> list[Path]:
        """Every directory the bot's relay joins: the bot's CPU share and CPU time."""
        paths = [self.dirs[c] / "relay" for c in ("cpu", "cpuacct") if c in self.dirs]
        if self.layout.v2_limits and self.v2 is not None:
            paths.append(self.v2 / "relay")
        return paths

    def create(self) -> None:
        """Make the directories and set the limits; raise OSError if that fails."""
        for path in self.dirs.values():
            path.mkdir()
        lim = self.limits
        processes = str(lim.processes) if lim.processes else "max"
        if self.v2 is not None:
            self.v2.mkdir()
        on_v2 = self.layout.v2_controllers
        if on_v2 and self.v2 is not None and self.v2_bot is not None:
            # The bot's limits go to its own group, its CPU share to the one it shares with
            # its relay (a v2 group hands controllers on only while it holds no process).
            handed = sorted(on_v2 & {"memory", "pids"})
            if handed:
                self._set(self.v2 / "cgroup.subtree_control", " ".join(f"+{c}" for c in handed))
            if "cpu" in on_v2 and lim.cpus:
                self._set(self.v2 / "cpu.max", f"{round(lim.cpus * CPU_PERIOD_US)} {CPU_PERIOD_US}")
            self.v2_bot.mkdir()
            if "memory" in on_v2:
                memory = str(lim.memory_bytes) if lim.memory_bytes else "max"
                self._set(self.v2_bot / "memory.max", memory)
                self._set(self.v2_bot / "memory.swap.max", "0", optional=True)
            if "pids" in on_v2:
                self._set(self.v2_bot / "pids.max", processes)
        for path in self.relay_paths:
            path.mkdir()
        memory_dir = self.dirs.get("memory")
        if memory_dir is not None:
            limit = str(lim.memory_bytes) if lim.memory_bytes else "-1"
            self._set(memory_dir / "memory.limit_in_bytes", limit)
            # Swap would let a bot hold more than its limit; memsw exists only with swap
            # accounting on, and must be set after the memory limit.
            self._set(memory_dir / "memory.memsw.limit_in_bytes", limit, optional=True)
        pids_dir = self.dirs.get("pids")
        if pids_dir is not None:
            self._set(pids_dir / "pids.max", processes)
        cpu_dir = self.dirs.get("cpu")
        if cpu_dir is not None and lim.cpus:
            self._set(cpu_dir / "cpu.cfs_period_us", str(CPU_PERIOD_US))
            self._set(cpu_dir / "cpu.cfs_quota_us", str(round(lim.cpus * CPU_PERIOD_US)))

    @staticmethod
    def _set(path: Path, value: str, *, optional: bool = False) -> None:
        try:
            path.write_text(value)
        except OSError:
            if not optional:
                raise

    def pids(self) -> list[int]:
        """Every process in the group now."""
        found: set[int] = set()
        for path in self.join_paths:
            found.update(_int(p) for p in _read(path / "cgroup.procs").split())
        found.discard(0)
        return sorted(found)

    def usage(self) -> CgroupUsage:
        """The kernel's counts for the group."""
        cpu = 0.0
        memory = peak = tasks = ooms = refused = 0
        on_v2 = self.layout.v2_controllers if self.v2_bot is not None else frozenset()
        bot = self.v2_bot
        # The unified hierarchy counts CPU time in every group (cpu.stat), with the cpu
        # controller or without; cpuacct's count is the v1 one.
        if "cpuacct" in self.dirs and "cpu" not in on_v2:
            cpu = _int(_read(self.dirs["cpuacct"] / "cpuacct.usage")) / 1e9
        elif self.v2 is not None:
            cpu = _keyed(_read(self.v2 / "cpu.stat")).get("usage_usec", 0) / 1e6
        if "memory" in on_v2 and bot is not None:
            memory = _int(_read(bot / "memory.current"))
            peak = _int(_read(bot / "memory.peak")) or memory
            ooms = _keyed(_read(bot / "memory.events")).get("oom_kill", 0)
        elif "memory" in self.dirs:
            m = self.dirs["memory"]
            memory = _int(_read(m / "memory.usage_in_bytes"))
            peak = _int(_read(m / "memory.max_usage_in_bytes"))
            ooms = _keyed(_read(m / "memory.oom_control")).get("oom_kill", 0)
        if "pids" in on_v2 and bot is not None:
            tasks = _int(_read(bot / "pids.current"))
            refused = _keyed(_read(bot / "pids.events")).get("max", 0)
        elif "pids" in self.dirs:
            p = self.dirs["pids"]
            tasks = _int(_read(p / "pids.current"))
            refused = _keyed(_read(p / "pids.events")).get("max", 0)
        return CgroupUsage(cpu, memory, peak, tasks, ooms, refused)

    def breach(self, usage: CgroupUsage | None = None) -> str | None:
        """The limit the group broke, as the end of a sentence, or None.

        The kernel holds memory and processes at their limits; a bot that ran into one (a
        process killed for memory, a fork or thread refused) has broken it, as has one whose
        CPU time over its life is over the limit: :class:`~referee.bots.process.BotProcess`
        then kills the whole group.
        """
        usage = usage or self.usage()
        lim = self.limits
        if usage.oom_kills:
            return (
                f"the memory limit of {size_text(lim.memory_bytes)} (the kernel killed "
                f"{usage.oom_kills} of its processes; peak {usage.memory_peak / MIB:.0f} MiB)"
            )
        if usage.refused_forks:
            return (
                f"the process limit: it tried to have more than {lim.processes} processes and "
                f"threads at once ({usage.refused_forks} refused)"
            )
        if lim.cpu_seconds and usage.cpu_seconds > lim.cpu_seconds:
            return (
                f"the CPU time limit: its processes used {usage.cpu_seconds:.2f} s of CPU time, "
                f"over the limit of {lim.cpu_seconds:g} s"
            )
        return None

    def signal_all(self, sig: signal.Signals) -> None:
        """Send ``sig`` to every process in the group."""
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)

    async def kill_all(self) -> bool:
        """Kill every process in the group and wait until it is empty; False if it would not."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + KILL_TIMEOUT
        freezer = self.dirs.get("freezer")
        while True:
            # cgroup.kill (v2) kills the whole group at once; else every pid by hand, frozen
            # where there is a freezer, so that a bot cannot fork faster than it is killed.
            if self.v2_bot is None or not _write(self.v2_bot / "cgroup.kill", "1"):
                if freezer is not None:
                    _write(freezer / "freezer.state", "FROZEN")
                self.signal_all(signal.SIGKILL)
                if freezer is not None:
                    _write(freezer / "freezer.state", "THAWED")
            if not self.pids():
                return True
            if loop.time() > deadline:
                return False
            await asyncio.sleep(0.01)

    def freeze(self, frozen: bool) -> bool:
        """Freeze every process of the bot (not its relay), or thaw them; False if this
        machine's groups cannot.

        Only cgroup v2's ``cgroup.freeze``: a process it froze still dies of SIGKILL, so a bot
        frozen when its referee is killed dies with it (its parent-death signal). cgroup v1's
        freezer holds a fatal signal until the group is thawed, which nobody would do then.
        """
        if self.v2_bot is None:
            return False
        try:
            if self._freeze_fd is None:
                # Held open: a decision freezes and thaws, and opening costs ten times the write.
                self._freeze_fd = os.open(self.v2_bot / "cgroup.freeze", os.O_WRONLY)
            os.pwrite(self._freeze_fd, b"1" if frozen else b"0", 0)
        except OSError:
            return False
        return True

    def close(self) -> None:
        """Let go of the files held open (the freezer's)."""
        if self._freeze_fd is not None:
            os.close(self._freeze_fd)
            self._freeze_fd = None

    def remove(self) -> None:
        """Remove the (empty) directories (the relay's first: it must have exited)."""
        self.close()
        paths = [*self.relay_paths, *self.join_paths]
        if self.v2 is not None and self.v2 != self.v2_bot:
            paths.append(self.v2)
        for path in paths:
            with contextlib.suppress(OSError):
                path.rmdir()


def remove_parents(layout: Layout) -> None:
    """Remove this referee's parent directories (those that are empty)."""
    paths: Iterable[Path] = [*layout.v1.values(), *([layout.v2] if layout.v2 else [])]
    for path in paths:
        with contextlib.suppress(OSError):
            path.rmdir()
