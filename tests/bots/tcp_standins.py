"""Stand-ins for the test of a bot with ``transport = "tcp"`` (tests/bots/test_tcp_forwarder.py),
run inside its sandbox.

Usage: ``python tcp_standins.py MODE [ARGS...]``. As the bot:

  probe COMMAND...  print whether 127.0.0.1:50051 accepts a connection now, then become COMMAND

As the forwarder (``referee.bots.sandbox.FORWARDER``, socat's arguments after MODE):

  slow ARGS...      a forwarder slow to start: wait a second, then become socat with ARGS
  broken ARGS...    one that cannot listen: say so as socat would, exit with code 3
  silent ARGS...    one that never listens and never exits
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import time

PORT = 50051  # referee.bots.sandbox.TCP_PORT_IN_SANDBOX
SLOW_SECONDS = 1.0  # a forwarder this slow lost the race to a bot started beside it


def main(mode: str, rest: list[str]) -> None:
    if mode == "probe":
        try:
            socket.create_connection(("127.0.0.1", PORT), timeout=5).close()
            print("PROBE: the port accepted at the bot's start", flush=True)
        except OSError as exc:
            print(f"PROBE: the port refused at the bot's start: {exc}", flush=True)
        os.execv(rest[0], rest)
    elif mode == "slow":
        time.sleep(SLOW_SECONDS)  # the slowness simulated, not a synchronisation
        os.execvp("socat", ["socat", *rest])
    elif mode == "broken":
        print("socat[2] E bind(5, {AF=2 127.0.0.1:50051}, 16): stand-in refusal", file=sys.stderr)
        sys.exit(3)
    elif mode == "silent":
        while True:
            signal.pause()
    sys.exit(f"tcp_standins.py: unknown mode {mode!r}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
