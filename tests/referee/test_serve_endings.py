"""How a hosted referee ends a remote bot's stream, over a real server and a real gRPC client:
the bot must tell "the competition is over" (stop, success) from "your token was revoked" (stop,
failure) and from "the referee stopped" (connect again), and a revoked token is refused."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import grpc  # type: ignore[import-untyped]
import pytest

from referee.lobby import Lobby
from referee.server import RefereeServer
from referee.wire import PROTOCOL_VERSION
from referee.wire import ginrummy_pb2 as pb
from referee.wire import ginrummy_pb2_grpc as pb_grpc

BOUND = 30.0  # seconds: far above what any step here needs
TOKENS = {"bob-token": "bob", "carol-token": "carol"}


class Hosted:
    """A started referee with a lobby (plain text on loopback) and a channel to it."""

    def __init__(self, tokens: dict[str, str]) -> None:
        self.tokens = tokens  # what the lobby's token check reads: a test may revoke one
        self.lobby = Lobby(tokens.get)
        self.server = RefereeServer("127.0.0.1", 0, lobby=self.lobby)
        self.channel: Any = None

    async def join(self, token: str) -> Any:
        """Open a stream, say Hello, and return the call once it waits in the lobby."""
        call = pb_grpc.RefereeStub(self.channel).Play(timeout=BOUND)
        await call.write(_hello(token))
        reply = await call.read()
        assert reply.WhichOneof("kind") == "welcome", reply
        name = self.tokens[token]
        async with asyncio.timeout(BOUND):
            while self.lobby.connected(name) == 0:
                await asyncio.sleep(0.01)
        return call


def _hello(token: str) -> pb.BotMessage:
    return pb.BotMessage(
        hello=pb.Hello(token=token, bot_name="remote", protocol_version=PROTOCOL_VERSION)
    )


async def _ending(call: Any) -> tuple[Any, str]:
    """The status code and message the stream ended with (the bot reads until the end)."""
    try:
        async with asyncio.timeout(BOUND):
            while await call.read() is not grpc.aio.EOF:
                pass
    except grpc.aio.AioRpcError as exc:
        return exc.code(), exc.details() or ""
    return await call.code(), await call.details()


def _run(test: Callable[[Hosted], Awaitable[None]]) -> None:
    async def main() -> None:
        hosted = Hosted(dict(TOKENS))
        await hosted.server.start()
        try:
            async with grpc.aio.insecure_channel(hosted.server.address) as channel:
                hosted.channel = channel
                await test(hosted)
        finally:
            await hosted.server.stop(0)

    asyncio.run(main())


def test_a_revoked_bot_is_told_so_and_the_others_play_on() -> None:
    async def test(h: Hosted) -> None:
        bob, carol = await h.join("bob-token"), await h.join("carol-token")
        del h.tokens["bob-token"]  # what 'ginref tokens revoke' does to the check
        assert h.lobby.drop("bob") == 1
        code, message = await _ending(bob)
        assert code == grpc.StatusCode.PERMISSION_DENIED
        assert message.startswith("the organiser revoked bob's token")
        assert h.lobby.connected("carol") == 1  # carol's stream goes on
        h.lobby.close()
        assert await _ending(carol) == (grpc.StatusCode.OK, "")

    _run(test)


def test_a_revoked_or_unknown_token_is_refused_as_unauthenticated() -> None:
    async def test(h: Hosted) -> None:
        call = pb_grpc.RefereeStub(h.channel).Play(timeout=BOUND)
        await call.write(_hello("bob-token-of-last-year"))
        code, message = await _ending(call)
        assert code == grpc.StatusCode.UNAUTHENTICATED
        assert "unknown or revoked token" in message

    _run(test)


@pytest.mark.parametrize("over", [True, False])
def test_the_end_of_the_competition_is_not_the_referee_stopping(over: bool) -> None:
    """Over: OK (gRPC carries no message with it). Stopped (Ctrl-C, a failure): UNAVAILABLE, so that
    the bot knows to come back when the tournament is resumed."""

    async def test(h: Hosted) -> None:
        call = await h.join("carol-token")
        if over:
            h.lobby.close()
        else:
            await h.server.stop(0)
        code, message = await _ending(call)
        if over:
            assert (code, message) == (grpc.StatusCode.OK, "")
        else:
            assert code == grpc.StatusCode.UNAVAILABLE

    _run(test)
