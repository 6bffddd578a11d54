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
import secrets
import shlex
import shutil
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from referee.bots.cgroup import BotCgroup
from referee.bots.confine import Confinement
from referee.bots.forwarder import FORWARDER_FAILED, forwarder_fault
from referee.bots.limits import Limits, describe_exit, size_text
from referee.bots.sandbox import (
    BASE_PATH,
    SandboxPlan,
    UidLease,
    bot_dirs,
    check_dirs,
    sandbox_environment,
    shown_dirs,
)
from referee.bots.seccomp import seccomp_filter
from referee.bots.spec import ENV_ADDRESS, ENV_SEAT, ENV_TOKEN, BotSpec
from referee.bots.watch import POLL_INTERVAL, GroupWatch, Guard
from referee.errors import ConfigError

_PREEXEC = Path(__file__).with_name("preexec.py")


def limited_command(
    command: Sequence[str],
    limits: Limits,
    *,
    path: str | None = None,
    cwd: str | None = None,
    cgroups: Sequence[Path] = (),
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
    for directory in cgroups:
        argv += ["--cgroup", str(directory)]
    if limits.open_files:
        argv += ["--nofile", str(limits.open_files)]
    if limits.cpu_seconds:
        argv += ["--cpu", f"{limits.cpu_seconds:g}"]
    if limits.address_space_bytes:
        argv += ["--as", str(limits.address_space_bytes)]
    if limits.output_bytes:
        argv += ["--fsize", str(limits.output_bytes)]
    argv += ["--parent", str(os.getpid()), "--", *command]
    return tuple(argv)


@dataclass(frozen=True, slots=True)
class ExitStatus:
    """How a bot process ended: its exit code or the signal that ended it, and whether the
    referee ended it (a signal it sent, a resource limit it set), in words too."""

    code: int | None  # the exit status, when it exited by itself; None: a signal, or no start
    signal: str | None  # e.g. "SIGKILL", when a signal ended it
    killed_by_referee: bool
    reason: str  # for people, e.g. "killed by the referee's SIGTERM: it did not connect ..."

    def to_dict(self) -> dict[str, Any]:
        """The replay log's spelling (an item of ``match_result.exits``)."""
        return {
            "code": self.code,
            "signal": self.signal,
            "killed_by_referee": self.killed_by_referee,
            "reason": self.reason,
        }


def _signal_name(number: int) -> str | None:
    try:
        return signal.Signals(number).name
    except ValueError:
        return None


class BotProcess:
    """One launched bot: its sandbox and uid, cgroups, process group, output file and exit.

    Without a :class:`~referee.bots.confine.Confinement` (or with ``--sandbox none``) the bot
    runs as the referee's user; its resources are held by its cgroups where the machine has
    them, else by the ``/proc`` watch (:mod:`referee.bots.watch`).
    """

    def __init__(
        self,
        spec: BotSpec,
        output: Path,
        limits: Limits | None = None,
        confinement: Confinement | None = None,
    ) -> None:
        self.spec = spec
        self.output = output
        self.limits = limits or Limits()
        self.confinement = confinement
        self.guard: Guard | None = None  # the /proc watch, where there are no cgroups
        self.cgroup: BotCgroup | None = None
        self.breach: str | None = None  # the limit the cgroup watch killed it for
        self.lease: UidLease | None = None
        self.socket: Path | None = None  # its own socket, in a sandbox
        self.proc: asyncio.subprocess.Process | None = None
        self.start_error: str | None = None
        self.exited: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.sent: list[str] = []  # the signals stop() had to send to end it
        self.stop_cause = ""  # why stop() ended it, when it had to
        self.stopped = False  # stop() has run to its end
        self.paused = False  # frozen between its turns
        # Stopped at the end of stop(), after the bot: what serves it (its relay).
        self.helpers: list[Callable[[], Awaitable[None]]] = []
        self._watch: asyncio.Task[None] | None = None
        self._poll: asyncio.Task[None] | None = None
        self._out: IO[bytes] | None = None

    @property
    def sandboxed(self) -> bool:
        """Whether the bot runs in the sandbox."""
        return self.confinement is not None and self.confinement.settings.enabled

    @property
    def uid(self) -> int | None:
        """The uid the bot runs under in its sandbox."""
        return self.lease.uid if self.lease is not None else None

    def prepare(self) -> Path | None:
        """Make the bot's cgroup; lease its uid and make its socket's directory; return the
        socket's path (to listen on before :meth:`start`), or None when the bot is not
        sandboxed. Raises :class:`ConfigError` when the bot cannot be confined."""
        layout = self.confinement.layout if self.confinement is not None else None
        if layout is not None and self.cgroup is None:
            cgroup = BotCgroup(layout, f"bot-{secrets.token_hex(6)}", self.limits)
            try:
                cgroup.create()
            except OSError as exc:
                raise ConfigError(f"cannot make its cgroup: {exc}") from None
            self.cgroup = cgroup
        if not self.sandboxed:
            return None
        assert self.confinement is not None
        check_dirs(self.spec.name, bot_dirs(self.spec), self.confinement.protected)
        self.lease = UidLease.take(self.confinement.settings)
        self.socket = self.confinement.socket_dir(self.lease.uid) / "referee.sock"
        return self.socket

    def relay_cgroups(self) -> list[Path]:
        """The groups the bot's relay joins: the bot's CPU share (:mod:`referee.relay`)."""
        return self.cgroup.relay_paths if self.cgroup is not None else []

    def address(self, outside: str) -> str:
        """``GINREF_ADDRESS`` for the bot: ``outside`` unless it runs in a sandbox."""
        if not self.sandboxed:
            return outside
        return self._plan({}).address()

    def _plan(self, env: dict[str, str]) -> SandboxPlan:
        assert self.confinement is not None and self.lease is not None and self.socket
        return SandboxPlan(
            self.confinement.settings,
            self.lease.uid,
            self.socket,
            str(Path(self.spec.cwd).resolve()) if self.spec.cwd else os.getcwd(),
            bot_dirs(self.spec),
            env,
            self.spec.transport,
            list(self.confinement.runtime),
        )

    async def start(self, env: dict[str, str]) -> None:
        """Launch in a new session (its own process group) with ``env``, in the spec's working
        directory, sandboxed if its confinement says so; failures go to ``start_error``."""
        self._out = open(self.output, "wb")  # noqa: SIM115 (closed in stop())
        layout = self.confinement.layout if self.confinement is not None else None
        try:
            if layout is not None and self.cgroup is None:
                self.cgroup = BotCgroup(layout, f"bot-{secrets.token_hex(6)}", self.limits)
                self.cgroup.create()
            joins = self.cgroup.join_paths if self.cgroup is not None else []
            path = env.get("PATH")
            options: list[str] = []
            if self.sandboxed:
                # Nothing of the referee's environment goes in: only the launch contract.
                contract = {k: env[k] for k in (ENV_ADDRESS, ENV_TOKEN, ENV_SEAT) if k in env}
                assert self.confinement is not None  # sandboxed
                shown = shown_dirs(self.spec, self.confinement.settings)
                env = sandbox_environment(self.spec, contract, shown)
                path = env["PATH"]
            argv = limited_command(
                self.spec.command, self.limits, path=path, cwd=self.spec.cwd, cgroups=joins
            )
            fds: tuple[int, ...] = ()
            if self.sandboxed:
                program = seccomp_filter()
                seccomp = _pipe(program) if program is not None else None
                options, tail = self._plan(env).split_argv(self.spec.command, seccomp)
                # bwrap reads its options, the token among them, from a pipe (--args), so that
                # no process list shows them; they fit in the pipe's buffer.
                fds = (_pipe(b"".join(o.encode() + b"\0" for o in options)),)
                fds += (seccomp,) if seccomp is not None else ()
                preexec = argv[: argv.index("--") + 1]
                argv = (*preexec, "bwrap", "--args", str(fds[0]), *tail)
                env = {"PATH": BASE_PATH}  # for the launcher; the bot's is in bwrap's options
            try:
                self.proc = await asyncio.create_subprocess_exec(
                    *argv,
                    cwd=None if self.sandboxed else self.spec.cwd,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=self._out,
                    stderr=asyncio.subprocess.STDOUT,
                    env=env,
                    start_new_session=True,
                    pass_fds=fds,
                )
            finally:
                for fd in fds:
                    os.close(fd)
        except OSError as exc:
            self.start_error = f"could not start {shlex.join(self.spec.command)!r}: {exc}"
            self._out.write(f"ginref: {self.start_error}\n".encode())
            self.exited.set_result(-1)
            return
        loop = asyncio.get_running_loop()
        if self.cgroup is None:
            marker = f"{ENV_TOKEN}={env[ENV_TOKEN]}".encode() if ENV_TOKEN in env else None
            self.guard = GroupWatch.current().guard(self.proc.pid, self.limits, self.output, marker)
        else:
            self._poll = loop.create_task(self._watch_cgroup(self.cgroup))
        self._watch = loop.create_task(self._wait())

    def pause(self, paused: bool) -> None:
        """Freeze the bot between its turns (its CPU is not its own then: docs/security.md),
        or thaw it; nothing where there is no cgroup freezer."""
        if self.cgroup is not None and self.paused != paused:
            self.paused = paused
            self.cgroup.freeze(paused)

    async def _watch_cgroup(self, group: BotCgroup) -> None:
        """Kill the bot's group when it breaks a limit the kernel does not hold by itself."""
        while self.breach is None:
            await asyncio.sleep(POLL_INTERVAL)
            reason = group.breach()
            if reason is None and self.limits.output_bytes:
                with contextlib.suppress(OSError):
                    if self.output.stat().st_size >= self.limits.output_bytes:
                        reason = f"the output limit of {size_text(self.limits.output_bytes)}"
            if reason is not None:
                self.breach = reason
                await group.kill_all()

    def _plain_code(self, code: int) -> int:
        """``code`` with bwrap's 128 + N for a bot killed by signal N turned into -N."""
        if self.sandboxed and code > 128 and _signal_name(code - 128) is not None:
            return -(code - 128)
        return code

    def exit_text(self, code: int) -> str:
        """``exited with code N``, and the resource limit that ended it, if one did."""
        code = self._plain_code(code)
        if self.breach is None and self.cgroup is not None:
            self.breach = self.cgroup.breach()
        if self.breach is not None:
            return f"exited with code {code} (the referee killed it for breaking {self.breach})"
        if code == FORWARDER_FAILED and self.sandboxed and self.spec.transport == "tcp":
            why = forwarder_fault(self.output)
            if why is not None:
                return f"exited with code {code} ({why})"
        return describe_exit(code, self.limits, self.guard, self.output)

    def exit_status(self) -> ExitStatus | None:
        """How the process ended; None while it runs."""
        if not self.exited.done():
            return None
        if self.proc is None:
            return ExitStatus(None, None, False, self.start_error or "it was never started")
        code = self._plain_code(self.exited.result())
        name = _signal_name(-code) if code < 0 else None
        exit_code = None if name is not None else code
        if self.sent:
            signals = " then ".join(self.sent)
            how = "killed by" if name else f"exited with code {code} on"
            return ExitStatus(
                exit_code, name, True, f"{how} the referee's {signals}: {self.stop_cause}"
            )
        text = self.exit_text(self.exited.result())
        limit = self.breach is not None or (self.guard is not None and self.guard.breach)
        by_limit = limit or name in ("SIGXCPU", "SIGXFSZ") or "limit of" in text
        return ExitStatus(exit_code, name, bool(by_limit), text)

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

    async def stop(self, exit_grace: float, kill_grace: float, cause: str | None = None) -> None:
        """Let it exit, else SIGTERM then SIGKILL; then kill everything it left (its whole
        cgroup, or its process group and what the watch finds); give back its uid.

        ``cause`` says why the referee had to end it, should it have to (default: it had not
        exited ``exit_grace`` seconds after its last match): :meth:`exit_status` tells it."""
        proc = self.proc
        if self.stopped:
            return  # its process group may be gone and its id reused: never signal it again
        self.pause(False)  # a frozen bot could neither exit nor die of a signal
        try:
            if proc is not None:
                pgid = proc.pid
                if await self.exit_code_within(exit_grace) is None:
                    self.stop_cause = cause or (
                        f"it had not exited {exit_grace:g} s after its last match"
                    )
                    self.sent.append("SIGTERM")
                    self._signal(pgid, signal.SIGTERM)
                    if await self.exit_code_within(kill_grace) is None:
                        self.sent.append("SIGKILL")
                        self._signal(pgid, signal.SIGKILL)
                        await self.exit_code_within(kill_grace + 5.0)
                # Children the bot left behind outlive it; none may stay.
                self._signal(pgid, signal.SIGKILL)
                if self.cgroup is not None:
                    await self.cgroup.kill_all()
                if self._watch is not None:
                    await self._watch
                if self.guard is not None:
                    await self.guard.close()  # and whatever escaped the group
        finally:
            if self._poll is not None:
                self._poll.cancel()
            # What served the bot (its relay, in its CPU group and under its uid) goes with it,
            # before the group is removed and the uid given back.
            for helper in self.helpers:
                with contextlib.suppress(Exception):
                    await helper()
            if self.cgroup is not None:
                self.cgroup.close()
                if self.breach is None:
                    self.breach = self.cgroup.breach()
                if not self.cgroup.pids():
                    self.cgroup.remove()
            if self.lease is not None and (self.cgroup is None or not self.cgroup.pids()):
                self.lease.release()
            if self._out is not None:
                self._out.close()
                self._out = None
        self.stopped = True

    def _signal(self, pgid: int, sig: signal.Signals) -> None:
        if self.cgroup is not None:
            self.cgroup.signal_all(sig)
        _killpg(pgid, sig)


def _pipe(data: bytes) -> int:
    """The read end of a pipe that holds ``data`` (bwrap's options, its seccomp program)."""
    if len(data) > 60_000:  # a pipe holds 64 KiB before a write would wait for its reader
        raise OSError(errno.E2BIG, "the sandbox's options do not fit in a pipe")
    read, write = os.pipe()
    try:
        os.write(write, data)
    finally:
        os.close(write)
    return read


def _killpg(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
