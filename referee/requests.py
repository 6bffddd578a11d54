"""What a seat is sent about the game in progress: its observation, its DecisionRequest and
its HandStart, built from :func:`referee.engine.observation.observe` alone (the wire forms of
cards, actions, events and results are :mod:`referee.convert`'s)."""

from __future__ import annotations

from collections.abc import Sequence

from referee.convert import (
    CARD_STRINGS,
    EventEncoder,
    action_pb,
    card_pb,
    cards_pb,
    hand_result_pb,
    phase_pb,
    rules_pb,
)
from referee.engine.cards import Card
from referee.engine.observation import Observation
from referee.engine.outcomes import HandResult, Phase
from referee.engine.rules import Rules
from referee.wire import ginrummy_pb2 as pb


def seat_scores_pb(
    points: Sequence[int], hands_won: Sequence[int], extra_boxes: Sequence[int]
) -> list[pb.SeatScore]:
    """Running totals of every seat (or team)."""
    return [
        pb.SeatScore(points=points[s], hands_won=hands_won[s], extra_boxes=extra_boxes[s])
        for s in range(len(points))
    ]


def totals_pb(totals: Sequence[tuple[int, int, int]]) -> list[pb.SeatScore]:
    """(points, hands won, extra boxes) triples as SeatScores."""
    return [pb.SeatScore(points=p, hands_won=w, extra_boxes=x) for p, w, x in totals]


def set_seating(o: pb.Observation, obs: Observation) -> None:
    """The fields that place ``obs``'s hand in a match of any size (§10)."""
    o.seat = obs.seat
    o.player = obs.player
    o.players = obs.players
    del o.hand_players[:]
    o.hand_players.extend(obs.hand_seats)
    o.sitting_out = -1 if obs.sitting_out is None else obs.sitting_out
    o.table = obs.table
    if obs.player_scores or o.player_scores:
        del o.player_scores[:]
        o.player_scores.extend(totals_pb(obs.player_scores))
    if obs.team_scores or o.team_scores:
        del o.team_scores[:]
        o.team_scores.extend(totals_pb(obs.team_scores))


def observation_pb(obs: Observation, events: EventEncoder) -> pb.Observation:
    """The wire form of ``obs``; ``events`` is the seat's encoder for the current hand."""
    events.sync(obs.events, obs.knock)
    msg = pb.Observation(
        seat=obs.seat,
        phase=phase_pb(obs.phase),
        to_act=-1 if obs.to_act is None else obs.to_act,
        hand=cards_pb(obs.hand),
        discard_pile=cards_pb(obs.discard_pile),
        stock_size=obs.stock_size,
        knock_limit=obs.knock_limit,
        knock_limit_from_upcard=limit_from_upcard(obs.rules, obs.upcard),
        upcard=card_pb(obs.upcard),
        opponent_known_cards=cards_pb(obs.opponent_known),
        taken_card=card_pb(obs.taken),
        barred_card=card_pb(obs.barred),
        must_knock=obs.must_knock,
        scores=seat_scores_pb(obs.scores, obs.hands_won, obs.extra_boxes),
        dealer=obs.dealer,
        hand_number=0 if obs.phase is Phase.CHOOSE_DEALER else obs.hand_number + 1,
        events=events.events,
    )
    set_seating(msg, obs)
    msg.rules.CopyFrom(rules_pb(obs.rules))
    if obs.last_hand is not None:
        msg.last_hand_result.CopyFrom(hand_result_pb(obs.last_hand))
    return msg


class SeatRequests:
    """One seat's DecisionRequest message, kept for the match and updated in place.

    Building a fresh request copies the rules map, the hand's whole event history and the last
    hand result every time (about 95 µs a decision); here the rules are set once per match, the
    last hand result once per hand, and only new events are appended. The message returned by
    :meth:`request` is reused: write it (grpc serializes it at once) or copy it to keep it.
    """

    def __init__(self, seat: int, rules: Rules) -> None:
        self.encoder = EventEncoder(seat)
        self.message = pb.RefereeMessage()
        self._request = self.message.decision_request
        obs = self._request.observation
        obs.seat = seat
        obs.rules.CopyFrom(rules_pb(rules))
        obs.scores.extend([pb.SeatScore(), pb.SeatScore()])
        self._rules = rules
        self._last_hand: HandResult | None = None

    def new_hand(self, hand_seat: int | None = None) -> None:
        """Forget the events of the previous hand; with 3 or 4 players the seat plays
        ``hand_seat`` of the new one (§10)."""
        self.encoder.reset()
        if hand_seat is not None:
            self.encoder.seat = hand_seat
        del self._request.observation.events[:]

    def request(
        self, obs: Observation, request_id: int, time_left_ms: int, move_time_ms: int, bank_ms: int
    ) -> pb.RefereeMessage:
        """The request for ``obs`` (the same fields as :func:`decision_request_pb`).

        Its ``new_events`` are the seat's events not delivered yet, which from now on are: send
        this request before any other message to the seat.
        """
        encoder = self.encoder
        encoder.sync(obs.events, obs.knock)
        req = self._request
        req.request_id = request_id
        req.time_left_ms = time_left_ms
        req.move_time_ms = move_time_ms
        req.bank_ms = bank_ms
        new_events = req.new_events
        if new_events:
            del new_events[:]
        new_events.extend(encoder.take_undelivered())
        del req.legal_actions[:]
        req.legal_actions.extend([action_pb(a) for a in obs.legal_actions])
        o = req.observation
        events = encoder.events
        if len(o.events) < len(events):
            o.events.extend(events[len(o.events) :])
        o.phase = phase_pb(obs.phase)
        o.to_act = -1 if obs.to_act is None else obs.to_act
        del o.hand[:]
        o.hand.extend([CARD_STRINGS[c] for c in obs.hand])
        del o.discard_pile[:]
        o.discard_pile.extend([CARD_STRINGS[c] for c in obs.discard_pile])
        o.stock_size = obs.stock_size
        o.knock_limit = obs.knock_limit
        o.knock_limit_from_upcard = limit_from_upcard(obs.rules, obs.upcard)
        o.upcard = card_pb(obs.upcard)
        del o.opponent_known_cards[:]
        o.opponent_known_cards.extend([CARD_STRINGS[c] for c in obs.opponent_known])
        o.taken_card = card_pb(obs.taken)
        o.barred_card = card_pb(obs.barred)
        o.must_knock = obs.must_knock
        for s in (0, 1):
            score = o.scores[s]
            score.points = obs.scores[s]
            score.hands_won = obs.hands_won[s]
            score.extra_boxes = obs.extra_boxes[s]
        o.dealer = obs.dealer
        o.hand_number = 0 if obs.phase is Phase.CHOOSE_DEALER else obs.hand_number + 1
        if obs.players != 2 or not o.players:
            set_seating(o, obs)
        if obs.last_hand is not self._last_hand:
            self._last_hand = obs.last_hand
            if obs.last_hand is None:
                o.ClearField("last_hand_result")
            else:
                o.last_hand_result.CopyFrom(hand_result_pb(obs.last_hand))
        return self.message


def limit_from_upcard(rules: Rules, upcard: Card | None) -> bool:
    return rules.knock_limit_mode == "oklahoma" and upcard is not None


def decision_request_pb(
    obs: Observation,
    events: EventEncoder,
    request_id: int,
    time_left_ms: int,
    move_time_ms: int,
    bank_ms: int,
) -> pb.RefereeMessage:
    """A DecisionRequest for the acting seat, whose observation lists the legal actions.

    ``new_events`` are the events that ``events`` had not delivered yet (now they are).
    """
    observation = observation_pb(obs, events)
    return pb.RefereeMessage(
        decision_request=pb.DecisionRequest(
            request_id=request_id,
            observation=observation,
            legal_actions=[action_pb(a) for a in obs.legal_actions],
            time_left_ms=time_left_ms,
            move_time_ms=move_time_ms,
            bank_ms=bank_ms,
            new_events=events.take_undelivered(),
        )
    )


def hand_start_pb(obs: Observation) -> pb.RefereeMessage:
    """HandStart for ``obs.seat``, from its observation at the start of the hand."""
    return pb.RefereeMessage(
        hand_start=pb.HandStart(
            hand_number=obs.hand_number + 1,
            dealer=obs.dealer,
            hand=cards_pb(obs.hand),
            upcard=card_pb(obs.upcard),
            knock_limit=obs.knock_limit,
            knock_limit_from_upcard=limit_from_upcard(obs.rules, obs.upcard),
            stock_size=obs.stock_size,
            hand_seat=obs.seat,
            hand_players=list(obs.hand_seats),
            sitting_out=-1 if obs.sitting_out is None else obs.sitting_out,
            table=obs.table,
        )
    )
