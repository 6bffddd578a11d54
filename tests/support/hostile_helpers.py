"""Checks shared by the hostile-bot tests: the outcome the fault policy says, the log naming the
fault and the rule, the opponent unharmed, and nothing left behind (processes, file descriptors,
threads) in the referee's process."""

from __future__ import annotations

import gc
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.bots.sandbox import SandboxSettings
from referee.convert import fault_kind_pb
from referee.engine.outcomes import Termination
from referee.faults import FaultKind
from referee.wire import ginrummy_pb2 as pb
from tests.support.referee_helpers import alive, assert_log_agrees, of_type

PIDFILE_ENV = "TESTBOT_PIDFILE"


def processes_with_env(name: str, value: str) -> list[int]:
    """Live processes (zombies excluded) whose environment holds ``name=value``.

    Every process a test bot starts inherits its environment, so this finds a bot's children
    and grandchildren too, also those that left its process group or session.
    """
    wanted = f"{name}={value}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
        except OSError:
            continue
        if wanted in environ.split(b"\0") and alive(int(entry)):
            found.append(int(entry))
    return found


def sandboxed_processes(settings: SandboxSettings | None = None) -> list[int]:
    """Live processes (zombies excluded) running under one of the sandbox's uids: a
    sandboxed bot's every process, whatever it did to its session or environment."""
    settings = settings or SandboxSettings()
    low, high = settings.uid_base, settings.uid_base + settings.uid_count
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            uid = os.stat(f"/proc/{entry}").st_uid
        except OSError:
            continue
        if low <= uid < high and alive(int(entry)):
            found.append(int(entry))
    return found


@dataclass(frozen=True, slots=True)
class Resources:
    """What the referee's own process holds: open file descriptors and threads."""

    fds: int
    threads: int  # kernel tasks of this process (every thread, gRPC's C threads included)
    python_threads: int  # threading.active_count()

    @staticmethod
    def now() -> Resources:
        """The current counts, after a garbage collection (gRPC's objects hold descriptors
        until theirs)."""
        gc.collect()
        return Resources(
            fds=len(os.listdir("/proc/self/fd")),
            threads=len(os.listdir("/proc/self/task")),
            python_threads=threading.active_count(),
        )


def assert_nothing_left(
    before: Resources, marker: str, sandbox: SandboxSettings, settle: float = 60.0
) -> None:
    """No process of the test's bots is alive (found by the marker in their environment when
    they run unsandboxed, by their uid in ``sandbox``'s range when sandboxed), and the referee
    holds no more file descriptors or threads than ``before``.

    A thread that watched a bot's exit may still be finishing when the match returns, so the
    counts are read again (for at most ``settle`` seconds) until they are back.
    """
    left = processes_with_env(PIDFILE_ENV, marker) + sandboxed_processes(sandbox)
    assert not left, f"bot processes left behind: {left}"
    until = time.monotonic() + settle
    while True:
        now = Resources.now()
        back = (
            now.fds <= before.fds
            and now.threads <= before.threads
            and now.python_threads <= before.python_threads
        )
        if back or time.monotonic() > until:
            break
        time.sleep(0.02)
    assert now.fds <= before.fds, f"file descriptors: {before.fds} before, {now.fds} after"
    assert now.threads <= before.threads, f"threads: {before.threads} before, {now.threads} after"
    assert now.python_threads <= before.python_threads, (before, now)


def told(outcome: Any, seat: int) -> str:
    """What the bot in ``seat`` printed (the test bot prints each Fault it receives)."""
    return Path(outcome.seats[seat].output).read_text(errors="replace")


class Sent:
    """An ``on_send`` hook that keeps every message the referee writes, by seat."""

    def __init__(self) -> None:
        self.messages: list[tuple[int, pb.RefereeMessage]] = []

    def __call__(self, seat: int, message: pb.RefereeMessage, hand: object) -> None:
        self.messages.append((seat, message))

    def faults(self, seat: int) -> list[pb.Fault]:
        """The Fault messages written to ``seat``."""
        return [m.fault for s, m in self.messages if s == seat and m.WhichOneof("kind") == "fault"]


def assert_forfeit_by_policy(
    outcome: Any, seat: int, kind: FaultKind, rule: str, reason: str, sent: Sent | None = None
) -> None:
    """The default policy: ``seat`` forfeits on its fault of ``kind`` breaking ``rule``, the log
    names both (fault record and match result), the log re-adjudicates, and the referee wrote
    the bot a Fault naming the rule if it could still reach it."""
    result = outcome.result
    assert result.termination is Termination.FORFEIT, result
    assert (result.forfeit_seat, result.winner) == (seat, 1 - seat)
    assert outcome.forfeit is not None, outcome
    assert (outcome.forfeit.kind, outcome.forfeit.rule) == (kind, rule), outcome.forfeit
    assert reason in result.forfeit_reason, result.forfeit_reason
    records = [f for f in of_type(outcome.log_path, "fault") if not f["retry"]]
    assert [(f["seat"], f["kind"], f["rule"]) for f in records] == [(seat, kind.value, rule)]
    assert reason in records[0]["reason"]
    (end,) = of_type(outcome.log_path, "match_result")
    assert end["forfeit"]["seat"] == seat and end["forfeit"]["kind"] == kind.value
    assert end["forfeit"]["rule"] == rule and end["winner"] == 1 - seat
    assert_log_agrees(outcome.log_path)
    if sent is not None and kind.reaches_bot:
        wire = [(f.kind, f.rule, f.retry) for f in sent.faults(seat)]
        assert wire == [(fault_kind_pb(kind), rule, False)], wire


def assert_opponent_untouched(outcome: Any, seat: int) -> None:
    """The other seat has no fault, is not charged, and its bot saw the match end normally."""
    other = 1 - seat
    assert all(f.seat != other for f in outcome.faults), outcome.faults
    assert all(r["seat"] != other for r in of_type(outcome.log_path, "fault"))
    assert outcome.result.forfeit_seat != other
    # The test bot prints its tally when its stream ends with status OK, not on an error.
    assert "decisions " in told(outcome, other), told(outcome, other)
