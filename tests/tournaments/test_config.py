"""Tournament files, the schedule and the standings arithmetic (no bot processes here)."""

from __future__ import annotations

import dataclasses
import itertools
import textwrap
from pathlib import Path

import pytest

from referee.engine.match import Match
from referee.engine.rules import Rules
from tournaments.executors.local import LocalExecutor
from tournaments.executors.workers import WorkerExecutor, default_workers
from tournaments.file.config import (
    TournamentConfig,
    TournamentFileError,
    load_default,
    load_file,
    parse_text,
)
from tournaments.journal.records import FaultRow, Forfeit, HandRow, MatchRecord
from tournaments.results.ratings import bradley_terry
from tournaments.results.standings import compute_standings, duplicate_pairings
from tournaments.runner import make_executor
from tournaments.schedule import (
    Job,
    MatchSpec,
    build_schedule,
    clash,
    deal_free_runs,
    deal_key,
    deal_sets,
    first_decider,
    make_jobs,
    pairings,
)
from tournaments.teams import rotated

BOTS = """
[[bots]]
name = "a"
command = "{python} -m sample_bots.greedy_bot"

[[bots]]
name = "b"
command = ["prog", "--flag"]
env = { SEED = "1", N = 2 }

[[bots]]
name = "c"
command = "{python} -m sample_bots.random_bot"
"""


def parse(text: str) -> TournamentConfig:
    return parse_text(textwrap.dedent(text), "t.toml", Path.cwd())


def error(text: str) -> str:
    with pytest.raises(TournamentFileError) as info:
        parse(text)
    return str(info.value)


# --- files ------------------------------------------------------------------------------------


def test_the_embedded_default_is_a_round_robin_of_the_sample_bots() -> None:
    config = load_default()
    assert config.format == "round-robin" and config.profile == "standard"
    assert len(config.bots) >= 2
    assert all("sample_bots" in " ".join(b.command) for b in config.bots)
    # No master seed: the deals come from a secret key drawn at the first run, so nobody can
    # work them out from the (public) file; and the bots run sandboxed.
    assert config.seed is None and config.sandbox.mode == "bwrap"


def test_a_full_file_is_read() -> None:
    config = parse_text(
        textwrap.dedent(
            """
            name = "full"
            format = "gauntlet"
            challengers = ["a"]
            matches = 4
            rounds = 2
            duplicate = true
            seed = 7
            concurrency = 3
            processes = "keep"
            recover = false
            out = "somewhere"
            [rules]
            profile = "pagat"
            [rules.set]
            target = 50
            [time]
            move_time = 2
            bank = 0
            connect_timeout = 5.5
            [faults]
            retries = 1
            """
        )
        + BOTS,
        "t.toml",
        Path.cwd(),
    )
    assert (config.format, config.challengers, config.matches, config.rounds) == (
        "gauntlet",
        ("a",),
        4,
        2,
    )
    assert config.duplicate and config.seed == 7 and config.concurrency == 3
    assert config.processes == "keep" and not config.recover
    assert config.rules.profile_name == "pagat" and config.rules.target == 50
    assert config.options.move_time == 2.0 and config.options.bank == 0.0
    assert config.options.retries == 1
    assert config.bot("b").command == ("prog", "--flag")
    assert dict(config.bot("b").env) == {"SEED": "1", "N": "2"}
    assert config.bot("a").command[1:] == ("-m", "sample_bots.greedy_bot")
    assert str(config.out_dir) == "somewhere"


def test_bad_files_name_the_key_and_the_line() -> None:
    out = error("name = 'x'\nmatches = \n" + BOTS)
    assert out.startswith("t.toml:2: not valid TOML: Invalid value")
    out = error("name = 'x'\nmatchs = 3\n" + BOTS)
    assert out.startswith("t.toml:2: matchs: unknown key (did you mean 'matches'?)")
    assert error("matches = 'six'\n" + BOTS).startswith(
        "t.toml:1: matches: expected a whole number, got 'six'"
    )
    assert error("matches = 0\n" + BOTS).startswith("t.toml:1: matches: must be at least 1")
    assert error("format = 'swiss'\n" + BOTS).startswith("t.toml:1: format: 'swiss' is not one of")
    assert error("duplicate = 1\n" + BOTS).startswith("t.toml:1: duplicate: expected true or false")
    assert "t.toml:3: rules.set.colour: unknown rule parameter 'colour'" in error(
        "[rules]\n[rules.set]\ncolour = 'red'\n" + BOTS
    )
    assert "t.toml:4: rules.set.target: target = 'x': expected a number" in error(
        "[rules]\nprofile = 'pagat'\n[rules.set]\ntarget = 'x'\n" + BOTS
    )
    assert error("[rules]\nprofile = 'nope'\n" + BOTS).startswith(
        "t.toml:2: rules.profile: unknown profile 'nope'"
    )
    assert error("[time]\nmove_time = 0\n" + BOTS).startswith(
        "t.toml:2: time.move_time: must be positive"
    )
    assert error("[time]\nmove_tim = 1\n" + BOTS).startswith(
        "t.toml:2: time.move_tim: unknown key (did you mean 'move_time'?)"
    )
    assert error("[faults]\nretries = -1\n" + BOTS).startswith(
        "t.toml:2: faults.retries: must not be negative"
    )
    # Bots are counted from 1 in messages.
    assert error(BOTS + '\n[[bots]]\nname = "d"\n').startswith(
        "t.toml:15: bots[4]: missing key 'command'"
    )
    assert error(BOTS.replace('["prog", "--flag"]', '""')).startswith(
        "t.toml:8: bots[2].command: must not be empty"
    )
    assert error(BOTS.replace('["prog", "--flag"]', '"python \'x"')).startswith(
        "t.toml:8: bots[2].command: cannot split"
    )
    assert error(BOTS.replace("N = 2", "N = true")).startswith(
        "t.toml:9: bots[2].env.N: expected a string, got True"
    )
    assert error(BOTS.replace('name = "c"', 'name = "a"')).startswith(
        "t.toml:12: bots[3].name: another bot is already called 'a'"
    )
    assert error(BOTS.replace('name = "c"', 'name = "c d"')).startswith(
        "t.toml:12: bots[3].name: 'c d': use 1 to 40 letters"
    )
    assert error(BOTS.replace('name = "c"', 'name = "c"\ncwd = "no/such/dir"')).startswith(
        "t.toml:13: bots[3].cwd: 'no/such/dir' is not a directory"
    )
    assert error(BOTS.replace('name = "c"', 'name = "c"\ncolour = 1')).startswith(
        "t.toml:13: bots[3].colour: unknown key"
    )
    assert error("seed = 1\n").startswith("t.toml: no bots")
    assert error("duplicate = true\nmatches = 3\n" + BOTS).startswith(
        "t.toml:1: duplicate: duplicate deals play every deal twice"
    )
    assert error("format = 'gauntlet'\n" + BOTS).startswith(
        "t.toml:1: format: a gauntlet needs at least one challenger"
    )
    assert error("challengers = ['z']\n" + BOTS).startswith(
        "t.toml:1: challengers[1]: 'z' is not one of the bots"
    )
    assert "at least two bots" in error('[[bots]]\nname = "a"\ncommand = "x"\n')


def test_a_sub_table_of_a_bot_is_located() -> None:
    text = BOTS.replace('env = { SEED = "1", N = 2 }', '[bots.env]\nSEED = "1"\nN = []')
    assert error(text).startswith("t.toml:11: bots[2].env.N: expected a string")


def test_a_missing_or_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(TournamentFileError, match="cannot read the tournament file"):
        load_file(tmp_path / "none.toml")
    (tmp_path / "bad.toml").write_bytes(b"\xff\xfe")
    with pytest.raises(TournamentFileError, match="not UTF-8"):
        load_file(tmp_path / "bad.toml")


def test_a_bot_cwd_is_relative_to_the_file(tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir()
    (tmp_path / "t.toml").write_text(BOTS.replace('name = "c"', 'name = "c"\ncwd = "bots"'))
    config = load_file(tmp_path / "t.toml")
    assert config.bot("c").cwd == str((tmp_path / "bots").resolve())


def test_command_line_changes_are_validated() -> None:
    config = parse(BOTS)
    assert config.with_changes(matches=4, duplicate=True).duplicate
    with pytest.raises(Exception, match="must be even"):
        config.with_changes(matches=3, duplicate=True)
    with pytest.raises(Exception, match="challenger 'z'"):
        config.with_changes(challengers=("z",))


def test_a_missing_scope_says_what_to_write_or_type() -> None:
    # One more parameter lifts the error: the file says what to write, the options what to type.
    three = '[rules]\nprofile = "openspiel"\nplayers = 3\n' + BOTS
    assert error(three).endswith(
        'so it needs scope = match (R10.1, R9.9): add scope = "match" to [rules.set]'
    )
    config = parse('[rules]\nprofile = "openspiel"\n' + BOTS)
    with pytest.raises(Exception, match=r"\(R10.1, R9.9\): add --set scope=match$"):
        config.with_changes(rule_overrides=(("players", 3),))


# --- the schedule -----------------------------------------------------------------------------


def config_of(extra: str = "") -> TournamentConfig:
    return parse(extra + BOTS)


def test_formats_give_the_right_pairings() -> None:
    assert pairings(config_of()) == [("a", "b"), ("a", "c"), ("b", "c")]
    gauntlet = config_of("format = 'gauntlet'\nchallengers = ['b']\n")
    assert pairings(gauntlet) == [("b", "a"), ("b", "c")]
    double = config_of("format = 'double-round-robin'\nmatches = 2\n")
    specs = build_schedule(double, deal_key(1))
    assert len(specs) == 3 * 2 * 2 and {s.round for s in specs} == {1, 2}


@pytest.mark.parametrize("profile", ["standard", "pagat", "openspiel"])
def test_seats_and_first_dealer_are_balanced_in_every_pairing(profile: str) -> None:
    config = config_of(f"matches = 8\n[rules]\nprofile = '{profile}'\n")
    rules = config.rules
    specs = build_schedule(config, deal_key(99))
    assert len({s.key for s in specs}) == len(specs) == 24
    for x, y in pairings(config):
        mine = [s for s in specs if s.pairing == (x, y)]
        assert sum(s.seats[0] == x for s in mine) == 4
        if rules.first_dealer in ("seat0", "seat1"):
            continue  # a fixed seat deals: balanced by the seat swap alone
        dealers = [s.seats[first_decider(rules, s.seed)] for s in mine]
        assert dealers.count(x) == 4
        combos = {(s.seats[0] == x, d == x) for s, d in zip(mine, dealers, strict=True)}
        assert len(combos) == 4  # each seat with each first dealer


def test_seeds_derive_from_the_deal_key_alone() -> None:
    config = config_of("matches = 4\n")
    first = build_schedule(config, deal_key(5))
    assert first == build_schedule(config, deal_key(5))
    assert [s.seed for s in first] != [s.seed for s in build_schedule(config, deal_key(6))]
    # Without a master seed the key is secret and random: two runs deal differently.
    unseeded = [s.seed for s in build_schedule(config, deal_key(None))]
    assert unseeded != [s.seed for s in build_schedule(config, deal_key(None))]
    assert len(deal_key(None)) == 32 and deal_key(7) != deal_key(None)
    # Each pairing's deals are its own; with shared deals game k of every pairing plays one.
    assert len({s.seed for s in first}) == len(first)
    shared = build_schedule(config_of("matches = 4\nshared_deals = true\n"), deal_key(5))
    by_game: dict[int, set[int]] = {}
    for s in shared:
        by_game.setdefault(s.game, set()).add(s.seed)
    assert len(by_game) == 4 and all(len(seeds) == 1 for seeds in by_game.values())


def test_duplicate_pairs_share_a_seed_and_swap_seats_so_each_bot_gets_the_others_cards() -> None:
    config = config_of("duplicate = true\nmatches = 6\n")
    rules = config.rules
    specs = [s for s in build_schedule(config, deal_key(3)) if s.pairing == ("a", "b")]
    assert len(specs) == 6
    for first, second in zip(specs[::2], specs[1::2], strict=True):
        assert first.deal == second.deal and first.seed == second.seed
        assert second.seats == (first.seats[1], first.seats[0])
        one, two = Match(rules, first.seed), Match(rules, second.seed)
        for bot in ("a", "b"):
            # The cards bot a held in one match are the cards bot b holds in the other.
            other = "b" if bot == "a" else "a"
            held = one.hand.held(first.seats.index(bot))
            assert held == two.hand.held(second.seats.index(other))
            assert one.hand.dealer == two.hand.dealer
    # The first dealer's seat alternates between deal pairs.
    assert [first_decider(rules, s.seed) for s in specs[::2]] == [0, 1, 0]


def assert_series_hold_no_deal_twice(specs: list[MatchSpec], jobs: list[Job]) -> None:
    """Every match in exactly one job; no job plays a deal twice; its seats move on."""
    played = [m.key for j in jobs for m in j.matches]
    assert sorted(played) == sorted(s.key for s in specs)
    for job in jobs:
        assert len({m.seed for m in job.matches}) == len(job.matches), job.key
        seats = [m.seats for m in job.matches]
        assert all(b == rotated(a, 1) for a, b in itertools.pairwise(seats)), job.key


def test_kept_series_never_hold_both_matches_of_a_duplicate_pair() -> None:
    # A kept process would know the deck of a pair's second match from the first.
    config = config_of("matches = 8\nrounds = 2\nduplicate = true\n")
    specs = build_schedule(config, deal_key(1))
    for lanes in (1, 2, 5):
        jobs = make_jobs(specs, keep=True, lanes=lanes)
        assert_series_hold_no_deal_twice(specs, jobs)
        assert all(len(j.matches) > 1 for j in jobs)
    one_pairing = [s for s in specs if s.pairing == ("a", "b") and s.round == 1]
    series = make_jobs(one_pairing, keep=True)
    assert [[m.game for m in j.matches] for j in series] == [[1, 4, 5, 8], [2, 3, 6, 7]]
    assert clash(series[0], series[1])
    # Two lanes: two series of disjoint deals to play at once, then their twins.
    halves = make_jobs(one_pairing, keep=True, lanes=2)
    assert [[m.game for m in j.matches] for j in halves] == [[1, 4], [2, 3], [5, 8], [6, 7]]
    assert not clash(halves[0], halves[2])
    # Resumed with some matches played: still none twice, whatever is left.
    for gone in ({1}, {2, 3}, {1, 4, 6}):
        left = [s for s in one_pairing if s.game not in gone]
        assert_series_hold_no_deal_twice(left, make_jobs(left, keep=True))
    # Numbered otherwise (a pair's second match as game 3), the twins would fall in one series
    # with alternating seats: it is split there all the same.
    first, second = one_pairing[:2]
    renumbered = deal_sets([first, dataclasses.replace(second, game=3)])
    assert [len(run) for run in deal_free_runs(renumbered)] == [1, 1]


def test_jobs_keep_a_pairing_series_together_with_alternating_seats() -> None:
    config = config_of("matches = 4\nrounds = 2\n")
    specs = build_schedule(config, deal_key(1))
    fresh = make_jobs(specs, keep=False)
    assert len(fresh) == len(specs) and all(len(j.matches) == 1 for j in fresh)
    kept = make_jobs(specs, keep=True)
    assert len(kept) == 3 * 2  # a series per pairing and round
    for job in kept:
        seats = [m.seats for m in job.matches]
        assert all(b == (a[1], a[0]) for a, b in itertools.pairwise(seats))
    # A series missing a match in the middle is split where the seats stop alternating.
    first = kept[0].matches
    split = make_jobs([first[0], first[1], first[3]], keep=True)
    assert [len(j.matches) for j in split] == [2, 1]
    assert len({j.key for j in make_jobs(specs, keep=True)}) == len(kept)
    # Fewer series than lanes: the series are halved to keep every lane busy.
    one_pairing = [s for s in specs if s.pairing == ("a", "b") and s.round == 1]
    halves = make_jobs(one_pairing, keep=True, lanes=2)
    assert [[m.game for m in j.matches] for j in halves] == [[1, 2], [3, 4]]
    assert len(make_jobs(one_pairing, keep=True, lanes=9)) == 4


def test_rules_overrides_change_the_schedule_identity() -> None:
    one = config_of()
    two = config_of("[rules]\n[rules.set]\ntarget = 50\n")
    assert one.identity() != two.identity()
    assert Rules.profile("standard").first_dealer == "random"


# --- standings --------------------------------------------------------------------------------


def record(
    key: str,
    seats: tuple[str, str],
    winner: int | None,
    final: tuple[int, int],
    *,
    deal: int = 1,
    seed: int = 1,
    hands: tuple[HandRow, ...] = (),
    faults: tuple[FaultRow, ...] = (),
    forfeit: Forfeit | None = None,
) -> MatchRecord:
    return MatchRecord(
        key=key,
        seats=seats,
        seed=seed,
        deal=deal,
        match_id=key,
        termination="forfeit" if forfeit else "target",
        winner=winner,
        final=final,
        margin=abs(final[0] - final[1]),
        hands_played=len(hands),
        forfeit=forfeit,
        hands=hands,
        faults=faults,
        decisions=(10, 12),
        think_ms=(5.0, 24.0),
        log_path="x.jsonl",
        log_sha256="0" * 64,
        log_bytes=1,
        started="2026-01-01T00:00:00Z",
    )


def test_standings_count_everything_from_each_bots_seat() -> None:
    hands = (
        HandRow(1, 0, "gin", 0, 30, 0),
        HandRow(2, 1, "undercut", 1, 27, 0),
        HandRow(3, 0, "dead", None, 0, None),
        HandRow(4, 1, "knock", 0, 50, 0),
    )
    crash = FaultRow(0, "crashed", "R11.5", "exit 3", False, 1)
    crashed = Forfeit(0, "crashed", "R11.5", "exit 3")
    both = Forfeit(None, "not_connected", "R11.5", "neither connected")
    records = [
        record("a.b.001", ("a", "b"), 0, (80, 27), hands=hands),
        record("a.b.002", ("b", "a"), 1, (0, 0), faults=(crash,), forfeit=crashed),
        record("a.b.003", ("a", "b"), None, (0, 0), forfeit=both),
    ]
    s = compute_standings("t", ["a", "b"], records, 4, ratings=False)
    a, b = (next(x for x in s.bots if x.name == n) for n in "ab")
    # Both seats forfeited the third match: a loss for each, no point.
    assert (a.rank, a.matches, a.wins, a.losses, a.draws, a.points) == (1, 3, 2, 1, 0, 2.0)
    assert (b.matches, b.wins, b.losses, b.draws, b.points) == (3, 0, 3, 0, 0.0)
    assert (a.score_for, a.score_against) == (80, 27)
    assert (a.hand_points_for, a.hand_points_against, a.hands_won, a.hands) == (80, 27, 2, 4)
    assert (a.gins, a.knocks, a.undercuts, b.undercuts, b.hands_won) == (1, 1, 0, 1, 1)
    assert b.faults["crashed"] == 1 and b.fault_total == 1 and a.fault_total == 0
    assert (a.forfeits, b.forfeits) == (1, 2)  # both forfeited the third match
    assert a.decisions == 10 + 12 + 10 and a.think_ms == pytest.approx(5 + 24 + 5)
    h = s.head_to_head[("a", "b")]
    assert (h.wins, h.draws, h.losses, h.points) == (2, 0, 1, 2.0)
    drawn = record("a.b.004", ("a", "b"), None, (0, 0))  # nobody won, nobody at fault
    tied = compute_standings("t", ["a", "b"], [drawn], 1, ratings=False)
    assert [(x.draws, x.points) for x in tied.bots] == [(1, 0.5), (1, 0.5)]
    assert s.done == 3 and s.total == 4


def test_bradley_terry_orders_the_bots_and_gives_intervals() -> None:
    games = [("a", "b", 1.0)] * 8 + [("a", "b", 0.0)] * 2
    games += [("b", "c", 1.0)] * 7 + [("b", "c", 0.0)] * 3 + [("a", "c", 1.0)] * 9
    games += [("c", "a", 1.0)] * 1
    ratings = bradley_terry(["a", "b", "c"], games)
    (ea, la, ha), (eb, lb, hb), (ec, lc, hc) = ratings["a"], ratings["b"], ratings["c"]
    assert ea > eb > ec
    assert abs(ea + eb + ec) < 0.5  # centred on the field
    assert la < ea < ha and lb < eb < hb and lc < ec < hc
    # A bot that wins everything still gets a finite rating (the prior's virtual draws).
    sweep = bradley_terry(["x", "y"], [("x", "y", 1.0)] * 6)
    assert 0 < sweep["x"][0] < 1000 and sweep["x"][0] == -sweep["y"][0]
    assert bradley_terry(["x", "y"], []) == {}


def test_duplicate_pairs_are_paired_totals() -> None:
    records = [
        record("a.b.001", ("a", "b"), 0, (100, 20), deal=1, seed=5),
        record("a.b.002", ("b", "a"), 0, (100, 40), deal=1, seed=5),
        record("a.b.003", ("a", "b"), 0, (110, 0), deal=2, seed=6),
        record("a.b.004", ("b", "a"), 1, (30, 120), deal=2, seed=6),
        record("a.b.005", ("a", "b"), 1, (10, 100), deal=3, seed=7),
    ]
    (d,) = duplicate_pairings(records)
    assert (d.x, d.y, len(d.pairs), d.unpaired_matches) == ("a", "b", 2, 1)
    first, second = d.pairs
    assert (first.x_points, first.y_points, first.x_score, first.y_score) == (1.0, 1.0, 140, 120)
    assert (second.x_points, second.x_score, second.y_score) == (2.0, 230, 30)
    assert (d.x_pair_wins, d.split, d.y_pair_wins) == (1, 1, 0)
    assert d.mean_diff == pytest.approx(((140 - 120) / 2 + (230 - 30) / 2) / 2)
    assert d.paired_ci is not None and d.unpaired_ci is not None and d.mean_diff is not None
    assert d.paired_ci[0] < d.mean_diff < d.paired_ci[1]


def test_the_bots_check_is_on_unless_the_file_or_the_option_says_otherwise() -> None:
    assert config_of().check_bots is True
    off = config_of("check_bots = false\n")
    assert off.check_bots is False and off.to_dict()["check_bots"] is False
    assert off.identity() == config_of().identity()  # not part of what a resume must match
    assert off.with_keys({"check_bots": True}).check_bots is True
    assert off.with_keys({"check_bots": None}).check_bots is False
    with pytest.raises(TournamentFileError, match=r":1: check_bots: .*true or false"):
        config_of('check_bots = "no"\n')


def test_workers_choose_the_executor(tmp_path: Path) -> None:
    """``workers``: a count of referee processes, never more than the jobs at once; 0 the
    in-process executor; omitted, the cores (at most -j); the file's value, or the option's."""
    assert error("workers = -1\n" + BOTS).startswith("t.toml:1: workers: must be 0 (in-process)")
    config = parse("workers = 3\n" + BOTS)
    assert config.workers == 3 and config.identity() == parse(BOTS).identity()
    chosen = make_executor(config, tmp_path, None, lanes=8)
    assert isinstance(chosen, WorkerExecutor) and chosen.size == 3
    capped = make_executor(config, tmp_path, None, lanes=2)
    assert isinstance(capped, WorkerExecutor) and capped.size == 2
    assert isinstance(make_executor(config, tmp_path, None, 8, workers=0), LocalExecutor)
    cores = make_executor(parse(BOTS), tmp_path, None, lanes=64)
    assert isinstance(cores, WorkerExecutor) and cores.size == default_workers(64)
    assert default_workers(1) == 1
