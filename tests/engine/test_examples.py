"""The worked examples E1-E20 of docs/rules.md §14, one scenario each.

Seat 0 deals every first hand here, so seat 1 is the non-dealer: it takes or passes the upcard
first and, in most scenarios, knocks after drawing from the stock (see ``tests/scenario.py``).
"""

from __future__ import annotations

import pytest

from referee.engine.actions import (
    BigGin,
    DeclareDead,
    DefenderPlay,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    Pass,
)
from referee.engine.cards import card_str
from referee.engine.group import GroupMatch
from referee.engine.outcomes import HandOutcome, MatchResult, Phase, Termination
from referee.engine.rules import Rules
from referee.engine.scoring import final_terms, settle_game
from referee.errors import IllegalActionError, RulesError
from tests.support.group_scenario import dead, decks, knock, play_hands
from tests.support.scenario import (
    DEALER,
    NON_DEALER,
    card,
    cards,
    churn_until_stock,
    deck,
    knock_after_stock_draw,
    match,
    melds,
    play,
)

# --- E1: knock with exactly 10; layoffs on a run and a run end -----------------------------------

E1_KNOCKER = "3S 4S 5S 7H 7D 7C 9C TC JC TD"
E1_DEFENDER = "AH 2H 3H 8S 8H 8D 2S QC KD 5D"


@pytest.mark.parametrize("profile", ["standard", "pagat", "neller-eaai", "openspiel"])
def test_e1_knock_with_ten_and_layoffs(profile: str) -> None:
    result = knock_after_stock_draw(profile, E1_KNOCKER, E1_DEFENDER, draw="KS", discard="KS")
    assert result.outcome is HandOutcome.KNOCK
    assert result.winner == NON_DEALER
    assert result.knocker_deadwood == 10
    assert result.defender is not None
    assert sorted(card_str(c) for c, _ in result.defender.layoffs) == ["2S", "QC"]
    assert result.defender_deadwood == 15
    assert result.points == 5


def test_e1_knock_over_the_limit_is_rejected() -> None:
    m = match("standard", deck(E1_KNOCKER, E1_DEFENDER, "6D", "KS"), knock_limit=9)
    play(m, Pass(), Pass(), DrawStock())
    before = m.fingerprint()
    with pytest.raises(IllegalActionError) as err:
        m.apply(Knock(card("KS")))
    assert err.value.rule == "R5.3"
    assert m.fingerprint() == before


def test_e1_oklahoma_nine_upcard_limits_knock_to_nine() -> None:
    m = match("oklahoma", deck(E1_KNOCKER, E1_DEFENDER, "9D", "KS"))
    assert m.hand.knock_limit == 9
    play(m, Pass(), Pass(), DrawStock())
    assert Knock(card("KS")) not in m.legal_actions()
    with pytest.raises(IllegalActionError, match=r"R5.3\b"):
        m.apply(Knock(card("KS")))


# --- E2: undercut on a tie -----------------------------------------------------------------------

E2_KNOCKER = "4C 5C 6C JS JH JD 7S 8S 9S 6D"
E2_DEFENDER = "AD 2D 3D QH QD QC 3C TS 4H 2S"


@pytest.mark.parametrize(
    ("profile", "overrides", "upcard", "points"),
    [
        ("standard", {}, "5H", 25),
        ("neller-eaai", {}, "5H", 25),
        ("oklahoma-std", {}, "9H", 25),
        ("pagat", {}, "5H", 10),
        ("pagat", {"undercut_bonus": 20}, "5H", 20),
    ],
)
def test_e2_tie_is_an_undercut(
    profile: str, overrides: dict[str, object], upcard: str, points: int
) -> None:
    result = knock_after_stock_draw(
        profile, E2_KNOCKER, E2_DEFENDER, draw="KH", discard="KH", upcard=upcard, **overrides
    )
    assert (result.knocker_deadwood, result.defender_deadwood) == (6, 6)
    assert result.outcome is HandOutcome.UNDERCUT
    assert result.winner == DEALER
    assert result.points == points


@pytest.mark.parametrize(
    ("profile", "overrides"), [("openspiel", {}), ("standard", {"undercut_on_tie": "off"})]
)
def test_e2_tie_is_a_push_without_undercut_on_tie(
    profile: str, overrides: dict[str, object]
) -> None:
    result = knock_after_stock_draw(
        profile, E2_KNOCKER, E2_DEFENDER, draw="KH", discard="KH", upcard="5H", **overrides
    )
    assert result.outcome is HandOutcome.PUSH
    assert result.winner is None
    assert result.points == 0
    assert result.payoffs == (0.0, 0.0)


# --- E3: chained layoffs at both ends of one run -------------------------------------------------


@pytest.mark.parametrize(
    ("profile", "points"),
    [("standard", 33), ("neller-eaai", 33), ("openspiel", 33), ("pagat", 18)],
)
def test_e3_chained_layoffs_at_both_ends(profile: str, points: int) -> None:
    result = knock_after_stock_draw(
        profile,
        "5H 6H 7H KC KD KS 2C 3C 4C 8D",
        "3H 4H 8H 9H AS AD AC 2D 3D 4D",
        draw="QS",
        discard="QS",
    )
    assert result.defender is not None
    assert sorted(card_str(c) for c, _ in result.defender.layoffs) == ["3H", "4H", "8H", "9H"]
    assert result.defender_deadwood == 0
    assert result.outcome is HandOutcome.UNDERCUT
    assert result.points == points


# --- E4: a fourth card on a set of three; nothing on deadwood or on a set of four ----------------


def test_e4_fourth_card_only_on_a_set_of_three() -> None:
    result = knock_after_stock_draw(
        "standard",
        "9S 9H 9D QC QD QH QS 2H 2D 3S",
        "5C 6C 7C 4D 5D 6D 9C 2S KH 3H",
        draw="JC",
        discard="JC",
        upcard="8C",
    )
    assert result.knocker_deadwood == 7
    assert result.defender is not None
    assert [card_str(c) for c, _ in result.defender.layoffs] == ["9C"]
    assert result.defender_deadwood == 15
    assert (result.outcome, result.points) == (HandOutcome.KNOCK, 8)


# --- E5: gin with two 5-card runs; no layoffs against gin ----------------------------------------


@pytest.mark.parametrize(
    ("profile", "points"),
    [("standard", 53), ("neller-eaai", 53), ("openspiel", 53), ("pagat", 48)],
)
def test_e5_gin_allows_no_layoffs(profile: str, points: int) -> None:
    result = knock_after_stock_draw(
        profile,
        "3S 4S 5S 6S 7S 9H TH JH QH KH",
        "AD AC AH 4D 5D 6D 8S 2S 8H JC",
        draw="2C",
        discard="2C",
        upcard="9C",
    )
    assert result.outcome is HandOutcome.GIN
    assert result.defender is not None and result.defender.layoffs == ()
    assert result.defender_deadwood == 28
    assert result.points == points


# --- E6: big gin ---------------------------------------------------------------------------------

E6_KNOCKER = "2D 3D 4D 7C 7H 7S 7D JS QS KS"
E6_DEFENDER = "8H 9H TH JH 4C 4H 4S AC 6S KD"


@pytest.mark.parametrize(("bonus", "points"), [(31, 48), (50, 67)])
def test_e6_big_gin(bonus: int, points: int) -> None:
    m = match("standard", deck(E6_KNOCKER, E6_DEFENDER, "2C", "5D"), big_gin_bonus=bonus)
    play(m, Pass(), Pass(), DrawStock())
    assert BigGin() in m.legal_actions()
    m.apply(BigGin())
    result = m.hand_results[-1]
    assert result.outcome is HandOutcome.BIG_GIN
    assert result.knocker_arrangement is not None
    assert len(result.knocker_arrangement.deadwood) == 0
    assert sum(len(x.cards) for x in result.knocker_arrangement.melds) == 11
    assert (result.defender_deadwood, result.points) == (17, points)


@pytest.mark.parametrize(("profile", "points"), [("standard", 42), ("pagat", 37)])
def test_e6_without_big_gin_shed_a_card_and_go_gin(profile: str, points: int) -> None:
    m = match(profile, deck(E6_KNOCKER, E6_DEFENDER, "2C", "5D"))
    play(m, Pass(), Pass(), DrawStock())
    assert BigGin() not in m.legal_actions()
    with pytest.raises(IllegalActionError, match=r"R5.9\b"):
        m.apply(BigGin())
    gins = {card_str(a.card) for a in m.legal_actions() if isinstance(a, Knock)}
    assert {"2D", "5D", "7C", "7H", "7S", "7D"} <= gins
    m.apply(Knock(card("2D")))
    result = m.hand_results[-1]
    assert (result.outcome, result.points) == (HandOutcome.GIN, points)


# --- E7: Oklahoma, ace upcard --------------------------------------------------------------------

E7_NON_DEALER = "4S 5S 6S 9D 9H 9C JH QH KH 2D"
E7_DEALER = "2C 3C 4C 5C 8C 8D 8H AD 5H 6D"


def test_e7_ace_upcard_means_gin_only() -> None:
    m = match("oklahoma", deck(E7_NON_DEALER, E7_DEALER, "AC"))
    assert m.hand.knock_limit == 0
    m.apply(DrawDiscard())
    with pytest.raises(IllegalActionError, match=r"R5.3\b"):
        m.apply(Knock(card("2D")))
    legal = m.legal_actions()
    assert not any(isinstance(a, Knock) for a in legal)
    assert Discard(card("2D")) in legal
    assert Discard(card("AC")) not in legal  # R4.3: just taken


def test_e7_ace_counts_one_with_oklahoma_ace_one() -> None:
    m = match("oklahoma", deck(E7_NON_DEALER, E7_DEALER, "AC"), oklahoma_ace="one")
    assert m.hand.knock_limit == 1
    play(m, DrawDiscard(), Knock(card("2D")))
    result = m.hand_results[-1]
    assert (result.knocker_deadwood, result.defender_deadwood) == (1, 12)
    assert result.defender is not None and result.defender.layoffs == ()
    assert (result.points, result.doubled) == (11, False)


# --- E8: Oklahoma, 8 of spades upcard ------------------------------------------------------------

E8_KNOCKER = "2H 3H 4H 6C 6D 6S TD JD QD 8C"
E8_DEFENDER = "5H 6H KD AS 2S 3S 9C 9H 9S 5C"


@pytest.mark.parametrize(
    ("profile", "overrides", "points"),
    [
        ("oklahoma", {}, 26),
        ("oklahoma-std", {}, 56),
        ("oklahoma", {"spade_double": "off"}, 13),
        ("oklahoma-std", {"spade_double": "off"}, 28),
    ],
)
def test_e8_spade_upcard_doubles_an_undercut(
    profile: str, overrides: dict[str, object], points: int
) -> None:
    result = knock_after_stock_draw(
        profile, E8_KNOCKER, E8_DEFENDER, draw="KC", discard="KC", upcard="8S", **overrides
    )
    assert result.knocker_deadwood == 8
    assert result.defender_deadwood == 5
    assert (result.outcome, result.winner, result.points) == (
        HandOutcome.UNDERCUT,
        DEALER,
        points,
    )


def test_e8_extra_boxes_for_an_undercut_double_on_a_spade() -> None:
    m = match("oklahoma", deck(E8_KNOCKER, E8_DEFENDER, "8S", "KC"), oklahoma_extra_boxes="on")
    play(m, Pass(), Pass(), DrawStock(), Knock(card("KC")))
    assert m.hand_results[-1].extra_boxes == 2
    assert m.board.extra_boxes == (2, 0)


# --- E9: Oklahoma, ace of spades: gin required, then doubled -------------------------------------


@pytest.mark.parametrize(("profile", "points"), [("oklahoma", 100), ("oklahoma-std", 110)])
def test_e9_ace_of_spades_gin_doubled(profile: str, points: int) -> None:
    m = match(
        profile,
        deck("2S 3S 4S 5S 8D 8C 8H JC QC KC", "5D 6D 7D TS TH TD 6S 9H KD 5C", "AS", "2H"),
        oklahoma_extra_boxes="on",
    )
    play(m, Pass(), Pass(), DrawStock(), Knock(card("2H")))
    result = m.hand_results[-1]
    assert (result.outcome, result.defender_deadwood) == (HandOutcome.GIN, 30)
    assert (result.points, result.doubled, result.extra_boxes) == (points, True, 4)


# --- E10: stock exhaustion -----------------------------------------------------------------------

E10_A = "3S 4S 5S 9C TC JC QH KH 7C 4D"  # the non-dealer: draws the third-last stock card
E10_B = "AH 2H 3H 8S 8H 8D 5C 6C 2S 3D"  # taking 7C lets B knock (discarding 3D)


def _at_third_last(profile: str, b: str = E10_B, **overrides: object):  # type: ignore[no-untyped-def]
    m = match(profile, deck(E10_A, b, "KD"), **overrides)
    churn_until_stock(m, 3)
    assert (m.to_act, m.hand.stock_size, m.hand.turns) == (NON_DEALER, 3, 28)
    return m


@pytest.mark.parametrize("profile", ["standard", "pagat", "neller-eaai"])
def test_e10_discard_from_three_to_two_is_a_dead_hand(profile: str) -> None:
    m = _at_third_last(profile)
    play(m, DrawStock(), Discard(card("4D")))
    result = m.hand_results[-1]
    assert (result.outcome, result.winner, result.points) == (HandOutcome.DEAD, None, 0)
    assert result.dead_reason == "stock_exhausted"
    assert m.scores == (0, 0)
    assert m.hand.number == 1 and m.hand.dealer == DEALER  # same_dealer redeals (R2.7)


def test_e10_knock_on_the_third_last_card_scores() -> None:
    m = match("standard", deck("3S 4S 5S 9C TC JC QH QD QS 4D", E10_B, "KD"))
    churn_until_stock(m, 3)
    play(m, DrawStock(), Knock(card("4D")))  # R5.8: leaves two stock cards, scored normally
    result = m.hand_results[-1]
    assert m.hand_results[-1].knocker == NON_DEALER
    assert result.outcome is not HandOutcome.DEAD
    assert result.points > 0


def test_e10_taking_the_discard_leaves_the_stock_at_three() -> None:
    m = _at_third_last("standard")
    play(m, DrawDiscard())
    top_taken = m.hand.events[-1].card
    assert m.hand.stock_size == 3
    m.apply(Discard(card("4D")))
    assert top_taken is not None
    assert (m.phase, m.to_act, m.hand.stock_size) == (Phase.DRAW, DEALER, 3)
    assert DrawStock() in m.legal_actions()


def test_e10_fiftieth_card_pagat_take_only_to_knock_with_another_discard() -> None:
    m = _at_third_last("standard", wall_rule="fiftieth_card_pagat")
    play(m, DrawStock(), Discard(card("7C")))
    assert (m.phase, m.to_act, m.legal_actions()) == (Phase.WALL, DEALER, [DrawDiscard(), Pass()])
    m.apply(DrawDiscard())
    legal = m.legal_actions()
    assert legal and all(isinstance(a, Knock) for a in legal)
    assert Knock(card("7C")) not in legal
    with pytest.raises(IllegalActionError):
        m.apply(Discard(card("3D")))
    m.apply(Knock(card("3D")))
    assert m.hand_results[-1].knocker == DEALER


def test_e10_fiftieth_card_pagat_decline_is_dead() -> None:
    m = _at_third_last("standard", wall_rule="fiftieth_card_pagat")
    play(m, DrawStock(), Discard(card("7C")), Pass())
    assert m.hand_results[-1].dead_reason == "wall_pass"


def test_e10_fiftieth_card_only_pass_when_no_knock_is_possible() -> None:
    m = _at_third_last("standard", wall_rule="fiftieth_card_pagat")
    play(m, DrawStock(), Discard(card("4D")))
    assert m.legal_actions() == [Pass()]
    with pytest.raises(IllegalActionError, match=r"R7.3\b"):
        m.apply(DrawDiscard())


def test_e10_gamecolony_may_knock_with_the_taken_card_face_down() -> None:
    b = "AH 2H 3H 8S 8H 8D 4C 5C 6C 2S"  # already 2 deadwood
    for wall, allowed in (("fiftieth_card_gamecolony", True), ("fiftieth_card_pagat", False)):
        m = _at_third_last("standard", b=b, wall_rule=wall)
        play(m, DrawStock(), Discard(card("QH")), DrawDiscard())
        assert (Knock(card("QH")) in m.legal_actions()) is allowed


def test_e10_rlcard_wall_pick_up_and_continue() -> None:
    m = _at_third_last("standard", wall_rule="rlcard", max_turns=100)
    play(m, DrawStock(), Discard(card("4D")))
    assert (m.phase, m.legal_actions()) == (Phase.WALL, [DrawDiscard(), DeclareDead()])
    play(m, DrawDiscard(), Discard(card("5C")))
    assert (m.phase, m.to_act) == (Phase.WALL, NON_DEALER)
    m.apply(DeclareDead())
    assert m.hand_results[-1].dead_reason == "declared_dead"


# --- E11: the defender's best arrangement changes once layoffs are considered --------------------

E11_KNOCKER = "5S 6S 7S KS KC KD 9C TC JC JD"
E11_DEFENDER = "2S 2C 2D 2H 8S 8C 8D 9S 7C AC"


@pytest.mark.parametrize(
    ("profile", "overrides", "points"),
    [
        ("standard", {}, 26),
        ("neller-eaai", {}, 26),
        ("pagat", {}, 11),
        ("openspiel", {"undercut_bonus": 20}, 21),
    ],
)
def test_e11_defender_breaks_a_meld_to_lay_off(
    profile: str, overrides: dict[str, object], points: int
) -> None:
    result = knock_after_stock_draw(
        profile, E11_KNOCKER, E11_DEFENDER, draw="QS", discard="QS", upcard="3H", **overrides
    )
    assert result.knocker_deadwood == 10
    assert result.defender_deadwood == 9
    assert (result.outcome, result.points) == (HandOutcome.UNDERCUT, points)


# --- E12: the knocker's arrangement decides the layoffs ------------------------------------------

E12_KNOCKER = "5S 5C 5D 6S 6C 6D 7S 7C 7D AS"
E12_DEFENDER = "3S 4S 8S 4C 8C 4D 8D 5H 6H 7H"


@pytest.mark.parametrize(
    ("profile", "shown", "outcome", "points"),
    [
        ("standard", melds("5S 5C 5D", "6S 6C 6D", "7S 7C 7D"), HandOutcome.KNOCK, 2),
        ("standard", melds("5S 6S 7S", "5C 6C 7C", "5D 6D 7D"), HandOutcome.UNDERCUT, 26),
        ("pagat", melds("5S 6S 7S", "5C 6C 7C", "5D 6D 7D"), HandOutcome.UNDERCUT, 11),
        ("standard", None, HandOutcome.KNOCK, 2),  # R5.4's default exposes fewer layoff cards
    ],
)
def test_e12_knocker_chooses_the_arrangement(
    profile: str,
    shown: tuple[tuple[int, ...], ...] | None,
    outcome: HandOutcome,
    points: int,
) -> None:
    result = knock_after_stock_draw(
        profile, E12_KNOCKER, E12_DEFENDER, draw="KH", discard="KH", upcard="2D", arrangement=shown
    )
    assert result.knocker_deadwood == 1
    assert (result.outcome, result.points) == (outcome, points)


# --- E13: one card fits two melds; greedy layoff is not optimal ----------------------------------


@pytest.mark.parametrize(("profile", "points"), [("standard", 22), ("neller-eaai", 28)])
def test_e13_optimal_versus_greedy_layoffs(profile: str, points: int) -> None:
    result = knock_after_stock_draw(
        profile,
        "7C 7D 7S 8H 9H TH 2C 3C 4C 5S",
        "7H 6H KC KD KH 9S 4D 3H JD AS",
        draw="QS",
        discard="QS",
        upcard="2D",
    )
    assert result.knocker_deadwood == 5
    assert (result.outcome, result.points) == (HandOutcome.KNOCK, points)


E13_KNOCKER = "7C 7D 7S 8H 9H TH 2C 3C 4C 5S"
E13_DEFENDER = "7H 6H KC KD KH 9S 4D 3H JD AS"


@pytest.mark.parametrize(
    ("shown", "deadwood", "points"),
    [
        # The framework tries the knocker's melds in the order shown: the hearts run before the
        # sevens takes 7♥, then 6♥ (D = 27); the sevens first take 7♥ and strand 6♥ (D = 33).
        (melds("2C 3C 4C", "8H 9H TH", "7C 7D 7S"), 27, 22),
        (melds("7C 7D 7S", "8H 9H TH", "2C 3C 4C"), 33, 28),
        (melds("8H 9H TH", "2C 3C 4C", "7C 7D 7S"), 27, 22),
    ],
)
def test_e13_neller_eaai_lays_off_in_the_order_the_knocker_declared(
    shown: tuple[tuple[int, ...], ...], deadwood: int, points: int
) -> None:
    """R6.6 declared_melds: the defender's own melds, then first fit in the knocker's order."""
    result = knock_after_stock_draw(
        "neller-eaai",
        E13_KNOCKER,
        E13_DEFENDER,
        draw="QS",
        discard="QS",
        upcard="2D",
        arrangement=shown,
    )
    assert result.defender is not None
    assert [m.cards for m in result.defender.melds] == [tuple(cards("KC KD KH"))]
    assert (result.defender_deadwood, result.outcome, result.points) == (
        deadwood,
        HandOutcome.KNOCK,
        points,
    )


@pytest.mark.parametrize(
    ("layoffs", "deadwood", "points"),
    [
        ("7H 6H", 27, 22),  # the optimum: 7♥ then 6♥ on 8♥9♥10♥
        ("7H", 33, 28),  # 7♥ alone (it fits the sevens too); 6♥ stays deadwood
        ("", 40, 35),  # nothing laid off
    ],
)
def test_e13_openspiel_defender_is_scored_on_its_declared_layoffs(
    layoffs: str, deadwood: int, points: int
) -> None:
    """R6.6 declared (the openspiel profile): the declaration counts, even below the optimum."""
    m = match("openspiel", deck(E13_KNOCKER, E13_DEFENDER, "2D", "QS"))
    play(m, Pass(), Pass(), DrawStock(), Knock(card("QS")))
    assert m.phase is Phase.DEFENDER and m.to_act == DEALER
    (proposal,) = m.legal_actions()  # the referee proposes the optimum
    assert isinstance(proposal, DefenderPlay)
    assert sorted(card_str(c) for c in proposal.layoffs) == ["6H", "7H"]
    m.apply(DefenderPlay(melds("KC KD KH"), tuple(cards(layoffs))))
    result = m.hand_results[-1]
    assert result.defender_deadwood == deadwood
    assert (result.outcome, result.winner, result.points) == (HandOutcome.KNOCK, NON_DEALER, points)
    assert result.payoffs == (-points, points)  # zero-sum, seat 1 knocked


# --- E14: first-turn take and knock --------------------------------------------------------------

E14_NON_DEALER = "7H 7D 2S 3S 4S 9H TH JH 5D KC"
E14_DEALER = "AC 2C 3C 8D 8C 8S KD 6D 4H 3D"  # 23 deadwood, nothing to lay off


def test_e14_take_the_upcard_and_knock_on_the_first_turn() -> None:
    m = match("standard", deck(E14_NON_DEALER, E14_DEALER, "7C"))
    play(m, DrawDiscard(), Knock(card("KC")))
    result = m.hand_results[-1]
    assert (result.knocker, result.knocker_deadwood, result.defender_deadwood) == (
        NON_DEALER,
        5,
        23,
    )
    assert result.points == 18


def test_e14_the_taken_upcard_may_not_be_discarded() -> None:
    m = match("standard", deck(E14_NON_DEALER, E14_DEALER, "7C"))
    m.apply(DrawDiscard())
    before = m.fingerprint()
    for action in (Discard(card("7C")), Knock(card("7C"))):
        with pytest.raises(IllegalActionError) as err:
            m.apply(action)
        assert err.value.rule == "R4.3"
        assert m.fingerprint() == before


# --- E15: gin cannot be undercut -----------------------------------------------------------------


@pytest.mark.parametrize(("profile", "points"), [("standard", 25), ("pagat", 20)])
def test_e15_gin_against_a_fully_melded_defender(profile: str, points: int) -> None:
    result = knock_after_stock_draw(
        profile,
        "3S 4S 5S 6S 7S 9H TH JH QH KH",
        "AD AC AH 4D 5D 6D 8C 9C TC JC",
        draw="2C",
        discard="2C",
        upcard="2D",
    )
    assert (result.outcome, result.winner, result.defender_deadwood) == (
        HandOutcome.GIN,
        NON_DEALER,
        0,
    )
    assert result.points == points


# --- E16: discarding the card just taken ---------------------------------------------------------

E16_O_CAN_KNOCK = "6H 4H 5H 7C 8C 9C JS QS KS 2D"
E16_O_CANNOT = "6H 4H 5H 7C 8C 9C JS QS 2D 3D"
E16_P = "AC 2C AD 3S 5S 8D TD QD KH 9S"


def _o_discards_six_of_hearts(profile: str, o: str, **overrides: object):  # type: ignore[no-untyped-def]
    m = match(profile, deck(o, E16_P, "2H", "KD"), **overrides)
    play(m, Pass(), Pass(), DrawStock(), Discard(card("6H")), DrawDiscard())
    return m


def test_e16_forbidden() -> None:
    m = _o_discards_six_of_hearts("standard", E16_O_CAN_KNOCK)
    with pytest.raises(IllegalActionError, match=r"R4.3\b"):
        m.apply(Discard(card("6H")))


def test_e16_allowed_gra_bars_the_first_discarder_unless_knocking() -> None:
    m = _o_discards_six_of_hearts("standard", E16_O_CANNOT, discard_taken_card="allowed_gra")
    m.apply(Discard(card("6H")))
    assert m.legal_actions() == [DrawStock()]
    with pytest.raises(IllegalActionError, match=r"R4.3\b"):
        m.apply(DrawDiscard())

    m = _o_discards_six_of_hearts("standard", E16_O_CAN_KNOCK, discard_taken_card="allowed_gra")
    m.apply(Discard(card("6H")))
    assert m.legal_actions() == [DrawStock(), DrawDiscard()]
    m.apply(DrawDiscard())
    legal = m.legal_actions()
    assert legal and all(isinstance(a, Knock) for a in legal)
    m.apply(Knock(card("KD")))
    assert m.hand_results[-1].knocker == NON_DEALER


def test_e16_openspiel_repeated_take_and_discard_ends_the_hand() -> None:
    m = _o_discards_six_of_hearts("openspiel", E16_O_CAN_KNOCK)
    play(m, Discard(card("6H")), DrawDiscard(), Discard(card("6H")))
    result = m.hand_results[-1]
    assert (result.outcome, result.dead_reason, result.payoffs) == (
        HandOutcome.DEAD,
        "repeated_move",
        (0.0, 0.0),
    )


# --- E17: end-of-game bonuses --------------------------------------------------------------------


def test_e17a_pagat_game_and_box_bonuses() -> None:
    game = settle_game(Rules.profile("pagat"), (104, 37), (6, 3), (0, 0), winner=0)
    assert (game.final, game.margin) == ((324, 97), 227)
    game = settle_game(Rules.profile("standard"), (104, 37), (6, 3), (0, 0), winner=0)
    assert (game.final, game.margin) == ((104, 37), 67)


@pytest.mark.parametrize(
    ("profile", "overrides", "final"),
    [
        ("pagat", {}, 412),
        ("pagat", {"shutout": "total_doubled"}, 624),
        ("standard", {"shutout": "hand_points_doubled", "game_bonus": 100, "box_bonus": 25}, 449),
        ("standard", {}, 112),
    ],
)
def test_e17b_shutouts(profile: str, overrides: dict[str, object], final: int) -> None:
    game = settle_game(Rules.profile(profile, **overrides), (112, 0), (5, 0), (0, 0), winner=0)
    assert game.shutout
    assert game.final == (final, 0)


@pytest.mark.parametrize(
    ("profile", "overrides", "points", "won", "extra", "winner_terms", "loser_terms"),
    [
        # E17a: 104 + 100 game bonus + 6 boxes of 20; the loser 37 + 3 boxes.
        ("pagat", {}, (104, 37), (6, 3), (0, 0),
         [("hand_points", 104), ("game_bonus", 100), ("boxes", 120)],
         [("hand_points", 37), ("boxes", 60)]),
        # A shutout doubles the game bonus.
        ("pagat", {}, (112, 0), (5, 0), (0, 0),
         [("hand_points", 112), ("game_bonus", 100), ("shutout_game_bonus", 100),
          ("boxes", 100)],
         [("hand_points", 0)]),
        # ... or the whole total, after everything else.
        ("pagat", {"shutout": "total_doubled"}, (112, 0), (5, 0), (0, 0),
         [("hand_points", 112), ("game_bonus", 100), ("boxes", 100), ("shutout_total", 312)],
         [("hand_points", 0)]),
        # Oklahoma's extra boxes are worth a box each (R9.7).
        ("oklahoma", {}, (151, 40), (4, 2), (2, 1),
         [("hand_points", 151), ("game_bonus", 100), ("boxes", 80), ("extra_boxes", 40)],
         [("hand_points", 40), ("boxes", 40), ("extra_boxes", 20)]),
        # Boxes counted toward the target are in the hand points already: shown, not added.
        ("standard", {"box_bonus": 10, "boxes_count_toward_target": True}, (110, 30), (3, 1),
         (0, 0),
         [("hand_points", 80), ("boxes_in_hand_points", 30)],
         [("hand_points", 20), ("boxes_in_hand_points", 10)]),
        ("standard", {}, (104, 37), (6, 3), (0, 0), [("hand_points", 104)],
         [("hand_points", 37)]),
    ],
)  # fmt: skip
def test_e17c_the_final_score_term_by_term_adds_up(
    profile: str,
    overrides: dict[str, object],
    points: tuple[int, int],
    won: tuple[int, int],
    extra: tuple[int, int],
    winner_terms: list[tuple[str, int]],
    loser_terms: list[tuple[str, int]],
) -> None:
    rules = Rules.profile(profile, **overrides)
    terms = final_terms(rules, points, won, extra, winner=0)
    assert [(t.what, t.points) for t in terms[0]] == winner_terms
    assert [(t.what, t.points) for t in terms[1]] == loser_terms
    game = settle_game(rules, points, won, extra, winner=0)
    assert game.final == (sum(p for _, p in winner_terms), sum(p for _, p in loser_terms))


# --- E18: partnership scoring (R10.2) ------------------------------------------------------------
# A and C are team X (seats 0 and 2), B and D team Y (seats 1 and 3). Each round plays a hand at
# table 0 (A's) and table 1 (C's); `knock(role, n)` is a hand its `role` wins by n points.

A, B, C, D = 0, 1, 2, 3
X, Y = 0, 1


def test_e18_partnership_scoring() -> None:
    rounds = [
        # 1: A beats B by 15, C beats D by 22 (seat 1 deals first at both tables: B and D).
        (knock("non_dealer", 15), knock("non_dealer", 22)),
        # 2: opponents swapped, A and C deal: A beats D by 12, B beats C by 30.
        (knock("dealer", 12), knock("non_dealer", 30)),
        # 3: both winners score 20, one in each team.
        (knock("non_dealer", 20), knock("dealer", 20)),
        # 4: a dead hand at table 0; C beats B by 9 at table 1.
        (dead(), knock("dealer", 9)),
    ]
    g = GroupMatch(
        Rules.profile("standard", players=4),
        seed=18,
        decks=decks([d for pair in rounds for d in pair]),
        first_dealer=1,
    )
    for pair in rounds:
        play_hands(g, *pair)
    r1, r2, r3, r4 = g.round_results
    assert [(h.seats, h.table) for h in g.hand_results] == [
        ((A, B), 0), ((C, D), 1), ((A, D), 0), ((C, B), 1),
        ((A, B), 0), ((C, D), 1), ((A, D), 0), ((C, B), 1),
    ]  # fmt: skip
    winners = [h.match_seat(h.winner) for h in g.hand_results]
    assert winners == [A, C, A, B, A, D, None, C]
    assert [h.points for h in g.hand_results] == [15, 22, 12, 30, 20, 20, 0, 9]
    assert (r1.won, r1.winner, r1.points, r1.scores_after) == ((37, 0), X, 37, (37, 0))
    assert (r2.won, r2.winner, r2.points, r2.scores_after) == ((12, 30), Y, 18, (37, 18))
    assert (r3.won, r3.winner, r3.points, r3.scores_after) == ((20, 20), None, 0, (37, 18))
    # A dead hand at one table counts 0 for that table (Referee decision).
    assert g.hand_results[6].outcome is HandOutcome.DEAD
    assert (r4.won, r4.winner, r4.points, r4.scores_after) == ((9, 0), X, 9, (46, 18))
    assert g.scores == (46, 18)
    assert g.hands_won == (2, 1)  # rounds scored
    assert g.result is None  # 125 is far off


# --- E19: three-player rotation (R10.1) ----------------------------------------------------------

P1, P2, P3 = 0, 1, 2


def test_e19_three_player_rotation() -> None:
    g = GroupMatch(
        Rules.profile("standard", players=3),
        seed=19,
        decks=decks([knock("dealer", 14), dead(), dead()]),
        first_dealer=P1,
    )
    # P1 deals to P2 and P3 and sits out.
    assert g.sitting_out == P1 and g.tables[0].seats == (P2, P3)
    play_hands(g, knock("dealer", 14))  # P3 wins
    first = g.hand_results[-1]
    assert first.match_seat(first.winner) == P3
    assert g.scores == (0, 0, 14)
    # P2, the loser, deals the next hand, played between P3 (winner) and P1 (previous dealer).
    assert g.sitting_out == P2 and g.tables[0].seats == (P3, P1)
    seats = g.tables[0].seats
    play_hands(g, dead())
    assert g.hand_results[-1].outcome is HandOutcome.DEAD
    # The hand was dead: P2 deals again to the same pair.
    assert g.sitting_out == P2 and g.tables[0].seats == seats
    assert g.scores == (0, 0, 14)
    assert [h.number for h in g.hand_results] == [0, 1]


# --- E20: eleven-card start ----------------------------------------------------------------------

E20_NON_DEALER = "AS 2S 3S 4H 5H 6H 9C 9D 9H KD QC"
E20_DEALER = "2C 3C 4C 7D 8D 9S TS JS 5C 5D"


def test_e20_eleven_card_start() -> None:
    m = match("standard", deck(E20_NON_DEALER, E20_DEALER), deal_mode="eleven_card")
    assert m.hand.upcard is None and m.hand.pile == ()
    assert m.hand.stock_size == 31
    assert (m.phase, m.to_act) == (Phase.DISCARD, NON_DEALER)
    assert m.hand.held(NON_DEALER).bit_count() == 11
    assert m.hand.held(DEALER).bit_count() == 10
    legal = m.legal_actions()
    assert sum(isinstance(a, Discard) for a in legal) == 11  # nothing was taken
    assert Knock(card("KD")) in legal  # 9-9-9, runs, QC = 10 deadwood
    m.apply(Discard(card("KD")))
    assert m.legal_actions() == [DrawStock(), DrawDiscard()]


def test_e20_oklahoma_cannot_use_the_eleven_card_deal() -> None:
    with pytest.raises(RulesError, match=r"R2.5\b"):
        Rules.profile("standard", deal_mode="eleven_card", knock_limit_mode="oklahoma")


def test_e20_rlcard_forces_gin_and_shapes_the_payoff() -> None:
    gin_hand = "AS 2S 3S 4H 5H 6H 7H 9C 9D 9H KD"  # shedding KD is gin; nothing else is
    m = match("rlcard", deck(gin_hand, E20_DEALER))
    assert m.legal_actions() == [Knock(card("KD"))]
    with pytest.raises(IllegalActionError, match=r"R5.1\b"):
        m.apply(Discard(card("KD")))
    m.apply(Knock(card("KD")))
    result = m.hand_results[-1]
    assert result.outcome is HandOutcome.GIN
    assert result.payoffs[NON_DEALER] == 1.0
    assert result.payoffs[DEALER] == pytest.approx(-0.20)  # 7D 8D 5D deadwood
    assert m.result is not None and m.result.termination.value == "single_hand"


def test_a_game_won_on_points_can_lose_on_boxes() -> None:
    """R9.6: the game's winner reached the target; many small hands won can still give the loser
    the higher final score, and the margin is then negative (docs/rules.md R9.6)."""
    game = settle_game(Rules.profile("pagat"), (100, 12), (1, 12), (0, 0), winner=0)
    assert game.final == (220, 252)
    assert game.margin == -32
    result = MatchResult(Termination.TARGET, 0, game.final, (game,))
    assert result.margin == -32
