"""Complete matches end to end (real server, real bot processes) and their replay logs."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.bots.spec import BotSpec, bot_environment
from referee.engine.outcomes import Termination
from referee.engine.rules import PROFILES, Rules
from referee.replay_log import load_log, read_log
from referee.series import run_series
from referee.settings import RefereeOptions
from replays.schema import schema_problem
from replays.verify import check_file, check_log, format_check
from tests.support.referee_helpers import (
    FAST,
    TESTBOT,
    assert_log_agrees,
    bot,
    pids,
    play,
    records,
)

pytestmark = pytest.mark.slow  # real matches between real bot processes


def assert_schema_valid(path: Path) -> None:
    for number, record in enumerate(records(path), start=1):
        problem = schema_problem(record)
        assert problem is None, f"{path.name} line {number}: {problem}"


@pytest.mark.parametrize("profile", list(PROFILES))
def test_a_complete_match_under_every_profile(profile: str, tmp_path: Path, pidfile: Path) -> None:
    outcome = play(tmp_path, bot(), bot(), profile=profile, seed=21)
    rules = Rules.profile(profile)
    result = outcome.result
    assert outcome.forfeit is None and outcome.faults == ()
    expected = Termination.SINGLE_HAND if rules.scope == "single_hand" else Termination.TARGET
    assert result.termination is expected
    if rules.scope == "match":
        assert max(outcome.hand_results[-1].scores_after) >= rules.target
    assert [s.name for s in outcome.seats] == ["testbot-play", "testbot-play"]
    assert all(s.output.exists() and s.output.parent == tmp_path for s in outcome.seats)
    # The log: schema-valid, complete, and it re-adjudicates to the same scores.
    assert_schema_valid(outcome.log_path)
    assert_log_agrees(outcome.log_path)
    log = load_log(outcome.log_path)
    header = log.header
    assert header is not None and header["rules"] == rules.to_dict() and header["seed"] == 21
    assert [r["type"] for _, r in log.records][-1] == "match_result"
    deals = log.of_type("deal")
    assert len(deals) == len(outcome.hand_results) == result_hands(log)
    assert len(log.of_type("decision")) == outcome.decisions
    assert [tuple(r["scores_after"]) for r in log.of_type("hand_result")] == [
        r.scores_after for r in outcome.hand_results
    ]
    assert len(pids(pidfile)) == 2


def result_hands(log: Any) -> int:
    (end,) = log.of_type("match_result")
    return int(end["hands_played"])


def test_a_series_over_one_connection_per_bot(tmp_path: Path, pidfile: Path) -> None:
    series = run_series((bot(), bot("first")), Rules.profile("pagat"), [1, 2, 3], tmp_path, FAST)
    assert series.seats == ((0, 1), (1, 0), (0, 1))
    assert len(series.matches) == 3
    # One process per bot for the whole series: two pids in all.
    assert len(pids(pidfile)) == 2
    ids = [m.match_id for m in series.matches]
    assert len(set(ids)) == 3
    for k, outcome in enumerate(series.matches):
        assert outcome.forfeit is None
        assert_log_agrees(outcome.log_path)
        header = records(outcome.log_path)[0]
        assert header["series"] == {"match_number": k + 1, "length": 3}
        names = [b["label"] for b in header["bots"]]
        assert names == (["testbot-play", "testbot-first"][:: 1 if k % 2 == 0 else -1])
        assert outcome.seats[series.seats[k].index(0)].name == "testbot-play"


def test_a_bot_that_crashes_forfeits_the_rest_of_its_series(tmp_path: Path, pidfile: Path) -> None:
    series = run_series((bot("crash", 4), bot()), Rules.profile("standard"), [5, 6], tmp_path, FAST)
    first, second = series.matches
    assert first.forfeit is not None and first.forfeit.kind.value == "crashed"
    assert first.forfeit.seat == 0
    assert second.forfeit is not None and second.forfeit.seat == 1  # bot A is in seat 1 now
    assert second.forfeit.kind.value == "crashed"
    assert second.hand_results == ()
    assert_log_agrees(second.log_path)


def test_bots_get_the_referees_interpreter_first_on_path() -> None:
    bindir = os.path.dirname(sys.executable)
    env = bot_environment("127.0.0.1:5", "tok", 1, {"PATH": "/usr/bin:/bin", "HOME": "/h"})
    assert env["PATH"] == f"{bindir}{os.pathsep}/usr/bin:/bin"
    assert (env["GINREF_ADDRESS"], env["GINREF_TOKEN"], env["GINREF_SEAT"]) == (
        "127.0.0.1:5",
        "tok",
        "1",
    )
    assert env["HOME"] == "/h"
    assert bot_environment("a:1", "t", 0, {})["PATH"] == f"{bindir}{os.pathsep}{os.defpath}"


def test_a_bare_python_command_runs_the_referees_interpreter(
    tmp_path: Path, pidfile: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As when ginref runs as .venv/bin/ginref with the virtualenv not on PATH: here no
    # interpreter at all is on PATH, yet "python testbot.py" finds the referee's (with grpc).
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    python = Path(sys.executable).name
    a = BotSpec((python, str(TESTBOT), "play"), "a")
    b = BotSpec((python, str(TESTBOT), "first"), "b")
    outcome = play(tmp_path, a, b, seed=3)
    assert outcome.forfeit is None and outcome.faults == ()
    assert [s.name for s in outcome.seats] == ["testbot-play", "testbot-first"]


def test_bad_options_are_refused_before_anything_starts(tmp_path: Path) -> None:
    from referee.errors import ConfigError

    with pytest.raises(ConfigError, match="move time"):
        play(tmp_path, bot(), bot(), options=RefereeOptions(move_time=0))
    with pytest.raises(ConfigError, match="retries"):
        play(tmp_path, bot(), bot(), options=RefereeOptions(retries=-1))
    assert list(tmp_path.iterdir()) == []


# --- replay logs ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def a_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("log")
    return play(out, bot(), bot(), profile="oklahoma", seed=4).log_path


def lines_of(path: Path) -> list[str]:
    return path.read_text().splitlines(keepends=True)


def problems_of(lines: list[str]) -> list[tuple[int, str]]:
    """What ``ginref verify`` finds in a log that parses."""
    log = read_log(lines)
    assert log.problems == []
    problems, _ = check_log(log)
    return problems


def test_replaying_a_log_reproduces_every_recorded_score(a_log: Path) -> None:
    log = read_log(lines_of(a_log))
    assert log.problems == [] and problems_of(lines_of(a_log)) == []
    assert len(log.of_type("hand_result")) >= 2


def test_a_tampered_score_is_found_with_its_line_number(a_log: Path) -> None:
    lines = lines_of(a_log)
    number = next(i for i, line in enumerate(lines) if '"hand_result"' in line)
    record = json.loads(lines[number])
    record["points"] += 1
    lines[number] = json.dumps(record) + "\n"
    problems = problems_of(lines)
    assert problems and problems[0][0] == number + 1 and "points" in problems[0][1]


def test_a_changed_action_is_refused_or_changes_the_scores(a_log: Path) -> None:
    lines = lines_of(a_log)
    number = next(i for i, line in enumerate(lines) if '"kind":"draw_stock"' in line)
    lines[number] = lines[number].replace('"kind":"draw_stock"', '"kind":"pass"')
    problems = problems_of(lines)
    assert problems and problems[0][0] == number + 1 and "refused" in problems[0][1]


def test_a_changed_deck_does_not_match_the_seed(a_log: Path) -> None:
    lines = lines_of(a_log)
    number = next(i for i, line in enumerate(lines) if '"type":"deal"' in line)
    record = json.loads(lines[number])
    record["deck"][0], record["deck"][51] = record["deck"][51], record["deck"][0]
    lines[number] = json.dumps(record) + "\n"
    problems = problems_of(lines)
    assert (number + 1, "the deck of hand 1 is not the seed's") in problems


def test_reader_reports_every_malformed_line(a_log: Path) -> None:
    lines = lines_of(a_log)
    lines[2] = "{not json\n"
    lines[3] = json.dumps({"type": "decision", "seat": 0}) + "\n"
    lines[4] = json.dumps({"type": "mystery"}) + "\n"
    log = read_log(lines)
    assert [n for n, _ in log.problems] == [3, 4, 5]
    assert "not JSON" in log.problems[0][1]
    assert "decision: missing 'hand'" in log.problems[1][1]
    assert "unknown record type 'mystery'" in log.problems[2][1]


def test_a_truncated_log_is_incomplete(a_log: Path, tmp_path: Path) -> None:
    lines = lines_of(a_log)[:-1]
    assert problems_of(lines) == [(0, "the log ends before the match result")]
    path = tmp_path / "cut.jsonl"
    path.write_text("".join(lines))
    check = check_file(path)
    assert not check.ok and "ends before the match result" in format_check(check)


def test_a_log_must_start_with_its_header(a_log: Path) -> None:
    lines = lines_of(a_log)
    log = read_log(lines[1:])
    assert (1, "the first line must be the header") in log.problems
