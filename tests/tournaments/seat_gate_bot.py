"""The greedy sample bot, held mid-match on a test's word, seat by seat: for the live page's
tests of which tables it shows.

Usage: ``python tests/tournaments/seat_gate_bot.py HOLD GATE`` with the referee's launch
environment. It answers its ``HOLD``-th decision request of the process (of its match: a fresh
process plays one) only once the directory ``GATE`` (shown to the bot read only, as one of its
own) holds a file named ``open-<seat>``, its seat in the match: a test lets the two matches of a
duplicate pair (the seats swapped) go on one at a time, whatever the machine's speed.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from referee.wire import ginrummy_pb2 as pb
from sample_bots.client import run_bot
from sample_bots.greedy_bot import decide

LOOK_S = 0.01  # how often a held bot looks for its file (no inotify in the sandbox)


def opener(seat: int) -> str:
    """The file that lets the bot in ``seat`` go on."""
    return f"open-{seat}"


def main() -> int:
    """Play with the launch environment; return the exit code."""
    hold, gate = int(sys.argv[1]), Path(sys.argv[2])
    asked = 0

    def held(request: pb.DecisionRequest) -> pb.Action:
        nonlocal asked
        asked += 1
        while asked == hold and not (gate / opener(request.observation.seat)).exists():
            time.sleep(LOOK_S)
        return decide(request)

    return run_bot(held, "seat-gate")


if __name__ == "__main__":
    sys.exit(main())
