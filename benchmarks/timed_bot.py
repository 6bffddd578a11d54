"""A sample bot with a stopwatch around its decision function, for the tournament benchmark.

``python benchmarks/timed_bot.py greedy|random`` plays exactly like ``sample_bots.greedy_bot`` /
``sample_bots.random_bot`` (GINREF_BOT_SEED applies) and, when the referee ends its stream,
prints ``decide_seconds <total> <decisions>`` to stderr (the bot's output file), so the
benchmark can split the referee's measured round trip into the bot's own compute and the rest.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sample_bots import greedy_bot, random_bot
from sample_bots.client import pb, run_bot


def main() -> int:
    """Play as the chosen sample bot; report the time spent deciding."""
    which = sys.argv[1] if len(sys.argv) > 1 else "greedy"
    if which == "greedy":
        decide, name, version = greedy_bot.decide, greedy_bot.NAME, greedy_bot.VERSION
    else:
        seed = random_bot.seed_from_env()
        decide, name = random_bot.make_decide(seed), random_bot.NAME
        version = random_bot.VERSION
    total = [0.0, 0]

    def timed(request: pb.DecisionRequest) -> pb.Action:
        start = time.perf_counter()
        action = decide(request)
        total[0] += time.perf_counter() - start
        total[1] += 1
        return action

    code = run_bot(timed, name, version)
    print(f"decide_seconds {total[0]:.6f} {total[1]}", file=sys.stderr, flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
