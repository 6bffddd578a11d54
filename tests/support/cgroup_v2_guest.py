"""Run inside a virtual machine whose kernel gives every controller to cgroup v2 (the host's
own hierarchy keeps them on v1): the pure cgroup v2 path of :mod:`referee.bots.cgroup`, for real.

``python tests/support/cgroup_v2_guest.py RESULT.json`` (as root, in the project's root) makes a
bot's groups as the referee does, starts processes in them through the launcher
(:mod:`referee.bots.preexec`), and writes what it saw to ``RESULT.json``: the layout, the
limits the kernel holds, and the counts it reports while spinners, a fork bomb and a memory
hog run; ``tests/bots/test_cgroup_v2.py`` judges them. Shell loops stand in for bots: the
kernel cannot tell them apart, and a Python start costs seconds on an emulated CPU.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from referee.bots import cgroup  # noqa: E402
from referee.bots.limits import MIB, Limits  # noqa: E402

PREEXEC = ROOT / "referee" / "bots" / "preexec.py"
SPINNERS = "for i in 1 2 3 4; do (while :; do :; done) & done; wait"
FORKS = "for i in $(seq 40); do sleep 600 & done; wait"
HOG = "bytearray(256 << 20)"


def start(group: cgroup.BotCgroup, argv: list[str]) -> subprocess.Popen[bytes]:
    joins = [word for path in group.join_paths for word in ("--cgroup", str(path))]
    return subprocess.Popen([sys.executable, "-I", "-S", str(PREEXEC), *joins, "--", *argv])


def stat(path: Path) -> dict[str, int]:
    return cgroup._keyed((path / "cpu.stat").read_text())


async def spin(layout: cgroup.Layout, out: dict[str, Any]) -> None:
    """Four spinners under one core: the CPU charged against the bandwidth periods counted."""
    group = cgroup.BotCgroup(layout, "spin", Limits(processes=32, cpus=1.0, cpu_seconds=2.0))
    group.create()
    assert group.v2 is not None
    out["cpu.max"] = (group.v2 / "cpu.max").read_text().strip()
    proc = start(group, ["/bin/sh", "-c", SPINNERS])
    first = stat(group.v2)
    # Until the group has used 3 s of CPU, however long the machine takes to give it that.
    while group.usage().cpu_seconds < 3.0:
        await asyncio.sleep(0.1)
    last = stat(group.v2)
    out["spin"] = {"first": first, "last": last, "breach": group.breach()}
    assert group.v2_bot is not None and group.freeze(True)
    events = group.v2_bot / "cgroup.events"
    while "frozen 1" not in events.read_text():
        await asyncio.sleep(0.05)
    frozen = group.usage().cpu_seconds
    await asyncio.sleep(0.5)
    out["frozen_cpu"] = [frozen, group.usage().cpu_seconds]
    group.freeze(False)
    out["killed"] = await group.kill_all()
    out["left"] = group.pids()
    proc.wait()
    group.remove()


async def forks(layout: cgroup.Layout, out: dict[str, Any]) -> None:
    """Forty sleepers under a limit of eight processes."""
    group = cgroup.BotCgroup(layout, "forks", Limits(processes=8))
    group.create()
    assert group.v2_bot is not None
    out["pids.max"] = (group.v2_bot / "pids.max").read_text().strip()
    proc = start(group, ["/bin/sh", "-c", FORKS])
    while group.usage().refused_forks == 0 and proc.poll() is None:
        await asyncio.sleep(0.05)
    usage = group.usage()
    out["forks"] = {"processes": usage.processes, "refused": usage.refused_forks}
    out["forks_breach"] = group.breach(usage)
    await group.kill_all()
    proc.wait()
    group.remove()


async def hog(layout: cgroup.Layout, out: dict[str, Any]) -> None:
    """256 MiB asked for under a limit of 64 MiB."""
    group = cgroup.BotCgroup(layout, "hog", Limits(processes=8, memory_bytes=64 * MIB))
    group.create()
    assert group.v2_bot is not None
    out["memory.max"] = (group.v2_bot / "memory.max").read_text().strip()
    proc = start(group, [sys.executable, "-I", "-S", "-c", HOG])
    out["hog_status"] = proc.wait()
    usage = group.usage()
    out["hog"] = {"oom_kills": usage.oom_kills, "peak": usage.memory_peak}
    out["hog_breach"] = group.breach(usage)
    await group.kill_all()
    group.remove()


async def main(result: Path) -> None:
    layout = cgroup.detect_layout()
    out: dict[str, Any] = {"layout": str(layout)}
    try:
        assert isinstance(layout, cgroup.Layout), layout
        out["v1"] = sorted(layout.v1)
        out["v2_controllers"] = sorted(layout.v2_controllers)
        out["description"] = layout.description
        for step in (spin, forks, hog):
            await step(layout, out)
        cgroup.remove_parents(layout)
    except Exception as exc:  # the host's test shows it with everything seen before it
        out["error"] = f"{type(exc).__name__}: {exc}"
    out["elapsed"] = time.monotonic()
    result.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
