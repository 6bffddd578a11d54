"""The live page of a tournament for spectators: a small read-only web server.

``ginref live DIR`` runs one; ``ginref serve`` may run one beside its referee, in the same
process. Each match's table comes from the replays' spectator view, which a caller in the
command line layer hands in (:func:`ginref.live_command.live_view` does)::

    view = LiveView(directory, "127.0.0.1", 8080, follower=Spectator)  # port 0: any free port
    view.start()        # raises GinRefError (one line): no journal, the port in use, ...
    print(view.url)     # http://127.0.0.1:8080/ (view.address: the bound host and port)
    ...
    view.stop()         # or: with LiveView(...) as view: ...

:meth:`LiveView.start` opens the journal read only and reads the tournament once before it
returns, then polls it every ``interval`` seconds on a thread of its own
(:class:`tournaments.watch.TournamentWatch`: only what changed is read) while a
:class:`~http.server.ThreadingHTTPServer` answers on another. Nothing here touches the referee,
the runner or their files: it works for a tournament run by another process.

GET (and HEAD) only; every answer is built from the last poll's state, never from a log line:

- ``/``: the page, one self-contained HTML file with its script (``live-page.html``, nothing
  loaded from anywhere), which asks for ``/api/state`` every second and redraws;
- ``/api/state``: standings, the matches in progress with their tables, the latest results;
- ``/api/match/<match id>``: one match in progress (or recently finished).

A slow or hostile client cannot hold the server: each connection has ``request_timeout``
seconds to send its request and read the answer, a request may not exceed 16 KiB, and at most
``max_connections`` are served at once (more get 503 at once). The page has a Content Security
Policy that lets only its own script and style run, and it writes whatever a bot chose (its
name, its version) as text, never as HTML.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import socket
import threading
from dataclasses import dataclass, field
from functools import cache
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from io import BufferedIOBase
from pathlib import Path
from types import TracebackType
from typing import Any

from referee.errors import GinRefError
from tournaments.watch import NewFollower, TournamentWatch

PAGE_FILE = "live-page.html"  # package data of ``tournaments``
MAX_REQUEST = 16 << 10  # bytes of request line and headers
DEFAULT_PORT = 8080
MATCH_PATH = "/api/match/"


@cache
def page() -> tuple[bytes, str]:
    """The page and its Content Security Policy (its own inline script and style, by hash)."""
    text = resources.files("tournaments").joinpath(PAGE_FILE).read_text(encoding="utf-8")
    hashes = {}
    for tag in ("script", "style"):
        found = re.search(rf"<{tag}>(.*?)</{tag}>", text, re.DOTALL)
        assert found is not None, f"{PAGE_FILE} has no <{tag}>"
        digest = hashlib.sha256(found.group(1).encode("utf-8")).digest()
        hashes[tag] = f"'sha256-{base64.b64encode(digest).decode()}'"
    policy = (
        f"default-src 'none'; script-src {hashes['script']}; style-src {hashes['style']}; "
        "connect-src 'self'; img-src 'none'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )
    return text.encode("utf-8"), policy


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """What the server hands out until the next poll: the state as JSON and its ETag."""

    state: bytes
    etag: str
    matches: dict[str, bytes] = field(default_factory=dict)


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _snapshot(watch: TournamentWatch, error: str | None) -> _Snapshot:
    state = dict(watch.state())
    state["error"] = error
    body = _json(state)
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    matches = {match_id: _json(entry) for match_id, entry in watch.matches().items()}
    return _Snapshot(body, etag, matches)


class _TooLarge(Exception):
    """A request longer than MAX_REQUEST."""


class _Capped:
    """A connection's input that refuses to yield more than ``limit`` bytes in all."""

    def __init__(self, raw: BufferedIOBase, limit: int) -> None:
        self._raw = raw
        self._left = limit

    def _take(self, data: bytes) -> bytes:
        self._left -= len(data)
        if self._left < 0:
            raise _TooLarge
        return data

    def readline(self, size: int = -1) -> bytes:
        want = self._left + 1 if size < 0 else min(size, self._left + 1)
        return self._take(self._raw.readline(want))

    def read(self, size: int = -1) -> bytes:
        want = self._left + 1 if size < 0 else min(size, self._left + 1)
        return self._take(self._raw.read(want))

    def close(self) -> None:
        self._raw.close()


class _Server(ThreadingHTTPServer):
    """The threads of a ThreadingHTTPServer, at most ``slots`` at once, and quiet."""

    daemon_threads = True
    block_on_close = False  # stop() does not wait for clients that take their time
    live: LiveView

    def __init__(self, address: tuple[str, int], slots: int, ipv6: bool) -> None:
        self.address_family = socket.AF_INET6 if ipv6 else socket.AF_INET
        self._slots = threading.BoundedSemaphore(slots)
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            try:
                request.settimeout(1.0)
                request.sendall(_raw_answer(HTTPStatus.SERVICE_UNAVAILABLE))
            except OSError:
                pass
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up or misbehaved is not the operator's concern: no traceback."""


def _raw_answer(status: HTTPStatus) -> bytes:
    return (
        f"HTTP/1.0 {status.value} {status.phrase}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    ).encode("ascii")


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.0"  # one request per connection
    server_version = "ginref-live"

    def version_string(self) -> str:
        return self.server_version

    def setup(self) -> None:
        # For reading the request and for writing the answer: a client that stalls is dropped.
        self.request.settimeout(self.server.live.request_timeout)
        super().setup()
        self.rfile = _Capped(self.rfile, MAX_REQUEST)  # type: ignore[assignment]

    def handle_one_request(self) -> None:
        try:
            super().handle_one_request()
        except _TooLarge:
            self.close_connection = True
            self.wfile.write(_raw_answer(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE))

    def log_message(self, format: str, *args: Any) -> None:
        """No line per request."""

    def do_GET(self) -> None:
        self._answer(body=True)

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def _not_allowed(self) -> None:
        self.send_response(HTTPStatus.METHOD_NOT_ALLOWED)
        self.send_header("Allow", "GET, HEAD")
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _not_allowed

    def _answer(self, body: bool) -> None:
        snapshot = self.server.live.snapshot
        path = self.path.split("?", 1)[0]
        etag = None
        if path in ("/", "/index.html"):
            data, policy = page()
            kind = "text/html; charset=utf-8"
        elif path == "/api/state":
            data, etag, policy = snapshot.state, snapshot.etag, ""
            kind = "application/json"
        elif path.startswith(MATCH_PATH) and path[len(MATCH_PATH) :] in snapshot.matches:
            data, policy = snapshot.matches[path[len(MATCH_PATH) :]], ""
            kind = "application/json"
        else:
            self.send_error(HTTPStatus.NOT_FOUND)
            return
        if etag is not None and self.headers.get("If-None-Match") == etag:
            self.send_response(HTTPStatus.NOT_MODIFIED)
            self.send_header("ETag", etag)
            self.end_headers()
            return
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        if etag is not None:
            self.send_header("ETag", etag)
        if policy:
            self.send_header("Content-Security-Policy", policy)
        self.end_headers()
        if body:
            self.wfile.write(data)


def _unexpected(exc: Exception) -> GinRefError:
    return GinRefError(f"the live page cannot read the tournament: {type(exc).__name__}: {exc}")


class LiveView:
    """The live page of the tournament in ``directory``, served on ``host``:``port``; each
    match in progress followed by a ``follower()`` (:class:`replays.spectate.Spectator`)."""

    def __init__(
        self,
        directory: Path,
        host: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        *,
        follower: NewFollower,
        interval: float = 1.0,
        request_timeout: float = 10.0,
        max_connections: int = 64,
    ) -> None:
        self.directory = Path(directory)
        self.host = host
        self.port = port
        self.interval = interval
        self.request_timeout = request_timeout
        self.max_connections = max_connections
        self.snapshot = _Snapshot(b"{}", '""')
        self._watch = TournamentWatch(self.directory, follower)
        self._server: _Server | None = None
        self._threads: list[threading.Thread] = []
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._failure: GinRefError | None = None

    @property
    def address(self) -> tuple[str, int]:
        """The host and port the page is served on (the port chosen, for port 0)."""
        if self._server is None:
            return self.host, self.port
        bound = self._server.server_address
        return str(bound[0]), int(bound[1])

    @property
    def url(self) -> str:
        """The page's address."""
        host, port = self.address
        return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"

    def start(self) -> None:
        """Bind, read the tournament once, and serve; raise :class:`GinRefError` (one line)
        for a directory with no journal, a journal that cannot be read, or an address that
        cannot be bound."""
        if self._server is not None:
            raise GinRefError("the live page is already started")
        self._watch.check()  # a wrong directory is named before the address is tried
        try:
            server = _Server((self.host, self.port), self.max_connections, ":" in self.host)
        except OSError as exc:
            why = exc.strerror or str(exc)
            where = f"{self.host}:{self.port}"
            raise GinRefError(f"cannot serve the live page on {where}: {why}") from None
        server.live = self
        self._server = server
        self._stop.clear()
        poller = threading.Thread(target=self._poll, name="ginref-live-poll", daemon=True)
        poller.start()
        self._threads = [poller]
        self._ready.wait()
        if self._failure is not None:
            failure, self._failure = self._failure, None
            self.stop()
            raise failure
        serving = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True,
            name="ginref-live-http",
        )  # fmt: skip
        serving.start()
        self._threads.append(serving)

    def stop(self) -> None:
        """Stop serving and polling (idempotent)."""
        server, self._server = self._server, None
        self._stop.set()
        if server is not None:
            if len(self._threads) > 1:  # serve_forever is running
                server.shutdown()
            server.server_close()
        for thread in self._threads:
            thread.join()
        self._threads = []
        self._ready.clear()

    def _poll(self) -> None:
        """The poll thread: it alone uses the journal (SQLite connections stay on one thread)."""
        watch = self._watch
        try:
            watch.open()
            watch.poll()
        except Exception as exc:
            self._failure = exc if isinstance(exc, GinRefError) else _unexpected(exc)
            watch.close()
            self._ready.set()
            return
        self.snapshot = _snapshot(watch, None)
        self._ready.set()
        try:
            while not self._stop.wait(self.interval):
                try:
                    changed, error = watch.poll(), None
                except GinRefError as exc:  # a journal damaged while watched: say so, go on
                    changed, error = True, str(exc)
                except Exception as exc:  # a bug must not end the page: it says what happened
                    changed, error = True, str(_unexpected(exc))
                if changed:
                    self.snapshot = _snapshot(watch, error)
        finally:
            watch.close()

    def __enter__(self) -> LiveView:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
