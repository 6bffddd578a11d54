"""The worked example of docs/research.md (examples/rl): a few iterations of training from a
fixed seed improve the policy on a fixed set of deals, its weights load, the policy it plays
answers legal actions, and it plays a real match through the policy bot."""

from __future__ import annotations

import importlib
import importlib.util
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from ginref_rl.batched import GinRummyBatch
from tests.support.match_runs import played_match

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "rl"


@pytest.fixture(scope="module")
def example() -> Iterator[tuple[ModuleType, ModuleType]]:
    """``train`` and ``linear``, imported as the example's scripts import each other."""
    sys.path.insert(0, str(EXAMPLE))
    try:
        yield importlib.import_module("train"), importlib.import_module("linear")
    finally:
        sys.path.remove(str(EXAMPLE))


@pytest.fixture(scope="module")
def trained(example: tuple[ModuleType, ModuleType]) -> Any:
    train, _ = example
    return train.train(seed=3, iterations=8, games=16, steps=60, log=False)


def test_training_sheds_deadwood_on_a_fixed_set_of_deals(
    example: tuple[ModuleType, ModuleType], trained: Any
) -> None:
    """Both policies play the same 16 matches (the same deals, the same random opponent)
    for 200 steps, about 780 of their draws each. Untrained, its hand holds about 56 points
    of deadwood at a draw (as the random bot's); after 8 updates about 46. A draw's
    deadwood spreads by about 15 points, so the two means differ by about 14 standard errors:
    the bound below, half the gap, does not rest on chance (and the run is seeded: it is the
    same every time)."""
    train, linear = example
    before = train.evaluate(linear.zeros(), seed=11, games=16, steps=200)
    after = train.evaluate(trained, seed=11, games=16, steps=200)
    assert before.draws > 700 and after.draws > 700
    assert before.mean_deadwood > 50
    assert after.mean_deadwood < before.mean_deadwood - 5


def test_the_weights_load_and_the_policy_answers_legal_actions(
    example: tuple[ModuleType, ModuleType], trained: Any, tmp_path: Path
) -> None:
    _, linear = example
    for name in ("linear.py", "policy.py"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    linear.save(tmp_path / "weights.npz", trained, seed=3, iterations=8)
    loaded = linear.load(tmp_path / "weights.npz")
    assert all(np.array_equal(a, b) for a, b in zip(loaded, trained, strict=True))
    spec = importlib.util.spec_from_file_location("worked_policy", tmp_path / "policy.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    batch = GinRummyBatch(8, "standard")
    b = batch.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(300):
        actions = [module.policy(o, m) for o, m in zip(b.observations, b.action_masks, strict=True)]
        assert all(b.action_masks[i, a] == 1 for i, a in enumerate(actions))
        # The policy at seat 0, the random bot's play at seat 1: positions of both kinds.
        random = np.argmax(rng.random(b.action_masks.shape) * b.action_masks, axis=1)
        b = batch.step(np.where(b.to_act == 0, actions, random))


def test_weights_of_another_shape_are_refused(
    example: tuple[ModuleType, ModuleType], tmp_path: Path
) -> None:
    _, linear = example
    np.savez(tmp_path / "w.npz", w=np.zeros((10, 112)), b=np.zeros(112))
    with pytest.raises(ValueError, match="not \\(273, 112\\)"):
        linear.load(tmp_path / "w.npz")


@pytest.mark.slow
def test_the_trained_policy_plays_a_real_match_through_the_policy_bot(
    example: tuple[ModuleType, ModuleType], trained: Any, tmp_path: Path
) -> None:
    """As the worked example's command runs it, in the sandbox: the weights beside the
    policy's file, which the command names (here a copy of the example's folder)."""
    _, linear = example
    folder = tmp_path / "rl"
    folder.mkdir()
    for name in ("linear.py", "policy.py"):
        shutil.copy(EXAMPLE / name, folder / name)
    linear.save(folder / "weights.npz", trained, seed=3, iterations=8)
    bot = f"{{python}} -m ginref_rl.policy_bot {folder}/policy.py:policy"
    greedy = "{python} -m sample_bots.greedy_bot"
    played_match([bot, greedy, "--seed", "4", "--set", "target=30"], tmp_path / "out")
