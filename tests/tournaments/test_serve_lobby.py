"""``ginref serve``'s lobby as the organiser sees it: when play starts (``start``), what the
console says of the remote bots as they come and go, and a Ctrl-C while play waits to start.
The real command in a subprocess, remote bots started by the test with their tokens.

Synchronisation is on what the command prints and on the processes' exits, never on sleeps.
"""

from __future__ import annotations

import json
import signal
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.support.certs import Certificates
from tests.support.serve_helpers import Serve, issue, records_of, remote_bot, until, write_file

pytestmark = pytest.mark.slow  # real referees and real bot processes


def test_start_all_waits_for_every_remote_bot_before_the_first_match(
    tmp_path: Path, certs: Certificates
) -> None:
    # No absence is forgiven: a match that began before its remote bot was there would be
    # forfeited at once, so a clean run shows that play waited for both.
    file = write_file(tmp_path, certs, ["alice", "bob"], extra='start = "all"\nabsent_wait = 0')
    tokens = issue(file)
    serve = Serve(file, tmp_path)
    waiting = "^Play starts when every remote bot is connected; waiting for "
    serve.said(waiting + r"alice, bob\.$")
    serve.said(r"^Lobby: no remote bot connected; missing: alice, bob$")
    alice = remote_bot(serve, tokens["alice"], certs, tmp_path, "alice1")
    serve.said(r"^Lobby: alice connected from 127\.0\.0\.1 \(1 stream\)$")
    # Alice alone is not everyone: bob's matches would forfeit if play began now.
    serve.said(waiting + r"bob\.$")
    # She leaves, and is missing again; then she is back.
    alice.terminate()
    alice.wait(120)
    serve.said(r"^Lobby: alice lost a stream \(0 streams: absent\)$")
    serve.said(waiting + r"alice, bob\.$", times=2)
    alice = remote_bot(serve, tokens["alice"], certs, tmp_path, "alice2")
    serve.said(r"^Lobby: alice connected from", times=2)
    bob = remote_bot(serve, tokens["bob"], certs, tmp_path, "bob")
    assert serve.wait() == 0, serve.err.read_text()
    assert alice.wait(120) == 0 and bob.wait(120) == 0
    records = records_of(tmp_path / "out")
    assert len(records) == 6 and not [f for r in records for f in r.faults]
    err = serve.err.read_text()
    # The lobby as play starts; the streams that the end of the tournament closes are not lost.
    assert (
        "Play starts now.\nLobby: alice (1 stream), bob (1 stream) connected; none missing" in err
    )
    assert err.count("lost a stream") == 1


def test_ctrl_c_while_play_waits_to_start_stops_cleanly_and_the_run_resumes(
    tmp_path: Path, certs: Certificates
) -> None:
    file = write_file(tmp_path, certs, ["alice"], extra='start = "2099-01-01T00:00"')
    tokens = issue(file)
    serve = Serve(file, tmp_path)
    serve.said(r"^Play starts at 2099-01-01 00:00")
    serve.process.send_signal(signal.SIGINT)
    assert serve.wait() == 130, serve.err.read_text()
    err = serve.err.read_text()
    assert "Traceback" not in err
    assert "Stopped: stopped while waiting for play to start; nothing was played." in err
    # The same tournament starts again, play now this time.
    again = Serve(file, tmp_path, 2, "--start", "now")
    alice = remote_bot(again, tokens["alice"], certs, tmp_path, "alice")
    assert again.wait() == 0, again.err.read_text()
    assert alice.wait(120) == 0
    assert len(records_of(tmp_path / "out")) == 2


def test_the_live_page_shows_each_remote_bot_and_its_streams(
    tmp_path: Path, certs: Certificates
) -> None:
    extra = 'start = "all"\nlive = "127.0.0.1:0"'
    file = write_file(tmp_path, certs, ["alice", "bob"], extra=extra)
    file.write_text(file.read_text().replace('live = "off"\n', ""))
    tokens = issue(file)
    serve = Serve(file, tmp_path)
    url = serve.said(r"^Live page: (http://\S+)").group(1).rstrip("/") + "/api/state"

    def lobby() -> list[dict[str, Any]]:
        with urllib.request.urlopen(url, timeout=60) as answer:
            found: list[dict[str, Any]] = json.loads(answer.read())["lobby"]
            return found

    nobody = [
        {"name": "alice", "streams": 0, "connected": False, "revoked": False},
        {"name": "bob", "streams": 0, "connected": False, "revoked": False},
    ]
    until(lambda: lobby() == nobody, "the lobby, empty, on the page")
    alice = remote_bot(serve, tokens["alice"], certs, tmp_path, "alice", GINREF_MATCHES="2")
    alice_there = [{"name": "alice", "streams": 2, "connected": True, "revoked": False}, nobody[1]]
    until(lambda: lobby() == alice_there, "alice's two streams on the page")
    serve.process.send_signal(signal.SIGINT)
    assert serve.wait() == 130, serve.err.read_text()
    alice.wait(120)
