"""Per-bot cgroups (referee/bots/cgroup.py): the layout found, the limits written, the kernel's
counts read, on a fake /sys/fs/cgroup of either kind (cgroup v2, or the v1 controllers); and on
this machine's real hierarchy, a group whose every process is killed at once."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.bots import cgroup
from referee.bots.limits import MIB, Limits
from tests.support.referee_helpers import alive

LIMITS = Limits(memory_bytes=256 * MIB, processes=32, cpus=1.5, cpu_seconds=2.0)


def fake_v2(root: Path) -> str:
    """A pure cgroup v2 mount at ``root``, this process in ``/user.slice/me``; its
    /proc/self/cgroup."""
    for path in (root, root / "user.slice" / "me"):
        path.mkdir(parents=True, exist_ok=True)
        (path / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
        (path / "cgroup.procs").write_text("")
    return "0::/user.slice/me\n"


def fake_v1(root: Path, controllers: tuple[str, ...]) -> str:
    lines = []
    for number, name in enumerate(controllers, start=1):
        (root / name / "job").mkdir(parents=True)
        (root / name / "cgroup.procs").write_text("")
        lines.append(f"{number}:{name}:/job")
    return "\n".join(lines) + "\n"


def test_cgroup_v2_limits_are_written_and_counts_read(tmp_path: Path) -> None:
    layout = cgroup.detect_layout(tmp_path, fake_v2(tmp_path))
    assert isinstance(layout, cgroup.Layout) and layout.v2_limits and layout.v1 == {}
    parent = tmp_path / "user.slice" / "me" / f"ginref-{os.getpid()}"
    assert layout.v2 == parent
    assert (parent / "cgroup.subtree_control").read_text() == "+cpu +memory +pids"
    # Our own group did not hand the controllers down: this process moved to a leaf first.
    own = tmp_path / "user.slice" / "me"
    assert (own / f"ginref-{os.getpid()}-referee" / "cgroup.procs").read_text() == str(os.getpid())
    assert (own / "cgroup.subtree_control").read_text() == "+cpu +memory +pids"
    group = cgroup.BotCgroup(layout, "bot-1", LIMITS)
    group.create()
    # The bot's processes in seat/bot with its limits; its relay in seat/relay; the CPU share
    # (and the CPU time counted) the seat's, both of theirs.
    seat = parent / "bot-1"
    d = seat / "bot"
    assert group.join_paths == [d]
    assert group.relay_paths == [seat / "relay"] and (seat / "relay").is_dir()
    assert (seat / "cgroup.subtree_control").read_text() == "+memory +pids"
    assert (d / "memory.max").read_text() == str(256 * MIB)
    assert (d / "memory.swap.max").read_text() == "0"
    assert (d / "pids.max").read_text() == "32"
    assert (seat / "cpu.max").read_text() == "150000 100000"
    (seat / "cpu.stat").write_text("usage_usec 1500000\nuser_usec 1000000\n")
    (d / "memory.current").write_text(str(100 * MIB))
    (d / "memory.peak").write_text(str(200 * MIB))
    (d / "pids.current").write_text("7")
    (d / "memory.events").write_text("low 0\nhigh 0\nmax 3\noom 1\noom_kill 0\n")
    (d / "pids.events").write_text("max 0\n")
    usage = group.usage()
    assert usage == cgroup.CgroupUsage(1.5, 100 * MIB, 200 * MIB, 7, 0, 0)
    assert group.breach(usage) is None
    (d / "memory.events").write_text("oom 2\noom_kill 2\n")
    assert "the memory limit of 256 MiB" in (group.breach() or "")
    (d / "memory.events").write_text("oom_kill 0\n")
    (d / "pids.events").write_text("max 4\n")
    assert "the process limit" in (group.breach() or "")
    (d / "pids.events").write_text("max 0\n")
    (seat / "cpu.stat").write_text("usage_usec 2500000\n")
    assert "the CPU time limit" in (group.breach() or "")


def test_cgroup_v1_controllers_each_get_their_limit(tmp_path: Path) -> None:
    controllers = ("memory", "pids", "cpu", "cpuacct", "freezer")
    layout = cgroup.detect_layout(tmp_path, fake_v1(tmp_path, controllers))
    assert isinstance(layout, cgroup.Layout) and not layout.v2_limits and layout.v2 is None
    assert set(layout.v1) == set(controllers)
    group = cgroup.BotCgroup(layout, "bot-2", LIMITS)
    group.create()
    base = {c: tmp_path / c / "job" / f"ginref-{os.getpid()}" / "bot-2" for c in controllers}
    assert sorted(group.join_paths) == sorted(base.values())
    # The relay shares the bot's CPU share and CPU time, in a group beneath the bot's.
    assert group.relay_paths == [base["cpu"] / "relay", base["cpuacct"] / "relay"]
    assert (base["memory"] / "memory.limit_in_bytes").read_text() == str(256 * MIB)
    assert (base["pids"] / "pids.max").read_text() == "32"
    assert (base["cpu"] / "cpu.cfs_quota_us").read_text() == "150000"
    (base["cpuacct"] / "cpuacct.usage").write_text("3000000000")
    (base["memory"] / "memory.usage_in_bytes").write_text("1024")
    (base["memory"] / "memory.max_usage_in_bytes").write_text("2048")
    (base["memory"] / "memory.oom_control").write_text("oom_kill_disable 0\noom_kill 0\n")
    (base["pids"] / "pids.current").write_text("3")
    (base["pids"] / "pids.events").write_text("max 0\n")
    assert group.usage() == cgroup.CgroupUsage(3.0, 1024, 2048, 3, 0, 0)
    assert "CPU time limit" in (group.breach() or "")


def test_controllers_no_v1_hierarchy_holds_are_used_on_cgroup_v2(tmp_path: Path) -> None:
    """A mixed machine: memory (and the freezer) on v1, cpu and pids given back to the unified
    hierarchy. Each limit is written, and each count read, where its controller is."""
    proc_cgroup = fake_v1(tmp_path, ("memory", "freezer")) + "0::/\n"
    unified = tmp_path / "unified"
    unified.mkdir()
    (unified / "cgroup.controllers").write_text("cpu pids hugetlb\n")
    (unified / "cgroup.procs").write_text("")
    layout = cgroup.detect_layout(tmp_path, proc_cgroup)
    assert isinstance(layout, cgroup.Layout), layout
    assert set(layout.v1) == {"memory", "freezer"}
    assert layout.v2_controllers == {"cpu", "pids"}
    assert layout.description == "cgroup v1 (memory, freezer) with cgroup v2 (cpu, pids)"
    parent = unified / f"ginref-{os.getpid()}"
    assert (parent / "cgroup.subtree_control").read_text() == "+cpu +pids"
    group = cgroup.BotCgroup(layout, "bot-3", LIMITS)
    group.create()
    seat, memory = parent / "bot-3", tmp_path / "memory" / "job" / parent.name / "bot-3"
    assert sorted(group.join_paths) == sorted(
        [memory, tmp_path / "freezer" / "job" / parent.name / "bot-3", seat / "bot"]
    )
    assert group.relay_paths == [seat / "relay"]
    assert (seat / "cgroup.subtree_control").read_text() == "+pids"
    assert (seat / "cpu.max").read_text() == "150000 100000"
    assert (seat / "bot" / "pids.max").read_text() == "32"
    assert not (seat / "bot" / "memory.max").exists()
    assert (memory / "memory.limit_in_bytes").read_text() == str(256 * MIB)
    (seat / "cpu.stat").write_text("usage_usec 500000\n")
    (seat / "bot" / "pids.current").write_text("5")
    (seat / "bot" / "pids.events").write_text("max 2\n")
    (memory / "memory.usage_in_bytes").write_text("4096")
    (memory / "memory.max_usage_in_bytes").write_text("8192")
    (memory / "memory.oom_control").write_text("oom_kill 0\n")
    assert group.usage() == cgroup.CgroupUsage(0.5, 4096, 8192, 5, 0, 2)


def test_no_memory_or_pids_controller_means_no_layout(tmp_path: Path) -> None:
    found = cgroup.detect_layout(tmp_path, fake_v1(tmp_path, ("cpu", "cpuacct")))
    assert isinstance(found, str) and "memory and pids" in found
    assert not list((tmp_path / "cpu" / "job").iterdir())  # what it made, it removed


@pytest.mark.slow
def test_a_real_group_is_killed_whole() -> None:
    """On this machine: a process and the children it hid in a new session are all in the
    bot's group, counted by the kernel, and gone after one kill."""
    layout = cgroup.detect_layout()
    assert isinstance(layout, cgroup.Layout), layout

    async def main() -> None:
        group = cgroup.BotCgroup(layout, f"test-{os.getpid()}", Limits(processes=16))
        group.create()
        joins = " ".join(f"--cgroup {p}" for p in group.join_paths)
        preexec = Path(cgroup.__file__).with_name("preexec.py")
        code = (
            "import os, subprocess, sys, time\n"
            "for _ in range(3):\n"
            "    subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'],"
            " start_new_session=True)\n"
            "print('ready', flush=True); time.sleep(300)\n"
        )
        argv = [sys.executable, "-I", "-S", str(preexec), *joins.split(), "--"]
        proc = subprocess.Popen(
            [*argv, sys.executable, "-c", code], stdout=subprocess.PIPE, text=True
        )
        try:
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
            members = group.pids()
            assert proc.pid in members and len(members) == 4, members
            assert group.usage().processes >= 4
            assert await group.kill_all()
            assert group.pids() == []
            proc.wait(timeout=30)
            assert not any(alive(pid) for pid in members)
        finally:
            proc.kill()
            proc.wait()
            group.remove()
        assert not any(p.exists() for p in group.join_paths)

    asyncio.run(main())


def test_groups_a_killed_referee_left_are_swept(tmp_path: Path) -> None:
    """A referee killed outright cannot remove its groups: the next one removes those of
    processes that are gone (if empty), and nothing of a referee still alive."""
    fake_v1(tmp_path, ("memory", "pids"))
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    left = tmp_path / "pids" / "job" / f"ginref-{dead}" / "bot-1" / "relay"
    left.mkdir(parents=True)
    alive_group = tmp_path / "pids" / "job" / f"ginref-{os.getppid()}"
    alive_group.mkdir()
    layout = cgroup.detect_layout(tmp_path, "1:memory:/job\n2:pids:/job\n")
    assert isinstance(layout, cgroup.Layout)
    assert not (tmp_path / "pids" / "job" / f"ginref-{dead}").exists()
    assert alive_group.is_dir()
