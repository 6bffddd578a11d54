"""uvicorn held to account against slow or hostile clients, on a thread of its own: what the
live page (:mod:`tournaments.live.server`) and the ladder's web app
(:mod:`tournaments.ladder.web`) both serve with.

- A connection has ``request_timeout`` seconds to send its request line and headers (and as
  long, idle, after its answer); a silent one is closed.
- The request line and headers may not exceed :data:`MAX_REQUEST` bytes (431, at once). A body
  is not counted here: an application that takes one caps it itself.
- One address may hold at most ``max_connections`` connections at once, and all of them
  :data:`TOTAL_CONNECTIONS`: more are answered 503 at once, so that a slowloris of one address
  keeps nobody else out.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from http import HTTPStatus
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from referee.errors import GinRefError

MAX_REQUEST = 16 << 10  # bytes of request line and headers
TOTAL_CONNECTIONS = 4096
HEAD_END = b"\r\n\r\n"


def raw_answer(status: HTTPStatus) -> bytes:
    """A bodiless answer written straight to the socket, for a client refused before its
    request is read."""
    return (
        f"HTTP/1.1 {status.value} {status.phrase}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    ).encode("ascii")


def guarded_protocol(request_timeout: float, max_connections: int) -> type[H11Protocol]:
    """uvicorn's HTTP/1.1 protocol with the limits of this module's docstring."""
    held: dict[str, int] = {}

    class Protocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        _address: str | None = None
        _head = b""  # what came of the request before the end of its headers
        _refused = False

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            peer = transport.get_extra_info("peername")
            address = str(peer[0]) if peer else "?"
            loop = asyncio.get_running_loop()
            self._deadline = loop.call_later(request_timeout, self._too_slow)
            if held.get(address, 0) >= max_connections or (sum(held.values()) >= TOTAL_CONNECTIONS):
                self._refused = True  # answered 503 when it speaks (or dropped in time)
                return
            self._address = address
            held[address] = held.get(address, 0) + 1

        def data_received(self, data: bytes) -> None:
            if self._refused:
                if self._deadline is not None:
                    self._deadline.cancel()
                    self._deadline = None
                self.transport.write(raw_answer(HTTPStatus.SERVICE_UNAVAILABLE))
                self.transport.close()
                return
            if self._deadline is not None:  # still reading its head: at most MAX_REQUEST
                # Only the head counts: an upload's body may come in the same read.
                self._head += data
                end = self._head.find(HEAD_END)
                if (len(self._head) if end < 0 else end) > MAX_REQUEST:
                    self._deadline.cancel()
                    self._deadline = None
                    self.transport.write(raw_answer(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE))
                    self.transport.close()
                    return
            super().data_received(data)
            if self.cycle is not None and self._deadline is not None:
                self._deadline.cancel()  # its request is in: the keep-alive timer takes over
                self._deadline = None
                self._head = b""

        def _too_slow(self) -> None:
            self._deadline = None
            if self.cycle is None or not self.cycle.response_complete:
                self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            if self._address is not None:
                held[self._address] -= 1
                if not held[self._address]:
                    del held[self._address]
                self._address = None
            super().connection_lost(exc)

    return Protocol


def bind(host: str, port: int, what: str) -> socket.socket:
    """A listening socket on ``host``:``port``; :class:`GinRefError` naming ``what`` (the live
    page, the ladder's web app) and why when it cannot be bound."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        why = exc.strerror or str(exc)
        raise GinRefError(f"cannot serve {what} on {host}:{port}: {why}") from None
    return sock


def guarded_server(app: Any, request_timeout: float, max_connections: int) -> uvicorn.Server:
    """A uvicorn server of ``app`` with the guarded protocol, and quiet (no logs of its own)."""
    config = uvicorn.Config(
        app,
        http=guarded_protocol(request_timeout, max_connections),
        lifespan="off",
        log_config=None,
        log_level="critical",
        access_log=False,
        timeout_keep_alive=max(1, round(request_timeout)),
        h11_max_incomplete_event_size=MAX_REQUEST,
        server_header=False,
        date_header=False,
    )
    return uvicorn.Server(config)


def serve_on_thread(server: uvicorn.Server, sock: socket.socket, name: str) -> threading.Thread:
    """Run ``server`` on ``sock`` on a thread of its own; return once it serves (or failed)."""
    serving = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, daemon=True, name=name
    )
    serving.start()
    while not server.started and serving.is_alive():
        time.sleep(0.01)  # uvicorn's own start: a few milliseconds
    return serving


def bound_address(sock: socket.socket | None, host: str, port: int) -> tuple[str, int]:
    """The host and port ``sock`` is bound to (the port chosen, for port 0); ``host`` and
    ``port`` while there is no socket."""
    if sock is None:
        return host, port
    bound = sock.getsockname()
    return str(bound[0]), int(bound[1])


def url_of(host: str, port: int) -> str:
    """``http://host:port/``, with an IPv6 host in brackets."""
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"
