"""A tournament's web report written to its directory, with a replay page for each match.

:func:`write_report` is what ``ginref report DIR`` and the end of every ``ginref tournament`` run
do. It reads the journal (read only, so it works while a tournament runs), writes each match's
replay page into ``DIR/replays/`` (:func:`replays.html.render_html`; a page newer than its log is
kept: a run that resumes redraws only the new matches) and ``DIR/report.html``
(:mod:`tournaments.outputs.web_page`).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from referee.errors import GinRefError
from referee.timeline import load_replay
from replays.html import render_html
from tournaments.journal.records import MatchRecord
from tournaments.journal.store import JOURNAL_FILE, open_journal
from tournaments.outputs.web_page import REPLAYS_DIR, REPORT_FILE, render_report
from tournaments.results.standings import journal_standings


def _write(path: Path, text: str) -> None:
    """Write ``text`` whole or not at all (a reader never sees half a page)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def replay_page(directory: Path, record: MatchRecord) -> tuple[str | None, str]:
    """Write (or keep) ``record``'s replay page; its link relative to the report, or None and
    why there is none."""
    log = directory / record.log_path
    page = directory / REPLAYS_DIR / f"{record.match_id}.html"
    link = f"{REPLAYS_DIR}/{record.match_id}.html"
    try:
        if page.exists() and page.stat().st_mtime >= log.stat().st_mtime:
            return link, ""
        _write(page, render_html(load_replay(log)))
    except GinRefError as exc:
        return None, f"no replay: {exc}"
    except OSError as exc:
        return None, f"no replay: {record.log_path}: {exc.strerror or exc}"
    return link, ""


def write_report(directory: Path) -> tuple[Path, int]:
    """Write the report and the replay pages of the tournament in ``directory``; the report's
    path and how many matches have no replay page. Raises :class:`GinRefError` for a directory
    that holds no readable tournament."""
    if not directory.is_dir():
        raise GinRefError(f"{directory}: no such directory")
    if not (directory / JOURNAL_FILE).is_file():
        raise GinRefError(f"{directory}: not a tournament directory (no {JOURNAL_FILE})")
    journal = open_journal(directory, create=False)
    try:
        standings = journal_standings(journal)
        records = journal.records()
    except sqlite3.Error as exc:
        raise GinRefError(f"{directory}: the journal cannot be read: {exc}") from None
    finally:
        journal.close()
    try:
        (directory / REPLAYS_DIR).mkdir(exist_ok=True)
        links: dict[str, str | None] = {}
        notes: dict[str, str] = {}
        for record in records:
            links[record.key], notes[record.key] = replay_page(directory, record)
        path = directory / REPORT_FILE
        _write(path, render_report(standings, records, links, notes))
    except OSError as exc:
        where = exc.filename or directory
        raise GinRefError(f"cannot write the report: {where}: {exc.strerror or exc}") from None
    return path, sum(1 for link in links.values() if link is None)
