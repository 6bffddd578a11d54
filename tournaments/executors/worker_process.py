"""One worker process of :class:`~tournaments.executors.workers.WorkerExecutor`: a referee of its
own.

The tournament's process starts ``python -m tournaments.executors.worker_process <parent pid>``
with two pipes, stdin (orders) and stdout (reports), each a stream of frames: a 4-byte big-endian
length, then a pickled tuple. Both ends are ginref itself, so pickle is safe here. The first order
is ``("init", config, root, sandbox settings, protected paths)``; the worker prepares its own
:class:`~referee.bots.confine.Confinement` from them (so its bots are confined exactly as the
in-process executor confines them), starts a :class:`~tournaments.executors.local.LocalExecutor`
(its own gRPC server) and reports ``("ready", pid, CPU seconds, the confinement's warnings)``.
Then:

====================================  ===========================================================
order                                  report
====================================  ===========================================================
``("run", job id, job, directory)``    ``("match", job id, record)`` per finished match, then
                                       ``("done", job id, error text or None, CPU seconds)``
``("stop", job id)``                   the tournament will take no more of the job's matches: a
                                       match started since is cut
``("cancel", job id)``                 the job is cut now (then ``done``)
``("check", id, bots, dir, n)``        ``("checked", id, checks)`` or ``("failed", id, text)``
``("close", complete)``                ``("closed", CPU seconds)``, and the process exits
====================================  ===========================================================

``("error", text)`` is a worker that could not start. The worker never outlives the
tournament's process: it asks for SIGKILL when its parent dies (``PR_SET_PDEATHSIG``), and an
end of its orders (the parent closed the pipe, or is gone) cuts every job and exits. Its bots
die with it, as with any referee (:mod:`referee.bots.preexec`: their own parent-death signal;
bubblewrap's ``--die-with-parent``).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import pickle
import signal
import struct
import sys
import time
from pathlib import Path
from typing import Any

from referee.bots.confine import Confinement
from referee.errors import GinRefError
from tournaments.executors.local import LocalExecutor
from tournaments.journal.records import GONE, MatchRecord
from tournaments.schedule import Job

_HEADER = struct.Struct(">I")
_PR_SET_PDEATHSIG = 1


def frame(message: tuple[Any, ...]) -> bytes:
    """One message as it goes down a pipe."""
    body = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(body)) + body


async def read_frame(reader: asyncio.StreamReader) -> tuple[Any, ...] | None:
    """The next message, or None at the end of the stream (a partial frame is an end too: its
    writer died while writing it)."""
    try:
        header = await reader.readexactly(_HEADER.size)
        (size,) = _HEADER.unpack(header)
        message = pickle.loads(await reader.readexactly(size))
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    assert isinstance(message, tuple)
    return message


def _die_with_parent(parent: int) -> bool:
    """SIGKILL for this process when ``parent`` goes; False if it has already gone."""
    with contextlib.suppress(OSError, AttributeError):  # not Linux: the pipe's end still works
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    return os.getppid() == parent


class Worker:
    """The worker's side of the pipes: plays the jobs it is sent on its own executor."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.executor: LocalExecutor | None = None
        self.recover = True
        self.jobs: dict[int, asyncio.Task[None]] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.last: dict[int, bool] = {}  # job id -> whether its last reported match ends it

    def send(self, *message: Any) -> None:
        """Report to the tournament's process (buffered; the pipe takes small frames at once)."""
        if not self.writer.is_closing():
            self.writer.write(frame(message))

    async def serve(self) -> int:
        """Follow orders until ``close`` or the end of the pipe; the exit status."""
        first = await read_frame(self.reader)
        if first is None or first[0] != "init":
            return 2
        _, config, root, settings, protected = first
        self.recover = config.recover
        try:
            executor = LocalExecutor(config, root, self._confine(config, settings, protected))
            self.executor = executor
            await executor.start()
        except GinRefError as exc:
            self.send("error", str(exc))
            await self.writer.drain()
            return 1
        warnings = [] if executor.confinement is None else executor.confinement.warnings
        self.send("ready", os.getpid(), time.process_time(), warnings)
        complete = False
        try:
            while (message := await read_frame(self.reader)) is not None:
                if message[0] == "close":
                    complete = bool(message[1])
                    break
                self._order(message)
        finally:
            for task in [*self.jobs.values(), *self.tasks]:
                task.cancel()
            await asyncio.gather(*self.jobs.values(), *self.tasks, return_exceptions=True)
            await executor.close(complete)
        self.send("closed", time.process_time())
        with contextlib.suppress(ConnectionError):
            await self.writer.drain()
        return 0

    @staticmethod
    def _confine(config: Any, settings: Any, protected: tuple[Path, ...]) -> Confinement:
        specs = [b.spec() for b in config.local_bots]
        return Confinement.prepare(settings, protected, specs)

    def _order(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "run":
            _, job_id, job, directory = message
            task = asyncio.ensure_future(self._run(job_id, job, directory))
            self.jobs[job_id] = task
        elif kind == "stop":
            # The tournament took the job's last match and wants no more: a match started
            # since (the series went on before the answer came) is cut; none started, none is.
            running = self.jobs.get(message[1])
            if running is not None and not self.last.get(message[1], False):
                running.cancel()
        elif kind == "cancel":
            cut = self.jobs.get(message[1])
            if cut is not None:
                cut.cancel()
        elif kind == "bots":
            assert self.executor is not None
            self.executor.add_bots(message[1])
        elif kind == "check":
            self._spawn(self._check(*message[1:]))

    def _spawn(self, coroutine: Any) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _run(self, job_id: int, job: Job, directory: Path) -> None:
        assert self.executor is not None
        final = job.matches[-1].key

        def on_match(record: MatchRecord) -> bool:
            self.send("match", job_id, record)
            # The tournament's answer comes later; go on unless the record itself says the
            # series ends here (a bot gone from kept processes, when they are recovered).
            gone = any(f.kind in GONE for f in record.faults)
            ends = job.keep and self.recover and gone
            self.last[job_id] = ends or record.key == final
            return not ends

        error: str | None = None
        try:
            await self.executor.run(job, directory, on_match)
        except asyncio.CancelledError:
            pass
        except Exception as exc:  # a bug or a broken setup: the tournament stops and says so
            error = f"{type(exc).__name__}: {exc}"
        finally:
            self.jobs.pop(job_id, None)
            self.last.pop(job_id, None)
        self.send("done", job_id, error, time.process_time())

    async def _check(self, request: int, bots: list[str], directory: Path, n: int) -> None:
        assert self.executor is not None
        try:
            checks = await self.executor.check(bots, directory, n)
        except Exception as exc:
            self.send("failed", request, f"{type(exc).__name__}: {exc}")
        else:
            self.send("checked", request, checks)


async def _main(parent: int) -> int:
    # The pipes are fds 0 and 1; anything else printed (a library's warning) goes to stderr,
    # and no bot inherits them.
    orders = os.dup(0)
    reports = os.dup(1)
    os.dup2(2, 1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    if not _die_with_parent(parent):
        return 1
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**26)
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(orders, "rb", 0)
    )
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(reports, "wb", 0)
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return await Worker(reader, writer).serve()


if __name__ == "__main__":
    # SIGINT is the tournament's to handle (drain, then cut): a Ctrl-C reaches the whole
    # process group, and a worker must not die of it in the middle of its matches.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.exit(asyncio.run(_main(int(sys.argv[1]))))
