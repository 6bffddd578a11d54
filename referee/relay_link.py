"""The referee's side of a seat's relay (:mod:`referee.relay`): the process, and the link.

:class:`SeatRelay` starts the relay for one sandboxed seat (listening on the seat's socket, in
the bot's CPU group, under its uid), hands each Hello it forwards to the referee's judgement
(:meth:`referee.server.RefereeServer._judge`), and stops it with the seat. :class:`RelayLink` is
the seat's :class:`~referee.link.SeatLink` once its bot is welcomed: what the session sends goes
to the relay as frames and never waits; what the bot sends comes back stamped with the relay's
clock (its arrival, and when the relay had the latest request).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import socket
import struct
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from referee import relay_frames as rf
from referee.errors import ConfigError, DisconnectedError
from referee.link import OnInvalid, OnLost, OnMessage
from referee.text import safe_text
from referee.transport import InvalidMessage, parse_bot_message
from referee.wire import ginrummy_pb2 as pb

RELAY = Path(__file__).with_name("relay.py")
# How long a relay may take to listen, and to answer a settle (it answers at once unless it is
# gone: these only bound how long a dead one is waited for).
START_TIMEOUT = 30.0
SETTLE_TIMEOUT = 5.0
# How long a relay that was told to quit is given before it is killed.
QUIT_GRACE = 1.0

# A stream's first message to judge, from a relay: the judge answers with the gRPC status (0:
# welcome) and the Welcome's bytes or the refusal's message, and the link when welcomed.
Judge = Callable[["SeatRelay", bytes], tuple[int, bytes, "RelayLink | None"]]


def _ignore(*args: object) -> None:
    return None


class RelayLink:
    """A welcomed bot's stream through its relay (a :class:`~referee.link.SeatLink`)."""

    def __init__(self, relay: SeatRelay, hello: pb.Hello, max_message_bytes: int) -> None:
        self._relay = relay
        self.name = safe_text(hello.bot_name) or "bot"
        self.version = safe_text(hello.bot_version)
        self.peer = "relay"
        self.on_message: OnMessage = _ignore
        self.on_lost: OnLost = _ignore
        self.on_invalid: OnInvalid = _ignore
        self.lost: str | None = None
        self.half_closed = False
        self.closed = False
        self._max = max_message_bytes
        self._loop = asyncio.get_running_loop()
        self._asked = 0
        self._queued: dict[int, float] = {}  # request -> when it was queued (the referee's clock)
        self._had: dict[int, float] = {}  # request -> when the relay had it (the relay's)
        self._settles: dict[int, asyncio.Future[float]] = {}
        self._tokens = itertools.count(1)

    # --- to the bot ----------------------------------------------------------------------------

    def send(self, message: pb.RefereeMessage | bytes) -> None:
        """Queue one message at the relay, or raise :class:`DisconnectedError`."""
        if self.lost is not None and not self.half_closed:
            raise DisconnectedError(self.lost)
        data = message if isinstance(message, bytes) else message.SerializeToString()
        self._relay.emit(rf.WRITE, data)

    def ask(self, request: bytes) -> int:
        """Queue a DecisionRequest; the bot's clock starts when the relay has it."""
        if self.lost is not None and not self.half_closed:
            raise DisconnectedError(self.lost)
        self._asked += 1
        number = self._asked
        self._queued[number] = self._loop.time()
        self._queued.pop(number - 8, None)  # a decision's retries are a few at most
        self._relay.emit(rf.REQUEST, struct.pack("<I", number) + request)
        return number

    def started(self, number: int) -> float:
        """When the relay had request ``number`` (when it was queued, until the relay says)."""
        return self._had.get(number, self._queued[number])

    async def settle(self) -> float:
        """The relay's clock, once it has forwarded everything it read before this question."""
        if self._relay.gone is not None:
            raise DisconnectedError(self._relay.gone)
        token = next(self._tokens)
        answer: asyncio.Future[float] = self._loop.create_future()
        self._settles[token] = answer
        self._relay.emit(rf.SETTLE, struct.pack("<I", token))
        try:
            return await asyncio.wait_for(answer, SETTLE_TIMEOUT)
        except TimeoutError:
            raise DisconnectedError(
                f"the bot's relay did not answer within {SETTLE_TIMEOUT:g} s"
            ) from None
        finally:
            self._settles.pop(token, None)

    def close(self) -> None:
        """End the stream once the relay has written what is queued."""
        if not self.closed:
            self.closed = True
            self._relay.emit(rf.END)

    # --- from the bot --------------------------------------------------------------------------

    def _stamped(self, number: int, had: float) -> None:
        if number and number not in self._had:
            self._had[number] = had
            self._had.pop(number - 8, None)

    def on_frame(self, kind: bytes, payload: bytes) -> None:
        if kind == rf.MESSAGE:
            arrived, number, had = rf.STAMPS.unpack_from(payload)
            self._stamped(number, had)
            message = parse_bot_message(payload[rf.STAMPS.size :], self._max)
            if isinstance(message, InvalidMessage):
                self.on_invalid(message.reason, arrived)
            else:
                self.on_message(message, arrived)
        elif kind == rf.SETTLED:
            token = struct.unpack_from("<I", payload)[0]
            now, number, had = rf.STAMPS.unpack_from(payload, 4)
            self._stamped(number, had)
            answer = self._settles.get(token)
            if answer is not None and not answer.done():
                answer.set_result(now)
        elif kind == rf.LOST:
            self.mark_lost(payload[1:].decode(errors="replace"), bool(payload[0]))

    def mark_lost(self, reason: str, half_closed: bool) -> None:
        if self.lost is None or (self.half_closed and not half_closed):
            self.lost = reason
            self.half_closed = half_closed
            self.on_lost(reason, half_closed)
        if not half_closed:
            for answer in self._settles.values():
                if not answer.done():
                    answer.set_exception(DisconnectedError(reason))

    def abused(self, reason: str) -> None:
        """The relay gave up the seat: a protocol error of the bot's, then the stream is gone."""
        self.on_invalid(reason, self._loop.time())
        self.mark_lost(f"the referee cut the stream: {reason}", False)


class _Protocol(asyncio.Protocol):
    def __init__(self, relay: SeatRelay) -> None:
        self.relay = relay
        self.buffer = rf.FrameBuffer()

    def data_received(self, data: bytes) -> None:
        try:
            frames = self.buffer.feed(data)
        except ConnectionError as exc:
            self.relay.on_gone(f"the bot's relay broke: {exc}")
            return
        for kind, payload in frames:
            self.relay.on_frame(kind, payload)

    def connection_lost(self, exc: Exception | None) -> None:
        self.relay.on_gone("the bot's relay exited")


class SeatRelay:
    """One sandboxed seat's relay process.

    ``cut_floods`` (on) lets the relay give the seat up when the bot floods; off, a flood is
    only held to the bot's CPU share: benchmarks/bench_abuse.py measures that containment
    alone.
    """

    cut_floods = True

    def __init__(self, label: str, judge: Judge) -> None:
        self.label = label
        self._judge = judge
        self.link: RelayLink | None = None
        self.gone: str | None = None  # why the relay is gone, once it is
        self.on_abuse: Callable[[str], None] = _ignore
        self._process: asyncio.subprocess.Process | None = None
        self._transport: asyncio.Transport | None = None
        self._ready: asyncio.Future[str | None] | None = None

    async def start(
        self,
        path: Path,
        uid: int | None,
        cgroups: Sequence[Path],
        *,
        hello_timeout: float,
        max_receive: int,
        connections: int,
    ) -> None:
        """Start the relay listening on ``path`` as ``uid`` in ``cgroups``; raise
        :class:`ConfigError` if it cannot."""
        loop = asyncio.get_running_loop()
        ours, theirs = socket.socketpair()
        try:
            self._process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-I",
                str(RELAY),
                str(theirs.fileno()),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                # Nothing of the referee's environment: the relay runs as the bot's uid.
                env={"PATH": os.defpath},
                pass_fds=(theirs.fileno(),),
                start_new_session=True,
            )
        except OSError as exc:
            ours.close()
            raise ConfigError(f"cannot start the relay of {self.label}: {exc}") from None
        finally:
            theirs.close()
        self._ready = loop.create_future()
        transport, _ = await loop.create_unix_connection(lambda: _Protocol(self), sock=ours)
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        config = {
            "socket": str(path),
            "uid": uid,
            "cgroups": [str(c) for c in cgroups],
            "hello_timeout": hello_timeout,
            "max_receive": max_receive,
            "connections": connections,
            "cut": self.cut_floods,
        }
        self.emit(rf.CONFIG, json.dumps(config).encode())
        try:
            failed = await asyncio.wait_for(self._ready, START_TIMEOUT)
        except TimeoutError:
            failed = f"it did not listen within {START_TIMEOUT:g} s"
        if failed is not None:
            await self.stop()
            raise ConfigError(f"cannot start the relay of {self.label}: {failed}")

    def emit(self, kind: bytes, payload: bytes = b"") -> None:
        transport = self._transport
        if transport is not None and not transport.is_closing():
            transport.write(rf.frame(kind, payload))

    def on_frame(self, kind: bytes, payload: bytes) -> None:
        link = self.link
        if link is not None and kind in (rf.MESSAGE, rf.SETTLED, rf.LOST):
            link.on_frame(kind, payload)
        elif kind == rf.HELLO:
            self._hello(payload)
        elif kind == rf.ABUSE:
            reason = payload.decode(errors="replace")
            if link is not None:
                link.abused(reason)
            self.on_abuse(reason)
        elif kind in (rf.READY, rf.FAILED) and self._ready is not None and not self._ready.done():
            self._ready.set_result(None if kind == rf.READY else payload.decode())

    def _hello(self, payload: bytes) -> None:
        number = payload[:4]
        code, detail, link = self._judge(self, payload[4:])
        if link is not None:
            self.link = link
        self.emit(rf.VERDICT, number + bytes([code]) + detail)

    def on_gone(self, reason: str) -> None:
        if self.gone is not None:
            return
        self.gone = reason
        if self._ready is not None and not self._ready.done():
            self._ready.set_result(reason)
        if self.link is not None:
            self.link.mark_lost(reason, False)

    async def stop(self) -> None:
        """Tell the relay to quit (every connection closes), and make sure it has."""
        self.emit(rf.QUIT)
        process = self._process
        if process is not None and process.returncode is None:
            try:
                await asyncio.wait_for(process.wait(), QUIT_GRACE)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        if self._transport is not None:
            self._transport.close()
