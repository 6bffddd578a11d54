"""N matches stepped together: observations, masks, rewards and dones as numpy arrays.

::

    import numpy as np
    from ginref_rl.batched import GinRummyBatch

    batch = GinRummyBatch(256, "standard")   # players=3 or 4 too; reward= as the environment
    b = batch.reset(seed=7)                  # game i is seeded 7 + i
    rng = np.random.default_rng(0)
    for _ in range(1000):
        # A random legal index in each game: any policy over (observations, action_masks).
        actions = np.argmax(rng.random(b.action_masks.shape) * b.action_masks, axis=1)
        b = batch.step(actions)

Each game's row is what its seat to act (``b.to_act``) sees, in the array form of
:mod:`ginref_rl.encoding`, and that seat's mask. ``b.rewards`` holds every seat's reward for the
step (``(N, players)``: a hand's points reach the seats that did not act too), and ``b.dones``
the games whose match the step ended; such a game is dealt its next match at once (the next seed
of its stream, as the environment's ``reset()`` without a seed), so its row is already the new
match's first position, and :attr:`GinRummyBatch.results` holds the result of the match that
ended. Game ``i`` plays exactly as a :class:`~ginref_rl.environment.GinRummyEnv` reset with
game ``i``'s seed and given the same actions would.

Needs numpy alone, not PettingZoo.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ginref_rl.actions import NUM_ACTIONS
from ginref_rl.encoding import (
    JOIN,
    FloatArray,
    Int8Array,
    Reading,
    encode_parts,
    encode_rows,
    read,
    size,
)
from ginref_rl.episode import Episode, Reward, rules_of
from referee.engine.outcomes import MatchResult
from referee.engine.rules import Rules

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
_FLOAT32 = np.dtype(np.float32)
_INT8 = np.dtype(np.int8)
# From this many games on, the observations are written column by column (encode_rows): the
# numpy calls of a column cost more than a few games' rows of bytes, and less than many.
BY_COLUMNS = 64


class Batch(NamedTuple):
    """The batch after a reset or a step; row ``i`` is game ``i``."""

    observations: FloatArray  # (N, size(players)): the seat to act's array form
    action_masks: Int8Array  # (N, 112): its legal indices
    to_act: IntArray  # (N,): the seat to act
    rewards: FloatArray  # (N, players): every seat's reward for the step (0 after a reset)
    dones: BoolArray  # (N,): the step ended the game's match (the row is the next match)


class GinRummyBatch:
    """``n`` matches under ``rules``, stepped together (see the module docstring)."""

    def __init__(
        self,
        n: int,
        rules: Rules | str = "standard",
        *,
        players: int | None = None,
        reward: Reward = "hand",
    ) -> None:
        if n < 1:
            raise ValueError(f"a batch holds one game or more, not {n}")
        self.rules = rules_of(rules, players)
        self.n = n
        self.players = self.rules.players
        self.size = size(self.players)
        self.episodes = [Episode(self.rules, reward) for _ in range(n)]
        self.results: dict[int, MatchResult] = {}  # game -> the match its last step ended

    def reset(self, seed: int | Sequence[int] | None = None) -> Batch:
        """Deal every game a match: game ``i`` seeded ``seed + i`` (or ``seed[i]``); without a
        seed, each game's next seed."""
        if seed is None:
            seeds: Sequence[int | None] = [None] * self.n
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(self.n)]
        else:
            seeds = list(seed)
            if len(seeds) != self.n:
                raise ValueError(f"{len(seeds)} seeds for a batch of {self.n} games")
        for episode, s in zip(self.episodes, seeds, strict=True):
            episode.reset(s)
        self.results = {}
        return self._batch(np.zeros((self.n, self.players), np.float32), np.zeros(self.n, bool))

    def step(self, actions: npt.ArrayLike) -> Batch:
        """Play ``actions[i]`` (an index of the action space) in game ``i``.

        Raises ``ValueError`` naming the first game whose action is not legal; the games
        before it have played theirs.
        """
        chosen = np.asarray(actions).tolist()
        if len(chosen) != self.n:
            raise ValueError(f"{len(chosen)} actions for a batch of {self.n} games")
        rewards = np.zeros((self.n, self.players), np.float32)
        dones = np.zeros(self.n, bool)
        self.results = {}
        for i, (episode, index) in enumerate(zip(self.episodes, chosen, strict=True)):
            try:
                played = episode.play(int(index))
            except ValueError as exc:
                raise ValueError(f"game {i}: {exc}") from None
            if played.rewards is None:
                continue
            rewards[i] = played.rewards
            if played.result is not None:
                dones[i] = True
                self.results[i] = played.result
                episode.reset()
        return self._batch(rewards, dones)

    def _batch(self, rewards: FloatArray, dones: BoolArray) -> Batch:
        readings: list[Reading] = []
        masks: list[bytes] = []
        to_act: list[int] = []
        for episode in self.episodes:
            game = episode.game or episode.started()
            seat = game.to_act
            assert seat is not None  # a finished match was replaced by the next one
            readings.append(read(game, seat))
            masks.append(episode._mask or episode.mask())
            to_act.append(seat)
        n = self.n
        if n >= BY_COLUMNS:
            observations = encode_rows(readings, self.players)
        else:  # every row's pieces joined at once into the batch's array: no buffer per game
            parts = [piece for r in readings for piece in encode_parts(r)]
            observations = np.frombuffer(JOIN(parts), _FLOAT32).reshape(n, self.size)
        return Batch(
            observations,
            np.frombuffer(JOIN(masks), _INT8).reshape(n, NUM_ACTIONS),
            np.array(to_act, dtype=np.int64),
            rewards,
            dones,
        )
