"""Start a bot in its own working directory with extra environment variables, then become it.

The match runner launches a bot from its command line in the referee's directory and
environment; a tournament file may give a bot a ``cwd`` and an ``env``. This shim applies them
and replaces itself with the bot (``os.execvpe``), so the process, its process group and its
exit code are the bot's own::

    python -m tournaments.launch [--cwd DIR] [--env NAME=VALUE ...] -- COMMAND [ARG ...]
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

EXIT_USAGE = 2
EXIT_CANNOT_RUN = 127


def launch_argv(
    command: Sequence[str], cwd: str | None, env: Sequence[tuple[str, str]]
) -> tuple[str, ...]:
    """The command line that runs ``command`` through this shim (unchanged without cwd/env)."""
    if cwd is None and not env:
        return tuple(command)
    argv = [sys.executable, "-m", "tournaments.launch"]
    if cwd is not None:
        argv += ["--cwd", cwd]
    for name, value in env:
        argv += ["--env", f"{name}={value}"]
    return (*argv, "--", *command)


def main(args: Sequence[str]) -> int:
    """Parse ``args``, apply them and exec the command; return an exit code only on failure."""
    cwd: str | None = None
    extra: dict[str, str] = {}
    rest = list(args)
    while rest and rest[0] != "--":
        option = rest.pop(0)
        if option == "--cwd" and rest:
            cwd = rest.pop(0)
        elif option == "--env" and rest:
            name, sep, value = rest.pop(0).partition("=")
            if not sep or not name:
                print("ginref launch: expected NAME=VALUE after --env", file=sys.stderr)
                return EXIT_USAGE
            extra[name] = value
        else:
            print(f"ginref launch: unexpected argument {option!r}", file=sys.stderr)
            return EXIT_USAGE
    command = rest[1:]
    if not command:
        print("ginref launch: no command after --", file=sys.stderr)
        return EXIT_USAGE
    env = dict(os.environ)
    env.update(extra)
    try:
        if cwd is not None:
            os.chdir(cwd)
        os.execvpe(command[0], command, env)
    except OSError as exc:
        print(f"ginref launch: cannot run {command[0]!r}: {exc}", file=sys.stderr)
    return EXIT_CANNOT_RUN


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
