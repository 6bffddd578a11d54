"""Engine values <-> wire messages (referee.convert): actions, malformed input, views, results."""

from __future__ import annotations

import random

import pytest

from referee.convert import EventEncoder, action_from_pb, action_pb, hand_result_pb, rules_pb
from referee.engine.actions import (
    Action,
    BigGin,
    ChooseDeal,
    DeclareDead,
    DefenderPlay,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    Pass,
)
from referee.engine.cards import card_str, parse_card, parse_cards
from referee.engine.match import Match
from referee.engine.observation import observe
from referee.engine.outcomes import Phase
from referee.engine.rules import PROFILES, Rules
from referee.errors import MalformedActionError
from referee.requests import decision_request_pb, hand_start_pb, observation_pb
from referee.wire import ginrummy_pb2 as pb

C = parse_card


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text.split()))


ACTIONS: list[Action] = [
    DrawStock(),
    DrawDiscard(),
    Pass(),
    DeclareDead(),
    Discard(C("TD")),
    Knock(C("KS")),
    Knock(C("KS"), (cards("3S 4S 5S"), cards("7H 7D 7C"))),
    BigGin(),
    BigGin((cards("AC 2C 3C"),)),
    DefenderPlay((cards("9H TH JH"),), cards("6S")),
    DefenderPlay((), ()),
    ChooseDeal(True),
    ChooseDeal(False),
]


@pytest.mark.parametrize("action", ACTIONS, ids=str)
def test_every_action_kind_round_trips(action: Action) -> None:
    wire = pb.Action.FromString(action_pb(action).SerializeToString())
    assert action_from_pb(wire) == action


def test_a_knock_without_arrangement_leaves_it_absent() -> None:
    assert not action_pb(Knock(C("KS"))).knock.HasField("arrangement")
    assert action_pb(Knock(C("KS"), ())).knock.HasField("arrangement")


@pytest.mark.parametrize("text", ["10D", "td", "T♦", "XX", "", " TD", "TDD"])
def test_only_canonical_cards_are_read(text: str) -> None:
    with pytest.raises(MalformedActionError, match="is not a card"):
        action_from_pb(pb.Action(discard=pb.Discard(card=text)))


def test_an_action_without_kind_is_malformed() -> None:
    with pytest.raises(MalformedActionError, match="no kind"):
        action_from_pb(pb.Action())


HAND = cards("3S 4S 5S 7H 7D 7C 9C TC JC TD KS")


def knock(melds: list[str], deadwood: list[str], discard: str = "KS") -> pb.Action:
    arrangement = pb.Arrangement(melds=[pb.Meld(cards=m.split()) for m in melds], deadwood=deadwood)
    return pb.Action(knock=pb.Knock(discard=discard, arrangement=arrangement))


def test_duplicate_cards_in_an_arrangement_are_malformed() -> None:
    with pytest.raises(MalformedActionError, match="7H appears twice"):
        action_from_pb(knock(["7H 7D 7C", "7H 8H 9H"], []), HAND)
    with pytest.raises(MalformedActionError, match="KS appears twice"):
        action_from_pb(knock(["3S 4S 5S"], ["KS"]), HAND)


def test_declared_deadwood_must_be_the_rest_of_the_hand() -> None:
    melds = ["3S 4S 5S", "7H 7D 7C", "9C TC JC"]
    ok = action_from_pb(knock(melds, ["TD"]), HAND)
    assert ok == Knock(C("KS"), (cards("3S 4S 5S"), cards("7H 7D 7C"), cards("9C TC JC")))
    assert action_from_pb(knock(melds, []), HAND) == ok  # empty: the referee fills it in
    with pytest.raises(MalformedActionError, match="not the cards outside the melds"):
        action_from_pb(knock(melds, ["QD"]), HAND)


def test_duplicate_in_a_defender_play_is_malformed() -> None:
    play = pb.DefenderPlay(melds=[pb.Meld(cards=["9H", "TH", "JH"])], layoffs=["9H"])
    with pytest.raises(MalformedActionError, match="appears twice"):
        action_from_pb(pb.Action(defender_play=play))


@pytest.mark.parametrize("profile", list(PROFILES))
def test_rules_carry_every_parameter_spelled_as_in_the_rules(profile: str) -> None:
    rules = Rules.profile(profile)
    msg = rules_pb(rules)
    assert msg.profile == profile
    assert set(msg.params) == set(rules.to_dict()) - {"profile_name"}
    assert all(v == v.strip() and v for v in msg.params.values())
    assert msg.params["undercut_on_tie"] in ("on", "off")
    assert Rules.from_dict({"profile_name": profile, **dict(msg.params)}) == rules


def test_events_hide_the_opponents_stock_draws_and_name_the_upcard_take() -> None:
    match = Match(Rules.profile("standard"), 3, first_dealer=0)
    match.apply(DrawDiscard())  # seat 1 takes the upcard
    match.apply(Discard(observe(match, 1).hand[0]))
    match.apply(DrawStock())  # seat 0 draws from the stock
    drawn = match.hand.events[-1].card
    encoders = [EventEncoder(0), EventEncoder(1)]
    for seat in (0, 1):
        encoders[seat].sync(match.hand.events, None)
    kinds = [e.WhichOneof("kind") for e in encoders[1].events]
    assert kinds == ["take_upcard", "discard", "draw_stock"]
    assert encoders[1].events[2].draw_stock.card == ""
    assert drawn is not None and encoders[0].events[2].draw_stock.card == card_str(drawn)
    # The observation's own events agree with the raw ones, filtered the same way.
    fresh = EventEncoder(1)
    obs = observation_pb(observe(match, 1), fresh)
    assert list(obs.events) == list(encoders[1].events)


def test_decision_request_lists_the_legal_actions_and_the_clock() -> None:
    match = Match(Rules.profile("standard"), 5, first_dealer=1)
    obs = observe(match, 0)
    msg = decision_request_pb(obs, EventEncoder(0), 9, 1500, 1000, 500).decision_request
    assert msg.request_id == 9 and (msg.time_left_ms, msg.move_time_ms, msg.bank_ms) == (
        1500,
        1000,
        500,
    )
    assert [action_from_pb(a) for a in msg.legal_actions] == match.legal_actions()
    assert msg.observation.phase == pb.PHASE_UPCARD_OFFER
    assert msg.observation.hand_number == 1 and msg.observation.to_act == 0
    assert len(msg.observation.hand) == 10 and msg.observation.stock_size == 31
    start = hand_start_pb(obs).hand_start
    assert list(start.hand) == list(msg.observation.hand) and start.upcard == msg.observation.upcard


def test_hand_results_convert_with_the_showdown() -> None:
    rng = random.Random(1)
    match = Match(Rules.profile("standard"), 8)
    while not match.hand_results or match.hand_results[-1].knocker is None:
        if match.phase is Phase.MATCH_OVER:
            match = Match(Rules.profile("standard"), rng.randrange(1000))
        legal = match.legal_actions()
        knocks = [a for a in legal if isinstance(a, Knock)]
        match.apply(knocks[0] if knocks else rng.choice(legal))
    result = match.hand_results[-1]
    msg = hand_result_pb(result)
    assert msg.hand_number == result.number + 1
    assert msg.knocker == result.knocker and msg.HasField("showdown")
    assert msg.showdown.knocker_deadwood == result.knocker_deadwood
    assert msg.showdown.defender_deadwood == result.defender_deadwood
    assert msg.HasField("winner") == (result.winner is not None)
    assert [list(h.cards) for h in msg.final_hands] == [
        [card_str(c) for c in h] for h in result.final_hands
    ]


@pytest.mark.parametrize("profile", ["standard", "oklahoma", "rlcard"])
def test_requests_updated_in_place_equal_fresh_ones(profile: str) -> None:
    from referee.requests import SeatRequests

    rules = Rules.profile(profile)
    rng = random.Random(7)
    checked = 0
    for seed in range(6):
        match = Match(rules, seed)
        fresh = [EventEncoder(0), EventEncoder(1)]
        kept = [SeatRequests(0, rules), SeatRequests(1, rules)]
        hand = match.hand
        while match.result is None and len(match.hand_results) < 3:
            if match.hand is not hand:
                hand = match.hand
                for s in (0, 1):
                    fresh[s].reset()
                    kept[s].new_hand()
            seat = match.to_act
            assert seat is not None
            obs = observe(match, seat)
            expected = decision_request_pb(obs, fresh[seat], checked + 1, 900, 500, 400)
            assert kept[seat].request(obs, checked + 1, 900, 500, 400) == expected
            checked += 1
            legal = match.legal_actions()
            knocks = [a for a in legal if isinstance(a, Knock)]
            match.apply(knocks[0] if knocks else rng.choice(legal))
    assert checked > 300


def test_a_request_carries_the_events_not_delivered_yet_once() -> None:
    from referee.requests import SeatRequests

    rules = Rules.profile("standard")
    match = Match(rules, 3, first_dealer=0)
    requests = SeatRequests(1, rules)
    first = requests.request(observe(match, 1), 1, 900, 500, 400).decision_request
    assert list(first.new_events) == []  # the deal is not a wire event
    match.apply(DrawDiscard())  # seat 1 takes the upcard, then must discard
    second = requests.request(observe(match, 1), 2, 900, 500, 400).decision_request
    assert [e.WhichOneof("kind") for e in second.new_events] == ["take_upcard"]
    assert list(second.new_events) == list(second.observation.events)
    again = requests.request(observe(match, 1), 3, 900, 500, 400).decision_request  # a retry
    assert list(again.new_events) == [] and len(again.observation.events) == 1
    # Events sent as Event messages are not repeated in the next request.
    match.apply(Discard(observe(match, 1).hand[0]))
    match.apply(DrawStock())  # seat 0
    requests.encoder.sync(match.hand.events, None)
    sent = requests.encoder.take_undelivered()
    assert [e.WhichOneof("kind") for e in sent] == ["discard", "draw_stock"]
    assert sent[1].draw_stock.card == ""  # the opponent's stock draw, without its card
    match.apply(Discard(observe(match, 0).hand[0]))
    fourth = requests.request(observe(match, 1), 4, 900, 500, 400).decision_request
    assert [e.WhichOneof("kind") for e in fourth.new_events] == ["discard"]
    assert len(fourth.observation.events) == 4


def test_scores_in_requests_come_from_the_observation() -> None:
    from referee.requests import SeatRequests

    # Extra boxes (R9.7) come with gin and undercuts: this game has a gin in its 10th hand.
    rules = Rules.profile("oklahoma", oklahoma_extra_boxes=True)
    rng = random.Random(1)
    match = Match(rules, 1)
    kept = [SeatRequests(0, rules), SeatRequests(1, rules)]
    boxes_seen = False
    while match.result is None and not boxes_seen:
        seat = match.to_act
        assert seat is not None
        obs = observe(match, seat)
        scores = kept[seat].request(obs, 1, 1, 1, 1).decision_request.observation.scores
        assert [(s.points, s.hands_won, s.extra_boxes) for s in scores] == [
            (obs.scores[s], obs.hands_won[s], obs.extra_boxes[s]) for s in (0, 1)
        ]
        boxes_seen |= any(obs.extra_boxes)
        legal = match.legal_actions()
        knocks = [a for a in legal if isinstance(a, Knock)]
        match.apply(knocks[0] if knocks else rng.choice(legal))
    assert boxes_seen


def test_a_forfeit_of_both_seats_has_no_winner_on_the_wire_and_in_the_log() -> None:
    from referee.convert import match_result_pb
    from referee.faults import Fault, FaultKind
    from referee.replay_log import match_result_dict

    match = Match(Rules.profile("standard"), 1)
    match.forfeit([0, 1], "R11.5", "both seats forfeit: ...")
    result = match.result
    assert result is not None
    fault = Fault(1, FaultKind.CRASHED, "R11.5", "gone")
    msg = match_result_pb(result, [pb.SeatScore(), pb.SeatScore()], 1, fault)
    assert msg.termination == pb.TERMINATION_FORFEIT and not msg.HasField("winner")
    assert (msg.forfeit.seat, msg.forfeit.both_seats) == (-1, True)
    assert msg.forfeit.kind == pb.FAULT_KIND_DISCONNECTED and msg.forfeit.rule == "R11.5"
    record = match_result_dict(result, 1, "crashed")
    assert record["winner"] is None and record["forfeit"] == {
        "seat": None,
        "kind": "crashed",
        "rule": "R11.5",
        "reason": "both seats forfeit: ...",
    }
    one = Match(Rules.profile("standard"), 1)
    one.forfeit([0], "R4.1", "illegal")
    assert one.result is not None
    single = match_result_pb(one.result, [], 1, Fault(0, FaultKind.ILLEGAL_ACTION, "R4.1", "x"))
    assert (single.winner, single.forfeit.seat, single.forfeit.both_seats) == (1, 0, False)
