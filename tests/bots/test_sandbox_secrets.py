"""The sandbox against a bot that wants to learn the deal or take the other seat.

Each test plays one sandboxed match (default sandbox, a uid range of these tests' own) between
the attacker (tests/support/attacker.py, one mode per attack) and the test bot, and checks from
outside that the attack failed: secrets the attacker would have printed are not in its output,
the log records each refused connection on the attacker's seat, the opponent played the match
out. The attacker's own lines only show that it really tried.
"""

from __future__ import annotations

import asyncio
import errno
import os
import socket
from pathlib import Path

import pytest

from referee.server import RefereeServer
from tests.support.referee_helpers import of_type
from tests.support.sandbox_helpers import (
    NAMESPACES,
    SANDBOX,
    assert_attempted,
    assert_played_out,
    duel,
    fixed_match_id,
    mark,
)

# Sandboxed bots as real processes; none may outlive its test.
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("sandbox_uids_free")]


# --- learn the deal -------------------------------------------------------------------------


def test_the_replay_log_and_the_other_bots_output_are_out_of_sight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attacker is told where the log, the opponent's output and a secret file in the out
    dir are, and searches everything in view for logs; it prints what it reads, so the secret
    is not in its output."""
    fixed_match_id(monkeypatch, "secrets")
    secret = mark()
    canary = tmp_path / "canary.jsonl"
    canary.write_text(f'{{"type": "header", "secret": "{secret}"}}\n')
    log = tmp_path / "secrets.jsonl"
    theirs = tmp_path / "secrets.seat1.testbot-play.log"
    paths = os.pathsep.join(str(p) for p in (tmp_path, log, theirs, canary))
    match = duel(tmp_path, "read", env={"ATTACK_PATHS": paths})
    assert match.outcome.log_path == log and theirs.exists()
    assert_attempted(match.text, "read")
    for path in (tmp_path, log, theirs, canary):
        assert f"[late] read {path}: ENOENT" in match.text
    assert secret not in match.text
    assert_played_out(match)


def test_other_processes_and_the_referee_are_out_of_sight(tmp_path: Path) -> None:
    """It scans /proc: the command line, environment, memory (/proc/PID/mem, process_vm_readv,
    ptrace) of every process it sees. The opponent's token and a secret in the opponent's
    environment do not reach its output; seen from outside, the two bots share no namespace
    with each other or with the referee."""
    secret = mark()
    match = duel(tmp_path, "proc", opponent_env={"SECRET": secret})
    assert_attempted(match.text, "proc")
    assert "[late] pid 1 mem: EACCES" in match.text
    assert "[late] pid 1 process_vm_readv: EPERM" in match.text
    their_token = match.spy.token_of("testbot.py")
    assert their_token != match.spy.token_of("attacker.py")
    assert their_token not in match.text and secret not in match.text
    (mine,) = match.spy.running("attacker.py")
    (theirs,) = match.spy.running("testbot.py")
    referee = {name: os.readlink(f"/proc/self/ns/{name}") for name in NAMESPACES}
    for name in NAMESPACES:
        assert len({mine.ns[name], theirs.ns[name], referee[name]}) == 3, name
    assert_played_out(match)


def test_each_seat_runs_under_a_uid_of_its_own(tmp_path: Path) -> None:
    """Seen from outside while they play: two bots, two uids of the sandbox's range, neither
    root, every process of a bot under its own uid; the attacker's own account agrees."""
    match = duel(tmp_path, "play", seat=1)
    mine, theirs = match.spy.uid_of("attacker.py"), match.spy.uid_of("testbot.py")
    assert mine != theirs
    for uid in (mine, theirs):
        assert uid != 0 and SANDBOX.uid_base <= uid < SANDBOX.uid_base + SANDBOX.uid_count
    assert {s.uid for s in match.spy.seen.values()} == {mine, theirs}
    assert f"ATTACKER uid={mine} " in match.text
    assert match.spy.requests > 0
    assert_played_out(match)


# --- take the other seat --------------------------------------------------------------------


def test_guessed_tokens_take_no_seat(tmp_path: Path) -> None:
    """Twenty random tokens and three near misses of its own, before and during the match:
    each is refused on the attacker's own socket and logged against its seat."""
    match = duel(tmp_path, "tokens")
    assert_attempted(match.text, "tokens")
    rejected = of_type(match.outcome.log_path, "connection_rejected")
    assert len(rejected) == 2 * 23, rejected
    assert {(r["seat"], r["code"]) for r in rejected} == {(0, "UNAUTHENTICATED")}
    assert_played_out(match)


def test_no_other_seats_socket_is_in_reach(tmp_path: Path) -> None:
    """It looks for Unix sockets everywhere in view and for the opponent's socket directory on
    the host, guessing its path from its sandbox's command line (which no longer shows its
    binds: bwrap reads them from a pipe) and the uids next to its own: there is nothing to
    connect to, and no connection reached the opponent's seat."""
    match = duel(tmp_path, "sockets")
    assert_attempted(match.text, "sockets")
    assert "no Unix socket in view but its own" in match.text
    assert of_type(match.outcome.log_path, "connection_rejected") == []
    assert_played_out(match)


def test_a_second_connection_with_its_own_token_is_refused(tmp_path: Path) -> None:
    match = duel(tmp_path, "second", seat=1)
    assert_attempted(match.text, "second", ["late"])
    (rejected,) = of_type(match.outcome.log_path, "connection_rejected")
    assert (rejected["seat"], rejected["code"]) == (1, "ALREADY_EXISTS")
    assert_played_out(match)


def test_no_listener_shares_the_referees_tcp_port() -> None:
    """Unsandboxed bots reach the referee over TCP; a process that binds the same port with
    SO_REUSEPORT (or SO_REUSEADDR) would share the Hellos of every bot. The bind fails."""

    async def main() -> None:
        server = RefereeServer()
        await server.start()
        try:
            for option in (socket.SO_REUSEPORT, socket.SO_REUSEADDR):
                with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as rival:
                    rival.setsockopt(socket.SOL_SOCKET, option, 1)
                    with pytest.raises(OSError) as refused:
                        rival.bind(("127.0.0.1", server.port))
                        rival.listen()
                    assert refused.value.errno == errno.EADDRINUSE
        finally:
            await server.stop(0)

    asyncio.run(main())
