"""The ginref command line, through click's CliRunner, and its pure formatting."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from tests.support.referee_helpers import TESTBOT, assert_log_agrees

pytestmark = pytest.mark.slow  # the command line playing real matches

BOT = shlex.join([sys.executable, str(TESTBOT)])


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_match_prints_the_result_the_hands_and_the_log(tmp_path: Path) -> None:
    code, out = run("match", BOT, BOT + " first", "--seed", "5", "--out", str(tmp_path))
    assert code == 0, out
    assert "Match " in out and "standard, seed 5" in out
    assert " Hand  Dealer  Outcome" in out
    # Each bot by its seat's label, as the replay names it; its own name once, by its seat.
    assert "Result: seat 0 (testbot) wins" in out
    assert "  seat 0: testbot (testbot-play 1.0)  [" in out
    log = next(line for line in out.splitlines() if line.startswith("Log: "))[5:]
    assert Path(log).parent == tmp_path
    assert_log_agrees(log)
    assert "Bot output: " in out


def test_profile_and_overrides_reach_the_match(tmp_path: Path) -> None:
    code, out = run(
        "match", BOT, BOT, "-p", "pagat", "--set", "target=30", "--seed", "2",
        "--out", str(tmp_path),
    )  # fmt: skip
    assert code == 0, out
    assert "pagat, seed 2" in out and "target reached" in out


def test_a_forfeit_is_reported_not_raised(tmp_path: Path) -> None:
    code, out = run(
        "match", BOT + " illegal", BOT, "--seed", "1", "--out", str(tmp_path),
    )  # fmt: skip
    assert code == 0, out
    assert "Forfeit: seat 0: illegal_action (R4.1)" in out
    assert "Result: seat 1 (testbot) wins by forfeit: seat 0 (testbot) forfeits" in out


def test_two_bots_that_cannot_start_both_forfeit(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main,
        [
            "match",
            "/nonexistent/bot-a",
            "/nonexistent/bot-b",
            "--seed",
            "1",
            "--out",
            str(tmp_path),
        ],
    )
    code, out = result.exit_code, result.stdout
    assert code == 3, result.output  # the match is recorded, and the command says it failed
    errors = result.stderr.splitlines()
    assert [e.split(" cannot start: ")[0] for e in errors] == [
        "Error: bot 'bot-a' (seat 0)",
        "Error: bot 'bot-b' (seat 1)",
    ]
    assert all("could not start '/nonexistent/bot-" in e for e in errors)
    assert "Result: both seats forfeit, no winner (a loss for each); hand points as they " in out
    assert "stood 0-0 (seat 0-seat 1)" in out
    assert "wins" not in out
    forfeits = [line for line in out.splitlines() if line.startswith("Forfeit: ")]
    assert [line.split(":")[1].strip() for line in forfeits] == ["seat 0", "seat 1"]
    assert all("not_connected (R11.5): could not start" in line for line in forfeits)
    log = next(line for line in out.splitlines() if line.startswith("Log: "))[5:]
    assert_log_agrees(log)
    # No hand was dealt: the replay and verify count the same hands.
    _, shown = run("replay", log)
    _, checked = run("verify", log)
    assert ", 0 hands dealt" in shown and ", 0 hands," in checked


def bad(*args: str) -> str:
    code, out = run("match", *args)
    assert code != 0
    assert "Traceback" not in out
    return out


def test_bad_arguments_get_a_clear_error(tmp_path: Path) -> None:
    out_dir = str(tmp_path)
    assert "unknown profile 'nope'" in bad("a", "b", "--profile", "nope", "--out", out_dir)
    assert "expected NAME=VALUE" in bad("a", "b", "--set", "target", "--out", out_dir)
    assert "unknown rule parameter 'colour'" in bad("a", "b", "--set", "colour=red")
    assert "target = 'x': expected a number" in bad("a", "b", "--set", "target=x")
    assert "No closing quotation" in bad("python 'x", "b")
    assert "must not be empty" in bad("", "b")
    assert "move time must be positive" in bad("a", "b", "--move-time", "0")
    assert "Invalid value for '--seed'" in bad("a", "b", "--seed", "-1")
    # As every other seed: a tournament's match seeds are below 2**63 too.
    assert "0<=x<=9223372036854775807" in bad("a", "b", "--seed", str(2**63))
    assert "Missing argument 'BOT_B'" in bad("a")
    assert "needs scope = match (R10.1, R9.9): add --set scope=match" in bad(
        "a", "b", "c", "-p", "openspiel"
    )
    assert list(tmp_path.iterdir()) == []  # nothing was started


def test_help_lists_the_match_command() -> None:
    code, out = run("--help")
    assert code == 0 and "match" in out
    code, out = run("match", "--help")
    assert code == 0 and "GINREF_ADDRESS" in out and "--retries" in out


def test_three_players_places_read_as_the_replay_reads_them(tmp_path: Path) -> None:
    code, out = run(
        "match", BOT, BOT, BOT, "--set", "target=25", "--seed", "4", "--out", str(tmp_path)
    )
    assert code == 0, out
    (places,) = [line for line in out.splitlines() if line.startswith("Places: ")]
    log = next(line for line in out.splitlines() if line.startswith("Log: "))[5:]
    _, shown = run("replay", log, "--no-color")
    (replayed,) = [
        line.strip() for line in shown.splitlines() if line.strip().startswith("places: ")
    ]
    assert places.removeprefix("Places: ") == replayed.removeprefix("places: ")
    assert places.count(" (testbot) ") == 3 and "1st" in places
