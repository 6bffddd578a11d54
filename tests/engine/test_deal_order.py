"""``deal_order`` (R2.4): the usual deal, non-dealer first, and ``seat0_first``, where each
seat's cards depend on the deck alone, whoever deals: what keeps the two matches of a duplicate
pair mirrored hand by hand when their dealers differ."""

from __future__ import annotations

import pytest

from referee.engine.deal import hand_deck
from referee.engine.errors import RulesError
from referee.engine.match import Match
from referee.engine.rules import Rules
from tournaments.file.bots import BotEntry
from tournaments.file.config import TournamentConfig


def dealt(rules: Rules, seed: int, dealer: int) -> tuple[set[int], set[int], int | None]:
    """Seat 0's and seat 1's cards and the upcard of the first hand, ``dealer`` dealing."""
    match = Match(rules, seed, first_dealer=dealer)
    hand = match.hand
    assert hand is not None and hand.dealer == dealer
    return set(hand.cards_of(0)), set(hand.cards_of(1)), hand.upcard


@pytest.mark.parametrize("seed", [1, 77, 2**40 + 3])
def test_seat0_first_deals_each_seat_the_same_cards_whoever_deals(seed: int) -> None:
    deck = hand_deck(seed, 0)
    keyed = Rules.profile("pagat", deal_order="seat0_first")
    for dealer in (0, 1):
        seat0, seat1, upcard = dealt(keyed, seed, dealer)
        assert seat0 == set(deck[0:20:2]) and seat1 == set(deck[1:20:2])
        assert upcard == deck[20]  # the upcard and the stock are the deck's, as ever


@pytest.mark.parametrize("seed", [1, 77])
def test_the_usual_deal_gives_the_non_dealer_the_first_card(seed: int) -> None:
    deck = hand_deck(seed, 0)
    usual = Rules.profile("pagat")
    assert usual.deal_order == "non_dealer_first"
    seat0_dealing, _, _ = dealt(usual, seed, 0)
    seat0_not_dealing, _, _ = dealt(usual, seed, 1)
    assert seat0_dealing == set(deck[1:20:2]) and seat0_not_dealing == set(deck[0:20:2])


def test_seat0_first_is_refused_where_it_cannot_apply() -> None:
    with pytest.raises(RulesError, match=r"eleven_card gives the non-dealer eleven \(R2.4, R2.5\)"):
        Rules.profile("rlcard", deal_order="seat0_first")
    with pytest.raises(RulesError, match=r"deal_order must be non_dealer_first \(R10.1, R2.4\)"):
        Rules.profile("standard", players=3, deal_order="seat0_first")
    with pytest.raises(RulesError, match="deal_order = 'dealer_last' is not one of"):
        Rules.profile("standard", deal_order="dealer_last")


def test_a_tournaments_identity_names_deal_order_only_when_it_is_set() -> None:
    bots = (BotEntry("a", ("x",)), BotEntry("b", ("y",)))
    usual = TournamentConfig(name="t", bots=bots).validate()
    # A journal written before deal_order existed holds rules without it, and still resumes.
    assert "deal_order" not in usual.identity()["rules"]
    keyed = TournamentConfig(name="t", bots=bots, rule_overrides=(("deal_order", "seat0_first"),))
    assert keyed.validate().identity()["rules"]["deal_order"] == "seat0_first"
