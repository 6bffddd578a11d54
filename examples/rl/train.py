"""Train the linear policy of ``linear.py`` against the random bot, by REINFORCE with a
baseline, in ``GinRummyBatch`` (numpy alone).

::

    python examples/rl/train.py --seed 1

Seat 0 of each of ``--games`` standard matches is the policy, seat 1 a uniformly random legal
action (what ``sample_bots.random_bot`` plays). A decision's return is what followed it in its
hand: the deadwood the policy shed and the hand's points (``reward="hand"``), see
:class:`Episodes`. Each iteration plays ``--steps`` steps of every game, then takes one Adam
step along the policy gradient with the iteration's mean return as the baseline.
It prints, every iteration, how the policy fares against its training opponent, and writes the
weights at the end (``--out``, default ``weights.npz`` beside this file, where ``policy.py``
reads them).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent))  # linear.py, run from anywhere

from linear import Floats, Weights, best, probabilities, sample, save, zeros

from ginref_rl.batched import Batch, GinRummyBatch
from ginref_rl.encoding import PHASE, PHASE_INDEX, STOCK
from referee.engine.melds import min_deadwood, min_deadwood_after_discard
from referee.engine.outcomes import Phase

HERE = Path(__file__).resolve().parent
ME = 0  # the policy's seat in every game
DRAW = PHASE + PHASE_INDEX[Phase.DRAW]  # the draw phase's entry of the observation
Int8s = npt.NDArray[np.int8]


@dataclass
class Tally:
    """How the policy fared over some steps: hands, points and matches, from its side."""

    hands_won: int = 0
    hands_lost: int = 0
    points: float = 0.0  # its hand points minus its opponent's
    matches_won: int = 0
    matches: int = 0
    deadwood: int = 0  # summed over its draws (ten cards in hand)
    draws: int = 0

    @property
    def mean_deadwood(self) -> float:
        return self.deadwood / max(self.draws, 1)

    def line(self) -> str:
        hands = self.hands_won + self.hands_lost
        won = f"{100 * self.hands_won / hands:5.1f}%" if hands else "    -"
        return (
            f"matches won {self.matches_won:2d}/{self.matches:<2d}  hands won {won} of "
            f"{hands:3d} scored  points {self.points:+6.0f}  "
            f"deadwood at a draw {self.mean_deadwood:4.1f}"
        )


def deadwood(observation: Floats) -> int:
    """The least deadwood of the hand in ``observation`` (with 11 cards: after its best
    discard), from the hand's 52 entries."""
    cards = np.flatnonzero(observation[:52]).tolist()
    return min_deadwood_after_discard(cards) if len(cards) == 11 else min_deadwood(cards)


@dataclass
class Episodes:
    """Each game's decisions of the hand in play, until the hand's return is known.

    A decision's return is what followed it in its hand, each of the policy's later decisions
    discounted by ``gamma``: the deadwood it shed until its next decision (per 10 points), and
    at the hand's end the hand's points to it (per 25). The deadwood makes every hand teach,
    the dead ones too: against the random bot few hands end in a knock at first.
    """

    n: int
    gamma: float = 0.8
    open: list[list[tuple[Floats, Int8s, int, int]]] = field(default_factory=list)
    stock: list[float] = field(default_factory=list)  # the stock the policy last saw, by game
    done: list[tuple[Floats, Int8s, int, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.open = [[] for _ in range(self.n)]
        self.stock = [0.0] * self.n

    def close(self, game: int, points: float) -> None:
        """The hand in play in ``game`` scored ``points`` to the policy."""
        hand = self.open[game]
        ret = points / 25.0
        for t in range(len(hand) - 1, -1, -1):
            observation, mask, action, dw = hand[t]
            shed = (dw - hand[t + 1][3]) / 10.0 if t + 1 < len(hand) else 0.0
            ret = shed + self.gamma * ret
            self.done.append((observation, mask, action, ret))
        self.open[game] = []

    def decide(self, game: int, observation: Floats, mask: Int8s, action: int) -> None:
        # A stock larger than the last one this seat saw is a new hand: the last one ended
        # without a reward to it (a dead hand, a push), which scored 0.
        if observation[STOCK] > self.stock[game]:
            self.close(game, 0.0)
        self.stock[game] = float(observation[STOCK])
        self.open[game].append((observation, mask, action, deadwood(observation)))


def random_actions(masks: Int8s, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """A uniformly random legal action in each row: the random sample bot's play."""
    out: npt.NDArray[np.int64] = np.argmax(rng.random(masks.shape) * masks, axis=1)
    return out


def play(
    batch: GinRummyBatch,
    b: Batch,
    choose: Callable[[Floats, Int8s], npt.NDArray[np.int64]],
    steps: int,
    rng: np.random.Generator,
    episodes: Episodes | None = None,
) -> tuple[Batch, Tally]:
    """Play ``steps`` steps of every game, the policy's actions from ``choose(obs, masks)``
    (rows of seat ``ME``), the opponent's random; record the policy's decisions in
    ``episodes``."""
    tally = Tally()
    for _ in range(steps):
        actions = random_actions(b.action_masks, rng)
        mine = np.flatnonzero(b.to_act == ME)
        for i in mine[b.observations[mine, DRAW] == 1].tolist():  # its draws
            tally.deadwood += deadwood(b.observations[i])
            tally.draws += 1
        if len(mine):
            chosen = choose(b.observations[mine], b.action_masks[mine])
            actions[mine] = chosen
            if episodes is not None:
                for i, a in zip(mine.tolist(), np.asarray(chosen).tolist(), strict=True):
                    episodes.decide(i, b.observations[i], b.action_masks[i], a)
        b = batch.step(actions)
        for i in np.flatnonzero(b.rewards[:, ME] != 0).tolist():
            r = float(b.rewards[i, ME])
            tally.hands_won += r > 0
            tally.hands_lost += r < 0
            tally.points += r
            if episodes is not None:
                episodes.close(i, r)
        for i, result in batch.results.items():
            tally.matches += 1
            tally.matches_won += result.winner == ME
            if episodes is not None:
                episodes.close(i, float(b.rewards[i, ME]))  # the new match's first hand next
    return b, tally


@dataclass
class Adam:
    """Adam over the weights (ascent: the gradient is of the expected return)."""

    lr: float
    m: list[Floats] = field(default_factory=list)
    v: list[Floats] = field(default_factory=list)
    t: int = 0

    def step(self, weights: Weights, grads: Sequence[Floats]) -> Weights:
        if not self.m:
            self.m = [np.zeros_like(g) for g in grads]
            self.v = [np.zeros_like(g) for g in grads]
        self.t += 1
        out = []
        for k, (p, g) in enumerate(zip(weights, grads, strict=True)):
            self.m[k] = 0.9 * self.m[k] + 0.1 * g
            self.v[k] = 0.999 * self.v[k] + 0.001 * g * g
            m = self.m[k] / (1 - 0.9**self.t)
            v = self.v[k] / (1 - 0.999**self.t)
            out.append((p + self.lr * m / (np.sqrt(v) + 1e-8)).astype(np.float32))
        return Weights(*out)


def gradient(weights: Weights, samples: list[tuple[Floats, Int8s, int, float]]) -> list[Floats]:
    """REINFORCE: the mean of (return - baseline) * d log pi(action) over ``samples``, the
    baseline their mean return, the advantages scaled to unit spread."""
    obs = np.stack([s[0] for s in samples])
    masks = np.stack([s[1] for s in samples])
    actions = np.array([s[2] for s in samples])
    returns = np.array([s[3] for s in samples], np.float32)
    advantage = returns - returns.mean()
    advantage /= advantage.std() + 1e-6
    # d log softmax / d logits = one_hot(action) - p, over the legal actions.
    d = -probabilities(weights, obs, masks)
    d[np.arange(len(actions)), actions] += 1.0
    d *= advantage[:, None] / len(samples)
    return [(obs.T @ d).astype(np.float32), d.sum(axis=0).astype(np.float32)]


def train(
    seed: int,
    iterations: int,
    games: int = 32,
    steps: int = 100,
    lr: float = 0.01,
    log: bool = True,
) -> Weights:
    """The weights after ``iterations`` updates from zero, every deal and choice from
    ``seed``."""
    rng = np.random.default_rng(seed)
    batch = GinRummyBatch(games, "standard")
    b = batch.reset(seed=seed * 100_000)
    weights, adam = zeros(), Adam(lr)
    episodes = Episodes(games)
    start = time.perf_counter()
    for k in range(1, iterations + 1):
        b, tally = play(batch, b, partial(sample, weights, rng=rng), steps, rng, episodes)
        if episodes.done:
            weights = adam.step(weights, gradient(weights, episodes.done))
            episodes.done = []
        if log:
            print(f"iteration {k:3d}  {tally.line()}  {time.perf_counter() - start:6.1f} s")
    return weights


def evaluate(weights: Weights, seed: int, games: int = 64, steps: int = 400) -> Tally:
    """How ``weights`` played as ``policy.py`` plays (its most likely action) against the random
    bot over a fixed set of deals and opponent choices: the same ``seed``, the same games."""
    rng = np.random.default_rng(seed)
    batch = GinRummyBatch(games, "standard")
    b = batch.reset(seed=seed)
    _, tally = play(batch, b, lambda o, m: best(weights, o, m, rng), steps, rng)
    return tally


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=150, help="0: the untrained policy")
    parser.add_argument("--games", type=int, default=32, help="matches played side by side")
    parser.add_argument("--steps", type=int, default=100, help="steps of each game an update")
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--out", type=Path, default=HERE / "weights.npz")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    weights = train(args.seed, args.iterations, args.games, args.steps, args.lr)
    took = time.perf_counter() - start
    save(args.out, weights, seed=args.seed, iterations=args.iterations)
    print(f"trained in {took:.1f} s; wrote {args.out}")
    print(f"evaluation, 64 games x 400 steps against random: {evaluate(weights, 7).line()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
