"""The link to one bot: its gRPC stream, and the deadlines of its replies.

This module owns every deadline of a decision and is, with :mod:`referee.server`, the only one
that touches grpc. Whatever grpc raises on a stream becomes a
:class:`~referee.errors.DisconnectedError`; a missed deadline becomes a
:class:`~referee.errors.DeadlineExceededError`. The match runner only sees those.

Reads use the servicer context's explicit ``read()`` in a task of their own, so a bot's message
is seen when it arrives (an answer out of turn, a disconnect) and not only when the referee
happens to wait for that bot; writes use ``write()`` from a task of their own too, so that the
match runner never waits for a bot to read. Both are the aio API's fastest path (async
generators cost about 12% more per message).

A message that does not parse as a ``BotMessage``, or is larger than the referee allows, is not
an error of the stream: :func:`parse_bot_message` (the server's deserializer) turns it into an
:class:`InvalidMessage`, which the link reports through ``on_invalid`` while the stream stays
open, so the bot can be told (a PROTOCOL_ERROR fault).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections import deque
from typing import Any, TypeVar

import grpc  # type: ignore[import-untyped]

from referee.errors import DeadlineExceededError, DisconnectedError
from referee.faults import CONDUCT_RULE
from referee.link import Clock, OnInvalid, OnLost, OnMessage
from referee.relay_frames import DRAIN_TIMEOUT, MAX_UNREAD
from referee.text import safe_text
from referee.wire import ginrummy_pb2 as pb

T = TypeVar("T")


class InvalidMessage:
    """A message from a bot that the referee could not read: why, in one sentence."""

    __slots__ = ("reason", "size")

    def __init__(self, reason: str, size: int) -> None:
        self.reason = reason
        self.size = size


def parse_bot_message(data: bytes, max_bytes: int) -> pb.BotMessage | InvalidMessage:
    """The server's request deserializer: never raises, so a bad message never breaks a stream."""
    if len(data) > max_bytes:
        return InvalidMessage(
            f"a message of {len(data)} bytes, over the maximum message size of {max_bytes} bytes",
            len(data),
        )
    try:
        message: pb.BotMessage = pb.BotMessage.FromString(data)
    except Exception as exc:  # DecodeError, and whatever else protobuf raises on garbage
        return InvalidMessage(
            f"a message of {len(data)} bytes that is not a ginrummy.v1.BotMessage "
            f"({type(exc).__name__}: {exc})",
            len(data),
        )
    return message


@dataclasses.dataclass(frozen=True, slots=True)
class StreamEnd:
    """How the referee ends a welcomed stream: a gRPC status code's name and its message.

    By name, so that who decides (the lobby) needs no grpc: ``"OK"`` when the bot has nothing
    more to play (the competition is over), ``"PERMISSION_DENIED"`` when it may no longer play
    (its token was revoked), ``"UNAVAILABLE"`` when it may connect again later. gRPC sends no
    message with OK: the message is for the other codes.
    """

    code: str
    message: str = ""


def _ignore_message(message: pb.BotMessage, arrived: float) -> None:
    return None


def _ignore_lost(reason: str, half_closed: bool) -> None:
    return None


def _ignore_invalid(reason: str, arrived: float) -> None:
    return None


class BotLink:
    """One bot's ``Play`` stream after the referee welcomed it (a bot unsandboxed, or remote).

    ``on_message(message, arrival_time)`` is called for every message the bot sends, with the
    event loop's clock at arrival; ``on_lost(reason, half_closed)`` once, when the stream ends
    from the bot's side (``half_closed``: it closed its side cleanly, which is legitimate only
    between matches); ``on_invalid(reason, arrival_time)`` for a message that could not be read
    (:class:`InvalidMessage`). The servicer handler runs :meth:`serve` until :meth:`close`.

    What the referee sends is queued and written by a task of the link's own, so that no
    sender waits for the bot to read; a bot that leaves more than ``MAX_UNREAD`` bytes
    unread is cut (a PROTOCOL_ERROR through ``on_invalid``).
    """

    def __init__(self, context: Any, hello: pb.Hello) -> None:
        self._context = context
        # The bot's own words: shown in tables, logs and terminals, so made safe to print.
        self.name = safe_text(hello.bot_name) or "bot"
        self.version = safe_text(hello.bot_version)
        self.peer: str = context.peer()
        self.on_message: OnMessage = _ignore_message
        self.on_lost: OnLost = _ignore_lost
        self.on_invalid: OnInvalid = _ignore_invalid
        self.lost: str | None = None
        self.half_closed = False
        self._loop = asyncio.get_running_loop()
        self._closed: asyncio.Future[None] = self._loop.create_future()
        self._closing = False
        self._end = StreamEnd("OK")
        self._queue: deque[bytes] = deque()
        self._unread = 0  # bytes queued and not yet written
        self._writer: asyncio.Task[None] | None = None
        self._wake: asyncio.Future[None] | None = None
        self._asked = 0
        self._starts: dict[int, float] = {}

    async def serve(self) -> None:
        """Read until :meth:`close` (then the RPC ends with the status it was given) or the
        stream breaks."""
        reader = self._loop.create_task(self._read_loop())
        try:
            await self._closed
            # Set before the handler returns: grpc sends them as the call's trailing status.
            self._context.set_code(grpc.StatusCode[self._end.code])
            if self._end.message:
                self._context.set_details(self._end.message)
        except asyncio.CancelledError:
            # grpc cancels the handler when the client goes away (crash, cancel, broken socket).
            self._mark_lost("the bot disconnected (its stream was cancelled)", False)
            raise
        finally:
            reader.cancel()
            if self._writer is not None:
                self._writer.cancel()

    async def _read_loop(self) -> None:
        read = self._context.read
        on_message = self.on_message
        loop = self._loop
        try:
            while True:
                message = await read()
                if message is grpc.aio.EOF:
                    self._mark_lost("the bot closed its side of the stream", True)
                    return
                if isinstance(message, InvalidMessage):
                    self.on_invalid(message.reason, loop.time())
                    continue
                if self.on_message is not on_message:
                    on_message = self.on_message
                on_message(message, loop.time())
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # grpc's errors on a broken stream are not one class
            self._mark_lost(f"the stream broke: {type(exc).__name__}: {exc}".rstrip(": "), False)

    def _mark_lost(self, reason: str, half_closed: bool) -> None:
        if self.lost is None or (self.half_closed and not half_closed):
            self.lost = reason
            # After a clean half-close the bot can still read what the referee sends.
            self.half_closed = half_closed
            self.on_lost(reason, half_closed)

    def send(self, message: pb.RefereeMessage | bytes) -> None:
        """Queue one message (or one already serialized), or raise :class:`DisconnectedError`.

        The server's stream has no serializer of its own: what is written goes out as it is.
        """
        if self.lost is not None and not self.half_closed:
            raise DisconnectedError(self.lost)
        data = message if isinstance(message, bytes) else message.SerializeToString()
        self._queue.append(data)
        self._unread += len(data)
        if self._unread > MAX_UNREAD:
            unread = self._unread
            self._queue.clear()
            self._unread = 0
            self.on_invalid(unread_text(unread), self._loop.time())
            self._mark_lost("the referee cut the stream: the bot stopped reading it", False)
            self._finish()
            return
        if self._writer is None:
            self._writer = self._loop.create_task(self._write_loop())
        elif self._wake is not None and not self._wake.done():
            self._wake.set_result(None)

    def ask(self, request: bytes) -> int:
        """Queue a DecisionRequest; the bot's clock starts now (:meth:`started`)."""
        self.send(request)
        self._asked += 1
        self._starts[self._asked] = self._loop.time()
        self._starts.pop(self._asked - 8, None)  # a decision's retries are a few at most
        return self._asked

    def started(self, number: int) -> float:
        """When request ``number`` was queued, on the event loop's clock."""
        return self._starts[number]

    async def settle(self) -> float:
        """The clock now: every message read so far has been delivered already."""
        return self._loop.time()

    async def _write_loop(self) -> None:
        write = self._context.write
        try:
            while True:
                while self._queue:
                    data = self._queue[0]
                    await write(data)
                    if self._queue and self._queue[0] is data:
                        self._queue.popleft()
                        self._unread -= len(data)
                if self._closing:
                    self._finish()
                    return
                self._wake = self._loop.create_future()
                await self._wake
                self._wake = None
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._mark_lost(f"writing to the bot failed: {type(exc).__name__}: {exc}", False)
            self._finish()

    def _finish(self) -> None:
        if not self._closed.done():
            self._closed.set_result(None)

    def close(self, end: StreamEnd | None = None) -> None:
        """End the stream with ``end``'s status (default: OK, no message) once the queue is
        written, or after ``DRAIN_TIMEOUT`` seconds if the bot does not read it."""
        if self._closed.done() or self._closing:
            return
        self._closing = True
        if end is not None:
            self._end = end
        if not self._queue or self.lost is not None:
            self._finish()
            return
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)
        self._loop.call_later(DRAIN_TIMEOUT, self._finish)

    @property
    def closed(self) -> bool:
        """Whether the referee has ended the stream."""
        return self._closed.done() or self._closing


def unread_text(unread: int) -> str:
    """Why a bot that stopped reading its stream was cut."""
    return (
        f"the bot stopped reading its stream: {unread} bytes the referee sent it were unread, "
        f"over the limit of {MAX_UNREAD} ({CONDUCT_RULE})"
    )


def _expire(future: asyncio.Future[Any], deadline: float) -> None:
    if not future.done():
        future.set_exception(DeadlineExceededError(f"no reply before the deadline ({deadline})"))


async def wait_reply(future: asyncio.Future[T], deadline: float, clock: Clock | None = None) -> T:
    """Await ``future`` until ``clock`` (default: the running loop) reaches ``deadline``.

    Raises :class:`DeadlineExceededError` at the deadline. A plain timer on the clock, cheaper
    than :func:`asyncio.wait_for`, which wraps the future in a task of its own.
    """
    if future.done():
        return future.result()
    timer = clock or asyncio.get_running_loop()
    handle = timer.call_at(deadline, _expire, future, deadline)
    try:
        return await future
    finally:
        handle.cancel()
