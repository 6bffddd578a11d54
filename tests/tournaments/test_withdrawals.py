"""A bot taken out of a tournament, without playing: the forfeits a withdrawal gives (two, three
and four players, as the engine forfeits a seat that never connected), what a disqualification
strikes, the journal's record of both, and the identity check's sentences."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tournaments.journal.identity import differences
from tournaments.journal.records import MatchRecord
from tournaments.journal.store import JournalError, open_journal, out_of_play
from tournaments.journal.withdrawals import (
    DISQUALIFIED,
    WITHDRAWN,
    Withdrawal,
    counted,
    forfeit_record,
    is_withdrawal,
)
from tournaments.results.standings import compute_standings
from tournaments.schedule import MatchSpec


def spec(seats: tuple[str, ...], n: int = 1, sides: tuple[str, str] | None = None) -> MatchSpec:
    key = ".".join((*seats, str(n)))
    return MatchSpec(key, n, 1, seats, n, n, 1000 + n, seats, sides)


def played(s: MatchSpec, winner: int) -> MatchRecord:
    """A played two-player match ``winner`` won 100 to 0."""
    record = forfeit_record(s, {s.seats[1 - winner]})
    return dataclasses.replace(
        record,
        termination="target",
        forfeit=None,
        final=tuple(100 if k == winner else 0 for k in range(2)),
        match_id=f"m{s.position}",
        log_path=f"logs/{s.key}.jsonl",
    )


def test_a_withdrawn_seat_of_two_forfeits_to_its_opponent() -> None:
    r = forfeit_record(spec(("a", "b")), {"b"})
    assert r.termination == "forfeit" and r.winner == 0 and r.placings == (1, 2)
    assert r.forfeit is not None and r.forfeit.seat == 1 and r.forfeit.kind == WITHDRAWN
    assert r.pairs() == [(0, 1, 1.0)] and is_withdrawal(r) and r.hands == ()
    both = forfeit_record(spec(("a", "b")), {"a", "b"})
    # Both out: a loss for each, as when neither bot connects.
    assert both.winner is None and both.pairs() == [(0, 1, None)]


def test_a_withdrawn_seat_of_three_leaves_the_other_two_level() -> None:
    r = forfeit_record(spec(("a", "b", "c")), {"c"})
    assert r.winner is None and r.placings == (1, 1, 3) and r.final == (0, 0, 0)
    assert r.forfeit is not None and r.forfeit.seats == (2,)
    assert r.pairs() == [(0, 1, 0.5), (0, 2, 1.0), (1, 2, 1.0)]
    two = forfeit_record(spec(("a", "b", "c")), {"a", "c"})
    assert two.winner == 1 and two.placings == (2, 1, 2)


def test_a_withdrawn_partner_loses_the_match_for_its_team() -> None:
    r = forfeit_record(spec(("a", "b", "c", "d"), sides=("ac", "bd")), {"c"})
    assert r.winner == 1 and r.final == (0, 0)  # team 1: b and d
    assert r.placings == (3, 1, 3, 1)
    assert {(i, j): s for i, j, s in r.pairs()} == {
        (0, 1): 0.0,
        (0, 3): 0.0,
        (1, 2): 1.0,
        (2, 3): 0.0,
    }


def test_withdrawn_keeps_what_was_played_and_forfeits_the_rest_unrated() -> None:
    schedule = [spec(("a", "b"), 1), spec(("a", "c"), 2), spec(("b", "c"), 3), spec(("a", "c"), 4)]
    records = [played(schedule[0], 0), played(schedule[1], 1)]  # c beat a once
    out = counted(schedule, records, [Withdrawal("c", WITHDRAWN, "t")])
    assert out.total == 4 and [r.key for r in out.records] == [s.key for s in schedule]
    assert out.records[1] is records[1]  # played: it stands
    assert out.played == {"c": 1} and out.forfeited == {"c": 2}
    assert out.notes() == [
        "c withdrew: 1 match it played stands, 2 matches left forfeited to its opponents "
        "(scored, not rated)"
    ]
    s = compute_standings("t", ["a", "b", "c"], out.records, out.total)
    by = {x.name: x for x in s.bots}
    assert (by["c"].wins, by["c"].losses, by["c"].forfeits) == (1, 2, 2)
    assert (by["a"].wins, by["a"].losses) == (2, 1) and by["b"].wins == 1
    # Unrated: the ratings are those of the games alone (a beat b, c beat a).
    games = compute_standings("t", ["a", "b", "c"], records, 2)
    assert {x.name: x.elo for x in s.bots} == {x.name: x.elo for x in games.bots}


def test_disqualified_strikes_every_match_it_sat_in_and_ranks_last() -> None:
    schedule = [spec(("a", "b"), 1), spec(("a", "c"), 2), spec(("b", "c"), 3)]
    records = [played(schedule[0], 1), played(schedule[1], 1)]  # b beat a, c beat a
    out = counted(schedule, records, [Withdrawal("c", DISQUALIFIED, "t")])
    assert out.total == 1 and out.records == [records[0]] and out.struck == {"c": 2}
    assert out.notes() == [
        "c was disqualified: its results are struck (2 matches it sat in, played or not, "
        "count for nobody)"
    ]
    s = compute_standings("t", ["a", "b", "c"], out.records, 1, withdrawn={"c": DISQUALIFIED})
    assert [x.name for x in s.bots][-1] == "c" and s.bots[-1].matches == 0
    assert s.head_to_head[("a", "c")].matches == 0 and s.done == s.total == 1


def test_the_journal_keeps_withdrawals_and_refuses_what_makes_no_sense(tmp_path: Path) -> None:
    journal = open_journal(tmp_path)
    try:
        journal.initialise({}, {}, [{"name": "a"}, {"name": "b"}], [spec(("a", "b"))])
        assert journal.withdrawals() == [] and out_of_play(tmp_path) == set()
        journal.withdraw("b", WITHDRAWN)
        with pytest.raises(JournalError, match="b was already withdrawn"):
            journal.withdraw("b", WITHDRAWN)
        with pytest.raises(JournalError, match="'x' is not a bot of the tournament"):
            journal.withdraw("x", WITHDRAWN)
        journal.withdraw("b", DISQUALIFIED)  # a withdrawn bot may be struck later
        with pytest.raises(JournalError, match="b was already disqualified"):
            journal.withdraw("b", WITHDRAWN)
    finally:
        journal.close()
    again = open_journal(tmp_path, create=False, read_only=True)
    try:
        assert [(w.bot, w.kind) for w in again.withdrawals()] == [("b", DISQUALIFIED)]
        assert again.version == 3  # an older ginref, which would play b again, refuses it
    finally:
        again.close()
    assert out_of_play(tmp_path) == {"b"}


BOTS = [
    {"name": "alice", "command": ["python", "a.py"], "cwd": None, "env": {}},
    {"name": "bob", "command": ["python", "b.py"], "cwd": None, "env": {}},
]


@pytest.mark.parametrize(
    ("change", "sentence"),
    [
        (
            {"bots": BOTS[:1]},
            "the bot bob is not in the file any more (a bot cannot leave a tournament that has "
            "begun: use 'ginref withdraw FILE bob' to take it out of play, and keep it in the "
            "file)",
        ),
        (
            {"bots": [*BOTS, {"name": "carl", "remote": True}]},
            "the bot carl is new (a tournament takes no new bot once it has begun: start another "
            "one, in another --out directory)",
        ),
        (
            {"bots": [BOTS[0], {**BOTS[1], "command": ["python", "b2.py", "--fast mode"]}]},
            "the bot bob's command differs (python b.py in the journal, python b2.py "
            "'--fast mode' now)",
        ),
        (
            {"bots": [BOTS[0], {**BOTS[1], "env": {"SEED": "2"}}]},
            "the bot bob's environment differs (none in the journal, SEED = 2 now)",
        ),
        (
            {"bots": [BOTS[0], {"name": "bob", "remote": True}]},
            "the bot bob is local in the journal, remote now",
        ),
        ({"bots": BOTS[::-1]}, "the bots are in another order (alice, bob in the journal; bob, "),
        (
            {"rules": {"profile_name": "standard", "target": 150}},
            "the rule target differs (100 in the journal, 150 now)",
        ),
        ({"matches": 4}, "matches differs (2 in the journal, 4 now)"),
        ({"format": "gauntlet"}, "format differs (round_robin in the journal, gauntlet now)"),
        ({"time": {"move_time": 2.5, "bank": 10.0}}, "time.move_time differs (1 in the journal"),
        ({"challengers": ["bob"]}, "challengers differs (none in the journal, bob now)"),
    ],
)
def test_each_difference_is_a_sentence_without_a_repr(change: dict, sentence: str) -> None:
    stored = {
        "bots": BOTS,
        "rules": {"profile_name": "standard", "target": 100},
        "format": "round_robin",
        "matches": 2,
        "challengers": [],
        "time": {"move_time": 1.0, "bank": 10.0},
    }
    (said,) = differences(stored, {**stored, **change})
    assert said.startswith(sentence)
    assert not set(said) & set("{}[]"), said


def test_a_withdrawn_bot_may_change_or_leave_the_file() -> None:
    stored = {"bots": BOTS}
    changed = [BOTS[0], {**BOTS[1], "command": ["gone"]}]
    assert differences(stored, {"bots": changed}, {"bob"}) == []
    assert differences(stored, {"bots": BOTS[:1]}, {"bob"}) == []
    assert differences(stored, {"bots": BOTS[:1]}, {"alice"}) != []
