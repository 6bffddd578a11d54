"""Table-driven unit tests of card notation (R0.2) and meld arithmetic (R1, R6.2)."""

from __future__ import annotations

import pytest

from referee.engine.cards import (
    CARD_VALUES,
    card_str,
    card_symbol,
    cards_of,
    mask_of,
    parse_card,
    parse_cards,
)
from referee.engine.layoffs import defender_optimum, layoff_assignment
from referee.engine.melds import (
    Arrangement,
    Meld,
    MeldKind,
    best_arrangement,
    best_discard_arrangement,
    direct_layoff_cards,
    is_meld,
    meld_kind,
    min_deadwood,
    min_deadwood_after_discard,
)
from referee.errors import CardError

TEN_OF_DIAMONDS = 13 * 1 + 9  # suit index 1 (diamonds), rank index 9 (ten)


def melds_of(text: str) -> list[Meld]:
    """``"5H 6H 7H | 7C 7D 7S"`` -> the melds, one per ``|``-separated group."""
    return [Meld.of(parse_cards(group)) for group in text.split("|") if group.strip()]


# --- Parsing ------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["TD", "10D", "td", "T♦", "10♦", "10d", "t♦", " TD ", "T♢", "10♢"])
def test_notations_of_the_ten_of_diamonds(text: str) -> None:
    assert parse_card(text) == TEN_OF_DIAMONDS


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("AC", 0),
        ("KC", 12),
        ("AD", 13),
        ("2H", 27),
        ("KS", 51),
        ("A♠", 39),
        ("Q♥", 37),
        ("7♣", 6),
        ("J♤", 49),
        ("3♡", 28),
        ("5♧", 4),
    ],
)
def test_parse_card(text: str, card: int) -> None:
    assert parse_card(text) == card


@pytest.mark.parametrize(
    "text", ["1D", "11H", "TX", "", "   ", "10", "D", "0S", "AA", "1♦", "T♦♦", "ZZ", "AS AS"]
)
def test_parse_card_rejects(text: str) -> None:
    with pytest.raises(CardError) as info:
        parse_card(text)
    assert repr(text) in str(info.value)


@pytest.mark.parametrize("text", ["1D", "11H", "TX"])
def test_parse_cards_rejects_a_bad_card_quoting_it(text: str) -> None:
    with pytest.raises(CardError) as info:
        parse_cards(f"AS {text} KD")
    assert repr(text) in str(info.value)


@pytest.mark.parametrize("text", ["AS AS", "AS as", "TD 10D", "T♦ td", "2C,3C,2C"])
def test_parse_cards_rejects_duplicates(text: str) -> None:
    with pytest.raises(CardError) as info:
        parse_cards(text)
    assert "duplicate" in str(info.value) and repr(text) in str(info.value)


@pytest.mark.parametrize(
    ("text", "cards"),
    [
        ("AS 2S 3S", [39, 40, 41]),
        ("AS,2S, 3S", [39, 40, 41]),
        ("  KD\tQD\nJD ", [25, 24, 23]),
        ("", []),
        (["10♦", "AC"], [TEN_OF_DIAMONDS, 0]),
    ],
)
def test_parse_cards(text: str | list[str], cards: list[int]) -> None:
    assert parse_cards(text) == cards


@pytest.mark.parametrize(
    ("card", "text", "symbol"),
    [
        (0, "AC", "A♣"),
        (9, "TC", "10♣"),
        (12, "KC", "K♣"),
        (TEN_OF_DIAMONDS, "TD", "10♦"),
        (26, "AH", "A♥"),
        (45, "7S", "7♠"),
        (51, "KS", "K♠"),
    ],
)
def test_card_str(card: int, text: str, symbol: str) -> None:
    assert card_str(card) == text
    assert card_symbol(card) == symbol


def test_notation_round_trips() -> None:
    for card in range(52):
        assert parse_card(card_str(card)) == card
        assert parse_card(card_symbol(card)) == card
        assert parse_card(card_str(card).lower()) == card
    assert parse_cards(" ".join(card_str(c) for c in range(52))) == list(range(52))


@pytest.mark.parametrize("card", [-1, 52, 100])
def test_card_str_rejects_non_cards(card: int) -> None:
    with pytest.raises(CardError) as info:
        card_str(card)
    assert repr(card) in str(info.value)


@pytest.mark.parametrize(
    ("text", "value"),
    [("AS", 1), ("2H", 2), ("9D", 9), ("TC", 10), ("JS", 10), ("QH", 10), ("KD", 10)],
)
def test_card_values(text: str, value: int) -> None:
    """R1.3: A = 1, 2-10 = pips, J Q K = 10."""
    assert CARD_VALUES[parse_card(text)] == value


def test_masks() -> None:
    cards = parse_cards("KS AC TD 7H")
    assert cards_of(mask_of(cards)) == sorted(cards)
    assert mask_of([]) == 0 and cards_of(0) == []
    assert cards_of((1 << 52) - 1) == list(range(52))


# --- Melds (R1.4, R1.5) -----------------------------------------------------------------------

SET, RUN = MeldKind.SET, MeldKind.RUN


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("AS 2S 3S", RUN),  # ace low
        ("3S AS 2S", RUN),  # order of listing is irrelevant
        ("JH QH KH", RUN),
        ("9D TD JD QD KD", RUN),
        ("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", RUN),  # 13 cards
        ("QS KS AS", None),  # no wrap-around (R1.5)
        ("KS AS 2S", None),
        ("2S 3H 4S", None),  # mixed suits
        ("5D 6C 7H", None),
        ("2S 3S 5S", None),  # a gap
        ("AS 2S", None),  # too short
        ("7C 7D 7H", SET),
        ("7C 7D 7S", SET),
        ("7C 7D 7H 7S", SET),
        ("7C 7D", None),
        ("7C 7D 8H", None),
        ("7C 7D 7H 8H", None),  # a set plus a card is neither
        ("", None),
        ("KS", None),
    ],
)
def test_meld_kind(text: str, kind: MeldKind | None) -> None:
    cards = parse_cards(text)
    assert meld_kind(cards) is kind
    assert is_meld(mask_of(cards)) is (kind is not None)
    if kind is None:
        with pytest.raises(CardError):
            Meld.of(cards)
    else:
        assert Meld.of(cards).kind is kind


def test_five_of_a_rank_is_no_meld() -> None:
    """R1.4: a set never has more than 4 cards; a fifth card of a rank is a duplicate."""
    sevens = parse_cards("7C 7D 7H 7S")
    assert meld_kind([*sevens, sevens[0]]) is None
    with pytest.raises(CardError):
        Meld.of([*sevens, sevens[0]])
    assert meld_kind([c for c in range(52) if c % 13 == 6]) is SET  # all four: the maximum


def test_meld_of_quotes_the_cards() -> None:
    with pytest.raises(CardError) as info:
        Meld.of(parse_cards("QS KS AS"))
    assert "QS KS AS" in str(info.value)


# --- Deadwood (R1.7-R1.9) ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "deadwood"),
    [
        ("7S 7H 7D 8H 9H", 14),  # R1.9: the run 7♥8♥9♥ beats the set of sevens
        ("QS KS AS", 21),  # R1.9: not a meld
        ("", 0),
        ("KS", 10),
        ("AS 2S 3S", 0),
        ("AS 2S 3S 4C 4D 4H KH QD", 20),
        ("7C 7D 7H 7S 8S 9S", 0),  # the four sevens give 7♠ up to the run
        ("7C 7D 7S 8S 9S", 14),  # 7♠ in the set or the run, not both (R1.7)
        ("5S 6S 7S 5C 7C 5H 6H 7H", 12),  # three sets or three runs, not both
        ("TS JS QS TC TD TH 4C 4D 4H 4S", 0),
        ("KC KD KH QS QH JS JH 9D 8D 7D", 40),
        ("2D 3D 4D 5D 7C 7H 7S 7D JS QS KS", 0),  # 11 cards, all melded (E6)
    ],
)
def test_min_deadwood(text: str, deadwood: int) -> None:
    cards = parse_cards(text)
    assert min_deadwood(cards) == deadwood
    assert min_deadwood(mask_of(cards)) == deadwood
    assert best_arrangement(cards).deadwood_count == deadwood


def test_r1_9_arrangement() -> None:
    arrangement = best_arrangement(parse_cards("7S 7H 7D 8H 9H"))
    assert [str(m) for m in arrangement.melds] == ["7H 8H 9H"]
    assert sorted(arrangement.deadwood) == sorted(parse_cards("7S 7D"))


@pytest.mark.parametrize(
    ("hand", "melds", "error"),
    [
        ("7S 7H 7D 8H 9H", "7S 7H 7D | 7H 8H 9H", "shares 7H"),  # R1.7: disjoint melds
        ("7S 7H 7D 8H 9H", "7S 7H 7C", "not in the hand"),
        ("7S 7H 7D 8H 9H", "7S 8H 9H", "not a meld"),
    ],
)
def test_arrangement_of_rejects(hand: str, melds: str, error: str) -> None:
    groups = [parse_cards(g) for g in melds.split("|")]
    with pytest.raises(CardError) as info:
        Arrangement.of(parse_cards(hand), groups)
    assert error in str(info.value)


def test_arrangement_of_counts_the_rest_as_deadwood() -> None:
    arrangement = Arrangement.of(parse_cards("7S 7H 7D 8H 9H"), [parse_cards("7S 7H 7D")])
    assert arrangement.deadwood_count == 17
    assert Arrangement.of(parse_cards("7S 7H 7D 8H 9H"), []).deadwood_count == 38


# --- Layoffs (R6.2, R6.5) -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("knocker", "direct"),
    [
        ("5H 6H 7H", "4H 8H"),
        ("AS 2S 3S", "4S"),  # nothing below an ace
        ("JC QC KC", "TC"),  # nothing above a king
        ("7C 7D 7S", "7H"),  # the missing fourth card
        ("9C 9D 9H 9S", ""),  # a set of four takes nothing
        ("AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD", ""),
        ("5H 6H 7H | 7C 7D 7S", "4H 8H 7H"),  # 7♥ fits the sevens and not the run directly
    ],
)
def test_direct_layoff_cards(knocker: str, direct: str) -> None:
    assert direct_layoff_cards(melds_of(knocker)) == mask_of(parse_cards(direct))


@pytest.mark.parametrize(
    ("knocker", "cards", "feasible"),
    [
        ("5H 6H 7H", "8H", True),
        ("5H 6H 7H", "4H", True),
        ("5H 6H 7H", "4H 8H", True),  # both ends
        ("5H 6H 7H", "8H 9H", True),  # chained (R6.2)
        ("5H 6H 7H", "3H 4H 8H 9H", True),  # E3
        ("5H 6H 7H", "9H", False),  # not adjacent
        ("5H 6H 7H", "3H", False),
        ("5H 6H 7H", "8D", False),  # wrong suit
        ("7C 7D 7S", "7H", True),
        ("7C 7D 7S", "8C", False),
        ("9C 9D 9H 9S", "TC", False),
        ("JC QC KC", "AC", False),  # no wrap-around
        ("AS 2S 3S", "KS", False),
        ("7C 7D 7S | 8H 9H TH", "7H 6H", True),  # 7♥ must go on the run for 6♥ to fit (E13)
        ("7C 7D 7S | 8H 9H TH", "7H", True),
        ("7C 7D 7S | 8H 9H TH", "6H", False),
        ("2C 3C 4C | 8C 9C TC", "5C 6C 7C", True),  # 5♣ up from one run, 7♣ down from the other
    ],
)
def test_layoff_feasibility(knocker: str, cards: str, feasible: bool) -> None:
    assignment = layoff_assignment(melds_of(knocker), mask_of(parse_cards(cards)))
    assert (assignment is not None) is feasible
    if assignment is not None:
        assert sorted(c for c, _ in assignment) == sorted(parse_cards(cards))


@pytest.mark.parametrize(
    ("knocker", "defender", "deadwood"),
    [
        # E1: 2♠ on 3♠4♠5♠, Q♣ on 9♣10♣J♣.
        ("3S 4S 5S | 7H 7D 7C | 9C TC JC", "AH 2H 3H 8S 8H 8D 2S QC KD 5D", 15),
        # E3: chained layoffs at both ends.
        ("5H 6H 7H | KC KD KS | 2C 3C 4C", "3H 4H 8H 9H AS AD AC 2D 3D 4D", 0),
        # E4: a fourth 9; nothing on a set of four.
        ("9S 9H 9D | QC QD QH QS", "5C 6C 7C 4D 5D 6D 9C 2S KH 3H", 15),
        # E13: 7♥ then 6♥ on the hearts run.
        ("7C 7D 7S | 8H 9H TH | 2C 3C 4C", "7H 6H KC KD KH 9S 4D 3H JD AS", 27),
        # E11: the defender breaks its set of eights to lay them off.
        ("5S 6S 7S | KS KC KD | 9C TC JC", "2S 2C 2D 2H 8S 8C 8D 9S 7C AC", 9),
    ],
)
def test_defender_optimum_examples(knocker: str, defender: str, deadwood: int) -> None:
    play = defender_optimum(parse_cards(defender), melds_of(knocker))
    assert play.deadwood_count == deadwood


def test_best_discard_arrangement_for_eleven_cards() -> None:
    # A tie case: OpenSpiel says 11; the best discard leaves 10.
    hand = mask_of(parse_cards("5S 6S 7S 2C 5C 7C AD 2H 5H 6H 7H"))
    discard, arrangement = best_discard_arrangement(hand)
    assert hand >> discard & 1
    assert arrangement.deadwood_count == 10 == min_deadwood_after_discard(hand)
    assert arrangement.melded_mask | mask_of(arrangement.deadwood) == hand & ~(1 << discard)
