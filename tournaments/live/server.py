"""The live page of a tournament for spectators: a small read-only web server.

``ginref live DIR`` runs one; ``ginref serve`` may run one beside its referee, in the same
process. Each match's table comes from the replays' spectator view
(:class:`replays.spectate.Spectator`)::

    view = LiveView(directory, "127.0.0.1", 8080)  # port 0: any free port
    view.start()        # raises GinRefError (one line): no journal, the port in use, ...
    print(view.url)     # http://127.0.0.1:8080/ (view.address: the bound host and port)
    ...
    view.stop()         # or: with LiveView(...) as view: ...

:meth:`LiveView.start` opens the journal read only and reads the tournament once before it
returns, then polls it every ``interval`` seconds on a thread of its own
(:class:`tournaments.live.watch.TournamentWatch`: only what changed is read) while uvicorn, an
ASGI server made for the open network, answers on another (its own event loop: a connection
costs no thread). Nothing here touches the referee,
the runner or their files: it works for a tournament run by another process.

GET (and HEAD) only; every answer is built from the last poll's state, never from a log line:

- ``/``: the page, one self-contained HTML file with its script (``live-page.html``, nothing
  loaded from anywhere), which asks for ``/api/state`` every second and redraws;
- ``/api/state``: standings, the matches in progress with their tables, the latest results;
- ``/api/match/<match id>``: one match in progress (or recently finished).

A slow or hostile client cannot hold the server: each connection has ``request_timeout``
seconds to send its request (and as long, idle, after its answer), a request may not exceed
16 KiB (431), and one address may hold at most ``max_connections`` connections at once (more
are answered 503 at once): a slowloris of one address keeps no other spectator out
(:mod:`tournaments.live.guarded`, which the ladder's web app serves with too). The page
has a Content Security Policy that lets only its own script and style run, and it writes
whatever a bot chose (its name, its version) as text, never as HTML.
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
from importlib import resources
from pathlib import Path
from types import TracebackType
from typing import Any

import uvicorn

from referee.errors import GinRefError
from tournaments.live import DEFAULT_PORT
from tournaments.live.guarded import (
    bind,
    bound_address,
    guarded_server,
    serve_on_thread,
    url_of,
)
from tournaments.live.lobby import read_lobby
from tournaments.live.watch import TournamentWatch

PAGE_FILE = "live-page.html"  # package data of ``tournaments.live``
MATCH_PATH = "/api/match/"
SERVER_NAME = "ginref-live"


@cache
def page() -> tuple[bytes, str]:
    """The page and its Content Security Policy (its own inline script and style, by hash)."""
    text = resources.files("tournaments.live").joinpath(PAGE_FILE).read_text(encoding="utf-8")
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


def _snapshot(
    watch: TournamentWatch, error: str | None, lobby: list[dict[str, Any]] | None = None
) -> _Snapshot:
    state = dict(watch.state())
    state["error"] = error
    state["lobby"] = lobby  # a hosted referee's remote bots (tournaments.live.lobby)
    body = _json(state)
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    matches = {match_id: _json(entry) for match_id, entry in watch.matches().items()}
    return _Snapshot(body, etag, matches)


def _headers(pairs: list[tuple[str, str]]) -> list[tuple[bytes, bytes]]:
    return [(k.encode("latin-1"), v.encode("latin-1")) for k, v in pairs]


class _App:
    """The page's ASGI application: GET and HEAD of the page and the state, from the last
    poll's snapshot."""

    def __init__(self, live: LiveView) -> None:
        self.live = live

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        status, headers, data = self.answer(
            scope["method"], scope["path"], dict(scope.get("headers") or [])
        )
        pairs = [("server", SERVER_NAME), *headers]
        if status not in (HTTPStatus.NOT_MODIFIED,):
            pairs.append(("content-length", str(len(data))))
        await send({"type": "http.response.start", "status": status.value,
                    "headers": _headers(pairs)})  # fmt: skip
        body = data if scope["method"] == "GET" else b""
        await send({"type": "http.response.body", "body": body})

    def answer(
        self, method: str, path: str, headers: dict[bytes, bytes]
    ) -> tuple[HTTPStatus, list[tuple[str, str]], bytes]:
        if method not in ("GET", "HEAD"):
            return HTTPStatus.METHOD_NOT_ALLOWED, [("allow", "GET, HEAD")], b""
        snapshot = self.live.snapshot
        etag = None
        policy = ""
        if path in ("/", "/index.html"):
            data, policy = page()
            kind = "text/html; charset=utf-8"
        elif path == "/api/state":
            data, etag = snapshot.state, snapshot.etag
            kind = "application/json"
        elif path.startswith(MATCH_PATH) and path[len(MATCH_PATH) :] in snapshot.matches:
            data = snapshot.matches[path[len(MATCH_PATH) :]]
            kind = "application/json"
        else:
            return HTTPStatus.NOT_FOUND, [("content-type", "text/plain")], b"not found\n"
        if etag is not None and headers.get(b"if-none-match", b"").decode("latin-1") == etag:
            return HTTPStatus.NOT_MODIFIED, [("etag", etag)], b""
        out = [
            ("content-type", kind),
            ("cache-control", "no-cache"),
            ("x-content-type-options", "nosniff"),
            ("referrer-policy", "no-referrer"),
        ]
        if etag is not None:
            out.append(("etag", etag))
        if policy:
            out.append(("content-security-policy", policy))
        return HTTPStatus.OK, out, data


def _unexpected(exc: Exception) -> GinRefError:
    return GinRefError(f"the live page cannot read the tournament: {type(exc).__name__}: {exc}")


class LiveView:
    """The live page of the tournament in ``directory``, served on ``host``:``port``; each
    match in progress followed by a :class:`replays.spectate.Spectator`."""

    def __init__(
        self,
        directory: Path,
        host: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        *,
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
        self._watch = TournamentWatch(self.directory)
        self._server: uvicorn.Server | None = None
        self._socket: socket.socket | None = None
        self._threads: list[threading.Thread] = []
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._failure: GinRefError | None = None

    @property
    def address(self) -> tuple[str, int]:
        """The host and port the page is served on (the port chosen, for port 0)."""
        return bound_address(self._socket, self.host, self.port)

    @property
    def url(self) -> str:
        """The page's address."""
        return url_of(*self.address)

    def start(self) -> None:
        """Bind, read the tournament once, and serve; raise :class:`GinRefError` (one line)
        for a directory with no journal, a journal that cannot be read, or an address that
        cannot be bound."""
        if self._server is not None:
            raise GinRefError("the live page is already started")
        self._watch.check()  # a wrong directory is named before the address is tried
        sock = bind(self.host, self.port, "the live page")
        self._socket = sock
        server = guarded_server(_App(self), self.request_timeout, self.max_connections)
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
        self._threads.append(serve_on_thread(server, sock, "ginref-live-http"))

    def stop(self) -> None:
        """Stop serving and polling (idempotent)."""
        server, self._server = self._server, None
        self._stop.set()
        if server is not None:
            server.should_exit = True
        for thread in self._threads:
            thread.join()
        self._threads = []
        if self._socket is not None:
            self._socket.close()
            self._socket = None
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
        lobby = read_lobby(self.directory)
        self.snapshot = _snapshot(watch, None, lobby)
        self._ready.set()
        try:
            while not self._stop.wait(self.interval):
                seen, lobby = lobby, read_lobby(self.directory)
                try:
                    changed, error = watch.poll(), None
                except GinRefError as exc:  # a journal damaged while watched: say so, go on
                    changed, error = True, str(exc)
                except Exception as exc:  # a bug must not end the page: it says what happened
                    changed, error = True, str(_unexpected(exc))
                if changed or lobby != seen:
                    self.snapshot = _snapshot(watch, error, lobby)
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
