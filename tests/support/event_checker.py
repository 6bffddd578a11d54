"""The events rule of the protocol (proto, "Events"), checked on the messages a referee writes.

Each seat must receive each public event of a hand exactly once and in order, as an Event
message or in a request's ``new_events``, and while the hand is being played never as a
separate Event message. Used by the leak test's real matches and the session's unit tests.
"""

from __future__ import annotations

from referee.convert import EventEncoder
from referee.engine.hand import Hand
from referee.engine.outcomes import Phase
from referee.wire import ginrummy_pb2 as pb


def hand_events(seat: int, hand: Hand) -> list[pb.GameEvent]:
    """Every public event of ``hand`` as ``seat`` may see it, converted afresh."""
    return EventEncoder(seat).sync(hand.events, hand.knock)


class EventChecker:
    """Rebuilds each seat's events from what it receives; checks them at requests and hand ends."""

    def __init__(self) -> None:
        self.received: dict[int, list[pb.GameEvent]] = {0: [], 1: []}
        self.problems: list[str] = []
        self.event_messages = 0
        self.requests = 0
        self.carried = 0  # events that came in a request's new_events
        self.hands_checked = 0

    def __call__(self, seat: int, message: pb.RefereeMessage, hand: Hand | None) -> None:
        got = self.received[seat]
        kind = message.WhichOneof("kind")
        if kind in ("match_start", "hand_start"):
            got.clear()
        elif kind == "event":
            self.event_messages += 1
            if message.event.WhichOneof("kind") == "choose_deal":
                return  # before the first hand, not one of its events
            assert hand is not None
            if hand.phase is not Phase.MATCH_OVER:
                self.problems.append(f"seat {seat} got an Event message mid-hand: {message}")
            got.append(message.event)
        elif kind == "decision_request":
            request = message.decision_request
            self.requests += 1
            self.carried += len(request.new_events)
            got.extend(request.new_events)
            if list(request.observation.events) != got:
                self.problems.append(f"seat {seat}: received {got}, observation {request}")
        elif kind == "hand_end":
            assert hand is not None
            expected = hand_events(seat, hand)
            result = message.hand_end.result
            if result.HasField("showdown"):
                expected.append(pb.GameEvent(seat=result.knocker, showdown=result.showdown))
            if got != expected:
                self.problems.append(f"seat {seat}, hand end: received {got}, not {expected}")
            self.hands_checked += 1
