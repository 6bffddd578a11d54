"""The leak test (R2.8, R11.3): no message ever shows a seat a card hidden from it.

Many matches under several profiles; every message the referee writes to a seat is checked, at
the moment it is written, against the cards hidden from that seat in the engine's true state:
the stock, the opponent's concealed cards (all of its hand except what it took face up from the
pile, until it knocks and shows its spread) and the face-down knock discard, until the hand is
over. Messages about a finished hand
(its showdown and result) may show everything but the stock, which is never shown.

The same messages are checked for the events rule of the protocol (proto, "Events"): each seat
receives each public event exactly once and in order, as an Event message or in a request's
new_events, and while a hand is being played never as a separate Event message (the referee
sends a seat its events with its next request).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf.message import Message

from referee.convert import EventEncoder
from referee.engine.cards import card_str, cards_of
from referee.engine.hand import Hand
from referee.engine.outcomes import Phase
from referee.engine.rules import Rules
from referee.series import run_series_async
from referee.wire import ginrummy_pb2 as pb
from tests.support.event_checker import EventChecker
from tests.support.referee_helpers import FAST, bot

pytestmark = pytest.mark.slow  # real matches, every message checked

CARDS = {card_str(c) for c in range(52)}


def hidden_from(seat: int, hand: Hand) -> set[str]:
    """The cards ``seat`` may not see now, from the engine's raw state (not from observe)."""
    hidden = set(hand.stock)
    if hand.phase is not Phase.MATCH_OVER:  # the hand is still being played
        other = 1 - seat
        if hand.knock is None or hand.knock.knocker != other:
            # A knocker shows its spread (R5.2), not its discard.
            hidden |= set(cards_of(hand.held(other) & ~hand.known(other)))
        if hand.knock_discard is not None:
            hidden.add(hand.knock_discard)
    return {card_str(c) for c in hidden}


def card_strings(message: Message, skip: frozenset[str] = frozenset()) -> set[str]:
    """Every card string anywhere in ``message`` (recursively), except in fields ``skip``."""
    found: set[str] = set()
    for field, value in message.ListFields():
        if field.name in skip:
            continue
        values = value if field.is_repeated else [value]
        for item in values:
            if isinstance(item, Message):
                found |= card_strings(item, skip)
            elif isinstance(item, str) and item in CARDS:
                found.add(item)
    return found


class LeakChecker:
    def __init__(self) -> None:
        self.checked = 0
        self.with_hidden = 0
        self.leaks: list[str] = []
        self.kinds: set[str] = set()

    def __call__(self, seat: int, message: pb.RefereeMessage, hand: Hand | None) -> None:
        self.checked += 1
        self.kinds.add(message.WhichOneof("kind") or "")
        if hand is None:
            assert not card_strings(message)
            return
        hidden = hidden_from(seat, hand)
        self.with_hidden += bool(hidden)
        # The previous hand's result is public and its cards are in this hand's deck again.
        shown = card_strings(message, frozenset({"last_hand_result"}))
        leaked = shown & hidden
        if leaked:
            self.leaks.append(f"seat {seat} saw {sorted(leaked)} in {message}")


def test_no_message_shows_a_seat_a_hidden_card(tmp_path: Path) -> None:
    import asyncio

    leaks = LeakChecker()
    events = EventChecker()

    def checker(seat: int, message: pb.RefereeMessage, hand: Hand | None) -> None:
        leaks(seat, message, hand)
        events(seat, message, hand)

    plays = [("standard", 6), ("oklahoma", 3), ("openspiel", 10), ("rlcard", 10)]
    plays += [("standard", 4)]  # with defender_play = declared and a choice of dealer, below

    async def main() -> None:
        seed = 100
        for k, (profile, count) in enumerate(plays):
            overrides = {}
            if k == len(plays) - 1:
                overrides = {"defender_play": "declared", "first_dealer": "cut_high_chooses"}
            rules = Rules.profile(profile, **overrides)
            seeds = list(range(seed, seed + count))
            seed += count
            series = await run_series_async(
                (bot(), bot("first")), rules, seeds, tmp_path, FAST, on_send=checker
            )
            assert all(m.forfeit is None for m in series.matches)

    asyncio.run(main())
    assert leaks.leaks == [], leaks.leaks[:3]
    assert leaks.checked > 3000 and leaks.with_hidden > 3000
    assert {"decision_request", "event", "hand_start", "hand_end", "match_end"} <= leaks.kinds
    # Each event exactly once, in order, either way; Event messages only at the end of a hand.
    assert events.problems == [], events.problems[:3]
    assert events.hands_checked > 100 and events.carried > 1000
    assert events.event_messages < 0.5 * events.requests


def test_the_checker_catches_a_leak() -> None:
    from referee.engine.match import Match
    from referee.engine.observation import observe
    from referee.requests import hand_start_pb

    match = Match(Rules.profile("standard"), 1)
    checker = LeakChecker()
    checker(0, hand_start_pb(observe(match, 0)), match.hand)
    assert checker.leaks == []
    checker(0, hand_start_pb(observe(match, 1)), match.hand)  # seat 1's cards, sent to seat 0
    assert len(checker.leaks) == 1


def test_the_event_checker_catches_a_repeated_event() -> None:
    from referee.engine.actions import Pass
    from referee.engine.match import Match
    from referee.engine.observation import observe
    from referee.requests import SeatRequests

    rules = Rules.profile("standard")
    match = Match(rules, 1, first_dealer=0)
    match.apply(Pass())  # seat 1 passes the upcard; seat 0 is offered it next
    checker = EventChecker()
    (event,) = EventEncoder(0).sync(match.hand.events, None)
    checker(0, pb.RefereeMessage(event=event), match.hand)  # an Event mid-hand
    assert len(checker.problems) == 1 and "mid-hand" in checker.problems[0]
    request = SeatRequests(0, rules).request(observe(match, 0), 1, 1000, 1000, 0)
    assert list(request.decision_request.new_events) == [event]
    checker(0, request, match.hand)  # ... and again in the request: twice
    assert len(checker.problems) == 2 and "received" in checker.problems[1]
