"""A tournament over many machines: every job a Ray task, played there by the local executor.

:class:`RayExecutor` is an :class:`~tournaments.executors.local.Executor` whose jobs run as Ray
tasks on whichever node of a Ray cluster has a CPU free. The task (:func:`play_job`) plays the job
exactly as a local run would: a :class:`~tournaments.executors.local.LocalExecutor` of its own (its
own referee server, the bots started and confined there with the tournament's sandbox settings)
in a temporary directory laid out like the tournament's. It is a streaming generator: as each
match ends it yields a :class:`Delivery`, the referee's record and the match's files as bytes
(its replay log, the bots' output so far). The driver writes the files into the tournament's
directory, each complete or not at all, and only then hands the record to ``on_match``, which
journals it; so the journal, the resume and the audit work as for a local run.

Failures. The task is never retried by Ray itself (``max_retries=0``): when its worker or node
is lost (Ray raises one of :data:`LOST`), the executor starts a new task for the job's matches
not delivered yet, up to :data:`ATTEMPTS` times. A delivered record is journaled once, a
match in flight when its worker died is played again from the start, and its partial files,
which stayed on the lost node, are never written here. The bots of a killed worker die with it
(their parent-death signal, :mod:`referee.bots.preexec`).

Ray is imported only when this executor is used (:func:`import_ray`), so the default install
stays without it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import queue
import shutil
import socket
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from referee.bot_check import BotCheck
from referee.bots.confine import Confinement
from referee.errors import ConfigError, GinRefError
from tournaments.executors.local import LocalExecutor, OnMatch, refuse_remote
from tournaments.file.bots import BotEntry
from tournaments.file.config import TournamentConfig
from tournaments.journal.records import MatchRecord
from tournaments.schedule import Job, MatchSpec

RAY_MISSING = "--executor ray needs Ray, which is not installed: install ginref[ray]"
ATTEMPTS = 3  # tasks per job when workers or nodes are lost
CONNECT_TIMEOUT = 10.0  # seconds to reach a cluster's address before saying it is unreachable
TASK_PREFIX = "ginref-ray-"  # a task's directory: ginref-ray-<worker pid>-<random>
POLL = 0.2  # seconds between a task's looks for cancellation while its match plays


def import_ray() -> Any:
    """The ``ray`` module, or a :class:`ConfigError` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise ConfigError(RAY_MISSING) from None
    return ray


@dataclass(frozen=True, slots=True)
class Delivery:
    """One finished match as a task sends it back: the record and its files."""

    record: MatchRecord
    files: tuple[tuple[str, bytes], ...]  # path relative to the tournament's directory, bytes
    node: str = ""  # the host that played it


@dataclass(frozen=True, slots=True)
class Failure:
    """A task's own error (a bad setup on its node, say), to be raised again by the driver."""

    kind: str  # the exception's class name
    message: str
    node: str = ""


@dataclass(slots=True)
class _Sent:
    """What a task has sent of its directory: each file's (size, mtime) when sent."""

    stamps: dict[Path, tuple[int, int]] = field(default_factory=dict)
    stems: set[str] = field(default_factory=set)  # the prefixes of the matches delivered

    def changed(self, root: Path, directory: Path, stem: str) -> tuple[tuple[str, bytes], ...]:
        """The files of the delivered matches (``stem`` and earlier ones) new or changed since
        last sent: the match's log and the bots' output, which a kept process's series writes
        under its first match's name."""
        self.stems.add(stem)
        out: list[tuple[str, bytes]] = []
        for path in sorted(directory.iterdir()):
            if not path.is_file() or path.name.split(".", 1)[0] not in self.stems:
                continue
            info = path.stat()
            stamp = (info.st_size, info.st_mtime_ns)
            if self.stamps.get(path) == stamp:
                continue
            self.stamps[path] = stamp
            out.append((str(path.relative_to(root)), path.read_bytes()))
        return tuple(out)


def _task_directory() -> Path:
    """A new directory for a task, named after its worker process; first, those of workers
    that are gone (killed with their task: nothing else would remove them) are removed."""
    base = Path(tempfile.gettempdir())
    for old in base.glob(f"{TASK_PREFIX}*-*"):
        pid = old.name.removeprefix(TASK_PREFIX).split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=f"{TASK_PREFIX}{os.getpid()}-", dir=base))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def _node() -> str:
    return socket.gethostname()


def _confinement(config: TournamentConfig, protected: Sequence[str], root: Path) -> Confinement:
    """This node's confinement: the tournament's sandbox settings; the task's directory, the
    tournament's (in case the node shares its filesystem) and its files hidden from bots."""
    specs = [b.spec() for b in config.local_bots]
    paths = [root, *(Path(p) for p in protected)]
    return Confinement.prepare(config.options.sandbox, paths, specs)


def play_job(
    config: TournamentConfig, job: Job, relative: str, protected: Sequence[str]
) -> Iterator[Delivery | Failure]:
    """The task: play ``job`` under a temporary directory, its logs at ``relative`` in it as in
    the tournament's; yield each match as it ends.

    The referee runs on an event loop in a thread of its own, so that the yields (which wait
    for Ray) never pause a match's clock. When Ray cancels the task, the matches in flight are
    cut, their bots stopped, and the directory removed.
    """
    root = _task_directory()
    out: queue.Queue[Delivery | Failure | None] = queue.Queue()
    sent = _Sent()
    directory = root / relative
    loop = asyncio.new_event_loop()
    main: asyncio.Task[None] | None = None

    def on_match(record: MatchRecord) -> bool:
        stem = Path(record.log_path).name.split(".", 1)[0]
        out.put(Delivery(record, sent.changed(root, directory, stem), _node()))
        return True  # the driver cancels the task when it wants no more

    async def play() -> None:
        confinement = _confinement(config, protected, root)
        executor = LocalExecutor(config, root, confinement)
        try:
            await executor.start()
            await executor.run(job, directory, on_match)
        finally:
            await executor.close()
            confinement.close()

    def thread_main() -> None:
        nonlocal main
        asyncio.set_event_loop(loop)
        main = loop.create_task(play())
        try:
            loop.run_until_complete(main)
        except asyncio.CancelledError:
            pass
        except GinRefError as exc:
            out.put(Failure(type(exc).__name__, str(exc), _node()))
        except Exception as exc:  # a bug: its text, since its class may not travel
            out.put(Failure(type(exc).__name__, f"{type(exc).__name__}: {exc}", _node()))
        finally:
            loop.close()
            out.put(None)

    # The bots' parent-death signal follows this thread: it lives as long as the task does.
    thread = threading.Thread(target=thread_main, name=f"ginref-{job.key}", daemon=True)
    thread.start()
    try:
        while True:
            try:
                item = out.get(timeout=POLL)
            except queue.Empty:
                continue
            if item is None:
                break
            yield item
    finally:
        # Cancelled (Ray raises KeyboardInterrupt here) or done: cut what still plays.
        if thread.is_alive() and main is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(main.cancel)
        thread.join()
        shutil.rmtree(root, ignore_errors=True)


def check_bot(
    config: TournamentConfig, name: str, relative: str, protected: Sequence[str]
) -> tuple[BotCheck, bytes]:
    """The task of one bot's check: the check and the bot's output during it."""
    root = _task_directory()

    async def check() -> list[BotCheck]:
        confinement = _confinement(config, protected, root)
        executor = LocalExecutor(config, root, confinement)
        try:
            await executor.start()
            return await executor.check([name], root / relative, 1)
        finally:
            await executor.close()
            confinement.close()

    try:
        (result,) = asyncio.run(check())
        output = result.output.read_bytes() if result.output.is_file() else b""
        return result, output
    finally:
        shutil.rmtree(root, ignore_errors=True)


def write_file(path: Path, data: bytes) -> None:
    """Write ``path`` whole or not at all (a new file renamed over the old one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.part")
    partial.write_bytes(data)
    os.replace(partial, path)


def check_address(address: str) -> None:
    """Raise :class:`ConfigError` if ``host:port`` does not answer; Ray itself would retry
    for a minute before saying so."""
    if address == "auto" or "://" in address:
        return
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ConfigError(f"--address {address!r}: expected HOST:PORT, 'auto' or ray://HOST:PORT")
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT).close()
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise ConfigError(f"--address {address}: no Ray cluster answers there ({reason})") from None


class RayExecutor:
    """Jobs as Ray tasks on a cluster's nodes; their files written here, their records
    journaled here."""

    def __init__(
        self,
        config: TournamentConfig,
        root: Path,
        address: str | None = None,
        on_lost: Callable[[str], None] | None = None,
    ) -> None:
        self.config = config
        self.on_lost = on_lost  # told, in one line, of each task lost and played again
        self.root = root
        self.address = address
        # What no bot may see on any node: the tournament's directory and files.
        self.protected = [str(p.resolve()) for p in (root, *config.inputs)]
        self.ray: Any = None
        self._own = False  # whether this run connected (and so disconnects)
        self._play: Any = None
        self._check: Any = None
        self.attempts = ATTEMPTS
        self.lost: list[str] = []  # why tasks were lost, one line each

    def add_bots(self, bots: Sequence[BotEntry]) -> None:
        """Bots that join the run: each job carries the config, and each node checks the bots
        it starts (their files must be where the config says on every node)."""
        known = {b.name for b in self.config.bots}
        new = tuple(b for b in bots if b.name not in known)
        self.config = replace(self.config, bots=self.config.bots + new)

    async def start(self) -> None:
        """Connect to the cluster (or start a local one); one line if that cannot be done."""
        refuse_remote(
            self.config, "run this tournament with 'ginref serve' (without --executor ray)"
        )
        ray = import_ray()
        self.ray = ray
        if not ray.is_initialized():
            await asyncio.to_thread(self._connect, ray)
            self._own = True
        # Generators as streaming tasks; a lost task is the executor's to play again.
        self._play = ray.remote(num_returns="streaming", max_retries=0, num_cpus=1)(play_job)
        self._check = ray.remote(max_retries=0, num_cpus=1)(check_bot)

    def _connect(self, ray: Any) -> None:
        address = self.address or os.environ.get("RAY_ADDRESS")
        if address:
            check_address(address)
        try:
            if address:
                ray.init(address=address, logging_level="ERROR", log_to_driver=False)
            else:
                try:  # a cluster already running on this machine
                    ray.init(address="auto", logging_level="ERROR", log_to_driver=False)
                except ConnectionError:
                    ray.init(logging_level="ERROR", log_to_driver=False, include_dashboard=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = address or "this machine"
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ConfigError(f"cannot connect to the Ray cluster at {where}: {first}") from None

    async def close(self, complete: bool = False) -> None:
        """Disconnect from the cluster (a local one started for the run stops with it)."""
        if self._own and self.ray is not None:
            await asyncio.to_thread(self.ray.shutdown)
            self._own = False

    def _relative(self, directory: Path) -> str:
        try:
            return str(directory.resolve().relative_to(self.root.resolve()))
        except ValueError:
            raise GinRefError(f"{directory} is not under the tournament's {self.root}") from None

    async def check(self, bots: Sequence[str], directory: Path, concurrency: int) -> list[BotCheck]:
        """Check each bot in a task of its own; its output written under ``directory``."""
        relative = self._relative(directory)
        refs = [self._check.remote(self.config, n, relative, self.protected) for n in bots]
        checks: list[BotCheck] = []
        for ref in refs:
            try:
                result, output = await ref
            except self.ray.exceptions.RayTaskError as exc:
                raise self._failure(exc) from None
            except self.ray.exceptions.RayError as exc:
                lost = _line(exc)
                raise GinRefError(f"a bot's check was lost on the Ray cluster: {lost}") from None
            path = directory / Path(result.output).name
            write_file(path, output)
            checks.append(replace(result, output=path))
        return checks

    async def run(self, job: Job, directory: Path, on_match: OnMatch) -> None:
        """Play ``job`` in Ray tasks: again for its undelivered matches when one is lost."""
        relative = self._relative(directory)
        delivered: set[str] = set()
        for attempt in range(1, self.attempts + 1):
            left = tuple(m for m in job.matches if m.key not in delivered)
            if not left:
                return
            task = Job(job.key, left, job.keep)
            try:
                await self._stream(task, relative, on_match, delivered)
                return  # done, or stopped by on_match: what is left is the runner's
            except self.ray.exceptions.RayTaskError as exc:
                raise self._failure(exc) from None
            except self.ray.exceptions.RayError as exc:
                # A worker, a node or an object lost: the matches not delivered play again.
                line = f"job {job.key} lost on the Ray cluster ({_line(exc)})"
                self.lost.append(line)
                if attempt < self.attempts and self.on_lost is not None:
                    self.on_lost(
                        f"{line}; its {len(left) - delivered_now(delivered, left)} "
                        "matches not delivered are played again"
                    )
                if attempt == self.attempts:
                    raise GinRefError(
                        f"job {job.key} was lost {attempt} times on the Ray cluster; "
                        f"last: {_line(exc)}"
                    ) from None

    async def _stream(
        self, job: Job, relative: str, on_match: OnMatch, delivered: set[str]
    ) -> bool:
        """One task of ``job``; False when ``on_match`` asked to stop."""
        generator = self._play.remote(self.config, job, relative, self.protected)
        try:
            async for ref in generator:
                item = await ref
                if isinstance(item, Failure):
                    raise _error(item)
                self._write(item)
                delivered.add(item.record.key)
                if not on_match(item.record):
                    return False
            return True
        finally:
            # Stopped, failed or cancelled (a cut): the task ends too, its bots with it.
            with contextlib.suppress(Exception):
                self.ray.cancel(generator)

    def _write(self, delivery: Delivery) -> None:
        """Write a match's files into the tournament's directory, each whole."""
        record = delivery.record
        log = dict(delivery.files).get(record.log_path)
        # The bytes the referee hashed as it wrote them, or the match is not journaled.
        if log is None or hashlib.sha256(log).hexdigest() != record.log_sha256:
            raise GinRefError(f"match {record.key}: its replay log did not arrive whole")
        for name, data in delivery.files:
            target = (self.root / name).resolve()
            if not target.is_relative_to(self.root.resolve()) or target == self.root.resolve():
                raise GinRefError(f"match {record.key}: a file outside the tournament: {name!r}")
            write_file(target, data)

    def _failure(self, exc: Any) -> GinRefError:
        cause = getattr(exc, "cause", None)
        if isinstance(cause, GinRefError):
            return cause
        return GinRefError(f"a task failed on the Ray cluster: {_line(exc)}")


def delivered_now(delivered: set[str], matches: Sequence[MatchSpec]) -> int:
    """How many of ``matches`` are delivered."""
    return sum(m.key in delivered for m in matches)


def _error(failure: Failure) -> GinRefError:
    """The driver's error for a task's own."""
    where = f" (on {failure.node})" if failure.node else ""
    kind = ConfigError if failure.kind == "ConfigError" else GinRefError
    return kind(f"{failure.message}{where}")


def _line(exc: BaseException) -> str:
    """An exception's first line."""
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__
