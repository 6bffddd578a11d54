"""Policies for the policy bot's tests: ``policy(observation, action_mask) -> index``."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from ginref_rl.actions import DRAW_STOCK, KNOCK
from ginref_rl.encoding import SIZE

_rng = random.Random(7)


def knock_first(observation: Any, action_mask: Any) -> int:
    """Knock whenever it may (the highest knock card), else a random legal action.

    It checks what it is given, so a bot built on it fails (and its seat forfeits) if the arrays
    are ever not the environment's.
    """
    assert isinstance(observation, np.ndarray) and observation.shape == (SIZE,)
    assert observation.dtype == np.float32 and action_mask.dtype == np.int8
    legal = [int(i) for i in np.flatnonzero(action_mask)]
    assert legal, "a request with no legal action"
    knocks = [i for i in legal if KNOCK <= i < DRAW_STOCK]
    return knocks[-1] if knocks else _rng.choice(legal)


def from_dict(observation: Any, action_mask: Any) -> int:
    """The dict form: the first legal action, after checking the form's keys."""
    assert set(observation) >= {"hand", "discard_pile", "phase", "scores"}
    return int(np.flatnonzero(action_mask)[0])


NOT_CALLABLE = 3
