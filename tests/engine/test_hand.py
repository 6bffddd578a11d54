"""A hand as the rest of ginref sees it: read-only values, and a finished hand shown again."""

from __future__ import annotations

import dataclasses
import random

import pytest

from referee.engine.actions import Knock
from referee.engine.errors import EngineError
from referee.engine.hand import Hand
from referee.engine.match import Match
from referee.engine.outcomes import Event, KnockInfo, Phase
from referee.engine.rules import Rules


def knocked_match() -> Match:
    """A match stopped at the defender's declaration, so every part of the hand is set."""
    rng = random.Random(7)
    for seed in range(50):
        m = Match(Rules.profile("standard", defender_play="declared"), seed)
        while m.result is None and not m.hand_results:
            if m.phase is Phase.DEFENDER:
                return m
            actions = m.legal_actions()
            knocks = [a for a in actions if isinstance(a, Knock)]
            m.apply(knocks[0] if knocks else rng.choice(actions))
    raise AssertionError("no knock in 50 matches")


def is_immutable(value: object) -> bool:
    if value is None or isinstance(value, int | str | Phase):
        return True
    if isinstance(value, tuple):
        return all(is_immutable(v) for v in value)
    if dataclasses.is_dataclass(value):
        return type(value).__dataclass_params__.frozen
    return False


def test_every_public_value_of_a_hand_is_read_only_and_immutable() -> None:
    m = knocked_match()
    hand = m.hand
    assert hand is not None and hand.knock is not None
    names = [n for n in dir(Hand) if not n.startswith("_")]
    properties = [n for n in names if isinstance(getattr(Hand, n), property)]
    assert {"number", "deck", "pile", "events", "stock", "knock", "knock_limit"} <= set(properties)
    for name in properties:
        assert getattr(Hand, name).fset is None, name
        value = getattr(hand, name)
        assert is_immutable(value), (name, value)
        with pytest.raises(AttributeError):
            setattr(hand, name, value)
    assert isinstance(hand.knock, KnockInfo)
    assert all(type(e) is Event for e in hand.events)
    for seat in (0, 1):
        assert isinstance(hand.held(seat), int)
        assert isinstance(hand.known(seat), int)
        assert hand.cards_of(seat) == tuple(c for c in range(52) if hand.held(seat) >> c & 1)
    # The methods are the readers above and copy(); nothing else is public.
    assert set(names) - set(properties) == {"held", "known", "cards_of", "copy"}


def test_a_match_hand_and_chooser_cannot_be_replaced() -> None:
    m = knocked_match()
    with pytest.raises(AttributeError):
        m.hand = m.hand
    with pytest.raises(AttributeError):
        m.chooser = 0


def test_with_hand_shows_a_finished_hand_after_the_next_deal() -> None:
    m = knocked_match()
    played = m.hand
    assert played is not None
    m.apply(m.legal_actions()[0])  # the defender declares: the hand ends, the next is dealt
    current = m.hand
    assert m.result is None and current is not None and current.number == played.number + 1
    shown = m.with_hand(played)
    assert shown.hand is not None and shown.hand is not played
    assert shown.hand.number == played.number and shown.hand.events == played.events
    assert (shown.phase, shown.to_act) == (Phase.MATCH_OVER, None)
    assert shown.scores == m.scores and shown.hand_results == m.hand_results
    assert m.hand is current  # the match itself still plays its new hand
    with pytest.raises(EngineError):
        Match(m.rules, m.seed).with_hand(current)  # hand 1 was never dealt there
