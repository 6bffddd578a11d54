"""The batched form: a batch of N games is N single environments with the same seeds (the same
observations, masks and rewards, step by step, through the automatic restarts), for two, three
and four players; its shapes and refusals."""

from __future__ import annotations

import numpy as np
import pytest

from ginref_rl import actions as A
from ginref_rl import batched
from ginref_rl import encoding as E
from ginref_rl.batched import GinRummyBatch
from ginref_rl.environment import GinRummyEnv
from ginref_rl.episode import Episode, Reward
from referee.engine.rules import Rules
from tests.rl.test_environment import rule_sets as env_rule_sets

SEEDS = [5, 17, 40, 41]


# High cards are discarded first, so that deadwood falls and hands end in knocks.
RANK_WEIGHT = np.concatenate([np.tile(np.arange(13) / 4.0, 4), np.zeros(60)])


def policy(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """A legal index in each game, random with a taste for high discards; a knock whenever one
    is legal: hands end."""
    actions = np.argmax((rng.random(masks.shape) + RANK_WEIGHT) * masks, axis=1)
    knocks = masks[:, A.KNOCK : A.DRAW_STOCK]
    can = knocks.any(axis=1)
    actions[can] = A.KNOCK + np.argmax(knocks[can], axis=1)
    return actions


@pytest.mark.parametrize(
    ("rules", "reward", "steps"),
    [
        (Rules.profile("openspiel"), "payoff", 400),  # one hand a match: many restarts
        (Rules.profile("standard"), "hand", 400),
        (Rules.profile("oklahoma", players=3), "hand", 500),
        (Rules.profile("standard", players=4), "hand", 500),
        (Rules.profile("standard", players=4, target=25), "match", 800),
    ],
)
def test_a_batch_plays_as_single_environments_with_the_same_seeds(
    rules: Rules, reward: Reward, steps: int
) -> None:
    players = rules.players
    batch = GinRummyBatch(len(SEEDS), rules, reward=reward)
    singles = [GinRummyEnv(rules, reward=reward) for _ in SEEDS]
    b = batch.reset(seed=SEEDS)
    for env, seed in zip(singles, SEEDS, strict=True):
        env.reset(seed=seed)
    assert b.observations.shape == (len(SEEDS), E.size(players))
    assert b.action_masks.shape == (len(SEEDS), 112) and b.rewards.shape == (len(SEEDS), players)
    rng = np.random.default_rng(3)
    restarts = rewarded = 0
    for _ in range(steps):
        for i, env in enumerate(singles):
            agent = f"player_{b.to_act[i]}"
            assert env.agent_selection == agent
            view = env.observe(agent)
            assert np.array_equal(b.observations[i], view["observation"]), i
            assert np.array_equal(b.action_masks[i], view["action_mask"]), i
        actions = policy(rng, b.action_masks)
        b = batch.step(actions)
        for i, env in enumerate(singles):
            env.step(int(actions[i]))
            assert list(b.rewards[i]) == [env.rewards[a] for a in env.possible_agents], i
            rewarded += bool(b.rewards[i].any())
            finished = all(env.terminations.values())
            assert bool(b.dones[i]) == finished
            if finished:
                assert batch.results[i] == env.infos["player_0"]["match_result"]
                env.reset()  # the next seed of the stream, as the batch restarts
                restarts += 1
    assert rewarded > 3
    if rules.scope == "single_hand" or reward == "match":
        assert restarts > 2


def test_a_batch_seeded_with_one_number_seeds_game_i_with_that_number_plus_i() -> None:
    batch = GinRummyBatch(3, "pagat")
    b = batch.reset(seed=100)
    assert [e.seed for e in batch.episodes] == [100, 101, 102]
    env = GinRummyEnv("pagat")
    env.reset(seed=102)
    assert np.array_equal(b.observations[2], env.observe(env.agent_selection)["observation"])


def test_an_illegal_action_names_its_game_and_bad_sizes_are_refused() -> None:
    batch = GinRummyBatch(2, "standard")
    b = batch.reset(seed=1)
    illegal = int(np.flatnonzero(b.action_masks[1] == 0)[0])
    legal = int(np.flatnonzero(b.action_masks[0])[0])
    with pytest.raises(ValueError, match=f"game 1: action {illegal} .* is not legal now"):
        batch.step(np.array([legal, illegal]))
    with pytest.raises(ValueError, match="3 actions for a batch of 2"):
        batch.step([0, 0, 0])
    with pytest.raises(ValueError, match="1 seeds for a batch of 2"):
        batch.reset(seed=[1])
    with pytest.raises(ValueError, match="one game or more"):
        GinRummyBatch(0)


def test_rows_written_by_columns_are_the_rows_written_one_by_one() -> None:
    """encode_rows (a large batch's observations) against encode_bytes, row for row, in every
    phase reached by random play: every profile with its variants, three players and
    partnerships (seats sitting out), and before the first deal (cut_high_chooses)."""
    rule_sets = [*env_rule_sets(), Rules.profile("oklahoma", players=3)]
    rule_sets.append(Rules.profile("standard", players=4))
    for k, rules in enumerate(rule_sets):
        rng = np.random.default_rng(k)
        episode = Episode(rules)
        game = episode.reset(k)
        readings = []
        for _ in range(150):
            readings += [E.read(game, seat) for seat in range(rules.players)]
            if game.result is not None:
                game = episode.reset()
                continue
            episode.play(int(rng.choice(np.flatnonzero(np.frombuffer(episode.mask(), np.int8)))))
        # must_knock is rare in random play: some readings as if the seat had to knock.
        readings += [r._replace(view=r.view._replace(must_knock=True)) for r in readings[::7]]
        rows = np.frombuffer(b"".join(E.encode_bytes(r) for r in readings), np.float32)
        expected = rows.reshape(len(readings), E.size(rules.players))
        assert np.array_equal(E.encode_rows(readings, rules.players), expected), rules


def test_a_large_batch_plays_as_single_environments_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """The batch's observations written by columns, as a batch of BY_COLUMNS games or more
    writes them, in the comparison with single environments."""
    monkeypatch.setattr(batched, "BY_COLUMNS", 1)
    test_a_batch_plays_as_single_environments_with_the_same_seeds(
        Rules.profile("standard", players=4), "hand", 300
    )
    test_a_batch_plays_as_single_environments_with_the_same_seeds(
        Rules.profile("standard"), "hand", 300
    )
