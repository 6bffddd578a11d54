"""A series owns its bots for its lifetime: however ``async with Series(...)`` is left (its body
raises, or it is cancelled while the bots play or while they connect), every bot process is
gone, its cgroup removed, and the server the series made for itself stopped.

The bot processes are real (the test bot, unsandboxed); what each launch made is caught by
wrapping :func:`referee.lineup.launch`, and judged from outside afterwards: the pids, the cgroup
directories, the server's port.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import referee.lineup
from referee.bots.process import BotProcess
from referee.engine.rules import Rules
from referee.lineup import run_to_the_end
from referee.series import Series
from referee.server import RefereeServer, SeatTicket
from referee.wire import ginrummy_pb2 as pb
from tests.support.referee_helpers import FAST, alive, bot, of_type

RULES = Rules.profile("standard", scope="single_hand")


class Boom(Exception):
    """The error the body of a series raises."""


@dataclass(slots=True)
class Launched:
    """What each launch of a bot made: its pid, its cgroup's directories, its server."""

    pids: list[int] = field(default_factory=list)
    groups: list[Path] = field(default_factory=list)
    servers: list[RefereeServer] = field(default_factory=list)
    then: Callable[[], None] | None = None  # called once every bot of the series is launched

    def assert_released(self, bots: int = 2) -> None:
        assert len(self.pids) == bots, self.pids
        for pid in self.pids:
            assert not alive(pid), f"bot process {pid} is still running"
        for group in self.groups:
            assert not group.exists(), f"cgroup {group} is still there"
        for server in self.servers:
            host, port = server.address.rsplit(":", 1)
            with pytest.raises(ConnectionRefusedError):
                socket.create_connection((host, int(port)), timeout=5).close()


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> Launched:
    seen = Launched()
    launch = referee.lineup.launch

    async def spy(
        process: BotProcess, ticket: SeatTicket, server: RefereeServer, seat: int
    ) -> None:
        await launch(process, ticket, server, seat)
        assert process.proc is not None, process.start_error
        seen.pids.append(process.proc.pid)
        if process.cgroup is not None:
            seen.groups.extend(process.cgroup.join_paths)
        seen.servers.append(server)
        if len(seen.pids) == 2 and seen.then is not None:
            seen.then()

    monkeypatch.setattr(referee.lineup, "launch", spy)
    return seen


@pytest.mark.slow
def test_the_bots_are_released_when_the_body_raises(
    tmp_path: Path, pidfile: Path, launched: Launched
) -> None:
    async def body() -> None:
        async with Series((bot(), bot()), RULES, [1, 2], tmp_path, FAST) as series:
            await series.play(series.plans[0])
            # Kept for the next match: the same two processes, still running.
            assert len(launched.pids) == 2 and all(alive(pid) for pid in launched.pids)
            raise Boom

    with pytest.raises(Boom):
        asyncio.run(body())
    launched.assert_released()


@pytest.mark.slow
def test_the_bots_are_released_when_the_series_is_cancelled_in_a_match(
    tmp_path: Path, pidfile: Path, launched: Launched
) -> None:
    plans = []

    async def main() -> None:
        def cut_at_first_request(seat: int, message: pb.RefereeMessage, hand: object) -> None:
            if message.WhichOneof("kind") == "decision_request":
                task.cancel()

        async def play() -> None:
            series = Series(
                (bot(), bot()), RULES, [1, 2], tmp_path, FAST, on_send=cut_at_first_request
            )
            plans.extend(series.plans)
            async with series:
                for plan in series.plans:
                    await series.play(plan)

        task = asyncio.ensure_future(play())
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    launched.assert_released()
    # Cut in the middle of its first match, which has no result.
    assert of_type(plans[0].log_path, "decision") == []
    assert of_type(plans[0].log_path, "match_result") == []


@pytest.mark.slow
def test_the_bots_are_released_when_the_series_is_cancelled_while_they_connect(
    tmp_path: Path, pidfile: Path, launched: Launched
) -> None:
    async def main() -> None:
        async def enter() -> None:
            # One bot never connects: the series waits for it until it is cancelled.
            async with Series((bot(), bot("never")), RULES, [1], tmp_path, FAST):
                raise AssertionError("the series was entered without its second bot")

        task = asyncio.ensure_future(enter())
        launched.then = task.cancel
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    launched.assert_released()


def test_a_release_goes_on_through_a_second_cancellation() -> None:
    """The release runs to its end when the task is cancelled again meanwhile, and the task is
    cancelled after it."""
    done: list[str] = []

    async def main() -> None:
        entered = asyncio.Event()
        finish = asyncio.Event()

        async def release() -> None:
            entered.set()
            await finish.wait()
            done.append("released")

        task = asyncio.ensure_future(run_to_the_end(release()))
        await entered.wait()
        task.cancel()
        finish.set()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert done == ["released"]
