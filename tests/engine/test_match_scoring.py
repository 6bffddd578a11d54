"""Match scoring across hands: dealer rotation (R2.6, R2.7), targets, Hollywood (R9.8)."""

from __future__ import annotations

import pytest

from referee.engine.match import Match
from referee.engine.outcomes import HandOutcome, Termination
from referee.engine.rules import Rules
from referee.engine.scoring import HandScore


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
    m.forfeit(0, "R11.5", "crashed")
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
