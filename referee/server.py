"""The referee's gRPC server: ``ginrummy.v1.Referee/Play``, health and reflection.

One server hosts every seat of the matches it runs. A seat is a :class:`SeatTicket` holding a
secret token (``secrets.token_urlsafe``); a bot's ``Hello`` must carry one. The handler checks
the Hello, answers with a ``Welcome`` and hands the stream (a :class:`~referee.transport.BotLink`)
to whoever waits for that seat; from then on the match runner drives the stream. Errors before
the Welcome end the call with the status codes documented in the proto file:

- UNAUTHENTICATED: unknown token; no seat is taken, the bot may try again with the right one.
- ALREADY_EXISTS: the seat's token is already connected; the first connection plays on.
- FAILED_PRECONDITION: an unsupported protocol version.
- INVALID_ARGUMENT: the first message is not a Hello.
- DEADLINE_EXCEEDED: no Hello within the hello timeout.

A message larger than ``max_message_bytes`` (or one that does not parse) does not break the
stream: the deserializer hands the link an :class:`~referee.transport.InvalidMessage`, which the
match runner records as a PROTOCOL_ERROR fault and tells the bot about; gRPC itself cuts a
stream only on a message above ``max(4 MiB, 2 * max_message_bytes)``, to bound memory.

The standard health service answers SERVING for "" and "ginrummy.v1.Referee", and server
reflection serves ``ginrummy/v1/ginrummy.proto``.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from typing import Any

import grpc  # type: ignore[import-untyped]
from grpc_health.v1 import health, health_pb2, health_pb2_grpc  # type: ignore[import-untyped]
from grpc_reflection.v1alpha import reflection  # type: ignore[import-untyped]

from referee.bots.limits import DEFAULT_MESSAGE, GRPC_HARD_LIMIT
from referee.errors import ConfigError
from referee.faults import CONDUCT_RULE
from referee.transport import BotLink, InvalidMessage, parse_bot_message
from referee.wire import PROTOCOL_VERSION
from referee.wire import ginrummy_pb2 as pb
from referee.wire import ginrummy_pb2_grpc as pb_grpc

SERVICE_NAME: str = pb.DESCRIPTOR.services_by_name["Referee"].full_name
REFEREE_VERSION = "ginref 0.1.0"
DEFAULT_HELLO_TIMEOUT = 10.0

# (status code name, message) of a refused connection, reported to the tickets' listeners.
OnRejected = Callable[[str, str], None]


class SeatTicket:
    """A seat waiting for its bot: the token, and the link once the bot is welcomed."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.token = secrets.token_urlsafe(24)
        self.link: BotLink | None = None
        self.connected: asyncio.Future[BotLink] = asyncio.get_running_loop().create_future()
        self.on_rejected: OnRejected | None = None


class RefereeServer:
    """A grpc.aio server on ``host:port`` (port 0: an ephemeral port, see :attr:`address`)."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        hello_timeout: float = DEFAULT_HELLO_TIMEOUT,
        max_message_bytes: int = DEFAULT_MESSAGE,
    ) -> None:
        self._host = host
        self._port = port
        self._hello_timeout = hello_timeout
        self.max_message_bytes = max_message_bytes
        self._tickets: dict[str, SeatTicket] = {}
        self._server: Any = None
        self.port = 0
        # Called on every refused connection whose token matches no seat (it can't be told
        # apart from a bot of another match, so every listener hears it).
        self.rejection_listeners: list[OnRejected] = []

    @property
    def address(self) -> str:
        """``host:port`` to give the bots."""
        return f"{self._host}:{self.port}"

    async def start(self) -> str:
        """Bind and start serving; return :attr:`address`."""
        hard_limit = max(GRPC_HARD_LIMIT, 2 * self.max_message_bytes)
        server = grpc.aio.server(options=[("grpc.max_receive_message_length", hard_limit)])
        limit = self.max_message_bytes
        handlers = {
            "Play": grpc.stream_stream_rpc_method_handler(
                _Servicer(self).Play,
                request_deserializer=lambda data: parse_bot_message(data, limit),
                response_serializer=pb.RefereeMessage.SerializeToString,
            )
        }
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),)
        )
        server.add_registered_method_handlers(SERVICE_NAME, handlers)
        health_servicer = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        for name in ("", SERVICE_NAME):
            await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
        reflection.enable_server_reflection(
            (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server
        )
        try:
            self.port = server.add_insecure_port(f"{self._host}:{self._port}")
        except RuntimeError as exc:
            raise ConfigError(f"cannot listen on {self._host}:{self._port}: {exc}") from None
        if self.port == 0:
            raise ConfigError(f"cannot listen on {self._host}:{self._port}")
        await server.start()
        self._server = server
        return self.address

    async def stop(self, grace: float | None = 1.0) -> None:
        """Stop serving; open streams end with UNAVAILABLE after ``grace`` seconds."""
        if self._server is not None:
            await self._server.stop(grace)
            self._server = None

    def issue_ticket(self, label: str) -> SeatTicket:
        """A new seat with a fresh secret token."""
        ticket = SeatTicket(label)
        self._tickets[ticket.token] = ticket
        return ticket

    def revoke(self, ticket: SeatTicket) -> None:
        """Forget a seat: its token is refused from now on."""
        self._tickets.pop(ticket.token, None)

    async def _play(self, context: Any) -> None:
        try:
            first = await asyncio.wait_for(context.read(), self._hello_timeout)
        except TimeoutError:
            await context.abort(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"no Hello within {self._hello_timeout:g} s ({CONDUCT_RULE})",
            )
            return
        if isinstance(first, InvalidMessage):
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"the first message on the stream must be a Hello, got {first.reason} "
                f"({CONDUCT_RULE})",
            )
            return
        if first is grpc.aio.EOF or first.WhichOneof("kind") != "hello":
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"the first message on the stream must be a Hello ({CONDUCT_RULE})",
            )
            return
        hello = first.hello
        ticket = self._tickets.get(hello.token)
        if ticket is None:
            message = (
                f"unknown seat token ({CONDUCT_RULE}): no seat was taken; "
                "use the token given in GINREF_TOKEN"
            )
            for listener in list(self.rejection_listeners):
                listener("UNAUTHENTICATED", message)
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)
            return
        if ticket.link is not None:
            message = (
                f"{ticket.label} is already connected ({CONDUCT_RULE}): this second connection "
                "is refused; the first one plays on"
            )
            if ticket.on_rejected is not None:
                ticket.on_rejected("ALREADY_EXISTS", message)
            await context.abort(grpc.StatusCode.ALREADY_EXISTS, message)
            return
        if hello.protocol_version != PROTOCOL_VERSION:
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"protocol version {hello.protocol_version} is not supported; "
                f"this referee speaks {PROTOCOL_VERSION}",
            )
            return
        link = BotLink(context, hello)
        ticket.link = link
        await context.write(
            pb.RefereeMessage(
                welcome=pb.Welcome(
                    protocol_version=PROTOCOL_VERSION,
                    referee_version=REFEREE_VERSION,
                    bot_name=link.name,
                )
            )
        )
        if not ticket.connected.done():
            ticket.connected.set_result(link)
        await link.serve()


class _Servicer(pb_grpc.RefereeServicer):
    """Thin adapter: the rpc delegates to :meth:`RefereeServer._play`."""

    def __init__(self, server: RefereeServer) -> None:
        self._server = server

    async def Play(self, request_iterator: Any, context: Any) -> None:
        await self._server._play(context)
