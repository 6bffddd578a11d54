"""ginref replay in the terminal for three players (R10.1) and partnerships (R10.2).

Each expectation is read from the log's own records (the deck of a deal, the seats and table,
the scores after a hand or round, the placings), not from the walk that formats them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ginref.cli import main
from referee.engine.cards import parse_card
from replays.words import PLAIN, cards_text
from tests.support.group_logs import group_match_log, group_rules
from tests.support.replay_helpers import records_of


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("three")
    return group_match_log(folder / "three.jsonl", group_rules(3, "pagat"), seed=1)


@pytest.fixture(scope="module")
def four(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("four")
    return group_match_log(folder / "four.jsonl", group_rules(4, "pagat"), seed=2)


def replay(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["replay", "--ascii", "--no-color", *args])
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def blocks(output: str) -> dict[int, list[str]]:
    """The printed lines of each record, by the record's line number (the left column)."""
    out: dict[int, list[str]] = {}
    current: list[str] | None = None
    for text in output.splitlines():
        found = re.match(r"^ *(\d+)  (.*)$", text)
        if found and text[:7].strip().isdigit():
            current = out.setdefault(int(found.group(1)), [])
            current.append(found.group(2))
        elif current is not None and text.strip():
            current.append(text.strip())
    return out


def dealt(record: dict[str, Any], hand_seat: int) -> str:
    """The cards a deal record gives a hand seat: positions 0..19 alternately, the player who
    is not the dealer first (docs/replay-log.md)."""
    first = 1 - record["dealer"]
    own = record["deck"][0:20][(hand_seat - first) % 2 :: 2]
    return cards_text([parse_card(c) for c in own], PLAIN)


def names(records: list[dict[str, Any]]) -> dict[int, str]:
    return {bot["seat"]: f"seat {bot['seat']} ({bot['label']})" for bot in records[0]["bots"]}


def test_three_players_show_who_sits_out_the_hands_and_three_scores(three: Path) -> None:
    code, out = replay(str(three))
    assert code == 0, out
    records = records_of(three)
    shown = blocks(out)
    who = names(records)
    for bot in records[0]["bots"]:
        assert any(x.startswith(f"seat {bot['seat']}: {bot['label']} (") for x in shown[1])
    deals = [(n, r) for n, r in enumerate(records, start=1) if r["type"] == "deal"]
    assert len(deals) >= 5
    for line, deal in deals:
        first, second = deal["seats"]
        out_seat = 3 - first - second
        head, one, two, up = shown[line]
        assert f"Hand {deal['hand']} · {who[out_seat]} deals and sits out" in head
        assert one.startswith(f"{who[first]}, plays first: {dealt(deal, 0)}  (deadwood ")
        assert two.startswith(f"{who[second]}, the dealer's part: {dealt(deal, 1)}  (deadwood ")
        assert up.startswith(f"upcard {deal['upcard']}")
    for line, record in enumerate(records, start=1):
        if record["type"] == "hand_result":
            scores = "–".join(map(str, record["scores_after"]))
            assert shown[line][-1] == f"scores {scores} (hand points of seats 0, 1, 2)"
        if record["type"] == "decision":
            assert shown[line][0].startswith(who[record["seat"]])
    end = records[-1]
    result = shown[len(records)]
    assert f"{who[end['winner']]} wins, {'–'.join(map(str, end['final']))}" in result[0]
    places = {s: int(p) for s, p in zip(range(3), end["placings"], strict=True)}
    for seat, place in places.items():
        assert f"{who[seat]} {place}" in result[1]
    # The final scores term by term: pagat's game bonus and boxes, each seat's sum the log's.
    for seat in range(3):
        line = next(x for x in result if x.startswith(f"{who[seat]}: "))
        assert line.endswith(f"= {end['final'][seat]}")
    assert "game bonus" in " ".join(result) and "boxes" in " ".join(result)


def test_partnerships_show_tables_teams_and_the_rounds_scoring(four: Path) -> None:
    code, out = replay(str(four))
    assert code == 0, out
    records = records_of(four)
    shown = blocks(out)
    who = names(records)
    for seat in range(4):
        assert any(x.startswith(f"seat {seat}: ") and x.endswith(f"team {seat % 2}") for x in
                   shown[1])  # fmt: skip
    table_of: dict[int, int] = {}
    for line, record in enumerate(records, start=1):
        kind = record["type"]
        if kind == "deal":
            table_of[record["hand"]] = record["table"]
            first, second = record["seats"]
            head = shown[line][0]
            assert f"Hand {record['hand']} at table {record['table']}: " in head
            assert f"{who[first]} v {who[second]}" in head
            assert shown[line][1].startswith(f"{who[first]}, team {first % 2}: {dealt(record, 0)}")
            assert shown[line][2].startswith(f"{who[second]}, team {second % 2}: ")
        elif kind == "decision":
            tag = f"[table {table_of[record['hand']]}] {who[record['seat']]}"
            assert shown[line][0].startswith(tag), shown[line]
        elif kind == "round_result":
            head, after = shown[line]
            won = record["team_hand_points"]
            if record["winner"] is None:
                assert f"both teams won {won[0]} hand points" in head
            else:
                assert f"team 0 won {won[0]} hand points, team 1 {won[1]}" in head
                assert head.endswith(f"scores {record['points']}")
            assert after == f"teams {record['scores_after'][0]}–{record['scores_after'][1]}"
    end = records[-1]
    result = shown[len(records)]
    team = end["winner"]
    assert result[0].startswith(f"══ Result: team {team} ({who[team].split('(')[1][:-1]}, ")
    for side in (0, 1):
        assert any(x.startswith(f"team {side} (") and x.endswith(f"= {end['final'][side]}")
                   for x in result)  # fmt: skip


def test_a_seat_sees_only_its_own_hands(three: Path, four: Path) -> None:
    records = records_of(three)
    code, out = replay(str(three), "--seat", "2")
    assert code == 0, out
    shown = blocks(out)
    for line, record in enumerate(records, start=1):
        if record["type"] == "deal" and 2 not in record["seats"]:
            # Sitting out: the hand is dealt, but not a card of it is shown.
            assert "seat 2 (you) deals and sits out" in shown[line][0]
            assert shown[line][1].endswith(": 10 cards") and shown[line][2].endswith(": 10 cards")
        if record["type"] == "decision" and record["seat"] != 2:
            sits_out = 2 not in next(
                r["seats"] for r in records if r["type"] == "deal" and r["hand"] == record["hand"]
            )
            assert (line in shown) != sits_out
    records = records_of(four)
    code, out = replay(str(four), "--seat", "1")
    assert code == 0, out
    shown = blocks(out)
    mine = {r["hand"]: r["table"] for r in records if r["type"] == "deal" and 1 in r["seats"]}
    for line, record in enumerate(records, start=1):
        if record["type"] in ("deal", "decision"):
            assert (line in shown) == (record["hand"] in mine), (line, record)
        if record["type"] == "decision" and record["seat"] == 1:
            assert shown[line][0].startswith(f"[table {mine[record['hand']]}] request")


def test_the_position_at_a_decision_and_the_errors(four: Path, three: Path) -> None:
    records = records_of(four)
    line = next(
        n for n, r in enumerate(records, start=1) if r["type"] == "decision" and r["hand"] == 2
    )
    record = records[line - 1]
    code, out = replay(str(four), "--at", str(line))
    assert code == 0, out
    assert out.startswith(f"Position at line {line} (hand 2, table 1): seat {record['seat']} (")
    assert "Recorded:" in out
    code, out = replay(str(three), "--seat", "3")
    assert code != 0 and out.count("Error: ") == 1
    assert f"{three} is a match of 3 players, seats 0 to 2" in out
    code, out = replay(str(three), "--at", "1")
    assert code != 0 and "line 1 is a header record, not a decision" in out
