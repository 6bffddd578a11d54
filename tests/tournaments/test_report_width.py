"""The standings report at a given width, and the progress ETA, as pure functions."""

from __future__ import annotations

from tests.tournaments.test_config import record
from tournaments.outputs.console import format_standings, format_standings_table
from tournaments.results.standings import compute_standings
from tournaments.runner import Progress

NAMES = [f"bot-number-{i}-with-a-rather-long-name" for i in range(10)]


def many_bots() -> list:  # type: ignore[type-arg]
    records = []
    for i, a in enumerate(NAMES):
        for j, b in enumerate(NAMES[i + 1 :], start=i + 1):
            records.append(record(f"{a}.{b}.001", (a, b), (i + j) % 2, (100, 40 + j)))
    return records


def test_at_80_columns_the_essential_columns_stay_and_every_line_fits() -> None:
    s = compute_standings("wide-field", NAMES, many_bots(), 45)
    text = format_standings(s, 80)
    assert max(len(line) for line in text.splitlines()) <= 80
    head = text.splitlines()[2]
    for column in ("#", "Bot", "Points", "Elo [95% interval]"):
        assert column in head
    assert "Think ms" not in head and "Hand pts +/-" not in head
    for b in s.bots:  # every bot's rank, name, points and Elo interval are there
        row = next(line for line in text.splitlines() if line.startswith(f"{b.rank:>2}  {b.name}"))
        assert f"{b.points:g}" in row and f"[{b.elo_low:+.0f}, {b.elo_high:+.0f}]" in row
    # The head-to-head table is numbered by rank and split into blocks that fit.
    cross = text.split("Head to head (row: W-D-L)\n", 1)[1]
    assert " 1 bot-number-" in cross and "\n\n" in cross.split("Elo:")[0]


def test_without_a_width_every_column_is_there() -> None:
    s = compute_standings("wide-field", NAMES, many_bots(), 45)
    head = format_standings_table(s).splitlines()[0]
    for column in ("Played", "W-D-L", "%", "Score +/-", "Hand pts +/-", "Hands won", "Gins"):
        assert column in head
    assert "Under" in head and "Faults" in head and "Think ms" in head
    assert max(len(line) for line in format_standings(s).splitlines()) > 120


def test_a_very_narrow_width_cuts_the_names_not_the_numbers() -> None:
    s = compute_standings("wide-field", NAMES, many_bots(), 45)
    table = format_standings_table(s, 50)
    assert max(len(line) for line in table.splitlines()) <= 50
    assert "…" in table and "[" in table


def progress(done: int, played: int, elapsed: float, finished_at: float) -> Progress:
    return Progress(
        done=done,
        total=10,
        running=1,
        played=played,
        elapsed=elapsed,
        leader=None,
        finished_at=finished_at,
    )


def test_the_eta_counts_down_between_matches_from_the_mean_time_per_match() -> None:
    assert progress(0, 0, 5.0, 0.0).eta is None  # nothing finished yet
    # Four matches in 40 s: 10 s each, six to go: 60 s at the fourth finish...
    assert progress(4, 4, 40.0, 40.0).eta == 60.0
    # ...counting down as time passes, not growing as the fifth match takes its time.
    assert progress(4, 4, 47.0, 40.0).eta == 53.0
    assert progress(4, 4, 140.0, 40.0).eta == 0.0
    # A resumed run counts only its own matches' time, for the matches left of all.
    assert progress(8, 2, 20.0, 20.0).eta == 20.0
