"""The view of a hand's events kept on the hand between observations (observation.seen_by): at
every decision it is what filtering the whole list afresh gives, and it never shows a card the
seat may not see, whatever happened before: the opponent taking the discard, a knock, layoffs."""

from __future__ import annotations

import random

import pytest

from referee.engine.actions import DrawDiscard, Knock
from referee.engine.match import Match
from referee.engine.observation import PRIVATE_CARD_EVENTS, observe, seen_events
from referee.engine.rules import Rules


@pytest.mark.parametrize(
    "rules",
    [
        Rules.profile("standard"),
        Rules.profile("standard", defender_play="declared"),
        Rules.profile("oklahoma"),
        Rules.profile("pagat"),
    ],
    ids=["standard", "declared-layoffs", "oklahoma", "pagat"],
)
def test_kept_views_equal_fresh_ones_and_hide_private_cards(rules: Rules) -> None:
    checked = takes = knocks = 0
    for seed in range(10):
        rng = random.Random(seed)
        match = Match(rules, seed)
        while match.result is None and len(match.hand_results) < 4:
            hand = match.hand
            assert hand is not None
            copy = hand.copy()  # a copy shares the kept views: they must stay right for both
            for seat in (0, 1):
                # Both seats, acting or not, and the copy, at every step of the hand.
                obs = observe(match, seat)
                assert obs.events == seen_events(hand.events, seat)
                assert all(
                    e.card is None
                    for e in obs.events
                    if e.kind in PRIVATE_CARD_EVENTS and e.seat != seat
                )
                assert obs.events == seen_events(copy.events, seat)
                checked += 1
            legal = match.legal_actions()
            choice = rng.choice(legal)
            for preferred in (Knock, DrawDiscard):
                found = [a for a in legal if isinstance(a, preferred)]
                if found and rng.random() < 0.6:
                    choice = found[0]
                    break
            takes += isinstance(choice, DrawDiscard)
            knocks += isinstance(choice, Knock)
            match.apply(choice)
    assert checked > 500 and takes > 10 and knocks > 5


def test_a_kept_view_is_not_part_of_the_state() -> None:
    match = Match(Rules.profile("standard"), 2)
    assert match.hand is not None
    before = match.fingerprint()
    observe(match, 0)
    observe(match, 1)
    assert match.fingerprint() == before
