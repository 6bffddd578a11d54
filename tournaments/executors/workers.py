"""The worker-process executor: a tournament's matches refereed on every core.

Refereeing costs CPU at every decision, and one Python process uses one core, so
:class:`WorkerExecutor` starts N worker processes (:mod:`tournaments.executors.worker_process`),
each a referee of its own (its own gRPC server and
:class:`~tournaments.executors.local.LocalExecutor`, its own bots confined exactly as the
in-process executor confines them), and spreads the jobs over them: each job goes to the worker
with the fewest jobs, so ``-j`` stays the number of jobs at once. Logs are written by the workers
straight into the tournament's directory; each finished match's record comes back here, where the
runner journals it (one writer) and answers whether the job goes on.

A worker that dies (SIGKILL, out of memory) loses only its jobs' matches in flight: their
:meth:`WorkerExecutor.run` raises :class:`~tournaments.executors.local.JobLost`, the runner plays
those matches again, and the next job that needs a worker starts a new one. A worker that
cannot start, or reports a bug, is a :class:`WorkerError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import os
import signal
import sys
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.bot_check import BotCheck
from referee.bots.confine import Confinement
from referee.bots.sandbox import check_bot
from referee.errors import ConfigError, GinRefError
from tournaments.executors.local import JobLost, OnMatch, cores, refuse_remote
from tournaments.executors.worker_process import frame, read_frame
from tournaments.file.bots import BotEntry
from tournaments.file.config import TournamentConfig
from tournaments.schedule import Job

# Far above what a start needs (an interpreter, the sandbox's probe, a gRPC server: about a
# second), so that only a worker that hangs reaches it.
START_TIMEOUT = 120.0
CLOSE_TIMEOUT = 30.0  # for a worker to stop its bots and exit after ``close``


class WorkerError(GinRefError):
    """A worker that could not start, or failed in a way no retry mends."""


@dataclass(slots=True)
class _Job:
    """A job on a worker, as this side follows it."""

    on_match: OnMatch
    done: asyncio.Future[None]
    stopped: bool = False  # the runner said no more: later records are not its


@dataclass(slots=True)
class _Worker:
    """One worker process and the jobs it plays."""

    process: asyncio.subprocess.Process
    jobs: dict[int, _Job] = field(default_factory=dict)
    checks: dict[int, asyncio.Future[list[BotCheck]]] = field(default_factory=dict)
    stderr: deque[str] = field(default_factory=lambda: deque(maxlen=20))
    alive: bool = True
    # Its own CPU seconds when it was ready, and at its last report: what it spent refereeing.
    cpu_ready: float = 0.0
    cpu: float = 0.0
    reader: asyncio.Task[None] | None = None
    errors: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int:
        """The worker's process id."""
        return self.process.pid

    def send(self, *message: Any) -> None:
        """An order to the worker (dropped if it is gone: its end is handled by its reader)."""
        stdin = self.process.stdin
        if self.alive and stdin is not None and not stdin.is_closing():
            stdin.write(frame(message))

    def last_words(self) -> str:
        """Its last line on stderr, for a message."""
        return self.stderr[-1] if self.stderr else ""


def default_workers(lanes: int) -> int:
    """The number of cores, never more than the jobs at once."""
    return max(1, min(cores(), lanes))


class WorkerExecutor:
    """Jobs spread over ``workers`` referee processes; records journaled here."""

    def __init__(
        self,
        config: TournamentConfig,
        root: Path,
        confinement: Confinement | None = None,
        workers: int = 2,
    ) -> None:
        if workers < 1:
            raise ConfigError(f"workers must be at least 1, got {workers}")
        self.config = config
        self.root = root
        self.size = workers
        self.confinement = confinement
        self._own_confinement = confinement is None
        self.workers: list[_Worker] = []
        self._ids = itertools.count(1)
        self._lock = asyncio.Lock()
        self.placed: dict[str, int] = {}  # match key -> the pid of the worker that played it
        self.started = 0  # worker processes started, replacements included
        self._every: list[_Worker] = []  # every worker started, for their CPU

    # --- the workers ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Check the sandbox here (one clear error, before any process); start the workers."""
        refuse_remote(self.config)
        if self.confinement is None:
            self.confinement = Confinement.prepare(
                self.config.options.sandbox,
                [self.root, *self.config.inputs],
                [b.spec() for b in self.config.local_bots],
            )
        started = await asyncio.gather(
            *(self._start_worker() for _ in range(self.size)), return_exceptions=True
        )
        self.workers = [w for w in started if isinstance(w, _Worker)]
        failure = next((w for w in started if isinstance(w, BaseException)), None)
        if failure is not None:
            raise failure

    async def _start_worker(self) -> _Worker:
        assert self.confinement is not None
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tournaments.executors.worker_process",
            str(os.getpid()),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            limit=2**26,
        )
        self.started += 1
        worker = _Worker(process)
        worker.errors = asyncio.ensure_future(self._read_stderr(worker))
        settings = self.confinement.settings
        worker.send("init", self.config, self.root, settings, self.confinement.protected)
        assert process.stdout is not None
        try:
            first = await asyncio.wait_for(read_frame(process.stdout), START_TIMEOUT)
        except TimeoutError:
            first = ("error", f"no answer in {START_TIMEOUT:g} s")
        if first is None or first[0] != "ready":
            await self._end(worker)
            if first is not None and first[0] == "error" and not first[1].startswith("no answer"):
                raise ConfigError(first[1])  # the sandbox or the bots: the file's mistake
            why = first[1] if first is not None else _exit_text(process.returncode)
            words = worker.last_words()
            raise WorkerError(
                f"a referee worker could not start: {why}" + (f" ({words})" if words else "")
            )
        worker.cpu_ready = worker.cpu = float(first[2])
        weaker = [w for w in first[3] if w not in self.confinement.warnings]
        if weaker:
            # Its bots would be held less than this process holds them (no cgroups where this
            # process has them, say): never silently.
            await self._end(worker)
            raise ConfigError(
                f"a referee worker cannot confine its bots as the tournament's process does "
                f"({weaker[0]}); run with --workers 0"
            )
        worker.reader = asyncio.ensure_future(self._read(worker))
        self._every.append(worker)
        return worker

    def add_bots(self, bots: Sequence[BotEntry]) -> None:
        """Bots that join the run (a ladder's new versions): each worker is told, and a worker
        started later has them in its config."""
        known = {b.name for b in self.config.bots}
        new = tuple(b for b in bots if b.name not in known)
        if not new:
            return
        if self.confinement is not None and self.confinement.settings.enabled:
            for bot in new:
                if not bot.remote:
                    check_bot(bot.spec(), self.confinement.protected)
        self.config = dataclasses.replace(self.config, bots=self.config.bots + new)
        for worker in self.workers:
            worker.send("bots", new)

    def cpu_seconds(self) -> float:
        """The CPU the workers have spent since they were ready (killed ones up to their last
        report), their start-up excluded."""
        return sum(w.cpu - w.cpu_ready for w in self._every)

    async def _read_stderr(self, worker: _Worker) -> None:
        stream = worker.process.stderr
        assert stream is not None
        while line := await stream.readline():
            worker.stderr.append(line.decode(errors="replace").rstrip())

    async def _end(self, worker: _Worker) -> None:
        """Kill a worker that failed and reap it."""
        worker.alive = False
        with contextlib.suppress(ProcessLookupError):
            worker.process.kill()
        await worker.process.wait()
        if worker.errors is not None:
            await asyncio.gather(worker.errors, return_exceptions=True)

    async def _read(self, worker: _Worker) -> None:
        """Hand the worker's reports to their jobs; at its end, fail what it held."""
        stdout = worker.process.stdout
        assert stdout is not None
        failure: str | None = None
        try:
            while (message := await read_frame(stdout)) is not None:
                self._report(worker, message)
        except Exception as exc:  # a report this side cannot take: a bug, not a lost job
            failure = f"{type(exc).__name__}: {exc}"
            with contextlib.suppress(ProcessLookupError):
                worker.process.kill()
        worker.alive = False
        code = await worker.process.wait()
        if worker.errors is not None:
            await asyncio.gather(worker.errors, return_exceptions=True)
        if worker in self.workers:
            self.workers.remove(worker)
        why = f"referee worker {worker.pid} {_exit_text(code)}"
        words = worker.last_words()
        if words and code is not None and code > 0:
            why += f" ({words})"  # a bug's last line, not a kill's silence
        for job in worker.jobs.values():
            if not job.done.done():
                lost = JobLost(why) if failure is None else WorkerError(f"{why}: {failure}")
                job.done.set_exception(lost)
        for check in worker.checks.values():
            if not check.done():
                check.set_exception(WorkerError(why))

    def _report(self, worker: _Worker, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "match":
            _, job_id, record = message
            job = worker.jobs.get(job_id)
            if job is None or job.stopped or job.done.done():
                return  # played after the runner said no more: not journaled, cleaned
            self.placed[record.key] = worker.pid
            try:
                go_on = job.on_match(record)
            except BaseException as exc:  # the journal failed: the run stops with it
                job.done.set_exception(exc)
                worker.send("cancel", job_id)
                return
            if not go_on:
                job.stopped = True
                worker.send("stop", job_id)
        elif kind == "done":
            _, job_id, error, cpu = message
            worker.cpu = float(cpu)
            job = worker.jobs.pop(job_id, None)
            if job is not None and not job.done.done():
                if error is None:
                    job.done.set_result(None)
                else:
                    job.done.set_exception(WorkerError(f"referee worker {worker.pid}: {error}"))
        elif kind in ("checked", "failed"):
            check = worker.checks.pop(message[1], None)
            if check is not None and not check.done():
                if kind == "checked":
                    check.set_result(message[2])
                else:
                    check.set_exception(WorkerError(f"referee worker {worker.pid}: {message[2]}"))
        elif kind == "closed":
            worker.cpu = float(message[1])

    async def _worker(self) -> _Worker:
        """The live worker with the fewest jobs; a new one in place of any that died."""
        async with self._lock:
            self.workers = [w for w in self.workers if w.alive]
            while len(self.workers) < self.size:
                self.workers.append(await self._start_worker())
        return min(self.workers, key=lambda w: len(w.jobs))

    # --- the executor --------------------------------------------------------------------------

    async def run(self, job: Job, directory: Path, on_match: OnMatch) -> None:
        """Play ``job`` on a worker; :class:`JobLost` if the worker dies under it."""
        directory.mkdir(parents=True, exist_ok=True)
        worker = await self._worker()
        job_id = next(self._ids)
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        worker.jobs[job_id] = _Job(on_match, done)
        worker.send("run", job_id, job, directory)
        try:
            await asyncio.shield(done)
        except asyncio.CancelledError:
            # Cut: the worker stops the job's bots at once; wait for it, so that the runner
            # cleans the job's files only once nothing writes them.
            if not done.done():
                worker.send("cancel", job_id)
                with contextlib.suppress(Exception):
                    await done
            raise
        finally:
            worker.jobs.pop(job_id, None)

    async def check(self, bots: Sequence[str], directory: Path, concurrency: int) -> list[BotCheck]:
        """Check the bots on one worker, confined as their matches will be."""
        worker = await self._worker()
        request = next(self._ids)
        done: asyncio.Future[list[BotCheck]] = asyncio.get_running_loop().create_future()
        worker.checks[request] = done
        worker.send("check", request, list(bots), directory, concurrency)
        return await done

    async def close(self, complete: bool = False) -> None:
        """Ask every worker to stop its bots and exit; kill one that does not in time."""
        workers, self.workers = self.workers, []
        for worker in workers:
            worker.send("close", complete)
            stdin = worker.process.stdin
            if stdin is not None:
                stdin.close()
        for worker in workers:
            try:
                await asyncio.wait_for(worker.process.wait(), CLOSE_TIMEOUT)
            except TimeoutError:
                await self._end(worker)
            if worker.reader is not None:
                await asyncio.gather(worker.reader, return_exceptions=True)
        if self.confinement is not None and self._own_confinement:
            self.confinement.close()
            self.confinement = None


def _exit_text(code: int | None) -> str:
    """How a worker ended, in words."""
    if code is None:
        return "is gone"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"
