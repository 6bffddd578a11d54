"""The public port's front: who may hold a connection to a hosted referee, and how much it may
send, before and after it has shown a valid token.

The public listener (``ginref serve``) is the one port an outsider reaches without a token. Its
gRPC server listens on loopback only, behind this front, which accepts every TCP connection
itself and passes its bytes on (TLS is still the gRPC server's), so that it can hold each
connection to account:

- **Until it is admitted** (its stream said Hello with a remote bot's token): at most
  :data:`PENDING_PER_ADDRESS` such connections per source address and :data:`PENDING` in all;
  a new one over either cap closes the oldest pending connection of the address that holds the
  most, so that an entrant's connection always gets in, and an outsider evicts only his own.
  It must be admitted within the hello timeout, may open :data:`PENDING_STREAMS` streams and
  be refused :data:`STRIKES` times, may send :data:`PENDING_RATE` bytes a second, and an address
  may open :data:`NEW_PER_SECOND` connections a second: past any of these it is closed.
- **Once admitted**: it may send :data:`ADMITTED_RATE` bytes a second; :data:`CONNECTIONS` in
  all.

The gRPC server tells the front what each connection did (:meth:`Front.opened`,
:meth:`Front.admit`, :meth:`Front.refused`), finding it by the loopback port the front dialled
it from, which is the peer the server sees.

A TLS handshake that fails is the gRPC server's to see, but it logs none that names the peer:
the front, which sees every connection's first bytes, tells who failed and why
(:attr:`Front.on_handshake_failed`, :class:`_Handshake`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import defaultdict
from collections.abc import Callable

CONNECTIONS = 1024
PENDING = 64
PENDING_PER_ADDRESS = 8
PENDING_STREAMS = 8
STRIKES = 3
PENDING_RATE = 64 << 10  # bytes a second: a TLS handshake and a Hello need a few KiB
ADMITTED_RATE = 4 << 20  # a bot's messages are a few hundred bytes each
NEW_PER_SECOND = 20.0
BURST = 2.0  # seconds' worth of bytes or connections that may come at once
# Bytes waiting to be written to one side before the other side is read no further.
HIGH_WATER = 1 << 20
# A TLS record's content types, and how an HTTP/2 client without TLS begins.
TLS_ALERT = 0x15
TLS_HANDSHAKE = 0x16
TLS_APPLICATION_DATA = 0x17
# A TLS 1.3 alert sealed in an application-data record: two bytes, its real content type, and
# the AEAD's 16-byte tag (every TLS 1.3 cipher suite that a gRPC client offers has one).
SEALED_ALERT = 2 + 1 + 16
HTTP2_PREFACE = b"PRI * HTTP/2.0"

# Told of a connection whose TLS handshake failed: where from (``host:port``), and why.
OnHandshakeFailed = Callable[[str, str], None]


class _Handshake:
    """A client's side of a TLS handshake, read record by record until it is over.

    A TLS 1.3 client sends its Finished and then its first HTTP/2 bytes as two encrypted
    (application-data) records; one that gives up on the referee's certificate sends at most
    an alert (one record) before it closes. So a client that closes with fewer than two has
    not finished its handshake; a first byte that is no handshake record is no TLS at all.
    The gRPC server closes the connection at the client's alert, often before the client
    does: the alert, not who closed first, says that the client gave up.
    """

    def __init__(self) -> None:
        self.first = b""  # the connection's first bytes
        self._header = b""  # the record header read so far
        self._skip = 0  # bytes of the current record's body still to come
        self.encrypted = 0  # application-data records seen
        self.alert = False  # the client sent an alert: it gave up

    @property
    def over(self) -> bool:
        """Whether the client finished its handshake (or it is no TLS: nothing to follow)."""
        return self.encrypted >= 2 or (self.first[:1] not in (b"", bytes([TLS_HANDSHAKE])))

    def feed(self, data: bytes) -> None:
        if len(self.first) < len(HTTP2_PREFACE):
            self.first += data[: len(HTTP2_PREFACE) - len(self.first)]
        at = 0
        while at < len(data) and not self.over:
            if self._skip:
                step = min(self._skip, len(data) - at)
                self._skip -= step
                at += step
                continue
            need = 5 - len(self._header)
            self._header += data[at : at + need]
            at += need
            if len(self._header) == 5:
                kind, size = self._header[0], int.from_bytes(self._header[3:5], "big")
                sealed = kind == TLS_APPLICATION_DATA and size == SEALED_ALERT
                if kind == TLS_ALERT or (sealed and not self.encrypted):
                    self.alert = True
                if kind == TLS_APPLICATION_DATA:
                    self.encrypted += 1
                self._skip = size
                self._header = b""

    def failure(self, by_client: bool, mutual: bool) -> str | None:
        """Why the handshake failed, the connection being closed (``by_client``, else by the
        gRPC server); None if it did not (or nothing was sent: no handshake was tried)."""
        if not self.first or self.encrypted >= 2:
            return None
        if self.first[0] != TLS_HANDSHAKE:
            plain = self.first.startswith(HTTP2_PREFACE[: len(self.first)]) or (
                self.first.isascii() and self.first.decode().isprintable()
            )
            return "the client spoke plaintext" if plain else "the client did not speak TLS"
        if by_client or self.alert:
            return (
                "the client closed the connection during the handshake (does it trust the "
                "referee's certificate?)"
            )
        if mutual:
            return (
                "the referee refused the handshake (does the client present a certificate "
                "signed by the client CA?)"
            )
        return "the referee refused the handshake"


class _Bucket:
    """A token bucket: ``rate`` a second, up to ``BURST`` seconds' worth."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.level = rate * BURST
        self.at = time.monotonic()

    def take(self, amount: float) -> float:
        """Take ``amount``; the seconds to wait until the bucket is no longer in debt."""
        now = time.monotonic()
        self.level = min(self.rate * BURST, self.level + (now - self.at) * self.rate)
        self.at = now
        self.level -= amount
        return 0.0 if self.level >= 0 else -self.level / self.rate


class _Side(asyncio.Protocol):
    """One side of a spliced connection: what it reads goes to the other side."""

    def __init__(self, conn: Connection, outside: bool) -> None:
        self.conn = conn
        self.outside = outside
        self.transport: asyncio.Transport | None = None
        self.other: _Side | None = None
        self.paused_by_other = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.set_write_buffer_limits(HIGH_WATER)
        if self.outside:
            self.conn.outside_made(self)

    def data_received(self, data: bytes) -> None:
        other = self.other
        if other is None or other.transport is None:
            self.conn.early.append(data)
        else:
            other.transport.write(data)
        if self.outside:
            self.conn.received(len(data))
            watch = self.conn.handshake
            if watch is not None and not watch.over:
                watch.feed(data)

    def pause_writing(self) -> None:  # our buffer is full: stop reading the other side
        if self.other is not None and self.other.transport is not None:
            self.other.transport.pause_reading()

    def resume_writing(self) -> None:
        if self.other is not None and self.other.transport is not None:
            self.other.resume()

    def resume(self) -> None:
        if self.transport is not None and not self.conn.throttled:
            self.transport.resume_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.outside and not self.conn.closed:
            # The gRPC server ended it (an idle connection, a protocol error, a GOAWAY).
            self.conn.front.closed_for["closed by the gRPC server"] += 1
        self.conn.close(by_client=self.outside)


class Connection:
    """One outsider's connection, spliced to the gRPC server."""

    def __init__(self, front: Front, address: str) -> None:
        self.front = front
        self.address = address
        self.peer = address  # host:port
        self.handshake: _Handshake | None = None  # watched when the front reports failures
        self.opened_at = time.monotonic()
        self.admitted = False
        self.streams = 0
        self.strikes = 0
        self.bucket = _Bucket(PENDING_RATE)
        self.throttled = False
        self.outside: _Side | None = None
        self.inside: _Side | None = None
        self.early: list[bytes] = []  # what came before the inside connection was up
        self.port: int | None = None  # the loopback port the gRPC server sees
        self.closed = False
        self.deadline: asyncio.TimerHandle | None = None

    def outside_made(self, side: _Side) -> None:
        self.outside = side
        self.front.accepted(self)

    def received(self, size: int) -> None:
        wait = self.bucket.take(size)
        if wait > 0 and not self.throttled and self.outside and self.outside.transport:
            self.throttled = True
            self.outside.transport.pause_reading()
            asyncio.get_running_loop().call_later(wait, self._unthrottle)

    def _unthrottle(self) -> None:
        self.throttled = False
        if self.outside is not None and not self.closed:
            self.outside.resume()

    def close(self, by_client: bool | None = None) -> None:
        """Close both sides (``by_client``: the client closed it, False: the gRPC server did,
        None: the front itself)."""
        if self.closed:
            return
        self.closed = True
        front = self.front
        if by_client is not None and not self.admitted and self.handshake is not None:
            why = self.handshake.failure(by_client, front.mutual)
            if why is not None and front.on_handshake_failed is not None:
                front.on_handshake_failed(self.peer, why)
        if self.deadline is not None:
            self.deadline.cancel()
        for side in (self.outside, self.inside):
            if side is not None and side.transport is not None:
                side.transport.close()
        self.front.forget(self)


class Front:
    """The public port: accepts, holds to account, and splices to the gRPC server's port."""

    def __init__(self, host: str, port: int, hello_timeout: float) -> None:
        self.host = host
        self.port = port
        self.hello_timeout = hello_timeout
        self.inner_port = 0
        self.connections: set[Connection] = set()
        self.by_port: dict[int, Connection] = {}
        self.pending: dict[str, list[Connection]] = defaultdict(list)
        self.new: dict[str, _Bucket] = {}
        self.closed_for: dict[str, int] = defaultdict(int)  # why connections were closed
        self._server: asyncio.AbstractServer | None = None
        # Told of each failed TLS handshake (None: not watched, as when there is no TLS);
        # ``mutual``: client certificates are required.
        self.on_handshake_failed: OnHandshakeFailed | None = None
        self.mutual = False

    async def start(self, inner_port: int) -> int:
        """Listen on the public address; pass connections to ``inner_port`` on loopback.
        Return the port listened on."""
        self.inner_port = inner_port
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            lambda: _Side(Connection(self, ""), True),
            self.host,
            self.port,
            reuse_address=True,
        )
        sockets = self._server.sockets
        self.port = sockets[0].getsockname()[1]
        return self.port

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            for conn in list(self.connections):
                conn.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    # --- accepting -------------------------------------------------------------------------------

    def accepted(self, conn: Connection) -> None:
        side = conn.outside
        assert side is not None and side.transport is not None
        peer = side.transport.get_extra_info("peername")
        conn.address = str(peer[0]) if peer else "?"
        if peer:
            host = f"[{peer[0]}]" if ":" in str(peer[0]) else str(peer[0])
            conn.peer = f"{host}:{peer[1]}"
        if self.on_handshake_failed is not None:
            conn.handshake = _Handshake()
        rate = self.new.setdefault(conn.address, _Bucket(NEW_PER_SECOND))
        if rate.take(1) > 0 or len(self.connections) >= CONNECTIONS:
            self.closed_for["too many new connections" if rate.level < 0 else "full"] += 1
            side.transport.close()
            return
        self.connections.add(conn)
        waiting = self.pending[conn.address]
        waiting.append(conn)
        if len(waiting) > PENDING_PER_ADDRESS:
            self._evict(waiting[0], "over the pending connections of its address")
        elif sum(len(v) for v in self.pending.values()) > PENDING:
            busiest = max(self.pending.values(), key=len)
            self._evict(busiest[0], "over the pending connections in all")
        if conn.closed:
            return
        conn.deadline = asyncio.get_running_loop().call_later(self.hello_timeout, self._late, conn)
        asyncio.get_running_loop().create_task(self._dial(conn))

    async def _dial(self, conn: Connection) -> None:
        loop = asyncio.get_running_loop()
        try:
            transport, inside = await loop.create_connection(
                lambda: _Side(conn, False), "127.0.0.1", self.inner_port
            )
        except OSError:
            conn.close()
            return
        assert isinstance(inside, _Side)
        if conn.closed:
            transport.close()
            return
        conn.inside = inside
        conn.port = transport.get_extra_info("sockname")[1]
        self.by_port[conn.port] = conn
        outside = conn.outside
        assert outside is not None
        inside.other, outside.other = outside, inside
        for data in conn.early:
            transport.write(data)
        conn.early.clear()

    def _evict(self, conn: Connection, why: str) -> None:
        self.closed_for[why] += 1
        conn.close()

    def _late(self, conn: Connection) -> None:
        if not conn.admitted:
            self._evict(conn, "no valid Hello in time")

    def forget(self, conn: Connection) -> None:
        self.connections.discard(conn)
        if conn.port is not None:
            self.by_port.pop(conn.port, None)
        waiting = self.pending.get(conn.address)
        if waiting is not None and conn in waiting:
            waiting.remove(conn)
            if not waiting:
                del self.pending[conn.address]

    # --- what the gRPC server saw -----------------------------------------------------------------

    def find(self, peer: str) -> Connection | None:
        """The connection the gRPC server sees as ``peer`` (``ipv4:127.0.0.1:PORT``)."""
        try:
            return self.by_port.get(int(peer.rsplit(":", 1)[1]))
        except (IndexError, ValueError):
            return None

    def opened(self, peer: str) -> bool:
        """A stream began on ``peer``; False when that is one too many (it is closed)."""
        conn = self.find(peer)
        if conn is None or conn.admitted:
            return True
        conn.streams += 1
        if conn.streams > PENDING_STREAMS:
            self._evict(conn, "too many streams before a valid Hello")
            return False
        return True

    def refused(self, peer: str) -> None:
        """A stream on ``peer`` was refused (no Hello, a wrong token...)."""
        conn = self.find(peer)
        if conn is not None and not conn.admitted:
            conn.strikes += 1
            if conn.strikes >= STRIKES:
                self._evict(conn, "refused too often")

    def admit(self, peer: str) -> None:
        """``peer`` said Hello with a remote bot's token: no longer pending."""
        conn = self.find(peer)
        if conn is None or conn.admitted:
            return
        conn.admitted = True
        if conn.deadline is not None:
            conn.deadline.cancel()
        conn.bucket = _Bucket(ADMITTED_RATE)
        waiting = self.pending.get(conn.address)
        if waiting is not None and conn in waiting:
            waiting.remove(conn)
            if not waiting:
                del self.pending[conn.address]
