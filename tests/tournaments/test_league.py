"""``ginref ratings``: one rating list over several tournaments' journals, bots linked through
the bots they share, ranked by Elo; what it says of a name with two commands, and of a
directory that holds no tournament."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from click.testing import CliRunner

from ginref.cli import main
from tests.support.scripted import Scripted
from tournaments.file.config import parse_text
from tournaments.results.league import format_league, league
from tournaments.runner import TournamentRunner
from tournaments.schedule import MatchSpec


def play(directory: Path, bots: dict[str, str], strong: str, matches: int = 8) -> None:
    """A round robin of ``bots`` (name -> command) in which ``strong`` wins 3 matches in 4
    and the others split theirs by seat."""
    text = f"seed = 3\nmatches = {matches}\n" + "".join(
        f'\n[[bots]]\nname = "{name}"\ncommand = "{command}"\n' for name, command in bots.items()
    )
    config = parse_text(text, "t.toml").with_changes(out=str(directory), check_bots=False)

    def winner(spec: MatchSpec) -> str:
        if strong in spec.seats:
            other = next(b for b in spec.seats if b != strong)
            return other if spec.game % 4 == 0 else strong
        return spec.seats[0]

    runner = TournamentRunner(config)
    try:
        asyncio.run(runner.run(concurrency=1, executor=Scripted(winner)))
    finally:
        runner.close()


def test_bots_of_different_tournaments_are_rated_on_one_scale(tmp_path: Path) -> None:
    play(tmp_path / "one", {"a": "x a", "b": "x b"}, strong="a")
    play(tmp_path / "two", {"b": "x b", "c": "x c"}, strong="b")
    result = league([tmp_path / "one", tmp_path / "two", tmp_path / "one"])  # one counted once
    s = result.standings
    assert [b.name for b in s.bots] == ["a", "b", "c"]  # a and c never met: linked through b
    elo = {b.name: b for b in s.bots}
    assert elo["a"].elo is not None and elo["b"].elo is not None and elo["c"].elo is not None
    assert elo["a"].elo > elo["b"].elo > elo["c"].elo
    assert elo["a"].elo_low is not None and elo["a"].elo_low < elo["a"].elo < elo["a"].elo_high
    assert (elo["a"].wins, elo["a"].losses, elo["b"].matches) == (6, 2, 16)
    assert result.tournaments == {"a": 1, "b": 2, "c": 1}
    assert s.done == s.total == 16 and len(result.sources) == 2
    assert not any("groups that never met" in n for n in s.rating_notes)
    text = format_league(result)
    assert text.startswith("Ratings over 2 tournaments, 16 matches:")
    assert "Elo over 2 tournaments, ranked by Elo" in text


def test_a_name_with_two_commands_is_one_bot_and_said_so(tmp_path: Path) -> None:
    play(tmp_path / "one", {"a": "x a", "b": "x b"}, strong="a")
    play(tmp_path / "two", {"a": "x a2", "c": "x c"}, strong="a")
    result = league([tmp_path / "one", tmp_path / "two"])
    (note,) = result.notes
    assert note.startswith("a has different commands ('x a' in ") and "'x a2' in " in note


def test_ginref_ratings_prints_tables_csv_json_and_one_line_errors(tmp_path: Path) -> None:
    play(tmp_path / "one", {"a": "x a", "b": "x b"}, strong="a")
    play(tmp_path / "two", {"b": "x b", "c": "x c"}, strong="b")
    runner = CliRunner()
    dirs = [str(tmp_path / "one"), str(tmp_path / "two")]
    table = runner.invoke(main, ["ratings", *dirs])
    assert table.exit_code == 0, table.output
    rows = [line.split() for line in table.output.splitlines() if line[:2] in ("1 ", "2 ", "3 ")]
    assert [r[1] for r in rows[:3]] == ["a", "b", "c"]
    data = json.loads(runner.invoke(main, ["ratings", *dirs, "--format", "json"]).output)
    assert [b["name"] for b in data["bots"]] == ["a", "b", "c"]
    assert data["tournaments_per_bot"] == {"a": 1, "b": 2, "c": 1}
    csv = runner.invoke(main, ["ratings", *dirs, "--format", "csv"]).output.splitlines()
    assert csv[0].startswith("rank,name,") and csv[1].startswith("1,a,")
    missing = runner.invoke(main, ["ratings", dirs[0], str(tmp_path / "nowhere")])
    assert missing.exit_code == 1
    journal = str(tmp_path / "nowhere" / "journal.sqlite")
    assert missing.output == f"Error: no tournament journal at {journal!r}\n"
