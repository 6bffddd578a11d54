"""Three players (R10.1) and partnerships (R10.2), rule by rule (docs/rules.md §10).

Hands are scripted by role (tests/support/group_scenario.py): ``knock("dealer", 12)`` is a hand
the dealer wins by 12, whoever the engine seats there. Each test asserts which match seats
played, dealt and scored, so the seating and the rotation are what is checked.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from referee.engine.actions import DrawStock, Pass
from referee.engine.errors import EngineError, IllegalActionError, RulesError
from referee.engine.group import GroupMatch
from referee.engine.match import Match
from referee.engine.observation import observe_seat
from referee.engine.outcomes import HandOutcome, MatchResult, Phase, Termination
from referee.engine.rules import PROFILES, Rules
from referee.engine.scoring import final_terms
from tests.support.group_scenario import (
    Deal,
    Role,
    churn,
    dead,
    decks,
    gin,
    knock,
    play_hands,
    tie,
)

MATCH_PROFILES = [p for p in PROFILES if Rules.profile(p).scope == "match"]
_MASK64 = (1 << 64) - 1


def three(
    profile: str = "standard", deals: Sequence[Deal] = (), first: int = 0, **overrides: object
) -> GroupMatch:
    """A three-player match dealt from ``deals``; seat ``first`` deals first."""
    return GroupMatch(
        Rules.profile(profile, players=3, **overrides), 3, decks=decks(deals), first_dealer=first
    )


def four(
    profile: str = "standard", deals: Sequence[Deal] = (), first: int = 1, **overrides: object
) -> GroupMatch:
    """A partnership match dealt from ``deals``; side ``first`` deals first at both tables."""
    return GroupMatch(
        Rules.profile(profile, players=4, **overrides), 4, decks=decks(deals), first_dealer=first
    )


def winner_seat(g: GroupMatch) -> int | None:
    last = g.hand_results[-1]
    return last.match_seat(last.winner)


# --- Three players: seating (R10.1) ------------------------------------------------------------


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_three_the_dealer_sits_out_and_the_next_seat_plays_first(dealer: int) -> None:
    g = three(first=dealer)
    after, other = (dealer + 1) % 3, (dealer + 2) % 3
    assert g.sitting_out == dealer
    assert g.table_of(dealer) is None
    assert g.tables[0].seats == (after, other)  # hand seats 0 and 1
    assert g.hand.dealer == 1  # hand seat 1 takes the dealer's part of the hand
    assert (g.phase, g.to_act) == (Phase.UPCARD_OFFER, after)  # offered the upcard first
    g.apply(Pass())
    assert g.to_act == other


@pytest.mark.parametrize("dealer", [0, 1, 2])
@pytest.mark.parametrize("role", ["non_dealer", "dealer"])
@pytest.mark.parametrize("rotation", ["loser_deals", "alternate", "winner_deals"])
def test_three_the_loser_deals_and_the_winner_meets_the_previous_dealer(
    dealer: int, role: Role, rotation: str
) -> None:
    """dealer_rotation does not apply with three players: the loser always deals."""
    deal = knock(role, 9)
    g = three(deals=[deal], first=dealer, dealer_rotation=rotation)
    seats = g.tables[0].seats
    winner = seats[0] if role == "non_dealer" else seats[1]
    loser = seats[1] if role == "non_dealer" else seats[0]
    play_hands(g, deal)
    assert winner_seat(g) == winner
    assert g.sitting_out == loser
    assert set(g.tables[0].seats) == {winner, dealer}
    assert g.tables[0].seats == ((loser + 1) % 3, (loser + 2) % 3)
    assert g.scores[winner] == 9 and sum(g.scores) == 9


@pytest.mark.parametrize(
    ("deal", "overrides"),
    [
        (dead(), {}),
        (dead(), {"dead_hand_dealer": "rotate"}),  # does not apply with three players
        (tie("non_dealer"), {"undercut_on_tie": "off"}),  # a push
    ],
)
def test_three_a_hand_without_winner_is_dealt_again_to_the_same_two(
    deal: Deal, overrides: dict[str, object]
) -> None:
    g = three(deals=[deal, deal], first=1, **overrides)
    play_hands(g, deal)
    assert g.hand_results[-1].winner is None
    assert g.hand_results[-1].outcome in (HandOutcome.DEAD, HandOutcome.PUSH)
    assert g.sitting_out == 1 and g.tables[0].seats == (2, 0)
    assert g.hand.dealer == 1
    assert g.scores == (0, 0, 0)


def test_three_scores_are_individual() -> None:
    deals = [knock("non_dealer", 14), knock("non_dealer", 10), knock("dealer", 7)]
    g = three(deals=deals, first=0)
    for deal in deals:
        play_hands(g, deal)
    # Seat 1 beats 2; 2 deals and 0 beats 1; 1 deals and 0, in the dealer's part, beats 2.
    assert [(h.seats, h.match_seat(h.winner)) for h in g.hand_results] == [
        ((1, 2), 1),
        ((0, 1), 0),
        ((2, 0), 0),
    ]
    assert g.scores == (17, 14, 0)
    assert g.hands_won == (2, 1, 0)
    assert [h.scores_after for h in g.hand_results] == [(0, 14, 0), (10, 14, 0), (17, 14, 0)]


def test_three_the_game_ends_at_the_target_with_bonus_and_boxes_to_everyone() -> None:
    deals = [knock("non_dealer", 14), knock("non_dealer", 10), gin("non_dealer", 30)]
    g = three("pagat", deals=deals, first=0, target=50)
    for deal in deals:
        play_hands(g, deal)
    assert [h.match_seat(h.winner) for h in g.hand_results] == [1, 0, 2]
    assert g.scores == (10, 14, 50)  # gin: 20 + 30
    result = g.result
    assert result is not None and result.termination is Termination.TARGET
    assert result.winner == 2 and not result.teams
    # The winner: hand points + game bonus + a box for each hand won; the others their boxes.
    assert result.final == (10 + 20, 14 + 20, 50 + 100 + 20)
    assert result.margin == 170 - 34
    assert result.placings(3) == (3, 2, 1)
    (game,) = result.games
    assert (game.hands_won, game.shutout) == ((1, 1, 1), False)
    assert g.legal_actions() == [] and g.phase is Phase.MATCH_OVER and g.to_act is None
    with pytest.raises(IllegalActionError):
        g.apply(DrawStock())


@pytest.mark.parametrize(
    ("shutout", "expected"),
    [
        # Two shut-out players: the shutout applies twice.
        ("game_bonus_doubled", 50 + 100 + 2 * 100 + 20),
        ("total_doubled", (50 + 100 + 20) * 3),
        ("hand_points_doubled", 50 + 2 * 50 + 100 + 20),
        ("none", 50 + 100 + 20),
    ],
)
def test_three_the_shutout_counts_once_per_shut_out_player(shutout: str, expected: int) -> None:
    g = three("pagat", deals=[gin("non_dealer", 30)], first=0, target=50, shutout=shutout)
    play_hands(g, gin("non_dealer", 30))
    assert g.result is not None and g.result.winner == 1
    assert g.result.final == (0, expected, 0)
    assert g.result.games[0].shutout  # a fact of the game, whatever the rule makes of it


def test_three_one_shut_out_player_doubles_once() -> None:
    deals = [knock("non_dealer", 10), gin("non_dealer", 30)]
    g = three("pagat", deals=deals, first=0, target=50)
    for deal in deals:
        play_hands(g, deal)
    assert g.result is not None and g.result.winner == 0
    # Seat 2 has no points, seat 1 has 10: the game bonus is doubled once.
    assert g.result.final == (50 + 100 + 100 + 20, 10 + 20, 0)
    terms = final_terms(g.rules, g.scores, g.hands_won, g.extra_boxes, 0)
    assert [(t.what, t.count) for t in terms[0] if t.what.startswith("shutout")] == [
        ("shutout_game_bonus", 1)
    ]


def test_three_oklahoma_extra_boxes_are_the_winners() -> None:
    g = three("oklahoma", deals=[gin("non_dealer", 20)], first=0, oklahoma_extra_boxes="on")
    play_hands(g, gin("non_dealer", 20))
    assert g.extra_boxes == (0, 2, 0)  # a gin earns two (R9.7); J♦ upcard is no spade


# --- Three players: the first dealer (R2.2 among three) -------------------------------------------


def _splitmix(state: int) -> tuple[int, int]:
    """docs: referee/engine/deal.py, written again from its description."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return state, z ^ (z >> 31)


class _Stream:
    def __init__(self, state: int) -> None:
        self.state = state

    def uniform(self, n: int) -> int:
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            self.state, x = _splitmix(self.state)
            if x < limit:
                return x % n

    def deck(self) -> list[int]:
        deck = list(range(52))
        for i in range(51, 0, -1):
            j = self.uniform(i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        return deck


def dealer_stream(seed: int) -> _Stream:
    """The first output of the match generator started at ``seed`` seeds the dealer stream."""
    return _Stream(_splitmix(seed & _MASK64)[1])


def test_three_random_first_dealer_is_uniform_among_three() -> None:
    rules = Rules.profile("standard", players=3)
    counts = [0, 0, 0]
    for seed in range(3000):
        dealer = GroupMatch(rules, seed).sitting_out
        assert dealer is not None
        if seed < 200:
            assert dealer == dealer_stream(seed).uniform(3)
        counts[dealer] += 1
    assert all(850 < c < 1150 for c in counts), counts  # 1000 each, sd 26


def test_three_cut_low_deals_cuts_again_while_the_lowest_rank_is_shared() -> None:
    rules = Rules.profile("pagat", players=3)
    assert rules.first_dealer == "cut_low_deals"
    recut = 0
    for seed in range(400):
        deck = dealer_stream(seed).deck()
        groups = [deck[k : k + 3] for k in range(0, 51, 3)]
        ranks = [[c % 13 for c in grp] for grp in groups]
        first = next(i for i, r in enumerate(ranks) if r.count(min(r)) == 1)
        recut += first > 0
        g = GroupMatch(rules, seed)
        assert g.cut == tuple(groups[first])
        low = ranks[first].index(min(ranks[first]))
        assert g.sitting_out == low
        assert all(r > ranks[first][low] for i, r in enumerate(ranks[first]) if i != low)
    assert recut > 10  # the shared-lowest case came up and was cut again


@pytest.mark.parametrize(("value", "dealer"), [("seat0", 0), ("seat1", 1)])
def test_three_a_fixed_first_dealer(value: str, dealer: int) -> None:
    g = GroupMatch(Rules.profile("standard", players=3, first_dealer=value), 5)
    assert g.sitting_out == dealer and g.cut is None


# --- Partnerships: seating and dealers (R10.2) ---------------------------------------------------


def test_four_opponents_swap_every_round_and_teams_stay() -> None:
    g = GroupMatch(Rules.profile("standard", players=4), 7)
    seen = []
    for _ in range(4):
        seen.append(tuple(t.seats for t in g.tables))
        play_hands(g, Deal([], churn), Deal([], churn))
    assert seen == [((0, 1), (2, 3)), ((0, 3), (2, 1))] * 2
    assert [g.team_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert [r.number for r in g.round_results] == [0, 1, 2, 3]
    assert [r.hands for r in g.round_results] == [(0, 1), (2, 3), (4, 5), (6, 7)]
    assert all(h.outcome is HandOutcome.DEAD for h in g.hand_results)
    assert g.scores == (0, 0) and g.round == 4


@pytest.mark.parametrize(
    ("overrides", "deals", "sides"),
    [
        # Side 1 deals at both tables; table 0's non-dealer wins, table 1's dealer.
        ({}, (knock("non_dealer", 5), knock("dealer", 5)), (0, 0)),
        ({"dealer_rotation": "loser_deals"}, (knock("non_dealer", 5), knock("dealer", 5)), (1, 0)),
        ({"dealer_rotation": "winner_deals"}, (knock("non_dealer", 5), knock("dealer", 5)), (0, 1)),
        # A dead hand at table 0: its dealer deals again, or the deal rotates.
        ({}, (dead(), knock("dealer", 5)), (1, 0)),
        ({"dead_hand_dealer": "rotate"}, (dead(), knock("dealer", 5)), (0, 0)),
        ({"dealer_rotation": "winner_deals"}, (dead(), knock("dealer", 5)), (1, 1)),
    ],
)
def test_four_each_table_rotates_its_dealer(
    overrides: dict[str, object], deals: tuple[Deal, Deal], sides: tuple[int, int]
) -> None:
    g = four(deals=list(deals), first=1, **overrides)
    assert [t.hand.dealer for t in g.tables] == [1, 1]
    play_hands(g, *deals)
    assert g.round == 1
    assert tuple(t.hand.dealer for t in g.tables) == sides


@pytest.mark.parametrize(("value", "side"), [("seat0", 0), ("seat1", 1)])
def test_four_a_fixed_first_dealer_is_that_team_at_both_tables(value: str, side: int) -> None:
    g = GroupMatch(Rules.profile("standard", players=4, first_dealer=value), 5)
    assert [t.hand.dealer for t in g.tables] == [side, side]
    dealers = [t.seats[t.hand.dealer] for t in g.tables]
    assert {g.team_of(s) for s in dealers} == {side}


def test_four_random_first_dealers_are_drawn_per_table() -> None:
    rules = Rules.profile("standard", players=4)
    sides = set()
    for seed in range(200):
        stream = dealer_stream(seed)
        expected = [stream.uniform(2), stream.uniform(2)]
        g = GroupMatch(rules, seed)
        assert [t.hand.dealer for t in g.tables] == expected
        sides.add(tuple(expected))
    assert sides == {(0, 0), (0, 1), (1, 0), (1, 1)}


def test_four_cut_low_deals_at_each_table() -> None:
    rules = Rules.profile("pagat", players=4)
    recut = 0
    for seed in range(300):
        deck = dealer_stream(seed).deck()
        groups = [deck[k : k + 4] for k in range(0, 49, 4)]
        ranks = [[c % 13 for c in grp] for grp in groups]
        first = next(i for i, r in enumerate(ranks) if r[0] != r[1] and r[2] != r[3])
        recut += first > 0
        r = ranks[first]
        g = GroupMatch(rules, seed)
        assert g.cut == tuple(groups[first])
        # The lower card deals: seats 0 v 1 at table 0, seats 2 v 3 at table 1.
        assert [t.hand.dealer for t in g.tables] == [int(r[1] < r[0]), int(r[3] < r[2])]
    assert recut > 10


# --- Partnerships: round scoring and the game (R10.2) ---------------------------------------------
# With side 1 dealing first, team 0 (seats 0 and 2) is the non-dealer at both tables.


@pytest.mark.parametrize(
    ("deals", "overrides", "won", "winner", "points"),
    [
        ((knock("non_dealer", 15), knock("non_dealer", 22)), {}, (37, 0), 0, 37),  # both win
        ((knock("dealer", 10), knock("dealer", 5)), {}, (0, 15), 1, 15),
        ((knock("non_dealer", 12), knock("dealer", 30)), {}, (12, 30), 1, 18),  # one each
        ((knock("non_dealer", 20), knock("dealer", 20)), {}, (20, 20), None, 0),  # equal
        ((dead(), knock("non_dealer", 9)), {}, (9, 0), 0, 9),  # a dead hand counts 0
        ((dead(), dead()), {}, (0, 0), None, 0),
        ((tie("non_dealer"), knock("dealer", 7)), {"undercut_on_tie": "off"}, (0, 7), 1, 7),
        ((tie("non_dealer"), knock("dealer", 7)), {}, (0, 25 + 7), 1, 32),  # undercut 25 + 0
    ],
)
def test_four_round_scoring(
    deals: tuple[Deal, Deal],
    overrides: dict[str, object],
    won: tuple[int, int],
    winner: int | None,
    points: int,
) -> None:
    g = four(deals=list(deals), **overrides)
    play_hands(g, *deals)
    (r,) = g.round_results
    assert (r.won, r.winner, r.points) == (won, winner, points)
    assert g.scores == r.scores_after == tuple(points if t == winner else 0 for t in (0, 1))
    assert g.hands_won == tuple(int(t == winner) for t in (0, 1))
    assert [h.scores_after for h in g.hand_results] == [g.scores, g.scores]


@pytest.mark.parametrize("profile", MATCH_PROFILES)
def test_four_target_is_125_unless_set(profile: str) -> None:
    assert Rules.profile(profile, players=4).target == 125
    assert Rules.profile(profile, players=4, target=200).target == 200
    assert Rules.profile(profile, players=3).target == Rules.profile(profile).target


def _to_the_target(profile: str, **overrides: object) -> GroupMatch:
    """Team 0 gins at both tables (110 under standard, 100 under pagat), then at table 0.

    Team 0 deals the second round under ``alternate``; under pagat's ``loser_deals`` the
    losers, team 1, deal again.
    """
    rules = Rules.profile(profile, players=4, **overrides)
    second: Role = "dealer" if rules.dealer_rotation == "alternate" else "non_dealer"
    rounds = [
        (gin("non_dealer", 30), gin("non_dealer", 30)),
        (gin(second, 20), dead()),
    ]
    g = four(profile, deals=[d for pair in rounds for d in pair], **overrides)
    for pair in rounds:
        if g.result is None:
            play_hands(g, *pair)
    return g


def test_four_a_team_wins_at_125() -> None:
    g = _to_the_target("standard")
    assert [r.scores_after for r in g.round_results] == [(110, 0), (155, 0)]  # 110 < 125
    result = g.result
    assert result is not None and result.termination is Termination.TARGET
    assert result.teams and result.winner == 0
    assert result.final == (155, 0) and result.margin == 155
    assert result.placings(4) == (1, 3, 1, 3)


def test_four_an_explicit_target_is_kept() -> None:
    g = _to_the_target("standard", target=100)
    assert len(g.round_results) == 1
    assert g.result is not None and g.result.final == (110, 0)


def test_four_pagat_game_bonus_and_a_box_per_round_scored() -> None:
    # pagat: the loser deals next at each table (R2.6), so team 1 deals while it loses.
    rounds = [
        (knock("non_dealer", 10), knock("non_dealer", 10)),  # team 0: +20
        (knock("non_dealer", 5), knock("dealer", 30)),  # team 1: 30 - 5 = +25
        (gin("non_dealer", 39), gin("dealer", 39)),  # team 0: 2 x (20 + 39) = +118
    ]
    g = four("pagat", deals=[d for pair in rounds for d in pair])
    for pair in rounds:
        play_hands(g, *pair)
    assert [r.winner for r in g.round_results] == [0, 1, 0]
    assert g.scores == (138, 25) and g.hands_won == (2, 1)
    assert g.result is not None and g.result.winner == 0
    assert g.result.final == (138 + 100 + 2 * 20, 25 + 20)


def test_four_pagat_shutout_of_a_team() -> None:
    g = _to_the_target("pagat")  # gins of 20 + 30 twice (100), then 20 + 20 (140)
    assert g.scores == (140, 0)
    assert g.result is not None and g.result.games[0].shutout
    assert g.result.final == (140 + 2 * 100 + 2 * 20, 0)


# --- Forfeits and places (R11.5, R10.1, R10.2) ----------------------------------------------------


def test_two_players_places() -> None:
    m = Match(Rules.profile("standard"), 1)
    m.forfeit([0], "R11.5", "timeout")
    assert m.result is not None and m.result.placings() == (2, 1)
    both = Match(Rules.profile("standard"), 1)
    both.forfeit([0, 1], "R11.5", "no bot")
    assert both.result is not None and both.result.placings() == (1, 1)
    won = MatchResult(Termination.TARGET, 1, (40, 104))
    assert won.placings(2) == (2, 1)


def test_three_a_forfeiting_seat_places_last_and_the_others_draw() -> None:
    g = three(deals=[knock("non_dealer", 14)], first=0)
    play_hands(g, knock("non_dealer", 14))
    g.forfeit([2], "R11.5", "crashed")
    result = g.result
    assert result is not None and result.termination is Termination.FORFEIT
    assert result.winner is None and result.margin == 0
    assert (result.forfeit_seat, result.forfeit_seats) == (2, (2,))
    assert result.final == (0, 14, 0)  # the scores as they stood
    assert result.placings(3) == (1, 1, 3)
    assert g.legal_actions() == [] and g.to_act is None
    with pytest.raises(EngineError):
        g.forfeit([0], "R11.5", "again")


def test_three_two_forfeits_leave_one_winner() -> None:
    g = three()
    g.forfeit([2, 0], "R11.5", "timeout")
    assert g.result is not None
    assert (g.result.winner, g.result.forfeit_seat, g.result.forfeit_seats) == (1, None, (0, 2))
    assert g.result.placings(3) == (2, 1, 2)


def test_four_a_forfeit_loses_for_the_whole_team() -> None:
    g = four()
    g.forfeit([3], "R11.5", "illegal action")
    assert g.result is not None and g.result.teams and g.result.winner == 0
    assert g.result.placings(4) == (1, 3, 1, 3)
    both = four()
    both.forfeit([0, 3], "R11.5", "timeout")
    assert both.result is not None and both.result.winner is None
    assert both.result.placings(4) == (1, 1, 1, 1)


def test_places_share_ties_and_put_the_winner_first() -> None:
    three_way = MatchResult(Termination.TARGET, 0, (100, 120, 120))  # boxes put others ahead
    assert three_way.placings(3) == (1, 2, 2)
    assert three_way.margin == -20


@pytest.mark.parametrize("seats", [[], [3], [-1]])
def test_a_forfeit_must_name_seats_of_the_match(seats: list[int]) -> None:
    g = three()
    before = g.fingerprint()
    with pytest.raises(EngineError, match="seat"):
        g.forfeit(seats, "R11.5", "timeout")
    assert g.fingerprint() == before and g.result is None


# --- Refused combinations (R10.1, R10.2) ----------------------------------------------------------

REFUSED = [
    (3, {"scope": "single_hand"}, r"R10\.1\b.*R9\.9"),
    (4, {"scope": "single_hand"}, r"R10\.2\b.*R9\.9"),
    (3, {"hollywood": "on"}, r"R10\.1\b.*R9\.8"),
    (4, {"hollywood": "on"}, r"R10\.2\b.*R9\.8"),
    (3, {"first_dealer": "cut_high_chooses"}, r"R10\.1\b.*R2\.2"),
    (4, {"first_dealer": "cut_high_chooses"}, r"R10\.2\b.*R2\.2"),
    (3, {"payoff": "zero_sum"}, r"R10\.1\b.*R8\.7"),
    (4, {"payoff": "rlcard_shaped"}, r"R10\.2\b.*R8\.7"),
    (4, {"oklahoma_extra_boxes": "on"}, r"R10\.2\b.*R9\.7"),
    (5, {}, r"R10\.1\b.*R10\.2\b"),
    (1, {}, r"R10\.1\b.*R10\.2\b"),
]


@pytest.mark.parametrize(("players", "overrides", "rule"), REFUSED)
def test_refused_through_profile(players: int, overrides: dict[str, object], rule: str) -> None:
    with pytest.raises(RulesError, match=rule):
        Rules.profile("standard", players=players, **overrides)


@pytest.mark.parametrize(("players", "overrides", "rule"), REFUSED)
def test_refused_through_from_dict(players: int, overrides: dict[str, object], rule: str) -> None:
    data = {**Rules.profile("standard").to_dict(), "players": players, **overrides}
    with pytest.raises(RulesError, match=rule):
        Rules.from_dict(data)


@pytest.mark.parametrize("profile", ["openspiel", "rlcard"])
@pytest.mark.parametrize("players", [3, 4])
def test_single_hand_profiles_refuse_more_players(profile: str, players: int) -> None:
    with pytest.raises(RulesError, match=rf"R10\.{players - 2}\b"):
        Rules.profile(profile, players=players)


def test_three_players_may_keep_oklahoma_extra_boxes() -> None:
    rules = Rules.profile("oklahoma", players=3, oklahoma_extra_boxes="on")
    assert Rules.from_dict(rules.to_dict()) == rules


def test_a_group_match_needs_three_or_four_players() -> None:
    with pytest.raises(EngineError, match="3 or 4 players"):
        GroupMatch(Rules.profile("standard"), 1)


@pytest.mark.parametrize(("players", "first"), [(3, 3), (3, -1), (4, 2)])
def test_a_fixed_first_dealer_must_be_a_seat_or_side(players: int, first: int) -> None:
    with pytest.raises(EngineError, match="first dealer"):
        GroupMatch(Rules.profile("standard", players=players), 1, first_dealer=first)


# --- What a seat is told (R2.8, R11.3) ------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4])
def test_every_seat_is_told_the_match_rules(players: int) -> None:
    rules = Rules.profile("pagat", players=players)
    g = GroupMatch(rules, 11)
    for seat in range(players):
        obs = observe_seat(g, seat)
        assert obs.rules == rules
        assert (obs.player, obs.players) == (seat, players)


def test_the_seat_sitting_out_sees_no_card() -> None:
    g = three(first=2)
    obs = observe_seat(g, 2)
    assert (obs.seat, obs.sitting_out, obs.to_act) == (-1, 2, None)
    assert obs.hand == () and obs.events == () and obs.discard_pile == ()
    assert obs.upcard is None and obs.opponent_known == () and obs.legal_actions == ()
    assert obs.hand_seats == (0, 1)
    assert obs.player_scores == ((0, 0, 0),) * 3


def test_a_seat_is_told_its_table_and_team_scores() -> None:
    g = four(deals=[knock("non_dealer", 15), knock("non_dealer", 22)])
    play_hands(g, knock("non_dealer", 15), knock("non_dealer", 22))
    obs = observe_seat(g, 3)  # round 1: seat 3 plays seat 0 at table 0, as hand seat 1
    assert (obs.seat, obs.table, obs.hand_seats) == (1, 0, (0, 3))
    assert obs.team_scores == ((37, 1, 0), (0, 0, 0)) and obs.player_scores == ()
    assert obs.scores == (37, 0)
    # Its last hand is the one it played, at table 1 against seat 2, not table 0's.
    assert obs.last_hand is not None and obs.last_hand.table == 1
    assert obs.last_hand.seats == (2, 3)


@pytest.mark.parametrize(("players", "seat"), [(3, 3), (4, 4), (4, -1)])
def test_only_a_seat_of_the_match_is_observed(players: int, seat: int) -> None:
    g = GroupMatch(Rules.profile("standard", players=players), 2)
    with pytest.raises(EngineError, match=f"seat {seat} is not a seat"):
        observe_seat(g, seat)
