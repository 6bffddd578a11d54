"""The leak test (R2.8, R11.3): no message ever shows a seat a card hidden from it.

Many matches under several profiles; every message the referee writes to a seat is checked, at
the moment it is written, against the cards hidden from that seat in the engine's true state:
the stock, the opponent's concealed cards (all of its hand except what it took face up from the
pile, until it knocks and shows its spread) and the face-down knock discard, until the hand is
over. Messages about a finished hand
(its showdown and result) may show everything but the stock, which is never shown.
"""

from __future__ import annotations

from pathlib import Path

from google.protobuf.message import Message

from referee.cards import card_str, cards_of
from referee.game import Hand, Phase
from referee.match_runner import run_series_async
from referee.rules import Rules
from referee.wire import ginrummy_pb2 as pb
from tests.referee_helpers import FAST, bot

CARDS = {card_str(c) for c in range(52)}


def hidden_from(seat: int, hand: Hand) -> set[str]:
    """The cards ``seat`` may not see now, from the engine's raw state (not from observe)."""
    hidden = set(hand.deck[hand.stock_pos :])
    if hand.phase is not Phase.MATCH_OVER:  # the hand is still being played
        other = 1 - seat
        if hand.knocker != other:  # a knocker shows its spread (R5.2), not its discard
            hidden |= set(cards_of(hand.hands[other] & ~hand.known[other]))
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

    checker = LeakChecker()
    plays = [("standard", 6), ("oklahoma", 3), ("openspiel", 10), ("rlcard", 10)]
    plays += [("standard", 4)]  # with defender_play = declared, below

    async def main() -> None:
        seed = 100
        for k, (profile, count) in enumerate(plays):
            overrides = {"defender_play": "declared"} if k == len(plays) - 1 else {}
            rules = Rules.profile(profile, **overrides)
            seeds = list(range(seed, seed + count))
            seed += count
            series = await run_series_async(
                (bot(), bot("first")), rules, seeds, tmp_path, FAST, on_send=checker
            )
            assert all(m.forfeit is None for m in series.matches)

    asyncio.run(main())
    assert checker.leaks == [], checker.leaks[:3]
    assert checker.checked > 3000 and checker.with_hidden > 3000
    assert {"decision_request", "event", "hand_start", "hand_end", "match_end"} <= checker.kinds


def test_the_checker_catches_a_leak() -> None:
    from referee.convert import hand_start_pb
    from referee.game import Match
    from referee.observation import observe

    match = Match(Rules.profile("standard"), 1)
    checker = LeakChecker()
    checker(0, hand_start_pb(observe(match, 0)), match.hand)
    assert checker.leaks == []
    checker(0, hand_start_pb(observe(match, 1)), match.hand)  # seat 1's cards, sent to seat 0
    assert len(checker.leaks) == 1
