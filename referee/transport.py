"""The link to one bot: its gRPC stream, and the deadlines of its replies.

This module owns every deadline of a decision and is, with :mod:`referee.server`, the only one
that touches grpc. Whatever grpc raises on a stream becomes a
:class:`~referee.errors.DisconnectedError`; a missed deadline becomes a
:class:`~referee.errors.DeadlineExceededError`. The match runner only sees those.

Reads use the servicer context's explicit ``read()`` in a task of their own, so a bot's message
is seen when it arrives (an answer out of turn, a disconnect) and not only when the referee
happens to wait for that bot; writes use ``write()`` from the match runner's task. Both are the
aio API's fastest path (async generators cost about 12% more per message).

A message that does not parse as a ``BotMessage``, or is larger than the referee allows, is not
an error of the stream: :func:`parse_bot_message` (the server's deserializer) turns it into an
:class:`InvalidMessage`, which the link reports through ``on_invalid`` while the stream stays
open, so the bot can be told (a PROTOCOL_ERROR fault).
"""

from __future__ import annotations

import asyncio
from typing import Any, TypeVar

import grpc  # type: ignore[import-untyped]

from referee.errors import DeadlineExceededError, DisconnectedError
from referee.link import Clock, OnInvalid, OnLost, OnMessage
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


def _ignore_message(message: pb.BotMessage, arrived: float) -> None:
    return None


def _ignore_lost(reason: str, half_closed: bool) -> None:
    return None


def _ignore_invalid(reason: str, arrived: float) -> None:
    return None


class BotLink:
    """One bot's ``Play`` stream after the referee welcomed it.

    ``on_message(message, arrival_time)`` is called for every message the bot sends, with the
    event loop's clock at arrival; ``on_lost(reason, half_closed)`` once, when the stream ends
    from the bot's side (``half_closed``: it closed its side cleanly, which is legitimate only
    between matches); ``on_invalid(reason, arrival_time)`` for a message that could not be read
    (:class:`InvalidMessage`). The servicer handler runs :meth:`serve` until :meth:`close`.
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
        self._closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def serve(self) -> None:
        """Read until :meth:`close` (then the RPC ends with status OK) or the stream breaks."""
        reader = asyncio.get_running_loop().create_task(self._read_loop())
        try:
            await self._closed
        except asyncio.CancelledError:
            # grpc cancels the handler when the client goes away (crash, cancel, broken socket).
            self._mark_lost("the bot disconnected (its stream was cancelled)", False)
            raise
        finally:
            reader.cancel()

    async def _read_loop(self) -> None:
        read = self._context.read
        on_message = self.on_message
        loop = asyncio.get_running_loop()
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

    async def send(self, message: pb.RefereeMessage | bytes) -> None:
        """Write one message (or one already serialized), or raise :class:`DisconnectedError`.

        The server's stream has no serializer of its own: what is written goes out as it is.
        """
        if self.lost is not None and not self.half_closed:
            raise DisconnectedError(self.lost)
        data = message if isinstance(message, bytes) else message.SerializeToString()
        try:
            await self._context.write(data)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._mark_lost(f"writing to the bot failed: {type(exc).__name__}: {exc}", False)
            raise DisconnectedError(self.lost or str(exc)) from None

    def close(self) -> None:
        """End the stream with status OK (the handler returns)."""
        if not self._closed.done():
            self._closed.set_result(None)

    @property
    def closed(self) -> bool:
        """Whether the referee has ended the stream."""
        return self._closed.done()


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
