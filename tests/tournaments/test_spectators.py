"""The live page's watch of a tournament directory (tournaments/watch.py) and its server
(tournaments/spectators.py), on a journal and logs written here as a run writes them: logs
that grow line by line (half a line too), matches committed, a deal other matches still play,
and clients that are slow, large or too many."""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from replays.spectate import Spectator, spectator_view
from tests.support.live_tournament import Tournament, spec
from tournaments.records import Forfeit
from tournaments.spectators import LiveView
from tournaments.watch import SETTLED_S, STALL_S, STANDINGS_LAG_S, TournamentWatch

CARD = re.compile(r'"[A23456789TJQK][CDHS]"')
# Far beyond what a local request or a few polls take on a loaded machine.
DEADLINE_S = 30.0


def until(condition: Callable[[], Any], what: str) -> Any:
    """Poll ``condition`` until it is true (its value), failing after DEADLINE_S."""
    end = time.monotonic() + DEADLINE_S
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > end:
            pytest.fail(f"not true after {DEADLINE_S:g} s: {what}")
        time.sleep(0.02)


@pytest.fixture
def duel(tmp_path: Path) -> Iterator[Tournament]:
    """Two matches of ann and bob on two deals: nothing is embargoed."""
    t = Tournament(
        tmp_path / "t",
        [spec("ann.bob.001", 0, ("ann", "bob"), 11), spec("ann.bob.002", 1, ("bob", "ann"), 12, 2)],
    )
    yield t
    t.journal.close()


def watching(t: Tournament) -> TournamentWatch:
    watch = TournamentWatch(t.directory, Spectator)
    watch.open()
    watch.poll()
    return watch


def test_a_log_is_followed_line_by_line_and_half_a_line_waits(duel: Tournament) -> None:
    duel.log("ann.bob.001")
    watch = watching(duel)
    state = watch.state()
    assert state["tournament"] == "spring" and state["total"] == 2 and state["running"]
    (entry,) = state["live"]
    assert entry["key"] == "ann.bob.001" and entry["view"]["tables"] == []
    deal = next(i for i, line in enumerate(duel.lines["ann.bob.001"]) if '"deal"' in line)
    duel.grow("ann.bob.001", deal, half=True)  # up to the deal, and half of the first decision
    assert watch.poll()
    (table,) = watch.state()["live"][0]["view"]["tables"]
    assert table["events"] == [{"seat": None, "kind": "deal", "card": None}]
    before = watch.state()
    assert not watch.poll() and watch.state() is before  # nothing new: nothing rebuilt
    duel.grow("ann.bob.001", 1)  # the rest of that line, then a whole one
    assert watch.poll()
    (table,) = watch.state()["live"][0]["view"]["tables"]
    assert len(table["events"]) == 2
    watch.close()


def test_lines_that_are_not_records_are_passed_over(duel: Tournament) -> None:
    duel.log("ann.bob.001")
    with duel.path("ann.bob.001").open("a") as handle:
        handle.write("[" * 100_000 + "\n")  # deeper than any JSON parser goes
        handle.write('{"type": "deal", "hand": "one"}\n' + "not json\n" + "\n")
    duel.grow("ann.bob.001", 8)
    watch = watching(duel)
    (entry,) = watch.state()["live"]
    assert entry["view"]["tables"] and entry["view"]["stopped"] is None
    watch.close()


def test_a_finished_match_leaves_the_live_list_for_the_results(duel: Tournament) -> None:
    duel.log("ann.bob.001")
    duel.log("ann.bob.002", choices=2)
    duel.grow("ann.bob.001", 40)
    now = [time.time()]
    watch = TournamentWatch(duel.directory, Spectator, clock=lambda: now[0])
    watch.open()
    watch.poll()
    assert [e["key"] for e in watch.state()["live"]] == ["ann.bob.001", "ann.bob.002"]
    duel.finish("ann.bob.001")
    assert watch.poll()
    state = watch.state()
    assert [e["key"] for e in state["live"]] == ["ann.bob.002"] and state["done"] == 1
    # The standings and the results are refitted at most so often after a fit: by then.
    assert state["standings"]["done"] == 0 and state["recent"] == []
    now[0] += STANDINGS_LAG_S
    assert watch.poll()
    state = watch.state()
    assert {b["name"]: b["matches"] for b in state["standings"]["bots"]} == {"ann": 1, "bob": 1}
    assert [r["key"] for r in state["recent"]] == ["ann.bob.001"]
    final = json.loads(duel.lines["ann.bob.001"][-1])
    assert state["recent"][0]["final"] == final["final"]
    # Its last view, read to the end of its log, stays available by its id.
    kept = watch.matches()[state["recent"][0]["match_id"]]
    assert kept["view"]["over"] and kept["view"]["result"]["final"] == final["final"]
    watch.close()


def test_finished_directories_are_set_aside_but_new_ones_are_found_at_once(
    duel: Tournament,
) -> None:
    now = [time.time() + 60.0]  # a clock a minute ahead: no directory changed lately
    watch = TournamentWatch(duel.directory, Spectator, clock=lambda: now[0])
    watch.open()
    duel.log("ann.bob.001")
    duel.finish("ann.bob.001")
    watch.poll()
    watch.poll()  # its directory holds finished logs only: set aside
    assert watch._listing._settled == {str(duel.path("ann.bob.001").parent)}
    # The next match's job directory beside it is found at the next poll.
    duel.log("ann.bob.002")
    watch.poll()
    assert [e["key"] for e in watch.state()["live"]] == ["ann.bob.002"]
    # A log that appeared where only finished ones were is found once those are looked at
    # again (a runner never puts one there: this is the safety net).
    stray = duel.path("ann.bob.001").parent / "stray.jsonl"
    stray.write_text(duel.path("ann.bob.002").read_text())
    duel.path("ann.bob.002").unlink()
    watch.poll()
    assert watch.state()["live"] == []
    now[0] += SETTLED_S
    watch.poll()
    assert [e["key"] for e in watch.state()["live"]] == ["ann.bob.002"]
    watch.close()


def test_a_deal_that_other_matches_still_play_shows_no_card(tmp_path: Path) -> None:
    # A duplicate pair: the same deal, the seats swapped.
    t = Tournament(
        tmp_path / "t",
        [spec("ann.bob.001", 0, ("ann", "bob"), 7), spec("ann.bob.002", 1, ("bob", "ann"), 7, 2)],
    )
    t.log("ann.bob.001")
    t.grow("ann.bob.001", 60)
    watch = watching(t)
    (entry,) = watch.state()["live"]
    assert entry["embargo"] == {"matches_left": 1} and entry["view"] is None
    assert entry["hand"] >= 1
    text = json.dumps(watch.state()) + json.dumps(watch.matches())
    assert not CARD.search(text) and '"seed"' not in text
    # Its partner played and journaled: the deal is open to all, this match's cards too.
    t.log("ann.bob.002")
    t.finish("ann.bob.002")
    watch.poll()
    (entry,) = watch.state()["live"]
    assert entry["embargo"] is None and entry["view"]["tables"][0]["pile"]
    watch.close()
    t.journal.close()


def test_live_matches_are_listed_in_the_order_of_play_and_a_silent_one_is_stalled(
    tmp_path: Path,
) -> None:
    """Each live match with its place in the schedule (round, game, seats), in the order of
    play; one whose log has not grown for STALL_S is said to be stalled, with nothing else in
    the directory changing meanwhile (a hung bot in a run of one match at a time)."""
    t = Tournament(
        tmp_path / "t",
        [spec("ann.bob.001", 1, ("ann", "bob"), 11), spec("ann.bob.002", 0, ("bob", "ann"), 12, 2)],
    )
    for key in t.schedule:
        t.log(key)
    now = [1000.0]
    watch = TournamentWatch(t.directory, Spectator, clock=lambda: now[0])
    watch.open()
    watch.poll()
    state = watch.state()
    assert (state["players"], state["scheduled"], state["running"]) == (2, True, True)
    assert (state["done"], state["total"]) == (0, 2)
    assert [e["key"] for e in state["live"]] == ["ann.bob.002", "ann.bob.001"]
    for entry in state["live"]:
        s = t.schedule[entry["key"]]
        assert (entry["round"], entry["game"]) == (s.round, s.game)
        assert (entry["seats"], entry["sides"]) == (list(s.seats), None)
        assert entry["stalled"] is False
    now[0] += STALL_S
    watch.poll()
    assert not any(e["stalled"] for e in watch.state()["live"])
    now[0] += 1.0
    assert watch.poll()  # no byte changed, but the state did
    assert all(e["stalled"] for e in watch.state()["live"])
    t.grow("ann.bob.001", 1)
    watch.poll()
    stalled = {e["key"]: e["stalled"] for e in watch.state()["live"]}
    assert stalled == {"ann.bob.001": False, "ann.bob.002": True}
    watch.close()
    t.journal.close()


def test_a_finished_match_is_listed_with_its_result_and_no_reason(tmp_path: Path) -> None:
    """The results list says who played, the result and a forfeit's kind, rule and seats: never
    the fault's reason, which may name a card."""
    t = Tournament(
        tmp_path / "t",
        [spec("ann.bob.001", 0, ("ann", "bob"), 11), spec("ann.bob.002", 1, ("bob", "ann"), 12, 2)],
    )
    for key in t.schedule:
        t.log(key)
    t.finish("ann.bob.001")
    reason = "discard 7H: you must draw from the stock or the discard pile"
    t.finish("ann.bob.002", Forfeit(1, "illegal_action", "R4.1", reason))
    now = [1000.0]
    watch = TournamentWatch(t.directory, Spectator, clock=lambda: now[0])
    watch.open()
    watch.poll()
    now[0] += STANDINGS_LAG_S
    watch.poll()
    state = watch.state()
    assert "7H" not in json.dumps(state)
    rows = {row["key"]: row for row in state["recent"]}
    assert set(rows) == set(t.schedule)
    for key, row in rows.items():
        final = json.loads(t.lines[key][-1])
        first = json.loads(t.lines[key][0])
        assert row["match_id"] == first["match_id"]
        assert (row["seats"], row["sides"]) == (list(t.schedule[key].seats), None)
        assert (row["final"], row["margin"]) == (final["final"], final["margin"])
        assert (row["termination"], row["hands"]) == (final["termination"], final["hands_played"])
        winner = final["winner"]
        assert row["winner"] == (None if winner is None else t.schedule[key].seats[winner])
        assert row["placings"] == final.get("placings", [])
    assert rows["ann.bob.001"]["forfeit"] is None
    assert rows["ann.bob.002"]["forfeit"] == {
        "kind": "illegal_action",
        "rule": "R4.1",
        "seats": [1],
    }
    watch.close()
    t.journal.close()


def test_a_watch_of_a_directory_without_a_tournament_says_so(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="no such directory"):
        TournamentWatch(tmp_path / "nothing", Spectator).open()
    with pytest.raises(Exception, match=r"not a tournament directory \(no journal.sqlite\)"):
        TournamentWatch(tmp_path, Spectator).open()


def test_a_journal_not_filled_yet_is_waited_for(tmp_path: Path) -> None:
    (tmp_path / "journal.sqlite").write_bytes(b"")  # a run has just created it
    watch = TournamentWatch(tmp_path, Spectator)
    watch.open()
    watch.poll()
    assert watch.state()["scheduled"] is False and watch.state()["total"] == 0
    t = Tournament(tmp_path, [spec("ann.bob.001", 0, ("ann", "bob"), 3)])
    watch.poll()
    assert watch.state()["total"] == 1
    watch.close()
    t.journal.close()


def test_the_watch_never_writes_to_the_journal(duel: Tournament) -> None:
    watch = watching(duel)
    journal = watch._journal
    assert journal is not None
    with pytest.raises(sqlite3.OperationalError, match=r"readonly"):
        journal.db.execute("DELETE FROM matches")
    watch.close()


# --- the server -------------------------------------------------------------------------------


@pytest.fixture
def served(duel: Tournament) -> Iterator[tuple[LiveView, Tournament]]:
    duel.log("ann.bob.001")
    duel.grow("ann.bob.001", 30)
    view = LiveView(
        duel.directory,
        port=0,
        follower=Spectator,
        interval=0.05,
        request_timeout=0.5,
        max_connections=3,
    )
    view.start()
    yield view, duel
    view.stop()


def get(view: LiveView, path: str, headers: dict[str, str] | None = None) -> tuple[int, Any, bytes]:
    host, port = view.address
    connection = http.client.HTTPConnection(host, port, timeout=DEADLINE_S)
    try:
        connection.request("GET", path, headers=headers or {})
        answer = connection.getresponse()
        return answer.status, answer.headers, answer.read()
    finally:
        connection.close()


def test_the_page_and_the_state_are_served(served: tuple[LiveView, Tournament]) -> None:
    view, _ = served
    status, headers, body = get(view, "/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert b"<script>" in body and b"src=" not in body  # self-contained: loads nothing
    policy = headers["Content-Security-Policy"]
    assert "script-src 'sha256-" in policy and "unsafe-inline" not in policy
    status, headers, body = get(view, "/api/state")
    assert status == 200 and headers["Content-Type"] == "application/json"
    state = json.loads(body)
    (entry,) = state["live"]
    assert entry["view"]["seats"][0]["label"] == "ann" and state["error"] is None
    status, _, body = get(view, f"/api/match/{entry['match_id']}")
    assert status == 200 and json.loads(body)["key"] == "ann.bob.001"
    assert get(view, "/api/match/nope")[0] == 404 and get(view, "/etc/passwd")[0] == 404
    # Unchanged since the ETag the client holds: no body at all.
    status, _, body = get(view, "/api/state", {"If-None-Match": headers["ETag"]})
    assert status == 304 and body == b""


def test_the_state_follows_the_log(served: tuple[LiveView, Tournament]) -> None:
    view, t = served

    def hand() -> int:
        return int(json.loads(get(view, "/api/state")[2])["live"][0]["view"]["hand"])

    first = hand()
    rest = len(t.lines["ann.bob.001"]) - t.written["ann.bob.001"] - 1
    t.grow("ann.bob.001", rest)
    until(lambda: hand() > first, "a later hand in the state")


def test_a_finished_match_shows_no_card_while_its_partner_plays_its_deal(tmp_path: Path) -> None:
    """A duplicate pair, served: one match over, its partner still playing the same deal. What
    a spectator can ask for (the state, which is all the page draws from, and each match by
    its id) shows no card but those of the partner's own table so far; once the partner is
    over too, the finished match's last view is there in full."""
    t = Tournament(
        tmp_path / "t",
        [spec("ann.bob.001", 0, ("ann", "bob"), 7), spec("ann.bob.002", 1, ("bob", "ann"), 7, 2)],
    )
    first, partner = "ann.bob.001", "ann.bob.002"
    t.log(first)
    t.log(partner, choices=2)  # the same deal, played otherwise
    t.grow(first, 30)
    t.grow(partner, 60)
    view = LiveView(t.directory, port=0, follower=Spectator, interval=0.05)
    view.start()
    try:
        first_id, partner_id = (json.loads(t.lines[k][0])["match_id"] for k in (first, partner))

        def state() -> dict[str, Any]:
            return dict(json.loads(get(view, "/api/state")[2]))

        # Both followed while in progress (a finished match's view is kept only then).
        until(lambda: len(state()["live"]) == 2, "both matches in progress in the state")
        t.finish(first)

        def first_listed() -> bool:
            now = state()
            recent = [r["key"] for r in now["recent"]]
            return now["done"] == 1 and now["standings"]["done"] == 1 and recent == [first]

        until(first_listed, "the finished match in the results and the standings")
        status, _, finished = get(view, f"/api/match/{first_id}")
        assert status == 200
        _, _, body = get(view, "/api/state")
        _, _, playing = get(view, f"/api/match/{partner_id}")
        # The partner's table, and nothing else, may show cards: exactly what its own log has
        # made public so far (its deal has no other match left to play).
        written = [json.loads(line) for line in t.lines[partner][: t.written[partner]]]
        public = set(CARD.findall(json.dumps(spectator_view(written))))
        (entry,) = json.loads(body)["live"]
        assert entry["key"] == partner and entry["embargo"] is None
        assert entry["view"] == spectator_view(written)
        leaked = set(CARD.findall(finished.decode())) | (
            set(CARD.findall(body.decode() + playing.decode())) - public
        )
        assert leaked == set()
        assert json.loads(finished) == {
            "match_id": first_id,
            "embargo": {"matches_left": 1},
            "view": None,
        }
        for text in (finished, body, playing):
            assert b'"seed"' not in text and b'"deck"' not in text
        # The partner over as well: the deal is open to all, the finished match's cards too.
        t.finish(partner)
        until(lambda: state()["done"] == 2, "the partner journaled")
        for key, match_id in ((first, first_id), (partner, partner_id)):
            shown = json.loads(get(view, f"/api/match/{match_id}")[2])
            whole = [json.loads(line) for line in t.lines[key]]
            assert shown["embargo"] is None and shown["view"] == spectator_view(whole)
            assert shown["view"]["over"] and CARD.search(json.dumps(shown))
    finally:
        view.stop()
        t.journal.close()


def test_only_get_and_head_are_answered(served: tuple[LiveView, Tournament]) -> None:
    view, _ = served
    host, port = view.address
    connection = http.client.HTTPConnection(host, port, timeout=DEADLINE_S)
    connection.request("POST", "/api/state", body=b"x")
    answer = connection.getresponse()
    assert answer.status == 405 and answer.headers["Allow"] == "GET, HEAD"
    connection.close()


def raw(view: LiveView, data: bytes) -> bytes:
    """Send ``data`` on a connection of its own; everything the server answers."""
    with socket.create_connection(view.address, timeout=DEADLINE_S) as sock:
        sock.sendall(data)
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
        return out


def test_a_request_too_large_is_refused(served: tuple[LiveView, Tournament]) -> None:
    view, _ = served
    answer = raw(view, b"GET / HTTP/1.0\r\nX-Big: " + b"a" * 40_000 + b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 431 ")


def test_a_silent_client_is_dropped_and_others_are_served_meanwhile(
    served: tuple[LiveView, Tournament],
) -> None:
    view, _ = served
    with socket.create_connection(view.address, timeout=DEADLINE_S) as silent:
        assert get(view, "/api/state")[0] == 200  # while the silent one holds its connection
        began = time.monotonic()
        assert silent.recv(100) == b""  # closed by the server after its request timeout
        assert time.monotonic() - began < DEADLINE_S


def test_connections_beyond_the_cap_are_turned_away_at_once(
    served: tuple[LiveView, Tournament],
) -> None:
    view, _ = served
    held = [socket.create_connection(view.address, timeout=DEADLINE_S) for _ in range(3)]
    try:
        answer = raw(view, b"GET /api/state HTTP/1.0\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 503 ")
    finally:
        for sock in held:
            sock.close()
    until(lambda: get(view, "/api/state")[0] == 200, "served again once they left")


def test_a_slowloris_from_one_address_keeps_no_spectator_out(
    served: tuple[LiveView, Tournament],
) -> None:
    """64 connections from 127.0.0.2 that send a header line every 0.1 s and never end their
    request: another address's spectator is served meanwhile, and each of them is closed (by
    its request timeout, or at once beyond its address's few)."""
    view, _ = served
    host, port = view.address
    slow = [
        socket.create_connection((host, port), timeout=DEADLINE_S, source_address=("127.0.0.2", 0))
        for _ in range(64)
    ]
    stop = threading.Event()

    def drip() -> None:
        line = 0
        while not stop.is_set():
            for sock in slow:
                with contextlib.suppress(OSError):
                    sock.sendall(b"GET / HTTP/1.1\r\n" if line == 0 else b"X-Drip: %d\r\n" % line)
            line += 1
            stop.wait(0.1)

    dripper = threading.Thread(target=drip, daemon=True)
    dripper.start()
    try:
        for _ in range(5):
            assert get(view, "/api/state")[0] == 200
        began = time.monotonic()
        for sock in slow:
            with contextlib.suppress(OSError):
                while sock.recv(65536):
                    pass  # a 503, or nothing: then the end
        assert time.monotonic() - began < DEADLINE_S
    finally:
        stop.set()
        dripper.join()
        for sock in slow:
            sock.close()


def test_start_names_what_is_wrong(tmp_path: Path, duel: Tournament) -> None:
    with pytest.raises(Exception, match="not a tournament directory"):
        LiveView(tmp_path, port=0, follower=Spectator).start()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(Exception, match=f"cannot serve the live page on 127.0.0.1:{port}"):
            LiveView(duel.directory, port=port, follower=Spectator).start()


def test_stop_ends_the_threads_and_frees_the_port(duel: Tournament) -> None:
    view = LiveView(duel.directory, port=0, follower=Spectator, interval=0.05)
    with view:
        host, port = view.address
        assert get(view, "/api/state")[0] == 200
    assert not view._threads
    with LiveView(
        duel.directory, host, port, follower=Spectator, interval=0.05
    ) as again:  # the port is free again
        assert get(again, "/")[0] == 200
