"""The gRPC server alone: health, reflection, and what happens before a Welcome."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import grpc  # type: ignore[import-untyped]
from grpc_health.v1 import health_pb2, health_pb2_grpc  # type: ignore[import-untyped]
from grpc_reflection.v1alpha import (  # type: ignore[import-untyped]
    reflection_pb2,
    reflection_pb2_grpc,
)

from referee.server import MAX_NAME_CHARS, SERVICE_NAME, RefereeServer, shown_text
from referee.wire import ginrummy_pb2 as pb
from referee.wire import ginrummy_pb2_grpc as pb_grpc


def with_server(test: Callable[[RefereeServer, Any], Awaitable[None]]) -> None:
    """Run ``test(server, channel)`` against a fresh server on an ephemeral port."""

    async def main() -> None:
        server = RefereeServer(hello_timeout=2.0)
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
        await link.send(pb.RefereeMessage(fault=pb.Fault(rule="R0", message="ping")))
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


def test_a_name_and_version_are_kept_printable_and_short() -> None:
    """Escape sequences in a Hello would reach the terminal that shows the bot's name."""

    async def check(server: RefereeServer, channel: Any) -> None:
        ticket = server.issue_ticket("seat 0 of match x")
        call = pb_grpc.RefereeStub(channel).Play()
        name = "bot\x1b]0;title\x07\x1b[2J" + "x" * 200
        await call.write(
            pb.BotMessage(
                hello=pb.Hello(
                    token=ticket.token, bot_name=name, bot_version="1\r\n", protocol_version=1
                )
            )
        )
        welcome = (await call.read()).welcome
        link = await ticket.connected
        cleaned = shown_text(name)
        assert cleaned.startswith("bot\ufffd]0;title\ufffd\ufffd[2Jxxx")
        assert len(cleaned) == MAX_NAME_CHARS and cleaned.isprintable()
        assert welcome.bot_name == link.name == cleaned
        assert link.version == "1\ufffd\ufffd"
        link.close()

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

    with_server(check)
