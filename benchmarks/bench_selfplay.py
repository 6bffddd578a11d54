"""Random self-play throughput: complete hands per second, ginref vs OpenSpiel vs RLCard.

Every engine plays uniformly random legal actions from a fresh deal until the hand is over:

- OpenSpiel: ``pyspiel.load_game("gin_rummy")`` (one game = one hand), driven from Python with
  ``state.legal_actions()`` / ``state.apply_action()``; chance nodes (the deal and every stock
  draw) get a random outcome of ``state.chance_outcomes()`` (all equally likely in this game).
- RLCard, engine level (used for the ratio): ``rlcard.games.gin_rummy.game.GinRummyGame`` driven
  directly, ``game.init_game()`` then ``game.step(random.choice(game.judge.get_legal_actions()))``
  until ``game.is_over()``. Like the OpenSpiel and ginref loops, this builds no observations.
- RLCard, environment level (for reference): ``rlcard.make("gin-rummy")`` with two
  ``RandomAgent``s and ``env.run()``, which also encodes a 5x52 observation every step.
- ginref: :func:`ginref_random_hands` (our engine, ``referee.engine.match.Match``).
- ginref with three players and with partnerships: :func:`ginref_group_random_hands`
  (``referee.engine.group.GroupMatch``, every hand a two-player hand at a table); its
  "ours/this" is the two-player engine's rate over the group match's, the cost of the seating.

Medians over ``--rounds`` rounds of ``--hands`` hands each; round ``k`` uses seed ``seed + k``.
Run: ``.venv/bin/python benchmarks/bench_selfplay.py [--hands N] [--rounds R] [--seed S]``.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from collections.abc import Callable, Sequence
from functools import partial
from importlib.metadata import version

import numpy as np
import pyspiel  # type: ignore[import-not-found]
import rlcard  # type: ignore[import-untyped]
from rlcard.agents import RandomAgent  # type: ignore[import-untyped]
from rlcard.games.gin_rummy.game import GinRummyGame  # type: ignore[import-untyped]

# --- ginref -----------------------------------------------------------------------------------


def ginref_random_hands(n: int, seed: int) -> None:
    """Play ``n`` complete hands of the ginref engine with uniformly random legal actions.

    Matches of the ``standard`` rules profile (``referee.engine.Match``), the first seeded with
    ``seed`` and each next one with the next integer; a ``random.Random(seed)`` picks uniformly
    among ``Match.legal_actions()`` and ``Match.apply`` carries it out, until ``n`` hands have
    finished in total (finished hands are counted by ``len(match.hand_results)``).
    """
    from referee.engine.match import Match
    from referee.engine.rules import Rules

    rules = Rules.profile("standard")
    rng = random.Random(seed)
    choice = rng.choice
    done = 0
    match_seed = seed
    while done < n:
        match = Match(rules, match_seed)
        match_seed += 1
        while match.result is None and done + len(match.hand_results) < n:
            match.apply(choice(match.legal_actions()))
        done += len(match.hand_results)


def ginref_group_random_hands(n: int, seed: int, players: int) -> None:
    """As :func:`ginref_random_hands`, with ``players`` 3 (R10.1) or 4 (R10.2).

    ``GroupMatch`` under ``standard`` with ``players`` set, the same random policy over
    ``GroupMatch.legal_actions()``; finished hands are counted by ``len(match.hand_results)``
    (with partnerships both hands of a round count once the round is over).
    """
    from referee.engine.group import GroupMatch
    from referee.engine.rules import Rules

    rules = Rules.profile("standard", players=players)
    rng = random.Random(seed)
    choice = rng.choice
    done = 0
    match_seed = seed
    while done < n:
        match = GroupMatch(rules, match_seed)
        match_seed += 1
        while match.result is None and done + len(match.hand_results) < n:
            match.apply(choice(match.legal_actions()))
        done += len(match.hand_results)


# --- OpenSpiel --------------------------------------------------------------------------------

_OS_GAME = pyspiel.load_game("gin_rummy")


def openspiel_random_hands(n: int, seed: int) -> None:
    """Play ``n`` OpenSpiel gin_rummy games (each one hand) with random actions and outcomes."""
    rng = random.Random(seed)
    choice = rng.choice
    for _ in range(n):
        state = _OS_GAME.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcome, _prob = choice(state.chance_outcomes())
                state.apply_action(outcome)
            else:
                state.apply_action(choice(state.legal_actions()))


# --- RLCard -----------------------------------------------------------------------------------


def rlcard_game_random_hands(n: int, seed: int) -> None:
    """Play ``n`` RLCard gin-rummy games (each one hand) on the game object, random actions."""
    rng = random.Random(seed)
    choice = rng.choice
    game = GinRummyGame()
    game.np_random = np.random.RandomState(seed)  # the deal and the first dealer
    for _ in range(n):
        game.init_game()
        while not game.is_over():
            game.step(choice(game.judge.get_legal_actions()))


_RL_ENV = rlcard.make("gin-rummy", config={"seed": 0})
_RL_ENV.set_agents([RandomAgent(num_actions=_RL_ENV.num_actions) for _ in range(2)])


def rlcard_env_random_hands(n: int, seed: int) -> None:
    """Play ``n`` RLCard hands through ``env.run()`` with two ``RandomAgent``s."""
    _RL_ENV.seed(seed)  # the deal
    np.random.seed(seed)  # RandomAgent draws from numpy's global generator
    for _ in range(n):
        _RL_ENV.run(is_training=False)


# --- Harness ----------------------------------------------------------------------------------


def interleaved_rates(
    plays: dict[str, Callable[[int, int], None]], n: int, rounds: int, seed: int
) -> dict[str, list[float]]:
    """Hands per second of every engine, round by round, the engines taking turns each round.

    Interleaving means a burst of load from elsewhere on the machine slows every engine's round
    alike, so per-round ratios stay meaningful on a noisy machine.
    """
    rates: dict[str, list[float]] = {name: [] for name in plays}
    for k in range(rounds):
        for name, play in plays.items():
            start = time.perf_counter()
            play(n, seed + k)
            rates[name].append(n / (time.perf_counter() - start))
    return rates


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Random self-play: complete hands per second.")
    parser.add_argument("--hands", type=int, default=300, help="hands per round and engine")
    parser.add_argument("--rounds", type=int, default=7, help="timed rounds (median reported)")
    parser.add_argument("--seed", type=int, default=1, help="base seed")
    args = parser.parse_args(argv)
    n: int = args.hands
    rounds: int = args.rounds
    seed: int = args.seed

    engines: list[tuple[str, str, Callable[[int, int], None]]] = [
        ("ginref", "Match.legal_actions/apply", ginref_random_hands),
        ("OpenSpiel", "pyspiel state, from Python", openspiel_random_hands),
        ("RLCard", "GinRummyGame.step (engine)", rlcard_game_random_hands),
        ("RLCard env", "env.run + RandomAgent", rlcard_env_random_hands),
        ("ginref 3p", "GroupMatch, three players", partial(ginref_group_random_hands, players=3)),
        ("ginref 4p", "GroupMatch, partnerships", partial(ginref_group_random_hands, players=4)),
    ]
    for _, _, play in engines:
        play(2, seed)  # warm-up (imports, tables) outside the timing
    per_round = interleaved_rates({name: play for name, _, play in engines}, n, rounds, seed)
    rates = {name: statistics.median(r) for name, r in per_round.items()}

    def ratio(other: str) -> float:
        """Median over rounds of ours / other, each round measured back to back."""
        return statistics.median(
            a / b for a, b in zip(per_round["ginref"], per_round[other], strict=True)
        )

    print(
        f"random self-play, {n:,} hands per round, median of {rounds} rounds "
        f"(Python {platform.python_version()}, open-spiel {version('open-spiel')}, "
        f"rlcard {version('rlcard')})"
    )
    header = f"{'engine':<11} | {'driven by':<27} | {'hands/s':>9} | {'ours/this':>9}"
    print(header)
    print("-" * len(header))
    for name, how, _ in engines:
        r = rates[name]
        shown = "" if name == "ginref" else f"{ratio(name):.2f}x"
        print(f"{name:<11} | {how:<27} | {r:>9,.1f} | {shown:>9}")
    print(
        f"ratio ours/OpenSpiel = {ratio('OpenSpiel'):.2f}, "
        f"ours/RLCard (engine level, GinRummyGame.step) = {ratio('RLCard'):.2f} "
        "(medians of per-round ratios)"
    )


if __name__ == "__main__":
    main()
