"""A journal that is damaged, foreign, empty or of another version gets one clear error that
names the file and what to do, from ``ginref tournament`` and ``ginref standings`` alike: never
an ``sqlite3`` traceback."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from tests.tournaments.test_config import record
from tournaments.file.config import parse_text
from tournaments.journal.records import FaultRow
from tournaments.journal.store import JOURNAL_FILE, JournalError, open_journal
from tournaments.schedule import build_schedule, deal_key

TOURNAMENT = """name = "t"
seed = 3
matches = 40
[[bots]]
name = "a"
command = "{python} -m sample_bots.random_bot"
[[bots]]
name = "b"
command = "{python} -m sample_bots.greedy_bot"
"""


def journal_with_matches(tmp_path: Path) -> tuple[Path, Path]:
    """A tournament file and the directory of a journal that holds its schedule and 30 matches
    (enough pages that a cut or an overwrite lands inside the data)."""
    file = tmp_path / "t.toml"
    file.write_text(TOURNAMENT)
    config = parse_text(TOURNAMENT, str(file), tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    journal = open_journal(out)
    schedule = build_schedule(config, deal_key(config.seed))
    bots = [b.to_dict() for b in config.bots]
    journal.initialise(config.identity(), config.to_dict(), bots, schedule)
    session = journal.start_session(1)
    for spec in schedule[:30]:
        journal.commit_match(record(spec.key, spec.seats, 0, (100, 3), seed=spec.seed), session)
    journal.close()
    return file, out


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def overwrite(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[8192:12288] = b"\xa5" * 4096
    path.write_bytes(bytes(data))


def not_sqlite(path: Path) -> None:
    path.write_text("name = 'a tournament file saved under the wrong name'\n")


def foreign(path: Path) -> None:
    path.unlink()
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE notes (text TEXT)")
    db.commit()
    db.close()


def newer(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 7")
    db.commit()
    db.close()


DAMAGES: dict[str, tuple[Callable[[Path], None], str]] = {
    "truncated": (truncate, "is damaged or is not a ginref journal"),
    "overwritten": (overwrite, "is damaged or is not a ginref journal"),
    "not sqlite": (not_sqlite, "is damaged or is not a ginref journal"),
    "another database": (foreign, "is an SQLite database but not a ginref tournament journal"),
    "another version": (newer, "journal has schema version 7; this ginref reads versions 1 to 3"),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_journal_gets_one_line_naming_the_file_and_what_to_do(
    tmp_path: Path, damage: str
) -> None:
    file, out = journal_with_matches(tmp_path)
    spoil, expected = DAMAGES[damage]
    spoil(out / JOURNAL_FILE)
    runner = CliRunner()
    for args in (
        ["tournament", str(file), "--out", str(out), "--sandbox", "none"],
        ["standings", str(out)],
    ):
        result = runner.invoke(main, args)
        assert result.exit_code == 1, result.output
        assert not isinstance(result.exception, sqlite3.Error)
        errors = [line for line in result.stderr.splitlines() if not line.startswith("Warning")]
        assert len(errors) == 1, result.stderr
        (line,) = errors
        assert line.startswith(f"Error: {out / JOURNAL_FILE} ") and expected in line
        assert "--out" in line  # what to do
        assert result.stdout == ""
    assert not (out / "logs").exists()  # nothing was started


def test_the_journal_opens_whole_before_any_damage(tmp_path: Path) -> None:
    _, out = journal_with_matches(tmp_path)
    journal = open_journal(out, create=False)
    try:
        assert len(journal.records()) == 30
    finally:
        journal.close()
    (out / JOURNAL_FILE).write_bytes(b"")
    with pytest.raises(JournalError, match="holds no tournament"):
        open_journal(out, create=False)


def test_a_match_that_cannot_be_stored_whole_leaves_nothing(tmp_path: Path) -> None:
    """A commit that fails halfway (a fault of a seat the match does not have) is rolled back:
    no row of the match is left, and the match can be stored when it is right."""
    _, out = journal_with_matches(tmp_path)
    journal = open_journal(out)
    spec = journal.schedule()[30]
    session = journal.start_session(1)
    bad = record(spec.key, spec.seats, 0, (100, 3), seed=spec.seed)
    bad = replace(bad, faults=(FaultRow(5, "crashed", "R11.5", "gone", False, 1),))
    with pytest.raises(IndexError):
        journal.commit_match(bad, session)
    assert spec.key not in journal.finished_keys() and len(journal.records()) == 30
    journal.commit_match(replace(bad, faults=()), session)
    assert spec.key in journal.finished_keys()
    journal.close()


def test_a_read_only_journal_refuses_every_write(tmp_path: Path) -> None:
    """The live page and verify open the journal read only: a write through it fails, and the
    file is as it was."""
    _, out = journal_with_matches(tmp_path)
    before = (out / JOURNAL_FILE).read_bytes()
    journal = open_journal(out, create=False, read_only=True)
    assert len(journal.records()) == 30
    with pytest.raises((JournalError, sqlite3.OperationalError), match=r"readonly|read-only"):
        journal.start_session(1)
    journal.close()
    assert (out / JOURNAL_FILE).read_bytes() == before
