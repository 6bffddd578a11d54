"""A launched bot process: its process group, resource limits, output file and exit.

Each bot starts in a session (process group) of its own, in its working directory and
environment, through one exec step (:mod:`referee.bots.preexec`) that sets its resource limits;
its stdout and stderr go to its output file. :meth:`BotProcess.stop` gives it ``exit_grace``
seconds to exit by itself, then SIGTERM to its whole process group, then SIGKILL after
``kill_grace``; every process it started in its group is gone, and the resource watch
(:mod:`referee.bots.limits`) sweeps whatever left the group.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import shlex
import shutil
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO

from referee.bots.limits import Limits, describe_exit
from referee.bots.spec import ENV_TOKEN, BotSpec
from referee.bots.watch import GroupWatch, Guard
from referee.errors import ConfigError

_PREEXEC = Path(__file__).with_name("preexec.py")


def limited_command(
    command: Sequence[str], limits: Limits, *, path: str | None = None, cwd: str | None = None
) -> tuple[str, ...]:
    """The command line that starts ``command`` with ``limits`` set (through ``preexec.py``).

    The program is looked up first (on ``path``, the bot's PATH; a relative path from ``cwd``,
    where the bot starts), so that a command that does not exist fails here, as an
    :class:`OSError`, like a direct launch would.
    """
    if not command:
        raise ConfigError("a bot command must not be empty")
    program = command[0]
    if cwd is not None and os.sep in program:
        program = os.path.join(cwd, program)
    if shutil.which(program, path=path) is None:
        code = errno.EACCES if os.path.exists(program) else errno.ENOENT
        raise OSError(code, os.strerror(code), command[0])
    argv = [sys.executable, "-I", "-S", str(_PREEXEC)]
    if limits.cpu_seconds:
        argv += ["--cpu", f"{limits.cpu_seconds:g}"]
    if limits.address_space_bytes:
        argv += ["--as", str(limits.address_space_bytes)]
    if limits.output_bytes:
        argv += ["--fsize", str(limits.output_bytes)]
    argv += ["--parent", str(os.getpid()), "--", *command]
    return tuple(argv)


class BotProcess:
    """One launched bot: its process group, output file and exit."""

    def __init__(self, spec: BotSpec, output: Path, limits: Limits | None = None) -> None:
        self.spec = spec
        self.output = output
        self.limits = limits or Limits()
        self.guard: Guard | None = None  # the resource watch (referee.bots.limits)
        self.proc: asyncio.subprocess.Process | None = None
        self.start_error: str | None = None
        self.exited: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._watch: asyncio.Task[None] | None = None
        self._out: IO[bytes] | None = None

    async def start(self, env: dict[str, str]) -> None:
        """Launch in a new session (its own process group) with ``env``, in the spec's working
        directory; failures go to ``start_error``."""
        self._out = open(self.output, "wb")  # noqa: SIM115 (closed in stop())
        try:
            argv = limited_command(
                self.spec.command, self.limits, path=env.get("PATH"), cwd=self.spec.cwd
            )
            self.proc = await asyncio.create_subprocess_exec(
                *argv,
                cwd=self.spec.cwd,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=self._out,
                stderr=asyncio.subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        except OSError as exc:
            self.start_error = f"could not start {shlex.join(self.spec.command)!r}: {exc}"
            self._out.write(f"ginref: {self.start_error}\n".encode())
            self.exited.set_result(-1)
            return
        marker = f"{ENV_TOKEN}={env[ENV_TOKEN]}".encode() if ENV_TOKEN in env else None
        self.guard = GroupWatch.current().guard(self.proc.pid, self.limits, self.output, marker)
        self._watch = asyncio.get_running_loop().create_task(self._wait())

    def exit_text(self, code: int) -> str:
        """``exited with code N``, and the resource limit that ended it, if one did."""
        return describe_exit(code, self.limits, self.guard, self.output)

    async def _wait(self) -> None:
        assert self.proc is not None
        code = await self.proc.wait()
        if not self.exited.done():
            self.exited.set_result(code)

    async def exit_code_within(self, seconds: float) -> int | None:
        """The exit code if the process exits within ``seconds``, else None."""
        if self.exited.done():
            return self.exited.result()
        with contextlib.suppress(asyncio.TimeoutError):
            return await asyncio.wait_for(asyncio.shield(self.exited), seconds)
        return None

    async def stop(self, exit_grace: float, kill_grace: float) -> None:
        """Let it exit, else SIGTERM then SIGKILL its group; reap it; kill any straggler."""
        proc = self.proc
        try:
            if proc is not None:
                pgid = proc.pid
                if await self.exit_code_within(exit_grace) is None:
                    _killpg(pgid, signal.SIGTERM)
                    if await self.exit_code_within(kill_grace) is None:
                        _killpg(pgid, signal.SIGKILL)
                        await self.exit_code_within(kill_grace + 5.0)
                # Children the bot left in its group outlive it; none may stay.
                _killpg(pgid, signal.SIGKILL)
                if self._watch is not None:
                    await self._watch
                if self.guard is not None:
                    await self.guard.close()  # and whatever escaped the group
        finally:
            if self._out is not None:
                self._out.close()
                self._out = None


def _killpg(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
