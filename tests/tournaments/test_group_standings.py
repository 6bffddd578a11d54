"""Standings of three players and of partnerships from hand-made outcomes: pairwise results from
the placings (teammates never compared), the teams' own standings, the journal's rows of such
matches (and a version 1 journal read and upgraded), and the reports that show them."""

from __future__ import annotations

import dataclasses
import json
import random
import sqlite3
from pathlib import Path

import pytest

from referee.engine.actions import BigGin, Discard, Knock
from referee.engine.group import GroupMatch
from referee.engine.melds import deadwood_by_discard
from referee.engine.rules import Rules
from referee.results import MatchOutcome, SeatInfo
from tests.tournaments.test_config import record
from tournaments.file.config import parse_text
from tournaments.journal.records import FaultRow, Forfeit, HandRow, MatchRecord, record_from_outcome
from tournaments.journal.rows import SCHEMA
from tournaments.journal.store import JOURNAL_FILE, SCHEMA_VERSION, JournalError, open_journal
from tournaments.outputs.console import format_standings, match_summary
from tournaments.outputs.web_page import render_report
from tournaments.results.standings import (
    compute_standings,
    standings_json,
    team_view,
    write_standings,
)
from tournaments.runner import TournamentRunner
from tournaments.schedule import MatchSpec
from tournaments.teams import TeamEntry


def played(rules: Rules, seed: int, forfeit: tuple[int, ...] = (), after: int = 0) -> GroupMatch:
    """A group match played to its end by eager seats (they knock whenever they may and keep
    their deadwood low); ``forfeit`` seats forfeit after ``after`` decisions."""
    match = GroupMatch(rules, seed)
    rng = random.Random(seed)
    decisions = 0
    while match.result is None:
        if forfeit and decisions == after:
            match.forfeit(forfeit, "R11.5", "crashed")
            break
        actions = match.legal_actions()
        knocks = [a for a in actions if isinstance(a, Knock | BigGin)]
        discards = [a for a in actions if isinstance(a, Discard)]
        if knocks:
            action = knocks[0]
        elif discards:
            seat = match.table.play.to_act
            assert seat is not None
            dw = deadwood_by_discard(match.hand.held(seat))
            action = min(discards, key=lambda a: (dw[a.card], rng.random()))
        else:
            action = rng.choice(actions)
        match.apply(action)
        decisions += 1
    return match


def outcome_of(match: GroupMatch, labels: tuple[str, ...], tmp_path: Path) -> MatchOutcome:
    """The referee's outcome of ``match`` as the bots ``labels`` played it (a hand-made one)."""
    assert match.result is not None
    log = tmp_path / "m.jsonl"
    log.write_text("{}\n")
    n = len(labels)
    return MatchOutcome(
        match_id="m1",
        log_path=log,
        rules=match.rules,
        seed=match.seed,
        seats=tuple(SeatInfo(b, ("prog",), b, "1", tmp_path / f"{b}.log") for b in labels),  # type: ignore[arg-type]
        result=match.result,
        hand_results=tuple(match.hand_results),
        forfeit=None,
        faults=(),
        decisions=10 * n,
        elapsed=1.0,
        hands_played=match.hands_dealt,
        seat_decisions=tuple(range(10, 10 + n)),  # type: ignore[arg-type]
        seat_think_ms=tuple(float(k) for k in range(n)),  # type: ignore[arg-type]
        log_sha256="0" * 64,
        log_bytes=4,
        created="2026-01-01T00:00:00Z",
    )


def spec_of(seats: tuple[str, ...], seed: int, sides: tuple[str, str] | None = None) -> MatchSpec:
    group = sides or tuple(sorted(seats))
    return MatchSpec(".".join(group) + ".001", 0, 1, group, 1, 1, seed, seats, sides)


THREE = Rules.profile("standard", players=3, target=40)
FOUR = Rules.profile("standard", players=4, target=40)


def test_a_three_player_match_gives_each_bot_a_result_against_each_other(tmp_path: Path) -> None:
    match = played(THREE, 11)
    result = match.result
    assert result is not None and result.winner is not None
    rec = record_from_outcome(
        outcome_of(match, ("a", "b", "c"), tmp_path), spec_of(("a", "b", "c"), 11), tmp_path
    )
    assert rec.placings == result.placings(3) and rec.final == result.final
    assert len(rec.final) == 3 and rec.decisions == (10, 11, 12)
    # Hands keep the match seats that played them: the dealer's seat sat out.
    assert {h.seats for h in rec.hands} <= {(1, 2), (2, 0), (0, 1), (2, 1), (0, 2), (1, 0)}
    s = compute_standings("t", ["a", "b", "c"], [rec], 1)
    by = {x.name: x for x in s.bots}
    winner = "abc"[result.winner]
    assert by[winner].wins == 2 and by[winner].firsts == 1 and by[winner].rank == 1
    assert sum(x.games for x in s.bots) == 6  # three pairs, each counted for both bots
    assert sum(x.points for x in s.bots) == 3
    for x in s.bots:
        seat = "abc".index(x.name)
        assert x.matches == 1 and x.games == 2
        assert x.score_for == result.final[seat]
        assert x.score_against == max(f for k, f in enumerate(result.final) if k != seat)
        # A bot counts the hands it played, not the ones it sat out.
        assert x.hands == sum(1 for h in rec.hands if seat in h.seats)
        assert x.hands_won == sum(
            1 for h in rec.hands if h.winner is not None and h.seats[h.winner] == seat
        )
    for a in "abc":
        for b in "abc":
            if a != b:
                h = s.head_to_head[(a, b)]
                pa, pb = rec.place("abc".index(a)), rec.place("abc".index(b))
                assert (h.wins, h.draws, h.losses) == (int(pa < pb), int(pa == pb), int(pa > pb))


def test_placings_decide_three_player_results_and_forfeits_place_last() -> None:
    # a wins, b and c level on points: b and c draw, both lose to a.
    level = record("a.b.c.001", ("a", "b", "c"), 0, (100, 40, 40))
    level = _with(level, placings=(1, 2, 2))
    # c forfeits: it places last, a and b are not beaten by each other (no winner).
    crash = Forfeit(1, "crashed", "R11.5", "exit 3", (1,))
    gone = _with(
        record("a.b.c.002", ("b", "c", "a"), None, (10, 30, 20), forfeit=crash),
        placings=(1, 3, 1),
        faults=(FaultRow(1, "crashed", "R11.5", "exit 3", False, 1),),
    )
    # Two seats forfeit: a loss for each of them against the other, unrated; both lose to b.
    both = Forfeit(None, "not_connected", "R11.5", "never connected", (0, 2))
    two = _with(
        record("a.b.c.003", ("c", "b", "a"), 1, (0, 0, 0), forfeit=both), placings=(2, 1, 2)
    )
    s = compute_standings("t", ["a", "b", "c"], [level, gone, two], 3, ratings=False)
    by = {x.name: x for x in s.bots}
    assert (by["a"].wins, by["a"].draws, by["a"].losses) == (3, 1, 2)
    assert (by["b"].wins, by["b"].draws, by["b"].losses) == (3, 2, 1)
    assert (by["c"].wins, by["c"].draws, by["c"].losses) == (0, 1, 5)
    assert s.head_to_head[("a", "c")].losses == 1 and s.head_to_head[("c", "a")].losses == 3
    assert (by["a"].forfeits, by["b"].forfeits, by["c"].forfeits) == (1, 0, 2)
    assert by["c"].faults["crashed"] == 1 and by["a"].fault_total == 0
    assert (by["a"].firsts, by["b"].firsts, by["c"].firsts) == (1, 1, 0)
    assert [x.name for x in s.bots] == ["b", "a", "c"]
    text = format_standings(s)
    assert "Three players: W-D-L and points count one result" in text
    assert text.splitlines()[2].split()[:4] == ["#", "Bot", "Played", "Won"]
    assert match_summary(gone) == "b v c v a 10-30-20, no winner, forfeit: c crashed"


def _with(rec: MatchRecord, **changes: object) -> MatchRecord:
    """``rec`` changed; its decisions and times one per seat, unless given."""
    n = len(changes.get("seats", rec.seats))  # type: ignore[arg-type]
    changes.setdefault("decisions", tuple(range(10, 10 + n)))
    changes.setdefault("think_ms", tuple(float(k) for k in range(n)))
    return dataclasses.replace(rec, **changes)  # type: ignore[arg-type]


TEAMS = [TeamEntry("x", ("a", "b")), TeamEntry("y", ("c", "c"))]


def test_partnerships_rank_bots_by_their_teams_results_and_the_teams_themselves(
    tmp_path: Path,
) -> None:
    records = []
    for k, (sides, seats) in enumerate(
        [(("x", "y"), ("a", "c", "b", "c")), (("y", "x"), ("c", "a", "c", "b"))]
    ):
        match = played(FOUR, 20 + k)
        outcome = outcome_of(match, seats, tmp_path)
        spec = MatchSpec(f"x.y.00{k + 1}", k, 1, ("x", "y"), k + 1, k + 1, 20 + k, seats, sides)
        records.append(record_from_outcome(outcome, spec, tmp_path))
    s = compute_standings("t", ["a", "b", "c"], records, 2, teams=TEAMS)
    assert s.players == 4 and s.teams is not None
    teams = {t.name: t for t in s.teams.bots}
    by = {x.name: x for x in s.bots}
    for r in records:
        assert r.sides is not None and len(r.final) == 2  # by team
    x_won = sum(r.winner_bot == "x" for r in records)
    y_won = sum(r.winner_bot == "y" for r in records)
    assert (teams["x"].wins, teams["y"].wins) == (x_won, y_won)
    assert teams["x"].matches == 2 and teams["x"].games == 2
    # a and b each meet c once a match (c plays both seats of its team): never each other.
    assert ("a", "b") not in {k for k, h in s.head_to_head.items() if h.matches}
    assert by["a"].games == by["b"].games == 2 and by["c"].games == 4
    # c sits in two seats of each match, and counts each match once.
    assert by["a"].matches == by["c"].matches == 2
    assert by["a"].wins == by["b"].wins == x_won and by["c"].wins == 2 * y_won
    assert by["a"].firsts == x_won and by["c"].firsts == y_won
    # The team's hands are both tables' hands; each bot's are its own table's.
    assert teams["x"].hands == sum(len(r.hands) for r in records)
    assert by["a"].hands + by["b"].hands == teams["x"].hands
    assert teams["x"].hand_points_for == by["a"].hand_points_for + by["b"].hand_points_for
    x_seats = [(r, k) for r in records for k in range(4) if r.seats[k] in ("a", "b")]
    assert teams["x"].decisions == sum(r.decisions[k] for r, k in x_seats)
    text = format_standings(s)
    assert "Teams (x: a + b; y: c + c)" in text and "Teams head to head" in text
    assert "Partnerships: W-D-L and points count one result" in text
    page = render_report(s, records, {}, {})
    assert 'id="teams"' in page and 'id="team-crosstable"' in page
    assert "<th>Seat 3</th>" in page and "<th>Teams</th>" in page
    # Match, Teams, Seat 0 to 3, then the result: its column is aligned left as the others'.
    assert "#matches :is(td, th):nth-child(7) { text-align: left; }" in page
    written = write_standings(tmp_path, s)
    assert [p.name for p in written][-1] == "teams.csv"
    assert (tmp_path / "teams.csv").read_text().splitlines()[1].split(",")[1] in ("x", "y")
    data = json.loads(standings_json(s))
    assert data["players"] == 4 and data["teams"]["members"] == {"x": ["a", "b"], "y": ["c", "c"]}
    assert {t["name"]: t["wins"] for t in data["teams"]["bots"]} == {"x": x_won, "y": y_won}
    line = match_summary(records[0])
    assert line.startswith("x (a, b) v y (c, c) ")


def test_a_team_view_charges_a_forfeit_and_faults_to_the_team() -> None:
    crash = Forfeit(2, "crashed", "R11.5", "exit 3", (2,))
    rec = _with(
        record("x.y.001", ("a", "c", "b", "d"), 1, (30, 50), forfeit=crash),
        placings=(2, 1, 2, 1),
        sides=("x", "y"),
        decisions=(1, 2, 3, 4),
        think_ms=(1.0, 2.0, 3.0, 4.0),
        faults=(FaultRow(2, "crashed", "R11.5", "exit 3", False, 1),),
        hands=(
            HandRow(1, 1, "knock", 0, 20, 0, (0, 1), 0),
            HandRow(2, 0, "gin", 1, 30, 1, (2, 3), 1),
        ),
    )
    view = team_view(rec)
    assert view.seats == ("x", "y") and view.sides is None
    assert view.decisions == (4, 6) and view.think_ms == (4.0, 6.0)
    assert view.forfeit is not None and view.forfeit.seat == 0 and view.forfeit.charged(0)
    assert [f.seat for f in view.faults] == [0]
    assert [h.seats for h in view.hands] == [(0, 1), (0, 1)]
    s = compute_standings("t", ["x", "y"], [view], 1, ratings=False)
    x = next(t for t in s.bots if t.name == "x")
    assert (x.losses, x.forfeits, x.hands_won, x.hand_points_for, x.hand_points_against) == (
        1, 1, 1, 20, 30,
    )  # fmt: skip
    bots = compute_standings("t", list("abcd"), [rec], 1, ratings=False)
    b = next(t for t in bots.bots if t.name == "b")
    a = next(t for t in bots.bots if t.name == "a")
    assert (b.forfeits, a.forfeits) == (1, 0)  # the bot at fault, not its partner
    assert (a.losses, b.losses) == (2, 2)


def test_ratings_of_many_players_come_with_a_note_on_their_intervals() -> None:
    records = [
        _with(record(f"a.b.c.00{k}", seats, 0, (100, 10, 20)), placings=(1, 3, 2))
        for k, seats in enumerate([("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")] * 2)
    ]
    s = compute_standings("t", ["a", "b", "c"], records, 6)
    assert all(x.elo is not None for x in s.bots)
    assert "not independent" in s.rating_note
    two = compute_standings("t", ["a", "b"], [record("a.b.001", ("a", "b"), 0, (100, 0))], 1)
    assert "not independent" not in two.rating_note


# --- the journal ------------------------------------------------------------------------------


def test_group_matches_go_into_the_journal_and_come_back_the_same(tmp_path: Path) -> None:
    three = record_from_outcome(
        outcome_of(played(THREE, 5), ("b", "c", "a"), tmp_path),
        MatchSpec("a.b.c.001", 0, 1, ("a", "b", "c"), 1, 1, 5, ("b", "c", "a")),
        tmp_path,
    )
    four = record_from_outcome(
        outcome_of(played(FOUR, 6, forfeit=(3,), after=7), ("a", "c", "b", "c"), tmp_path),
        MatchSpec("x.y.001", 0, 1, ("x", "y"), 1, 1, 6, ("a", "c", "b", "c"), ("x", "y")),
        tmp_path,
    )
    assert four.forfeit is not None and four.forfeit.seats == (3,) and four.winner == 0
    for rec, teams, spec in (
        (three, [], MatchSpec("a.b.c.001", 0, 1, ("a", "b", "c"), 1, 1, 5, ("b", "c", "a"))),
        (
            four,
            [t.to_dict() for t in TEAMS],
            MatchSpec("x.y.001", 0, 1, ("x", "y"), 1, 1, 6, ("a", "c", "b", "c"), ("x", "y")),
        ),
    ):
        out = tmp_path / rec.key
        out.mkdir()
        journal = open_journal(out)
        bots = [{"name": b, "command": ["p"], "cwd": None, "env": {}} for b in "abc"]
        journal.initialise({"seed": 1}, {}, bots, [spec], teams)
        session = journal.start_session(1)
        journal.commit_match(rec, session)
        assert journal.schedule() == [spec]
        assert journal.records() == [rec]
        assert journal.team_names() == [t["name"] for t in teams]
        journal.close()
    db = sqlite3.connect(tmp_path / "x.y.001" / JOURNAL_FILE)
    row = db.execute("SELECT winner, score0, score1, seat3, side0, forfeit_seats FROM matches")
    assert row.fetchone() == ("x", four.final[0], four.final[1], "c", "x", "[3]")


def test_a_version_1_journal_is_read_as_it_is_and_upgraded_when_a_run_opens_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / JOURNAL_FILE
    db = sqlite3.connect(path, isolation_level=None)
    for statement in SCHEMA.split(";"):
        if statement.strip():
            db.execute(statement)
    db.execute("PRAGMA user_version = 1")
    db.execute("INSERT INTO meta VALUES ('identity', ?)", (json.dumps({"seed": 1}),))
    for k, bot in enumerate("ab"):
        db.execute("INSERT INTO bots VALUES (?, ?, '[]', NULL, '{}')", (bot, k))
    db.execute("INSERT INTO schedule VALUES ('a.b.001', 0, 1, 'a', 'b', 1, 1, 7, 'b', 'a')")
    db.execute("INSERT INTO sessions (started, status, concurrency) VALUES ('x', 'complete', 1)")
    db.execute(
        "INSERT INTO matches VALUES ('a.b.001', 1, 'm', 'b', 'a', 7, 1, 'target', 1, 'a', 40, "
        "100, 60, 3, NULL, NULL, NULL, NULL, 5, 6, 1.5, 2.5, NULL, 1.0, 's', 'c', 'l', 'h', 1)"
    )
    db.execute("INSERT INTO hands VALUES ('a.b.001', 1, 0, 'gin', 1, 100, 1)")
    db.close()
    reader = open_journal(tmp_path, create=False)
    (rec,) = reader.records()
    assert reader.schedule()[0].pairing == ("a", "b") and reader.team_names() == []
    reader.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 1  # untouched
    assert rec.seats == ("b", "a") and rec.final == (40, 100) and rec.winner_bot == "a"
    assert rec.placings == () and rec.place(1) == 1 and rec.place(0) == 2
    assert rec.hands == (HandRow(1, 0, "gin", 1, 100, 1),)
    # A run of another tournament in its directory is refused, and leaves it as it was.
    bots = "".join(f'[[bots]]\nname = "{b}"\ncommand = "p"\n' for b in "ab")
    other = parse_text("seed = 2\n" + bots, "t.toml", tmp_path)
    with pytest.raises(JournalError, match="belongs to a different tournament"):
        TournamentRunner(other, tmp_path)
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 1
    writer = open_journal(tmp_path)  # a run resuming it, once its identity agrees
    assert writer.records() == [rec] and writer.version == 1
    writer.upgrade()
    assert writer.records() == [rec]
    writer.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
    columns = {r[1] for r in db.execute("PRAGMA table_info(matches)")}
    assert {"placings", "seat3", "side0"} <= columns
    assert db.execute("SELECT count(*) FROM teams").fetchone() == (0,)


def test_the_leader_of_a_run_counts_results_as_the_standings_do(tmp_path: Path) -> None:
    bots = "".join(f'[[bots]]\nname = "{b}"\ncommand = "p"\n' for b in "abc")
    config = parse_text("[rules]\nplayers = 3\n" + bots, "t.toml", tmp_path)
    runner = TournamentRunner(config, tmp_path / "out")
    try:
        level = _with(record("a.b.c.001", ("c", "b", "a"), 0, (100, 40, 40)), placings=(1, 2, 2))
        assert [(i, j, score) for i, j, score in level.pairs()] == [
            (0, 1, 1.0), (0, 2, 1.0), (1, 2, 0.5),
        ]  # fmt: skip
        runner._tally(level)
        assert runner.leader() == ("c", 2.0, 2)
        assert (runner.points["a"], runner.games["a"]) == (0.5, 2)
    finally:
        runner.close()
    # A team of one bot twice meets the other team's bot once, not twice.
    team = _with(
        level, seats=("a", "b", "a", "b"), final=(100, 40), placings=(1, 2, 1, 2), sides=("x", "y")
    )
    assert team.pairs() == [(0, 1, 1.0)]
