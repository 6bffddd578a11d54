"""A sandboxed seat's relay: the process that speaks gRPC with one bot, in that bot's CPU group.

A sandboxed bot's socket is not the referee's: it is this process's. Everything a bot can send
down to raw HTTP/2 frames (floods of streams, resets, pings, settings, window updates) is
parsed here, on the bot's own CPU share (the relay joins the bot's ``cpu`` group), so that a
flood costs the bot that sends it and nobody else. The
referee hears only what the relay forwards over a socket pair, in small frames
(:mod:`referee.relay_frames`), and the relay stamps each message's arrival and each request's
receipt with the machine's monotonic clock, so that the bot's clock runs where the bot is met,
whatever the referee's own load.

The relay runs under the bot's uid (never as root once it serves), outside its sandbox. Its gRPC
server takes two streams per connection and a few connections, closes a connection that says
nothing within the hello timeout, answers pings only so often; the referee judges each Hello.
It gives up its seat, and tells the referee why, when the bot:

- opens more than :data:`MAX_STREAMS` streams over the relay's life (a seat needs one);
- makes the relay spend :data:`ABUSE_CPU` seconds of CPU while it relays fewer than one
  message per :data:`CPU_PER_MESSAGE` of it (a flood of frames, of connections);
- leaves more than :data:`~referee.relay_frames.MAX_UNREAD` bytes unread.

Usage (by :class:`referee.relay_link.SeatRelay`): ``python -I relay.py FD``, the socket pair's
end as ``FD``; the first frame it reads says where to listen and as whom.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import os
import resource
import signal
import socket
import struct
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped]

if __package__ in (None, ""):  # run as a script: the package is two levels up
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee import relay_frames as rf

SERVICE = "ginrummy.v1.Referee"
MAX_STREAMS = 64
POLL = 0.5  # seconds between looks at the relay's CPU time
ABUSE_CPU = 0.5  # seconds of CPU the relay may spend between two judgements
CPU_PER_MESSAGE = 0.002  # an honest relay spends some 0.05 ms a message
PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() == 1:
        os._exit(1)


def _confine(config: dict[str, Any]) -> None:
    """Join the bot's CPU groups, then become its uid: nothing after this runs as root."""
    for directory in config.get("cgroups", ()):
        Path(directory, "cgroup.procs").write_text(str(os.getpid()))
    uid = config.get("uid")
    if uid is not None and os.geteuid() == 0:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)


class Stream:
    """The accepted stream: what waits to be written to the bot, and the task that writes."""

    def __init__(self, relay: Relay, context: Any) -> None:
        self.relay = relay
        self.context = context
        self.queue: deque[bytes] = deque()
        self.unread = 0
        self.wake: asyncio.Future[None] | None = None
        self.closing = False
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def put(self, data: bytes) -> None:
        self.queue.append(data)
        self.unread += len(data)
        if self.unread > rf.MAX_UNREAD:
            self.relay.abuse(
                f"the bot stopped reading its stream: {self.unread} bytes the referee sent it "
                f"were unread, over the limit of {rf.MAX_UNREAD}"
            )
            return
        if self.wake is not None and not self.wake.done():
            self.wake.set_result(None)

    def close(self) -> None:
        self.closing = True
        if self.wake is not None and not self.wake.done():
            self.wake.set_result(None)
        asyncio.get_running_loop().call_later(rf.DRAIN_TIMEOUT, self.finish)

    def finish(self) -> None:
        if not self.done.done():
            self.done.set_result(None)

    async def write_loop(self) -> None:
        write = self.context.write
        loop = asyncio.get_running_loop()
        with contextlib.suppress(Exception):
            while True:
                while self.queue:
                    data = self.queue[0]
                    await write(data)
                    self.queue.popleft()
                    self.unread -= len(data)
                    self.relay.messages += 1
                if self.closing:
                    break
                self.wake = loop.create_future()
                await self.wake
                self.wake = None
        self.finish()


class Relay:
    """One seat's gRPC server and its link to the referee."""

    def __init__(self, config: dict[str, Any], writer: asyncio.StreamWriter) -> None:
        self.config = config
        self.writer = writer
        self.hello_timeout: float = config["hello_timeout"]
        self.streams = 0
        self.messages = 0  # relayed both ways: what the relay's CPU is for
        # Streams waiting for the referee's verdict on their first message, and their context.
        self.verdicts: dict[int, tuple[asyncio.Future[tuple[int, bytes]], Any]] = {}
        self.stream: Stream | None = None
        self.asked = 0  # the latest request's number, and when the relay had it
        self.asked_at = 0.0
        self.server: Any = None
        self.gave_up = False
        self.stopped: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def emit(self, kind: bytes, payload: bytes = b"") -> None:
        self.writer.write(rf.frame(kind, payload))

    def abuse(self, reason: str) -> None:
        """Tell the referee why, and stop serving the seat: every connection closes."""
        if self.gave_up:
            return
        self.gave_up = True
        self.emit(rf.ABUSE, reason.encode())
        asyncio.get_running_loop().create_task(self.stop())

    async def stop(self) -> None:
        if self.server is not None:
            await self.server.stop(0)
        if not self.stopped.done():
            self.stopped.set_result(None)

    # --- the bot's side ------------------------------------------------------------------------

    async def play(self, request_iterator: Any, context: Any) -> None:
        self.streams += 1
        if self.streams > MAX_STREAMS and self.config.get("cut", True):
            self.abuse(
                f"the bot opened more than {MAX_STREAMS} streams on its seat's socket, where "
                "it needs one (an HTTP/2 flood)"
            )
            return
        try:
            first = await asyncio.wait_for(context.read(), self.hello_timeout)
        except TimeoutError:
            await context.abort(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                f"no Hello within {self.hello_timeout:g} s (R11.5)",
            )
            return
        if first is grpc.aio.EOF:
            first = b""
        number = self.streams
        verdict: asyncio.Future[tuple[int, bytes]] = asyncio.get_running_loop().create_future()
        self.verdicts[number] = (verdict, context)
        self.emit(rf.HELLO, struct.pack("<I", number) + first)
        try:
            code, detail = await verdict
        finally:
            self.verdicts.pop(number, None)
        if code != 0:
            await context.abort(_STATUS[code], detail.decode(errors="replace"))
            return
        stream = self.stream
        assert stream is not None and stream.context is context  # made with the verdict
        writer = asyncio.get_running_loop().create_task(stream.write_loop())
        reader = asyncio.get_running_loop().create_task(self.read_loop(context))
        try:
            await stream.done
        except asyncio.CancelledError:
            self.lost("the bot disconnected (its stream was cancelled)", False)
            raise
        finally:
            reader.cancel()
            writer.cancel()

    async def read_loop(self, context: Any) -> None:
        read = context.read
        try:
            while True:
                data = await read()
                if data is grpc.aio.EOF:
                    self.lost("the bot closed its side of the stream", True)
                    return
                self.messages += 1
                self.emit(
                    rf.MESSAGE,
                    rf.STAMPS.pack(time.monotonic(), self.asked, self.asked_at) + data,
                )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # grpc's errors on a broken stream are not one class
            self.lost(f"the stream broke: {type(exc).__name__}: {exc}".rstrip(": "), False)

    def lost(self, reason: str, half: bool) -> None:
        self.emit(rf.LOST, bytes([half]) + reason.encode())

    # --- the referee's side --------------------------------------------------------------------

    def on_frame(self, kind: bytes, payload: bytes) -> None:
        stream = self.stream
        if kind == rf.WRITE:
            if stream is not None:
                stream.put(payload)
        elif kind == rf.REQUEST:
            self.asked = struct.unpack_from("<I", payload)[0]
            self.asked_at = time.monotonic()
            if stream is not None:
                stream.put(payload[4:])
        elif kind == rf.VERDICT:
            number, code = struct.unpack_from("<IB", payload)
            waiting = self.verdicts.get(number)
            if waiting is not None and not waiting[0].done():
                if code == 0:
                    # The stream exists from now on, its Welcome first: what the referee sends
                    # next is queued behind it.
                    self.stream = Stream(self, waiting[1])
                    self.stream.put(payload[5:])
                waiting[0].set_result((code, payload[5:]))
        elif kind == rf.SETTLE:
            token = struct.unpack_from("<I", payload)[0]
            stamps = rf.STAMPS.pack(time.monotonic(), self.asked, self.asked_at)
            self.emit(rf.SETTLED, struct.pack("<I", token) + stamps)
        elif kind == rf.END:
            if stream is not None:
                stream.close()
        elif kind == rf.QUIT:
            asyncio.get_running_loop().create_task(self.stop())

    async def watch_cpu(self) -> None:
        """Give up the seat when the bot makes the relay spend its CPU on no messages: each
        time the relay has spent :data:`ABUSE_CPU` more, it must have relayed a message per
        :data:`CPU_PER_MESSAGE` of it. Counted in CPU, not in time, so that a slow or busy
        machine does not change the verdict."""
        cpu, messages = _cpu(), self.messages
        while not self.gave_up:
            await asyncio.sleep(POLL)
            spent = _cpu() - cpu
            if spent < ABUSE_CPU:
                continue
            relayed = self.messages - messages
            if relayed * CPU_PER_MESSAGE < spent:
                self.abuse(
                    f"its connections made its relay spend {spent:.2f} s of CPU on {relayed} "
                    "messages (an HTTP/2 flood)"
                )
            cpu, messages = _cpu(), self.messages


# A verdict's status, by its number on the wire (grpc.StatusCode's own numbers).
_STATUS = {code.value[0]: code for code in grpc.StatusCode}


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def server_options(config: dict[str, Any], streams: int = 2) -> list[tuple[str, Any]]:
    """A gRPC server's limits: a seat's (two streams a connection: its own, and a second one
    to be refused in words rather than left waiting), or with ``streams`` the referee's own
    TCP listener's (docs/security.md, "The wire")."""
    timeout_ms = max(1, round(config["hello_timeout"] * 1000))
    return [
        ("grpc.max_receive_message_length", config["max_receive"]),
        ("grpc.so_reuseport", 0),
        ("grpc.max_allowed_incoming_connections", config["connections"]),
        ("grpc.server_handshake_timeout_ms", timeout_ms),
        # Streams at once on a connection; streams reset before the server had them still
        # count until they are gone (grpc's rapid-reset protection).
        ("grpc.max_concurrent_streams", streams),
        ("grpc.http.overload_protection", 1),
        # A connection without a stream is closed after the hello timeout.
        ("grpc.max_connection_idle_ms", timeout_ms),
        # Pings: one per 10 s without data, two strikes, then the connection is closed.
        ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
        ("grpc.http2.max_ping_strikes", 2),
        ("grpc.max_metadata_size", 8 << 10),
        ("grpc.absolute_max_metadata_size", 16 << 10),
    ]


async def serve(fd: int) -> None:
    loop = asyncio.get_running_loop()
    reader, writer = await asyncio.open_connection(sock=socket.socket(fileno=fd))
    kind, payload = await rf.read_frame(reader)
    if kind != rf.CONFIG:
        raise SystemExit("relay: the first frame must be its configuration")
    config = json.loads(payload)
    relay = Relay(config, writer)
    try:
        _confine(config)
        _die_with_parent()  # again: a change of uid clears the parent-death signal
        server = grpc.aio.server(options=server_options(config))
        handler = grpc.stream_stream_rpc_method_handler(
            relay.play, request_deserializer=None, response_serializer=None
        )
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(SERVICE, {"Play": handler}),)
        )
        path = config["socket"]
        if server.add_insecure_port(f"unix:{path}") == 0:
            raise OSError(f"cannot listen on the Unix socket {path}")
        await server.start()
        os.chmod(path, 0o600)
    except Exception as exc:
        relay.emit(rf.FAILED, f"{type(exc).__name__}: {exc}".encode())
        await writer.drain()
        return
    relay.server = server
    relay.emit(rf.READY)
    watch = loop.create_task(relay.watch_cpu() if config.get("cut", True) else asyncio.sleep(0))

    async def from_referee() -> None:
        try:
            while True:
                kind, payload = await rf.read_frame(reader)
                relay.on_frame(kind, payload)
        except (asyncio.IncompleteReadError, ConnectionError):
            await relay.stop()  # the referee is gone

    frames = loop.create_task(from_referee())
    await relay.stopped
    watch.cancel()
    frames.cancel()
    with contextlib.suppress(Exception):
        await writer.drain()


def main() -> None:
    _die_with_parent()
    asyncio.run(serve(int(sys.argv[1])))


if __name__ == "__main__":
    main()
