"""Match scoring across hands: dealer rotation (R2.6, R2.7), targets, Hollywood (R9.8)."""

from __future__ import annotations

import itertools
import random

import pytest

from referee.engine.cards import cards_of, mask_of, parse_cards
from referee.engine.errors import CardError
from referee.engine.layoffs import check_defender_play, defender_optimum, layoff_assignment
from referee.engine.match import Match
from referee.engine.melds import Meld, is_meld
from referee.engine.outcomes import HandOutcome, Termination
from referee.engine.rules import Rules
from referee.engine.scoring import HandScore, Term, final_terms
from tests.engine.test_engine_properties import brute_defender_deadwood, layoffs_feasible


def win(m: Match, seat: int, points: int) -> None:
    """Record a won hand as if it had been played (scoring is what these tests check)."""
    m._finish_hand(HandScore(HandOutcome.KNOCK, seat, points))


def lose_nothing(m: Match) -> None:
    m._end_dead("stock_exhausted")


def test_hollywood_enters_wins_in_one_two_then_three_games() -> None:
    m = Match(Rules.profile("pagat", hollywood="on"), seed=1, first_dealer=0)
    win(m, 0, 10)
    win(m, 0, 20)
    win(m, 1, 15)
    win(m, 0, 5)
    win(m, 1, 7)
    assert m.board.game_points == ((35, 22), (25, 7), (5, 0))
    assert m.result is None


def test_hollywood_shut_out_player_scores_first_in_the_next_open_game() -> None:
    m = Match(Rules.profile("pagat", hollywood="on", target=50), seed=1, first_dealer=0)
    win(m, 0, 30)
    win(m, 0, 30)
    game1 = m.board.settled[0]
    assert game1 is not None and game1.shutout
    win(m, 1, 10)  # game 1 is over: B's score opens game 2, not game 3
    assert m.board.game_points == ((60, 0), (30, 10), (0, 0))


def test_hollywood_match_ends_when_all_three_games_are_settled() -> None:
    m = Match(Rules.profile("pagat", hollywood="on", target=50), seed=1, first_dealer=0)
    for _ in range(5):
        win(m, 0, 30)
    assert m.result is not None and m.result.termination is Termination.HOLLYWOOD
    assert len(m.result.games) == 3
    assert m.result.final == tuple(sum(g.final[s] for g in m.result.games) for s in (0, 1))
    assert m.result.winner == 0


@pytest.mark.parametrize(
    ("rotation", "dealers"),
    [
        ("alternate", [0, 1, 0]),  # R2.6: deal alternates
        ("loser_deals", [0, 0, 1]),  # seat 1 wins, then seat 0: the loser deals next
        ("winner_deals", [0, 1, 0]),
    ],
)
def test_dealer_rotation(rotation: str, dealers: list[int]) -> None:
    m = Match(Rules.profile("standard", dealer_rotation=rotation), seed=1, first_dealer=0)
    seen = [m.hand.dealer]
    win(m, 1, 5)
    seen.append(m.hand.dealer)
    win(m, 0, 5)
    seen.append(m.hand.dealer)
    assert seen == dealers


@pytest.mark.parametrize(("policy", "dealer"), [("same_dealer", 0), ("rotate", 1)])
def test_dealer_after_a_dead_hand(policy: str, dealer: int) -> None:
    m = Match(Rules.profile("standard", dead_hand_dealer=policy), seed=1, first_dealer=0)
    lose_nothing(m)
    assert m.hand.dealer == dealer
    assert m.hand.number == 1


def test_target_ends_the_match_with_bonuses() -> None:
    m = Match(Rules.profile("pagat"), seed=1, first_dealer=0)
    win(m, 0, 60)
    win(m, 1, 20)
    win(m, 0, 45)
    assert m.result is not None and m.result.termination is Termination.TARGET
    # 105 + 100 game + 2 boxes of 20; the loser 20 + 1 box.
    assert m.result.final == (245, 40)
    assert m.result.margin == 205


def test_boxes_count_toward_target() -> None:
    rules = Rules.profile("pagat", boxes_count_toward_target="on", box_bonus=10)
    m = Match(rules, seed=1, first_dealer=0)
    win(m, 0, 85)
    assert m.scores == (95, 0)
    win(m, 0, 0)
    assert m.result is not None and m.result.winner == 0


def test_forfeit_ends_the_match_for_the_other_seat() -> None:
    m = Match(Rules.profile("standard"), seed=1)
    m.forfeit([0], "R11.5", "crashed")
    assert m.result is not None
    assert (m.result.winner, m.result.termination, m.result.forfeit_rule) == (
        1,
        Termination.FORFEIT,
        "R11.5",
    )
    assert m.legal_actions() == []


def test_seeded_first_dealer_and_deck_are_reproducible() -> None:
    for profile in ("standard", "pagat"):
        a, b = Match(Rules.profile(profile), 42), Match(Rules.profile(profile), 42)
        assert a.fingerprint() == b.fingerprint()
    decks = {Match(Rules.profile("standard"), s).hand.deck for s in range(50)}
    assert len(decks) == 50


# --- a game's final score, term by term (R9.3-R9.6, A.4) ----------------------------------------


def _terms(
    points: tuple[int, ...],
    won: tuple[int, ...],
    extra: tuple[int, ...],
    **rules: object,
) -> tuple[tuple[Term, ...], ...]:
    base = {"game_bonus": 100, "box_bonus": 25}
    return final_terms(Rules.profile("standard", **{**base, **rules}), points, won, extra, 0)


def test_every_term_of_a_shutout_with_boxes_and_extra_boxes() -> None:
    """150-0, five hands and one extra box to none: the game bonus doubled for the shutout,
    and each box term says how many boxes of how much, as the score sheet shows them."""
    winner, loser = _terms((150, 0), (5, 0), (1, 0), shutout="game_bonus_doubled")
    assert winner == (
        Term("hand_points", 150),
        Term("game_bonus", 100),
        Term("shutout_game_bonus", 100, 1),
        Term("boxes", 125, 5, 25),
        Term("extra_boxes", 25, 1, 25),
    )
    assert loser == (Term("hand_points", 0),)


def test_hand_points_doubled_once_for_each_shut_out_player() -> None:
    """Three players (R10.1), both others at 0: the hand points counted twice more."""
    terms = _terms((120, 0, 0), (4, 0, 0), (0, 0, 0), shutout="hand_points_doubled")
    assert terms[0] == (
        Term("hand_points", 120),
        Term("shutout_hand_points", 240, 2),
        Term("game_bonus", 100),
        Term("boxes", 100, 4, 25),
    )
    assert terms[1] == terms[2] == (Term("hand_points", 0),)


def test_the_total_doubled_adds_every_term_before_it() -> None:
    (winner, loser) = _terms((110, 0), (3, 0), (2, 0), shutout="total_doubled")
    assert winner[-1] == Term("shutout_total", 110 + 100 + 75 + 50, 1)
    assert loser == (Term("hand_points", 0),)
    # Not a shutout: the loser scored, nothing is doubled.
    (winner, loser) = _terms((110, 30), (3, 1), (0, 2), shutout="total_doubled")
    assert [t.what for t in winner] == ["hand_points", "game_bonus", "boxes"]
    assert loser == (
        Term("hand_points", 30),
        Term("boxes", 25, 1, 25),
        Term("extra_boxes", 50, 2, 25),
    )


def test_boxes_credited_during_the_game_are_shown_apart_not_counted_again() -> None:
    """With boxes_count_toward_target the boxes are already in the hand points: split out."""
    winner, loser = _terms((150, 40), (4, 1), (1, 0), boxes_count_toward_target=True)
    assert winner == (
        Term("hand_points", 25),
        Term("boxes_in_hand_points", 125, 5, 25),
        Term("game_bonus", 100),
    )
    assert loser == (Term("hand_points", 15), Term("boxes_in_hand_points", 25, 1, 25))


# --- the defender's declared play (R6.2-R6.6), refused with the cards at fault -------------------

KNOCKER = [Meld.of(parse_cards("7C 8C 9C")), Meld.of(parse_cards("KH KS KD"))]
DEFENDER = parse_cards("TC 6C KC 2D 3D 4D 5S")


@pytest.mark.parametrize(
    ("melds", "layoffs", "allowed", "message"),
    [
        ([], "TC", False, "no layoffs against gin or big gin (R6.3a)"),
        ([], "TC QH", True, "laid-off cards not in the defender's hand: QH"),
        (["2D 3D 4D"], "4D", True, "a card cannot be both in an own meld and laid off: 4D"),
        (
            [],
            "5S",
            True,
            "these cards cannot all be laid off on the knocker's melds (R6.2, R6.5): 5S",
        ),
    ],
)
def test_a_declared_play_is_refused_naming_the_cards(
    melds: list[str], layoffs: str, allowed: bool, message: str
) -> None:
    own = [parse_cards(m) for m in melds]
    with pytest.raises(CardError) as caught:
        check_defender_play(DEFENDER, KNOCKER, own, parse_cards(layoffs), allowed)
    assert str(caught.value) == message


def test_a_declared_play_lays_off_on_the_meld_each_card_extends() -> None:
    own = [parse_cards("2D 3D 4D")]
    play = check_defender_play(DEFENDER, KNOCKER, own, parse_cards("TC 6C KC"), True)
    assert play.melds == (Meld.of(parse_cards("2D 3D 4D")),)
    assert sorted(play.layoffs) == sorted(
        [(parse_cards("6C")[0], 0), (parse_cards("TC")[0], 0), (parse_cards("KC")[0], 1)]
    )
    assert play.deadwood == tuple(parse_cards("5S"))
    # Given as a mask of cards, the same play.
    mask = check_defender_play(mask_of(DEFENDER), KNOCKER, own, parse_cards("TC 6C KC"), True)
    assert mask == play


def _showdown(rng: random.Random) -> tuple[list[Meld], int]:
    """A knocker's run and set, and a defender's ten cards: three that the melds could take
    (a run's ends, the set's fourth card) among seven of the rest, so that layoffs, chained and
    competing, are common."""
    suit, low, length = rng.randrange(4), rng.randrange(0, 9), rng.randint(3, 5)
    run = [13 * suit + r for r in range(low, low + length)]
    rank = rng.choice([r for r in range(13) if not low <= r < low + length])
    suits = rng.sample(range(4), 4)
    kind = [13 * s + rank for s in suits[:3]]
    knocker = [Meld.of(run), Meld.of(kind)]
    takers = [13 * suits[3] + rank]
    takers += [13 * suit + r for r in (low - 1, low + length) if 0 <= r < 13]
    used = set(run) | set(kind)
    near = [c for c in takers if c not in used]
    rest = [c for c in range(52) if c not in used and c not in near]
    cards = rng.sample(near, min(3, len(near)))
    cards += rng.sample(rest, 10 - len(cards))
    return knocker, mask_of(cards)


def test_layoffs_agree_with_a_brute_force_of_the_rules() -> None:
    """R6.5 and R6.6 worked out by trying every subset of the defender's cards (the helpers of
    the property tests, written from the rules alone): the defender's optimum, and which sets
    of cards can be laid off together."""
    rng = random.Random(6)
    for _ in range(60):
        knocker, defender = _showdown(rng)
        melds = [m.cards for m in knocker]
        play = defender_optimum(defender, knocker)
        assert play.deadwood_count == brute_defender_deadwood(defender, melds), (melds, defender)
        cards = cards_of(defender)
        for size in (1, 2, 3):
            for x in itertools.combinations(cards, size):
                assigned = layoff_assignment(knocker, mask_of(x))
                assert (assigned is not None) == layoffs_feasible(melds, x), (melds, x)
                if assigned is not None:  # each card on a meld it extends, all of them at once
                    for i, meld in enumerate(melds):
                        extra = [c for c, target in assigned if target == i]
                        assert not extra or is_meld(mask_of([*meld, *extra]))
