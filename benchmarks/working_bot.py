"""An honest bot that works for its decisions: ``python benchmarks/working_bot.py MS`` spends
MS milliseconds of its own CPU on each decision (counted with ``time.process_time``, so a bot
starved of CPU takes longer by the clock), then plays as ``sample_bots.greedy_bot``."""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sample_bots import greedy_bot
from sample_bots.client import pb, run_bot


def main() -> int:
    work = float(sys.argv[1]) / 1000 if len(sys.argv) > 1 else 0.02

    def decide(request: pb.DecisionRequest) -> pb.Action:
        end = time.process_time() + work
        while time.process_time() < end:
            pass
        action: pb.Action = greedy_bot.decide(request)
        return action

    return run_bot(decide, "working", "1.0")


if __name__ == "__main__":
    sys.exit(main())
