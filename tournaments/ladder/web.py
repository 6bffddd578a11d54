"""A season's web app for entrants and spectators (``ginref ladder run DIR --web HOST:PORT``):
Starlette under uvicorn, on a thread of its own, held to account against slow or hostile
clients as the live page is (:mod:`tournaments.live.guarded`)::

    web = LadderWeb(directory, "127.0.0.1", 8090)   # port 0: any free port
    web.start()    # raises GinRefError (one line): no season there, the port in use, ...
    print(web.url)
    web.stop()

Its pages, drawn on the server (:mod:`tournaments.ladder.web_pages`):

- ``/``: the leaderboard (:func:`tournaments.ladder.board.leaderboard`), ``/api/leaderboard``
  the same rows as JSON;
- ``/bot/<entrant>``: an entrant's (or a house bot's) versions, its rating over time, its
  recent matches with links to their replays, its faults by kind;
- ``/match/<key>``: the replay page of a finished match (:func:`replays.html.render_html`),
  unless its deal is still to be played by its twin of a duplicate pair: its bot's author could
  otherwise watch the deal its bot is about to play (the embargo). A match in progress is never
  shown here;
- ``/submit``: the upload form, and its POST (:func:`tournaments.ladder.inbox.submit`);
- ``/me``: an entrant's own page, given its name and token (a POST form, or an
  ``Authorization: Bearer`` header): why a version failed, the end of its build and
  validation log, and what its bots wrote in their recent matches. Nobody else's.

The app only reads the season (read-only SQLite connections to the store and the journal,
opened for each request: the service writes them meanwhile), apart from a submission, which
the inbox queues. A request's body is capped: an upload at the season's ``upload_bytes`` (and
a little for the form around it), anything else at :data:`FORM_BYTES`; a larger one is
refused (413) as soon as it says so (its Content-Length) or as soon as it grows past the cap,
never read whole; the whole body must come within ``upload_timeout`` seconds (408).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import re
import socket
import stat
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from functools import cached_property, lru_cache
from pathlib import Path
from types import TracebackType
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders, UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from referee.bots.limits import size_text
from referee.errors import GinRefError
from referee.timeline import load_replay
from replays.html import render_html
from tournaments.journal.records import MatchRecord
from tournaments.journal.store import JOURNAL_FILE, EmptyJournalError, open_journal
from tournaments.ladder import board, inbox, web_pages
from tournaments.ladder.errors import LadderError
from tournaments.ladder.season import Season, load_season
from tournaments.ladder.service import PLAY, log_path
from tournaments.ladder.store import SeasonStore, Version, open_season
from tournaments.live.guarded import (
    bind,
    bound_address,
    guarded_server,
    serve_on_thread,
    url_of,
)
from tournaments.schedule import MatchSpec
from tournaments.tokens import TokenStore, token_hash

DEFAULT_PORT = 8090
FORM_BYTES = 16 << 10  # a request body that is not an upload (the /me form)
FORM_SLACK = 64 << 10  # an upload's form around its archive: the fields, the boundaries
TAIL_BYTES = 16 << 10  # of a build log or a bot's output shown on an entrant's page
RECENT = 30  # matches on a bot's page
RECENT_OUTPUTS = 5  # matches whose output an entrant's page shows
REPLAY_CACHE = 32  # replay pages kept drawn (a finished match's never changes)
EMBARGO = "This match is shown once its twin (the same deal, seats swapped) is over."

Endpoint = Callable[[Request], Awaitable[Response]]


# --- reading the season ------------------------------------------------------------------------


class Reading:
    """The season as one request reads it: the store at once, the journal's matches only when
    a page asks for them (the leaderboard reads the store's counts, whatever the journal's size)."""

    def __init__(self, store: SeasonStore, play: Path) -> None:
        self.store = store
        self._play = play

    @cached_property
    def _journal(self) -> tuple[list[MatchRecord], list[MatchSpec]]:
        if not (self._play / JOURNAL_FILE).exists():
            return [], []
        try:
            journal = open_journal(self._play, create=False, read_only=True)
        except EmptyJournalError:  # the service is making it
            return [], []
        try:
            return journal.records(), journal.schedule()
        finally:
            journal.close()

    @property
    def records(self) -> list[MatchRecord]:
        return self._journal[0]

    @property
    def schedule(self) -> list[MatchSpec]:
        return self._journal[1]

    @cached_property
    def finished(self) -> set[str]:
        return {r.key for r in self.records}

    def embargoed(self, record: MatchRecord) -> bool:
        """Whether ``record``'s deal is still to be played by another match."""
        return embargoed(record, self.schedule, self.finished)

    def of(self, bots: set[str]) -> list[MatchRecord]:
        """The finished matches ``bots`` played, latest first."""
        return [r for r in reversed(self.records) if bots.intersection(r.seats)]


def embargoed(record: MatchRecord, schedule: list[MatchSpec], finished: set[str]) -> bool:
    """True while a match on ``record``'s deal (its twin of a duplicate pair) has no result."""
    return any(s.deal == record.deal and s.key not in finished for s in schedule)


@contextmanager
def reading(directory: Path) -> Iterator[Reading]:
    """Read-only connections to the season's store and journal, for one request."""
    store = open_season(directory, read_only=True)
    try:
        yield Reading(store, directory / PLAY)
    finally:
        store.close()


def tail(path: Path, limit: int = TAIL_BYTES) -> str | None:
    """The end of the regular file at ``path`` (its last ``limit`` bytes from a line's start),
    or None when there is none; a link is not followed."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(fd).st_size
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        handle.seek(max(0, size - limit))
        data = handle.read(limit)
    if size > limit:
        data = data.partition(b"\n")[2]  # from the first whole line
    return data.decode("utf-8", errors="replace")


def log_file(directory: Path, record: MatchRecord) -> Path | None:
    """``record``'s replay log, if it is a file under the season's logs."""
    logs = (directory / PLAY / "logs").resolve()
    path = (directory / PLAY / record.log_path).resolve()
    return path if path.is_relative_to(logs) and path.is_file() else None


def outputs_of(directory: Path, record: MatchRecord, bots: set[str]) -> dict[str, Path]:
    """The output files of the seats of ``record`` that ``bots`` played, by bot: named in its
    log's header, beside the log (a duplicate pair's two matches share their bots' files)."""
    log = log_file(directory, record)
    if log is None:
        return {}
    try:
        with log.open("rb") as handle:
            header = json.loads(handle.readline(1 << 20))
        named = {int(b["seat"]): str(b["output"]) for b in header["bots"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    out = {}
    for seat, bot in enumerate(record.seats):
        name = named.get(seat, "")
        # A plain file name, as the referee writes it: nothing that leaves the log's folder.
        if bot in bots and name and Path(name).name == name and not name.startswith("."):
            out[bot] = log.parent / name
    return out


@lru_cache(maxsize=REPLAY_CACHE)
def replay_page(path: str, size: int, mtime_ns: int) -> tuple[str, str]:
    """A finished match's replay page and its Content Security Policy (its own inline script
    and style, by hash), drawn once per log."""
    page = render_html(load_replay(path))
    # The style comes first; the page's script is its last (the data before it is JSON, not run).
    style = re.search(r"<style>(.*?)</style>", page, re.DOTALL)
    start = page.rindex("<script>") + len("<script>")
    script = page[start : page.index("</script>", start)]
    assert style is not None
    policy = (
        f"default-src 'none'; script-src {_hash(script)}; style-src {_hash(style.group(1))}; "
        "img-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    )
    return page, policy


def _hash(source: str) -> str:
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode()}'"


def entrant_of_token(directory: Path, token: str) -> str | None:
    """Whose active token ``token`` is (the season's tokens, as the inbox reads them), or
    None."""
    return TokenStore(directory / PLAY).active_hashes().get(token_hash(token))


# --- what each page shows ----------------------------------------------------------------------


def match_line(record: MatchRecord, bot: str, shown: bool) -> web_pages.MatchLine:
    seat = record.seat_of(bot)
    other = next((s for s in range(record.players) if record.seats[s] != bot), seat)
    results = board.results_of([record])
    result = "won" if results.wins[bot] else "drawn" if results.draws[bot] else "lost"
    score = f"{record.final[record.side_of(seat)]}-{record.final[record.side_of(other)]}"
    faults = sum(1 for f in record.faults if record.seats[f.seat] == bot)
    return web_pages.MatchLine(
        record.key, record.started, bot, record.seats[other], result, score, faults, shown
    )


def bot_view(season: Season, read: Reading, name: str) -> web_pages.BotPage | None:
    """What ``/bot/<name>`` shows: None for a name that is neither an entrant nor a house bot."""
    entrants = dict(read.store.entrants())
    versions: list[Version] = []
    if name in season.house:
        kind, bots = "house", [name]
    elif name in entrants:
        kind = "remote" if entrants[name] else "submitted"
        versions = read.store.versions(name)
        bots = [v.name for v in versions]
    else:
        return None
    rows = board.leaderboard(season, read.store)
    row = next((r for r in rows if r.entrant == name), None)
    mine = set(bots)
    played = read.of(mine)
    lines = []
    for record in played[:RECENT]:
        shown = not read.embargoed(record)
        lines += [match_line(record, b, shown) for b in dict.fromkeys(record.seats) if b in mine]
    faults = Counter(f.kind for r in played for f in r.faults if r.seats[f.seat] in mine)
    histories = [(b, read.store.history(b)) for b in reversed(bots)]
    return web_pages.BotPage(
        season.name,
        name,
        kind,
        season.rating_model.k,
        row,
        versions,
        histories,
        lines,
        dict(faults),
    )


def me_view(season: Season, read: Reading, entrant: str) -> str:
    """An entrant's own page (the entrant authenticated)."""
    directory = season.directory
    versions = read.store.versions(entrant)
    logs = [(v, tail(log_path(directory, v))) for v in versions]
    bots = {v.name for v in versions}
    outputs: list[web_pages.Output] = []
    seen: set[Path] = set()
    for record in read.of(bots):
        if len(outputs) >= RECENT_OUTPUTS:
            break
        if read.embargoed(record):  # its output may tell the deal its twin still plays
            continue
        for bot, path in outputs_of(directory, record, bots).items():
            if path not in seen:
                seen.add(path)
                outputs.append(web_pages.Output(record.key, bot, tail(path) or ""))
    return web_pages.me_page(season.name, entrant, logs, outputs)


# --- the application ---------------------------------------------------------------------------


class _TooLarge(Exception):
    pass


class _TooSlow(Exception):
    pass


def _capped(request: Request, limit: int, seconds: float) -> Request:
    """``request`` with its body capped at ``limit`` bytes and ``seconds`` (both counted from
    now): past either, reading it raises :class:`_TooLarge` or :class:`_TooSlow`."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _TooLarge  # refused before a byte of it is read
    seen = 0
    end = time.monotonic() + seconds
    receive = request.receive

    async def capped() -> Any:
        nonlocal seen
        try:
            async with asyncio.timeout(max(0.0, end - time.monotonic())):
                message = await receive()
        except TimeoutError:
            raise _TooSlow from None
        seen += len(message.get("body", b""))
        if seen > limit:
            raise _TooLarge
        return message

    return Request(request.scope, capped)


class _Pages:
    """The endpoints, over one season."""

    def __init__(self, season: Season, upload_timeout: float) -> None:
        self.season = season
        self.directory = season.directory
        self.upload_timeout = upload_timeout
        self.caps = season.caps

    def _page(self, body: str, status: int = 200, private: bool = False) -> HTMLResponse:
        headers = {"content-security-policy": web_pages.policy()}
        if private:
            headers["cache-control"] = "no-store"
        return HTMLResponse(body, status, headers)

    def _line(self, status: int, title: str, line: str, **kw: Any) -> HTMLResponse:
        return self._page(web_pages.line_page(title, line), status, **kw)

    @contextmanager
    def _reading(self) -> Iterator[Reading]:
        try:
            with reading(self.directory) as read:
                yield read
        except LadderError:  # no store yet: the service has not started
            raise HTTPException(503, "the season has not started yet: try again soon") from None

    def leaderboard(self, request: Request) -> Response:
        with self._reading() as read:
            rows = board.leaderboard(self.season, read.store)
            frozen = read.store.meta("frozen")
        if request.url.path.startswith("/api/"):
            return Response(board.board_json(rows), media_type="application/json")
        return self._page(
            web_pages.leaderboard_page(self.season.name, rows, self.season.rating_model.k, frozen)
        )

    def bot(self, request: Request) -> Response:
        name = request.path_params["name"]
        with self._reading() as read:
            view = bot_view(self.season, read, name)
        if view is None:
            return self._line(404, "No such bot", f"no entrant or house bot called {name!r}")
        return self._page(web_pages.bot_page(view))

    def match(self, request: Request) -> Response:
        key = request.path_params["key"]
        with self._reading() as read:
            record = next((r for r in read.records if r.key == key), None)
            hidden = record is not None and read.embargoed(record)
        if record is None:
            return self._line(404, "No such match", f"no finished match {key!r}")
        if hidden:
            return self._line(404, "Not yet", EMBARGO)
        log = log_file(self.directory, record)
        if log is None:
            return self._line(404, "No replay", f"the replay log of {key} is missing")
        info = log.stat()
        try:
            page, policy = replay_page(str(log), info.st_size, info.st_mtime_ns)
        except GinRefError as exc:
            return self._line(500, "Unreadable replay", str(exc))
        return HTMLResponse(page, headers={"content-security-policy": policy})

    def submit_form(self, request: Request) -> Response:
        return self._page(web_pages.submit_page(self.season.name, self.caps.upload_bytes))

    async def submit(self, request: Request) -> Response:
        limit = self.caps.upload_bytes + FORM_SLACK
        form = await _capped(request, limit, self.upload_timeout).form(max_files=1, max_fields=4)
        entrant, token, archive = form.get("entrant"), form.get("token"), form.get("archive")
        if not isinstance(entrant, str) or not isinstance(token, str):
            return self._refused(400, "give the entrant, its token and the archive")
        if not isinstance(archive, UploadFile):
            return self._refused(400, "no archive in the form: choose its file")
        data = await archive.read(self.caps.upload_bytes + 1)
        return await run_in_threadpool(self._queue, entrant.strip(), token.strip(), data)

    def _queue(self, entrant: str, token: str, data: bytes) -> Response:
        try:
            inbox.authenticate(self.directory, entrant, token)
        except LadderError as exc:
            return self._refused(403, str(exc))
        try:
            store = open_season(self.directory)
        except LadderError:
            return self._refused(503, "the season has not started yet: try again soon")
        try:
            version = inbox.submit(self.season, store, entrant, token, data)
        except LadderError as exc:
            status = 413 if len(data) > self.caps.upload_bytes else 400 if not data else 409
            return self._refused(status, str(exc))
        finally:
            store.close()
        answer = f"queued as {version.name}: it is built and validated next"
        page = web_pages.submit_page(self.season.name, self.caps.upload_bytes, answer)
        return self._page(page, 202, private=True)

    def _refused(self, status: int, line: str) -> Response:
        page = web_pages.submit_page(self.season.name, self.caps.upload_bytes, line, True)
        return self._page(page, status, private=True)

    async def me(self, request: Request) -> Response:
        bearer = request.headers.get("authorization", "")
        if bearer[:7].lower() == "bearer ":
            token = bearer[7:].strip()
            entrant = await run_in_threadpool(entrant_of_token, self.directory, token)
            if entrant is None:
                return self._line(403, "Refused", "no entrant with that token", private=True)
        elif request.method == "POST":
            form = await _capped(request, FORM_BYTES, self.upload_timeout).form(max_files=0)
            entrant, token = str(form.get("entrant") or "").strip(), str(form.get("token") or "")
            try:
                await run_in_threadpool(inbox.authenticate, self.directory, entrant, token.strip())
            except LadderError as exc:
                return self._line(403, "Refused", str(exc), private=True)
        else:
            return self._page(web_pages.me_form(self.season.name), private=True)
        return await run_in_threadpool(self._me, entrant)

    def _me(self, entrant: str) -> Response:
        with self._reading() as read:
            body = me_view(self.season, read, entrant)
        return self._page(body, private=True)

    async def error(self, request: Request, exc: Exception) -> Response:
        """A refusal of Starlette's (404, 405, a form it cannot parse) as a page of one line."""
        assert isinstance(exc, HTTPException)
        headers = dict(exc.headers or {})
        page = web_pages.line_page(f"{exc.status_code}", str(exc.detail))
        headers["content-security-policy"] = web_pages.policy()
        return HTMLResponse(page, exc.status_code, headers)

    async def cut(self, request: Request, exc: Exception) -> Response:
        """A body over its cap (413) or too slow (408): refused, and the connection closed,
        so that the rest of it is not read (uvicorn would drain it for the next request)."""
        status, line = (
            (413, f"the upload is over the season's cap of {size_text(self.caps.upload_bytes)}")
            if isinstance(exc, _TooLarge)
            else (408, "the upload took too long")
        )
        page = web_pages.line_page("Refused", line)
        headers = {"connection": "close", "content-security-policy": web_pages.policy()}
        return HTMLResponse(page, status, headers)


class _Guard:
    """Around the whole app (Starlette's answer to an exception too): headers every answer
    carries, and nothing but HTTP."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return  # no websockets, no lifespan

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("x-content-type-options", "nosniff")
                headers.setdefault("referrer-policy", "no-referrer")
                headers.setdefault("x-frame-options", "DENY")
                headers.setdefault("cache-control", "no-cache")
                headers.setdefault("content-security-policy", "default-src 'none'")
            await send(message)

        await self.app(scope, receive, sending)


def make_app(season: Season, *, upload_timeout: float = 300.0) -> Any:
    """The season's ASGI application."""
    pages = _Pages(season, upload_timeout)
    routes = [
        Route("/", pages.leaderboard, methods=["GET"]),
        Route("/api/leaderboard", pages.leaderboard, methods=["GET"]),
        Route("/bot/{name}", pages.bot, methods=["GET"]),
        Route("/match/{key}", pages.match, methods=["GET"]),
        Route("/submit", pages.submit_form, methods=["GET"]),
        Route("/submit", pages.submit, methods=["POST"]),
        Route("/me", pages.me, methods=["GET", "POST"]),
    ]
    handlers = {HTTPException: pages.error, _TooLarge: pages.cut, _TooSlow: pages.cut}
    app = Starlette(routes=routes, exception_handlers=handlers)
    return _Guard(app)


class LadderWeb:
    """The web app of the season in ``directory``, served on ``host``:``port``."""

    def __init__(
        self,
        directory: Path,
        host: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        *,
        request_timeout: float = 10.0,
        max_connections: int = 64,
        upload_timeout: float = 300.0,
    ) -> None:
        self.directory = Path(directory)
        self.host = host
        self.port = port
        self.request_timeout = request_timeout
        self.max_connections = max_connections
        self.upload_timeout = upload_timeout
        self._server: uvicorn.Server | None = None
        self._socket: socket.socket | None = None
        self._thread: threading.Thread | None = None

    @property
    def address(self) -> tuple[str, int]:
        """The host and port served on (the port chosen, for port 0)."""
        return bound_address(self._socket, self.host, self.port)

    @property
    def url(self) -> str:
        return url_of(*self.address)

    def start(self) -> None:
        """Read the season's file and serve; :class:`GinRefError` (one line) when there is no
        season in the directory or the address cannot be bound."""
        if self._server is not None:
            raise GinRefError("the season's web app is already started")
        season = load_season(self.directory)
        app = make_app(season, upload_timeout=self.upload_timeout)
        self._socket = bind(self.host, self.port, "the season's web app")
        self._server = guarded_server(app, self.request_timeout, self.max_connections)
        self._thread = serve_on_thread(self._server, self._socket, "ginref-ladder-web")

    def stop(self) -> None:
        """Stop serving (idempotent)."""
        server, self._server = self._server, None
        if server is not None:
            server.should_exit = True
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._socket is not None:
            self._socket.close()
            self._socket = None

    def __enter__(self) -> LadderWeb:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
