"""The requests written straight to the wire format (referee.frames, SeatRequests.encode) against
the messages built the ordinary way, field by field, and what their cached parts may show."""

from __future__ import annotations

import random

import pytest

from referee import frames as F
from referee.convert import CARD_STRINGS, EventEncoder
from referee.engine.actions import Knock
from referee.engine.group import GroupMatch
from referee.engine.match import Match
from referee.engine.observation import observe_seat
from referee.engine.rules import Rules
from referee.requests import SeatRequests, decision_request_pb
from referee.wire import ginrummy_pb2 as pb


@pytest.mark.parametrize("value", [0, 1, 127, 128, 300, 2**31 - 1, 2**40, -1, -2, -(2**31)])
def test_a_varint_reads_back_as_protobuf_reads_it(value: int) -> None:
    data = F.int_field(F.int_tag(4), value) + F.int_field(F.int_tag(5), value)
    message = pb.DecisionRequest.FromString(data)  # two int64 fields
    assert (message.time_left_ms, message.move_time_ms) == (value, value)
    if -(2**31) <= value < 2**31:  # an int32, negative ones included, takes the same bytes
        welcome = pb.Welcome(protocol_version=value)
        assert F.int_field(F.int_tag(1), value) == welcome.SerializeToString()


def _play(rules: Rules, seeds: range, hands: int = 4) -> int:
    """Every request of a few matches, encoded and built afresh: they must parse the same.

    The fresh one is built from the seat's observation alone with nothing kept between
    decisions, so a cached part that showed more than the observation would differ from it.
    """
    checked = 0
    for seed in seeds:
        rng = random.Random(seed)
        match: Match | GroupMatch = (
            Match(rules, seed) if rules.players == 2 else GroupMatch(rules, seed)
        )
        players = rules.players
        kept = [SeatRequests(s, rules) for s in range(players)]
        fresh = [EventEncoder(s) for s in range(players)]
        hands_seen: dict[int, object] = {}
        while match.result is None and len(match.hand_results) < hands:
            seat = match.to_act
            assert seat is not None
            obs = observe_seat(match, seat)
            if hands_seen.get(seat) != (obs.hand_number, obs.table):
                hands_seen[seat] = (obs.hand_number, obs.table)
                kept[seat].new_hand(obs.seat if players > 2 else None)
                fresh[seat] = EventEncoder(obs.seat)
            rid = checked + 1
            encoded = pb.RefereeMessage.FromString(kept[seat].encode(obs, rid, 900, 500, 400))
            expected = decision_request_pb(obs, fresh[seat], rid, 900, 500, 400)
            assert encoded == expected
            checked += 1
            legal = match.legal_actions()
            knocks = [a for a in legal if isinstance(a, Knock)]
            match.apply(knocks[0] if knocks and rng.random() < 0.5 else rng.choice(legal))
    return checked


@pytest.mark.parametrize("profile", ["standard", "oklahoma", "pagat", "openspiel", "rlcard"])
def test_encoded_requests_parse_as_the_messages_built_afresh(profile: str) -> None:
    assert _play(Rules.profile(profile), range(4)) > 200


def test_encoded_requests_with_declared_layoffs_match_fresh_ones() -> None:
    # The defender declares its layoffs: the knock, the layoff phase and the next hand's last
    # result all pass through the cached parts.
    rules = Rules.profile("standard", defender_play="declared")
    assert _play(rules, range(6)) > 200


@pytest.mark.parametrize("players", [3, 4])
def test_encoded_requests_of_group_matches_match_fresh_ones(players: int) -> None:
    assert _play(Rules.profile("standard", players=players), range(3), hands=3) > 100


def test_cached_events_never_show_the_opponents_hidden_cards() -> None:
    # After the opponent takes the upcard or a discard, its later stock draws and the cards it
    # holds stay hidden in every request: no card string of the opponent's concealed hand
    # appears in the cached events, whatever happened earlier in the hand.
    rules = Rules.profile("standard")
    checked = 0
    for seed in range(8):
        rng = random.Random(seed)
        match = Match(rules, seed)
        kept = [SeatRequests(0, rules), SeatRequests(1, rules)]
        number = -1
        while match.result is None and len(match.hand_results) < 3:
            hand = match.hand
            assert hand is not None
            if hand.number != number:
                number = hand.number
                for requests in kept:
                    requests.new_hand()
            seat = match.to_act
            assert seat is not None
            obs = observe_seat(match, seat)
            message = pb.RefereeMessage.FromString(kept[seat].encode(obs, 1, 900, 500, 400))
            request = message.decision_request
            known = set(obs.opponent_known)
            hidden = {CARD_STRINGS[c] for c in hand.cards_of(1 - seat) if c not in known}
            shown = {
                e.draw_stock.card
                for e in [*request.observation.events, *request.new_events]
                if e.HasField("draw_stock")
            }
            assert not shown & hidden
            assert all(
                e.draw_stock.card == ""
                for e in request.observation.events
                if e.HasField("draw_stock") and e.seat != seat
            )
            checked += 1
            legal = match.legal_actions()
            takes = [a for a in legal if type(a).__name__ == "DrawDiscard"]
            match.apply(takes[0] if takes and rng.random() < 0.4 else rng.choice(legal))
    assert checked > 200
