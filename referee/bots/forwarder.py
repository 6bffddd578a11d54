"""The launcher of a bot with ``transport = "tcp"``, run inside its sandbox (after setpriv).

::

    python -I -S forwarder.py PORT SECONDS WORDS FORWARDER... BOT...

starts the forwarder (``WORDS`` words: socat, which listens on ``127.0.0.1:PORT`` and connects
each connection to the bot's Unix socket), waits until a socket of the sandbox's network
namespace listens on ``PORT``, then becomes the bot (exec, so the bot keeps the launcher's pid,
descriptors and exit status). A bot started before its forwarder listens finds the port
refused, and grpc-java then waits a reconnect backoff (1 s, 1.6 s, ...) before it tries again:
on a busy machine that backoff outlasted the connect timeout.

If the forwarder exits, or does not listen within ``SECONDS``, the bot is never started: the
launcher says why on stderr (the bot's output, after the forwarder's own messages) and exits
with :data:`FORWARDER_FAILED`, which the referee reads as "the forwarder failed"
(:func:`referee.bots.sandbox.forwarder_fault`).

It runs by its path with ``-I -S``, before the bot, under the bot's seccomp filter and limits:
the standard library only, nothing of ginref imported, and nothing left behind once it execs.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time
from collections.abc import Sequence

FORWARDER_FAILED = 121  # the launcher's exit status when the forwarder failed to listen
NOTE = "ginref: the TCP forwarder"  # how the launcher's last line begins when it did
# How often the launcher looks for the listening socket; it wakes at once if the forwarder exits.
POLL_SECONDS = 0.005
_TAIL_BYTES = 4096  # how much of the bot's output forwarder_fault reads
_TAIL_LINES = 3  # the forwarder's last lines that go into the fault
_LISTEN = "0A"  # the kernel's TCP_LISTEN, as /proc/net/tcp writes a socket's state


def listening(port: int, tables: Sequence[str] = ("/proc/net/tcp", "/proc/net/tcp6")) -> bool:
    """Whether a socket of this network namespace listens on TCP ``port`` (any address).

    Read from the kernel's tables rather than tried with a connection: a connection would reach
    the forwarder, which would open one to the referee for nothing."""
    wanted = f":{port:04X}"
    for table in tables:
        try:
            with open(table) as rows:
                next(rows, None)  # the header
                for row in rows:
                    fields = row.split()
                    if len(fields) > 3 and fields[1].endswith(wanted) and fields[3] == _LISTEN:
                        return True
        except OSError:
            continue  # no IPv6 in this kernel
    return False


def _exit_words(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            return f"was killed by {signal.Signals(number).name}"
        except ValueError:
            return f"was killed by signal {number}"
    return f"exited with code {os.waitstatus_to_exitcode(status)}"


def wait_listening(pid: int, port: int, seconds: float) -> str | None:
    """Wait until ``port`` listens, ``pid`` (the forwarder) exits or ``seconds`` pass; None when
    it listens, else why not, in words."""
    deadline = time.monotonic() + seconds
    try:
        pidfd: int | None = os.pidfd_open(pid)  # readable once the forwarder exits
    except OSError:  # a kernel before 5.3: its exit is seen at the next look instead
        pidfd = None
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return f"{_exit_words(status)} before it listened on 127.0.0.1:{port}"
            if listening(port):
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                # A forwarder that never listened must not stay behind the launcher.
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return f"did not listen on 127.0.0.1:{port} within {seconds:g} s"
            select.select([] if pidfd is None else [pidfd], [], [], min(POLL_SECONDS, left))
    finally:
        if pidfd is not None:
            os.close(pidfd)


def main(argv: Sequence[str]) -> int:
    """Start the forwarder, wait until it listens, become the bot; or say why not."""
    try:
        port, seconds, words = int(argv[0]), float(argv[1]), int(argv[2])
    except (IndexError, ValueError):
        print("usage: forwarder.py PORT SECONDS WORDS FORWARDER... BOT...", file=sys.stderr)
        return 2
    forwarder, bot = list(argv[3 : 3 + words]), list(argv[3 + words :])
    if len(forwarder) != words or not bot:
        print("usage: forwarder.py PORT SECONDS WORDS FORWARDER... BOT...", file=sys.stderr)
        return 2
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(forwarder[0], forwarder)
        except OSError as exc:
            os.write(2, f"ginref: cannot run {forwarder[0]}: {exc}\n".encode(errors="replace"))
        os._exit(127)
    problem = wait_listening(pid, port, seconds)
    if problem is not None:
        name = os.path.basename(forwarder[0])
        print(f"{NOTE} ({name}) {problem}; the bot was not started", file=sys.stderr)
        return FORWARDER_FAILED
    sys.stderr.flush()
    try:
        os.execvp(bot[0], bot)
    except OSError as exc:
        print(f"ginref: cannot run {bot[0]}: {exc}", file=sys.stderr)
    return 127


def forwarder_fault(output: str | os.PathLike[str]) -> str | None:
    """Why the launcher did not start the bot, from the end of the bot's output (the
    launcher's note, after the forwarder's messages), on one line; None if it holds no note."""
    try:
        with open(output, "rb") as handle:
            handle.seek(max(0, os.fstat(handle.fileno()).st_size - _TAIL_BYTES))
            text = handle.read().decode(errors="replace")
    except OSError:
        return None
    # The forwarder's words are the bot's output: made safe to print, as the bot's would be.
    shown = ("".join(c if c.isprintable() else "?" for c in line) for line in text.splitlines())
    lines = [line.strip() for line in shown if line.strip()]
    notes = [k for k, line in enumerate(lines) if line.startswith(NOTE)]
    if not notes:
        return None
    said = lines[notes[-1]].removeprefix("ginref: ")
    before = lines[: notes[-1]][-_TAIL_LINES:]
    return f"{said}; its output ends: {' | '.join(before)}" if before else said


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
