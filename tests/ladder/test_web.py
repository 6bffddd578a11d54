"""The season's web app (tournaments/ladder/web.py) over real HTTP, on a season directory
written here as the service writes it (tests/ladder/web_season.py): its pages and what each
may show to whom, the embargo of a duplicate pair's first match, uploads through the inbox,
and clients that are hostile: another entrant's token, paths that try to climb out, bodies
over the cap, slow ones and too many, names that are HTML."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import http.client
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from referee.errors import GinRefError
from referee.timeline import load_replay
from replays.html import render_html
from tests.ladder.archives import zip_bytes
from tests.ladder.web_season import (
    BUILD_OUTPUT,
    EVIL,
    EVIL_MATCH,
    FAILURE_TAIL,
    PAIR,
    SINGLE,
    UPLOAD_BYTES,
    WebSeason,
    build_season,
    output_text,
)
from tests.support.raw_http import exchange
from tournaments.journal.store import open_journal
from tournaments.ladder import board
from tournaments.ladder.season import load_season
from tournaments.ladder.service import PLAY, SUBMISSIONS
from tournaments.ladder.store import open_season
from tournaments.ladder.web import EMBARGO, LadderWeb, log_file
from tournaments.ladder.web_pages import faults_text as board_faults

DEADLINE_S = 30.0  # far beyond what a local request takes on a loaded machine
MANIFEST = b'language = "python"\nrun = "{python} bot.py"\n'  # the pipeline's, not read here
ARCHIVE = zip_bytes({"ginref-bot.toml": MANIFEST, "bot.py": b"print()\n"})


class Answer:
    def __init__(self, status: int, headers: Any, body: bytes) -> None:
        self.status, self.headers, self.body = status, headers, body
        self.text = body.decode("utf-8", errors="replace")

    @property
    def words(self) -> str:
        """The page's text, as a browser shows it."""
        return "".join(parsed(self.text).data)


def request(
    web: LadderWeb,
    path: str,
    method: str = "GET",
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> Answer:
    host, port = web.address
    connection = http.client.HTTPConnection(host, port, timeout=DEADLINE_S)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        answer = connection.getresponse()
        return Answer(answer.status, answer.headers, answer.read())
    finally:
        connection.close()


def multipart(fields: dict[str, str], archive: bytes | None) -> tuple[bytes, dict[str, str]]:
    """A form as a browser posts it: the fields, then the archive as a file."""
    boundary = "ginref-test-boundary"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
        for k, v in fields.items()
    ]
    if archive is not None:
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="archive"; '
            'filename="bot.zip"\r\nContent-Type: application/zip\r\n\r\n'.encode()
            + archive
            + b"\r\n"
        )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), {"Content-Type": f"multipart/form-data; boundary={boundary}"}


def upload(web: LadderWeb, entrant: str, token: str, archive: bytes | None) -> Answer:
    body, headers = multipart({"entrant": entrant, "token": token}, archive)
    return request(web, "/submit", "POST", body, headers)


def me(web: LadderWeb, entrant: str, token: str) -> Answer:
    body = f"entrant={quote(entrant)}&token={quote(token)}".encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    return request(web, "/me", "POST", body, headers)


def raw(web: LadderWeb, data: bytes) -> bytes:
    """Send ``data`` on a connection of its own; everything the server answers."""
    return exchange(web.address, data, DEADLINE_S)


def main_of(text: str) -> str:
    return text[text.index("<main>") : text.index("</main>")]


class Tags(HTMLParser):
    """Every element of a page, with its attributes, and its text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.data: list[str] = []

        self.rows: list[list[str]] = []  # the text of each table row's cells

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.rows[-1].append("")

    def handle_data(self, data: str) -> None:
        self.data.append(data)
        if self.rows and self.rows[-1]:
            self.rows[-1][-1] += data


def parsed(text: str) -> Tags:
    tags = Tags()
    tags.feed(text)
    return tags


@pytest.fixture
def season(tmp_path: Path) -> Iterator[WebSeason]:
    s = build_season(tmp_path)
    yield s
    s.tournament.journal.close()


def serve(season: WebSeason, **options: Any) -> LadderWeb:
    web = LadderWeb(season.directory, port=0, **options)
    web.start()
    return web


@pytest.fixture
def web(season: WebSeason) -> Iterator[LadderWeb]:
    server = serve(season, request_timeout=0.5, max_connections=3)
    yield server
    server.stop()


def versions(season: WebSeason, entrant: str) -> list[str]:
    store = open_season(season.directory, read_only=True)
    try:
        return [f"{v.name} {v.status}" for v in store.versions(entrant)]
    finally:
        store.close()


def submissions(season: WebSeason) -> list[str]:
    root = season.directory / SUBMISSIONS
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


# --- the pages ---------------------------------------------------------------------------------


def test_the_leaderboard_is_the_boards_rows(season: WebSeason, web: LadderWeb) -> None:
    store = open_season(season.directory, read_only=True)
    journal = open_journal(season.directory / PLAY, create=False, read_only=True)
    rows = board.leaderboard(load_season(season.directory), store)
    recount = board.results_of(
        journal.records()
    )  # the counts the store kept, as the journal has them
    store.close()
    journal.close()
    assert [(r.wins, r.draws, r.losses) for r in rows] == [
        (recount.wins[r.bot], recount.draws[r.bot], recount.losses[r.bot]) for r in rows
    ]
    assert any(r.matches for r in rows)
    answer = request(web, "/api/leaderboard")
    assert answer.status == 200 and answer.headers["Content-Type"] == "application/json"
    assert answer.text == board.board_json(rows)
    page = request(web, "/")
    assert page.status == 200 and page.headers["Content-Type"].startswith("text/html")
    # Each row's cells as text, under the heading.
    shown = [[cell.strip() for cell in row] for row in parsed(page.text).rows[1:]]
    assert shown == [
        [str(r.rank), r.bot + ("" if r.kind == "submitted" else r.kind), f"{r.rating:.2f}",
         f"{r.low:.1f} to {r.high:.1f}", str(r.matches), f"{r.wins}-{r.draws}-{r.losses}",
         board_faults(r.faults)]
        for r in rows
    ]  # fmt: skip
    assert [r.rating for r in rows] == sorted((r.rating for r in rows), reverse=True)
    policy = page.headers["Content-Security-Policy"]
    assert "style-src 'sha256-" in policy and "script-src" not in policy
    assert "<script" not in page.text and "src=" not in page.text  # loads and runs nothing


def test_a_bot_page_shows_its_versions_plot_matches_and_faults(
    season: WebSeason, web: LadderWeb
) -> None:
    page = request(web, "/bot/alice")
    assert page.status == 200
    body = main_of(page.text)
    assert "failed at build" in body and "accepted" in body
    # A failure's output is its entrant's alone: never on the public page.
    for secret in ("the build failed", FAILURE_TAIL, "exit 2", "alice&#x27;s build"):
        assert secret not in body
    store = open_season(season.directory, read_only=True)
    history = store.history("alice@2")
    store.close()
    assert len(history) == 3
    (polyline,) = re.findall(r'<polyline class="mu" points="([^"]+)"', body)
    (band,) = re.findall(r'<polygon class="band" points="([^"]+)"', body)
    assert len(polyline.split()) == len(history) and len(band.split()) == 2 * len(history)
    ys = [float(p.split(",")[1]) for p in polyline.split()]
    assert ys == sorted(ys, reverse=True)  # mu rose at each match: the line climbs
    for key in (*PAIR, SINGLE):
        assert f'href="/match/{key}"' in body
    assert "<td>timeout</td>" in body
    assert request(web, "/bot/greedy").status == 200
    missing = request(web, "/bot/mallory")
    assert missing.status == 404 and "no entrant or house bot called 'mallory'" in missing.words


def test_a_finished_match_is_its_replay_page(season: WebSeason, web: LadderWeb) -> None:
    answer = request(web, f"/match/{SINGLE}")
    assert answer.status == 200
    assert answer.text == render_html(load_replay(season.tournament.path(SINGLE)))
    policy = answer.headers["Content-Security-Policy"]
    start = answer.text.rindex("<script>") + len("<script>")
    script = answer.text[start : answer.text.index("</script>", start)]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in policy and "unsafe-inline" not in policy


def test_the_first_match_of_a_pair_waits_for_its_twin(tmp_path: Path) -> None:
    """Its twin still to play the same deal, the first match's replay is not shown, nor linked,
    nor its bots' output; the twin, in progress, is not shown either. Once the twin is
    journaled, both are."""
    season = build_season(tmp_path, finished=(PAIR[0], SINGLE, EVIL_MATCH))
    web = serve(season)
    try:
        first = request(web, f"/match/{PAIR[0]}")
        assert first.status == 404 and EMBARGO in first.text
        assert "<script" not in first.text  # nothing of the replay page
        twin = request(web, f"/match/{PAIR[1]}")
        assert twin.status == 404 and "no finished match" in twin.text
        bot = main_of(request(web, "/bot/alice").text)
        assert PAIR[0] in bot and f'href="/match/{PAIR[0]}"' not in bot
        assert "shown once its twin is over" in bot
        mine = me(web, "alice", season.tokens["alice"]).text
        assert PAIR[0] not in mine and "alice@2 in alice@2.greedy" in mine
        season.finish(PAIR[1])
        for key in PAIR:
            answer = request(web, f"/match/{key}")
            assert answer.status == 200
            assert answer.text == render_html(load_replay(season.tournament.path(key)))
        assert f'href="/match/{PAIR[0]}"' in request(web, "/bot/alice").text
    finally:
        web.stop()
        season.tournament.journal.close()


def test_paths_that_climb_out_find_nothing(season: WebSeason, web: LadderWeb) -> None:
    for path in (
        "/match/../../season.sqlite",
        "/match/..%2F..%2Fseason.sqlite",
        "/match/%2e%2e%2fseason.toml",
        "/match/..",
        "/bot/..%2F..%2Fseason.toml",
        "/bot/../season.toml",
        "/../season.toml",
    ):
        answer = raw(web, f"GET {path} HTTP/1.0\r\n\r\n".encode())
        head = answer.split(b"\r\n", 1)[0]
        assert head.startswith(b"HTTP/1.1 404 "), (path, head)
        assert b"SQLite format" not in answer and b"[ladder]" not in answer
    # A journal whose row named a log outside the season's logs: not read.
    journal = open_journal(season.directory / PLAY, create=False, read_only=True)
    (record,) = [r for r in journal.records() if r.key == SINGLE]
    journal.close()
    assert log_file(season.directory, record) is not None
    for outside in ("../season.sqlite", "logs/../../season.toml", "/etc/passwd"):
        assert log_file(season.directory, dataclasses.replace(record, log_path=outside)) is None


def test_names_are_written_as_text(season: WebSeason, web: LadderWeb) -> None:
    """An entrant's name that is HTML shows as itself on every page it is on, and makes no
    element; so does what a bot wrote, on its entrant's page."""
    for path in ("/", f"/bot/{quote(EVIL)}", "/api/leaderboard"):
        answer = request(web, path)
        assert answer.status == 200
        assert EVIL not in answer.text or path.startswith("/api/")
        if path.startswith("/api/"):
            assert EVIL in {r["entrant"] for r in json.loads(answer.text)}
            continue
        page = parsed(answer.text)
        assert not [t for t, a in page.tags if t == "b" or any(k.startswith("on") for k in a)]
        assert any(EVIL in d for d in page.data)
    assert f"{EVIL}@1" in "".join(parsed(request(web, f"/bot/{quote(EVIL)}").text).data)
    mine = me(web, EVIL, season.tokens[EVIL])
    page = parsed(mine.text)
    assert not [t for t, _ in page.tags if t in ("b", "script")]
    assert output_text(EVIL_MATCH, f"{EVIL}@1") in "".join(page.data)


# --- an entrant's own page ---------------------------------------------------------------------


def test_an_entrants_page_shows_its_failures_and_its_bots_output(
    season: WebSeason, web: LadderWeb
) -> None:
    answer = me(web, "alice", season.tokens["alice"])
    assert answer.status == 200 and answer.headers["Cache-Control"] == "no-store"
    text = "".join(parsed(answer.text).data)
    assert "alice@1: failed at build" in text and "the build failed" in text
    assert "exit status: exit 2" in text and FAILURE_TAIL in text and BUILD_OUTPUT in text
    for key in (*PAIR, SINGLE):
        assert output_text(key, "alice@2") in text
        assert output_text(key, "bob@1") not in text and output_text(key, "greedy") not in text
    assert "bob@1 in" not in text and "greedy in" not in text
    # The same page for a script, by its token alone.
    bearer = {"Authorization": f"Bearer {season.tokens['alice']}"}
    scripted = request(web, "/me", headers=bearer)
    assert scripted.status == 200 and main_of(scripted.text) == main_of(answer.text)
    # bob's page has bob's output and nothing of alice's.
    bobs = "".join(parsed(me(web, "bob", season.tokens["bob"]).text).data)
    assert output_text(PAIR[0], "bob@1") in bobs
    assert "alice@2 in" not in bobs and FAILURE_TAIL not in bobs and BUILD_OUTPUT not in bobs


def test_another_entrants_token_is_refused_as_an_unknown_entrant_is(
    season: WebSeason, web: LadderWeb
) -> None:
    wrong = me(web, "alice", season.tokens["bob"])
    unknown = me(web, "mallory", season.tokens["bob"])
    assert wrong.status == unknown.status == 403
    assert "no entrant 'alice' with that token" in wrong.words
    assert "no entrant 'mallory' with that token" in unknown.words
    assert main_of(wrong.text).replace("alice", "X") == main_of(unknown.text).replace(
        "mallory", "X"
    )
    for answer in (wrong, unknown):
        assert FAILURE_TAIL not in answer.text and "alice@2 in" not in answer.text
    bad = request(web, "/me", headers={"Authorization": "Bearer ginref-nope"})
    assert bad.status == 403 and "no entrant with that token" in bad.text
    form = request(web, "/me")
    assert form.status == 200 and '<form method="post" action="/me">' in form.text


# --- uploads -----------------------------------------------------------------------------------


def test_an_upload_is_queued_and_the_rules_refuse_the_next(
    season: WebSeason, web: LadderWeb
) -> None:
    answer = upload(web, "alice", season.tokens["alice"], ARCHIVE)
    assert answer.status == 202, answer.text
    assert "queued as alice@3" in "".join(parsed(answer.text).data)
    assert (season.directory / SUBMISSIONS / "alice" / "3.archive").read_bytes() == ARCHIVE
    assert versions(season, "alice")[-1] == "alice@3 queued"
    again = upload(web, "alice", season.tokens["alice"], ARCHIVE)
    assert again.status == 409 and "still being built or validated" in again.text
    assert "alice@4" not in " ".join(versions(season, "alice"))


def test_an_upload_with_a_wrong_token_or_none_writes_nothing(
    season: WebSeason, web: LadderWeb
) -> None:
    before = submissions(season), versions(season, "alice")
    refused = upload(web, "alice", season.tokens["bob"], ARCHIVE)
    assert refused.status == 403 and "no entrant 'alice' with that token" in refused.words
    assert upload(web, "mallory", "ginref-x", ARCHIVE).status == 403
    no_file = upload(web, "alice", season.tokens["alice"], None)
    assert no_file.status == 400 and "no archive" in no_file.text
    over = upload(web, "alice", season.tokens["alice"], b"z" * (UPLOAD_BYTES + 1))
    assert over.status == 413 and "over the season's cap" in over.words  # the inbox's line
    assert (submissions(season), versions(season, "alice")) == before


def test_a_body_declared_over_the_cap_is_refused_unread(season: WebSeason, web: LadderWeb) -> None:
    before = submissions(season), versions(season, "alice")
    head = (
        "POST /submit HTTP/1.1\r\nHost: x\r\n"
        "Content-Type: multipart/form-data; boundary=b\r\n"
        f"Content-Length: {1 << 30}\r\n\r\n"
    )
    answer = raw(web, head.encode() + b"--b\r\n" + b"z" * 1000)
    assert answer.startswith(b"HTTP/1.1 413 ") and b"connection: close" in answer.lower()
    assert (submissions(season), versions(season, "alice")) == before


def test_a_body_streamed_past_the_cap_is_cut_off(season: WebSeason, web: LadderWeb) -> None:
    """A chunked body with no length and no end: the answer comes once it passes the cap, long
    before the client would have sent all it meant to."""
    before = submissions(season), versions(season, "alice")
    meant = 64 << 20  # a thousand times the cap
    answered = threading.Event()
    sent = 0
    sock = socket.create_connection(web.address, timeout=DEADLINE_S)
    sock.sendall(
        b"POST /submit HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
        b"Content-Type: multipart/form-data; boundary=b\r\n\r\n"
    )
    opening = b'--b\r\nContent-Disposition: form-data; name="archive"; filename="a"\r\n\r\n'
    sock.sendall(b"%x\r\n%s\r\n" % (len(opening), opening))
    chunk = b"4000\r\n" + b"z" * 0x4000 + b"\r\n"

    def stream() -> None:
        nonlocal sent
        try:
            while sent < meant and not answered.is_set():
                sock.sendall(chunk)
                sent += 0x4000
        except OSError:
            pass  # the server closed the connection: as it should

    sender = threading.Thread(target=stream, daemon=True)
    sender.start()
    try:
        answer = sock.recv(65536)
        answered.set()
    finally:
        sender.join()
        sock.close()
    assert answer.startswith(b"HTTP/1.1 413 ")
    assert sent < meant
    assert (submissions(season), versions(season, "alice")) == before


# --- slow and many clients ---------------------------------------------------------------------


def test_a_silent_client_is_dropped_and_others_are_served_meanwhile(web: LadderWeb) -> None:
    with socket.create_connection(web.address, timeout=DEADLINE_S) as silent:
        assert request(web, "/api/leaderboard").status == 200
        began = time.monotonic()
        assert silent.recv(100) == b""  # closed by the server after its request timeout
        assert time.monotonic() - began < DEADLINE_S


def test_an_upload_too_slow_is_refused(season: WebSeason) -> None:
    web = serve(season, upload_timeout=0.5)
    try:
        head = (
            "POST /submit HTTP/1.1\r\nHost: x\r\n"
            "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000\r\n\r\n"
        )
        with socket.create_connection(web.address, timeout=DEADLINE_S) as sock:
            sock.sendall(head.encode() + b"--b\r\n")  # and nothing more
            answer = sock.recv(65536)
        assert answer.startswith(b"HTTP/1.1 408 ")
    finally:
        web.stop()


def test_connections_beyond_the_cap_are_turned_away_at_once(web: LadderWeb) -> None:
    held = [socket.create_connection(web.address, timeout=DEADLINE_S) for _ in range(3)]
    try:
        assert raw(web, b"GET / HTTP/1.0\r\n\r\n").startswith(b"HTTP/1.1 503 ")
    finally:
        for sock in held:
            sock.close()


def test_a_request_head_too_large_is_refused(web: LadderWeb) -> None:
    answer = raw(web, b"GET / HTTP/1.0\r\nX-Big: " + b"a" * 40_000 + b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 431 ")


def test_start_names_what_is_wrong(tmp_path: Path, season: WebSeason) -> None:
    with pytest.raises(GinRefError, match="no season"):
        LadderWeb(tmp_path, port=0).start()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(
            GinRefError, match=f"cannot serve the season's web app on 127.0.0.1:{port}"
        ):
            LadderWeb(season.directory, "127.0.0.1", port).start()
