"""Environment throughput with a random policy: decisions per second, ginref vs OpenSpiel vs RLCard.

Every environment hands the agent to act its observation tensor and its legal actions, the
agent picks one uniformly at random, and the environment applies it; a step is one agent
decision (chance events, the deal and stock draws, are the environment's own business and not
counted). A finished episode is reset and play goes on.

- ginref: :class:`ginref_rl.environment.GinRummyEnv` (PettingZoo AEC) under the ``standard``
  profile, ``env.last()`` (the 273-float observation and the 112-entry action mask, numpy) and
  ``env.step`` with a random index of the mask. Also under the ``openspiel`` profile (one hand
  per episode, as OpenSpiel's game), with the dict observation form, with three players and
  with partnerships.
- ginref batch: :class:`ginref_rl.batched.GinRummyBatch` of N = 1, 16 and 256 games, a random
  legal index in each row of the ``(N, 112)`` mask drawn with numpy; a step of the batch counts
  N decisions (a slice plays the same number of decisions, rounded up to whole batch steps).
- OpenSpiel RL environment: ``open_spiel.python.rl_environment.Environment("gin_rummy")``, the
  observation (``info_state``, 644 floats per player) and ``legal_actions`` of its TimeStep.
- OpenSpiel game: ``pyspiel.load_game("gin_rummy")`` driven directly, the acting player's
  ``state.observation_tensor()`` and ``state.legal_actions()`` every step, chance outcomes drawn
  at random.
- RLCard: ``rlcard.make("gin-rummy")``, ``env.step`` returning the next state (its 5x52
  ``obs`` and ``legal_actions``).

Every environment is made and dealt once, then played on: rounds of ``--steps`` decisions per
environment, each round cut in ``--slices`` slices in which the environments take turns, so
that load from elsewhere (on a shared machine it comes and goes within seconds) slows them
alike; medians of the per-round rates and of the per-round ratios. Run:
``.venv/bin/python benchmarks/bench_env.py [--steps N] [--rounds R] [--slices K] [--seed S]``.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from collections.abc import Callable, Sequence
from importlib.metadata import version

import numpy as np
import pyspiel  # type: ignore[import-not-found]
import rlcard  # type: ignore[import-untyped]
from open_spiel.python import rl_environment  # type: ignore[import-not-found]

from ginref_rl.batched import GinRummyBatch
from ginref_rl.environment import GinRummyEnv

Play = Callable[[int], None]  # play on: n more decisions
BATCH_SIZES = (1, 16, 256)


def ginref_steps(profile: str, seed: int, form: str = "array", players: int = 2) -> Play:
    """Random decisions in the ginref PettingZoo environment."""
    env = GinRummyEnv(profile, observation_form=form, players=players)  # type: ignore[arg-type]
    rng = random.Random(seed)
    env.reset(seed=seed)

    def play(n: int) -> None:
        done = 0
        while done < n:
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.reset()
                continue
            legal = observation["action_mask"].nonzero()[0]
            env.step(int(legal[rng.randrange(len(legal))]))
            done += 1

    return play


def batch_steps(games: int, seed: int) -> Play:
    """Random decisions in a batch of ``games`` games, whole batch steps of ``games`` each."""
    batch = GinRummyBatch(games, "standard")
    rng = np.random.default_rng(seed)
    state = [batch.reset(seed=seed)]

    def play(n: int) -> None:
        b = state.pop()
        for _ in range(-(-n // games)):
            b = batch.step(np.argmax(rng.random(b.action_masks.shape) * b.action_masks, axis=1))
        state.append(b)

    return play


def openspiel_env_steps(seed: int) -> Play:
    """Random decisions in OpenSpiel's RL environment."""
    env = rl_environment.Environment("gin_rummy")
    env.seed(seed)  # its chance events: the deal and every stock draw
    rng = random.Random(seed)
    state = [env.reset()]

    def play(n: int) -> None:
        step = state.pop()
        done = 0
        while done < n:
            if step.last():
                step = env.reset()
                continue
            player = step.observations["current_player"]
            _observation = step.observations["info_state"][player]
            legal = step.observations["legal_actions"][player]
            step = env.step([legal[rng.randrange(len(legal))]])
            done += 1
        state.append(step)

    return play


def openspiel_game_steps(seed: int) -> Play:
    """Random decisions on OpenSpiel's game state, with its observation tensor."""
    game = pyspiel.load_game("gin_rummy")
    rng = random.Random(seed)
    states = [game.new_initial_state()]

    def play(n: int) -> None:
        state = states.pop()
        done = 0
        while done < n:
            if state.is_terminal():
                state = game.new_initial_state()
            elif state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                _observation = np.asarray(state.observation_tensor(), dtype=np.float32)
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                done += 1
        states.append(state)

    return play


def rlcard_steps(seed: int) -> Play:
    """Random decisions in RLCard's gin-rummy environment."""
    env = rlcard.make("gin-rummy", config={"seed": seed})
    rng = random.Random(seed)
    states = [env.reset()[0]]

    def play(n: int) -> None:
        state = states.pop()
        done = 0
        while done < n:
            if env.is_over():
                state, _player = env.reset()
                continue
            _observation = state["obs"]
            legal = list(state["legal_actions"])
            state, _player = env.step(legal[rng.randrange(len(legal))])
            done += 1
        states.append(state)

    return play


def interleaved_rates(
    plays: dict[str, Play], n: int, rounds: int, slices: int, counted: dict[str, int]
) -> dict[str, list[float]]:
    """Steps per second of every environment, round by round.

    A round is ``slices`` slices, and in each slice every environment plays ``n / slices``
    decisions in turn, so that load from elsewhere, which comes and goes within seconds on a
    shared machine, slows them alike. ``counted``: the decisions a slice of that environment
    plays, if not ``n / slices`` (a batch plays whole batch steps).
    """
    per_slice = max(1, n // slices)
    rates: dict[str, list[float]] = {name: [] for name in plays}
    for _ in range(rounds):
        spent = dict.fromkeys(plays, 0.0)
        for _ in range(slices):
            for name, play in plays.items():
                start = time.perf_counter()
                play(per_slice)
                spent[name] += time.perf_counter() - start
        for name in plays:
            rates[name].append(counted.get(name, per_slice) * slices / spent[name])
    return rates


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Random policy: environment steps per second.")
    parser.add_argument("--steps", type=int, default=5000, help="decisions per round and env")
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds (median reported)")
    parser.add_argument("--slices", type=int, default=10, help="turns each env takes a round")
    parser.add_argument("--seed", type=int, default=1, help="seed")
    args = parser.parse_args(argv)
    n: int = args.steps
    rounds: int = args.rounds
    seed: int = args.seed
    slices: int = args.slices

    envs: list[tuple[str, str, Play]] = [
        ("ginref", "PettingZoo AEC, standard", ginref_steps("standard", seed)),
        ("ginref os", "PettingZoo AEC, openspiel rules", ginref_steps("openspiel", seed)),
        ("ginref dict", "PettingZoo AEC, dict form", ginref_steps("standard", seed, "dict")),
        ("ginref 3p", "PettingZoo AEC, three players", ginref_steps("standard", seed, players=3)),
        ("ginref 4p", "PettingZoo AEC, partnerships", ginref_steps("standard", seed, players=4)),
        *((f"batch N={g}", f"GinRummyBatch, {g} games", batch_steps(g, seed)) for g in BATCH_SIZES),
        ("OpenSpiel env", "rl_environment.Environment", openspiel_env_steps(seed)),
        ("OpenSpiel game", "pyspiel state + tensor", openspiel_game_steps(seed)),
        ("RLCard", "rlcard.make('gin-rummy')", rlcard_steps(seed)),
    ]
    for _, _, play in envs:
        play(200)  # warm-up (imports, tables) outside the timing
    per_slice = max(1, n // slices)
    counted = {f"batch N={g}": -(-per_slice // g) * g for g in BATCH_SIZES}
    plays = {name: play for name, _, play in envs}
    per_round = interleaved_rates(plays, n, rounds, slices, counted)
    rates = {name: statistics.median(r) for name, r in per_round.items()}

    def ratio(other: str) -> float:
        return statistics.median(
            a / b for a, b in zip(per_round["ginref"], per_round[other], strict=True)
        )

    print(
        f"random policy, {n:,} decisions per round in {slices} slices, median of {rounds} rounds "
        f"(Python {platform.python_version()}, pettingzoo {version('pettingzoo')}, "
        f"open-spiel {version('open-spiel')}, rlcard {version('rlcard')})"
    )
    header = f"{'environment':<14} | {'driven by':<31} | {'steps/s':>9} | {'ours/this':>9}"
    print(header)
    print("-" * len(header))
    for name, how, _ in envs:
        shown = "" if name == "ginref" else f"{ratio(name):.2f}x"
        print(f"{name:<14} | {how:<31} | {rates[name]:>9,.0f} | {shown:>9}")
    print(
        f"ratio ours/OpenSpiel env = {ratio('OpenSpiel env'):.2f}, "
        f"ours/OpenSpiel game = {ratio('OpenSpiel game'):.2f}, "
        f"ours/RLCard = {ratio('RLCard'):.2f} (medians of per-round ratios)"
    )
    print(
        "batch/AEC env: "
        + ", ".join(f"N={g} {1 / ratio(f'batch N={g}'):.2f}x" for g in BATCH_SIZES)
        + "; batch N=256/RLCard = "
        + f"{ratio('RLCard') / ratio('batch N=256'):.2f}"
    )


if __name__ == "__main__":
    main()
