"""The random bot: answers every request with a uniformly random entry of ``legal_actions``.

Knocks and big gin are sent back as listed, without an arrangement, so the referee arranges them
(R5.4). Set ``GINREF_BOT_SEED`` to an integer for a reproducible sequence of choices; otherwise
the bot seeds itself from the operating system.

Run with ``python -m sample_bots.random_bot`` (the referee sets the launch environment).
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Mapping

from sample_bots.client import EXIT_CONFIG, Decide, pb, run_bot

NAME = "random-bot"
VERSION = "1.0.0"
ENV_SEED = "GINREF_BOT_SEED"


def make_decide(seed: int | None = None) -> Decide:
    """A random policy; the same ``seed`` gives the same choices for the same requests."""
    rng = random.Random(seed)

    def decide(request: pb.DecisionRequest) -> pb.Action:
        choice: pb.Action = rng.choice(request.legal_actions)
        return choice

    return decide


def seed_from_env(environ: Mapping[str, str] | None = None) -> int | None:
    """The seed in ``GINREF_BOT_SEED``, or ``None`` if unset; raises ValueError if malformed."""
    env = os.environ if environ is None else environ
    text = env.get(ENV_SEED, "").strip()
    if not text:
        return None
    try:
        return int(text, 0)
    except ValueError:
        raise ValueError(f"{ENV_SEED}={text!r}: expected an integer") from None


def main() -> int:
    """Play with the launch environment; return the exit code."""
    try:
        seed = seed_from_env()
    except ValueError as exc:
        print(f"{NAME}: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    return run_bot(make_decide(seed), NAME, VERSION)


if __name__ == "__main__":
    sys.exit(main())
