"""The greedy sample bot under a hostile name, held mid-match on a test's word: for the live
page's tests.

Usage: ``python tests/support/named_bot.py [HOLD GATE]`` with the referee's launch environment.
Its Hello says :data:`NAME` and :data:`VERSION`, markup a spectator's page must show as text.
Given ``HOLD`` and ``GATE`` (an existing directory, which the sandbox shows the bot read only as
one of its own), it answers its ``HOLD``-th decision request of the process (of its match: a
fresh process plays one) only once ``GATE`` holds a file named :data:`OPEN`: until the test
writes it, its match is held in progress, its log and what a spectator sees of it unchanged,
whatever the machine's speed.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from referee.wire import ginrummy_pb2 as pb
from sample_bots.client import run_bot
from sample_bots.greedy_bot import decide

NAME = '<script>document.title="pwned"</script>'
VERSION = '<img src=x onerror="window.pwned=1">'
OPEN = "open"
LOOK_S = 0.01  # how often a held bot looks for the gate's file (no inotify in the sandbox)


def main() -> int:
    """Play with the launch environment; return the exit code."""
    hold = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    gate = Path(sys.argv[2]) / OPEN if len(sys.argv) > 2 else None
    asked = 0

    def held(request: pb.DecisionRequest) -> pb.Action:
        nonlocal asked
        asked += 1
        while asked == hold and gate is not None and not gate.exists():
            time.sleep(LOOK_S)
        return decide(request)

    return run_bot(held, NAME, VERSION)


if __name__ == "__main__":
    sys.exit(main())
