"""The live page's watch of a tournament directory (tournaments/live/watch.py) and its server
(tournaments/live/server.py), on a journal and logs written here as a run writes them: logs
that grow line by line (half a line too), matches committed, runs started and ended, job
directories set aside once their matches are over, a deal other matches still play, and clients
that are slow, large or too many."""

from __future__ import annotations

import contextlib
import http.client
import itertools
import json
import os
import re
import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import tournaments.live.watch as watch_module
from referee.errors import GinRefError
from replays.spectate import spectator_view
from tests.support.group_logs import LABELS, two_player_log
from tests.support.live_tournament import RULES, Tournament, spec
from tests.support.raw_http import exchange
from tournaments.journal.records import Forfeit
from tournaments.live.server import LiveView
from tournaments.live.watch import (
    FRESH_S,
    SETTLED_S,
    STALL_S,
    STANDINGS_LAG_S,
    TournamentWatch,
    _read_new,
    _Tail,
)

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
    watch = TournamentWatch(t.directory)
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
    watch = TournamentWatch(duel.directory, clock=lambda: now[0])
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
    watch = TournamentWatch(duel.directory, clock=lambda: now[0])
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
    watch = TournamentWatch(t.directory, clock=lambda: now[0])
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
    watch = TournamentWatch(t.directory, clock=lambda: now[0])
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


def test_a_commit_made_while_the_watch_was_closed_is_seen_at_its_next_look(
    duel: Tournament,
) -> None:
    """A live page stopped and started again reads the journal anew: matches committed
    meanwhile are counted."""
    watch = watching(duel)
    watch.close()
    duel.log("ann.bob.001")
    duel.finish("ann.bob.001")
    watch.poll()
    assert watch.state()["done"] == 1
    watch.close()


def test_a_watch_of_a_directory_without_a_tournament_says_so(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="no such directory"):
        TournamentWatch(tmp_path / "nothing").open()
    with pytest.raises(Exception, match=r"not a tournament directory \(no journal.sqlite\)"):
        TournamentWatch(tmp_path).open()


def test_a_journal_not_filled_yet_is_waited_for(tmp_path: Path) -> None:
    (tmp_path / "journal.sqlite").write_bytes(b"")  # a run has just created it
    watch = TournamentWatch(tmp_path)
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


# --- the journal ------------------------------------------------------------------------------

EMPTY_STATE = {
    "tournament": "tournament",
    "players": 2,
    "scheduled": False,
    "running": False,
    "done": 0,
    "total": 0,
    "standings": None,
    "live": [],
    "recent": [],
}


def test_before_a_run_fills_its_journal_the_state_is_an_empty_tournament(tmp_path: Path) -> None:
    (tmp_path / "journal.sqlite").write_bytes(b"")  # a run has just created it
    watch = TournamentWatch(tmp_path, clock=lambda: 1000.0)
    watch.open()
    assert watch.state() == EMPTY_STATE  # asked for before any look
    assert not watch.poll() and watch.state() == EMPTY_STATE  # nothing to read yet
    # A log already in the directory (an earlier run's) shows nothing: no run is under way.
    job = tmp_path / "logs" / "ann.bob.001"
    job.mkdir(parents=True)
    two_player_log(job / "ann.bob.001.jsonl", RULES, seed=3)
    watch.poll()
    assert watch.state() == EMPTY_STATE
    watch.close()


@pytest.mark.parametrize(
    ("config", "identity", "name", "players"),
    [
        ({"name": "autumn"}, {"seed": 1, "rules": {"players": 3}}, "autumn", 3),
        # What an older or hand-made journal may lack: a name, the rules, their players.
        ({}, {"seed": 1}, "tournament", 2),
        ({"name": 7}, {"seed": 1, "rules": {}}, "7", 2),
    ],
)
def test_the_state_names_the_tournament_and_its_players_from_the_journal(
    tmp_path: Path, config: dict[str, Any], identity: dict[str, Any], name: str, players: int
) -> None:
    seats = LABELS[:players]
    schedule = [spec("a.001", 0, seats, 5), spec("a.002", 1, seats, 6, 2)]
    t = Tournament(tmp_path / "t", schedule, players, config=config, identity=identity)
    watch = watching(t)
    state = watch.state()
    assert (state["tournament"], state["players"]) == (name, players)
    assert (state["scheduled"], state["total"], state["done"]) == (True, 2, 0)
    watch.close()
    t.journal.close()


@pytest.fixture
def fit_cost(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """What a standings fit costs on the watch's performance counter (a fake one): 0.125 s
    until the test changes it (whole binary fractions keep the clock's sums exact)."""
    cost = [0.125]
    calls = itertools.count()

    def perf_counter() -> float:
        return 64.0 if next(calls) % 2 == 0 else 64.0 + cost[0]

    monkeypatch.setattr(watch_module, "time", SimpleNamespace(perf_counter=perf_counter))
    return cost


@pytest.mark.usefixtures("fit_cost")
def test_matches_in_progress_are_shown_only_while_a_run_is_under_way(tmp_path: Path) -> None:
    # The journal's last session says whether a run is under way (docs/tournaments.md: a
    # killed run stays "running"); a log left by a run that ended is not a match in progress.
    # The clock stands still after the first fit of the standings, so that no refit is due
    # and only what the journal says of the run changes the state.
    t = Tournament(tmp_path / "t", [spec("ann.bob.001", 0, ("ann", "bob"), 11)], run=False)
    t.log("ann.bob.001")
    t.grow("ann.bob.001", 10)
    watch = TournamentWatch(t.directory, clock=lambda: 1000.0)
    watch.open()
    watch.poll()
    assert not watch.state()["running"] and watch.state()["live"] == []
    t.start_run()
    assert watch.poll()  # only the journal changed
    state = watch.state()
    assert state["running"] and [e["key"] for e in state["live"]] == ["ann.bob.001"]
    t.end_run("interrupted")
    assert watch.poll()
    state = watch.state()
    assert not state["running"] and state["live"] == [] and state["done"] == 0
    t.start_run()
    t.finish("ann.bob.001")
    assert watch.poll()
    state = watch.state()
    assert state["running"] and state["live"] == [] and state["done"] == 1
    watch.close()
    t.journal.close()


def test_partnership_standings_show_each_team_with_its_members(tmp_path: Path) -> None:
    t = Tournament(tmp_path / "t", [spec("game.001", 0, LABELS, 21)], 4)
    t.log("game.001")
    t.finish("game.001")
    watch = watching(t)
    standings = watch.state()["standings"]
    assert standings["done"] == 1
    # R10.2: seats 0 and 2 (north) against 1 and 3 (south); each bot and team played once.
    assert standings["members"] == {"north": ["ann", "cat"], "south": ["bob", "dan"]}
    assert sorted(row["name"] for row in standings["bots"]) == sorted(LABELS)
    teams = {row["name"]: row for row in standings["teams"]}
    assert set(teams) == {"north", "south"}
    assert all(row["matches"] == 1 for row in [*standings["bots"], *teams.values()])
    result = json.loads(t.lines["game.001"][-1])
    winner = ("north", "south")[result["winner"]]
    assert (teams[winner]["wins"], teams[winner]["losses"]) == (1, 0)
    assert standings["ratings"] and isinstance(standings["notes"], list)
    watch.close()
    t.journal.close()


def test_two_player_standings_have_no_teams(duel: Tournament) -> None:
    duel.log("ann.bob.001")
    duel.finish("ann.bob.001")
    watch = watching(duel)
    standings = watch.state()["standings"]
    assert (standings["teams"], standings["members"]) == (None, {})
    assert {row["name"]: row["matches"] for row in standings["bots"]} == {"ann": 1, "bob": 1}
    watch.close()


def test_the_latest_finished_matches_come_first_by_when_they_ended(tmp_path: Path) -> None:
    # When a match ended is its start plus how long it took (the journal keeps both); one
    # without a duration ended when it started.
    schedule = [
        spec("ann.bob.001", 0, ("ann", "bob"), 11),
        spec("ann.bob.002", 1, ("bob", "ann"), 12, 2),
        spec("ann.bob.003", 2, ("ann", "bob"), 13, 3),
    ]
    t = Tournament(tmp_path / "t", schedule)
    ends = {
        "ann.bob.001": ("2026-01-01T10:00:00+00:00", 3600.0),  # ends at 11:00
        "ann.bob.002": ("2026-01-01T10:30:00+00:00", 60.0),  # 10:31
        "ann.bob.003": ("2026-01-01T10:45:00+00:00", None),  # 10:45
    }
    for key, (started, elapsed) in ends.items():
        t.log(key)
        t.finish(key, started=started, elapsed_s=elapsed)
    watch = watching(t)
    assert [r["key"] for r in watch.state()["recent"]] == [
        "ann.bob.001",
        "ann.bob.003",
        "ann.bob.002",
    ]
    watch.close()
    t.journal.close()


def test_standings_are_refitted_at_most_ten_times_as_often_as_a_fit_costs(
    duel: Tournament, fit_cost: list[float]
) -> None:
    cost = fit_cost
    now = [1000.0]
    watch = TournamentWatch(duel.directory, clock=lambda: now[0])
    watch.open()
    watch.poll()  # the first fit, at once: the next not before 1000 + 10 * 0.125
    for key in ("ann.bob.001", "ann.bob.002"):
        duel.log(key)
    duel.finish("ann.bob.001")
    watch.poll()
    assert watch.state()["done"] == 1 and watch.state()["standings"]["done"] == 0
    now[0] = 1001.0
    watch.poll()
    assert watch.state()["standings"]["done"] == 0
    cost[0] = 1.0  # this fit is slow: the next waits STANDINGS_LAG_S, not ten times as long
    now[0] = 1001.25
    assert watch.poll()
    assert watch.state()["standings"]["done"] == 1
    assert not watch.poll()  # refitted: nothing is due
    duel.finish("ann.bob.002")
    now[0] = 1001.25 + STANDINGS_LAG_S - 0.25
    watch.poll()
    assert watch.state()["done"] == 2 and watch.state()["standings"]["done"] == 1
    now[0] = 1001.25 + STANDINGS_LAG_S
    watch.poll()
    assert watch.state()["standings"]["done"] == 2
    now[0] += STANDINGS_LAG_S
    assert not watch.poll()  # a refit is due after a commit, not merely after a while
    watch.close()


def test_close_lets_the_journal_go_and_a_later_look_opens_it_again(duel: Tournament) -> None:
    watch = watching(duel)
    journal = watch._journal
    assert journal is not None
    watch.close()
    with pytest.raises(sqlite3.ProgrammingError):  # closed
        journal.db.execute("SELECT 1")
    watch.poll()
    assert watch._journal is not None and watch._journal is not journal
    assert watch.state()["total"] == 2
    watch.close()


def test_a_journal_of_a_newer_ginref_or_a_damaged_one_is_one_error(tmp_path: Path) -> None:
    t = Tournament(tmp_path / "t", [spec("ann.bob.001", 0, ("ann", "bob"), 11)])
    t.journal.close()
    db = sqlite3.connect(t.directory / "journal.sqlite")
    db.execute("PRAGMA user_version = 99")
    db.close()
    with pytest.raises(GinRefError, match="schema version 99"):
        TournamentWatch(t.directory).open()
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    (damaged / "journal.sqlite").write_bytes(b"not a database, " * 512)
    with pytest.raises(GinRefError, match="is damaged or is not a ginref journal"):
        TournamentWatch(damaged).open()


# --- the listing of logs ----------------------------------------------------------------------

# A directory's mtime set by the tests: a whole number of seconds, so that the clock's sums are
# exact and a look FRESH_S after it is exactly as late as counts as quiet.
QUIET_AT = 1_000_000_000


def quiet(*directories: Path) -> None:
    """Set each directory's mtime to QUIET_AT (as a coarse file-system clock leaves it)."""
    for directory in directories:
        os.utime(directory, ns=(QUIET_AT * 10**9, QUIET_AT * 10**9))


def live_keys(watch: TournamentWatch) -> list[str]:
    return [entry["key"] for entry in watch.state()["live"]]


def written(t: Tournament, key: str) -> list[dict[str, Any]]:
    """The records of ``key``'s log written so far."""
    return [json.loads(line) for line in t.lines[key][: t.written[key]]]


def test_a_directory_is_listed_again_only_when_it_changed_or_changed_lately(
    duel: Tournament,
) -> None:
    logs = duel.directory / "logs"
    duel.log("ann.bob.001")
    quiet(logs, duel.path("ann.bob.001").parent)
    now = [QUIET_AT + FRESH_S]
    watch = TournamentWatch(duel.directory, clock=lambda: now[0])
    watch.open()
    watch.poll()
    assert live_keys(watch) == ["ann.bob.001"]
    # A new job directory, its parent's mtime as it was: the listing kept is used again.
    duel.log("ann.bob.002")
    quiet(logs, duel.path("ann.bob.002").parent)
    watch.poll()
    assert live_keys(watch) == ["ann.bob.001"]
    # The same mtime, but changed less than FRESH_S ago: listed at every look.
    now[0] = QUIET_AT + FRESH_S - 0.5
    watch.poll()
    assert live_keys(watch) == ["ann.bob.001", "ann.bob.002"]
    watch.close()


def test_a_log_gone_between_the_listing_and_its_reading_leaves_the_others_read(
    duel: Tournament,
) -> None:
    logs = duel.directory / "logs"
    for key in ("ann.bob.001", "ann.bob.002"):
        duel.log(key)
        quiet(duel.path(key).parent)
    quiet(logs)
    now = [QUIET_AT + FRESH_S]
    watch = TournamentWatch(duel.directory, clock=lambda: now[0])
    watch.open()
    watch.poll()
    assert live_keys(watch) == ["ann.bob.001", "ann.bob.002"]
    # Removed, its directory's mtime as it was: the kept listing still names it. The logs
    # after it are read all the same.
    duel.path("ann.bob.001").unlink()
    quiet(duel.path("ann.bob.001").parent)
    duel.grow("ann.bob.002", 10)
    assert watch.poll()
    views = {entry["key"]: entry["view"] for entry in watch.state()["live"]}
    assert views["ann.bob.002"] == spectator_view(written(duel, "ann.bob.002"))
    watch.close()


def test_a_log_in_progress_is_followed_at_every_look(duel: Tournament) -> None:
    # Its job directory holds a log not finished: never set aside, however quiet it is.
    now = [time.time() + 60.0]
    duel.log("ann.bob.001")
    watch = TournamentWatch(duel.directory, clock=lambda: now[0])
    watch.open()
    for _ in range(3):
        watch.poll()
        duel.grow("ann.bob.001", 5)
    assert watch.poll()
    (entry,) = watch.state()["live"]
    assert entry["view"] == spectator_view(written(duel, "ann.bob.001"))
    watch.close()


def test_a_job_directory_of_finished_logs_is_looked_at_again_every_settled_s(
    duel: Tournament,
) -> None:
    now = [time.time() + 60.0]  # a clock a minute ahead: no directory changed lately
    watch = TournamentWatch(duel.directory, clock=lambda: now[0])
    watch.open()
    duel.log("ann.bob.001")
    job = duel.path("ann.bob.001").parent
    # The bots' output files beside the log, as a run keeps them: not logs.
    for seat in (0, 1):
        (job / f"ann.bob.001.seat{seat}.out").write_text("thinking...\n")
    duel.finish("ann.bob.001")
    watch.poll()
    watch.poll()  # its directory holds finished logs only: set aside
    duel.log("ann.bob.002")
    in_progress = duel.path("ann.bob.002").read_text()
    duel.path("ann.bob.002").unlink()
    for stray in ("stray1.jsonl", "stray2.jsonl"):
        # A log in progress where only finished ones were: found at the next look after
        # SETTLED_S, not before.
        (job / stray).write_text(in_progress)
        watch.poll()
        now[0] += SETTLED_S - 1.0
        watch.poll()
        assert live_keys(watch) == []
        now[0] += 1.0
        watch.poll()
        assert live_keys(watch) == ["ann.bob.002"]
        # Gone again: the directory is set aside again at the next look.
        (job / stray).unlink()
        watch.poll()
        assert live_keys(watch) == []
    watch.close()


def test_symbolic_links_under_logs_are_not_followed(duel: Tournament, tmp_path: Path) -> None:
    # Whatever a link under the tournament's logs names, in or out of it, is not read.
    duel.log("ann.bob.001")
    duel.log("ann.bob.002")
    logs = duel.directory / "logs"
    elsewhere = tmp_path / "elsewhere"
    duel.path("ann.bob.002").parent.rename(elsewhere)
    (logs / "linked").symlink_to(elsewhere, target_is_directory=True)
    (logs / "ann.bob.001" / "copy.jsonl").symlink_to(elsewhere / "ann.bob.002.jsonl")
    watch = watching(duel)
    assert live_keys(watch) == ["ann.bob.001"]
    watch.close()
    # The logs directory itself a link: nothing under it is read either.
    logs.rename(tmp_path / "real-logs")
    logs.symlink_to(tmp_path / "real-logs", target_is_directory=True)
    watch = watching(duel)
    assert watch.state()["live"] == []
    watch.close()


# --- reading a log ----------------------------------------------------------------------------


class Fed:
    """A follower that keeps the records it is fed."""

    seed: int | None = None
    labels: tuple[str, ...] = ()

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def feed(self, record: dict[str, Any]) -> None:
        self.records.append(record)

    def view(self) -> dict[str, Any]:
        return {}


def hello(seat: int) -> bytes:
    """A whole ``connected`` record line: 55 bytes."""
    return b'{"type":"connected","seat":%d,"name":"a","version":"1"}\n' % seat


def tail_of(path: Path) -> tuple[_Tail, Fed]:
    fed = Fed()
    return _Tail(str(path), 0, fed, 0.0), fed


def test_only_whole_lines_are_read_and_an_empty_one_is_passed(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_bytes(b"\n" + hello(0)[:20])
    tail, fed = tail_of(path)
    assert _read_new(tail) and tail.offset == 1 and fed.records == []
    assert not _read_new(tail) and tail.offset == 1  # half a line: nothing yet
    with path.open("ab") as handle:
        handle.write(hello(0)[20:] + hello(1) + b"not json\n" + hello(2)[:30])
    assert _read_new(tail)
    assert [r["seat"] for r in fed.records] == [0, 1]
    assert tail.offset == 1 + 2 * len(hello(0)) + len(b"not json\n")
    assert not _read_new(tail) and tail.broken is None


def test_a_large_log_is_read_over_several_looks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watch_module, "READ_CAP", 2 * len(hello(0)) + 10)
    path = tmp_path / "m.jsonl"
    path.write_bytes(b"".join(hello(s) for s in range(5)))
    tail, fed = tail_of(path)
    counts = []
    while _read_new(tail):
        counts.append(len(fed.records))
    assert counts == [2, 4, 5] and tail.broken is None


@pytest.mark.parametrize("extra", [0, 1, 100])
def test_a_line_as_long_as_a_read_or_longer_is_never_read(
    extra: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watch_module, "READ_CAP", 64)
    path = tmp_path / "m.jsonl"
    path.write_bytes(hello(0) + b"x" * (64 + extra))
    tail, fed = tail_of(path)
    assert _read_new(tail) and len(fed.records) == 1
    assert not _read_new(tail) and tail.broken == "a line longer than 64 bytes"
    assert len(fed.records) == 1 and tail.offset == len(hello(0))


def test_text_that_is_not_utf8_stops_the_reading(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    path.write_bytes(hello(0) + b"\xff\xfe\n")
    tail, fed = tail_of(path)
    assert not _read_new(tail) and tail.broken == "not UTF-8 text" and fed.records == []


def test_a_log_that_is_a_link_or_is_gone_is_not_read(tmp_path: Path) -> None:
    real = tmp_path / "real.jsonl"
    real.write_bytes(hello(0))
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    for path in (link, tmp_path / "gone.jsonl"):
        tail, fed = tail_of(path)
        assert not _read_new(tail) and fed.records == [] and tail.offset == 0


def test_a_log_that_is_not_utf8_shows_what_came_before_and_nothing_after(
    duel: Tournament,
) -> None:
    # The referee writes UTF-8: a log that is not is not its log any more, and nothing
    # further of it is taken for a record.
    duel.log("ann.bob.001")
    duel.grow("ann.bob.001", 8)
    watch = watching(duel)
    before = watch.state()
    with duel.path("ann.bob.001").open("ab") as handle:
        handle.write(b'{"type": "\xff"}\n')
    assert not watch.poll()  # nothing a spectator sees has changed
    duel.grow("ann.bob.001", 20)
    assert not watch.poll() and watch.state() is before
    watch.close()


def test_a_log_with_nothing_new_changes_nothing(duel: Tournament) -> None:
    duel.log("ann.bob.001")
    duel.grow("ann.bob.001", 10)
    watch = watching(duel)
    before = watch.state()
    for _ in range(2):
        assert not watch.poll() and watch.state() is before
    watch.close()


def test_a_log_replaced_by_another_file_is_read_from_its_start(duel: Tournament) -> None:
    # A new run starts the match again in a new file of the same name, longer than what was
    # read of the old one: its view is the new file's alone.
    duel.log("ann.bob.001")
    duel.grow("ann.bob.001", 10)
    watch = watching(duel)
    path = duel.path("ann.bob.001")
    replay = path.parent / "new.tmp"
    s = duel.schedule["ann.bob.001"]
    two_player_log(replay, RULES, seed=s.seed, choices=5, labels=("ann", "bob"))
    lines = replay.read_text().splitlines(keepends=True)[:40]
    replay.write_text("".join(lines))
    assert replay.stat().st_size > path.stat().st_size
    os.replace(replay, path)
    assert watch.poll()
    (entry,) = watch.state()["live"]
    assert entry["view"] == spectator_view([json.loads(line) for line in lines])
    # Started over once more, nothing written yet: nothing to show until its header is.
    replay.write_text("")
    os.replace(replay, path)
    assert watch.poll() and watch.state()["live"] == []
    watch.close()


def test_a_stall_is_news_though_nobody_asked_for_the_state(duel: Tournament) -> None:
    duel.log("ann.bob.001")
    now = [1000.0]
    watch = TournamentWatch(duel.directory, clock=lambda: now[0])
    watch.open()
    assert watch.poll()
    now[0] += STALL_S + 1.0
    assert watch.poll()  # the state was not asked for in between
    assert not watch.poll()  # said once
    assert [e["stalled"] for e in watch.state()["live"]] == [True]
    watch.close()


def test_the_last_views_of_the_latest_finished_matches_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(watch_module, "KEPT_VIEWS", 2)
    schedule = [
        spec("ann.bob.001", 0, ("ann", "bob"), 11),
        spec("ann.bob.002", 1, ("bob", "ann"), 12, 2),
        spec("ann.bob.003", 2, ("ann", "bob"), 13, 3),
    ]
    t = Tournament(tmp_path / "t", schedule)
    for key in t.schedule:
        t.log(key)
        t.grow(key, 10)
    watch = watching(t)
    for key in t.schedule:
        t.finish(key)
        watch.poll()
    ids = {key: json.loads(t.lines[key][0])["match_id"] for key in t.schedule}
    kept = watch.matches()
    assert set(kept) == {ids["ann.bob.002"], ids["ann.bob.003"]}
    for key in ("ann.bob.002", "ann.bob.003"):
        whole = [json.loads(line) for line in t.lines[key]]
        assert kept[ids[key]]["view"] == spectator_view(whole)
    watch.close()
    t.journal.close()


# --- the server -------------------------------------------------------------------------------


@pytest.fixture
def served(duel: Tournament) -> Iterator[tuple[LiveView, Tournament]]:
    duel.log("ann.bob.001")
    duel.grow("ann.bob.001", 30)
    view = LiveView(
        duel.directory,
        port=0,
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
    view = LiveView(t.directory, port=0, interval=0.05)
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
    return exchange(view.address, data, DEADLINE_S)


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
        LiveView(tmp_path, port=0).start()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(Exception, match=f"cannot serve the live page on 127.0.0.1:{port}"):
            LiveView(duel.directory, port=port).start()


def test_stop_ends_the_threads_and_frees_the_port(duel: Tournament) -> None:
    view = LiveView(duel.directory, port=0, interval=0.05)
    with view:
        host, port = view.address
        assert get(view, "/api/state")[0] == 200
    assert not view._threads
    with LiveView(duel.directory, host, port, interval=0.05) as again:  # the port is free again
        assert get(again, "/")[0] == 200
