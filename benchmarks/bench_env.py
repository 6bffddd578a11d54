"""Environment throughput with a random policy: decisions per second, ginref vs OpenSpiel vs RLCard.

Every environment hands the agent to act its observation tensor and its legal actions, the
agent picks one uniformly at random, and the environment applies it; a step is one agent
decision (chance events, the deal and stock draws, are the environment's own business and not
counted). A finished episode is reset and play goes on.

- ginref: :class:`ginref_rl.environment.GinRummyEnv` (PettingZoo AEC) under the ``standard``
  profile, ``env.last()`` (the 273-float observation and the 112-entry action mask, numpy) and
  ``env.step`` with a random index of the mask. Also under the ``openspiel`` profile (one hand
  per episode, as OpenSpiel's game), and with the dict observation form.
- OpenSpiel RL environment: ``open_spiel.python.rl_environment.Environment("gin_rummy")``, the
  observation (``info_state``, 644 floats per player) and ``legal_actions`` of its TimeStep.
- OpenSpiel game: ``pyspiel.load_game("gin_rummy")`` driven directly, the acting player's
  ``state.observation_tensor()`` and ``state.legal_actions()`` every step, chance outcomes drawn
  at random.
- RLCard: ``rlcard.make("gin-rummy")``, ``env.step`` returning the next state (its 5x52
  ``obs`` and ``legal_actions``).

Rounds of ``--steps`` decisions per environment, the environments taking turns each round so
that load from elsewhere slows them alike; medians of the per-round rates and of the per-round
ratios. Run: ``.venv/bin/python benchmarks/bench_env.py [--steps N] [--rounds R] [--seed S]``.
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

from ginref_rl.environment import GinRummyEnv

Play = Callable[[int, int], None]


def ginref_steps(profile: str, form: str = "array") -> Play:
    """``n`` random decisions in the ginref PettingZoo environment."""
    env = GinRummyEnv(profile, observation_form=form)  # type: ignore[arg-type]

    def play(n: int, seed: int) -> None:
        rng = random.Random(seed)
        env.reset(seed=seed)
        done = 0
        while done < n:
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.reset()
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            done += 1

    return play


def openspiel_env_steps(n: int, seed: int) -> None:
    """``n`` random decisions in OpenSpiel's RL environment."""
    env = rl_environment.Environment("gin_rummy")
    env.seed(seed)  # its chance events: the deal and every stock draw
    rng = random.Random(seed)
    step = env.reset()
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


_OS_GAME = pyspiel.load_game("gin_rummy")


def openspiel_game_steps(n: int, seed: int) -> None:
    """``n`` random decisions on OpenSpiel's game state, with its observation tensor."""
    rng = random.Random(seed)
    state = _OS_GAME.new_initial_state()
    done = 0
    while done < n:
        if state.is_terminal():
            state = _OS_GAME.new_initial_state()
        elif state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
        else:
            _observation = np.asarray(state.observation_tensor(), dtype=np.float32)
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            done += 1


def rlcard_steps(n: int, seed: int) -> None:
    """``n`` random decisions in RLCard's gin-rummy environment."""
    env = rlcard.make("gin-rummy", config={"seed": seed})
    rng = random.Random(seed)
    state, _player = env.reset()
    done = 0
    while done < n:
        if env.is_over():
            state, _player = env.reset()
            continue
        _observation = state["obs"]
        legal = list(state["legal_actions"])
        state, _player = env.step(legal[rng.randrange(len(legal))])
        done += 1


def interleaved_rates(
    plays: dict[str, Play], n: int, rounds: int, seed: int
) -> dict[str, list[float]]:
    """Steps per second of every environment, round by round, taking turns each round."""
    rates: dict[str, list[float]] = {name: [] for name in plays}
    for k in range(rounds):
        for name, play in plays.items():
            start = time.perf_counter()
            play(n, seed + k)
            rates[name].append(n / (time.perf_counter() - start))
    return rates


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Random policy: environment steps per second.")
    parser.add_argument("--steps", type=int, default=5000, help="decisions per round and env")
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds (median reported)")
    parser.add_argument("--seed", type=int, default=1, help="base seed")
    args = parser.parse_args(argv)
    n: int = args.steps
    rounds: int = args.rounds
    seed: int = args.seed

    envs: list[tuple[str, str, Play]] = [
        ("ginref", "PettingZoo AEC, standard", ginref_steps("standard")),
        ("ginref os", "PettingZoo AEC, openspiel rules", ginref_steps("openspiel")),
        ("ginref dict", "PettingZoo AEC, dict form", ginref_steps("standard", "dict")),
        ("OpenSpiel env", "rl_environment.Environment", openspiel_env_steps),
        ("OpenSpiel game", "pyspiel state + tensor", openspiel_game_steps),
        ("RLCard", "rlcard.make('gin-rummy')", rlcard_steps),
    ]
    for _, _, play in envs:
        play(200, seed)  # warm-up (imports, tables) outside the timing
    per_round = interleaved_rates({name: play for name, _, play in envs}, n, rounds, seed)
    rates = {name: statistics.median(r) for name, r in per_round.items()}

    def ratio(other: str) -> float:
        return statistics.median(
            a / b for a, b in zip(per_round["ginref"], per_round[other], strict=True)
        )

    print(
        f"random policy, {n:,} decisions per round, median of {rounds} rounds "
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


if __name__ == "__main__":
    main()
