"""``ginref verify DIR`` on a tournament's directory: its journal against its logs.

The directory is a real tournament's (real bot processes; tests/data/audit/make.py plays it
again), kept with its journal and logs; each test changes a copy of it the way someone
falsifying results would, and ``ginref verify`` must name the difference and exit 1. Playing
and verifying fresh tournaments, sandboxed, is the end-to-end tests' part (test_runs.py,
test_workers.py, test_group_e2e.py and others).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from tournaments.journal import JOURNAL_FILE, open_journal
from tournaments.records import MatchRecord

PLAYED = Path(__file__).resolve().parents[1] / "data" / "audit" / "tournament"


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    target = tmp_path / "out"
    shutil.copytree(PLAYED, target)
    return target


def verify(directory: Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["verify", str(directory)])
    return result.exit_code, result.output


def records(directory: Path) -> list[MatchRecord]:
    journal = open_journal(directory, create=False)
    try:
        return journal.records()
    finally:
        journal.close()


def test_an_untouched_tournament_verifies(copy: Path) -> None:
    code, text = verify(copy)
    assert code == 0, text
    assert f"{copy}: the journal agrees with the logs" in text
    assert "2 of 2 logs agree with the engine" in text


def test_a_log_changed_after_the_match_is_named(copy: Path) -> None:
    """Rewritten so that it still re-adjudicates (only a think time changes): the engine cannot
    tell, the hash the referee kept can."""
    first = records(copy)[0]
    log = copy / first.log_path
    lines = log.read_text().splitlines()
    for i, line in enumerate(lines):
        record = json.loads(line)
        if record["type"] == "decision":
            record["think_ms"] = 0.001
            lines[i] = json.dumps(record, separators=(",", ":"))
            break
    log.write_text("\n".join(lines) + "\n")
    code, text = verify(copy)
    assert code == 1
    assert f"match {first.key}" in text and "changed after the match" in text


def test_a_missing_log_is_named(copy: Path) -> None:
    first = records(copy)[0]
    (copy / first.log_path).unlink()
    code, text = verify(copy)
    assert code == 1 and f"match {first.key}" in text and "cannot be read" in text


def test_a_forged_journal_row_is_named(copy: Path) -> None:
    """The winner and scores swapped in the journal: the log (intact) says otherwise."""
    first = records(copy)[0]
    db = sqlite3.connect(copy / JOURNAL_FILE)
    try:
        db.execute(
            "UPDATE matches SET score0 = score1, score1 = score0, winner_seat = 1 - winner_seat "
            "WHERE key = ?",
            (first.key,),
        )
        db.commit()
    finally:
        db.close()
    code, text = verify(copy)
    assert code == 1 and f"match {first.key}" in text and "the journal says" in text


def test_a_finished_log_the_journal_does_not_hold_is_named(copy: Path) -> None:
    first = records(copy)[0]
    planted = (copy / first.log_path).with_name("planted.jsonl")
    shutil.copy(copy / first.log_path, planted)
    code, text = verify(copy)
    assert code == 1 and "planted.jsonl: a finished match that the journal does not hold" in text
