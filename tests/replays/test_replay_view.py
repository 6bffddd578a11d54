"""ginref replay in the terminal, for two players, three (R10.1) and partnerships (R10.2).

The two-player tests read real logs of real matches (greedy v random bot processes, conftest.py):
every event, the showdown, a seat's view against what the referee sent it, --hand, --step, the
colours, the result term by term. The tests of more players read logs written without a referee
(tests/support/group_logs.py), and each expectation is read from the log's own records (the deck
of a deal, the seats and table, the scores after a hand or round, the placings), not from the
walk that formats them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ginref.cli import main
from referee.convert import EventEncoder
from referee.engine.actions import Discard, DrawStock, Knock
from referee.engine.cards import card_str, parse_card
from referee.engine.rules import Rules
from referee.requests import decision_request_pb
from referee.series import run_match
from referee.timeline import load_replay, request_observation, seat_observation
from referee.wire import ginrummy_pb2 as pb
from replays.view import format_replay
from replays.words import PLAIN, Style, card_text, cards_text, legal_text
from tests.support.group_logs import group_match_log, group_rules, two_player_log
from tests.support.referee_helpers import FAST
from tests.support.replay_helpers import CONFIGS, GREEDY, RANDOM, lines_of, records_of, write_lines

slow = pytest.mark.slow  # logs of real matches


def run(*args: str, input: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), input=input)
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def replay(*args: str) -> tuple[int, str]:
    """ginref replay in plain text: no symbols, no colours."""
    return run("replay", "--ascii", "--no-color", *args)


@pytest.fixture(scope="module")
def fake_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """By number of players, a pagat match of seeded random players, written without a referee
    (game bonus and boxes)."""
    folder = tmp_path_factory.mktemp("fake")
    return {
        2: two_player_log(folder / "two.jsonl", Rules.profile("pagat", target=60), seed=1),
        3: group_match_log(folder / "three.jsonl", group_rules(3, "pagat"), seed=1),
        4: group_match_log(folder / "four.jsonl", group_rules(4, "pagat"), seed=2),
    }


@pytest.fixture(scope="module")
def three(fake_logs: dict[int, Path]) -> Path:
    return fake_logs[3]


@pytest.fixture(scope="module")
def four(fake_logs: dict[int, Path]) -> Path:
    return fake_logs[4]


# --- two players: real logs ---------------------------------------------------------------------


@slow
@pytest.mark.parametrize("name", list(CONFIGS))
@slow
def test_a_replay_shows_every_event(name: str, logs: dict[str, Path]) -> None:
    path = logs[name]
    code, out = run("replay", str(path), "--ascii")
    assert code == 0, out
    shown = {int(m.group(1)) for m in re.finditer(r"^ {0,4}(\d+)  ", out, re.MULTILINE)}
    assert shown == set(range(1, len(lines_of(path)) + 1))
    records = records_of(path)
    for number, record in enumerate(records, start=1):
        line = next(x for x in out.splitlines() if re.match(rf"^ {{0,4}}{number}  ", x))
        if record["type"] == "decision":
            assert f"seat {record['seat']} (" in line
            action = record["action"]
            if action["kind"] == "discard":
                assert f"discards {action['card']}" in line
        elif record["type"] == "deal":
            assert f"Hand {record['hand']} " in line
        elif record["type"] == "hand_result":
            assert f"Hand {record['hand']} result" in line
    end = records[-1]
    assert f"Result: seat {end['winner']} " in out
    assert f"{end['final'][0]}–{end['final'][1]}" in out


@slow
def test_the_showdown_shows_melds_layoffs_deadwood_and_the_score(logs: dict[str, Path]) -> None:
    for path in logs.values():
        timeline = load_replay(path)
        text = "\n".join("\n".join(b) for b in format_replay(timeline, PLAIN))
        for step in timeline.steps:
            result = step.result
            if result is None:
                continue
            assert f"score {result.scores_after[0]}–{result.scores_after[1]}" in text
            if result.knocker_arrangement is not None:
                for meld in result.knocker_arrangement.melds:
                    assert "[" + " ".join(card_str(c) for c in meld.cards) + "]" in text
                assert f"= {result.knocker_deadwood}" in text
            if result.defender is not None:
                for card, index in result.defender.layoffs:
                    target = result.knocker_arrangement.melds[index].cards  # type: ignore[union-attr]
                    shown = "[" + " ".join(card_str(c) for c in target) + "]"
                    assert f"{card_str(card)} on {shown}" in text


@slow
def test_seat_view_is_what_the_referee_sent(tmp_path: Path) -> None:
    """Every DecisionRequest the referee wrote to seat 0 in a real match equals the one rebuilt
    from the log with observe() and the converter, and the seat view shows only its cards."""
    sent: dict[int, pb.DecisionRequest] = {}

    def capture(seat: int, message: pb.RefereeMessage, hand: Any) -> None:
        if seat == 0 and message.WhichOneof("kind") == "decision_request":
            copy = pb.DecisionRequest()
            copy.CopyFrom(message.decision_request)
            sent[copy.request_id] = copy

    outcome = run_match(GREEDY, RANDOM, Rules.profile("pagat"), 4, tmp_path, FAST, on_send=capture)
    timeline = load_replay(outcome.log_path)
    mine = [s for s in timeline.steps if s.kind == "decision" and s.record["seat"] == 0]
    assert mine and len(mine) == len(sent)
    for step in mine:
        obs = request_observation(step)
        assert obs is not None
        rebuilt = decision_request_pb(obs, EventEncoder(0), step.record["request_id"], 0, 0, 0)
        original = sent[step.record["request_id"]]
        assert rebuilt.decision_request.observation == original.observation
        assert list(rebuilt.decision_request.legal_actions) == list(original.legal_actions)

    code, out = run("replay", str(outcome.log_path), "--seat", "0", "--ascii")
    assert code == 0, out
    for step in timeline.steps:
        if step.kind != "decision" or step.action is None:
            continue
        line = next(x for x in out.splitlines() if "(" in x and x.startswith(f"{step.line:>5}"))
        drawn = [e.card for e in step.played.events[step.events_from :] if e.kind == "draw_stock"]  # type: ignore[union-attr]
        if isinstance(step.action, DrawStock) and drawn:
            card = card_str(drawn[0])  # type: ignore[arg-type]
            if step.record["seat"] == 0:
                assert f"draws {card} from the stock" in out
            else:
                assert "draws from the stock" in line and card not in line
    deals = [s for s in timeline.steps if s.kind == "deal"]
    for deal in deals:
        own = seat_observation(deal, 0).hand
        assert cards_text(own, PLAIN) in out
        other = seat_observation(deal, 1).hand
        assert cards_text(other, PLAIN) not in out
    assert "seat 0 (you)" in out and "seat 1 (random_bot): 10 cards" in out


@slow
def test_hand_jumps_to_a_hand(logs: dict[str, Path]) -> None:
    path = logs["oklahoma"]
    records = records_of(path)
    deal3 = next(
        n for n, r in enumerate(records, start=1) if r["type"] == "deal" and r["hand"] == 3
    )
    code, out = run("replay", str(path), "--hand", "3")
    assert code == 0, out
    numbers = [int(m.group(1)) for m in re.finditer(r"^ {0,4}(\d+)  ", out, re.MULTILINE)]
    assert numbers[0] == 1 and numbers[1] == deal3  # the header, then hand 3 on
    assert numbers[-1] == len(records)
    assert "Hand 1 " not in out and "Hand 3 " in out


@slow
def test_step_waits_for_a_key_between_events(standard: Path) -> None:
    code, out = run("replay", str(standard), "--step", input="\n\nq\n")
    assert code == 0, out
    numbers = [int(m.group(1)) for m in re.finditer(r"^ {0,4}(\d+)  ", out, re.MULTILINE)]
    # The header block, then two more events: the third key was q.
    assert numbers == [1, 2, 3]
    code, out = run("replay", str(standard), "--step", input="\nc\n")
    assert code == 0 and "Result:" in out


def test_cards_readably_with_symbols_and_colours() -> None:
    ten_diamonds, king_spades = 22, 51
    assert card_text(ten_diamonds, PLAIN) == "TD"
    assert card_text(ten_diamonds, Style(symbols=True)) == "10♦"
    assert card_text(ten_diamonds, Style(symbols=True, color=True)) == "\x1b[31m10♦\x1b[0m"
    assert card_text(king_spades, Style(symbols=True, color=True)) == "K♠"
    assert cards_text([51, 0, 22, 1], PLAIN) == "AC 2C  TD  KS"
    assert legal_text([Discard(0), Discard(1), Knock(0), DrawStock()], PLAIN) == (
        "discard any of 2, knock with AC, draw stock"
    )


@slow
def test_colour_when_asked(standard: Path) -> None:
    code, out = run("replay", str(standard), "--color")
    assert code == 0 and "\x1b[31m" in out and "♥" in out
    code, out = run("replay", str(standard), "--no-color")
    assert code == 0 and "\x1b[" not in out


@slow
def test_an_incomplete_log_replays_as_far_as_it_goes(standard: Path, tmp_path: Path) -> None:
    lines = lines_of(standard)
    cut = write_lines(tmp_path / "cut.jsonl", lines[:30])
    code, out = run("replay", str(cut))
    assert code == 0
    assert "the log ends at line 30 without a match result" in out


@slow
@pytest.mark.parametrize("name", list(CONFIGS))
@slow
def test_the_result_is_explained_term_by_term_and_adds_up(name: str, logs: dict[str, Path]) -> None:
    path = logs[name]
    records = records_of(path)
    end = records[-1]
    code, out = run("replay", str(path), "--no-color")
    assert code == 0
    tail = out[out.index("══ Result:") :].splitlines()
    rules = Rules.from_dict(records[0]["rules"])
    # Every "seat N (...): a + b + ... = total" line adds up, and the totals are the result.
    sums = [
        (m.group(1), m.group(2), int(m.group(3)))
        for m in re.finditer(r"^\s+seat (\d) \([^)]*\): (.*) = (-?\d+)$", "\n".join(tail), re.M)
    ]
    for _, terms, total in sums:
        assert sum(int(t.split()[0]) for t in terms.split(" + ")) == total
    if end["termination"] == "single_hand":
        assert sums == [] and "one hand (R9.9)" in out
        if rules.payoff != "points":
            assert f"payoff ({rules.payoff}, R8.7)" in out
    else:
        games = end["games"]
        assert len(sums) == 2 * len(games)
        for g, game in enumerate(games):
            assert [total for _, _, total in sums[2 * g : 2 * g + 2]] == game["final"]
        if len(games) > 1:
            assert f"the three games added up, {end['final'][0]}–{end['final'][1]}" in out
        assert [sum(g["final"][s] for g in games) for s in (0, 1)] == end["final"]
        if rules.game_bonus:
            assert f"{rules.game_bonus} game bonus" in out


@slow
def test_a_forfeit_says_who_forfeited_why_and_what_it_counts_as(
    fault_logs: dict[str, Path],
) -> None:
    path = fault_logs["crash"]
    end = records_of(path)[-1]
    loser = end["forfeit"]["seat"]
    code, out = run("replay", str(path), "--no-color")
    assert code == 0
    final = f"{end['final'][0]}–{end['final'][1]}"
    assert f"Result: seat {1 - loser} (testbot-play) wins by forfeit, hand points {final}" in out
    assert f"seat {loser} (testbot-crash) forfeits: crashed (R11.5): " in out
    assert f"it counts as a win for seat {1 - loser} (testbot-play) and a loss for seat " in out
    assert end["margin"] >= 0


# --- three players and partnerships ----------------------------------------------------------


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


def viewed(log: Path) -> tuple[list[dict[str, Any]], dict[int, list[str]], dict[int, str]]:
    """The log's records, the view's lines of each record and each seat's name."""
    code, out = replay(str(log))
    assert code == 0, out
    records = records_of(log)
    return records, blocks(out), names(records)


def test_three_players_show_who_sits_out_the_hands_and_three_scores(three: Path) -> None:
    records, shown, who = viewed(three)
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
    records, shown, who = viewed(four)
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


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_position_at_a_decision(players: int, fake_logs: dict[int, Path]) -> None:
    log = fake_logs[players]
    records = records_of(log)
    line, record = next(
        (n, r) for n, r in enumerate(records, start=1) if r["type"] == "decision" and r["hand"] == 2
    )
    deal = next(r for r in records if r["type"] == "deal" and r["hand"] == 2)
    where = f"hand 2, table {deal['table']}" if players == 4 else "hand 2"
    code, out = replay(str(log), "--at", str(line))
    assert code == 0, out
    who = f"seat {record['seat']} ({records[0]['bots'][record['seat']]['label']})"
    assert out.startswith(f"Position at line {line} ({where}): {who} to act")
    assert "Recorded:" in out and "legal:" in out and "Asked:" not in out


@pytest.mark.parametrize("players", [2, 3])
def test_a_seat_the_match_has_not_and_a_line_that_is_no_decision_are_refused(
    players: int, fake_logs: dict[int, Path]
) -> None:
    log = fake_logs[players]
    code, out = replay(str(log), "--seat", "3")
    assert code != 0 and out.count("Error: ") == 1
    assert f"{log} is a match of {players} players, seats 0 to {players - 1}" in out
    code, out = replay(str(log), "--at", "1")
    assert code != 0 and "line 1 is a header record, not a decision" in out


@pytest.mark.parametrize(("profile", "lies", "defends"), [
    ("neller-eaai", "face up", "declares melds"),
    ("standard", "face down", None),  # the referee plays the defence (auto_optimal)
    ("declared", "face down", "declares melds and layoffs"),
])  # fmt: skip
def test_the_knock_discard_and_the_defence_read_as_the_rules_play_them(
    tmp_path: Path, profile: str, lies: str, defends: str | None
) -> None:
    """R5.2 and R6.6 as the log's rules have them: in the replay's text, its page and the live
    page's view."""
    from replays.html import showdown_data
    from replays.spectate import Spectator

    played = {"defender_play": "declared"} if profile == "declared" else {}
    rules = Rules.profile("standard" if played else profile, target=100, **played)
    path = two_player_log(tmp_path / "log.jsonl", rules, seed=3)
    timeline = load_replay(path)
    text = "\n".join("\n".join(b) for b in format_replay(timeline, PLAIN)) + "\n"
    told = re.findall(r"(?:knocks|goes gin), discarding \S+ (face \w+)", text)
    shown = re.findall(r" (?:knock|gin) by [^\n]*, discarding \S+ (face \w+)$", text, re.M)
    assert told and shown and set(told) == set(shown) == {lies}
    defences = {d.strip() for d in re.findall(r"\) (declares melds[a-z ]*)", text)}
    assert defences == (set() if defends is None else {defends})
    knocked = [s.result for s in timeline.steps if s.result and s.result.knocker is not None]
    assert {showdown_data(timeline, r)["knockDiscardLies"] for r in knocked} == {lies}
    spectator = Spectator()
    for record in records_of(path):
        spectator.feed(record)
    assert spectator.view()["rules"]["knock_discard"] == lies
