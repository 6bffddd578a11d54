"""``ginref tournament`` of three players and of partnerships, end to end: the Python sample bots,
sandboxed, on the real referee; the journal against the logs, the seats the schedule said, the
standings of bots and of teams; and a run killed with SIGKILL that resumes playing nothing twice.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from tests.support.referee_helpers import ROOT, TESTBOT
from tests.tournaments.test_e2e import check_journal_matches_disk
from tests.tournaments.test_kill import committed
from tournaments.journal.store import JOURNAL_FILE, open_journal
from tournaments.results.standings import load_standings
from tournaments.schedule import MatchSpec

pytestmark = pytest.mark.slow  # real tournaments of real bot processes

GREEDY = "{python} -m sample_bots.greedy_bot"
RANDOM = "{python} -m sample_bots.random_bot"
BOUND = 300.0  # seconds: far above what any run here needs


def write(
    tmp_path: Path, head: str, bots: list[tuple[str, str, int | None]], tail: str = ""
) -> Path:
    text = f'name = "t"\nseed = 17\n{head}\n[faults]\nexit_grace = 0.5\nkill_grace = 0.5\n'
    for name, command, seed in bots:
        text += f'\n[[bots]]\nname = "{name}"\ncommand = "{command}"\n'
        if seed is not None:
            text += f'env = {{ GINREF_BOT_SEED = "{seed}" }}\n'
    path = tmp_path / "t.toml"
    path.write_text(text + tail)
    return path


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def schedule_of(out: Path) -> list[MatchSpec]:
    journal = open_journal(out, create=False)
    try:
        return journal.schedule()
    finally:
        journal.close()


def header_seats(log: Path) -> tuple[str, ...]:
    header = json.loads(log.read_text().splitlines()[0])
    return tuple(b["label"] for b in sorted(header["bots"], key=lambda b: b["seat"]))


def test_three_bots_play_every_seat_and_rank_by_their_places(tmp_path: Path) -> None:
    out = tmp_path / "three"
    bots = [("greedy", GREEDY, None), ("random-a", RANDOM, 1), ("random-b", RANDOM, 2)]
    head = 'matches = 2\nprocesses = "keep"\n[rules]\nplayers = 3\n[rules.set]\ntarget = 40'
    file = write(tmp_path, head, bots)
    code, text = run("tournament", str(file), "--out", str(out), "-j", "2")
    assert code == 0, text
    assert "Tournament complete: 6 of 6 matches" in text
    records = check_journal_matches_disk(out)
    specs = {s.key: s for s in schedule_of(out)}
    for r in records:
        # The referee seated the bots where the schedule said, and the log says so too.
        assert r.seats == specs[r.key].seats == header_seats(out / r.log_path)
        assert len(r.final) == 3 and len(r.decisions) == 3 and sorted(r.placings)[0] == 1
        if r.winner is not None:
            assert r.placings[r.winner] == 1 and r.placings.count(1) == 1
        assert all(h.seats[0] != h.seats[1] for h in r.hands)
    assert set(Counter((b, k) for r in records for k, b in enumerate(r.seats)).values()) == {2}
    standings = load_standings(out)
    assert standings.players == 3
    by = {s.name: s for s in standings.bots}
    assert all(s.matches == 6 and s.games == 12 for s in by.values())
    assert sum(s.points for s in by.values()) == 18  # three results a match, 1 point each
    assert sum(s.firsts for s in by.values()) == sum(r.winner is not None for r in records)
    for (a, b), h in standings.head_to_head.items():
        mirror = standings.head_to_head[(b, a)]
        assert (h.wins, h.draws, h.losses) == (mirror.losses, mirror.draws, mirror.wins)
        assert h.matches == 6
    assert "Three players: W-D-L and points count one result" in text
    data = json.loads((out / "standings.json").read_text())
    assert {b["name"]: b["games"] for b in data["bots"]} == dict.fromkeys(by, 12)
    page = (out / "report.html").read_text()
    assert page.count("<th>Seat 2</th>") == 1 and page.count("greedy.random-a.random-b.0") == 6
    assert page.count('">replay</a>') == 6 and len(list((out / "replays").glob("*.html"))) == 6
    code, verified = run("verify", str(out))
    assert code == 0, verified
    assert "the journal agrees with the logs" in verified
    # A journal whose places were changed no longer agrees with the logs, and verify says where.
    db = sqlite3.connect(out / JOURNAL_FILE)
    with db:
        db.execute("UPDATE matches SET placings = '[3, 2, 1]' WHERE key = ?", (records[0].key,))
    db.close()
    code, verified = run("verify", str(out))
    assert code == 1
    (line,) = [x for x in verified.splitlines() if x.startswith("DIFFERS")]
    assert f"match {records[0].key} " in line
    assert f"placings: the journal says (3, 2, 1), the log {records[0].placings}" in line


def test_two_teams_swap_sides_and_are_ranked_as_teams(tmp_path: Path) -> None:
    out = tmp_path / "teams"
    teams = (
        '\n[[teams]]\nname = "greedies"\nbots = ["greedy", "greedy"]\n'
        '\n[[teams]]\nname = "randoms"\nbots = ["random", "random"]\n'
    )
    head = 'matches = 2\nprocesses = "keep"\n[rules]\nplayers = 4\n[rules.set]\ntarget = 60'
    file = write(tmp_path, head, [("greedy", GREEDY, None), ("random", RANDOM, 3)], teams)
    code, text = run("tournament", str(file), "--out", str(out), "-j", "1")
    assert code == 0, text
    assert "Tournament complete: 4 of 4 matches" in text
    records = check_journal_matches_disk(out)
    assert [r.sides for r in records] == [("greedies", "randoms"), ("randoms", "greedies")] * 2
    for r in records:
        assert r.seats == header_seats(out / r.log_path)
        side0 = "greedy" if r.sides == ("greedies", "randoms") else "random"
        assert r.seats[0] == r.seats[2] == side0 and len(r.final) == 2
        assert {h.table for h in r.hands} <= {0, 1}
    standings = load_standings(out)
    assert standings.teams is not None
    teams_by = {t.name: t for t in standings.teams.bots}
    g, rnd = teams_by["greedies"], teams_by["randoms"]
    assert g.matches == rnd.matches == 4
    assert (g.wins, g.draws, g.losses) == (rnd.losses, rnd.draws, rnd.wins)
    assert g.wins == sum(r.winner_bot == "greedies" for r in records)
    bots = {s.name: s for s in standings.bots}
    # Each bot sits in both seats of its team, and meets the other bot once a match.
    assert bots["greedy"].matches == 4 and bots["greedy"].games == 4
    assert bots["greedy"].wins == g.wins and bots["greedy"].firsts == g.wins
    assert "Teams (greedies: greedy + greedy; randoms: random + random)" in text
    page = (out / "report.html").read_text()
    assert 'id="teams"' in page and page.count('">replay</a>') == 4
    code, verified = run("verify", str(out))
    assert code == 0, verified


def test_a_killed_three_player_run_resumes_and_plays_nothing_twice(tmp_path: Path) -> None:
    out = tmp_path / "kill"
    play, first = f"{{python}} {TESTBOT} play", f"{{python}} {TESTBOT} first"
    bots = [("play", play, None), ("first", first, None), ("again", play, None)]
    file = write(tmp_path, "matches = 4\n[rules]\nplayers = 3", bots)
    argv = [sys.executable, "-m", "ginref.cli", "tournament", str(file), "--out", str(out)]
    proc = subprocess.Popen(
        [*argv, "-j", "1", "-q"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    began = time.monotonic()
    while committed(out) < 3:  # the journal, not the clock, says when to kill
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() - began < BOUND
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=BOUND)
    journal = open_journal(out, create=False)
    try:
        done = [r.key for r in journal.records()]
    finally:
        journal.close()
    assert 3 <= len(done) < 12 and len(set(done)) == len(done)
    again = subprocess.run(
        [*argv, "-j", "2"], cwd=ROOT, capture_output=True, text=True, timeout=BOUND
    )
    assert again.returncode == 0, again.stderr
    assert f"this run played {12 - len(done)} " in again.stdout
    records = check_journal_matches_disk(out)
    assert len(records) == 12 and [r.key for r in records if r.key in done] == done
    code, verified = run("verify", str(out))
    assert code == 0, verified
