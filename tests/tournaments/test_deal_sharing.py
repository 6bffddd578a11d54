"""Which matches share a deal: only those the format makes share one (a duplicate pair or set,
a deal set, ``shared_deals = true``); every other match's deal is its own, so the live page can
show its table while it is played. A journal started when game k of every pairing shared one
deal resumes with its own seeds."""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from pathlib import Path

import pytest

from tests.tournaments.test_clash import Recorder
from tests.tournaments.test_config import BOTS, config_of, error, parse
from tournaments.file.config import TournamentConfig, parse_text
from tournaments.journal.store import JournalError, open_journal
from tournaments.runner import TournamentRunner
from tournaments.schedule import (
    MatchSpec,
    build_schedule,
    clash,
    deal_key,
    make_jobs,
    shares_deals,
)
from tournaments.sprt_run import resize

THREE = "[rules]\nplayers = 3\n"
FOUR = "[rules]\nplayers = 4\n"
D = '[[bots]]\nname = "d"\ncommand = "x"\n'

# What ginref scheduled for "matches = 4, seed = 5" and bots a, b, c before deals were each
# pairing's own: game k of every pairing on one deal. A shared-deals schedule must keep them.
SHARED_SEEDS = [
    8618167076553980881,
    6035182218615856879,
    2994326241281898233,
    3439383300570922127,
]


def sharers(specs: list[MatchSpec]) -> list[list[MatchSpec]]:
    """The matches of each seed that more than one match plays."""
    by_seed: dict[int, list[MatchSpec]] = defaultdict(list)
    for spec in specs:
        by_seed[spec.seed].append(spec)
    return [group for group in by_seed.values() if len(group) > 1]


@pytest.mark.parametrize(
    ("extra", "shared_by"),
    [
        ("matches = 4\n", 1),
        ("matches = 4\n" + D, 1),
        ("format = 'double-round-robin'\nmatches = 3\n" + D, 1),
        ("format = 'gauntlet'\nchallengers = ['a']\nmatches = 4\n" + D, 1),
        ("duplicate = true\nmatches = 4\n" + D, 2),
        ("duplicate = true\nrounds = 2\nmatches = 2\n", 2),
        ("matches = 2\n" + D + THREE, 1),
        ("duplicate = true\nmatches = 2\n" + D + THREE, 3),
        ("matches = 2\n" + D + FOUR, 1),
        ("duplicate = true\nmatches = 2\n" + D + FOUR, 2),
    ],
)
def test_matches_share_a_deal_only_where_the_format_says_so(extra: str, shared_by: int) -> None:
    config = config_of(extra)
    assert not shares_deals(config)
    specs = build_schedule(config, deal_key(11))
    groups = sharers(specs)
    if shared_by == 1:
        assert groups == []
        return
    # A duplicate pair (or set): one pairing's one deal, every match of it.
    assert len(groups) * shared_by == len(specs)
    for group in groups:
        assert len(group) == shared_by
        assert len({(s.pairing, s.deal) for s in group}) == 1


def test_shared_deals_play_game_k_of_every_pairing_on_the_seeds_they_always_had() -> None:
    config = config_of("matches = 4\nseed = 5\nshared_deals = true\n")
    assert shares_deals(config)
    specs = build_schedule(config, deal_key(config.seed))
    assert [s.seed for s in specs] == [seed for seed in SHARED_SEEDS for _ in range(3)]
    # Each pairing's own deals are others: one seed per match of a pairing.
    own = build_schedule(config_of("matches = 4\nseed = 5\n"), deal_key(5))
    assert [s.game for s in own] == [s.game for s in specs]
    assert len({s.seed for s in own}) == len(own)
    assert {s.seed for s in own}.isdisjoint(SHARED_SEEDS)


def test_a_deal_set_is_played_by_every_pairing(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text("111\n222\n")
    text = 'matches = 2\ndeals = "d.txt"\n'
    config = parse_text(text + BOTS, "t.toml", tmp_path)
    assert shares_deals(config) and "shared_deals" not in config.identity()
    assert {s.seed for s in build_schedule(config, deal_key(1))} == {111, 222}
    with pytest.raises(Exception, match=r"t\.toml:3: shared_deals: .*deal set"):
        parse_text(text + "shared_deals = false\n" + BOTS, "t.toml", tmp_path)


def test_the_setting_is_read_from_the_file_and_named_in_the_identity() -> None:
    assert "t.toml:2: shared_deals: expected true or false" in error(
        "matches = 2\nshared_deals = 'yes'\n" + BOTS
    )
    # Each pairing's own deals are a new kind of tournament: the identity says so, and a
    # tournament that shares them has the identity it always had (no new key).
    assert config_of().identity()["shared_deals"] is False
    assert "shared_deals" not in parse("shared_deals = true\n" + BOTS).identity()


def test_only_matches_of_one_deal_clash_so_pairings_play_side_by_side() -> None:
    specs = build_schedule(config_of("matches = 2\n"), deal_key(2))
    jobs = {j.key: j for j in make_jobs(specs, keep=False)}
    assert not clash(jobs["a.b/m001"], jobs["a.c/m001"])
    shared = build_schedule(config_of("matches = 2\nshared_deals = true\n"), deal_key(2))
    jobs = {j.key: j for j in make_jobs(shared, keep=False)}
    assert clash(jobs["a.b/m001"], jobs["a.c/m001"])


# --- resuming ---------------------------------------------------------------------------------


def journal_of(config: TournamentConfig, out: Path) -> list[MatchSpec]:
    """A journal in ``out`` holding ``config``'s schedule, as a run that started it leaves it;
    the schedule."""
    out.mkdir(parents=True)
    journal = open_journal(out)
    schedule = build_schedule(config, deal_key(config.seed))
    bots = [b.to_dict() for b in config.bots]
    journal.initialise(config.identity(), config.to_dict(), bots, schedule)
    journal.close()
    return schedule


@pytest.mark.parametrize("shared", [True, False])
def test_a_journal_resumes_with_its_own_seeds_whatever_the_default(
    tmp_path: Path, shared: bool
) -> None:
    out = tmp_path / "t"
    # Shared: its identity is what ginref wrote before the setting existed (no key for it).
    began = config_of(f"matches = 4\nseed = 5\nshared_deals = {str(shared).lower()}\n")
    stored = journal_of(began.with_changes(out=str(out)), out)
    assert ([s.seed for s in stored[::3]] == SHARED_SEEDS) is shared
    # The same file, without the setting: it resumes, and plays the journal's deals.
    runner = TournamentRunner(config_of("matches = 4\n").with_changes(out=str(out)))
    try:
        assert runner.schedule == stored and shares_deals(runner.config) is shared
        result = asyncio.run(runner.run(concurrency=2, executor=Recorder(), check=False))
        assert result.status == "complete"
    finally:
        runner.close()
    # Told to deal the other way, it is another tournament: the journal says so.
    other = config_of(f"matches = 4\nshared_deals = {str(not shared).lower()}\n")
    with pytest.raises(JournalError, match=r"different tournament.*shared_deals"):
        TournamentRunner(other.with_changes(out=str(out)))


def test_a_sequential_test_that_shares_deals_takes_a_new_maximum(tmp_path: Path) -> None:
    two = '[[bots]]\nname = "new"\ncommand = "x"\n[[bots]]\nname = "old"\ncommand = "y"\n'
    text = 'format = "sprt"\nseed = 5\nduplicate = true\n[sprt]\nelo0 = 0\nelo1 = 100\n'
    out = tmp_path / "t"
    old = parse_text("shared_deals = true\n" + text + "max_matches = 20\n" + two)
    stored = journal_of(old, out)
    larger = parse_text(text + "max_matches = 40\n" + two).with_changes(out=str(out))
    config, note = resize(out, larger)
    assert note == "the test's maximum is now 40 matches (it was 20)"
    assert shares_deals(config)
    journal = open_journal(out, create=False)
    try:
        schedule = journal.schedule()
        identity = journal.meta("identity")
    finally:
        journal.close()
    assert schedule[:20] == stored and len(schedule) == 40
    assert "shared_deals" not in json.dumps(identity)  # still the identity it had
