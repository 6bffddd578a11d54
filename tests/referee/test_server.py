"""The gRPC server alone: health, reflection, and what happens before a Welcome."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import socket
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped]
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc  # type: ignore[import-untyped]
from grpc_reflection.v1alpha import (  # type: ignore[import-untyped]
    reflection_pb2,
    reflection_pb2_grpc,
)

from referee.server import PER_SEAT_CONNECTIONS, SERVICE_NAME, RefereeServer
from referee.wire import ginrummy_pb2 as pb
from referee.wire import ginrummy_pb2_grpc as pb_grpc


def with_server(
    test: Callable[[RefereeServer, Any], Awaitable[None]], hello_timeout: float = 60.0
) -> None:
    """Run ``test(server, channel)`` against a fresh server on an ephemeral port.

    The Hello timeout is far from what a test needs to send its Hello, even on a busy machine;
    only the test of a silent client shortens it (silence takes no speed)."""

    async def main() -> None:
        server = RefereeServer(hello_timeout=hello_timeout)
        address = await server.start()
        assert server.port > 0 and address == f"127.0.0.1:{server.port}"
        try:
            async with grpc.aio.insecure_channel(address) as channel:
                await test(server, channel)
        finally:
            await server.stop(0)

    asyncio.run(main())


def hello(token: str, version: int = 1) -> pb.BotMessage:
    return pb.BotMessage(
        hello=pb.Hello(token=token, bot_name="t", bot_version="0", protocol_version=version)
    )


async def refused(channel: Any, first: pb.BotMessage) -> tuple[Any, str]:
    call = pb_grpc.RefereeStub(channel).Play()
    await call.write(first)
    try:
        await call.read()
    except grpc.aio.AioRpcError as exc:
        return exc.code(), exc.details()
    raise AssertionError("the call was not refused")


def test_health_reports_serving_for_the_server_and_the_referee() -> None:
    async def check(server: RefereeServer, channel: Any) -> None:
        stub = health_pb2_grpc.HealthStub(channel)
        for name in ("", SERVICE_NAME):
            reply = await stub.Check(health_pb2.HealthCheckRequest(service=name))
            assert reply.status == health_pb2.HealthCheckResponse.SERVING

    with_server(check)


def test_reflection_lists_the_services_and_serves_the_proto_file() -> None:
    async def check(server: RefereeServer, channel: Any) -> None:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        requests = [
            reflection_pb2.ServerReflectionRequest(list_services=""),
            reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE_NAME),
        ]
        replies = [r async for r in stub.ServerReflectionInfo(iter(requests))]
        names = {s.name for s in replies[0].list_services_response.service}
        assert {"ginrummy.v1.Referee", "grpc.health.v1.Health"} <= names
        files = replies[1].file_descriptor_response.file_descriptor_proto
        from google.protobuf import descriptor_pb2

        protos = [descriptor_pb2.FileDescriptorProto.FromString(f) for f in files]
        assert "ginrummy/v1/ginrummy.proto" in {p.name for p in protos}

    with_server(check)


def test_unknown_token_is_unauthenticated_and_takes_no_seat() -> None:
    async def check(server: RefereeServer, channel: Any) -> None:
        ticket = server.issue_ticket("seat 0 of match x")
        heard: list[tuple[str, str]] = []
        server.rejection_listeners.append(lambda code, why: heard.append((code, why)))
        code, details = await refused(channel, hello("not-a-token"))
        assert code == grpc.StatusCode.UNAUTHENTICATED
        assert "unknown seat token (R11.5)" in details
        assert heard and heard[0][0] == "UNAUTHENTICATED"
        assert ticket.link is None and not ticket.connected.done()

    with_server(check)


def test_second_connection_is_refused_and_the_first_plays_on() -> None:
    async def check(server: RefereeServer, channel: Any) -> None:
        ticket = server.issue_ticket("seat 1 of match x")
        refusals: list[str] = []
        ticket.on_rejected = lambda code, why: refusals.append(code)
        first = pb_grpc.RefereeStub(channel).Play()
        await first.write(hello(ticket.token))
        welcome = await first.read()
        assert welcome.welcome.protocol_version == 1 and welcome.welcome.bot_name == "t"
        link = await ticket.connected
        code, details = await refused(channel, hello(ticket.token))
        assert code == grpc.StatusCode.ALREADY_EXISTS
        assert "already connected" in details and refusals == ["ALREADY_EXISTS"]
        # The first stream still works both ways.
        link.send(pb.RefereeMessage(fault=pb.Fault(rule="R0", message="ping")))
        assert (await first.read()).fault.message == "ping"
        got: list[pb.BotMessage] = []
        arrived = asyncio.Event()

        def on_message(message: pb.BotMessage, when: float) -> None:
            got.append(message)
            arrived.set()

        link.on_message = on_message
        await first.write(pb.BotMessage(action_reply=pb.ActionReply(request_id=7)))
        await asyncio.wait_for(arrived.wait(), 5)
        assert got[0].action_reply.request_id == 7
        link.close()
        assert await first.read() is grpc.aio.EOF
        assert await first.code() == grpc.StatusCode.OK

    with_server(check)


def test_a_half_close_is_reported_as_lost_and_the_bot_can_still_read() -> None:
    async def check(server: RefereeServer, channel: Any) -> None:
        ticket = server.issue_ticket("seat 0 of match x")
        call = pb_grpc.RefereeStub(channel).Play()
        await call.write(hello(ticket.token))
        assert (await call.read()).HasField("welcome")
        link = await ticket.connected
        lost: asyncio.Future[tuple[str, bool]] = asyncio.get_running_loop().create_future()
        link.on_lost = lambda reason, half_closed: lost.set_result((reason, half_closed))
        await call.done_writing()
        reason = "the bot closed its side of the stream"
        assert await asyncio.wait_for(lost, 60) == (reason, True)
        assert (link.lost, link.half_closed) == (reason, True)
        link.send(pb.RefereeMessage(fault=pb.Fault(rule="R0", message="still here")))
        assert (await call.read()).fault.message == "still here"
        link.close()
        assert await call.read() is grpc.aio.EOF

    with_server(check)


def test_first_message_must_be_a_hello() -> None:
    async def check(server: RefereeServer, channel: Any) -> None:
        code, _ = await refused(channel, pb.BotMessage(action_reply=pb.ActionReply()))
        assert code == grpc.StatusCode.INVALID_ARGUMENT

    with_server(check)


def test_unsupported_protocol_version_is_refused() -> None:
    async def check(server: RefereeServer, channel: Any) -> None:
        ticket = server.issue_ticket("seat 0")
        code, details = await refused(channel, hello(ticket.token, version=2))
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "version 2" in details
        assert ticket.link is None

    with_server(check)


def test_a_silent_client_gets_deadline_exceeded() -> None:
    async def check(server: RefereeServer, channel: Any) -> None:
        call = pb_grpc.RefereeStub(channel).Play()
        try:
            await call.read()
        except grpc.aio.AioRpcError as exc:
            assert exc.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            assert "no Hello within 2 s" in exc.details()
        else:
            raise AssertionError("not refused")

    with_server(check, hello_timeout=2.0)


def test_a_bots_name_and_version_are_made_safe_to_print() -> None:
    """A name with a newline, an escape sequence and a bidirectional override reaches the
    referee (and the Welcome) escaped, and cut to 64 characters."""

    async def check(server: RefereeServer, channel: Any) -> None:
        ticket = server.issue_ticket("seat 0 of match x")
        name = "evil\nResult: seat 0 wins\x1b[2J\u202egnp.exe" + "x" * 100
        call = pb_grpc.RefereeStub(channel).Play()
        await call.write(
            pb.BotMessage(
                hello=pb.Hello(
                    token=ticket.token, bot_name=name, bot_version="1\r2", protocol_version=1
                )
            )
        )
        welcome = (await call.read()).welcome
        link = await ticket.connected
        for shown in (link.name, welcome.bot_name, link.version):
            assert shown.isprintable(), shown
        assert link.name.startswith("evil\\x0aResult: seat 0 wins\\x1b[2J\\u202egnp.exe")
        assert len(link.name) == 64 and link.name.endswith("…")
        assert link.version == "1\\x0d2"
        link.close()

    with_server(check)


def test_the_port_cannot_be_shared_with_so_reuseport() -> None:
    """No second process may listen on the referee's port and catch a bot's Hello: the server
    binds without SO_REUSEPORT, so a socket that asks for it cannot bind the same port."""

    async def check(server: RefereeServer, channel: Any) -> None:
        thief = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        thief.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        try:
            with pytest.raises(OSError) as caught:
                thief.bind(("127.0.0.1", server.port))
            assert caught.value.errno == errno.EADDRINUSE
        finally:
            thief.close()

    with_server(check)


def test_a_seats_own_socket_takes_its_token_and_no_other(tmp_path: Path) -> None:
    """A sandboxed seat listens on a Unix socket of its own: its token works there and only
    there; another seat's token is refused there; a fifth connection is refused."""

    async def main() -> None:
        server = RefereeServer(hello_timeout=60.0)
        await server.start()
        mine, other = server.issue_ticket("seat 0"), server.issue_ticket("seat 1")
        path = tmp_path / "seat0.sock"
        await server.listen_unix(mine, path)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        try:
            async with grpc.aio.insecure_channel(f"unix:{path}") as channel:
                code, details = await refused(channel, hello(other.token))
                assert code == grpc.StatusCode.UNAUTHENTICATED
                assert "another seat's" in details
            async with grpc.aio.insecure_channel(server.address) as channel:
                code, _ = await refused(channel, hello(mine.token))
                assert code == grpc.StatusCode.UNAUTHENTICATED  # not over TCP
            async with grpc.aio.insecure_channel(f"unix:{path}") as channel:
                call = pb_grpc.RefereeStub(channel).Play()
                await call.write(hello(mine.token))
                assert (await call.read()).WhichOneof("kind") == "welcome"
                (await mine.connected).close()
        finally:
            await server.close_seat(mine)
            await server.stop(0)
        assert not path.exists()

    asyncio.run(main())


def test_a_seats_socket_accepts_only_a_few_connections(tmp_path: Path) -> None:
    """A bot opening many connections to its socket gets a handful; the rest are refused at
    once, so it cannot take the referee's file descriptors."""

    async def main() -> None:
        server = RefereeServer(hello_timeout=30.0)
        ticket = server.issue_ticket("seat 0")
        path = tmp_path / "seat0.sock"
        await server.listen_unix(ticket, path)
        fds_before = len(os.listdir("/proc/self/fd"))
        clients = []
        try:
            for _ in range(200):
                client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                client.setblocking(False)
                with contextlib.suppress(BlockingIOError, ConnectionRefusedError):
                    client.connect(str(path))
                clients.append(client)
            # Let the server accept what it will; it closes what is over its limit.
            deadline = asyncio.get_running_loop().time() + 20.0
            while asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(0.05)
                held = len(os.listdir("/proc/self/fd")) - fds_before - len(clients)
                if held <= PER_SEAT_CONNECTIONS + 2 and _closed_by_peer(clients) >= 150:
                    break
            held = len(os.listdir("/proc/self/fd")) - fds_before - len(clients)
            assert held <= PER_SEAT_CONNECTIONS + 2, held
            assert _closed_by_peer(clients) >= 150
        finally:
            for client in clients:
                client.close()
            await server.close_seat(ticket)
            await server.stop(0)

    asyncio.run(main())


def _closed_by_peer(clients: list[socket.socket]) -> int:
    """How many of ``clients`` the server has closed (a read gives EOF or an error)."""
    closed = 0
    for client in clients:
        try:
            if client.recv(1, socket.MSG_PEEK) == b"":
                closed += 1
        except BlockingIOError:
            continue
        except OSError:
            closed += 1
    return closed
