"""The look-ahead bots start without numpy: a bot's start-up counts against its match's, and
they only convert actions with the policy bot's functions, never encode (ginref_rl/policy_bot.py
imports the encoding where it encodes)."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    "bot",
    [
        "ginref_rl.reference_bot",
        "ginref_rl.strong_bot",
        "sample_bots.greedy_bot",
        "sample_bots.random_bot",
    ],
)
def test_a_bot_that_does_not_encode_starts_without_numpy(bot: str) -> None:
    # A fresh interpreter: what this test process has imported says nothing.
    code = f"import sys, {bot}; print(sorted(m for m in ('numpy', 'scipy') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_policy_bot_still_encodes_with_numpy() -> None:
    # The other side: the encoding is there once a policy is asked.
    code = (
        "import sys\n"
        "from ginref_rl.policy_bot import policy_decide\n"
        "policy_decide(lambda observation, mask: 0)\n"
        "print('numpy' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"
