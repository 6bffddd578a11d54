"""The spectator's view of a match as its log grows (replays/spectate.py): nothing hidden from
both players reaches it early, at any prefix of any log, and it shows the table as the engine
has it.

What is public is worked out here from the records alone, without the engine: a hand's upcard
and every card a decision discards face up are public from their record on; once the hand's
``hand_result`` record is read, every card of that hand. Cards taken from the pile were public
already (the upcard or a discard). A stock draw's card and the face-down knock discard are not;
a knock discard face up (``knock_discard = face_up``, R5.2) is public from its record on.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import replays.spectate as spectate
from referee.engine.cards import card_str, parse_card
from referee.engine.hand import Hand
from referee.engine.rules import Rules
from referee.replay_log import read_text_log
from referee.timeline import build_timeline
from replays.spectate import Spectator, spectator_view
from tests.support.group_logs import group_match_log, group_rules, two_player_log
from tests.support.replay_helpers import fake_match_log, records_of

CARD = re.compile(r'"([A23456789TJQK][CDHS])"')
TWO_PLAYER_PROFILES = ("standard", "oklahoma", "rlcard", "openspiel", "neller-eaai")


def cards_in(value: Any) -> list[str]:
    """Every string in a JSON value that is a card."""
    return CARD.findall(json.dumps(value))


def _lies(rules: dict[str, Any]) -> str:
    """How the page says a knock discard lies: the header's knock_discard (absent: face down)."""
    return "face up" if rules.get("knock_discard") == "face_up" else "face down"


class Public:
    """What is public at each point of a log, from its records alone."""

    def __init__(self) -> None:
        self.cards: dict[int, set[str]] = {}  # by 1-based hand
        self.finished: set[int] = set()  # hands whose result has been read
        self.face_up = ("discard",)  # the actions whose card is discarded face up

    def read(self, record: dict[str, Any]) -> None:
        kind = record["type"]
        if kind == "header" and record["rules"].get("knock_discard") == "face_up":
            self.face_up = ("discard", "knock")
        elif kind == "deal" and record["upcard"] is not None:
            self.cards.setdefault(record["hand"], set()).add(record["upcard"])
        elif kind == "decision" and record["action"]["kind"] in self.face_up:
            self.cards.setdefault(record["hand"], set()).add(record["action"]["card"])
        elif kind == "hand_result":
            self.finished.add(record["hand"])

    def leaks(self, view: dict[str, Any]) -> list[str]:
        """Every card of ``view`` that is not public yet, in words."""
        found: list[str] = []
        outside = {key: value for key, value in view.items() if key != "tables"}
        found += [f"{card} outside the tables" for card in cards_in(outside)]
        for table in view["tables"]:
            hand = table["hand"]
            if hand in self.finished:
                continue
            public = self.cards.get(hand, set())
            found += [f"{c} of hand {hand}" for c in cards_in(table) if c not in public]
        return found


def leaks(records: list[dict[str, Any]]) -> list[str]:
    """Every leak of the spectator's view at every prefix of ``records``, with its line."""
    spectator, public = Spectator(), Public()
    found: list[str] = []
    for line, record in enumerate(records, start=1):
        spectator.feed(record)
        public.read(record)
        found += [f"line {line}: {leak}" for leak in public.leaks(spectator.view())]
    return found


def two_player_records(profile: str, seed: int, forfeit_at: int | None = None) -> list[Any]:
    overrides = {} if profile in ("rlcard", "openspiel") else {"target": 15}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "m.jsonl"
        rules = Rules.profile(profile, **overrides)
        two_player_log(path, rules, seed=seed, choices=seed, forfeit_at=forfeit_at)
        return records_of(path)


def group_records(players: int, seed: int, forfeit_at: int | None = None) -> list[Any]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "g.jsonl"
        rules = group_rules(players, "pagat" if seed % 2 else "standard", target=20)
        group_match_log(path, rules, seed=seed, choices=seed, forfeit_at=forfeit_at)
        return records_of(path)


# --- the leak test ----------------------------------------------------------------------------


@settings(max_examples=8)
@given(
    seed=st.integers(min_value=0, max_value=2**40),
    profile=st.sampled_from(TWO_PLAYER_PROFILES),
    forfeit=st.sampled_from([None, 15, 60]),
)
def test_two_players_nothing_hidden_is_seen_at_any_prefix(
    seed: int, profile: str, forfeit: int | None
) -> None:
    records = two_player_records(profile, seed, forfeit)
    assert leaks(records) == []


@settings(max_examples=5)
@given(
    seed=st.integers(min_value=0, max_value=2**40),
    players=st.sampled_from([3, 4]),
    forfeit=st.sampled_from([None, 30]),
)
def test_three_and_four_players_nothing_hidden_is_seen_at_any_prefix(
    seed: int, players: int, forfeit: int | None
) -> None:
    records = group_records(players, seed, forfeit)
    assert leaks(records) == []


def test_a_log_the_referee_wrote_shows_nothing_hidden(tmp_path: Path) -> None:
    # The referee's own session (on fake links), not a log spelled out by the tests.
    records = records_of(fake_match_log(tmp_path, seed=4, target=10))
    assert any(r["type"] == "hand_result" for r in records)
    assert leaks(records) == []


@pytest.fixture(scope="module")
def sample() -> list[dict[str, Any]]:
    """A two-player log with stock draws, knocks and several hands."""
    return two_player_records("standard", 1)


def test_a_planted_leak_of_a_stock_draw_is_caught(
    sample: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spectate, "hidden_events", tuple)  # every event with its card
    found = leaks(sample)
    assert found and all("hand" in leak for leak in found)


def test_a_planted_leak_of_a_held_card_is_caught(
    sample: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Hand, "known", Hand.held)  # every held card as if taken from the pile
    assert leaks(sample)


def test_a_planted_early_result_is_caught(
    sample: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The engine knows a hand's result at its last decision, a record before the log says it.
    feed = Spectator.feed

    def early(self: Spectator, record: dict[str, Any]) -> None:
        feed(self, record)
        fold = self._fold
        if record["type"] == "decision" and fold is not None and fold.match.hand_results:
            self._hand_result(fold.match.hand_results[-1])

    monkeypatch.setattr(Spectator, "feed", early)
    assert any("of hand" in leak for leak in leaks(sample))


def test_the_seed_deck_and_commitment_never_appear(tmp_path: Path) -> None:
    seed = 918_273_645_546_372
    rules = Rules.profile("standard", target=25)
    records = records_of(two_player_log(tmp_path / "m.jsonl", rules, seed=seed))
    header, result = records[0], records[-1]
    secrets = [str(seed), header["deal_commitment"], result["deal_salt"], "random_bot"]
    decks = [json.dumps(r["deck"]) for r in records if r["type"] == "deal"]
    spectator = Spectator()
    for record in records:
        spectator.feed(record)
        text = json.dumps(spectator.view())
        assert not [s for s in secrets + decks if s in text]


# --- what it shows ------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_table_is_the_engines_hand_after_each_record(players: int, tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    if players == 2:
        two_player_log(path, Rules.profile("standard", target=15), seed=3, choices=3)
    else:
        group_match_log(path, group_rules(players, target=25), seed=3, choices=3)
    log = read_text_log(path)
    walk = build_timeline(log)
    assert walk.complete
    spectator = Spectator()
    checked = 0
    for step in walk.steps:
        spectator.feed(step.record)
        if step.kind != "decision" or step.played is None:
            continue
        hand = step.played
        table = next(t for t in spectator.view()["tables"] if t["hand"] == hand.number + 1)
        assert table["pile"] == [card_str(c) for c in hand.pile]
        assert table["stock"] == hand.stock_size
        assert table["held"] == [hand.held(0).bit_count(), hand.held(1).bit_count()]
        seats = list(step.seats)
        assert table["seats"] == seats
        assert table["to_act"] == (None if hand.to_act is None else seats[hand.to_act])
        checked += 1
    assert checked > 50
    view = spectator.view()
    assert view["over"] and view["result"] is not None
    final = walk.steps[-1].after.result
    assert final is not None and view["result"]["final"] == list(final.final)
    last = [r for r in log.of_type("hand_result")][-1]
    assert view["scores"] == last["scores_after"]


def test_a_prefix_view_is_the_same_fed_at_once_or_record_by_record(
    sample: list[dict[str, Any]],
) -> None:
    spectator = Spectator()
    for n, record in enumerate(sample, start=1):
        spectator.feed(record)
        if n % 97 == 0 or n == len(sample):
            assert spectator_view(sample[:n]) == spectator.view()


def test_a_hand_shows_its_result_and_every_card_once_its_record_is_read(
    sample: list[dict[str, Any]],
) -> None:
    at = next(i for i, r in enumerate(sample) if r["type"] == "hand_result")
    before, after = spectator_view(sample[:at]), spectator_view(sample[: at + 1])
    assert before["tables"][0]["result"] is None and before["hands"] == []
    hidden = [e for e in before["tables"][0]["events"] if e["kind"] == "draw_stock"]
    assert hidden and all(e["card"] is None for e in hidden)
    table = after["tables"][0]
    result = table["result"]
    assert result is not None
    assert result["final_hands"] == sample[at]["final_hands"]
    assert result["outcome"] == sample[at]["outcome"]
    assert all(e["card"] is not None for e in table["events"] if e["kind"] == "draw_stock")
    assert after["hands"][0]["points"] == sample[at]["points"]
    assert after["scores"] == sample[at]["scores_after"]


def test_three_players_say_who_sits_out_and_partnerships_show_two_tables() -> None:
    three = group_records(3, 5)
    deal = next(r for r in three if r["type"] == "deal")
    view = spectator_view(three[: three.index(deal) + 1])
    assert view["sitting_out"] == ({0, 1, 2} - set(deal["seats"])).pop()
    assert view["tables"][0]["dealer"] == view["sitting_out"]  # the dealer sits out (R10.1)
    assert view["tables"][0]["seats"] == deal["seats"]
    four = group_records(4, 5)
    deals = [i for i, r in enumerate(four) if r["type"] == "deal"]
    view = spectator_view(four[: deals[1] + 1])
    assert [t["table"] for t in view["tables"]] == [0, 1]
    assert view["teams"] and [s["team"] for s in view["seats"]] == [0, 1, 0, 1]
    rounds = [r for r in four if r["type"] == "round_result"]
    end = spectator_view(four)
    assert [r["scores_after"] for r in end["rounds"]] == [r["scores_after"] for r in rounds]


def test_a_forfeit_shows_its_kind_and_rule_but_neither_reason_nor_cards() -> None:
    records = two_player_records("standard", 6, forfeit_at=20)
    view = spectator_view(records)
    assert view["result"]["termination"] == "forfeit"
    assert view["result"]["forfeit"] == {
        "seats": [view["faults"][0]["seat"]],
        "kind": "disconnected",
        "rule": "R11.5",
    }
    assert "the bot has left" not in json.dumps(view)
    assert view["tables"][0]["result"] is None  # the hand was cut short: no result, no hands


def test_bot_names_are_kept_as_safe_text() -> None:
    records = two_player_records("rlcard", 1)
    records[1] = {**records[1], "name": "<script>alert(1)</script>\x1b[2J", "version": "\u202e1"}
    seat = spectator_view(records[:2])["seats"][records[1]["seat"]]
    assert seat["name"] == "<script>alert(1)</script>\\x1b[2J"
    assert seat["version"] == "\\u202e1"


def test_a_log_it_cannot_follow_stops_the_table_but_not_the_view() -> None:
    records = two_player_records("standard", 2)
    deal = next(i for i, r in enumerate(records) if r["type"] == "deal")
    swapped = list(records[deal]["deck"])
    swapped[0], swapped[30] = swapped[30], swapped[0]
    bad = [*records[:deal], {**records[deal], "deck": swapped}, *records[deal + 1 :]]
    view = spectator_view(bad)
    assert view["stopped"] is not None and "seed" in view["stopped"]
    assert view["tables"] == [] and view["over"]
    out_of_turn = next(i for i, r in enumerate(records) if r["type"] == "decision")
    wrong = {**records[out_of_turn], "seat": 1 - records[out_of_turn]["seat"]}
    view = spectator_view([*records[:out_of_turn], wrong, *records[out_of_turn + 1 :]])
    assert "out of turn" in str(view["stopped"])
    assert spectator_view(records[1:])["stopped"] == "the log does not start with its header"
    assert spectator_view([])["tables"] == []


# --- faults -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def logs() -> dict[int, list[dict[str, Any]]]:
    """A whole log of each size of match, by players (the partnership one plays ten rounds)."""
    return {2: two_player_records("standard", 1), 3: group_records(3, 5), 4: group_records(4, 26)}


def fault(**fields: Any) -> dict[str, Any]:
    """A ``fault`` record with every field docs/replay-log.md gives it, ``fields`` changed."""
    record = {
        "type": "fault",
        "hand": 1,
        "seat": 0,
        "kind": "illegal_action",
        "rule": "R4.1",
        "reason": "QS was just taken from the pile",
        "request_id": 3,
        "retry": True,
        "action": {"kind": "discard", "card": "QS"},
        "think_ms": 1.5,
    }
    return {**record, **fields}


def fault_shown(record: dict[str, Any]) -> dict[str, Any]:
    """What the module's docstring and docs/tournaments.md let a spectator see of a fault: its
    hand, seat, kind, rule and whether it was retried; never its reason or refused action."""
    return {key: record[key] for key in ("hand", "seat", "kind", "rule", "retry")}


def test_a_retried_fault_shows_its_seat_kind_and_rule_and_changes_nothing_else(
    logs: dict[int, list[dict[str, Any]]],
) -> None:
    records = logs[2]
    first = next(i for i, r in enumerate(records) if r["type"] == "decision")
    # The referee asked the same seat again after a retry (docs/referee.md), so the log goes on
    # with that seat's decision: the engine must follow it as if the fault were not there.
    retried = fault(hand=records[first]["hand"], seat=records[first]["seat"])
    faulted = [*records[:first], retried, *records[first:]]
    view = spectator_view(faulted)
    assert view["faults"] == [fault_shown(retried)]
    assert view["faults"][0]["retry"] is True
    # The reason and the refused action name a card the seat holds.
    assert cards_in(view["faults"]) == [] and "taken from the pile" not in json.dumps(view)
    plain = spectator_view(records)
    assert view["stopped"] is None and view["result"] == plain["result"] is not None
    assert view["tables"] == plain["tables"] and view["hands"] == plain["hands"]


def test_each_fault_is_shown_in_order_with_what_its_own_record_says(
    logs: dict[int, list[dict[str, Any]]],
) -> None:
    # Kinds and rules as docs/referee.md pairs them, hands out of order and retries mixed, so
    # that a field read from the wrong key or left at its default shows; a fault is shown even
    # before the first deal.
    header = logs[2][0]
    faults = [
        fault(hand=2, seat=1, kind="out_of_turn", rule="R11.5", retry=False),
        fault(hand=7, seat=0, kind="malformed_action", rule="R11.5", retry=True),
        fault(hand=3, seat=1, kind="illegal_action", rule="R5.3", retry=False),
    ]
    spectator = Spectator()
    spectator.feed(header)
    shown: list[dict[str, Any]] = []
    for record in faults:
        spectator.feed(record)
        shown.append(fault_shown(record))
        assert spectator.view()["faults"] == shown
    assert [f["retry"] for f in spectator.view()["faults"]] == [False, True, False]


def test_a_fault_record_missing_fields_or_with_odd_ones_shows_them_empty() -> None:
    # The referee always writes every field; a log spelled by someone else may not, and then
    # the view says nothing rather than "None", and only a JSON true counts as a retry.
    header = two_player_records("rlcard", 1)[0]
    bare = {"type": "fault", "seat": 1}
    odd = fault(seat=0, hand="2", kind="\x1b[2J", rule="R\u202e4.1", retry=1)
    view = spectator_view([header, bare, odd])
    assert view["faults"] == [
        {"hand": None, "seat": 1, "kind": "", "rule": "", "retry": False},
        {"hand": None, "seat": 0, "kind": "\\x1b[2J", "rule": "R\\u202e4.1", "retry": False},
    ]
    assert spectator_view([header, fault(retry=False)])["faults"][0]["retry"] is False


@pytest.mark.parametrize("players", [2, 3, 4])
def test_only_a_fault_of_one_of_the_matchs_seats_is_shown(
    players: int, logs: dict[int, list[dict[str, Any]]]
) -> None:
    # Match seats run from 0 to players - 1 (docs/replay-log.md); a fault naming another seat,
    # or none, belongs to no bot of the match and is left out. The hand tells them apart.
    header = logs[players][0]
    seats: list[Any] = [-1, 0, players - 1, players, players + 1, None, True, "1", 1.0]
    records = [header, *(fault(hand=n, seat=s) for n, s in enumerate(seats, start=1))]
    records.append({k: v for k, v in fault(hand=99).items() if k != "seat"})
    view = spectator_view(records)
    assert [(f["hand"], f["seat"]) for f in view["faults"]] == [(2, 0), (3, players - 1)]
    assert view["players"] == players and view["stopped"] is None


@pytest.mark.parametrize("players", [3, 4])
def test_a_forfeit_with_three_players_or_partnerships_shows_its_fault_and_result(
    players: int,
) -> None:
    records = group_records(players, 5, forfeit_at=30)
    faults = [r for r in records if r["type"] == "fault"]
    end = records[-1]
    assert len(faults) == 1 and end["type"] == "match_result"
    view = spectator_view(records)
    assert view["faults"] == [fault_shown(faults[0])]
    # The engine is made to forfeit the seats the match result names, as the referee's did.
    result = view["result"]
    assert result is not None and result["termination"] == "forfeit"
    assert result["forfeit"] == {
        "seats": end["forfeit"]["seats"],
        "kind": end["forfeit"]["kind"],
        "rule": end["forfeit"]["rule"],
    }
    assert result["placings"] == end["placings"] and result["final"] == end["final"]
    assert result["winner"] == end["winner"]
    assert "the bot has left" not in json.dumps(view)


def test_a_match_result_the_engine_has_not_reached_shows_the_match_over_without_a_result(
    logs: dict[int, list[dict[str, Any]]],
) -> None:
    # A log cut and closed by hand: no forfeit to apply, and the engine has no result, so
    # there is nothing to show but that the match is over.
    records = logs[2]
    first = next(i for i, r in enumerate(records) if r["type"] == "decision")
    end = {**records[-1], "forfeit": None}
    view = spectator_view([*records[: first + 3], end])
    assert view["over"] and view["result"] is None and view["stopped"] is None


# --- rounds -------------------------------------------------------------------------------------


def test_each_partnership_round_is_shown_as_its_two_hands_add_up(
    logs: dict[int, list[dict[str, Any]]],
) -> None:
    # Worked out from the hand results alone (docs/replay-log.md, round_result): the round's
    # hands are the two just reported, each team wins the points of its players' hands, the
    # team that won more scores the difference (none when equal).
    records = logs[4]
    spectator = Spectator()
    hands: list[dict[str, Any]] = []
    rounds: list[dict[str, Any]] = []
    scores = [0, 0]
    for record in records:
        spectator.feed(record)
        if record["type"] == "hand_result":
            hands.append(record)
        if record["type"] != "round_result":
            assert spectator.view()["rounds"] == rounds
            continue
        pair, hands = hands, []
        assert [h["table"] for h in pair] == [0, 1]
        won = [0, 0]
        for hand in pair:
            if hand["winner"] is not None:
                won[hand["seats"][hand["winner"]] % 2] += hand["points"]
        winner = None if won[0] == won[1] else int(won[1] > won[0])
        points = abs(won[0] - won[1])
        if winner is not None:
            scores[winner] += points
        rounds.append(
            {
                "round": len(rounds) + 1,
                "hands": [h["hand"] for h in pair],
                "team_hand_points": won,
                "winner": winner,
                "points": points,
                "scores_after": list(scores),
            }
        )
        view = spectator.view()
        assert view["rounds"] == rounds
        assert view["scores"] == scores
        # The referee's record says the same (as the helper spells it).
        assert {k: v for k, v in record.items() if k != "type"} == rounds[-1]
    # Rounds won by either side, one a close one, and more than two, so that a count of rounds
    # read that goes wrong after the first or second shows.
    assert len(rounds) >= 3 and rounds[0]["hands"] == [1, 2]
    assert {r["winner"] for r in rounds} >= {None, 0} and any(0 < r["points"] < 5 for r in rounds)


def test_a_round_result_record_shows_the_engines_round_not_its_own(
    logs: dict[int, list[dict[str, Any]]],
) -> None:
    # A log rewritten by someone else cannot change what a round shows: a record early (the
    # engine has finished no round), a forged one, or one repeated, adds nothing of its own.
    records = logs[4]
    at = [i for i, r in enumerate(records) if r["type"] == "round_result"]
    first_deal = next(i for i, r in enumerate(records) if r["type"] == "deal")
    forged = {**records[at[0]], "winner": 1, "points": 99, "scores_after": [0, 99]}
    rewritten = [
        *records[: first_deal + 1],
        forged,
        *records[first_deal + 1 : at[0]],
        forged,
        forged,
        *records[at[0] + 1 :],
    ]
    assert spectator_view(rewritten[: first_deal + 2])["rounds"] == []
    honest = spectator_view(records)
    view = spectator_view(rewritten)
    assert view["rounds"] == honest["rounds"] and view["scores"] == honest["scores"]
    assert view["stopped"] is None and view["result"] == honest["result"] is not None


@pytest.mark.parametrize("players", [2, 3])
def test_without_partnerships_there_are_no_rounds_even_if_the_log_says_so(
    players: int, logs: dict[int, list[dict[str, Any]]]
) -> None:
    # Only partnerships play rounds (docs/replay-log.md); a round_result record in another
    # match's log is not the engine's and is passed over, the match still followed.
    records = logs[players]
    round_record = next(r for r in logs[4] if r["type"] == "round_result")
    at = next(i for i, r in enumerate(records) if r["type"] == "hand_result")
    view = spectator_view([*records[: at + 1], round_record, *records[at + 1 :]])
    assert view["rounds"] == [] and view["stopped"] is None
    assert view["scores"] == spectator_view(records)["scores"]
    assert view["result"] == spectator_view(records)["result"] is not None


# --- every field of the view, worked out from the records ---------------------------------------


def in_card_order(cards: list[str]) -> list[str]:
    """Cards in the view's order (card order, as a hand's cards are listed)."""
    return sorted(cards, key=parse_card)


class Told:
    """The whole view of a match at each point of its log, from the records alone
    (docs/replay-log.md and docs/tournaments.md, "A view holds"), without the engine.

    Built from the whole log, so that it can look ahead where a record alone does not say: a
    hand's phase and whose turn it is are those of its next decision, a hand is over once its
    last decision is read, and a knock is a gin when the knocker's deadwood is 0.
    """

    def __init__(self, records: list[dict[str, Any]]) -> None:
        self.header = records[0]
        self.players = self.header["rules"]["players"]
        self.decisions: dict[int, list[dict[str, Any]]] = {}
        self.results: dict[int, dict[str, Any]] = {}
        for record in records:
            if record["type"] == "decision" and record["hand"] > 0:
                self.decisions.setdefault(record["hand"], []).append(record)
            elif record["type"] == "hand_result":
                self.results[record["hand"]] = record
        self.names: dict[int, tuple[str, str]] = {}
        self.hands: dict[int, dict[str, Any]] = {}  # by 1-based hand
        self.at: dict[int, int] = {}  # the hand at each table
        self.finished: list[dict[str, Any]] = []
        self.rounds: list[dict[str, Any]] = []
        self.scores = [0] * (2 if self.players == 4 else self.players)
        self.end: dict[str, Any] | None = None

    def read(self, record: dict[str, Any]) -> None:
        kind = record["type"]
        if kind == "connected":
            self.names[record["seat"]] = (record["name"], record["version"])
        elif kind == "deal":
            upcard = record["upcard"]
            held = [10, 10]
            if upcard is None:  # eleven_card: the non-dealer gets the eleventh card (R2.5)
                held[1 - record["dealer"]] = 11
            self.hands[record["hand"]] = {
                "deal": record,
                "seats": record.get("seats", [0, 1]),
                "pile": [] if upcard is None else [upcard],
                "stock": list(record["deck"][21:]),
                "held": held,
                "known": [[], []],
                "events": [(None, "deal", None, False)],  # seat, kind, card, private
                "fed": 0,
                "revealed": False,
            }
            self.at[record.get("table", 0)] = record["hand"]
        elif kind == "decision" and record["hand"] > 0:
            self._decide(self.hands[record["hand"]], record)
        elif kind == "hand_result":
            self.hands[record["hand"]]["revealed"] = True
            seats = record.get("seats", [0, 1])
            winner = record["winner"]
            self.finished.append(
                {
                    "hand": record["hand"],
                    "table": record.get("table", 0),
                    "seats": seats,
                    "outcome": record["outcome"],
                    "winner": None if winner is None else seats[winner],
                    "points": record["points"],
                    "scores_after": record["scores_after"],
                }
            )
            self.scores = record["scores_after"]
        elif kind == "round_result":
            self.rounds.append({k: v for k, v in record.items() if k != "type"})
            self.scores = record["scores_after"]
        elif kind == "match_result":
            self.end = record

    def _decide(self, hand: dict[str, Any], record: dict[str, Any]) -> None:
        seat = hand["seats"].index(record["seat"])
        action = record["action"]
        kind = action["kind"]
        events = hand["events"]
        if kind == "pass" and record["phase"] != "wall":  # a pass at the wall ends the hand
            events.append((seat, "pass", None, False))
        elif kind == "draw_stock":
            events.append((seat, "draw_stock", hand["stock"].pop(0), True))
            hand["held"][seat] += 1
        elif kind == "draw_discard":
            card = hand["pile"].pop()
            taken = "take_upcard" if record["phase"] == "upcard_offer" else "draw_discard"
            events.append((seat, taken, card, False))
            hand["held"][seat] += 1
            hand["known"][seat].append(card)
        elif kind in ("discard", "knock"):
            card = action["card"]
            hand["held"][seat] -= 1
            if card in hand["known"][seat]:
                hand["known"][seat].remove(card)
            face_up = self.header["rules"].get("knock_discard") == "face_up"
            if kind == "discard":
                hand["pile"].append(card)
                events.append((seat, "discard", card, False))
            else:  # face down (R5.2), unless the rules lay it face up on the pile
                gin = self.results[record["hand"]]["knocker_deadwood"] == 0
                if face_up:
                    hand["pile"].append(card)
                events.append((seat, "gin" if gin else "knock", card, not face_up))
        elif kind in ("big_gin", "defender_play"):
            events.append((seat, kind, None, False))
        hand["fed"] += 1
        if hand["fed"] == len(self.decisions[record["hand"]]):
            events.append((None, "hand_over", None, False))

    def table(self, table: int) -> dict[str, Any]:
        number = self.at[table]
        hand = self.hands[number]
        deal, seats = hand["deal"], hand["seats"]
        decisions = self.decisions[number]
        following = decisions[hand["fed"]] if hand["fed"] < len(decisions) else None
        revealed = hand["revealed"]
        # With three players the match seat that dealt sits out (docs/replay-log.md).
        sits_out = ({0, 1, 2} - set(seats)).pop() if self.players == 3 else None
        dealer = seats[deal["dealer"]] if sits_out is None else sits_out
        return {
            "table": table,
            "hand": number,
            "seats": seats,
            "dealer": dealer,
            "to_act": None if following is None else following["seat"],
            "phase": "match_over" if following is None else following["phase"],
            "upcard": deal["upcard"],
            "knock_limit": deal["knock_limit"],
            "pile": list(hand["pile"]),
            "stock": len(hand["stock"]),
            "held": list(hand["held"]),
            "known": [in_card_order(cards) for cards in hand["known"]],
            "events": [
                {
                    "seat": None if s is None else seats[s],
                    "kind": kind,
                    "card": None if private and not revealed else card,
                }
                for s, kind, card, private in hand["events"]
            ],
            "result": result_shown(self.results[number], seats) if revealed else None,
        }

    def view(self) -> dict[str, Any]:
        header, players = self.header, self.players
        teams = players == 4
        labels = {bot["seat"]: bot["label"] for bot in header["bots"]}
        tables = [self.table(t) for t in sorted(self.at)]
        sitting_out = None
        if players == 3 and tables:
            sitting_out = ({0, 1, 2} - set(tables[0]["seats"])).pop()
        return {
            "match_id": header["match_id"],
            "started": header["created"],
            "players": players,
            "teams": teams,
            "rules": {
                "profile": header["rules"]["profile_name"],
                "target": header["rules"]["target"],
                "players": players,
                "knock_discard": _lies(header["rules"]),
            },
            "series": {
                "match": header["series"]["match_number"],
                "of": header["series"]["length"],
            },
            "seats": [
                {
                    "seat": seat,
                    "label": labels[seat],
                    "name": self.names.get(seat, ("", ""))[0],
                    "version": self.names.get(seat, ("", ""))[1],
                    "team": seat % 2 if teams else None,
                }
                for seat in range(players)
            ],
            "scores": list(self.scores),
            "hand": max(self.hands, default=0),
            "sitting_out": sitting_out,
            "tables": tables,
            "hands": list(self.finished),
            "rounds": list(self.rounds),
            "faults": [],
            "over": self.end is not None,
            "result": None if self.end is None else match_result_shown(self.end, players),
            "stopped": None,
        }


def result_shown(record: dict[str, Any], seats: list[int]) -> dict[str, Any]:
    """A finished hand as a table shows it (docs/tournaments.md): the ``hand_result`` record's
    fields, its hand seats turned into match seats; a hand nobody knocked in (a dead one) shows
    no melds, layoffs or deadwood cards rather than nothing."""
    knocker = record["knocker_arrangement"] or {"melds": [], "deadwood": []}
    defender = record["defender"] or {"melds": [], "layoffs": [], "deadwood": []}

    def seat(hand_seat: int | None) -> int | None:
        return None if hand_seat is None else seats[hand_seat]

    return {
        "outcome": record["outcome"],
        "winner": seat(record["winner"]),
        "points": record["points"],
        "knocker": seat(record["knocker"]),
        "knock_discard": record["knock_discard"],
        "knocker_melds": knocker["melds"],
        "knocker_deadwood_cards": knocker["deadwood"],
        "knocker_deadwood": record["knocker_deadwood"],
        "defender_melds": defender["melds"],
        "layoffs": defender["layoffs"],
        "defender_deadwood_cards": defender["deadwood"],
        "defender_deadwood": record["defender_deadwood"],
        "doubled": record["doubled"],
        "extra_boxes": record["extra_boxes"],
        "dead_reason": record["dead_reason"],
        "final_hands": record["final_hands"],
        "scores_after": record["scores_after"],
    }


def match_result_shown(record: dict[str, Any], players: int) -> dict[str, Any]:
    """The match's result as the view shows it: the ``match_result`` record's fields, the
    forfeit without its reason. A two-player record has no placings: the winner first, both
    first without one (docs/replay-log.md)."""
    placings = record.get("placings")
    if placings is None:
        winner = record["winner"]
        placings = [1, 1] if winner is None else [1 if s == winner else 2 for s in (0, 1)]
    forfeit = record["forfeit"]
    if forfeit is not None:
        seat = forfeit["seat"]
        seats = forfeit.get("seats") or ([0, 1] if seat is None else [seat])
        forfeit = {"seats": seats, "kind": forfeit["kind"], "rule": forfeit["rule"]}
    return {
        "termination": record["termination"],
        "winner": record["winner"],
        "final": record["final"],
        "margin": record["margin"],
        "placings": placings,
        "forfeit": forfeit,
    }


# Logs with hands won at either seat, knocks with layoffs, a gin, a doubled hand, dead hands of
# each kind, the declared defender and the wall (openspiel), the eleven-card deal (rlcard), who
# sits out with three players (seats where the sum and the difference differ) and two tables.
WHOLE_LOGS = [
    ("standard", 3),
    ("standard", 5),
    ("oklahoma", 1),
    ("oklahoma", 6),
    ("openspiel", 1),
    ("openspiel", 3),
    ("rlcard", 1),
    ("rlcard", 2),
    ("three", 5),
    ("four", 5),
]


@pytest.mark.parametrize(("kind", "seed"), WHOLE_LOGS)
def test_the_whole_view_after_each_record_is_what_the_records_say(kind: str, seed: int) -> None:
    if kind in ("three", "four"):
        records = group_records(3 if kind == "three" else 4, seed)
    else:
        records = two_player_records(kind, seed)
    told, spectator = Told(records), Spectator()
    for line, record in enumerate(records, start=1):
        spectator.feed(record)
        told.read(record)
        assert spectator.records == line
        assert spectator.view() == told.view(), f"line {line}: {record['type']}"
    assert spectator.view()["result"] is not None


def test_the_logs_of_the_whole_view_test_show_what_it_is_meant_to_check() -> None:
    # Without these the test above would pass on a field that never varies.
    logs = [two_player_records(k, s) for k, s in WHOLE_LOGS if k not in ("three", "four")]
    results = [r for log in logs for r in log if r["type"] == "hand_result"]
    assert {r["outcome"] for r in results} >= {"knock", "gin", "dead"}
    assert {r["winner"] for r in results} >= {0, 1}
    assert any(r["doubled"] for r in results)
    assert any(r["defender"] and r["defender"]["layoffs"] for r in results)
    assert len({r["dead_reason"] for r in results}) >= 3
    decisions = [r for log in logs for r in log if r["type"] == "decision"]
    assert {d["phase"] for d in decisions} >= {"upcard_offer", "draw", "discard", "defender"}
    assert {d["action"]["kind"] for d in decisions} >= {"pass", "draw_discard", "knock"}
    deals = [r for log in logs for r in log if r["type"] == "deal"]
    assert {d["dealer"] for d in deals} == {0, 1} and None in {d["upcard"] for d in deals}
    three = group_records(3, 5)
    assert {tuple(r["seats"]) for r in three if r["type"] == "deal"} >= {(1, 2), (2, 0)}
    assert "wall" in {d["phase"] for d in decisions}


# --- the header and the Hellos ------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_before_the_first_deal_the_view_is_the_headers_and_nothing_is_played(
    players: int, logs: dict[int, list[dict[str, Any]]]
) -> None:
    # Scores start at 0 for each seat, or each team with partnerships; no hand dealt, no table.
    header = logs[players][0]
    view = spectator_view([header])
    assert view["scores"] == [0] * (2 if players == 4 else players)
    assert (view["hand"], view["tables"], view["sitting_out"]) == (0, [], None)
    assert (view["hands"], view["rounds"], view["faults"]) == ([], [], [])
    assert (view["over"], view["result"], view["stopped"]) == (False, None, None)
    rules = header["rules"]
    assert view["rules"] == {
        "profile": rules["profile_name"],
        "target": rules["target"],
        "players": players,
        "knock_discard": _lies(rules),
    }
    # Nobody has said Hello yet: each seat has its label and nothing else.
    assert [(s["label"], s["name"], s["version"]) for s in view["seats"]] == [
        (bot["label"], "", "") for bot in header["bots"]
    ]


def test_a_header_without_its_bots_or_series_shows_seats_by_number() -> None:
    # A log rewritten by someone else: bots missing, not a list, or with entries that are not
    # bots; the view still has a seat for each player, labelled by its number.
    header = two_player_records("rlcard", 1)[0]
    for bots in (None, "ann", {"seat": 0, "label": "x"}, ["ann", {"label": "x"}, {"seat": "0"}]):
        view = spectator_view([{**header, "bots": bots, "series": None}])
        assert [s["label"] for s in view["seats"]] == ["seat 0", "seat 1"], bots
        assert view["series"] is None and view["stopped"] is None
    partial = [{"seat": 1, "label": "bob"}, {"seat": 0}]
    view = spectator_view([{**header, "bots": partial}])
    assert [s["label"] for s in view["seats"]] == ["", "bob"]
    # No match id or creation time: empty, not "None".
    bare = {k: v for k, v in header.items() if k not in ("match_id", "created", "series")}
    view = spectator_view([bare])
    assert (view["match_id"], view["started"], view["series"]) == ("", "", None)
    odd = spectator_view([{**header, "series": {"match_number": "2", "length": 3}}])
    assert odd["series"] == {"match": None, "of": 3}


def test_a_hello_names_its_seat_and_only_a_seat_of_the_match() -> None:
    records = two_player_records("rlcard", 1)
    header = records[0]
    hellos = [
        {"type": "connected", "seat": 1},  # no name, no version: empty
        {"type": "connected", "seat": None, "name": "x", "version": "1"},
        {"type": "connected", "name": "x", "version": "1"},
        {"type": "connected", "seat": "0", "name": "x", "version": "1"},
        {"type": "connected", "seat": 2, "name": "x", "version": "1"},
        {"type": "connected", "seat": -1, "name": "x", "version": "1"},
        {"type": "connected", "seat": 0, "name": "ann", "version": "2.1"},
    ]
    spectator = Spectator()
    for record in [header, *hellos]:
        spectator.feed(record)
    view = spectator.view()
    assert [(s["seat"], s["name"], s["version"]) for s in view["seats"]] == [
        (0, "ann", "2.1"),
        (1, "", ""),
    ]
    assert spectator.records == 1 + len(hellos) and view["stopped"] is None


def test_a_match_dealt_from_seed_zero_is_followed() -> None:
    # 0 is a seed like any other (docs/replay-log.md: the seed determines every deck).
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "m.jsonl"
        two_player_log(path, Rules.profile("standard", target=15), seed=0)
        records = records_of(path)
    assert records[0]["seed"] == 0
    view = spectator_view(records)
    assert view["stopped"] is None and view["tables"] and view["result"] is not None


@pytest.mark.parametrize("seed", [None, -1, "7", 2.0])
def test_a_header_without_a_seed_to_follow_shows_no_table(
    seed: Any, logs: dict[int, list[dict[str, Any]]]
) -> None:
    records = logs[2]
    header = {k: v for k, v in records[0].items() if k != "seed"}
    if seed is not None:
        header["seed"] = seed
    # Everything up to the match result: the match is not over before it is read.
    spectator = Spectator()
    spectator.feed(header)
    for record in records[1:-1]:
        spectator.feed(record)
    view = spectator.view()
    assert view["stopped"] == "the header has no seed to follow the match from"
    assert view["tables"] == [] and view["hands"] == [] and view["over"] is False
    assert view["scores"] == [0, 0] and view["seats"][0]["name"] == "random-bot"
    spectator.feed(records[-1])
    view = spectator.view()
    assert view["over"] is True and view["result"] is None


@pytest.mark.parametrize("rules", [None, "standard", {"profile_name": "no-such-profile"}])
def test_a_header_whose_rules_cannot_be_read_says_so(
    rules: Any, logs: dict[int, list[dict[str, Any]]]
) -> None:
    header = {**logs[2][0], "rules": rules}
    view = spectator_view([header, *logs[2][1:-1]])
    assert str(view["stopped"]).startswith("the header's rules cannot be read: ")
    assert view["rules"] is None and view["tables"] == [] and not view["over"]
    assert [s["label"] for s in view["seats"]] == ["ann", "bob"]  # two seats until told more


# --- logs the engine cannot follow --------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_deal_that_is_not_the_next_one_stops_the_table(
    players: int, logs: dict[int, list[dict[str, Any]]]
) -> None:
    records = logs[players]
    at = next(i for i, r in enumerate(records) if r["type"] == "deal")
    # Hand 3 is no table's next (with partnerships, hand 2 is the other table's first); a
    # number that is not an integer is no number at all.
    for number, said in ((3, 3), (0, 0), (None, None), ("1", None), (1.0, None)):
        wrong = {**records[at], "hand": number}
        spectator = Spectator()
        for record in [*records[:at], wrong, *records[at + 1 : -1]]:
            spectator.feed(record)
        view = spectator.view()
        assert view["stopped"] == f"the deal of hand {said} is not the engine's next"
        assert view["tables"] == [] and view["hand"] == 0 and view["over"] is False


def test_a_deal_without_a_deck_stops_the_table(logs: dict[int, list[dict[str, Any]]]) -> None:
    records = logs[2]
    at = next(i for i, r in enumerate(records) if r["type"] == "deal")
    for deck in (None, ["XX"], []):
        deal = {**records[at], "deck": deck}
        view = spectator_view([*records[:at], deal])
        assert view["stopped"] == "the deck of hand 1 is not the one the header's seed deals"


def test_an_action_the_engine_refuses_stops_the_table_where_it_was(
    logs: dict[int, list[dict[str, Any]]],
) -> None:
    records = logs[2]
    at = next(i for i, r in enumerate(records) if r["type"] == "decision")
    for action in ({"kind": "knock", "card": "ZZ"}, {"kind": "discard"}, None, {"kind": "fly"}):
        refused = {**records[at], "action": action}
        spectator = Spectator()
        for record in [*records[:at], refused, *records[at + 1 : -1]]:
            spectator.feed(record)
        view = spectator.view()
        seat = records[at]["seat"]
        assert str(view["stopped"]).startswith(f"the engine refuses seat {seat}'s action: ")
        # The table stays as the last record the engine took left it.
        assert view["tables"] == spectator_view(records[:at])["tables"]
        assert view["over"] is False


# --- the match result ---------------------------------------------------------------------------


def test_a_forfeit_of_both_seats_shows_both_and_no_winner(
    logs: dict[int, list[dict[str, Any]]],
) -> None:
    # docs/replay-log.md: with both seats at fault, winner null, forfeit.seat null, margin 0.
    records = logs[2]
    first = next(i for i, r in enumerate(records) if r["type"] == "decision")
    forfeit = {"seat": None, "kind": "no_connection", "rule": "R11.5", "reason": "both: 7H"}
    end = {**records[-1], "termination": "forfeit", "winner": None, "forfeit": forfeit}
    result = spectator_view([*records[: first + 4], end])["result"]
    assert result == {
        "termination": "forfeit",
        "winner": None,
        "final": [0, 0],
        "margin": 0,
        "placings": [1, 1],
        "forfeit": {"seats": [0, 1], "kind": "no_connection", "rule": "R11.5"},
    }


def test_a_forfeit_naming_no_seat_of_the_match_is_not_applied(
    logs: dict[int, list[dict[str, Any]]],
) -> None:
    records = logs[2]
    first = next(i for i, r in enumerate(records) if r["type"] == "decision")
    for seat in (2, -1, True, "0"):
        forfeit = {"seat": seat, "kind": "disconnected", "rule": "R11.5", "reason": "gone"}
        view = spectator_view([*records[: first + 4], {**records[-1], "forfeit": forfeit}])
        assert view["over"] and view["result"] is None and view["stopped"] is None


def test_a_forfeit_after_the_engines_own_end_changes_nothing(
    logs: dict[int, list[dict[str, Any]]],
) -> None:
    # The result shown is the engine's: a match result record that claims a forfeit of a match
    # the engine saw end is not believed.
    records = logs[2]
    forfeit = {"seat": 0, "kind": "disconnected", "rule": "R11.5", "reason": "gone"}
    view = spectator_view([*records[:-1], {**records[-1], "forfeit": forfeit}])
    assert view["result"] == spectator_view(records)["result"]
    assert view["result"]["termination"] == "target" and view["result"]["forfeit"] is None
