"""The tournament's web page: written at the end of a real tournament and by ``ginref report``,
read back in headless Chromium (tests/support/browser.py); bad directories get one clear line."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from tests.support.browser import Browser
from tests.support.referee_helpers import TESTBOT
from tournaments.journal.records import MatchRecord
from tournaments.journal.store import open_journal
from tournaments.results.standings import Standings, load_standings

pytestmark = pytest.mark.slow  # a real tournament of real bot processes, and a browser

PLAY = f"{{python}} {TESTBOT} play"  # knocks as soon as it may: short matches
FIRST = f"{{python}} {TESTBOT} first"  # always the first legal action
CRASHER = f"{{python}} {TESTBOT} crash 4"  # exits at its fourth decision: a forfeit


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A round robin of three fast bots, one of which crashes in every match."""
    folder = tmp_path_factory.mktemp("t")
    file = folder / "t.toml"
    text = 'name = "tiny"\nseed = 42\n[faults]\nexit_grace = 0.5\nkill_grace = 0.5\n'
    for name, command in (("play", PLAY), ("first", FIRST), ("crasher", CRASHER)):
        text += f'\n[[bots]]\nname = "{name}"\ncommand = "{command}"\n'
    file.write_text(text)
    out = folder / "out"
    code, output = run("tournament", str(file), "--out", str(out), "-j", "2", "-q")
    assert code == 0, output
    written = next(line for line in output.splitlines() if line.startswith("Written: "))
    assert "report.html" in written.split(", ") or written.endswith(" report.html")
    assert (out / "report.html").is_file()
    return out


def records_of(directory: Path) -> list[MatchRecord]:
    journal = open_journal(directory, create=False)
    try:
        return journal.records()
    finally:
        journal.close()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    with Browser(tmp_path / "profile") as b:
        yield b


def table(browser: Browser, ident: str) -> list[list[str]]:
    """The body cells of the table ``ident``, row by row, as the page shows them."""
    rows: list[list[str]] = browser.js(
        f"[...document.querySelectorAll('#{ident} tbody tr')]"
        ".map(tr => [...tr.children].map(td => td.innerText.trim()))"
    )
    return rows


def header(browser: Browser, ident: str) -> list[str]:
    cells: list[str] = browser.js(
        f"[...document.querySelectorAll('#{ident} thead th')].map(th => th.innerText.trim())"
    )
    return cells


def test_the_report_shows_the_standings_bots_and_every_match(
    tournament: Path, browser: Browser
) -> None:
    standings: Standings = load_standings(tournament)
    records = records_of(tournament)
    page = tournament / "report.html"
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)\s*=\s*["'](?!replays/)""", text)  # nothing from outside
    assert "http://" not in text and "https://" not in text and "url(" not in text
    browser.load(page.resolve().as_uri())

    board = table(browser, "leaderboard")
    assert [row[1] for row in board] == [s.name for s in standings.bots]
    columns = header(browser, "leaderboard")
    # In the order the terminal's W-D-L reads.
    assert columns.index("W") + 1 == columns.index("D") == columns.index("L") - 1
    elo = columns.index("Elo [95% interval]")
    for row, s in zip(board, standings.bots, strict=True):
        assert s.elo is not None and s.elo_low is not None and s.elo_high is not None
        # Rounded first, as the page does: a rating of -0.3 reads +0 (the order of the
        # journal's records moves a rating at 0 by a rounding error either way).
        assert row[elo] == f"{round(s.elo):+d} [{round(s.elo_low):+d}, {round(s.elo_high):+d}]"
        assert row[columns.index("W")] == str(s.wins)
        assert row[columns.index("D")] == str(s.draws)
        assert row[columns.index("L")] == str(s.losses)
        assert row[columns.index("Points")] == f"{s.points:g}"

    cross = {row[0]: row[1:] for row in table(browser, "crosstable")}
    names = header(browser, "crosstable")[1:]
    for a in names:
        for b, cell in zip(names, cross[a], strict=True):
            h = standings.head_to_head.get((a, b))
            assert cell == ("x" if a == b else f"{h.wins}-{h.draws}-{h.losses}" if h else "-")

    bots = {row[0]: row for row in table(browser, "bots")}
    columns = header(browser, "bots")
    by = {s.name: s for s in standings.bots}
    assert by["crasher"].faults["crashed"] == 4  # it crashed in each of its four matches
    for name, s in by.items():
        assert bots[name][columns.index("Wins")] == str(s.wins)
        assert bots[name][columns.index("Faults")] == str(s.fault_total)
        assert s.mean_think_ms is not None
        assert bots[name][columns.index("Mean ms per decision")] == f"{s.mean_think_ms:.2f}"
    assert bots["crasher"][columns.index("crashed")] == "4"

    matches = table(browser, "matches")
    assert [row[0] for row in matches] == [r.key for r in records]
    for row, r in zip(matches, records, strict=True):
        assert row[4] == f"{r.final[0]}–{r.final[1]}"
        if r.forfeit is not None:
            assert "crasher forfeits, crashed (R11.5)" in row[3]
    links = browser.js("[...document.querySelectorAll('#matches a')].map(a => a.href)")
    assert len(links) == len(records)
    for link, r in zip(links, records, strict=True):
        assert link.endswith(f"/replays/{r.match_id}.html")
        assert (tournament / "replays" / f"{r.match_id}.html").is_file()
    # A link opens that match's replay page, at its first deal.
    browser.click("#matches a")
    browser.wait_for(f"document.title === 'ginref replay {records[0].match_id}'")
    browser.wait_for("document.body.dataset.line !== undefined")
    browser.screenshot("tournament-replay.png")


def test_ginref_report_redraws_only_the_report(tournament: Path) -> None:
    pages = sorted((tournament / "replays").glob("*.html"))
    before = {p: p.stat().st_mtime_ns for p in pages}
    (tournament / "report.html").unlink()
    code, out = run("report", str(tournament))
    assert code == 0
    assert out.strip() == f"Wrote {tournament / 'report.html'}"
    assert (tournament / "report.html").is_file()
    assert {p: p.stat().st_mtime_ns for p in pages} == before  # the replay pages were kept


def test_a_match_whose_log_is_gone_is_listed_without_a_replay(
    tournament: Path, tmp_path: Path, browser: Browser
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(tournament, copy)
    shutil.rmtree(copy / "replays")
    gone = records_of(copy)[0]
    (copy / gone.log_path).unlink()
    code, out = run("report", str(copy))
    assert code == 0
    assert (
        out.strip() == f"Wrote {copy / 'report.html'} (1 match without a replay page: see "
        "the report)"
    )
    browser.load((copy / "report.html").resolve().as_uri())
    first = table(browser, "matches")[0]
    assert first[0] == gone.key and first[-1].startswith("no replay: ")
    assert "cannot read it" in first[-1]
    assert (
        len(browser.js("[...document.querySelectorAll('#matches a')]")) == len(records_of(copy)) - 1
    )


def test_a_missing_or_damaged_directory_gets_one_clear_line(tmp_path: Path) -> None:
    def fails(directory: Path) -> str:
        code, out = run("report", str(directory))
        assert code == 1
        lines = out.splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), out
        return lines[0]

    assert fails(tmp_path / "nowhere") == f"Error: {tmp_path / 'nowhere'}: no such directory"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "not a tournament directory (no journal.sqlite)" in fails(empty)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "journal.sqlite").write_bytes(b"this is not a database\n" * 100)
    assert fails(broken).startswith("Error: ")
    assert not (broken / "report.html").exists()
