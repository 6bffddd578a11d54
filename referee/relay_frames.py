"""The frames between the referee and a seat's relay (:mod:`referee.relay`) over a socket pair.

Each frame is a kind (one byte), the payload's length (four bytes, little-endian) and the
payload. Both sides are ginref's own; what a bot sent travels only as payload, checked by the
referee as it would check it from a stream of its own.

The referee sends: ``C`` the relay's configuration (JSON: where to listen, as whom, its limits);
``V`` a verdict on a Hello (the stream's number, the gRPC status: 0 accepts it and the rest is
the Welcome to write, else the rest is the message to end the stream with); ``W`` a message to
write to the bot; ``R`` a request to write (its number, then the message: the bot's clock starts
when the relay has it); ``S`` settle (a token); ``E`` end the stream once its queue is written;
``Q`` quit.

The relay sends: ``Y`` ready (listening), or ``F`` failed (why); ``H`` a stream's first message
(the stream's number, then the bytes); ``M`` a message from the bot (its arrival, the latest
request's number and when the relay had it, then the bytes); ``L`` the stream is lost (half-
closed or not, why); ``s`` settled (the token, the relay's clock now, the latest request's
number and when the relay had it): every message read before it has been sent; ``A`` the relay
gave up the seat (why).
"""

from __future__ import annotations

import asyncio
import struct

CONFIG, VERDICT, WRITE, REQUEST, SETTLE, END, QUIT = (bytes([c]) for c in b"CVWRSEQ")
READY, FAILED, HELLO, MESSAGE, LOST, SETTLED, ABUSE = (bytes([c]) for c in b"YFHMLsA")

HEADER = struct.Struct("<cI")
# A message's or a settle's times: (a time, the latest request's number, when the relay had it).
STAMPS = struct.Struct("<dId")
# What a bot may leave unread before its stream is cut: far more than a whole series' messages.
MAX_UNREAD = 1 << 20
# How long closing a stream waits for its queued messages to be written (a bot that does not
# read them is not waited for longer).
DRAIN_TIMEOUT = 5.0
# The largest frame either side accepts: a message within gRPC's own limit, and its header.
MAX_FRAME = (16 << 20) + 64


def frame(kind: bytes, payload: bytes = b"") -> bytes:
    """One frame's bytes."""
    return HEADER.pack(kind, len(payload)) + payload


async def read_frame(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    """The next frame from ``reader``: (kind, payload)."""
    kind, size = HEADER.unpack(await reader.readexactly(HEADER.size))
    if size > MAX_FRAME:
        raise ConnectionError(f"a frame of {size} bytes")
    return kind, await reader.readexactly(size)


class FrameBuffer:
    """Frames from a byte stream that arrives in pieces (an asyncio protocol's data)."""

    def __init__(self) -> None:
        self._data = bytearray()

    def feed(self, data: bytes) -> list[tuple[bytes, bytes]]:
        """The frames ``data`` completes, in order."""
        buffer = self._data
        buffer += data
        frames: list[tuple[bytes, bytes]] = []
        at = 0
        while len(buffer) - at >= HEADER.size:
            kind, size = HEADER.unpack_from(buffer, at)
            if size > MAX_FRAME:
                raise ConnectionError(f"a frame of {size} bytes")
            end = at + HEADER.size + size
            if len(buffer) < end:
                break
            frames.append((kind, bytes(buffer[at + HEADER.size : end])))
            at = end
        del buffer[:at]
        return frames
