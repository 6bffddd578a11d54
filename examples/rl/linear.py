"""The worked example's policy: one linear layer from the observation array to the 112
actions' logits, a softmax over the legal ones. Shared by ``train.py`` and ``policy.py``.

With every weight 0 (untrained) every legal action has the same logit, so the policy plays as
the random sample bot: a uniformly random legal action.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

# ginref_rl.encoding.size(2) and ginref_rl.actions.NUM_ACTIONS, written out: policy.py needs
# numpy alone to load and play.
FEATURES = 273
ACTIONS = 112

Floats = npt.NDArray[np.float32]


class Weights(NamedTuple):
    """``logits = observation @ w + b``."""

    w: Floats  # (FEATURES, ACTIONS)
    b: Floats  # (ACTIONS,)


def zeros() -> Weights:
    """The untrained policy: uniform over the legal actions."""
    return Weights(np.zeros((FEATURES, ACTIONS), np.float32), np.zeros(ACTIONS, np.float32))


def save(path: Path, weights: Weights, **meta: int) -> None:
    """Write ``weights`` (and how they were trained, e.g. ``seed=``) as a compressed .npz."""
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays: dict[str, Any] = {"w": weights.w, "b": weights.b}
    arrays.update({k: np.int64(v) for k, v in meta.items()})
    np.savez_compressed(path, **arrays)


def load(path: Path) -> Weights:
    """The weights ``save`` wrote; ``ValueError`` for a file of another shape."""
    with np.load(path) as data:
        weights = Weights(data["w"].astype(np.float32), data["b"].astype(np.float32))
    if weights.w.shape != (FEATURES, ACTIONS) or weights.b.shape != (ACTIONS,):
        raise ValueError(f"{path}: weights of shape {weights.w.shape}, not {(FEATURES, ACTIONS)}")
    return weights


def legal_logits(weights: Weights, observations: Floats, masks: npt.NDArray[np.int8]) -> Floats:
    """Each row's logits, -inf for the actions its mask forbids (rows: observations and their
    masks)."""
    logits: Floats = np.where(masks > 0, observations @ weights.w + weights.b, -np.inf)
    return logits


def probabilities(weights: Weights, observations: Floats, masks: npt.NDArray[np.int8]) -> Floats:
    """The softmax over each row's legal actions."""
    logits = legal_logits(weights, observations, masks)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    out: Floats = p / p.sum(axis=1, keepdims=True)
    return out


def best(
    weights: Weights,
    observations: Floats,
    masks: npt.NDArray[np.int8],
    rng: np.random.Generator,
) -> npt.NDArray[np.int64]:
    """Each row's most likely legal action, ties broken at random (so the untrained policy is
    the random bot, and a trained one plays its most likely action rather than a sample)."""
    logits = legal_logits(weights, observations, masks)
    top = logits >= logits.max(axis=1, keepdims=True)
    out: npt.NDArray[np.int64] = np.argmax(rng.random(top.shape) * top, axis=1)
    return out


def sample(
    weights: Weights,
    observations: Floats,
    masks: npt.NDArray[np.int8],
    rng: np.random.Generator,
) -> npt.NDArray[np.int64]:
    """An action drawn from each row's softmax over its legal actions (the Gumbel-max trick:
    never an illegal one, whatever the rounding)."""
    noisy = legal_logits(weights, observations, masks) + rng.gumbel(size=masks.shape)
    out: npt.NDArray[np.int64] = np.argmax(noisy, axis=1)
    return out
