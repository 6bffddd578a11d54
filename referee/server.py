"""The referee's gRPC server: ``ginrummy.v1.Referee/Play``, health and reflection.

One server hosts every seat of the matches it runs. A seat is a :class:`SeatTicket` holding a
secret token (``secrets.token_urlsafe``); a bot's ``Hello`` must carry one. The handler checks
the Hello, answers with a ``Welcome`` and hands the stream (a :class:`~referee.transport.BotLink`)
to whoever waits for that seat; from then on the match runner drives the stream. Errors before
the Welcome end the call with the status codes documented in the proto file:

- UNAUTHENTICATED: unknown token (on a hosted referee: unknown or revoked); no seat is taken,
  the bot may try again with the right one.
- ALREADY_EXISTS: the seat's token is already connected; the first connection plays on.
- FAILED_PRECONDITION: an unsupported protocol version.
- INVALID_ARGUMENT: the first message is not a Hello.
- DEADLINE_EXCEEDED: no Hello within the hello timeout.

After the Welcome a stream ends with the status its link is closed with
(:class:`~referee.transport.StreamEnd`): OK when the bot has no more matches (on a hosted
referee, the competition is over); PERMISSION_DENIED when a remote bot's token was revoked
(:meth:`referee.lobby.Lobby.drop`); UNAVAILABLE when the referee stops, so that the bot comes
back.

The Hello's ``bot_name`` and ``bot_version`` are kept as :func:`referee.text.safe_text` makes
them (control and format characters escaped, at most 64 characters): the name is printed by
``ginref match`` and in tables, and a bot's escape sequences must not reach that terminal.

A message larger than ``max_message_bytes`` (or one that does not parse) does not break the
stream: the deserializer hands the link an :class:`~referee.transport.InvalidMessage`, which the
match runner records as a PROTOCOL_ERROR fault and tells the bot about; gRPC itself cuts a
stream only on a message above ``max(4 MiB, 2 * max_message_bytes)``, to bound memory.

The standard health service answers SERVING for "" and "ginrummy.v1.Referee", and server
reflection serves ``ginrummy/v1/ginrummy.proto``.
"""

from __future__ import annotations

import asyncio
import contextlib
import resource
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped]
from grpc_health.v1 import health, health_pb2, health_pb2_grpc  # type: ignore[import-untyped]
from grpc_reflection.v1alpha import reflection  # type: ignore[import-untyped]

from referee.bots.limits import DEFAULT_MESSAGE, GRPC_HARD_LIMIT
from referee.errors import ConfigError
from referee.faults import CONDUCT_RULE
from referee.front import Front
from referee.link import SeatLink
from referee.lobby import Lobby
from referee.relay import server_options
from referee.relay_link import RelayLink, SeatRelay
from referee.tls import TlsFiles
from referee.transport import BotLink, InvalidMessage, parse_bot_message
from referee.version import REFEREE_VERSION
from referee.wire import PROTOCOL_VERSION
from referee.wire import ginrummy_pb2 as pb
from referee.wire import ginrummy_pb2_grpc as pb_grpc

SERVICE_NAME: str = pb.DESCRIPTOR.services_by_name["Referee"].full_name
DEFAULT_HELLO_TIMEOUT = 10.0
# Connections the TCP listener accepts at once (all seats together), and each seat's socket.
DEFAULT_MAX_CONNECTIONS = 256
PER_SEAT_CONNECTIONS = 4

# (status code name, message) of a refused connection, reported to the tickets' listeners.
OnRejected = Callable[[str, str], None]


def raise_open_files() -> int:
    """Raise this process's soft limit of open files to its hard limit; return it.

    Every bot connection, log and output file is a descriptor of the referee's: with the soft
    limit (often 1024) a busy tournament would run out long before the kernel's real limit.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class SeatTicket:
    """A seat waiting for its bot: the token, and the link once the bot is welcomed.

    A sandboxed bot's ticket has a relay of its own (:meth:`RefereeServer.listen_unix`): its
    token is accepted there and nowhere else. ``abused`` is set to why its relay gave the seat
    up, should the bot abuse the wire before it is welcomed.
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self.token = secrets.token_urlsafe(24)
        self.link: SeatLink | None = None
        loop = asyncio.get_running_loop()
        self.connected: asyncio.Future[SeatLink] = loop.create_future()
        self.abused: asyncio.Future[str] = loop.create_future()
        self.on_rejected: OnRejected | None = None
        self.relay: SeatRelay | None = None  # the seat's own listener, if it has one
        self.socket: Path | None = None


class RefereeServer:
    """The referee's listeners: ``host:port`` (port 0: an ephemeral port, see :attr:`address`)
    for bots started unsandboxed, by hand or remotely (over TLS with ``tls``, and then only
    over TLS), and one Unix socket per sandboxed seat.

    Every listener refuses connections beyond ``max_connections`` (a bot cannot take the
    referee's file descriptors), ends a connection that has not said Hello within
    ``hello_timeout``, and binds without SO_REUSEPORT, so no other process can share its port
    and catch a bot's Hello.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        hello_timeout: float = DEFAULT_HELLO_TIMEOUT,
        max_message_bytes: int = DEFAULT_MESSAGE,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        tcp: bool = True,
        tls: TlsFiles | None = None,
        lobby: Lobby | None = None,
    ) -> None:
        self._host = host
        self.tls = tls
        self.lobby = lobby
        self._port = port
        self._hello_timeout = hello_timeout
        self.max_message_bytes = max_message_bytes
        self.max_connections = max_connections
        self.tcp = tcp
        raise_open_files()
        self._tickets: dict[str, SeatTicket] = {}
        self._listeners: set[SeatTicket] = set()
        self._server: Any = None
        self.front: Front | None = None
        self.port = 0
        # Called on every refused connection whose token matches no seat (it can't be told
        # apart from a bot of another match, so every listener hears it).
        self.rejection_listeners: list[OnRejected] = []

    @property
    def address(self) -> str:
        """``host:port`` to give the bots started outside a sandbox."""
        return f"{self._host}:{self.port}"

    def _new_server(self) -> Any:
        # The same limits as a seat's relay (referee.relay.server_options), with a remote bot's
        # streams at once on one connection, and room for a health check beside them.
        streams = (self.lobby.max_streams if self.lobby is not None else 1) + 2
        options = server_options(
            {
                "hello_timeout": self._hello_timeout,
                "connections": self.max_connections,
                "max_receive": max(GRPC_HARD_LIMIT, 2 * self.max_message_bytes),
            },
            streams,
        )
        server = grpc.aio.server(options=options)
        limit = self.max_message_bytes
        handlers = {
            "Play": grpc.stream_stream_rpc_method_handler(
                _Servicer(self).Play,
                request_deserializer=lambda data: parse_bot_message(data, limit),
                # None: the link writes bytes, serialized once (requests straight from their
                # cached parts, referee.frames), so grpc does not serialize them again.
                response_serializer=None,
            )
        }
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),)
        )
        server.add_registered_method_handlers(SERVICE_NAME, handlers)
        return server

    async def start(self) -> str:
        """Start serving (TCP too, unless ``tcp`` is off); return :attr:`address`."""
        if not self.tcp:
            return ""
        server = self._new_server()
        health_servicer = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        for name in ("", SERVICE_NAME):
            await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
        reflection.enable_server_reflection(
            (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server
        )
        # A hosted referee's public port is its front's (referee.front), which holds every
        # connection to account before passing its bytes on to this server, on loopback.
        public = self.lobby is not None
        where = "127.0.0.1:0" if public else f"{self._host}:{self._port}"
        try:
            if self.tls is None:
                self.port = server.add_insecure_port(where)
            else:
                # No plain-text port at all: a client without TLS fails its handshake.
                self.port = server.add_secure_port(where, self.tls.credentials())
        except RuntimeError as exc:
            raise ConfigError(f"cannot listen on {self._host}:{self._port}: {exc}") from None
        if self.port == 0:
            raise ConfigError(f"cannot listen on {self._host}:{self._port}")
        await server.start()
        self._server = server
        if public:
            self.front = Front(self._host, self._port, self._hello_timeout)
            try:
                self.port = await self.front.start(self.port)
            except OSError as exc:
                await server.stop(0)
                raise ConfigError(f"cannot listen on {self._host}:{self._port}: {exc}") from None
        return self.address

    async def stop(self, grace: float | None = 1.0) -> None:
        """Stop serving; open streams end with UNAVAILABLE after ``grace`` seconds."""
        for ticket in list(self._listeners):
            await self.close_seat(ticket)
        if self._server is not None:
            await self._server.stop(grace)
            self._server = None
        if self.front is not None:  # after the server: its last words to the bots go through
            await self.front.stop()
            self.front = None

    def issue_ticket(self, label: str) -> SeatTicket:
        """A new seat with a fresh secret token."""
        ticket = SeatTicket(label)
        self._tickets[ticket.token] = ticket
        return ticket

    async def listen_unix(
        self,
        ticket: SeatTicket,
        path: Path,
        uid: int | None = None,
        cgroups: Sequence[Path] = (),
    ) -> None:
        """Give ``ticket`` a listener of its own on the Unix socket ``path``: a relay process
        (:mod:`referee.relay`) under ``uid``, which alone may connect, in the bot's CPU groups
        ``cgroups``; its token is then refused everywhere else."""
        relay = SeatRelay(ticket.label, lambda relay, first: self._judge(ticket, relay, first))

        def abused(reason: str) -> None:
            if not ticket.abused.done():
                ticket.abused.set_result(reason)

        relay.on_abuse = abused
        ticket.relay = relay
        ticket.socket = path
        self._listeners.add(ticket)
        await relay.start(
            path,
            uid,
            cgroups,
            hello_timeout=self._hello_timeout,
            max_receive=max(GRPC_HARD_LIMIT, 2 * self.max_message_bytes),
            connections=PER_SEAT_CONNECTIONS,
        )

    def _judge(
        self, ticket: SeatTicket, relay: SeatRelay, first: bytes
    ) -> tuple[int, bytes, RelayLink | None]:
        """The verdict on the first message of a stream to ``ticket``'s own socket: the gRPC
        status (0: welcome), the Welcome or the refusal's message, and the link if welcomed."""
        message = parse_bot_message(first, self.max_message_bytes) if first else grpc.aio.EOF
        refused = _not_a_hello(message)
        if refused is None:
            assert isinstance(message, pb.BotMessage)
            hello = message.hello
            if hello.token != ticket.token:
                refused = (
                    grpc.StatusCode.UNAUTHENTICATED,
                    f"unknown seat token ({CONDUCT_RULE}): this socket is another seat's",
                )
                if ticket.on_rejected is not None:
                    ticket.on_rejected("UNAUTHENTICATED", refused[1])
            else:
                refused = self._seat_refusal(ticket, hello)
        if refused is not None:
            return refused[0].value[0], refused[1].encode(), None
        link = RelayLink(relay, hello, self.max_message_bytes)
        ticket.link = link
        if not ticket.connected.done():
            ticket.connected.set_result(link)
        return 0, _welcome(link.name).SerializeToString(), link

    @staticmethod
    def _seat_refusal(ticket: SeatTicket, hello: pb.Hello) -> tuple[Any, str] | None:
        """Why a Hello with ``ticket``'s token is refused (a second connection, another protocol
        version), or None."""
        if ticket.link is not None:
            message = (
                f"{ticket.label} is already connected ({CONDUCT_RULE}): this second connection "
                "is refused; the first one plays on"
            )
            if ticket.on_rejected is not None:
                ticket.on_rejected("ALREADY_EXISTS", message)
            return grpc.StatusCode.ALREADY_EXISTS, message
        return _version_refusal(hello)

    def revoke(self, ticket: SeatTicket) -> None:
        """Forget a seat: its token is refused from now on (its listener stays open until
        :meth:`close_seat`, so that the bot reads the end of its stream in peace)."""
        self._tickets.pop(ticket.token, None)

    async def close_seat(self, ticket: SeatTicket) -> None:
        """Close a seat's own listener and remove its socket (once its bot is gone)."""
        self._listeners.discard(ticket)
        relay, ticket.relay = ticket.relay, None
        if relay is not None:
            await relay.stop()
        if ticket.socket is not None:
            with contextlib.suppress(OSError):
                ticket.socket.unlink()
            with contextlib.suppress(OSError):
                ticket.socket.parent.rmdir()  # the seat's own directory, if it is empty

    async def _play(self, context: Any) -> None:
        """A stream on the TCP listener: a seat's bot started unsandboxed, or a remote bot."""
        front, peer = self.front, context.peer()
        if front is not None and not front.opened(peer):
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED, "too many streams before a valid Hello"
            )
            return
        try:
            first = await asyncio.wait_for(context.read(), self._hello_timeout)
        except TimeoutError:
            if front is not None:
                front.refused(peer)
            await context.abort(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"no Hello within {self._hello_timeout:g} s ({CONDUCT_RULE})",
            )
            return
        refused = _not_a_hello(first)
        if refused is not None:
            if front is not None:
                front.refused(peer)
            await context.abort(*refused)
            return
        hello = first.hello
        ticket = self._tickets.get(hello.token)
        if ticket is not None and ticket.relay is not None:
            ticket = None  # a seat's own socket takes its token alone: it counts nowhere else
        if ticket is None and self.lobby is not None:
            name = self.lobby.check(hello.token)
            if name is not None:
                await self._remote(context, hello, name, self.lobby)
                return
            message = (
                "unknown or revoked token: no bot of this competition has it; use the token "
                "the organiser gave you"
            )
            if front is not None:
                front.refused(peer)
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)
            return
        if ticket is None:
            message = (
                f"unknown seat token ({CONDUCT_RULE}): no seat was taken; "
                "use the token given in GINREF_TOKEN"
            )
            for listener in list(self.rejection_listeners):
                listener("UNAUTHENTICATED", message)
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, message)
            return
        refused = self._seat_refusal(ticket, hello)
        if refused is not None:
            await context.abort(*refused)
            return
        link = BotLink(context, hello)
        ticket.link = link
        await context.write(_welcome(link.name).SerializeToString())
        if not ticket.connected.done():
            ticket.connected.set_result(link)
        await link.serve()

    async def _remote(self, context: Any, hello: pb.Hello, name: str, lobby: Lobby) -> None:
        """A remote bot's stream (its own token, not a seat's): into the lobby."""
        refused = _version_refusal(hello)
        if refused is not None:
            await context.abort(*refused)
            return
        if not lobby.capacity_left(name, hello.concurrent_matches):
            allowed = min(lobby.max_streams, max(1, hello.concurrent_matches))
            await context.abort(
                grpc.StatusCode.ALREADY_EXISTS,
                f"{name} already has {allowed} stream(s) open, as many as its Hello's "
                "concurrent_matches allows: this one is refused, the others play on",
            )
            return
        link = BotLink(context, hello)
        if self.front is not None:
            conn = self.front.find(link.peer)
            self.front.admit(link.peer)
            if conn is not None:
                link.peer = conn.address  # where it connected from, not the front's loopback
        await context.write(_welcome(link.name).SerializeToString())
        lobby.admit(name, link)
        await link.serve()


def _not_a_hello(first: Any) -> tuple[Any, str] | None:
    """Why a stream's first message (a message, an unreadable one, or the stream's end) is
    refused, with the status to refuse it with; None for a Hello."""
    if isinstance(first, InvalidMessage):
        return (
            grpc.StatusCode.INVALID_ARGUMENT,
            f"the first message on the stream must be a Hello, got {first.reason} ({CONDUCT_RULE})",
        )
    if first is grpc.aio.EOF or first.WhichOneof("kind") != "hello":
        return (
            grpc.StatusCode.INVALID_ARGUMENT,
            f"the first message on the stream must be a Hello ({CONDUCT_RULE})",
        )
    return None


def _version_refusal(hello: pb.Hello) -> tuple[Any, str] | None:
    if hello.protocol_version != PROTOCOL_VERSION:
        return (
            grpc.StatusCode.FAILED_PRECONDITION,
            f"protocol version {hello.protocol_version} is not supported; "
            f"this referee speaks {PROTOCOL_VERSION}",
        )
    return None


def _welcome(name: str) -> pb.RefereeMessage:
    return pb.RefereeMessage(
        welcome=pb.Welcome(
            protocol_version=PROTOCOL_VERSION,
            referee_version=REFEREE_VERSION,
            bot_name=name,
        )
    )


class _Servicer(pb_grpc.RefereeServicer):
    """Thin adapter: the rpc delegates to :meth:`RefereeServer._play`."""

    def __init__(self, server: RefereeServer) -> None:
        self._server = server

    async def Play(self, request_iterator: Any, context: Any) -> None:
        await self._server._play(context)
