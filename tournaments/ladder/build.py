"""A submission's build: its manifest's build command, run once in its directory, in the sandbox.

The build is the entrant's code, so it runs as a bot does (:mod:`referee.bots.sandbox`): a uid
of its own, new namespaces (no network: a loopback device only), the system and the season's
image read-only, an environment built from nothing, rlimits and a cgroup for memory and
processes. Unlike a bot it may write its own directory (and nothing else but a private
``/tmp``); no other submission and nothing of the season is in its view.

Limits (:class:`BuildLimits`): the time limit kills the whole tree (its cgroup and process
group); memory and processes are the cgroup's; the disk is held three ways: no single file may
grow past the cap (RLIMIT_FSIZE), the directory is measured every :data:`DISK_POLL` seconds
while the build runs (killed once over), and once more at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import secrets
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from referee.bots.cgroup import BotCgroup, Layout
from referee.bots.confine import machine_layout, sandbox_problem
from referee.bots.limits import MIB, Limits, size_text
from referee.bots.process import limited_command
from referee.bots.sandbox import (
    SandboxPlan,
    SandboxSettings,
    UidLease,
    runtime_paths,
    sandbox_environment,
)
from referee.bots.seccomp import seccomp_filter
from referee.bots.spec import PYTHON_PLACEHOLDER, BotSpec
from tournaments.ladder.errors import SubmissionError

TAIL_LINES = 60
TAIL_BYTES = 8 << 10
DISK_POLL = 0.5
OPEN_FILES = 4096  # a compiler with its jobs opens many more than a bot
BUILD_INODES = 200_000  # files and directories a build's tmpfs holds
FULL_BELOW = 64 << 10  # a tmpfs with less free is full: a write failed for want of room
ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True, slots=True)
class BuildLimits:
    """What one build may use (a season's ``[ladder.build]``)."""

    time_s: float = 300.0  # wall-clock time
    memory_bytes: int = 2048 * MIB  # its cgroup's memory, its /tmp's pages included
    disk_bytes: int = 512 * MIB  # its directory after the build, the archive's files included
    pids: int = 256  # processes and threads at once
    tmp_bytes: int = 256 * MIB  # its private /tmp


@dataclass(frozen=True, slots=True)
class BuildResult:
    """How a build ended."""

    ok: bool
    status: str  # "exit 0", "exit 2", "killed by SIGKILL: over the time limit of 300 s", ...
    seconds: float
    tail: str  # the last lines of its combined output


def image_environment() -> dict[str, str]:
    """Where the season's image is, for a build and a bot (docs/ladder.md, "The season's
    image"): the proto, the JavaScript packages, the Go libraries, the Java jars, Python."""
    return {
        "GINREF_PROTO": str(ROOT / "proto"),
        "GINREF_PYTHON": sys.executable,
        "NODE_PATH": str(ROOT / "sample_bots" / "js" / "node_modules"),
        "GINREF_GOPATH": "/usr/share/gocode",
        "GO111MODULE": "off",
        "GOPROXY": "off",
        "GOFLAGS": "",
        "GINREF_JAVA_JARS": "/usr/share/java",
    }


def expand_build(command: str) -> str:
    """The build's shell command with ``{python}`` the interpreter ginref runs on."""
    return command.replace(PYTHON_PLACEHOLDER, shlex.quote(sys.executable))


def tail_text(data: bytes) -> str:
    """The last :data:`TAIL_LINES` lines, at most :data:`TAIL_BYTES`, of ``data``."""
    text = data[-TAIL_BYTES:].decode("utf-8", errors="replace")
    lines = text.splitlines()
    if len(data) > TAIL_BYTES and lines:
        lines = lines[1:]  # the first may be cut in the middle
    return "\n".join(lines[-TAIL_LINES:])


def tree_size(directory: Path) -> tuple[int, int]:
    """The bytes (allocated, so that a sparse file counts as what it holds) and the entries
    under ``directory``, links not followed."""
    size = entries = 0
    for root, dirs, files in os.walk(directory):
        for name in dirs + files:
            entries += 1
            with contextlib.suppress(OSError):
                info = os.lstat(os.path.join(root, name))
                size += max(info.st_blocks * 512, info.st_size if stat.S_ISREG(info.st_mode) else 0)
    return size, entries


def hand_over(directory: Path, uid: int) -> None:
    """Give ``directory`` and everything in it to ``uid`` (the build's), links not followed."""
    os.lchown(directory, uid, uid)
    for root, dirs, files in os.walk(directory):
        for name in dirs + files:
            os.lchown(os.path.join(root, name), uid, uid)


def take_back(directory: Path) -> None:
    """Give ``directory`` back to root, readable by every bot's uid and writable by none:
    directories 0755, files 0755 if the build left them executable, else 0644; never setuid.
    Anything else the build left (a FIFO, a socket) is removed."""
    for root, dirs, files in os.walk(directory, topdown=False):
        for name in files + dirs:
            path = os.path.join(root, name)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                os.lchown(path, 0, 0)  # it points inside the sandbox's view, read-only there
            elif stat.S_ISDIR(info.st_mode):
                os.chown(path, 0, 0)
                os.chmod(path, 0o755)
            elif stat.S_ISREG(info.st_mode):
                os.chown(path, 0, 0)
                os.chmod(path, 0o755 if info.st_mode & 0o100 else 0o644)
            else:
                os.unlink(path)
    os.chown(directory, 0, 0)
    os.chmod(directory, 0o755)


def _disk_breach(directory: Path, cap: int, capped: bool) -> str | None:
    """The disk limit the build ran into, or None."""
    if capped:
        # A full tmpfs made a write fail: the build's own error says which; this says why.
        if shutil.disk_usage(directory).free < FULL_BELOW:
            return f"its directory reached the disk limit of {size_text(cap)}"
        return None
    size, _ = tree_size(directory)
    if size > cap:
        return f"its directory holds {size_text(size)}, over the disk limit of {size_text(cap)}"
    return None


@contextlib.contextmanager
def capped_directory(directory: Path, size: int) -> Iterator[bool]:
    """Hold ``directory`` in a tmpfs of ``size`` bytes while the build writes it: the kernel
    refuses a write past the cap. The files go in, and come back out once the build is over
    (links copied as links), at the same path, so that paths a build bakes in stay true.
    Yields False, the directory left as it is, where a tmpfs cannot be mounted."""
    source = directory.with_name(f".{directory.name}.source")
    built = directory.with_name(f".{directory.name}.built")
    directory.rename(source)
    directory.mkdir(mode=0o755)
    options = f"size={size},nr_inodes={BUILD_INODES},mode=0755"
    mount = ["mount", "-t", "tmpfs", "-o", options, "ginref-build", str(directory)]
    if subprocess.run(mount, capture_output=True, check=False).returncode != 0:
        directory.rmdir()
        source.rename(directory)
        yield False
        return
    try:
        try:
            shutil.copytree(source, directory, symlinks=True, dirs_exist_ok=True)
        except OSError:
            raise SubmissionError(
                "build", f"the archive's files do not fit in the disk limit of {size_text(size)}"
            ) from None
        yield True
        shutil.copytree(directory, built, symlinks=True)
    except BaseException:
        _unmount(directory)
        directory.rmdir()
        source.rename(directory)
        shutil.rmtree(built, ignore_errors=True)
        raise
    _unmount(directory)
    directory.rmdir()
    built.rename(directory)
    shutil.rmtree(source)


def clear_leftovers(directory: Path) -> None:
    """Undo what a build killed with its service left: its tmpfs still mounted on
    ``directory``, the copies beside it."""
    if os.path.ismount(directory):
        _unmount(directory)
    for suffix in ("source", "built"):
        shutil.rmtree(directory.with_name(f".{directory.name}.{suffix}"), ignore_errors=True)


def _unmount(directory: Path) -> None:
    if subprocess.run(["umount", str(directory)], capture_output=True, check=False).returncode:
        # Busy (a process of the build that outlived its group would be a bug): detach it.
        subprocess.run(["umount", "--lazy", str(directory)], capture_output=True, check=False)


def _last_bytes(path: Path, count: int) -> bytes:
    with open(path, "rb") as handle:
        handle.seek(max(0, os.fstat(handle.fileno()).st_size - count))
        return handle.read()


def _pipe(data: bytes) -> int:
    read, write = os.pipe()
    try:
        os.write(write, data)  # a seccomp program: far less than a pipe holds
    finally:
        os.close(write)
    return read


class _Build:
    """One build's processes, cgroup and uid, from start to the last process gone."""

    def __init__(
        self,
        directory: Path,
        command: str,
        limits: BuildLimits,
        settings: SandboxSettings,
        layout: Layout,
    ) -> None:
        self.directory = directory
        self.command = command
        self.limits = limits
        self.settings = settings
        self.layout = layout
        self.proc: asyncio.subprocess.Process | None = None
        self.cgroup: BotCgroup | None = None
        self.lease: UidLease | None = None
        self.breach: str | None = None
        self.poll_disk = True  # measure the directory while it runs (no tmpfs holds it)

    def _rlimits(self) -> Limits:
        return Limits(
            cpu_seconds=0,
            memory_bytes=self.limits.memory_bytes,
            processes=self.limits.pids,
            output_bytes=self.limits.disk_bytes,  # RLIMIT_FSIZE: no file past the disk cap
            cpus=0,
            open_files=OPEN_FILES,
        )

    async def run(self, output: Path) -> int:
        """Run the build to its end or its limit; its exit code as bwrap gives it."""
        self.lease = UidLease.take(self.settings)
        uid = self.lease.uid
        hand_over(self.directory, uid)
        limits = self._rlimits()
        self.cgroup = BotCgroup(self.layout, f"build-{secrets.token_hex(6)}", limits)
        self.cgroup.create()
        argv_in = ("/bin/sh", "-c", self.command)
        spec = BotSpec(argv_in, "build", str(self.directory), tuple(image_environment().items()))
        env = sandbox_environment(spec, {}, [self.directory])
        settings = dataclasses.replace(self.settings, tmp_bytes=self.limits.tmp_bytes)
        plan = SandboxPlan(
            settings,
            uid,
            None,
            str(self.directory),
            [],
            env,
            extra=runtime_paths(),
            writable=[self.directory],
        )
        program = seccomp_filter()
        fd = _pipe(program) if program is not None else None
        options, tail = plan.split_argv(argv_in, fd)
        launcher = limited_command(
            argv_in, limits, path=env["PATH"], cgroups=self.cgroup.join_paths
        )
        argv = (*launcher[: launcher.index("--") + 1], "bwrap", *options, *tail)
        try:
            with open(output, "wb") as out:
                self.proc = await asyncio.create_subprocess_exec(
                    *argv,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=out,
                    stderr=asyncio.subprocess.STDOUT,
                    env={"PATH": env["PATH"]},
                    start_new_session=True,
                    pass_fds=() if fd is None else (fd,),
                )
        finally:
            if fd is not None:
                os.close(fd)
        return await self._watch()

    async def _watch(self) -> int:
        """Wait for the build, killing it at the time limit or once its directory is over
        the disk cap."""
        assert self.proc is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.limits.time_s
        waiting = asyncio.ensure_future(self.proc.wait())
        while not waiting.done():
            left = deadline - loop.time()
            if left <= 0:
                self.breach = f"over the time limit of {self.limits.time_s:g} s"
                break
            await asyncio.wait({waiting}, timeout=min(DISK_POLL, left))
            if not self.poll_disk:
                continue
            size, _ = await asyncio.to_thread(tree_size, self.directory)
            if size > self.limits.disk_bytes:
                self.breach = f"over the disk limit of {size_text(self.limits.disk_bytes)}"
                break
        await self.kill()
        return await waiting

    async def kill(self) -> None:
        """Kill whatever of the build still runs: its cgroup, then its process group."""
        if self.cgroup is not None:
            await self.cgroup.kill_all()
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)

    def close(self) -> None:
        """Remove the cgroup and give the uid back, once nothing of the build runs."""
        if self.cgroup is not None:
            if self.breach is None:
                self.breach = self.cgroup.breach()
            left = self.cgroup.pids()
            if not left:
                self.cgroup.remove()
            if self.lease is not None and not left:
                self.lease.release()


def _status(code: int, breach: str | None, killed: bool) -> str:
    """``exit 2``, ``killed by SIGKILL: over the time limit of 300 s``, ..."""
    if code > 128 and code - 128 in signal.valid_signals():
        code = -(code - 128)  # bwrap's 128 + N for a command killed by signal N
    if code < 0:
        try:
            text = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            text = f"killed by signal {-code}"
    else:
        text = f"exit {code}"
    if breach is not None:
        return f"killed by SIGKILL: {breach}" if killed else f"{text}: {breach}"
    return text


async def run_build(
    directory: Path, command: str, limits: BuildLimits, settings: SandboxSettings, log: Path
) -> BuildResult:
    """Build the submission in ``directory`` with its manifest's ``command`` (``{python}``
    allowed), append the output's tail and the status to ``log``; raise
    :class:`SubmissionError` (step ``build``) if it failed."""
    problem = sandbox_problem(settings)
    if problem is not None:
        raise SubmissionError("build", f"the sandbox cannot be built here: {problem}")
    layout = machine_layout()
    if not isinstance(layout, Layout):
        raise SubmissionError("build", f"no cgroups to hold the build in: {layout}")
    directory = directory.resolve()
    build = _Build(directory, expand_build(command), limits, settings, layout)
    handle, name = tempfile.mkstemp(prefix=".build-", suffix=".out", dir=log.parent)
    os.close(handle)
    output = Path(name)
    began = time.monotonic()
    try:
        with capped_directory(directory, limits.disk_bytes) as capped:
            build.poll_disk = not capped
            try:
                code = await build.run(output)
            except BaseException:
                await build.kill()
                raise
            finally:
                build.close()
            seconds = time.monotonic() - began
            take_back(directory)
            killed = build.breach is not None and build.breach.startswith("over the")
            if build.breach is None:
                build.breach = _disk_breach(directory, limits.disk_bytes, capped)
        status = _status(code, build.breach, killed)
        data = _last_bytes(output, TAIL_BYTES + 1)
    finally:
        with contextlib.suppress(OSError):
            output.unlink()
    tail = tail_text(data)
    ok = code == 0 and build.breach is None
    with open(log, "a", encoding="utf-8") as out:
        out.write(f"build: {command}\n")
        if tail:
            out.write(tail + "\n")
        out.write(f"build: {status} after {seconds:.1f} s\n")
    result = BuildResult(ok, status, seconds, tail)
    if not ok:
        raise SubmissionError("build", f"the build failed: {status}", status=status, tail=tail)
    return result


def build(
    directory: Path, command: str, limits: BuildLimits, settings: SandboxSettings, log: Path
) -> BuildResult:
    """Sync face of :func:`run_build` (its own event loop)."""
    try:
        return asyncio.run(run_build(directory, command, limits, settings, log))
    except OSError as exc:
        # This machine's fault rather than the entrant's, but the pipeline must go on.
        raise SubmissionError("build", f"the build could not run here: {exc}") from None
