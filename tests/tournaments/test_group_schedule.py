"""Tournaments of three players (R10.1) and of partnerships (R10.2): the file, its mistakes (each
one line with the file, the line and the key), and the schedule (every triple with its seats
rotated, every two teams with their sides swapped, first dealers balanced, duplicate sets)."""

from __future__ import annotations

import itertools
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from ginref.match_seats import match_rules
from referee.errors import ConfigError, GinRefError
from tournaments.file.config import TournamentConfig, TournamentFileError, parse_text
from tournaments.schedule import (
    build_schedule,
    deal_key,
    first_decider,
    make_jobs,
    pairings,
)


def bots(*names: str) -> str:
    return "".join(f'\n[[bots]]\nname = "{n}"\ncommand = "prog {n}"\n' for n in names)


def teams(*pairs: tuple[str, str, str]) -> str:
    return "".join(f'\n[[teams]]\nname = "{t}"\nbots = ["{a}", "{b}"]\n' for t, a, b in pairs)


def parse(text: str) -> TournamentConfig:
    return parse_text(textwrap.dedent(text), "t.toml", Path.cwd())


def error(text: str) -> str:
    with pytest.raises(TournamentFileError) as info:
        parse(text)
    return str(info.value)


THREE = "[rules]\nplayers = 3\n"
FOUR = "[rules]\nplayers = 4\n"
TEAMS = teams(("x", "a", "b"), ("y", "c", "c"), ("z", "d", "a"))


# --- the file ---------------------------------------------------------------------------------


def test_players_stand_in_rules_or_rules_set_and_partnerships_default_to_125() -> None:
    three = parse(THREE + bots("a", "b", "c"))
    assert three.players == 3 and three.entrants == ["a", "b", "c"] and three.team_entries == ()
    assert parse("[rules]\n[rules.set]\nplayers = '3'\n" + bots("a", "b", "c")).players == 3
    four = parse(FOUR + bots("a", "b", "c", "d") + TEAMS)
    assert four.rules.target == 125  # R10.2's default target
    assert four.entrants == ["x", "y", "z"]
    assert [t.bots for t in four.team_entries] == [("a", "b"), ("c", "c"), ("d", "a")]
    kept = parse(FOUR + "[rules.set]\ntarget = 60\n" + bots("a", "b"))
    assert kept.rules.target == 60  # an explicit target is kept
    # Without [[teams]] every bot partners itself, the team named after the bot.
    selves = parse(FOUR + bots("a", "b"))
    assert [(t.name, t.bots) for t in selves.team_entries] == [("a", ("a", "a")), ("b", ("b", "b"))]
    # A team without a name is named after its bots.
    unnamed = parse(
        FOUR + bots("a", "b") + '[[teams]]\nbots = ["a", "b"]\n' + teams(("y", "b", "b"))
    )
    assert unnamed.entrants == ["a+b", "y"]


def test_teams_and_players_are_part_of_the_identity_only_where_they_play() -> None:
    two = parse(bots("a", "b", "c"))
    assert "teams" not in two.identity()  # a two-player journal keeps its identity
    four = parse(FOUR + bots("a", "b", "c", "d") + TEAMS)
    assert four.identity()["teams"][0] == {"name": "x", "bots": ["a", "b"]}
    assert four.identity()["rules"]["players"] == 4
    swapped = parse(
        FOUR + bots("a", "b", "c", "d") + teams(("x", "b", "a"), ("y", "c", "c"), ("z", "d", "a"))
    )
    assert swapped.identity() != four.identity()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            THREE + bots("a", "b"),
            "t.toml:2: rules.players: three players (players = 3) need at least three bots, got 2",
        ),
        (
            "[rules]\nplayers = 5\n" + bots("a", "b", "c"),
            "t.toml:2: rules.players: players = 5 must be 2, 3 (R10.1) or 4 in partnerships",
        ),
        (
            "[rules]\nprofile = 'openspiel'\nplayers = 3\n" + bots("a", "b", "c"),
            "t.toml:3: rules.players: players = 3 plays a match of many hands, so it needs "
            "scope = match",
        ),
        (
            THREE + "[rules.set]\n" + "first_dealer = 'cut_high_chooses'\n" + bots("a", "b", "c"),
            "t.toml:4: rules.set.first_dealer: players = 3: first_dealer = cut_high_chooses is "
            "a choice between two players",
        ),
        (
            THREE + "[rules.set]\nplayers = 3\n" + bots("a", "b", "c"),
            "t.toml:4: rules.set.players: given twice: here and in [rules]",
        ),
        (
            "[rules]\nplayers = 'three'\n" + bots("a", "b", "c"),
            "t.toml:2: rules.players: expected 2, 3 or 4, got 'three'",
        ),
        (
            bots("a", "b") + teams(("x", "a", "b"), ("y", "b", "a")),
            "t.toml:10: teams[1]: [[teams]] are for partnerships: set players = 4 in [rules] "
            "(this tournament has players = 2)",
        ),
        (
            FOUR + bots("a", "b", "c") + '\n[[teams]]\nname = "x"\nbots = ["a", "b", "c"]\n',
            "t.toml:18: teams[1].bots: a team is two bots (the same one twice for a bot with "
            "itself), got 3",
        ),
        (
            FOUR + bots("a", "b") + teams(("x", "a", "q"), ("y", "b", "b")),
            "t.toml:14: teams[1].bots: no bot is called 'q'",
        ),
        (
            FOUR + bots("a", "b", "c") + teams(("x", "a", "b"), ("y", "b", "b")),
            "t.toml:13: bots[3].name: bot 'c' plays in no team: add it to a [[teams]] table or "
            "remove it",
        ),
        (
            FOUR + bots("a", "b") + teams(("x", "a", "b"), ("x", "b", "b")),
            "t.toml:17: teams[2].name: another team is already called 'x'",
        ),
        (
            FOUR + bots("a", "b") + teams(("x", "a", "b")),
            "t.toml:12: teams[1]: partnerships (players = 4) need at least two teams, got 1",
        ),
        (
            FOUR + bots("a", "b") + '\n[[teams]]\nname = "x"\nbot = ["a", "b"]\n',
            "t.toml:14: teams[1].bot: unknown key (did you mean 'bots'?)",
        ),
        (
            FOUR + bots("a", "b") + '\n[[teams]]\nname = "x"\n',
            "t.toml:12: teams[1]: missing key 'bots': the team's two bots",
        ),
        (
            FOUR + bots("a", "b") + '\n[[teams]]\nname = "x y"\nbots = ["a", "b"]\n',
            "t.toml:13: teams[1].name: 'x y': use 1 to 40 letters, digits, '-' or '_'",
        ),
        (
            "format = 'gauntlet'\nchallengers = ['a', 'b']\n" + THREE + bots("a", "b", "c"),
            "t.toml:2: challengers: a gauntlet of three players seats each challenger with two "
            "bots that are not challengers, and there are 1",
        ),
        (
            "format = 'gauntlet'\nchallengers = ['a']\n" + FOUR + bots("a", "b", "c", "d") + TEAMS,
            "t.toml:2: challengers[1]: 'a' is not one of the teams",
        ),
    ],
)
def test_every_malformed_entry_gets_one_line_with_the_file_the_line_and_the_key(
    text: str, expected: str
) -> None:
    message = error(text)
    assert message.startswith(expected), message
    assert "\n" not in message


def test_command_line_players_are_checked_against_the_field() -> None:
    two = parse(bots("a", "b"))
    with pytest.raises(ConfigError, match=r"three players .* need at least three bots, got 2"):
        two.with_keys({"rules.set": {"players": "3"}})
    # Partnerships of each bot with itself need no [[teams]].
    four = two.with_keys({"rules.set": {"players": "4"}})
    assert four.entrants == ["a", "b"] and four.rules.target == 125
    three = parse(bots("a", "b", "c")).with_keys({"rules.set": {"players": "3"}})
    assert three.players == 3 and three.rules.players == 3
    partners = parse(FOUR + bots("a", "b", "c", "d") + TEAMS)
    with pytest.raises(ConfigError, match=r"\[\[teams\]\] are for partnerships"):
        partners.with_keys({"rules.set": {"players": "3"}})


def test_the_command_line_says_what_is_wrong_in_one_line(tmp_path: Path) -> None:
    file = tmp_path / "t.toml"
    file.write_text(bots("a", "b"))
    result = CliRunner().invoke(
        main, ["tournament", str(file), "--set", "players=3", "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "Error: three players (players = 3) need at least three bots, got 2"
    ]
    assert not (tmp_path / "o").exists()  # nothing was started
    file.write_text(FOUR + bots("a", "b") + teams(("x", "a", "zz"), ("y", "b", "b")))
    result = CliRunner().invoke(main, ["tournament", str(file)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.strip() == f"Error: {file}:14: teams[1].bots: no bot is called 'zz'"


# --- the schedule -----------------------------------------------------------------------------


def seats_per_bot(specs: list) -> Counter[tuple[str, int]]:  # type: ignore[type-arg]
    return Counter((bot, seat) for s in specs for seat, bot in enumerate(s.seats))


@pytest.mark.parametrize("profile", ["standard", "pagat"])
def test_three_players_play_every_triple_each_bot_in_each_seat(profile: str) -> None:
    config = parse(f"matches = 2\n[rules]\nprofile = '{profile}'\nplayers = 3\n" + bots(*"abcd"))
    rules = config.rules
    assert pairings(config) == list(itertools.combinations("abcd", 3))
    specs = build_schedule(config, deal_key(4))
    assert len(specs) == 4 * 2 * 3 and len({s.key for s in specs}) == len(specs)
    assert [s.position for s in specs] == list(range(len(specs)))
    assert specs[0].key == "a.b.c.001" and specs[0].seats == ("a", "b", "c")
    for triple in pairings(config):
        mine = [s for s in specs if s.pairing == triple]
        assert [s.game for s in mine] == list(range(1, 7))
        # Each set of three is the cyclic rotations: every bot in every seat once.
        for k in range(0, 6, 3):
            rotations = [s.seats for s in mine[k : k + 3]]
            assert rotations == [
                tuple(triple[(seat + t) % 3] for seat in range(3)) for t in range(3)
            ]
            # Each bot of the triple deals first once in the set.
            dealers = [s.seats[first_decider(rules, s.seed)] for s in mine[k : k + 3]]
            assert sorted(dealers) == sorted(triple)
        assert set(seats_per_bot(mine).values()) == {2}
    # Without duplicate every match its own deal; with shared deals game k of every triple
    # plays the same one.
    assert len({s.seed for s in specs}) == len(specs)
    shared = build_schedule(config.with_changes(shared_deals=True), deal_key(4))
    by_game: dict[int, set[int]] = {}
    for s in shared:
        by_game.setdefault(s.game, set()).add(s.seed)
    assert all(len(seeds) == 1 for seeds in by_game.values())
    assert len({s.seed for s in shared}) == 6


def test_a_duplicate_set_of_three_shares_its_deal_so_each_bot_holds_each_seats_cards() -> None:
    config = parse("duplicate = true\nmatches = 3\n" + THREE + bots("a", "b", "c"))
    specs = build_schedule(config, deal_key(8))
    assert len(specs) == 9
    for k in range(0, 9, 3):
        one_set = specs[k : k + 3]
        assert len({(s.seed, s.deal) for s in one_set}) == 1
    # The first dealer's seat moves on from set to set.
    rules = config.rules
    assert [first_decider(rules, s.seed) for s in specs[::3]] == [0, 1, 2]


def test_partnerships_play_every_two_teams_with_the_sides_swapped() -> None:
    config = parse("matches = 2\n" + FOUR + bots("a", "b", "c", "d") + TEAMS)
    rules = config.rules
    assert pairings(config) == [("x", "y"), ("x", "z"), ("y", "z")]
    specs = build_schedule(config, deal_key(2))
    assert len(specs) == 3 * 2 * 2
    xy = [s for s in specs if s.pairing == ("x", "y")]
    assert [s.key for s in xy] == [f"x.y.00{k}" for k in range(1, 5)]
    # Team 0 sits in seats 0 and 2, team 1 in seats 1 and 3; the sides swap match by match.
    assert [(s.sides, s.seats) for s in xy[:2]] == [
        (("x", "y"), ("a", "c", "b", "c")),
        (("y", "x"), ("c", "b", "c", "a")),
    ]
    assert [s.sides for s in xy] == [("x", "y"), ("y", "x")] * 2
    # Every bot moves one seat on from game to game, as a series with kept processes moves it.
    assert xy[2].seats == ("b", "c", "a", "c") and xy[3].seats == ("c", "a", "c", "b")
    # Within a set, each team deals first at table 0 once.
    for first, second in zip(xy[::2], xy[1::2], strict=True):
        a = first.sides[first_decider(rules, first.seed)]  # type: ignore[index]
        b = second.sides[first_decider(rules, second.seed)]  # type: ignore[index]
        assert {a, b} == {"x", "y"}
    gauntlet = parse(
        "format = 'gauntlet'\nchallengers = ['z']\n" + FOUR + bots("a", "b", "c", "d") + TEAMS
    )
    assert pairings(gauntlet) == [("z", "x"), ("z", "y")]


def test_a_duplicate_partnership_pair_swaps_the_teams_cards() -> None:
    config = parse("duplicate = true\nmatches = 2\n" + FOUR + bots("a", "b") + teams(
        ("x", "a", "a"), ("y", "b", "b")
    ))  # fmt: skip
    specs = build_schedule(config, deal_key(5))
    from referee.engine.group import GroupMatch

    for first, second in zip(specs[::2], specs[1::2], strict=True):
        assert first.seed == second.seed and first.sides == second.sides[::-1]  # type: ignore[index]
        one, two = GroupMatch(config.rules, first.seed), GroupMatch(config.rules, second.seed)
        for table in (0, 1):
            # The team at hand seat 0 of a table holds the same cards in both matches.
            assert one.tables[table].hand.held(0) == two.tables[table].hand.held(0)


def test_jobs_of_group_matches_name_the_group_and_keep_a_series_of_rotations() -> None:
    config = parse("matches = 2\nrounds = 2\n" + THREE + bots("a", "b", "c", "d"))
    specs = build_schedule(config, deal_key(1))
    jobs = make_jobs(specs, keep=False)
    assert [j.key for j in jobs[:3]] == ["a.b.c/m001", "a.b.d/m001", "a.c.d/m001"]
    assert [j.bots for j in jobs] == [s.seats for s in specs]
    kept = make_jobs(specs, keep=True)
    assert len(kept) == 4 * 2  # a series per triple and round
    assert kept[0].key == "a.b.c/m001-006" and kept[0].bots == ("a", "b", "c")
    for job in kept:
        # The series moves every bot one seat on from match to match.
        seats = [m.seats for m in job.matches]
        assert all(b == (a[1], a[2], a[0]) for a, b in itertools.pairwise(seats))
    partners = parse("matches = 2\n" + FOUR + bots("a", "b", "c", "d") + TEAMS)
    (job, *_) = make_jobs(build_schedule(partners, deal_key(1)), keep=True)
    assert job.key == "x.y/m001-004" and job.bots == ("a", "c", "b", "c")


def test_ginref_match_takes_its_players_from_the_number_of_bots() -> None:
    assert match_rules("standard", [], 2).players == 2
    assert match_rules("pagat", ["players=3"], 3).players == 3
    four = match_rules("standard", [], 4)
    assert four.players == 4 and four.target == 125
    with pytest.raises(ConfigError, match="--set players=4 but 3 bots were given"):
        match_rules("standard", ["players=4"], 3)
    with pytest.raises(ConfigError, match=r"a match is played by 2 bots, 3 .* got 5"):
        match_rules("standard", [], 5)
    with pytest.raises(GinRefError, match="players = 3 plays a match of many hands"):
        match_rules("openspiel", [], 3)
    result = CliRunner().invoke(main, ["match", "a", "b", "c", "--tcp", "d"])
    assert result.exit_code == 1
    assert result.output.strip() == "Error: --tcp d: there is no bot D among 3"
    result = CliRunner().invoke(main, ["match", "a", "b", "c", "d", "e"])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.strip().endswith("Error: Got unexpected extra arguments (e)")


def test_kept_series_of_three_never_hold_a_deal_twice_even_resumed() -> None:
    config = parse("matches = 6\nduplicate = true\n" + THREE + bots("a", "b", "c"))
    specs = build_schedule(config, deal_key(1))
    # Whole sets of three seatings, and sets each missing their middle match (a resumed run,
    # where the numbering alone would put the two left of a set in one series).
    for left in (specs, [s for s in specs if s.game % 3 != 2]):
        jobs = make_jobs(left, keep=True)
        assert sorted(m.key for j in jobs for m in j.matches) == sorted(s.key for s in left)
        for job in jobs:
            assert len({m.seed for m in job.matches}) == len(job.matches), job.key
    assert all(len(j.matches) == 6 for j in make_jobs(specs, keep=True))
