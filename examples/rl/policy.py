"""The trained linear policy as ``policy(observation, action_mask) -> int``, for
``python -m ginref_rl.policy_bot examples/rl/policy.py:policy``.

It reads ``weights.npz`` beside this file (``train.py`` writes it) when it is imported, so a
missing file is the policy bot's one line and exit 2 rather than a fault in the first hand.
It plays its most likely legal action (the untrained policy, all weights 0: a random one).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent))  # linear.py, whatever imports this

from linear import best, load

WEIGHTS = Path(__file__).resolve().parent / "weights.npz"
if not WEIGHTS.is_file():
    raise FileNotFoundError(f"no weights at {WEIGHTS}: run python examples/rl/train.py first")
_weights = load(WEIGHTS)
# Ties (only the untrained policy has them) broken by a fixed stream: a match replays alike.
_rng = np.random.default_rng(0)


def policy(observation: npt.NDArray[np.float32], action_mask: npt.NDArray[np.int8]) -> int:
    """The index of the policy's most likely legal action."""
    return int(best(_weights, observation[None, :], action_mask[None, :], _rng)[0])
