"""The sandbox's command line (referee/bots/sandbox.py), and a bot's socket (process.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from referee.bots.confine import Confinement
from referee.bots.limits import Limits
from referee.bots.process import BotProcess
from referee.bots.sandbox import TCP_PORT_IN_SANDBOX, SandboxPlan, SandboxSettings
from referee.server import RefereeServer
from tests.support.sandbox_helpers import SANDBOX, opponent


def test_the_tcp_forwarder_listens_on_loopback_and_sends_at_once(tmp_path: Path) -> None:
    """socat forwards a bot's TCP connection to its socket. Without TCP_NODELAY, Nagle's
    algorithm holds back each small message until the previous one is acknowledged, and a
    bot that answers every request pays a delayed acknowledgement per decision."""
    plan = SandboxPlan(SandboxSettings(), 71000, tmp_path / "s.sock", str(tmp_path), [], {}, "tcp")
    argv = plan.argv(["bot"])
    script = argv[argv.index("-c") + 1]
    listen = script.split()[1]
    assert listen.startswith(f"TCP-LISTEN:{TCP_PORT_IN_SANDBOX},")
    assert {"bind=127.0.0.1", "nodelay"} <= set(listen.split(",")[1:])
    assert argv[-1] == "bot"


@pytest.mark.slow  # the sandbox's probe runs bwrap; sockets are chowned to sandbox uids
def test_a_uid_leased_again_gets_a_socket_of_its_own(tmp_path: Path) -> None:
    """A uid is leased again as soon as its bot is gone, before the referee has closed that
    bot's seat (in a tournament of two lanes, the other lane's next bot may get it). Closing the
    first seat (gRPC removes the path it listened on) leaves the next bot's socket in place."""

    async def main() -> None:
        confinement = Confinement.prepare(SANDBOX, [tmp_path])
        server = RefereeServer(tcp=False)
        try:
            seats = []
            for k in range(2):
                process = BotProcess(opponent(), tmp_path / f"{k}.log", Limits(), confinement)
                path = process.prepare()
                assert path is not None and process.lease is not None
                ticket = server.issue_ticket(f"seat {k}")
                await server.listen_unix(ticket, path, process.uid)
                process.lease.release()  # as BotProcess.stop does once the bot is gone
                seats.append((process, ticket, path))
            (first, first_seat, _), (second, _, path) = seats
            assert first.uid == second.uid
            await server.close_seat(first_seat)
            assert path.exists()
        finally:
            await server.stop(0)
            confinement.close()

    asyncio.run(main())
