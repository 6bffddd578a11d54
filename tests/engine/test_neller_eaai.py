"""The ``neller-eaai`` profile's own rules: Neller's EAAI framework's game (docs/rules.md §12.6).

The defender declares its melds and the referee lays off the rest (``defender_play =
declared_melds``, R6.6), the knock discard is face up (``knock_discard = face_up``, R5.2), and
seat 0 is dealt first (``deal_order = seat0_first``, R2.4). Seat 0 deals every hand here, so seat
1 knocks (see ``tests/support/scenario.py``).
"""

from __future__ import annotations

import pytest

from referee.engine.actions import DefenderPlay, Discard, DrawStock, Knock, Pass
from referee.engine.cards import card_str
from referee.engine.deal import hand_deck
from referee.engine.match import Match
from referee.engine.observation import observe
from referee.engine.outcomes import HandOutcome, Phase
from referee.engine.rules import Rules
from referee.errors import IllegalActionError
from tests.support.scenario import (
    DEALER,
    NON_DEALER,
    card,
    churn_until_stock,
    deck,
    match,
    melds,
    play,
)

E11_KNOCKER = "5S 6S 7S KS KC KD 9C TC JC JD"
E11_DEFENDER = "2S 2C 2D 2H 8S 8C 8D 9S 7C AC"


def knocked(profile: str = "neller-eaai", **overrides: object) -> Match:
    """E11's hands: seat 1 draws Q♠ and knocks with it; the defender is to declare."""
    m = match(profile, deck(E11_KNOCKER, E11_DEFENDER, "3H", "QS"), **overrides)
    play(m, Pass(), Pass(), DrawStock(), Knock(card("QS")))
    return m


def test_the_profile_is_the_frameworks_game() -> None:
    rules = Rules.profile("neller-eaai")
    assert (rules.deal_order, rules.knock_discard, rules.defender_play) == (
        "seat0_first",
        "face_up",
        "declared_melds",
    )
    # The starting player alternates after a scored hand and stays after a cancelled one.
    assert (rules.dealer_rotation, rules.dead_hand_dealer) == ("alternate", "same_dealer")


def test_the_defender_is_asked_and_proposed_its_melds_without_layoffs() -> None:
    m = knocked()
    assert m.phase is Phase.DEFENDER and m.to_act == DEALER
    (proposal,) = m.legal_actions()
    assert isinstance(proposal, DefenderPlay) and proposal.layoffs == ()
    # The proposal is the own melds that do best once the referee has laid off the rest: E11's
    # four 2s alone, so that both 8s go on the knocker's runs (an undercut by 1).
    assert [[card_str(c) for c in meld] for meld in proposal.melds] == [["2C", "2D", "2H", "2S"]]
    m.apply(proposal)
    result = m.hand_results[-1]
    assert (result.outcome, result.defender_deadwood, result.points) == (
        HandOutcome.UNDERCUT,
        9,
        26,
    )


def test_the_defender_is_scored_on_the_melds_it_declares() -> None:
    """Declaring the 2s and the 8s keeps the 8s from the knocker's runs: D = 17, not 9."""
    m = knocked()
    m.apply(DefenderPlay(melds("2S 2C 2D 2H", "8S 8C 8D"), ()))
    result = m.hand_results[-1]
    assert result.defender is not None and result.defender.layoffs == ()
    assert (result.outcome, result.winner, result.defender_deadwood, result.points) == (
        HandOutcome.KNOCK,
        NON_DEALER,
        17,
        7,
    )


def test_declaring_no_melds_lays_off_what_fits() -> None:
    m = knocked()
    m.apply(DefenderPlay((), ()))
    result = m.hand_results[-1]
    assert result.defender is not None
    laid = sorted(card_str(c) for c, _ in result.defender.layoffs)
    # First fit from the lowest card in the framework's order (clubs, hearts, spades, diamonds):
    # 8♣ then 7♣ below 9♣10♣J♣, 8♠ then 9♠ above 5♠6♠7♠; the 2s stay deadwood and count 8.
    assert laid == ["7C", "8C", "8S", "9S"]
    assert result.defender_deadwood == 8 + 1 + 8  # four 2s, A♣, 8♦


@pytest.mark.parametrize(
    ("play_", "rule"),
    [
        (DefenderPlay(melds("2S 2C 2D 2H"), (card("8S"),)), "R6.6"),  # the referee lays off
        (DefenderPlay(melds("2S 2C 8D"), ()), "R6.1"),  # not a meld
        (DefenderPlay(melds("5S 6S 7S"), ()), "R6.1"),  # not the defender's cards
    ],
)
def test_a_declaration_the_rules_do_not_allow_is_refused(play_: DefenderPlay, rule: str) -> None:
    m = knocked()
    before = m.fingerprint()
    with pytest.raises(IllegalActionError) as err:
        m.apply(play_)
    assert err.value.rule == rule
    assert m.fingerprint() == before


def test_against_gin_the_declared_melds_count_and_nothing_is_laid_off() -> None:
    m = match(
        "neller-eaai",
        deck("3S 4S 5S 6S 7S 9H TH JH QH KH", "AD AC AH 4D 5D 6D 8S 2S 8H JC", "6H", "2D"),
    )
    play(m, Pass(), Pass(), DrawStock(), Knock(card("2D")))
    assert m.phase is Phase.DEFENDER
    m.apply(DefenderPlay(melds("AD AC AH"), ()))  # 4♦5♦6♦ left unmelded: it counts
    result = m.hand_results[-1]
    assert result.defender is not None and result.defender.layoffs == ()
    assert (result.outcome, result.defender_deadwood, result.points) == (
        HandOutcome.GIN,
        8 + 2 + 8 + 10 + 4 + 5 + 6,
        25 + 43,
    )


def test_the_knock_discard_lies_face_up_where_the_defender_sees_it() -> None:
    m = knocked()
    seen = observe(m, DEALER)
    assert seen.discard_pile[-1] == card("QS")
    assert m.hand is not None and m.hand.knock_discard == card("QS")


def test_a_face_down_knock_discard_is_not_on_the_pile() -> None:
    m = knocked(knock_discard="face_down")
    assert m.phase is Phase.DEFENDER
    assert card("QS") not in observe(m, DEALER).discard_pile


def test_a_log_written_before_knock_discard_reads_as_face_down() -> None:
    """A header's rules lack parameters added since: each reads as the behaviour of its time."""
    old = Rules.profile("neller-eaai", defender_play="auto_greedy").to_dict()
    del old["knock_discard"]
    old["deal_order"] = "non_dealer_first"
    rules = Rules.from_dict(old)
    assert (rules.knock_discard, rules.defender_play) == ("face_down", "auto_greedy")


def test_seat0_gets_the_first_card_whoever_starts() -> None:
    rules = Rules.profile("neller-eaai")
    order = hand_deck(5, 0)
    for dealer in (0, 1):
        m = Match(rules, 5, decks=[order], first_dealer=dealer)
        assert m.hand is not None
        assert set(m.hand.cards_of(0)) == set(order[0:20:2])
        assert m.to_act == 1 - dealer  # the starting player is offered the upcard first


def test_the_starter_alternates_after_a_scored_hand_and_stays_after_a_dead_one() -> None:
    m = knocked()
    m.apply(m.legal_actions()[0])
    assert m.hand is not None and m.hand.dealer == NON_DEALER  # scored: the deal passes
    churn_until_stock(m, 3)
    m.apply(DrawStock())  # the third-last card, discarded without a knock: the hand is dead
    drawn = m.hand.events[-1].card
    assert drawn is not None
    m.apply(Discard(drawn))
    assert m.hand_results[-1].outcome is HandOutcome.DEAD
    assert m.hand.dealer == NON_DEALER  # dead: the same player starts again
