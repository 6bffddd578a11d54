"""The sandbox against a bot that wants to harm the opponent or the referee, or falsify results.

Each test plays sandboxed matches (a uid range of these tests' own) between the attacker
(tests/support/attacker.py) and the test bot, and checks from outside: the opponent played the
match out, its priority stayed, the files the attacker went for are unchanged and nothing was
planted, the referee went on to the next match with its descriptors bounded, its terminal saw
nothing of the bot's.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from referee.engine.rules import Rules
from referee.series import run_series, run_series_async
from tests.support.referee_helpers import ROOT, TESTBOT, of_type
from tests.support.sandbox_helpers import (
    ATTACKER,
    OPTIONS,
    SANDBOX,
    Duel,
    Spy,
    assert_attempted,
    assert_played_out,
    attacker,
    attempts,
    duel,
    files_under,
    fixed_match_id,
    mark,
    opponent,
    played_tournament,
)

# Sandboxed bots as real processes; none may outlive its test.
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("sandbox_uids_free")]


# --- sabotage -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["kill", "stop"])
def test_signals_reach_no_process_outside_the_sandbox(mode: str, tmp_path: Path) -> None:
    """kill(-1) and SIGKILL (or SIGSTOP) to every pid up to 32768, before the match and during
    it: they reach the attacker's own child and nothing else; the opponent, seen running all
    along, plays the match out."""
    match = duel(tmp_path, mode)
    assert_attempted(match.text, mode)
    assert "[late] kill(-1, SIG" in match.text
    (theirs,) = match.spy.running("testbot.py")
    assert theirs.sightings == match.spy.requests and "T" not in theirs.states
    assert_played_out(match)


def test_other_processes_keep_their_priority_and_limits(tmp_path: Path) -> None:
    """setpriority by pid, process group and user (the uids around its own), ioprio_set by user,
    prlimit on its parent: the opponent's nice value, read from outside at every request, stays
    0, and it plays the match out."""
    match = duel(tmp_path, "renice")
    assert_attempted(match.text, "renice")
    their_uid = match.spy.uid_of("testbot.py")
    assert f"[late] setpriority user {their_uid}: ESRCH" in match.text
    (theirs,) = match.spy.running("testbot.py")
    assert theirs.nice == {0}
    assert_played_out(match)


def test_the_referee_outlives_its_bots_attacks(tmp_path: Path) -> None:
    """SIGSTOP, SIGTERM, SIGKILL to its parent (the sandbox's init, root) and pid 1, before and
    during the first match of a series: the referee plays the second match too."""
    series = run_series(
        (attacker("kill_referee"), opponent()),
        Rules.profile("standard"),
        [3, 4],
        tmp_path,
        OPTIONS,
    )
    assert len(series.matches) == 2
    for k, outcome in enumerate(series.matches):
        match = Duel(outcome, Spy(), series.seats[k][0])
        assert_played_out(match)
    text = Duel(series.matches[0], Spy(), 0).text
    assert_attempted(text, "kill_referee")
    assert "[late] SIGKILL to pid 1: EPERM" in text


def test_processes_with_a_forged_token_take_no_seat_and_do_not_stay(tmp_path: Path) -> None:
    """Three processes in sessions of their own, each with a forged token and the opponent's
    seat number in its environment: each is refused (on the attacker's own socket), they run
    until the match ends, and then they are gone."""
    match = duel(tmp_path, "impersonate")
    assert len(attempts(match.text, "impersonate")) == 4, match.text
    assert_attempted(match.text, "impersonate", ["early"])
    assert len(match.spy.running("attacker.py impostor")) == 3
    rejected = of_type(match.outcome.log_path, "connection_rejected")
    assert [(r["seat"], r["code"]) for r in rejected] == [(0, "UNAUTHENTICATED")] * 3
    assert_played_out(match)


def test_thousands_of_connections_do_not_wear_the_referee_down(tmp_path: Path) -> None:
    """About 3000 connections to its own socket, each with the HTTP/2 preface, held open from
    its first decision through a series of two matches: both are played out, and the
    referee's descriptors, counted at every request, stay within a few of their start."""
    spy = Spy()
    bots = (attacker("connections"), opponent())
    rules = Rules.profile("standard")
    series = asyncio.run(run_series_async(bots, rules, [5, 6], tmp_path, OPTIONS, on_send=spy))
    for k, outcome in enumerate(series.matches):
        assert_played_out(Duel(outcome, spy, series.seats[k][0]))
    (line,) = attempts(Duel(series.matches[0], spy, 0).text, "connections")
    held = int(line.split("holding ")[1].split()[0])
    assert held >= 2000, line
    # At the first request both bots are connected and the flood has not begun.
    assert spy.fds_max - spy.fds_first <= 16, (spy.fds_first, spy.fds_max)


# --- falsify results ------------------------------------------------------------------------


def test_the_replay_log_and_the_opponents_output_cannot_be_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Told their paths, it appends to, truncates, replaces, deletes the log and the opponent's
    output and creates files beside them and in the out dir: the out dir holds the three files
    of the match and nothing of the attacker's, and the log re-adjudicates."""
    fixed_match_id(monkeypatch, "falsify")
    log = tmp_path / "falsify.jsonl"
    theirs = tmp_path / "falsify.seat1.testbot-play.log"
    secret = mark()
    paths = os.pathsep.join(str(p) for p in (tmp_path, log, theirs))
    match = duel(tmp_path, "write", env={"ATTACK_PATHS": paths, "ATTACK_MARK": secret})
    assert_attempted(match.text, "write")
    for path in (log, theirs):
        for what in ("append to", "truncate", "replace", "delete"):
            assert f"[late] {what} {path}: " in match.text, (what, path)
    files = files_under(tmp_path)
    mine = "falsify.seat0.attacker-write.log"
    assert sorted(files) == ["falsify.jsonl", mine, theirs.name]
    assert not any(f"forged by {secret}".encode() in data for data in files.values())
    assert_played_out(match)


def test_no_module_can_be_planted(tmp_path: Path) -> None:
    """It writes a module into its working directory, ginref's packages, its own directory, the
    virtualenv and the system's site directories: none exists on the host afterwards."""
    secret = mark()
    match = duel(tmp_path, "plant", env={"ATTACK_MARK": secret})
    assert_attempted(match.text, "plant")
    targets = {
        line.split("] write ", 1)[1].split(": ", 1)[0] for line in attempts(match.text, "plant")
    }
    for place in (ROOT, ROOT / "referee", ROOT / "sample_bots", ATTACKER.parent):
        assert str(place / f"planted_{secret}.py") in targets
    assert any("-packages/" in t for t in targets), targets
    assert [t for t in targets if Path(t).exists()] == []
    assert_played_out(match)


def read_pty(master: int, process: subprocess.Popen[bytes], deadline: float) -> bytes:
    """Everything written to the terminal until ``process`` exits and the terminal is drained."""
    seen = b""
    while True:
        ready, _, _ = select.select([master], [], [], deadline)
        if not ready:
            process.kill()
            raise AssertionError(f"no end within {deadline} s: {seen[-2000:]!r}")
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every process holding the terminal has closed it
            return seen
        if not chunk:
            return seen
        seen += chunk


def test_the_referees_terminal_sees_nothing_of_the_bot(tmp_path: Path) -> None:
    """``ginref match`` runs in a terminal of its own (its controlling terminal). The attacker
    opens /dev/tty, pushes input with TIOCSTI on its descriptors, writes escape sequences to
    its stdout and puts them in its Hello's name and version. The terminal shows neither the
    pushed input (it would be echoed) nor any escape or bell character, while the attacker's
    own output file has its escape sequences."""
    master, slave = pty.openpty()
    command = [
        "setsid",
        "--ctty",
        str(Path(sys.executable).parent / "ginref"),
        "match",
        f"{sys.executable} {ATTACKER} terminal",
        f"{sys.executable} {TESTBOT} play",
        "--out",
        str(tmp_path),
        "--seed",
        "5",
    ]
    try:
        process = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave)
        os.close(slave)
        shown = read_pty(master, process, 120.0)
    finally:
        os.close(master)
    assert process.wait() == 0, shown
    assert b"Match " in shown and b"attacker" in shown, shown
    assert b"\x1b" not in shown and b"\x07" not in shown, shown
    assert b"TIOCSTI-" not in shown, shown
    (own,) = tmp_path.glob("*.seat0.attacker.log")
    text = own.read_text()
    assert_attempted(text, "terminal")
    assert "[late] TIOCSTI on fd 0: ENOTTY" in text and "[late] open /dev/tty: ENXIO" in text
    assert "\x1b]0;ATTACK-MARK\x07" in text


# --- a tournament ---------------------------------------------------------------------------


def test_a_tournament_keeps_its_file_journal_and_standings(tmp_path: Path) -> None:
    """A round robin of the test bot and two attackers, one reading and one writing the
    tournament file, the journal, the standings and the out dir (told their paths). A secret in
    the file and in the test bot's environment (so in the journal too) reaches neither
    attacker's output; the file is unchanged, the journal holds every match once with intact
    logs and no fault, and nothing of the writer's is in any file of the tournament."""
    secret, stamp = mark(), mark()
    out = tmp_path / "out"
    file = tmp_path / "attacked.toml"
    targets = [file, out, out / "journal.sqlite", out / "standings.csv", out / "logs"]
    paths = os.pathsep.join(str(p) for p in targets)
    attack = f'env = {{ ATTACK_PATHS = "{paths}", ATTACK_MARK = "{stamp}" }}'
    file.write_text(
        f"""# {secret}
name = "attacked"
format = "round-robin"
matches = 1
seed = 9
processes = "fresh"
# One hand a match: each attack runs before its bot connects and at its first decision; two
# attackers, who play at random and seldom knock, would deal dozens of dead hands to a target.
[rules.set]
scope = "single_hand"
[time]
connect_timeout = 60.0
[faults]
exit_grace = 0.5
kill_grace = 0.5
[sandbox]
uid_base = {SANDBOX.uid_base}
uid_count = {SANDBOX.uid_count}

[[bots]]
name = "good"
command = "{{python}} {TESTBOT} play"
env = {{ SECRET = "{secret}" }}

[[bots]]
name = "reader"
command = "{{python}} {ATTACKER} read"
{attack}

[[bots]]
name = "writer"
command = "{{python}} {ATTACKER} write"
{attack}
"""
    )
    before = hashlib.sha256(file.read_bytes()).hexdigest()
    played_tournament(file, out, lanes=1, matches=3)
    assert hashlib.sha256(file.read_bytes()).hexdigest() == before
    outputs = {name: data for name, data in files_under(out).items() if name.endswith(".log")}
    for mode in ("reader", "writer"):
        texts = [d.decode() for n, d in outputs.items() if n.endswith(f".{mode}.log")]
        assert len(texts) == 2
        for text in texts:
            assert_attempted(text, "read" if mode == "reader" else "write")
            assert secret not in text
    assert (out / "standings.csv").exists()
    assert not [n for n, data in files_under(out).items() if f"forged by {stamp}".encode() in data]
    assert not [n for n in files_under(tmp_path) if "planted" in n or n.endswith(".new")]
