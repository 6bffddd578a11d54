"""The leak test (R2.8, R11.3): no message ever shows a seat a card hidden from it.

Many matches under several profiles; every message the referee writes to a seat is checked, at
the moment it is written, against what that seat may know: its own cards and the public ones,
worked out from the messages that seat was sent and the rules alone, never from the engine's
state (tests/support/leak_checker.py). The referee builds its messages from that state, so a
check that took the hidden cards from it would pass an engine that lets a hidden card into it
(a stock draw marked as known to the opponent, say). Messages about a finished hand (its
showdown and result) may show both hands, but never the stock.

The checker itself is checked: its record of what a seat may know never holds a card that the
engine hides from that seat (so it is at least as strict as the engine's own view), and it
catches each leak made by hand in the messages of a hand played on the engine.

The same messages are checked for the events rule of the protocol (proto, "Events"): each seat
receives each public event exactly once and in order, as an Event message or in a request's
new_events, and while a hand is being played never as a separate Event message (the referee
sends a seat its events with its next request).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from referee.bots.spec import BotSpec
from referee.convert import EventEncoder, hand_end_pb, rules_pb, showdown_event_pb
from referee.engine.actions import Action, BigGin, Discard, Knock
from referee.engine.cards import Card, card_str, cards_of
from referee.engine.hand import Hand
from referee.engine.match import Match
from referee.engine.melds import deadwood_by_discard
from referee.engine.observation import Observation, observe
from referee.engine.outcomes import Phase
from referee.engine.rules import Rules
from referee.requests import SeatRequests, hand_start_pb
from referee.series import run_series_async
from referee.session import OnSend
from referee.wire import ginrummy_pb2 as pb
from tests.support.event_checker import EventChecker
from tests.support.leak_checker import CARDS, LeakChecker, card_strings
from tests.support.referee_helpers import FAST, bot
from tests.support.replay_helpers import GREEDY

__all__ = ["card_strings", "hidden_from"]  # tests/referee/test_group_matches.py uses both


def hidden_from(seat: int, hand: Hand) -> set[str]:
    """The cards the engine's raw state hides from ``seat`` now (not from observe).

    Not the leak test's rule (see the module doc): it checks that rule's record instead.
    """
    hidden = set(hand.stock)
    if hand.phase is not Phase.MATCH_OVER:  # the hand is still being played
        other = 1 - seat
        if hand.knock is None or hand.knock.knocker != other:
            # A knocker shows its spread (R5.2), not its discard.
            hidden |= set(cards_of(hand.held(other) & ~hand.known(other)))
        if hand.knock_discard is not None:
            hidden.add(hand.knock_discard)
    return {card_str(c) for c in hidden}


def was_face_up(hand: Hand, card: Card) -> bool:
    """Whether ``card`` was the upcard or discarded face up in ``hand``."""
    return card == hand.upcard or any(e.kind == "discard" and e.card == card for e in hand.events)


class LenienceCheck:
    """The leak checker's record never lets a seat see a card the engine hides from it.

    One card may be in both: a knocker's face-down discard that the seat saw face up before
    (the knocker took it from the pile and it is not in the spread, so the seat knows where it
    is). A finished hand may show what its players held, never a card still in the stock.
    """

    def __init__(self, leaks: LeakChecker) -> None:
        self.leaks = leaks
        self.problems: list[str] = []
        self.compared = 0

    def __call__(self, seat: int, message: pb.RefereeMessage, hand: Hand | None) -> None:
        view = self.leaks.views.get(seat)
        if hand is None or view is None or view.hand_seat < 0:
            return
        self.compared += 1
        if view.playing:
            hidden = hidden_from(view.hand_seat, hand)
            discard = hand.knock_discard
            if discard is not None and was_face_up(hand, discard):
                hidden.discard(card_str(discard))
            loose = view.may_see() & hidden
        else:
            loose = (view.held() | view.public) & {card_str(c) for c in hand.stock}
        if loose:
            self.problems.append(f"seat {seat} may see {sorted(loose)} by the checker's record")


@pytest.mark.slow  # real matches, every message checked
def test_no_message_shows_a_seat_a_hidden_card(tmp_path: Path) -> None:
    leaks = LeakChecker()
    events = EventChecker()
    lenience = LenienceCheck(leaks)
    players = 2

    def checker(seat: int, message: pb.RefereeMessage, hand: Hand | None) -> None:
        leaks(seat, message, hand)
        if players == 2:  # the events checker knows two seats (the group test checks more)
            events(seat, message, hand)
        lenience(seat, message, hand)

    # The test bot knocks as soon as it can and takes nothing face up; "first" takes the upcard
    # and then draws from the stock; the greedy bot takes a discard that lowers its deadwood,
    # so its opponent sees it hold cards taken face up, discard them again and knock with them.
    first, greedy = bot("first"), GREEDY
    plays: list[tuple[str, int, tuple[BotSpec, ...], dict[str, str]]] = [
        ("standard", 4, (bot(), greedy), {}),
        ("openspiel", 6, (bot(), first), {}),  # declared defences, the wall
        ("rlcard", 6, (bot(), first), {}),  # the eleven-card deal: no upcard
        # Declared defences and a choice of dealer.
        ("oklahoma", 3, (bot(), greedy), {"defender_play": "declared"}),
        # Three players (R10.1): the dealer sits out and is shown no card of the hand.
        ("pagat", 1, (bot(), greedy, first), {"players": "3"}),
    ]

    async def main() -> None:
        nonlocal players
        seed = 100
        for profile, count, bots, overrides in plays:
            if overrides.get("defender_play") == "declared":
                overrides = {**overrides, "first_dealer": "cut_high_chooses"}
            rules = Rules.profile(profile, **overrides)
            players = rules.players
            seeds = list(range(seed, seed + count))
            seed += count
            series = await run_series_async(bots, rules, seeds, tmp_path, FAST, on_send=checker)
            assert all(m.forfeit is None for m in series.matches)

    asyncio.run(main())
    assert leaks.leaks == [], leaks.leaks[:3]
    assert leaks.problems == [], leaks.problems[:3]
    assert lenience.problems == [], lenience.problems[:3]
    assert leaks.checked > 3000 and leaks.in_play > 2000 and leaks.finished > 300
    assert leaks.opponent_known_seen > 500 and lenience.compared > 2500
    assert {"decision_request", "event", "hand_start", "hand_end", "match_end"} <= leaks.kinds
    # Each event exactly once, in order, either way; Event messages only at the end of a hand.
    assert events.problems == [], events.problems[:3]
    assert events.hands_checked > 100 and events.carried > 1000
    assert events.event_messages < 0.5 * events.requests


# --- the checker's own tests: one hand on the engine, its messages made to leak --------------

Sent = list[tuple[int, pb.RefereeMessage]]


def choose(obs: Observation) -> Action:
    """Knock when legal, take the upcard, draw from the stock, discard the least deadwood."""
    legal = obs.legal_actions
    going_out = [a for a in legal if isinstance(a, Knock | BigGin)]
    if going_out:
        return going_out[0]
    discards = [a for a in legal if isinstance(a, Discard)]
    if discards:
        dw = deadwood_by_discard(obs.hand)
        return min(discards, key=lambda a: (dw.get(a.card, 99), a.card))
    return legal[0]  # the upcard in the offer, the stock, the defender's proposal


def one_hand(rules: Rules, seed: int, on_send: OnSend | None = None) -> tuple[Sent, Hand]:
    """Every message to each seat about a match's first hand, built as the session builds them.

    Each seat gets the events with its next request, and the rest before the HandEnd;
    ``on_send`` is called with each message as it is made, like the session's hook.
    """
    match = Match(rules, seed, first_dealer=0)
    hand = match.hand
    assert hand is not None
    sent: Sent = []

    def send(seat: int, message: pb.RefereeMessage) -> None:
        sent.append((seat, message))
        if on_send is not None:
            on_send(seat, message, hand)

    for seat in (0, 1):
        send(seat, pb.RefereeMessage(match_start=pb.MatchStart(seat=seat, rules=rules_pb(rules))))
    for seat in (0, 1):
        send(seat, hand_start_pb(observe(match, seat)))
    requests = [SeatRequests(0, rules), SeatRequests(1, rules)]
    while not match.hand_results:
        actor = match.to_act
        assert actor is not None
        obs = observe(match, actor)
        send(actor, requests[actor].request(obs, len(sent), 1000, 1000, 0))
        match.apply(choose(obs))
    (result,) = match.hand_results
    showdown = showdown_event_pb(result)
    for seat in (0, 1):
        encoder: EventEncoder = requests[seat].encoder
        encoder.sync(hand.events, hand.knock)  # it drops the opponent's private cards
        for event in encoder.take_undelivered():
            send(seat, pb.RefereeMessage(event=event))
        if showdown is not None:
            send(seat, pb.RefereeMessage(event=showdown))
        send(seat, hand_end_pb(result, []))
    return sent, hand


def a_knocked_hand(rules: Rules) -> tuple[Sent, Hand]:
    """The first of seeds 1, 2, ... whose first hand ends in a knock after some stock draws."""
    for seed in range(1, 100):
        sent, hand = one_hand(rules, seed)
        if hand.knock is not None and hand.knock.kind.value == "knock" and hand.turns > 4:
            return sent, hand
    raise AssertionError("no knock in 100 hands")


def check(
    sent: Sent, change: Callable[[int, pb.RefereeMessage], bool] | None = None
) -> LeakChecker:
    """Feed ``sent`` to a new checker, each message changed by ``change`` first if given."""
    checker = LeakChecker()
    changed = 0
    for seat, original in sent:
        message = pb.RefereeMessage()
        message.CopyFrom(original)
        if change is not None and change(seat, message):
            changed += 1
        checker(seat, message)
    assert change is None or changed, "the change applied to no message"
    return checker


DECLARED = Rules.profile("standard", defender_play="declared")


def test_the_checker_passes_a_hand_as_the_referee_sends_it() -> None:
    for rules in (DECLARED, Rules.profile("rlcard"), Rules.profile("openspiel")):
        sent, _ = a_knocked_hand(rules)
        checker = check(sent)
        assert checker.leaks == [] and checker.problems == [], checker.problems[:1]
        assert checker.finished == 4  # the showdown and the result, to each seat


def kept_draw(hand: Hand) -> tuple[int, str, int]:
    """A stock draw its drawer kept (it discarded another card): seat, card, its k-th draw."""
    events = hand.events
    count = [0, 0]
    for i, event in enumerate(events):
        if event.kind != "draw_stock" or event.seat is None or event.card is None:
            continue
        count[event.seat] += 1
        after = events[i + 1]
        if after.kind == "discard" and after.card != event.card:
            return event.seat, card_str(event.card), count[event.seat]
    raise AssertionError("no stock draw kept")


def test_the_checker_catches_a_stock_draw_shown_as_known() -> None:
    # What an engine that marks a stock draw as known to the opponent would send: the card in
    # the opponent's known cards of its next request.
    sent, hand = a_knocked_hand(DECLARED)
    drawer, card, k = kept_draw(hand)
    seen = 0

    def change(seat: int, message: pb.RefereeMessage) -> bool:
        nonlocal seen
        request = message.decision_request
        if seat == drawer or seen >= k:
            return False
        seen += sum(e.seat == drawer and e.HasField("draw_stock") for e in request.new_events)
        if seen < k:
            return False
        request.observation.opponent_known_cards.append(card)
        return True

    checker = check(sent, change)
    assert checker.leaks and f"seat {1 - drawer} saw {card}," in checker.leaks[0]


def test_the_checker_catches_the_opponents_stock_draw_in_an_event() -> None:
    sent, hand = a_knocked_hand(DECLARED)
    drawer, card = next((e.seat, e.card) for e in hand.events if e.kind == "draw_stock")
    assert drawer is not None and card is not None

    done = False

    def change(seat: int, message: pb.RefereeMessage) -> bool:
        nonlocal done
        if done or seat == drawer:
            return False
        for event in message.decision_request.new_events:
            if event.seat == drawer and event.HasField("draw_stock"):
                event.draw_stock.card = card_str(card)  # the opponent's copy of the first draw
                done = True
                return True
        return False

    checker = check(sent, change)
    assert checker.leaks and f"seat {1 - drawer} saw {card_str(card)}," in checker.leaks[0]


def test_the_checker_catches_the_knock_discard_before_the_showdown() -> None:
    # The defender declares its play (R6.6) after the knock: the face-down discard must not be
    # on the pile it is shown (R5.2).
    sent, hand = a_knocked_hand(DECLARED)
    assert hand.knock is not None and hand.knock_discard is not None
    defender = 1 - hand.knock.knocker
    card = card_str(hand.knock_discard)

    def change(seat: int, message: pb.RefereeMessage) -> bool:
        obs = message.decision_request.observation
        if seat != defender or obs.phase != pb.PHASE_DEFENDER:
            return False
        obs.discard_pile.append(card)
        return True

    checker = check(sent, change)
    assert checker.leaks and f"seat {defender} saw {card}," in checker.leaks[0]


def test_the_checker_catches_the_opponents_hand_at_the_deal() -> None:
    sent, hand = a_knocked_hand(DECLARED)
    theirs = [card_str(c) for c in hand.deck[0:20:2]]  # seat 1's cards: it is the non-dealer

    def change(seat: int, message: pb.RefereeMessage) -> bool:
        if seat != 0 or not message.HasField("hand_start"):
            return False
        message.hand_start.hand[0] = theirs[0]
        return True

    checker = check(sent, change)
    # Seat 0's record now holds seat 1's card: the two deals overlap, and the observations
    # disagree with what seat 0 was dealt.
    assert checker.problems and "seat 0 was dealt" in checker.problems[0]


def test_the_checker_catches_a_stock_card_in_a_finished_hand() -> None:
    sent, hand = a_knocked_hand(DECLARED)
    card = card_str(hand.stock[0])

    def change(seat: int, message: pb.RefereeMessage) -> bool:
        if seat != 0 or not message.HasField("hand_end"):
            return False
        message.hand_end.result.final_hands[1].cards.append(card)
        return True

    checker = check(sent, change)
    assert checker.leaks and f"seat 0 saw {card}," in checker.leaks[0]


def test_the_lenience_check_catches_a_checker_that_knows_too_much() -> None:
    class Credulous(LeakChecker):
        """Takes every card for public from the deal on."""

        def __call__(self, seat: int, message: pb.RefereeMessage, hand: Hand | None = None) -> None:
            super().__call__(seat, message, hand)
            if message.HasField("hand_start"):
                self.views[seat].public |= CARDS

    def lenience_problems(checker: LeakChecker) -> list[str]:
        lenience = LenienceCheck(checker)

        def both(seat: int, message: pb.RefereeMessage, hand: Hand | None) -> None:
            checker(seat, message, hand)
            lenience(seat, message, hand)

        one_hand(DECLARED, 1, both)
        return lenience.problems

    assert lenience_problems(LeakChecker()) == []
    assert lenience_problems(Credulous())
