"""ginref verify on logs of three players (R10.1) and two partnerships (R10.2), and the checks
every size of match shares, on logs of two, three and four players alike.

The logs come from tests/support/group_logs.py: a match played with seeded random legal
actions and written in the referee's format, each record held to the log's schema as it is
written (tests/conftest.py). Untouched logs must pass; each tampered copy must fail with one
line naming the changed record's line and what differs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ginref.cli import main
from referee.engine.cards import card_str, parse_card
from referee.timeline import load_replay
from replays.schema import schema_problem
from tests.support.group_logs import group_match_log, group_rules, two_player_log
from tests.support.replay_helpers import records_of, write_records

Change = Callable[[list[dict[str, Any]]], None]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Three players and partnerships, each under standard and pagat (game bonus, boxes,
    shutouts), and a forfeit of each."""
    folder = tmp_path_factory.mktemp("group")
    made = {
        "three": (group_rules(3), 1, None),
        "three-pagat": (group_rules(3, "pagat"), 1, None),
        "three-forfeit": (group_rules(3), 1, 30),
        "four": (group_rules(4), 2, None),
        "four-pagat": (group_rules(4, "pagat"), 1, None),
        "four-forfeit": (group_rules(4), 2, 50),
    }
    return {
        name: group_match_log(folder / f"{name}.jsonl", rules, seed=seed, forfeit_at=at)
        for name, (rules, seed, at) in made.items()
    }


@pytest.fixture(scope="module")
def sized(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """A log of two players, of three, and of partnerships."""
    folder = tmp_path_factory.mktemp("sized")
    return {
        2: two_player_log(folder / "two.jsonl", group_rules(2), seed=2),
        3: group_match_log(folder / "three.jsonl", group_rules(3), seed=1),
        4: group_match_log(folder / "four.jsonl", group_rules(4), seed=2),
    }


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def line_of(records: list[dict[str, Any]], predicate: Callable[[dict[str, Any]], bool]) -> int:
    """The 1-based line of the first record matching ``predicate``."""
    return next(i for i, r in enumerate(records, start=1) if predicate(r))


def fails_at(source: Path, tmp_path: Path, change: Change) -> tuple[int, str]:
    """Verify a changed copy of ``source``: it must fail on one line; return its line and text."""
    records = records_of(source)
    change(records)
    path = write_records(tmp_path / f"changed-{source.name}", records)
    code, out = run("verify", str(path))
    assert code == 1, out
    first = out.splitlines()[0]
    found = re.search(r"^FAIL  \S+  line (\d+)(?: \(\w+\))?: (.*?)(?:  \(\+\d+ more\))?$", first)
    assert found is not None, out
    return int(found.group(1)), found.group(2)


def test_untouched_logs_pass(logs: dict[str, Path]) -> None:
    code, out = run("verify", *map(str, logs.values()))
    assert code == 0, out
    assert f"{len(logs)} of {len(logs)} logs agree with the engine" in out
    lines = {name: next(x for x in out.splitlines() if f"{name}.jsonl" in x) for name in logs}
    for name, path in logs.items():
        end = records_of(path)[-1]
        final = "-".join(map(str, end["final"]))
        who = "3 players" if end["players"] == 3 else "4 players in two teams"
        assert lines[name].startswith("OK ") and who in lines[name] and final in lines[name]
    team = records_of(logs["four"])[-1]["winner"]
    assert f"team {team} (seats {team} and {team + 2}) wins" in lines["four"]
    seat = records_of(logs["three"])[-1]["winner"]
    assert (
        f"seat {seat} ({records_of(logs['three'])[0]['bots'][seat]['label']}) wins"
        in (lines["three"])
    )


def test_the_logs_cover_what_the_checks_are_about(logs: dict[str, Path]) -> None:
    """Several hands, a dead hand dealt again by the same dealer, rounds, forfeits: otherwise
    the tampering tests below would check less than they say."""
    three = load_replay(logs["three"])
    assert three.players == 3 and not three.teams
    results = [s.result for s in three.steps if s.result is not None]
    assert len(results) >= 5 and any(r.winner is None for r in results)
    four = load_replay(logs["four"])
    assert four.players == 4 and four.teams
    assert sum(1 for s in four.steps if s.round is not None) >= 3
    forfeits = [records_of(logs[n])[-1]["forfeit"] for n in ("three-forfeit", "four-forfeit")]
    assert all(f is not None and len(f["seats"]) == 1 for f in forfeits)


@pytest.mark.parametrize("name", ["three", "four"])
def test_a_changed_deck_is_named(name: str, logs: dict[str, Path], tmp_path: Path) -> None:
    records = records_of(logs[name])
    line = [i for i, r in enumerate(records, start=1) if r["type"] == "deal"][1]

    def swap(rs: list[dict[str, Any]]) -> None:
        deck = rs[line - 1]["deck"]
        deck[0], deck[30] = deck[30], deck[0]

    at, message = fails_at(logs[name], tmp_path, swap)
    assert at == line
    assert message == f"the deck of hand {records[line - 1]['hand']} is not the seed's"


@pytest.mark.parametrize("name", ["three", "four"])
def test_a_decision_by_the_wrong_seat_is_named(
    name: str, logs: dict[str, Path], tmp_path: Path
) -> None:
    records = records_of(logs[name])
    line = line_of(records, lambda r: r["type"] == "decision" and r["hand"] == 2)
    seat = records[line - 1]["seat"]
    other = (seat + 1) % len(records[0]["bots"])

    def move(rs: list[dict[str, Any]]) -> None:
        rs[line - 1]["seat"] = other

    at, message = fails_at(logs[name], tmp_path, move)
    assert at == line
    assert message == f"seat {other} acts, but it is seat {seat}'s turn"


def test_a_decision_of_the_sitting_out_seat_is_named(logs: dict[str, Path], tmp_path: Path) -> None:
    records = records_of(logs["three"])
    line = line_of(records, lambda r: r["type"] == "decision")
    deal = records[line_of(records, lambda r: r["type"] == "deal") - 1]
    out = 3 - sum(deal["seats"])

    def move(rs: list[dict[str, Any]]) -> None:
        rs[line - 1]["seat"] = out

    at, message = fails_at(logs["three"], tmp_path, move)
    assert at == line and message.startswith(f"seat {out} acts, but it is seat ")


def test_a_wrong_round_score_is_named(logs: dict[str, Path], tmp_path: Path) -> None:
    records = records_of(logs["four"])
    line = line_of(records, lambda r: r["type"] == "round_result" and r["winner"] is not None)
    round_ = records[line - 1]

    def more(rs: list[dict[str, Any]]) -> None:
        rs[line - 1]["points"] += 5

    at, message = fails_at(logs["four"], tmp_path, more)
    assert at == line
    want = round_["points"]
    assert message == f"round {round_['round']}: points: recorded {want + 5}, engine {want}"

    def swapped(rs: list[dict[str, Any]]) -> None:
        rs[line - 1]["team_hand_points"].reverse()

    at, message = fails_at(logs["four"], tmp_path, swapped)
    assert at == line and message.startswith(f"round {round_['round']}: team_hand_points:")


def test_a_missing_round_result_is_named(logs: dict[str, Path], tmp_path: Path) -> None:
    records = records_of(logs["four"])
    line = line_of(records, lambda r: r["type"] == "round_result")
    number = records[line - 1]["round"]

    def drop(rs: list[dict[str, Any]]) -> None:
        del rs[line - 1]

    at, message = fails_at(logs["four"], tmp_path, drop)
    # The record after it moved up to its line: the next round's first deal.
    assert at == line and message == f"round {number} has no round_result record before this deal"


@pytest.mark.parametrize("name", ["three", "four", "three-forfeit"])
def test_wrong_placings_are_named(name: str, logs: dict[str, Path], tmp_path: Path) -> None:
    records = records_of(logs[name])
    placings = records[-1]["placings"]
    assert placings != placings[::-1]

    def reverse(rs: list[dict[str, Any]]) -> None:
        rs[-1]["placings"] = placings[::-1]

    at, message = fails_at(logs[name], tmp_path, reverse)
    assert at == len(records)
    assert message == f"match result: placings: recorded {placings[::-1]}, engine {placings}"


def test_a_wrong_seat_or_table_in_a_deal_is_named(logs: dict[str, Path], tmp_path: Path) -> None:
    records = records_of(logs["four"])
    line = [i for i, r in enumerate(records, start=1) if r["type"] == "deal"][3]
    deal = records[line - 1]

    def other_table(rs: list[dict[str, Any]]) -> None:
        rs[line - 1]["table"] = 1 - deal["table"]

    at, message = fails_at(logs["four"], tmp_path, other_table)
    assert at == line
    assert message == (
        f"hand {deal['hand']}: table: recorded {1 - deal['table']}, engine {deal['table']}"
    )

    def swapped_seats(rs: list[dict[str, Any]]) -> None:
        rs[line - 1]["seats"].reverse()

    at, message = fails_at(logs["four"], tmp_path, swapped_seats)
    assert at == line and message.startswith(f"hand {deal['hand']}: seats: recorded ")


def test_a_wrong_player_score_after_a_hand_is_named(logs: dict[str, Path], tmp_path: Path) -> None:
    records = records_of(logs["three"])
    line = line_of(records, lambda r: r["type"] == "hand_result" and r["winner"] is not None)

    def more(rs: list[dict[str, Any]]) -> None:
        rs[line - 1]["scores_after"][2] += 1

    at, message = fails_at(logs["three"], tmp_path, more)
    assert at == line and message.startswith(f"hand {records[line - 1]['hand']}: scores_after:")


def test_a_forfeit_names_the_seats_of_its_faults(logs: dict[str, Path], tmp_path: Path) -> None:
    records = records_of(logs["three-forfeit"])
    fault = line_of(records, lambda r: r["type"] == "fault")
    seat = records[fault - 1]["seat"]
    other = (seat + 1) % 3

    def blame(rs: list[dict[str, Any]]) -> None:
        rs[-1]["forfeit"]["seats"] = [other]
        rs[-1]["forfeit"]["seat"] = other

    at, message = fails_at(logs["three-forfeit"], tmp_path, blame)
    assert at == len(records)
    assert message == (
        f"forfeit seats: recorded [{other}], but the faults with retry false are seat {seat}'s"
    )


def test_a_decision_card_changed_to_one_not_held_is_refused(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    records = records_of(logs["four"])
    line = line_of(records, lambda r: r["type"] == "decision" and r["action"]["kind"] == "discard")
    held = records[line - 1]["action"]["card"]
    # The last card of that hand's stock: nobody holds it at the hand's first discard.
    hand = records[line - 1]["hand"]
    deal = next(r for r in records if r["type"] == "deal" and r["hand"] == hand)
    stranger = deal["deck"][-1]
    assert stranger != held

    def change(rs: list[dict[str, Any]]) -> None:
        rs[line - 1]["action"]["card"] = stranger

    at, message = fails_at(logs["four"], tmp_path, change)
    assert at == line
    assert message.startswith("the recorded action is refused:")
    assert f"{card_str(parse_card(stranger))} is not in your hand" in message


def test_two_player_records_stay_strict() -> None:
    """The schema's fields for more players do not make a two-player record looser."""
    end = {
        "type": "match_result", "termination": "target", "winner": 0, "final": [120, 30],
        "margin": 90, "games": [], "forfeit": None, "hands_played": 4,
    }  # fmt: skip
    assert schema_problem(end) is None
    assert schema_problem({**end, "placings": [1, 2]}) is not None
    assert schema_problem({**end, "final": [120, 30, 0]}) is not None
    assert schema_problem({**end, "winner": 2}) is not None
    three = {**end, "players": 3, "final": [120, 30, 0], "placings": [1, 2, 3]}
    assert schema_problem(three) is None
    assert schema_problem({**three, "placings": [1, 2]}) is not None
    assert schema_problem({**three, "final": [120, 30]}) is not None
    assert schema_problem({**three, "teams": True}) is not None
    four = {**end, "players": 4, "placings": [1, 2, 1, 2], "teams": True}
    assert schema_problem(four) is None
    assert schema_problem({k: v for k, v in four.items() if k != "teams"}) is not None
    assert schema_problem({**four, "winner": 2}) is not None


def test_a_two_player_log_with_a_field_of_larger_matches_fails(tmp_path: Path) -> None:
    """A deal of a two-player log that says where it sits is not a two-player deal."""
    from tests.support.replay_helpers import fake_match_log

    source = fake_match_log(tmp_path, target=10)
    records = records_of(source)
    line = line_of(records, lambda r: r["type"] == "deal")

    def place(rs: list[dict[str, Any]]) -> None:
        rs[line - 1].update(seats=[0, 1], table=0)

    at, message = fails_at(source, tmp_path, place)
    assert at == line
    assert message == "hand 1: seats: a field of 3- and 4-player logs, in a 2-player log"


def test_a_round_result_outside_partnerships_is_named(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    records = records_of(logs["three"])
    line = line_of(records, lambda r: r["type"] == "hand_result") + 1

    def add(rs: list[dict[str, Any]]) -> None:
        rs.insert(line - 1, {
            "type": "round_result", "round": 1, "hands": [1, 2], "team_hand_points": [0, 0],
            "winner": None, "points": 0, "scores_after": [0, 0],
        })  # fmt: skip

    at, message = fails_at(logs["three"], tmp_path, add)
    assert at == line
    assert message == (
        "a round_result record in a match of 3 players: only partnerships have rounds"
    )


# --- the checks every size of match shares ------------------------------------------------------


def nth(records: list[dict[str, Any]], kind: str, n: int = 0) -> int:
    """The 0-based index of the ``n``-th record of ``kind``."""
    return [i for i, r in enumerate(records) if r["type"] == kind][n]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_log_of_any_size_passes_untouched(players: int, sized: dict[int, Path]) -> None:
    code, out = run("verify", str(sized[players]))
    assert code == 0 and out.startswith("OK "), out
    assert ("players" in out) == (players > 2)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_commitment_to_the_deal_is_checked(
    players: int, sized: dict[int, Path], tmp_path: Path
) -> None:
    source = sized[players]
    end = len(records_of(source))

    def other_salt(records: list[dict[str, Any]]) -> None:
        records[-1]["deal_salt"] = "00" * 32

    def other_commitment(records: list[dict[str, Any]]) -> None:
        records[0]["deal_commitment"] = "ab" * 32

    for change in (other_salt, other_commitment):
        at, message = fails_at(source, tmp_path, change)
        assert at == end and message.startswith("deal commitment"), message


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_changed_upcard_is_named(players: int, sized: dict[int, Path], tmp_path: Path) -> None:
    records = records_of(sized[players])
    deal = nth(records, "deal")

    def change(rs: list[dict[str, Any]]) -> None:
        rs[deal]["upcard"] = "AS" if rs[deal]["upcard"] != "AS" else "AH"

    at, message = fails_at(sized[players], tmp_path, change)
    assert at == deal + 1 and "upcard: recorded" in message


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_removed_decision_is_named_where_the_next_record_stands(
    players: int, sized: dict[int, Path], tmp_path: Path
) -> None:
    records = records_of(sized[players])
    gone = nth(records, "decision", 5)

    def change(rs: list[dict[str, Any]]) -> None:
        del rs[gone]

    at, _ = fails_at(sized[players], tmp_path, change)
    assert at == gone + 1  # the record that took its place


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_missing_hand_result_and_a_missing_match_result_are_named(
    players: int, sized: dict[int, Path], tmp_path: Path
) -> None:
    records = records_of(sized[players])
    result = nth(records, "hand_result")
    result_hand = records[result]["hand"]

    def no_result(rs: list[dict[str, Any]]) -> None:
        del rs[result]

    # Named after it: a deal that misses it, or (partnerships, whose tables' results come in
    # turn) the next result record, which the engine reads as the missing one.
    at, message = fails_at(sized[players], tmp_path, no_result)
    assert at >= result + 1  # the removed line, or a later one
    assert "no hand_result record" in message or message.startswith(f"hand {result_hand + 1}:")
    path = write_records(tmp_path / "cut.jsonl", records[:-1])
    code, out = run("verify", str(path))
    assert code == 1 and "the log ends before the match result" in out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_clock_and_the_request_ids_are_checked(
    players: int, sized: dict[int, Path], tmp_path: Path
) -> None:
    records = records_of(sized[players])
    decision = nth(records, "decision", 3)
    seat = records[decision]["seat"]

    def too_long(rs: list[dict[str, Any]]) -> None:
        rs[decision]["think_ms"] = 5000.0  # the move time is 1 s, with no bank

    at, message = fails_at(sized[players], tmp_path, too_long)
    assert at == decision + 1 and "a timeout fault was due" in message

    def banked(rs: list[dict[str, Any]]) -> None:
        rs[decision]["bank_ms"] = 250.0

    at, message = fails_at(sized[players], tmp_path, banked)
    assert at == decision + 1 and message.startswith("bank_ms: recorded 250")

    def jump(rs: list[dict[str, Any]]) -> None:
        rs[decision]["request_id"] += 3

    at, message = fails_at(sized[players], tmp_path, jump)
    assert at == decision + 1 and message.startswith(f"seat {seat}'s request ids jump")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_seat_that_never_connected_is_named_at_its_first_decision(
    players: int, sized: dict[int, Path], tmp_path: Path
) -> None:
    records = records_of(sized[players])
    first = nth(records, "decision")
    seat = records[first]["seat"]

    def change(rs: list[dict[str, Any]]) -> None:
        rs[:] = [r for r in rs if not (r["type"] == "connected" and r["seat"] == seat)]

    at, message = fails_at(sized[players], tmp_path, change)
    assert (
        at == first and message == f"seat {seat} decides, but no connected record says it connected"
    )
