"""Gin Rummy for reinforcement learning: a PettingZoo environment over ginref's engine, its
fixed observation and action encodings, and a bot process for any policy.

The environment needs the ``rl`` extra (``pip install ginref[rl]``: PettingZoo and
Gymnasium); the encodings and the policy bot need only numpy, so a trained policy enters a
tournament with the plain install. Layout of observations and actions: :mod:`ginref_rl.encoding`,
:mod:`ginref_rl.actions`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ginref_rl.environment import GinRummyEnv, env

_EXPORTS = {"GinRummyEnv": "ginref_rl.environment", "env": "ginref_rl.environment"}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ginref_rl' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = ["GinRummyEnv", "env"]
