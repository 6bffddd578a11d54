"""A bot's CPU is its own: unless bots may ponder, a bot is frozen from its reply to its next
request, so that a bot which spins, or thrashes memory, all match long takes nothing from its
opponent while that one thinks. Judged from outside: the freezer state of each bot's group at
every request, and the CPU time the kernel charges to the attacker's group."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from referee.engine.rules import Rules
from referee.series import run_match
from tests.support.hostile_helpers import sandboxed_processes
from tests.support.referee_helpers import bot
from tests.support.sandbox_helpers import OPTIONS, SANDBOX, assert_attempted, attacker

pytestmark = pytest.mark.slow  # sandboxed matches of real bot processes

CGROUP = Path("/sys/fs/cgroup")


def freezer_state(pid: int) -> str | None:
    """FROZEN or THAWED: the freezer state of ``pid``'s group (cgroup v1's freezer, else v2's
    cgroup.freeze); None if it has none."""
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "freezer" in controllers.split(","):
            # The root group has no state: a bot's relay (its uid, not in its freezer).
            file = CGROUP / "freezer" / path.lstrip("/") / "freezer.state"
            if not file.exists():
                return None
            return "THAWED" if file.read_text().strip() == "THAWED" else "FROZEN"
    for line in lines:
        if line.startswith("0::") and line != "0::/":
            for mount in (CGROUP / "unified", CGROUP):
                file = mount / line[3:].lstrip("/") / "cgroup.freeze"
                if file.exists():
                    return "FROZEN" if file.read_text().strip() == "1" else "THAWED"
    return None


class FreezeSpy:
    """At every DecisionRequest, the freezer state of each sandboxed bot's group, by uid."""

    def __init__(self) -> None:
        self.seen: list[dict[int, str]] = []
        self.times: list[float] = []

    def __call__(self, seat: int, message: Any, hand: object) -> None:
        if message.WhichOneof("kind") != "decision_request":
            return
        self.times.append(time.monotonic())
        states: dict[int, str] = {}
        for pid in sandboxed_processes(SANDBOX):
            with_state = freezer_state(pid)
            try:
                uid = Path(f"/proc/{pid}").stat().st_uid
            except OSError:
                continue
            if with_state is not None:
                states.setdefault(uid, with_state)
        self.seen.append(states)


@pytest.mark.parametrize("ponder", [False, True], ids=["frozen", "pondering"])
def test_only_the_bot_to_act_is_thawed(tmp_path: Path, ponder: bool) -> None:
    spy = FreezeSpy()
    options = replace(OPTIONS, ponder=ponder)
    outcome = run_match(bot(), bot(), Rules.profile("standard"), 5, tmp_path, options, on_send=spy)
    assert outcome.forfeit is None
    assert len(spy.seen) == outcome.decisions > 10
    for states in spy.seen:
        assert len(states) == 2, states
        thawed = sorted(states.values()).count("THAWED")
        assert thawed == (2 if ponder else 1), spy.seen


class GroupCpu(threading.Thread):
    """Samples, from outside, the CPU time charged to the group of the process named
    ``spinner`` (cgroup v2's ``cpu.stat``, which every group has)."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.samples: list[tuple[float, float]] = []
        self.done = threading.Event()

    def stat_file(self) -> Path | None:
        for pid in sandboxed_processes(SANDBOX):
            try:
                if Path(f"/proc/{pid}/comm").read_text().strip() != "spinner":
                    continue
                lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
            except OSError:
                continue
            group = next(line[3:] for line in lines if line.startswith("0::"))
            for mount in (CGROUP / "unified", CGROUP):
                path = mount / group.lstrip("/") / "cpu.stat"
                if path.exists():
                    return path
        return None

    def run(self) -> None:
        path = None
        while path is None and not self.done.wait(0.05):
            path = self.stat_file()
        while path is not None and not self.done.wait(0.1):
            try:
                usage = int(path.read_text().split("usage_usec ")[1].split()[0]) / 1e6
            except (OSError, IndexError):
                return  # the group is gone
            self.samples.append((time.monotonic(), usage))

    def rate(self, start: float, end: float) -> float:
        """Cores' worth of CPU the group had from ``start`` to ``end``."""
        inside = [s for s in self.samples if start <= s[0] <= end]
        assert len(inside) >= 10, self.samples
        (wall0, cpu0), (wall1, cpu1) = inside[0], inside[-1]
        return (cpu1 - cpu0) / (wall1 - wall0)


@pytest.mark.parametrize("mode", ["spin_between", "thrash"])
def test_a_bot_that_spins_between_its_turns_gets_no_cpu_then(tmp_path: Path, mode: str) -> None:
    """Its opponent thinks 0.2 s a decision; it answers at once and spins (or copies 32 MiB
    again and again) all the while. Frozen between its turns it gets a few hundredths of a core
    over the match; at one core (its limit) it would take the opponent's."""
    watch = GroupCpu()
    watch.start()
    spy = FreezeSpy()
    try:
        outcome = run_match(
            attacker(mode),
            bot("slow", 0.2),
            Rules.profile("standard"),
            5,
            tmp_path,
            OPTIONS,
            on_send=spy,
        )
    finally:
        watch.done.set()
        watch.join()
    text = next(tmp_path.glob("*.seat0.*.log")).read_text()
    assert_attempted(text, mode, ["early"])
    assert outcome.forfeit is None, outcome.forfeit
    rate = watch.rate(spy.times[0], spy.times[-1])
    assert rate < 0.25, (rate, watch.samples)
