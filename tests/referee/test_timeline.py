"""The one walk of a replay log (referee/timeline.py), for two, three and four players.

A whole log is walked with its decks known ahead (build_timeline); a log being written is fed
record by record to a LogFold that keeps no history (the spectator view's way). Both must give
the same steps, and the walk must say where each hand sits and which results it reports.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.replay_log import read_text_log
from referee.timeline import (
    LogFold,
    Step,
    build_timeline,
    forfeit_seats,
    header_rules,
    header_seed,
    load_replay,
)
from tests.support.group_logs import group_match_log, group_rules, two_player_log
from tests.support.replay_helpers import records_of


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    folder = tmp_path_factory.mktemp("walk")
    return {
        2: two_player_log(folder / "two.jsonl", group_rules(2), seed=4, forfeit_at=120),
        3: group_match_log(folder / "three.jsonl", group_rules(3), seed=1),
        4: group_match_log(folder / "four.jsonl", group_rules(4), seed=2),
    }


def shape(step: Step) -> tuple[Any, ...]:
    """What a step says besides the engine's state objects."""
    played = None if step.played is None else (step.played.number, len(step.played.events))
    return (
        step.line, step.kind, step.hand, step.seats, step.table, step.events_from, step.action,
        step.result, step.round, played,
    )  # fmt: skip


@pytest.mark.parametrize("players", [2, 3, 4])
def test_fed_record_by_record_the_walk_gives_the_whole_logs_steps(
    players: int, logs: dict[int, Path]
) -> None:
    timeline = build_timeline(read_text_log(logs[players]))
    assert timeline.complete and timeline.players == players
    records = records_of(logs[players])
    header = records[0]
    fold = LogFold(header_rules(header), header_seed(header), history=False)
    fed = []
    for line, record in enumerate(records, start=1):
        step = fold.feed(line, record)
        assert step is not None
        # No history: the engine changes in place, so a step's before is its after.
        assert step.before is step.after is fold.match
        fed.append(shape(step))
    assert fed == [shape(s) for s in timeline.steps]
    assert fold.match.result == timeline.steps[-1].after.result is not None
    assert fold.decks == timeline.decks


@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_step_says_where_its_hand_sits(players: int, logs: dict[int, Path]) -> None:
    timeline = load_replay(logs[players])
    decisions = [s for s in timeline.steps if s.kind == "decision"]
    for step in decisions:
        seat = step.record["seat"]
        assert step.hand_seat(seat) is not None and step.seats[step.hand_seat(seat) or 0] == seat
        # The state before the record is kept: the seat was asked there.
        assert step.before is not step.after and step.before.to_act == seat
    for step in timeline.steps:
        if step.kind == "deal":
            assert step.played is not None and step.hand == step.record["hand"]
            assert [*step.seats, step.table] == (
                [0, 1, 0] if players == 2 else [*step.record["seats"], step.record["table"]]
            )
        if step.kind == "hand_result":
            assert step.result is not None and step.hand == step.record["hand"]
            assert step.seats == step.result.seats and step.table == step.result.table
    tables = {s.table for s in decisions}
    assert tables == ({0, 1} if players == 4 else {0})
    assert sum(1 for s in timeline.steps if s.round is not None) == (
        len(timeline.steps[-1].after.round_results) if players == 4 else 0
    )


def test_a_deck_that_is_not_the_seeds_shows_when_fed_line_by_line(logs: dict[int, Path]) -> None:
    """Fed line by line, the engine deals from the seed: a deal record's other deck is kept,
    and the step's hand (the engine's) shows the difference; a whole log deals its own."""
    records = records_of(logs[3])
    deal = next(i for i, r in enumerate(records) if r["type"] == "deal")
    deck = records[deal]["deck"]
    deck[0], deck[1] = deck[1], deck[0]
    header = records[0]
    fold = LogFold(header_rules(header), header_seed(header))
    steps = [fold.feed(line, r) for line, r in enumerate(records[: deal + 1], start=1)]
    dealt = steps[-1]
    assert dealt is not None and dealt.played is not None
    assert list(dealt.played.deck) != fold.decks[deal + 1]


def test_a_refused_decision_stops_the_walk_and_says_why(logs: dict[int, Path]) -> None:
    records = records_of(logs[2])
    header = records[0]
    decision = next(i for i, r in enumerate(records) if r["type"] == "decision")
    wrong = dict(records[decision], seat=1 - records[decision]["seat"])
    fold = LogFold(header_rules(header), header_seed(header))
    for line, record in enumerate(records[:decision], start=1):
        assert fold.feed(line, record) is not None
    assert fold.feed(decision + 1, wrong) is None
    assert fold.stopped is not None and fold.stopped[0] == decision + 1
    assert "acts, but it is seat" in fold.stopped[1] and fold.refusal is None
    assert fold.feed(decision + 2, records[decision]) is None  # stopped for good
    unreadable = dict(records[decision], action={"kind": "discard"})
    fold = LogFold(header_rules(header), header_seed(header))
    for line, record in enumerate(records[:decision], start=1):
        fold.feed(line, record)
    assert fold.feed(decision + 1, unreadable) is None
    assert fold.stopped is not None and "cannot be read" in fold.stopped[1]
    assert fold.refusal is not None


@pytest.mark.parametrize(
    ("forfeit", "players", "seats"),
    [
        ({"seat": None}, 2, (0, 1)),  # both seats of a two-player match
        ({"seat": 1}, 2, (1,)),
        ({"seat": 2}, 2, ()),
        ({"seat": True}, 2, ()),
        ({"seat": 0, "seats": [1]}, 2, (0,)),  # a two-player log names its seat only
        ({"seat": None, "seats": [0, 2]}, 3, (0, 2)),
        ({"seat": 1, "seats": [1]}, 4, (1,)),
        ({"seat": 3}, 4, (3,)),
        ({"seat": None}, 3, ()),
        ({"seats": [0, 5]}, 4, ()),
        ({"seats": []}, 4, ()),
        (None, 2, ()),
    ],
)
def test_a_forfeit_names_the_seats_that_can_forfeit(
    forfeit: Any, players: int, seats: tuple[int, ...]
) -> None:
    assert forfeit_seats(forfeit, players) == seats
