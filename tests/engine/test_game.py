"""One game type for any number of players (referee/engine/game.py).

Everything outside the engine plays a match through :class:`~referee.engine.game.Game` alone:
these tests drive two, three and four players through that protocol only (no class checks),
and pin what a two-player match says as the case of one table.
"""

from __future__ import annotations

import random

import pytest

from referee.engine.actions import DrawStock
from referee.engine.errors import EngineError
from referee.engine.game import Game, new_game
from referee.engine.group import GroupMatch
from referee.engine.match import Match
from referee.engine.outcomes import Phase, Termination
from referee.engine.rules import Rules


def play_out(game: Game, rng: random.Random) -> list[tuple[int, tuple[int, ...]]]:
    """Random legal play to the end, through the protocol only; (seat, tables' seats) each step."""
    seen: list[tuple[int, tuple[int, ...]]] = []
    while game.result is None:
        seat = game.to_act
        assert seat is not None
        table = game.table_of(seat)
        assert table is not None, "the seat to act sits at a table"
        assert game.hand is table.hand
        assert seat in table.seats and table.hand_seat(seat) == table.hand.to_act
        seats = tuple(s for t in game.tables for s in t.seats)
        assert len(seats) == len(set(seats)), "no seat plays at two tables"
        if game.sitting_out is not None:
            assert game.sitting_out not in seats and game.table_of(game.sitting_out) is None
        seen.append((seat, seats))
        actions = game.legal_actions()
        action = rng.choice(actions)
        assert game.is_legal(action)
        game.apply(action)
    return seen


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_size_plays_to_the_end_through_the_protocol(players: int) -> None:
    rules = Rules.profile("standard", players=players, target=60)
    game = new_game(rules, 11)
    assert game.players == players and game.teams == (players == 4)
    seen = play_out(game, random.Random(players))
    assert game.phase is Phase.MATCH_OVER and game.to_act is None
    assert game.legal_actions() == [] and not game.is_legal(DrawStock())
    assert {seat for seat, _ in seen} == set(range(players))
    sides = 2 if players != 3 else 3
    assert len(game.scores) == len(game.hands_won) == len(game.extra_boxes) == sides
    assert [game.team_of(s) for s in range(players)] == [s % sides for s in range(players)]
    assert game.result is not None and game.result.termination is Termination.TARGET
    assert max(game.scores) >= 60 and game.result.winner == game.scores.index(max(game.scores))
    assert len(game.hand_results) == game.hands_dealt
    assert len(game.round_results) == (game.hands_dealt // 2 if players == 4 else 0)
    # A copy is independent and equal; the fingerprint says so.
    copy = game.copy()
    assert copy.fingerprint() == game.fingerprint() and copy is not game


def test_new_game_is_the_match_for_its_number_of_players() -> None:
    assert type(new_game(Rules.profile("standard"), 1)) is Match
    for players in (3, 4):
        assert type(new_game(Rules.profile("standard", players=players), 1)) is GroupMatch


def test_the_same_seed_and_decks_make_the_same_game() -> None:
    rules = Rules.profile("standard", players=3)
    a, b = new_game(rules, 5), new_game(rules, 5)
    play_out(a, random.Random(1))
    play_out(b, random.Random(1))
    assert a.fingerprint() == b.fingerprint()


def test_a_two_player_match_is_one_table_of_seats_0_and_1() -> None:
    game = new_game(Rules.profile("standard"), 3)
    (table,) = game.tables
    assert table.number == 0 and table.seats == (0, 1) and table.result is None
    assert table.hand is game.hand and game.sitting_out is None and game.round_results == ()
    assert game.table_of(0) is not None and game.table_of(1) is not None
    assert game.table_of(2) is None
    # Once a hand is over, its table carries the result until the next deal.
    rng = random.Random(0)
    while not game.hand_results:
        game.apply(rng.choice(game.legal_actions()))
    result = game.hand_results[-1]
    if game.hand is not None and game.hand.number == result.number:
        assert game.tables[0].result == result
    else:
        assert game.tables[0].result is None


def test_before_the_high_cutter_chooses_there_is_no_table() -> None:
    game = new_game(Rules.profile("standard", first_dealer="cut_high_chooses"), 2)
    assert game.chooser is not None and game.hand is None
    assert game.tables == () and game.table_of(0) is None and game.table_of(1) is None


@pytest.mark.parametrize(
    ("players", "seats", "winner", "forfeit_seat"),
    [
        (2, [0], 1, 0),
        (2, [1], 0, 1),
        (2, [1, 0], None, None),
        (3, [2], None, 2),
        (3, [2, 0], 1, None),
        (4, [3], 0, 3),
        (4, [0, 2], 1, None),
        (4, [0, 3], None, None),
    ],
)
def test_forfeit_names_seats_for_every_size(
    players: int, seats: list[int], winner: int | None, forfeit_seat: int | None
) -> None:
    game = new_game(Rules.profile("standard", players=players), 9)
    game.forfeit(seats, "R11.5", "timeout")
    result = game.result
    assert result is not None and result.termination is Termination.FORFEIT
    assert result.winner == winner and result.forfeit_seat == forfeit_seat
    assert result.forfeit_seats == tuple(sorted(seats))
    assert game.to_act is None and game.legal_actions() == []
    with pytest.raises(EngineError, match="already over"):
        game.forfeit(seats, "R11.5", "again")


@pytest.mark.parametrize(("players", "seats"), [(2, []), (2, [2]), (2, [-1]), (3, []), (3, [3])])
def test_a_forfeit_of_no_seat_or_a_seat_not_in_the_match_is_refused(
    players: int, seats: list[int]
) -> None:
    game = new_game(Rules.profile("standard", players=players), 9)
    with pytest.raises(EngineError, match="seat"):
        game.forfeit(seats, "R11.5", "timeout")
    assert game.result is None
