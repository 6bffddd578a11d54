"""What a seat is sent about the game in progress: its observation, its DecisionRequest and
its HandStart, built from :func:`referee.engine.observation.observe` alone (the wire forms of
cards, actions, events and results are :mod:`referee.convert`'s)."""

from __future__ import annotations

from collections.abc import Sequence

from referee import frames as F
from referee.convert import (
    EventEncoder,
    action_pb,
    card_pb,
    cards_pb,
    hand_result_pb,
    phase_pb,
    rules_pb,
)
from referee.engine.actions import Action
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


# Field keys and card tables of the messages :class:`SeatRequests` writes (proto field numbers).
_HAND = F.card_fields(4)
_PILE = F.card_fields(5)
_UPCARD = F.card_fields(9)
_KNOWN = F.card_fields(10)
_TAKEN = F.card_fields(11)
_BARRED = F.card_fields(12)
_OBS_SEAT, _PHASE, _TO_ACT = F.int_tag(1), F.int_tag(2), F.int_tag(3)
_STOCK, _LIMIT, _FROM_UPCARD = F.int_tag(6), F.int_tag(7), F.int_tag(8)
_MUST_KNOCK, _SCORES, _DEALER = F.int_tag(13), F.length_tag(14), F.int_tag(15)
_HAND_NUMBER, _EVENTS, _RULES = F.int_tag(16), F.length_tag(17), F.length_tag(18)
_LAST_HAND = F.length_tag(19)
_REQUEST_ID, _OBSERVATION, _LEGAL = F.int_tag(1), F.length_tag(2), F.length_tag(3)
_TIME_LEFT, _MOVE_TIME, _BANK = F.int_tag(4), F.int_tag(5), F.int_tag(6)
_NEW_EVENTS = F.length_tag(7)
_DECISION_REQUEST = F.length_tag(4)  # RefereeMessage.decision_request
_EVENT = F.length_tag(5)  # RefereeMessage.event
_PHASE_FIELDS = {phase: F.int_field(_PHASE, phase_pb(phase)) for phase in Phase}
_SCORE_KEYS = (F.int_tag(1), F.int_tag(2), F.int_tag(3))
# Actions recur all match long (the same 52 discards): each serialized once. Bounded, since a
# defender's declaration can be any of many.
_ACTION_CACHE_SIZE = 4096
_action_fields: dict[Action, bytes] = {}


def _action_field(action: Action) -> bytes:
    field = _action_fields.get(action)
    if field is None:
        if len(_action_fields) >= _ACTION_CACHE_SIZE:
            _action_fields.clear()
        field = F.length_field(_LEGAL, action_pb(action).SerializeToString())
        _action_fields[action] = field
    return field


def _score_field(points: int, hands_won: int, extra_boxes: int) -> bytes:
    p, w, x = _SCORE_KEYS
    payload = F.int_field(p, points) + F.int_field(w, hands_won) + F.int_field(x, extra_boxes)
    return F.length_field(_SCORES, payload)


def event_message(encoded: bytes) -> bytes:
    """A RefereeMessage carrying one serialized GameEvent (:attr:`EventEncoder.encoded`)."""
    return F.length_field(_EVENT, encoded)


class SeatRequests:
    """One seat's DecisionRequests of a match, written straight to the wire format.

    Building a request message copies the rules map, the hand's whole event history, the last
    hand result and every legal action each time, then serializes all of it (about 50 µs a
    decision). Here those parts are serialized once (the rules per match, the last hand result
    per hand, each event and each action once) and each request joins their bytes with the few
    fields that change (:mod:`referee.frames`). :meth:`encode` returns the serialized
    RefereeMessage, which parses to the message :func:`decision_request_pb` builds.
    """

    def __init__(self, seat: int, rules: Rules) -> None:
        self.encoder = EventEncoder(seat)
        self._rules_field = F.length_field(_RULES, rules_pb(rules).SerializeToString())
        self._rules = rules
        self._last_hand: HandResult | None = None
        self._last_hand_field = b""
        self._events_field = b""  # the observation's events: encoder.encoded[:_events_count]
        self._events_count = 0
        self._seating: tuple[object, ...] | None = None
        self._seating_fields = b""

    def new_hand(self, hand_seat: int | None = None) -> None:
        """Forget the events of the previous hand; with 3 or 4 players the seat plays
        ``hand_seat`` of the new one (§10)."""
        self.encoder.reset()
        if hand_seat is not None:
            self.encoder.seat = hand_seat
        self._events_field = b""
        self._events_count = 0

    def _seating_of(self, obs: Observation) -> bytes:
        """Fields 20 and on: where the hand sits in the match, as :func:`set_seating` sets them."""
        key = (
            obs.player,
            obs.players,
            obs.hand_seats,
            obs.sitting_out,
            obs.table,
            obs.player_scores,
            obs.team_scores,
        )
        if key != self._seating:
            o = pb.Observation()
            set_seating(o, obs)
            o.seat = 0  # field 1, written first by request()
            self._seating = key
            self._seating_fields = o.SerializeToString()
        return self._seating_fields

    def request(
        self, obs: Observation, request_id: int, time_left_ms: int, move_time_ms: int, bank_ms: int
    ) -> pb.RefereeMessage:
        """:meth:`encode`'s request as a message: what the bot reads."""
        message = pb.RefereeMessage()
        message.ParseFromString(self.encode(obs, request_id, time_left_ms, move_time_ms, bank_ms))
        return message

    def encode(
        self, obs: Observation, request_id: int, time_left_ms: int, move_time_ms: int, bank_ms: int
    ) -> bytes:
        """The serialized request for ``obs`` (the fields of :func:`decision_request_pb`).

        Its ``new_events`` are the seat's events not delivered yet, which from now on are: send
        this request before any other message to the seat.
        """
        encoder = self.encoder
        encoder.sync(obs.events, obs.knock)
        new_events = encoder.take_undelivered_encoded()
        encoded = encoder.encoded
        if self._events_count < len(encoded):
            self._events_field += b"".join(
                [F.length_field(_EVENTS, e) for e in encoded[self._events_count :]]
            )
            self._events_count = len(encoded)
        if obs.last_hand is not self._last_hand:
            self._last_hand = obs.last_hand
            self._last_hand_field = (
                b""
                if obs.last_hand is None
                else F.length_field(_LAST_HAND, hand_result_pb(obs.last_hand).SerializeToString())
            )
        scores, won, extra = obs.scores, obs.hands_won, obs.extra_boxes
        observation = b"".join(
            [
                F.int_field(_OBS_SEAT, obs.seat),
                _PHASE_FIELDS[obs.phase],
                F.int_field(_TO_ACT, -1 if obs.to_act is None else obs.to_act),
                F.cards_field(_HAND, obs.hand),
                F.cards_field(_PILE, obs.discard_pile),
                F.int_field(_STOCK, obs.stock_size),
                F.int_field(_LIMIT, obs.knock_limit),
                F.int_field(_FROM_UPCARD, limit_from_upcard(obs.rules, obs.upcard)),
                b"" if obs.upcard is None else _UPCARD[obs.upcard],
                F.cards_field(_KNOWN, obs.opponent_known),
                b"" if obs.taken is None else _TAKEN[obs.taken],
                b"" if obs.barred is None else _BARRED[obs.barred],
                F.int_field(_MUST_KNOCK, obs.must_knock),
                _score_field(scores[0], won[0], extra[0]),
                _score_field(scores[1], won[1], extra[1]),
                F.int_field(_DEALER, obs.dealer),
                F.int_field(
                    _HAND_NUMBER, 0 if obs.phase is Phase.CHOOSE_DEALER else obs.hand_number + 1
                ),
                self._events_field,
                self._rules_field,
                self._last_hand_field,
                self._seating_of(obs),
            ]
        )
        request = b"".join(
            [
                F.int_field(_REQUEST_ID, request_id),
                F.length_field(_OBSERVATION, observation),
                *[_action_field(a) for a in obs.legal_actions],
                F.int_field(_TIME_LEFT, time_left_ms),
                F.int_field(_MOVE_TIME, move_time_ms),
                F.int_field(_BANK, bank_ms),
                *[F.length_field(_NEW_EVENTS, e) for e in new_events],
            ]
        )
        return F.length_field(_DECISION_REQUEST, request)


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
