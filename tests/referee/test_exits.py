"""How each bot process ended, in the replay log's ``match_result.exits``, with real processes:
by itself, killed by the referee (after the match, or for not connecting in time), crashed; a
kept series records it in its last match only. ``ginref match`` and ``ginref replay`` show it,
and a log of an earlier referee, without the field, is still read and verified."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from ginref.cli import main
from referee.engine.rules import Rules
from referee.faults import FaultKind
from referee.replay_log import load_schema
from referee.series import run_series
from referee.settings import RefereeOptions
from replays.verify import check_file
from tests.support.referee_helpers import (
    FAST,
    TESTBOT,
    assert_both_forfeit,
    assert_forfeit,
    assert_log_agrees,
    bot,
    of_type,
    play,
)

pytestmark = pytest.mark.slow  # real bot processes on a real server

SCHEMA = load_schema()


def exits(log: Path) -> list[Any]:
    (result,) = of_type(log, "match_result")
    jsonschema.validate(result, SCHEMA)
    return list(result["exits"])


def test_bots_that_exit_by_themselves_after_the_match(tmp_path: Path, pidfile: Path) -> None:
    outcome = play(tmp_path, bot(), bot("first"))
    assert outcome.forfeit is None
    expected = {"code": 0, "signal": None, "killed_by_referee": False}
    for item in exits(outcome.log_path):
        assert {k: item[k] for k in expected} == expected and item["reason"] == "exited with code 0"
    assert [e.code if e else None for e in outcome.exits] == [0, 0]
    assert_log_agrees(outcome.log_path)


def test_a_bot_the_referee_had_to_kill_after_the_match(tmp_path: Path, pidfile: Path) -> None:
    outcome = play(tmp_path, bot("stubborn"), bot())
    assert outcome.forfeit is None
    stubborn, plain = exits(outcome.log_path)
    assert stubborn["killed_by_referee"] is True and stubborn["signal"] == "SIGKILL"
    assert stubborn["code"] is None
    assert stubborn["reason"] == (
        "killed by the referee's SIGTERM then SIGKILL: it had not exited 0.5 s after its last match"
    )
    assert plain["killed_by_referee"] is False and plain["code"] == 0
    assert_log_agrees(outcome.log_path)


def test_a_bot_that_never_connects_is_killed_at_once_and_the_option_named(
    tmp_path: Path, pidfile: Path
) -> None:
    # Neither bot connects, so no deadline here is one that a working bot must meet; the long
    # exit grace would show if the referee waited for a bot that never connected to exit.
    options = RefereeOptions(
        connect_timeout=1.5, exit_grace=60.0, kill_grace=60.0, sandbox=FAST.sandbox
    )
    began = time.monotonic()
    outcome = play(tmp_path, bot("never"), bot("never"), options=options)
    assert time.monotonic() - began < 60.0  # not the exit grace: they were stopped at once
    assert_both_forfeit(outcome, (FaultKind.NOT_CONNECTED, FaultKind.NOT_CONNECTED))
    for fault in outcome.forfeits:
        assert fault.reason.startswith("the bot did not connect within 1.5 s (raise it with ")
        assert "--connect-timeout" in fault.reason and "connect_timeout" in fault.reason
        assert "[time]" in fault.reason
    for never in exits(outcome.log_path):
        assert never["killed_by_referee"] is True and never["signal"] == "SIGTERM"
        assert never["reason"] == "killed by the referee's SIGTERM: it did not connect within 1.5 s"


def test_a_crash_and_an_exit_before_connecting_keep_their_codes(
    tmp_path: Path, pidfile: Path
) -> None:
    crashed = play(tmp_path / "crash", bot(), bot("crash", 5))
    assert_forfeit(crashed, 1, FaultKind.CRASHED)
    assert exits(crashed.log_path)[1] == {
        "code": 3,
        "signal": None,
        "killed_by_referee": False,
        "reason": "exited with code 3",
    }
    early = play(tmp_path / "exit", bot("exit"), bot())
    assert exits(early.log_path)[0]["code"] == 4


def test_a_kept_series_records_the_exits_in_its_last_match(tmp_path: Path, pidfile: Path) -> None:
    series = run_series((bot(), bot("first")), Rules.profile("standard"), [3, 4, 5], tmp_path, FAST)
    first, second, last = (exits(m.log_path) for m in series.matches)
    assert first == second == [None, None]  # both processes played on
    assert [e["code"] for e in last] == [0, 0]
    for match in series.matches:
        assert_log_agrees(match.log_path)


def test_ginref_match_and_replay_show_how_the_bots_ended(tmp_path: Path, pidfile: Path) -> None:
    python = shlex.quote(sys.executable)
    stubborn = f"{python} {TESTBOT} stubborn"
    args = ["match", stubborn, f"{python} {TESTBOT}", "--seed", "11", "--out", str(tmp_path)]
    result = CliRunner().invoke(main, [*args, "--sandbox", "none"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "Exit: seat 1 (testbot): exited with code 0" in lines
    (kill,) = [line for line in lines if line.startswith("Exit: seat 0")]
    assert "killed by the referee's SIGTERM then SIGKILL: it had not exited 2 s" in kill
    log = next(line[5:] for line in lines if line.startswith("Log: "))
    shown = CliRunner().invoke(main, ["replay", log, "--no-color"])
    assert shown.exit_code == 0, shown.output
    assert "seat 1 (testbot) process: exited with code 0" in shown.stdout
    assert "seat 0 (testbot) process: killed by the referee's SIGTERM then SIGKILL" in shown.stdout


def test_a_log_without_exits_is_read_and_verified(tmp_path: Path, pidfile: Path) -> None:
    outcome = play(tmp_path, bot(), bot("first"))
    records = [json.loads(line) for line in outcome.log_path.read_text().splitlines()]
    del records[-1]["exits"]
    older = tmp_path / "older.jsonl"
    older.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert check_file(older).ok
    shown = CliRunner().invoke(main, ["replay", str(older), "--no-color"])
    assert shown.exit_code == 0 and "process:" not in shown.stdout
    records[-1]["exits"] = [{"code": "zero"}, None]
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join(json.dumps(r) + "\n" for r in records))
    (problem,) = check_file(broken).problems
    assert "match_result/properties/exits" in problem[1], problem
    assert "exits[0]: {'code': 'zero'}" in problem[1], problem
