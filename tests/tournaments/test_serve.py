"""``ginref serve`` as an organiser runs it: the real command in a subprocess, a TLS listener on
127.0.0.1 with certificates made by openssl, and remote bots started by the test (not by the
referee) with their tokens: a whole tournament of remote and local bots, a bot that drops out of
a match and comes back, a bot that never comes, one that leaves for good, one whose token is
revoked, and a referee killed with SIGKILL and resumed.

Synchronisation is on what the command prints, on the journal and on the bots' exits, never on
sleeps; the only deadlines are bounds far above what the work needs (and the absence wait, in the
tests of a bot that never connects or leaves, where nothing races it).
"""

from __future__ import annotations

import itertools
import json
import re
import signal
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ginref.cli import main
from tests.support.certs import Certificates
from tests.support.referee_helpers import TESTBOT
from tests.support.serve_helpers import (
    BOUND,
    GREEDY,
    Serve,
    issue,
    journal_rows,
    records_of,
    remote_bot,
    until,
    write_file,
)
from tournaments.journal.store import JOURNAL_FILE, open_journal

pytestmark = pytest.mark.slow  # real referees and real bot processes


def verify(out: Path) -> None:
    result = CliRunner().invoke(main, ["verify", str(out)])
    assert result.exit_code == 0, result.output


def test_a_tournament_of_remote_and_local_bots(tmp_path: Path, certs: Certificates) -> None:
    file = write_file(tmp_path, certs, ["alice", "bob"])
    tokens = issue(file)
    serve = Serve(file, tmp_path)
    alice = remote_bot(serve, tokens["alice"], certs, tmp_path, "alice", GINREF_MATCHES="2")
    bob = remote_bot(serve, tokens["bob"], certs, tmp_path, "bob")
    assert serve.wait() == 0, serve.err.read_text()
    # The referee ended their streams when the competition was over: both exit cleanly.
    assert alice.wait(BOUND) == 0 and bob.wait(BOUND) == 0
    out = tmp_path / "out"
    journal = open_journal(out)
    try:
        records = list(journal.records())
        assert len(records) == len(journal.schedule()) == 6  # 3 pairings, 2 matches each
        assert not [f for r in records for f in r.faults]
    finally:
        journal.close()
    logs = sorted((out / "logs").rglob("*.jsonl"))
    assert len(logs) == 6
    for log in logs:
        text = log.read_text()
        # The remote bots' seats: no command (nothing was launched), and connected.
        assert text.count('"command":[]') == (2 if "alice.bob" in str(log) else 1)
        assert text.count('"type":"connected"') == 2
    # Bob's one stream played all his matches, its request ids going on from match to match
    # (a late reply to an earlier match can never answer a later one).
    firsts = []
    for log in logs:
        lines = [json.loads(line) for line in log.read_text().splitlines()]
        header = lines[0]
        seat = next((b["seat"] for b in header["bots"] if b["label"] == "bob"), None)
        if seat is None:
            continue
        ids = [r["request_id"] for r in lines if r["type"] == "decision" and r["seat"] == seat]
        assert ids == sorted(ids)
        firsts.append((header["created"], ids[0], ids[-1]))
    firsts.sort()
    assert len(firsts) == 4 and firsts[0][1] == 1
    assert all(later[1] > earlier[2] for earlier, later in itertools.pairwise(firsts))
    verify(out)
    standings = (out / "standings.csv").read_text()
    assert all(name in standings for name in ("alice", "bob", "local"))


def test_a_bot_that_drops_out_forfeits_that_match_and_plays_on_after_reconnecting(
    tmp_path: Path, certs: Certificates
) -> None:
    file = write_file(tmp_path, certs, ["alice"], extra="absent_wait = 120")
    tokens = issue(file)
    serve = Serve(file, tmp_path)
    crash = [sys.executable, str(TESTBOT), "crash", "3"]
    first = remote_bot(serve, tokens["alice"], certs, tmp_path, "alice1", crash)
    assert first.wait(BOUND) == 3  # it left in the middle of its first match
    second = remote_bot(serve, tokens["alice"], certs, tmp_path, "alice2", GREEDY)
    assert serve.wait() == 0, serve.err.read_text()
    assert second.wait(BOUND) == 0
    out = tmp_path / "out"
    journal = open_journal(out)
    try:
        records = sorted(journal.records(), key=lambda r: r.key)
    finally:
        journal.close()
    assert len(records) == 2
    faults = [f for r in records for f in r.faults]
    assert [f.kind for f in faults] == ["disconnected"]
    dropped = next(r for r in records if r.faults)
    assert dropped.winner is not None and dropped.seats[dropped.winner] == "local"
    played = next(r for r in records if not r.faults)
    assert played.hands_played > 0
    verify(out)


def test_a_bot_that_never_comes_forfeits_after_the_absence_wait(
    tmp_path: Path, certs: Certificates
) -> None:
    file = write_file(tmp_path, certs, ["alice", "ghost"], extra="absent_wait = 1")
    tokens = issue(file)
    serve = Serve(file, tmp_path)
    alice = remote_bot(serve, tokens["alice"], certs, tmp_path, "alice")
    assert serve.wait() == 3, serve.err.read_text()  # 3: bots never connected
    assert alice.wait(BOUND) == 0
    journal = open_journal(tmp_path / "out")
    try:
        records = list(journal.records())
    finally:
        journal.close()
    assert len(records) == 6
    for record in records:
        kinds = [f.kind for f in record.faults]
        if "ghost" in record.seats:
            assert kinds == ["not_connected"]
            assert "absent_wait" in record.faults[0].reason
        else:
            assert kinds == []
    # The warning says what became of it, in words.
    assert "ghost never came (4 forfeited)" in " ".join(serve.err.read_text().split())


def test_a_bot_that_leaves_is_waited_for_once_not_once_per_match(
    tmp_path: Path, certs: Certificates
) -> None:
    wait = 20.0
    file = write_file(tmp_path, certs, ["bob"], extra=f"absent_wait = {wait:g}")
    text = file.read_text().replace("matches = 2", "matches = 5")
    file.write_text(text.replace("concurrency = 2", "concurrency = 1"))
    tokens = issue(file)
    serve = Serve(file, tmp_path)
    leave = [sys.executable, str(TESTBOT), "leave", "2"]
    bob = remote_bot(serve, tokens["bob"], certs, tmp_path, "bob", leave)
    assert bob.wait(BOUND) == 3  # it played its first match and left at its second's start
    left = time.monotonic()
    assert serve.wait() == 3, serve.err.read_text()
    # One absence wait for its three remaining matches: waiting for each would need 3 x 20 s.
    assert time.monotonic() - left < 2 * wait
    records = records_of(tmp_path / "out")
    kinds = [[f.kind for f in r.faults] for r in records]
    assert kinds.count([]) == 1 and kinds.count(["disconnected"]) == 1
    assert kinds.count(["not_connected"]) == 3
    err = " ".join(serve.err.read_text().split())
    assert "bob left after 2 matches (3 forfeited)" in err
    assert "forfeits" not in err


def test_a_revoked_bot_forfeits_at_once(tmp_path: Path, certs: Certificates) -> None:
    wait = 120.0
    file = write_file(tmp_path, certs, ["alice", "bob"], extra=f"absent_wait = {wait:g}")
    tokens = issue(file)
    serve = Serve(file, tmp_path)
    alice = remote_bot(serve, tokens["alice"], certs, tmp_path, "alice")
    # Bob never comes; his token is revoked while the referee waits for him.
    result = CliRunner().invoke(main, ["tokens", "revoke", str(file), "bob"])
    assert result.exit_code == 0, result.output
    revoked = time.monotonic()
    assert serve.wait() == 3, serve.err.read_text()
    assert alice.wait(BOUND) == 0
    # Not one absence wait: a single one would need 120 s.
    assert time.monotonic() - revoked < wait / 2
    records = records_of(tmp_path / "out")
    bobs = [r for r in records if "bob" in r.seats]
    assert len(bobs) == 4
    for record in bobs:
        assert [f.kind for f in record.faults] == ["not_connected"]
        assert "revoked" in record.faults[0].reason
    assert all(not r.faults for r in records if "bob" not in r.seats)
    err = " ".join(serve.err.read_text().split())
    assert "bob's token was revoked before it played (4 forfeited)" in err


def test_serve_killed_and_started_again_finishes_the_schedule_once(
    tmp_path: Path, certs: Certificates
) -> None:
    file = write_file(tmp_path, certs, ["alice", "bob"], extra="absent_wait = 120")
    text = file.read_text().replace("matches = 2", "matches = 4")
    file.write_text(text)
    tokens = issue(file)
    out = tmp_path / "out"
    serve = Serve(file, tmp_path, run=1)
    bots = [
        remote_bot(serve, tokens[name], certs, tmp_path, f"{name}1") for name in ("alice", "bob")
    ]
    until(lambda: (out / JOURNAL_FILE).exists() and len(journal_rows(out)) >= 2, "two matches")
    serve.process.send_signal(signal.SIGKILL)
    serve.wait()
    done = len(journal_rows(out))
    assert 2 <= done < 12
    # The remote bots see their streams break; their entrants start them again.
    for bot in bots:
        assert bot.wait(BOUND) != 0
    serve = Serve(file, tmp_path, run=2)
    bots = [
        remote_bot(serve, tokens[name], certs, tmp_path, f"{name}2") for name in ("alice", "bob")
    ]
    assert serve.wait() == 0, serve.err.read_text()
    assert all(bot.wait(BOUND) == 0 for bot in bots)
    rows = journal_rows(out)
    journal = open_journal(out)
    try:
        assert sorted(k for k, _ in rows) == sorted(m.key for m in journal.schedule())
    finally:
        journal.close()
    assert len(rows) == 12
    # The second run played exactly what the first had not journaled.
    sessions = [session for _, session in rows]
    assert sessions.count(min(sessions)) == done and sessions.count(max(sessions)) == 12 - done
    verify(out)


def test_serve_refuses_plain_text_off_loopback_and_bots_without_tokens(
    tmp_path: Path, certs: Certificates
) -> None:
    file = write_file(tmp_path, certs, ["alice"])
    plain = file.read_text().replace(f'cert = "{certs.server_cert}"\n', "")
    plain = plain.replace(f'key = "{certs.server_key}"\n', "")
    plain_file = tmp_path / "plain.toml"
    plain_file.write_text(plain.replace('"127.0.0.1:0"', '"0.0.0.0:0"'))
    result = CliRunner().invoke(main, ["serve", str(plain_file)])
    assert result.exit_code == 1, result.output
    assert "not a loopback address" in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    result = CliRunner().invoke(main, ["serve", str(file)])
    assert result.exit_code == 1 and "no token for alice" in result.output


def test_serve_shows_its_tournament_on_the_live_page(tmp_path: Path, certs: Certificates) -> None:
    file = write_file(tmp_path, certs, ["alice"], extra="absent_wait = 120")
    file.write_text(file.read_text().replace('live = "off"', 'live = "127.0.0.1:0"'))
    tokens = issue(file)
    serve = Serve(file, tmp_path)
    url = until(
        lambda: re.search(r"Live page: (http://\S+)", serve.err.read_text()), "the live page"
    ).group(1)

    def state() -> dict[str, Any]:
        with urllib.request.urlopen(url.rstrip("/") + "/api/state", timeout=BOUND) as answer:
            data: dict[str, Any] = json.loads(answer.read())
            return data

    # Alice is not there yet: her first match waits for her, in progress on the page.
    waiting = until(lambda: (s := state())["scheduled"] and s["live"] and s, "a match shown")
    assert waiting["total"] == 2 and waiting["done"] == 0
    assert all("alice" in match["seats"] for match in waiting["live"])
    alice = remote_bot(serve, tokens["alice"], certs, tmp_path, "alice")
    assert serve.wait() == 0, serve.err.read_text()
    assert alice.wait(BOUND) == 0
