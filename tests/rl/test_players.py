"""The environment with three players (R10.1) and partnerships (R10.2): PettingZoo's API and
seed tests, every seat's arrays and mask against the engine's one view function, the seat that
sits out, and rewards by seat and by team."""

from __future__ import annotations

import random
import warnings
from collections import Counter

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from ginref_rl import actions as A
from ginref_rl import encoding as E
from ginref_rl.environment import GinRummyEnv, env
from referee.engine.errors import RulesError
from referee.engine.game import Game
from referee.engine.observation import observe_seat
from referee.engine.rules import PROFILES, Rules
from tests.rl.test_environment import play_out

EXPECTED_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
}


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("form", ["array", "dict"])
def test_pettingzoo_api_test_passes_for_every_number_of_players(players: int, form: str) -> None:
    e = env("standard", players=players, observation_form=form)
    assert e.possible_agents == [f"player_{i}" for i in range(players)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(e, num_cycles=400)
    assert {str(w.message) for w in caught} - EXPECTED_WARNINGS == set()


@pytest.mark.parametrize("players", [3, 4])
def test_pettingzoo_seed_test_for_three_players_and_partnerships(players: int) -> None:
    seed_test(lambda: env("oklahoma", players=players), num_cycles=300)


def group_rule_sets() -> list[Rules]:
    out = []
    for name in PROFILES:
        for players in (3, 4):
            for overrides in ({}, {"discard_taken_card": "allowed_gra", "knock_limit": 10}):
                try:
                    out.append(Rules.profile(name, players=players, **overrides))
                except RulesError:
                    continue
    return out


def expected(game: Game, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """The arrays of the engine's own view of ``seat`` (observe_seat), encoded."""
    seen = E.seen_of(observe_seat(game, seat))
    return E.encode_array(seen), E.action_mask(seen.legal)


def test_every_seats_arrays_and_mask_are_the_engine_views_in_every_position() -> None:
    """At every decision of random matches every agent's observation and mask equal the
    encoding of observe_seat (what the referee sends that seat), and seen_in equals seen_of."""
    reached: Counter[str] = Counter()
    for k, rules in enumerate(group_rule_sets()):
        e = GinRummyEnv(rules)
        rng = random.Random(k)
        e.reset(seed=k)
        game = e._started()
        for _ in range(400 if rules.players == 3 else 600):
            if game.result is not None:
                break
            for seat, agent in enumerate(e.agents):
                got = e.observe(agent)
                array, mask = expected(game, seat)
                assert np.array_equal(got["observation"], array), (rules, seat)
                assert np.array_equal(got["action_mask"], mask), (rules, seat)
                assert E.seen_in(game, seat, tuple(np.flatnonzero(mask))) == E.seen_of(
                    observe_seat(game, seat)
                )
                reached["sits out"] += got["observation"][E.GROUP + E.SEAT_SITS_OUT] == 1
                reached["taken"] += got["observation"][E.TAKEN : E.TAKEN + 52].any()
            legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
            knocks = [i for i in legal if A.KNOCK <= i < A.DRAW_STOCK]
            e.step(int(knocks[0]) if knocks else int(rng.choice(legal)))
        reached["hands"] += len(game.hand_results)
    assert reached["sits out"] > 100 and reached["taken"] > 100 and reached["hands"] > 20, reached


def test_the_seat_that_sits_out_gets_no_turn_and_sees_that_it_sits_out() -> None:
    e = env("standard", players=3)
    e.reset(seed=11)
    game = e._started()
    rng = random.Random(1)
    hands_seen = 0
    while game.result is None and hands_seen < 6:
        out = game.sitting_out
        assert out is not None and e.agent_selection != f"player_{out}"
        view = e.observe(f"player_{out}")
        a = view["observation"]
        assert a.shape == (E.size(3),) == (282,)
        assert a[E.GROUP + E.SEAT_SITS_OUT] == 1.0  # own entry first
        assert not a[: E.PHASE].any() and not view["action_mask"].any()
        assert a[E.DEALER] == 0.0
        # Each player's view names its opponent among the seats after it; nobody's is the
        # seat that sits out.
        for seat in range(3):
            if seat != out:
                b = e.observe(f"player_{seat}")["observation"]
                flags = b[E.GROUP + E.SEAT_OPPONENT :: E.PER_SEAT]
                assert flags.sum() == 1.0
                assert (seat + int(np.argmax(flags))) % 3 == 3 - seat - out
        hands = len(game.hand_results)
        while len(game.hand_results) == hands and game.result is None:
            legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
            e.step(int(rng.choice(legal)))
        hands_seen += 1
    assert hands_seen == 6


def test_partnership_rewards_are_the_teams_and_sum_to_the_score_difference() -> None:
    e = env("standard", players=4)
    totals = play_out(e, seed=8)
    game = e._started()
    assert game.result is not None and len(game.round_results) > 1
    team0, team1 = game.scores
    assert totals["player_0"] == totals["player_2"] == team0 - team1
    assert totals["player_1"] == totals["player_3"] == team1 - team0
    e = env("standard", players=4, reward="match")
    totals = play_out(e, seed=8)
    winner = e._started().result.winner  # type: ignore[union-attr]
    assert totals == {f"player_{s}": 1.0 if s % 2 == winner else -1.0 for s in range(4)}


def test_three_player_rewards_go_to_the_two_seats_at_the_table() -> None:
    e = env("standard", players=3)
    totals = play_out(e, seed=9)
    game = e._started()
    net = [0, 0, 0]
    for r in game.hand_results:
        if r.winner is not None:
            net[r.seats[r.winner]] += r.points
            net[r.seats[1 - r.winner]] -= r.points
    assert [totals[f"player_{s}"] for s in range(3)] == net
    assert sum(net) == 0 and any(net)
    e = env("standard", players=3, reward="match")
    totals = play_out(e, seed=9)
    winner = e._started().result.winner  # type: ignore[union-attr]
    assert totals == {f"player_{s}": 1.0 if s == winner else -0.5 for s in range(3)}


def test_players_given_twice_must_agree() -> None:
    assert env("pagat", players=4).rules == Rules.profile("pagat", players=4)
    with pytest.raises(ValueError, match="players = 3, but the rules given are for 2"):
        GinRummyEnv(Rules.profile("standard"), players=3)
    with pytest.raises(RulesError, match="scope = match"):
        GinRummyEnv("openspiel", players=3)
