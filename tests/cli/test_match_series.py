"""``ginref match A B -n N``: N matches between two bots in one command, as a two-bot tournament
in --out (seats alternating from one match to the next, as a tournament's pairing plays them),
its standings (W-D-L and Elo with its interval) at the end; the same command resumes it."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from tournaments.journal.store import open_journal

pytestmark = pytest.mark.slow  # the command line playing real matches

GREEDY = f"{sys.executable} -m sample_bots.greedy_bot"
RANDOM = f"{sys.executable} -m sample_bots.random_bot"


def match(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["match", *args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Four single-hand matches of greedy against random, and what ginref printed."""
    out = tmp_path_factory.mktemp("series") / "out"
    code, text = match(
        GREEDY, RANDOM, "-n", "4", "-p", "openspiel", "--seed", "9", "--out", str(out)
    )
    assert code == 0, text
    return out, text


def test_n_matches_are_played_seats_alternating_each_with_its_log(played: tuple[Path, str]) -> None:
    out, _ = played
    journal = open_journal(out, create=False, read_only=True)
    try:
        records = sorted(journal.records(), key=lambda r: r.key)
    finally:
        journal.close()
    assert [r.seats for r in records] == [
        ("greedy_bot", "random_bot"),
        ("random_bot", "greedy_bot"),
    ] * 2
    logs = sorted(out.rglob("*.jsonl"))
    assert len(logs) == 4 and all(out in log.parents for log in logs)


def test_the_summary_is_the_standings_of_a_against_b(played: tuple[Path, str]) -> None:
    _, text = played
    assert "Tournament complete: 4 of 4 matches" in text
    assert "W-D-L" in text and "Elo [95% interval]" in text
    head_to_head = text[text.index("Head to head") :].splitlines()
    row = head_to_head[2].split()
    assert row[0] == "greedy_bot" and row[-1] != "x"
    # The last line says it once more: A against B, and the Elo difference with its interval,
    # twice A's rating and interval (the table's are rounded: a unit apart at most).
    elo = next(line for line in text.splitlines() if line.startswith("1  greedy_bot")).split()
    table = [int(elo[6]), int(elo[7].strip("[,")), int(elo[8].strip("]"))]
    last = text.splitlines()[-1]
    assert last.startswith(f"greedy_bot against random_bot: {row[-1]} (W-D-L); Elo difference ")
    said = [int(word) for word in re.findall(r"[+-]\d+", last.split("difference")[1])]
    assert len(said) == 3 and all(abs(d - 2 * t) <= 1 for d, t in zip(said, table, strict=True))


def test_the_same_command_resumes_and_plays_nothing_again(played: tuple[Path, str]) -> None:
    out, _ = played
    code, text = match(
        GREEDY, RANDOM, "-n", "4", "-p", "openspiel", "--seed", "9", "--out", str(out)
    )
    assert code == 0, text
    assert "4 of 4 matches in the journal; this run played 0" in text


def test_a_bot_against_itself_gets_two_names(tmp_path: Path) -> None:
    code, text = match(GREEDY, GREEDY, "-n", "2", "-p", "openspiel", "--out", str(tmp_path / "o"))
    assert code == 0, text
    assert "greedy_bot-a" in text and "greedy_bot-b" in text


def test_n_is_for_two_bots(tmp_path: Path) -> None:
    code, text = match(GREEDY, RANDOM, GREEDY, "-n", "2", "--out", str(tmp_path))
    assert code == 2
    assert text.strip().splitlines()[-1] == (
        "Error: -n 2 plays two bots; for three or four, write a tournament file "
        "(docs/tournaments.md)"
    )
