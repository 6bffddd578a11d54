"""A bot's CPU is its own: unless bots may ponder, a bot is frozen from its reply to its next
request, so that a bot which spins, or thrashes memory, all match long takes nothing from its
opponent while that one thinks. Judged from outside: the freezer state of each bot's group at
every request, and the CPU time the kernel charges to the attacker's group."""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from referee.engine.rules import Rules
from referee.series import run_match
from tests.support.hostile_helpers import sandboxed_processes
from tests.support.referee_helpers import ROOT, bot
from tests.support.sandbox_helpers import (
    OPTIONS,
    SANDBOX,
    GroupCpu,
    assert_attempted,
    attacker,
)

pytestmark = pytest.mark.slow  # sandboxed matches of real bot processes

CGROUP = Path("/sys/fs/cgroup")
DEADLINE = 30.0  # seconds: far more than the kernel needs to kill a few processes


def freezer_state(pid: int) -> str | None:
    """FROZEN or THAWED: ``pid``'s group's ``cgroup.freeze`` (cgroup v2); None if its group
    has none (a bot's relay runs under its uid, outside its group)."""
    try:
        lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    except OSError:
        return None
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
    assert watch.error is None, watch.error
    rate = watch.rate(spy.times[0], spy.times[-1])
    assert rate < 0.25, (rate, watch.samples)


REFEREE = """
import sys
from dataclasses import replace
from pathlib import Path
from referee.engine.rules import Rules
from referee.series import run_match
from tests.support.referee_helpers import ROOT, bot
from tests.support.sandbox_helpers import OPTIONS

def asked(seat, message, hand):
    if message.WhichOneof("kind") == "decision_request":
        print("asked", seat, flush=True)

run_match(bot("wait", 1), bot("wait", 1), Rules.profile("standard"), 5, Path(sys.argv[1]),
          replace(OPTIONS, move_time=600.0), on_send=asked)
"""


def test_a_frozen_bot_dies_with_its_killed_referee(tmp_path: Path) -> None:
    """The referee is killed while one bot thinks and the other is frozen: both die (their
    parent-death signal), and so do their relays; nothing of the sandbox's uids is left."""
    referee = subprocess.Popen(
        [sys.executable, "-c", REFEREE, str(tmp_path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert referee.stdout is not None
        assert referee.stdout.readline().startswith("asked")  # one thinks, one is frozen
        states = [freezer_state(pid) for pid in sandboxed_processes(SANDBOX)]
        assert "FROZEN" in states and "THAWED" in states, states
    finally:
        referee.kill()
        referee.wait()
    end = time.monotonic() + DEADLINE
    while sandboxed_processes(SANDBOX):
        assert time.monotonic() < end, [freezer_state(p) for p in sandboxed_processes(SANDBOX)]
        time.sleep(0.05)  # polling the kernel's process table for the dead to go
