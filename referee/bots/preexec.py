"""Put this process in a bot's cgroups and under its resource limits, then become the bot.

The referee starts every bot through this file (:func:`referee.bots.process.limited_command`)::

    python -I -S .../referee/bots/preexec.py [--cgroup DIR ...] [--cpu S] [--as BYTES]
        [--fsize BYTES] [--nofile N] [--parent PID] -- COMMAND [ARG ...]

It sets the limits with :func:`resource.setrlimit`, which the bot and every process it starts
inherit, and then ``exec``s the command, so the process, its pid, its process group and its exit
status are the bot's own. Setting limits here rather than in a ``preexec_fn`` keeps Python code
out of the window between ``fork`` and ``exec`` in the referee, which runs gRPC's threads.

- ``--cgroup DIR``: write this process's pid to ``DIR/cgroup.procs`` (once per hierarchy), so
  that the bot and everything it starts are in its control groups from the first instruction
  (:mod:`referee.bots.cgroup`).
- ``--cpu S``: RLIMIT_CPU. At S seconds of CPU time (rounded up to whole seconds, the kernel's
  unit) the process gets SIGXCPU, whose default action ends it; one second later SIGKILL.
- ``--as BYTES``: RLIMIT_AS, the address space of each process; allocations beyond it fail.
- ``--fsize BYTES``: RLIMIT_FSIZE, the largest file the process may write: its output file
  (stdout and stderr) included. A write beyond it fails and raises SIGXFSZ (which Python
  ignores, so a Python bot sees ``OSError: File too large`` instead).
- ``--nofile N``: RLIMIT_NOFILE, the open files (and sockets) of each process.
- ``--parent PID``: the referee. The bot gets SIGKILL when the referee's thread that started it
  ends (``PR_SET_PDEATHSIG``), so a referee killed with SIGKILL leaves no bot running; and if
  the referee is already gone, the bot is not started at all.

Core dumps are turned off (RLIMIT_CORE = 0). Only the standard library is used, and the referee
runs it isolated (``-I -S``), so it costs about 20 ms per launch.
"""

from __future__ import annotations

import ctypes
import math
import os
import resource
import signal
import sys
from collections.abc import Sequence

EXIT_USAGE = 2
EXIT_CANNOT_RUN = 127
_PR_SET_PDEATHSIG = 1


def _set(kind: int, soft: int, hard: int | None = None) -> None:
    """Lower a limit; a hard limit can only be lowered, so never ask for more than it is."""
    current = resource.getrlimit(kind)[1]
    hard = soft if hard is None else hard
    if current != resource.RLIM_INFINITY:
        hard = min(hard, current)
        soft = min(soft, hard)
    resource.setrlimit(kind, (soft, hard))


def _die_with_parent(parent: int) -> bool:
    """Ask for SIGKILL when the parent goes; False if it has already gone."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: no parent-death signal
        return True
    return os.getppid() == parent


def main(args: Sequence[str]) -> int:
    """Parse ``args``, apply the limits and exec the command; return an exit code on failure."""
    rest = list(args)
    values: dict[str, int] = {}
    cgroups: list[str] = []
    while rest and rest[0] != "--":
        option = rest.pop(0)
        if option == "--cgroup" and rest:
            cgroups.append(rest.pop(0))
        elif option in ("--cpu", "--as", "--fsize", "--nofile", "--parent") and rest:
            text = rest.pop(0)
            try:
                values[option] = math.ceil(float(text)) if option == "--cpu" else int(text)
            except ValueError:
                print(f"ginref limits: {option} {text!r}: expected a number", file=sys.stderr)
                return EXIT_USAGE
        else:
            print(f"ginref limits: unexpected argument {option!r}", file=sys.stderr)
            return EXIT_USAGE
    command = rest[1:]
    if not command:
        print("ginref limits: no command after --", file=sys.stderr)
        return EXIT_USAGE
    for directory in cgroups:
        try:
            with open(os.path.join(directory, "cgroup.procs"), "w") as procs:
                procs.write(str(os.getpid()))
        except OSError as exc:
            print(f"ginref limits: cannot join the cgroup {directory}: {exc}", file=sys.stderr)
            return EXIT_CANNOT_RUN
    try:
        _set(resource.RLIMIT_CORE, 0)
        if "--nofile" in values:
            _set(resource.RLIMIT_NOFILE, values["--nofile"])
        if "--cpu" in values:
            _set(resource.RLIMIT_CPU, values["--cpu"], values["--cpu"] + 1)
        if "--as" in values:
            _set(resource.RLIMIT_AS, values["--as"])
        if "--fsize" in values:
            _set(resource.RLIMIT_FSIZE, values["--fsize"])
    except (OSError, ValueError) as exc:
        print(f"ginref limits: cannot set a resource limit: {exc}", file=sys.stderr)
        return EXIT_CANNOT_RUN
    if "--parent" in values and not _die_with_parent(values["--parent"]):
        return EXIT_CANNOT_RUN  # the referee died while this bot was starting
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        print(f"ginref limits: cannot run {command[0]!r}: {exc}", file=sys.stderr)
    return EXIT_CANNOT_RUN


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
