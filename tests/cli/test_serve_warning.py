"""The warning ``ginref serve`` closes with when bots were absent: what became of each, in words
(``tests/tournaments/test_serve.py`` checks it on real runs)."""

from __future__ import annotations

from ginref.serve_command import format_absent
from tournaments.results.standings import BotStanding, Standings


def standings(*bots: BotStanding) -> Standings:
    return Standings("t", list(bots), {}, [], 0, 0, "")


def absent(name: str, matches: int, forfeited: int) -> BotStanding:
    return BotStanding(name, matches=matches, faults={"not_connected": forfeited, "timeout": 1})


def test_each_absent_bot_is_told_by_what_became_of_it() -> None:
    table = standings(
        absent("bob", 10, 3),
        absent("carol", 4, 3),
        absent("ghost", 4, 4),
        absent("dave", 2, 2),
        absent("local", 3, 1),
        BotStanding("alice", matches=9, faults={"disconnected": 2}),
    )
    remote = {"alice", "bob", "carol", "ghost", "dave"}
    text = format_absent(table, remote, {"bob", "dave"})
    assert text == (
        "Warning: 13 matches forfeited because bots were absent: bob's token was revoked after "
        "7 matches (3 forfeited), carol left after 1 match (3 forfeited), ghost never came "
        "(4 forfeited), dave's token was revoked before it played (2 forfeited), local never "
        "connected (1 forfeited). Their output files (beside each match's log) say why."
    )


def test_one_forfeit_is_one_match_and_none_is_no_warning() -> None:
    text = format_absent(standings(absent("carol", 3, 1)), {"carol"}, set())
    assert text is not None
    assert text.startswith("Warning: 1 match forfeited because bots were absent: carol left ")
    assert "carol left after 2 matches (1 forfeited)" in text
    assert format_absent(standings(BotStanding("carol", matches=3)), {"carol"}, set()) is None


def test_the_warning_wraps_to_the_width() -> None:
    text = format_absent(standings(absent("ghost", 4, 4)), {"ghost"}, set(), width=30)
    assert text is not None
    lines = text.splitlines()
    assert len(lines) > 1 and all(len(line) <= 30 for line in lines)
    assert all(line.startswith("  ") for line in lines[1:])
