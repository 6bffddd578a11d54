"""``ginref verify DIR`` on a tournament's directory: its journal against its logs.

The directory is a real tournament's (real bot processes; tests/data/audit/make.py plays it
again), kept with its journal and logs; each test changes a copy of it the way someone
falsifying results would, and ``ginref verify`` must name the difference and exit 1. Playing
and verifying fresh tournaments, sandboxed, is the end-to-end tests' part (test_runs.py,
test_workers.py, test_group_e2e.py and others).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from tournaments.journal.records import MatchRecord
from tournaments.journal.store import JOURNAL_FILE, open_journal

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
    assert "6 of 6 logs agree with the engine" in text


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


def forge(directory: Path, sql: str, *args: object) -> None:
    db = sqlite3.connect(directory / JOURNAL_FILE)
    try:
        db.execute(sql, args)
        db.commit()
    finally:
        db.close()


def forfeited(directory: Path) -> MatchRecord:
    """A match the test bot that errs forfeited after a fault forgiven with a retry."""
    return next(r for r in records(directory) if r.forfeit is not None and len(r.faults) >= 2)


@pytest.mark.parametrize(
    ("sql", "named"),
    [
        ("UPDATE faults SET retry = 1 - retry WHERE match_key = ? AND n = 0", "faults:"),
        ("UPDATE faults SET rule = 'R4.2' WHERE match_key = ? AND n = 1", "faults:"),
        ("UPDATE faults SET seat = 1 - seat WHERE match_key = ? AND n = 0", "faults:"),
        ("UPDATE faults SET hand = hand + 1 WHERE match_key = ? AND n = 0", "faults:"),
        ("UPDATE faults SET reason = 'it was late' WHERE match_key = ? AND n = 1", "faults:"),
        ("DELETE FROM faults WHERE match_key = ? AND n = 0", "faults:"),
        ("UPDATE matches SET forfeit_seat = 1 - forfeit_seat WHERE key = ?", "forfeit:"),
        ("UPDATE matches SET forfeit_kind = 'crashed' WHERE key = ?", "forfeit:"),
        ("UPDATE matches SET forfeit_rule = 'R11.4' WHERE key = ?", "forfeit:"),
        ("UPDATE matches SET forfeit_reason = 'it crashed' WHERE key = ?", "forfeit:"),
        ("UPDATE matches SET decisions0 = decisions0 + 1 WHERE key = ?", "decisions:"),
        ("UPDATE matches SET think_ms1 = think_ms1 + 1 WHERE key = ?", "think_ms:"),
        ("UPDATE matches SET hands_played = hands_played + 1 WHERE key = ?", "hands_played:"),
        ("UPDATE matches SET match_id = 'm' || match_id WHERE key = ?", "match_id:"),
        ("UPDATE matches SET started = '2020-01-01T00:00:00+00:00' WHERE key = ?", "started:"),
    ],
)
def test_every_field_the_log_also_holds_is_compared(copy: Path, sql: str, named: str) -> None:
    """A forfeited match's faults (one forgiven with a retry, one not) and its forfeit, each
    field changed in the journal: the log, intact, names the field."""
    match = forfeited(copy)
    forge(copy, sql, match.key)
    code, text = verify(copy)
    assert code == 1 and f"match {match.key}" in text and named in text, text


def test_a_seed_that_is_not_the_schedules_is_named(copy: Path) -> None:
    match = records(copy)[0]
    forge(copy, "UPDATE matches SET seed = seed + 1 WHERE key = ?", match.key)
    code, text = verify(copy)
    assert code == 1 and f"the journal's seed {match.seed + 1} is not the schedule's" in text


def test_a_log_cut_before_its_result_is_named_though_the_journal_was_made_to_match(
    copy: Path,
) -> None:
    """The log cut before its match result, and its size and hash in the journal rewritten
    to match: the walk of the log still finds no result."""
    match = records(copy)[0]
    log = copy / match.log_path
    data = b"".join(log.read_bytes().splitlines(keepends=True)[:-1])
    log.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    sql = "UPDATE matches SET log_bytes = ?, log_sha256 = ? WHERE key = ?"
    forge(copy, sql, len(data), digest, match.key)
    code, text = verify(copy)
    assert code == 1 and "the log ends before its match result" in text, text
