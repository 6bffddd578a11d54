"""An outsider on a hosted referee's public port, with no token (referee/front.py): idle TLS
connections by the hundred, streams opened and reset, frames by the megabyte. An entrant with
a valid token still gets in, and the outsider's connections are closed. Judged from the
entrant's own connection, from what the outsider's sockets see, and from the front's count of
what it closed and why.

The outsider connects from other loopback addresses (127.0.0.2 and up) than the entrant
(127.0.0.1), as it would from other machines."""

from __future__ import annotations

import asyncio
import socket
import ssl
import time
from pathlib import Path

import h2.config
import h2.connection
import h2.events
import pytest
from hpack import Encoder
from hyperframe.frame import HeadersFrame, RstStreamFrame, WindowUpdateFrame

from referee.front import PENDING, PENDING_PER_ADDRESS
from tests.support.certs import Certificates
from tests.tournaments.test_hosted import BOUND, Hosted, hosted, join, until

pytestmark = pytest.mark.slow  # hundreds of TLS connections, and their timeouts

HELLO_TIMEOUT = 2.0  # the hosted referee's connect timeout here


def outsider(address: str, ca: Path, source: str) -> socket.socket | None:
    """A TLS connection from ``source`` with the HTTP/2 preface and settings said, the
    server's settings acknowledged, no stream: all an idle connection ever does. (It may be
    closed already, by the time it is returned: a newer one of the outsider's may evict it.)"""
    host, port = address.rsplit(":", 1)
    raw = socket.create_connection((host, int(port)), timeout=BOUND, source_address=(source, 0))
    context = ssl.create_default_context(cafile=str(ca))
    context.set_alpn_protocols(["h2"])
    try:
        sock = context.wrap_socket(raw, server_hostname="localhost")
    except OSError:
        return None  # closed before its handshake was done
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    conn.initiate_connection()
    try:
        sock.sendall(conn.data_to_send())
        while True:
            data = sock.recv(65536)
            if not data:
                return sock
            events = conn.receive_data(data)
            sock.sendall(conn.data_to_send())
            if any(isinstance(e, h2.events.RemoteSettingsChanged) for e in events):
                return sock
    except OSError:
        return sock


def closed_by_server(sock: socket.socket | None) -> bool:
    """Whether the server has closed ``sock`` (waiting at most :data:`BOUND` seconds); None is
    a connection closed during its handshake."""
    if sock is None:
        return True
    sock.settimeout(BOUND)
    try:
        while sock.recv(65536):
            pass
    except TimeoutError:
        return False
    except OSError:
        return True
    return True


def run(tmp_path: Path, certs: Certificates, test: object) -> None:
    hosted(tmp_path, certs, test, hello_timeout=HELLO_TIMEOUT)  # type: ignore[arg-type]


def test_idle_connections_by_the_hundred_keep_no_entrant_out(
    tmp_path: Path, certs: Certificates
) -> None:
    async def test(h: Hosted) -> None:
        loop = asyncio.get_running_loop()
        sources = [f"127.0.0.{2 + i // PENDING_PER_ADDRESS}" for i in range(256)]
        socks = await asyncio.gather(
            *(loop.run_in_executor(None, outsider, h.address, certs.ca, s) for s in sources)
        )
        try:
            # Every one of them got in (their handshakes were done), and still:
            async with h.channel() as channel:
                call = await join(channel, h.tokens["alice"])
                await until(lambda: h.lobby.connected("alice") == 1)
                # Held past the hello timeout, the entrant's connection stays; no outsider's does.
                began = time.monotonic()
                closed = await asyncio.gather(
                    *(loop.run_in_executor(None, closed_by_server, s) for s in socks)
                )
                assert all(closed)
                assert time.monotonic() - began < BOUND
                assert h.lobby.connected("alice") == 1
                call.cancel()
        finally:
            for sock in socks:
                if sock is not None:
                    sock.close()
        front = h.executor.public.front if h.executor.public else None
        assert front is not None
        evicted = front.closed_for["over the pending connections in all"]
        assert evicted >= 256 - PENDING  # the oldest went as new ones came
        assert front.closed_for["no valid Hello in time"] >= 1

    run(tmp_path, certs, test)


def test_one_address_holds_a_few_pending_connections(tmp_path: Path, certs: Certificates) -> None:
    async def test(h: Hosted) -> None:
        loop = asyncio.get_running_loop()
        socks = [
            await loop.run_in_executor(None, outsider, h.address, certs.ca, "127.0.0.9")
            for _ in range(3 * PENDING_PER_ADDRESS)
        ]
        try:
            front = h.executor.public.front if h.executor.public else None
            assert front is not None
            await until(lambda: len(front.pending.get("127.0.0.9", [])) <= PENDING_PER_ADDRESS)
            # The first ones were closed as the later ones came.
            early = socks[: 2 * PENDING_PER_ADDRESS]
            closed = await asyncio.gather(
                *(loop.run_in_executor(None, closed_by_server, s) for s in early)
            )
            assert all(closed)
        finally:
            for sock in socks:
                if sock is not None:
                    sock.close()

    run(tmp_path, certs, test)


def flood(address: str, ca: Path, kind: str) -> int:
    """Flood one connection until the server closes it; the bytes it took."""
    sock = outsider(address, ca, "127.0.0.40")
    assert sock is not None
    block = Encoder().encode(
        [
            (":method", "POST", True),
            (":scheme", "https", True),
            (":path", "/ginrummy.v1.Referee/Play", True),
            (":authority", "localhost", True),
            ("content-type", "application/grpc", True),
            ("te", "trailers", True),
        ]
    )
    sent, stream = 0, 1
    try:
        while True:
            if kind == "reset":
                headers = HeadersFrame(stream, data=block)
                headers.flags.add("END_HEADERS")
                data = headers.serialize() + RstStreamFrame(stream, error_code=8).serialize()
                stream += 2
            else:
                data = WindowUpdateFrame(0, window_increment=1).serialize() * 4096
            sock.sendall(data)
            sent += len(data)
    except OSError:
        return sent
    finally:
        sock.close()


@pytest.mark.parametrize("kind", ["reset", "window"])
def test_an_outsiders_flood_is_cut_and_an_entrant_plays_on(
    tmp_path: Path, certs: Certificates, kind: str
) -> None:
    async def test(h: Hosted) -> None:
        loop = asyncio.get_running_loop()
        flooding = loop.run_in_executor(None, flood, h.address, certs.ca, kind)
        async with h.channel() as channel:
            call = await join(channel, h.tokens["bob"])
            await until(lambda: h.lobby.connected("bob") == 1)
            sent = await asyncio.wait_for(flooding, BOUND)
            assert sent > 0
            assert h.lobby.connected("bob") == 1
            call.cancel()
        front = h.executor.public.front if h.executor.public else None
        assert front is not None
        # Closed by the front (too many streams, refusals, no Hello in time) or by the gRPC
        # server behind it (an idle connection): whichever came first on this machine.
        assert sum(front.closed_for.values()) >= 1, dict(front.closed_for)

    run(tmp_path, certs, test)
