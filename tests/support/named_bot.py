"""The greedy sample bot under a hostile name, at a pace of its own: for the live page's tests.

Usage: ``python tests/support/named_bot.py [PAUSE_S]`` with the referee's launch environment.
Its Hello says :data:`NAME` and :data:`VERSION`, markup a spectator's page must show as text;
it waits ``PAUSE_S`` seconds (default 0) before each answer, so that a match lasts at least
that long per decision whatever the machine's speed, and a test can watch it in progress.
"""

from __future__ import annotations

import sys
import time

from referee.wire import ginrummy_pb2 as pb
from sample_bots.client import run_bot
from sample_bots.greedy_bot import decide

NAME = '<script>document.title="pwned"</script>'
VERSION = '<img src=x onerror="window.pwned=1">'


def main() -> int:
    """Play with the launch environment; return the exit code."""
    pause = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0

    def slow(request: pb.DecisionRequest) -> pb.Action:
        time.sleep(pause)
        return decide(request)

    return run_bot(slow, NAME, VERSION)


if __name__ == "__main__":
    sys.exit(main())
