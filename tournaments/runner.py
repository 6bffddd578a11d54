"""The tournament runner: schedule, run ``-j N`` jobs at once, journal every match, resume.

A run opens (or creates) the journal in the tournament's directory, checks that it belongs to
the same tournament, starts every bot that has a match left once and waits for its Hello (the
check: a new tournament's schedule is journaled only once it passes), deletes what unfinished
matches left behind (partial replay logs and bot output), and plays every scheduled match that
is not in the journal yet. Each finished match is committed as soon as its log is complete, so
killing the runner loses only the matches in flight; running the same command again plays
exactly those. A bot the organiser withdrew (:mod:`tournaments.journal.withdrawals`) is never
started and its matches never start, from the next match on if it is withdrawn during the run.
:meth:`TournamentRunner.stop` drains (no match starts, those in flight finish) or cuts (the
matches in flight are cancelled, their bots stopped at once, their files removed).

Directory layout: ``journal.sqlite``, ``checks/<bot>.log`` (each bot's output during its
check), ``logs/<x>.<y>/<job>/`` (replay logs and bot output), and the standings files written
by :mod:`tournaments.results.standings`.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.bot_check import BotCheck
from referee.bots.confine import Confinement
from referee.errors import GinRefError
from tournaments.executors.local import Executor, JobLost, LocalExecutor, cores
from tournaments.executors.workers import WorkerExecutor, default_workers
from tournaments.file.config import TournamentConfig
from tournaments.journal.records import GONE, MatchRecord
from tournaments.journal.store import Journal, open_journal
from tournaments.journal.withdrawals import DISQUALIFIED, counted
from tournaments.schedule import (
    Job,
    MatchSpec,
    build_schedule,
    clash,
    deal_key,
    journaled_sharing,
    make_jobs,
)
from tournaments.sprt_run import CHUNK, SprtMonitor

LOGS = "logs"
# How often one match may be lost with the process playing it before the run gives up: a
# worker killed now and then is recovered from, one that dies at every try is a broken setup.
MAX_LOST = 3
CHECKS = "checks"  # each bot's output during its check before play


@dataclass(slots=True)
class Progress:
    """Where a run stands, for a progress display."""

    done: int  # matches in the journal
    total: int
    running: int
    played: int  # matches finished by this run
    elapsed: float  # seconds since this run started
    leader: tuple[str, float, int] | None  # name, points, matches
    last: MatchRecord | None = None  # the match that just finished, if any
    faults: int = 0  # in the journal's matches, this run's and earlier runs'
    halting: bool = False  # a stop was asked: no more matches start
    finished_at: float | None = None  # ``elapsed`` when the last match finished
    note: str | None = None  # a sequential test's LLR and decision

    @property
    def eta(self) -> float | None:
        """Seconds left, or None before this run's first match: the mean time per match so
        far (at the last finish) times the matches left, counted down since that finish. It
        changes only as matches finish, not with each one's own time."""
        if self.played == 0 or self.finished_at is None or self.note is not None:
            return None  # a sequential test stops when it decides: no telling when
        left = self.finished_at / self.played * (self.total - self.done)
        return max(0.0, left - (self.elapsed - self.finished_at))


@dataclass(slots=True)
class RunResult:
    """How a run ended."""

    status: str  # complete (a sequential test: decided, or at its maximum), interrupted
    total: int
    done: int
    played: int
    concurrency: int
    wall: float
    cpu: float  # this process, all threads
    main_cpu: float  # the event-loop thread: the referee, scheduler and journal
    directory: Path
    session: int
    errors: list[str] = field(default_factory=list)
    checks: list[BotCheck] = field(default_factory=list)  # the bots checked before play
    workers: int = 0  # referee processes (0: the matches refereed in this process)
    worker_cpu: float = 0.0  # their CPU during play

    @property
    def referee_cpu(self) -> float:
        """The refereeing's CPU: this process's and its workers'."""
        return self.cpu + self.worker_cpu


OnProgress = Callable[[Progress], None]


class RunStopped(GinRefError):
    """A stop (Ctrl-C, SIGTERM) before the first match: nothing was played or journaled."""


class BotCheckError(GinRefError):
    """Bots that could not start and say Hello before play: one line each."""

    def __init__(self, failed: list[BotCheck], checked: int) -> None:
        self.failed = failed
        self.checked = checked
        lines = [f"bot {c.name!r} cannot start: {c.problem}" for c in failed]
        super().__init__("\n".join(lines))


def make_executor(
    config: TournamentConfig,
    directory: Path,
    confinement: Confinement | None,
    lanes: int,
    workers: int | None = None,
) -> Executor:
    """The executor of a run of local bots: ``workers`` referee processes (None: the file's
    ``workers``, else the number of cores; never more than the ``lanes``), or with 0 the
    in-process executor."""
    wanted = config.workers if workers is None else workers
    if wanted == 0:
        return LocalExecutor(config, directory, confinement)
    count = default_workers(lanes) if wanted is None else min(wanted, lanes)
    return WorkerExecutor(config, directory, confinement, count)


def default_concurrency() -> int:
    """The number of cores this process may use."""
    return cores()


class TournamentRunner:
    """One run of a tournament in its directory."""

    def __init__(self, config: TournamentConfig, directory: Path | None = None) -> None:
        self.directory = directory or config.out_dir
        self.directory.mkdir(parents=True, exist_ok=True)
        # The journal holds every match's seed: the directory is its owner's alone.
        self.directory.chmod(0o700)
        self.journal: Journal = open_journal(self.directory)
        self._pending: list[MatchSpec] = []  # a new tournament's schedule, not yet journaled
        try:
            if self.journal.initialised:
                stored_seed = (self.journal.meta("identity") or {}).get("seed")
                if config.seed is None and stored_seed is not None:
                    config = config.with_changes(seed=stored_seed)
                config = journaled_sharing(config, self.journal.meta("identity") or {})
                self.journal.check_identity(config.identity())
            else:
                # The deal key is used here, once: every match seed is in the schedule, which
                # the journal keeps where no bot can read it, and the key is not kept at all.
                # The journal takes it when the run starts, after the bots' check: a tournament
                # whose bots could not start can be fixed and run again as a new one.
                self._pending = build_schedule(config, deal_key(config.seed))
            # Only now that the journal is this tournament's: an older one gets its new columns.
            self.journal.upgrade()
        except BaseException:
            self.journal.close()
            raise
        self.config = config
        self.schedule: list[MatchSpec] = self._pending or self.journal.schedule()
        self.finished: set[str] = self.journal.finished_keys()
        # The journal's bots too: a withdrawn bot may have left the file.
        names = [*self.journal.bot_names(), *(b.name for b in config.bots)]
        self.points: dict[str, float] = dict.fromkeys(names, 0.0)
        self.games: dict[str, int] = dict.fromkeys(names, 0)
        self.faults = 0  # faults of every kind in the journal's matches
        # The bots taken out of play: their matches left are not played (struck: nor counted).
        self.out: set[str] = set()
        self.struck: set[str] = set()
        self._read_withdrawals()
        records = self.journal.records()
        for record in counted(self.schedule, records, self.journal.withdrawals()).records:
            self._tally(record)
        # A sequential test stops the run once it decides; it counts the journal's matches.
        self.monitor = SprtMonitor(config, self.schedule) if config.format == "sprt" else None
        if self.monitor is not None:
            self.monitor.extend(records)
        self._stopping = False  # cut: the matches in flight are cancelled
        self._draining = False  # no match is started; those in flight play on
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def total(self) -> int:
        """Matches in the schedule."""
        return len(self.schedule)

    def remaining(self) -> list[MatchSpec]:
        """Scheduled matches not in the journal, in order of play, less those of a bot taken
        out of play (none once a sequential test has decided)."""
        if self.monitor is not None and self.monitor.finished:
            return []
        return [s for s in self.schedule if s.key not in self.finished and self.plays(s)]

    def plays(self, spec: MatchSpec) -> bool:
        """Whether ``spec``'s match is to be played: no bot of it was taken out of play."""
        return self.out.isdisjoint(spec.seats)

    def _read_withdrawals(self) -> None:
        """The bots taken out of play, as the journal has them now (``ginref withdraw`` may
        write while a run goes on)."""
        withdrawals = self.journal.withdrawals()
        self.out = {w.bot for w in withdrawals}
        self.struck = {w.bot for w in withdrawals if w.kind == DISQUALIFIED}

    @property
    def done(self) -> int:
        """Matches settled: in the journal, or not to be played (a withdrawn bot's)."""
        return sum(1 for s in self.schedule if s.key in self.finished or not self.plays(s))

    @property
    def complete(self) -> bool:
        """Every scheduled match is settled, or the sequential test has decided."""
        if self.monitor is not None and self.monitor.finished:
            return True
        return self.done == self.total

    def close(self) -> None:
        """Close the journal."""
        self.journal.close()

    def _tally(self, record: MatchRecord) -> None:
        # As the standings count: one result for each two opponents in the match.
        self.faults += len(record.faults)
        for i, j, score in record.pairs():
            for seat, points in ((i, score), (j, None if score is None else 1.0 - score)):
                self.games[record.seats[seat]] += 1
                self.points[record.seats[seat]] += points or 0.0

    def leader(self) -> tuple[str, float, int] | None:
        """The bot with the most points (ties: fewer results, then file order)."""
        if not any(self.games.values()):
            return None
        name = max(self.points, key=lambda n: (self.points[n], -self.games[n]))
        return name, self.points[name], self.games[name]

    # --- files ---------------------------------------------------------------------------------

    def job_directory(self, job: Job) -> Path:
        """Where a job's logs go."""
        return self.directory / LOGS / job.key

    def clean(self, directory: Path | None = None) -> int:
        """Delete files under ``directory`` (default: all logs) that belong to no journaled
        match (partial logs and bot output of unfinished matches); return how many."""
        root = directory or self.directory / LOGS
        if not root.exists():
            return 0
        kept = {
            (self.directory / p).parent / Path(p).name.split(".", 1)[0]
            for p in self.journal.log_paths()
        }
        removed = 0
        for path in sorted(root.rglob("*"), reverse=True):
            if path.is_dir():
                if not any(path.iterdir()):
                    path.rmdir()
            elif path.parent / path.name.split(".", 1)[0] not in kept:
                path.unlink()
                removed += 1
        if root.exists() and root != self.directory / LOGS and not any(root.iterdir()):
            root.rmdir()
        return removed

    # --- running -------------------------------------------------------------------------------

    def stop(self, *, drain: bool = False) -> str:
        """Stop the run. ``drain``: start no more matches and let those in flight finish;
        else cut at once (the matches in flight are cancelled, their bots killed). Returns
        what it did: ``draining``, ``cutting``, or ``already`` (already cutting)."""
        if self._stopping:
            return "already"
        if drain and not self._draining:
            self._draining = True
            return "draining"
        self._stopping = True
        for task in self._tasks:
            task.cancel()
        return "cutting"

    @property
    def halting(self) -> bool:
        """Whether a stop was asked: no more matches start."""
        return self._stopping or self._draining

    def to_check(self) -> list[str]:
        """The bots that still have matches to play, in the file's order."""
        playing = {name for spec in self.remaining() for name in spec.seats}
        return [b.name for b in self.config.bots if b.name in playing]

    async def run(
        self,
        concurrency: int | None = None,
        on_progress: OnProgress | None = None,
        executor: Executor | None = None,
        confinement: Confinement | None = None,
        *,
        check: bool | None = None,
        workers: int | None = None,
    ) -> RunResult:
        """Play every remaining match, ``concurrency`` jobs at once; return how it went.

        Bots run on ``executor`` (default: :func:`make_executor`'s, ``workers`` referee
        processes, confined by ``confinement``, or one made from the tournament's sandbox
        settings). First, unless ``check`` (default: the
        tournament's ``check_bots``) is off, every bot that has a match left is started once
        and must say Hello: if one cannot, :class:`BotCheckError` says why and nothing is
        played (nor journaled)."""
        lanes = concurrency or self.config.concurrency or default_concurrency()
        executor = executor or make_executor(
            self.config, self.directory, confinement, lanes, workers
        )
        await executor.start()
        try:
            checks = await self._check(executor, lanes, check)
            if self._pending:
                self.journal.initialise(
                    self.config.identity(),
                    self.config.to_dict(),
                    [b.to_dict() for b in self.config.bots],
                    self._pending,
                    [t.to_dict() for t in self.config.team_entries],
                )
                self._pending = []
            return await self._play(executor, lanes, on_progress, checks)
        finally:
            await executor.close(complete=self.complete)

    async def _check(self, executor: Executor, lanes: int, check: bool | None) -> list[BotCheck]:
        """Check the bots that have matches left; raise :class:`BotCheckError` if one fails."""
        bots = self.to_check()
        if not bots or not (self.config.check_bots if check is None else check):
            return []
        # A task of its own, so that a stop that cuts (stop()) cuts the check too.
        task = asyncio.ensure_future(executor.check(bots, self.directory / CHECKS, lanes))
        self._tasks = {task}
        try:
            checks = await task
        except asyncio.CancelledError:
            if not self._stopping:
                raise
            checks = []
        finally:
            self._tasks = set()
        if self.halting:
            raise RunStopped("stopped during the bots' check, before the first match")
        failed = [c for c in checks if not c.ok]
        if failed:
            raise BotCheckError(failed, len(checks))
        return checks

    async def _play(
        self,
        executor: Executor,
        lanes: int,
        on_progress: OnProgress | None,
        checks: list[BotCheck],
    ) -> RunResult:
        # The run's time and CPU are its matches' (the check before them is reported apart).
        wall0, cpu0, main0 = time.perf_counter(), time.process_time(), time.thread_time()
        pool = executor if isinstance(executor, WorkerExecutor) else None
        workers0 = 0.0 if pool is None else pool.cpu_seconds()
        session = self.journal.start_session(lanes)
        self.clean()
        keep = self.config.processes == "keep"
        chunk = CHUNK if self.monitor is not None else None
        jobs: deque[Job] = deque(make_jobs(self.remaining(), keep=keep, lanes=lanes, chunk=chunk))
        running: dict[asyncio.Task[None], Job] = {}
        played = 0
        errors: list[str] = []
        lost: dict[str, int] = {}  # match key -> times lost with the process playing it
        began = time.perf_counter()
        finished_at: float | None = None

        def progress(last: MatchRecord | None = None) -> None:
            if on_progress is not None:
                on_progress(
                    Progress(
                        done=self.done,
                        total=self.total,
                        running=len(running),
                        played=played,
                        elapsed=time.perf_counter() - began,
                        leader=self.leader(),
                        last=last,
                        faults=self.faults,
                        halting=self.halting,
                        finished_at=finished_at,
                        note=None if self.monitor is None else self.monitor.note(),
                    )
                )

        def on_match(job: Job) -> Callable[[MatchRecord], bool]:
            def commit(record: MatchRecord) -> bool:
                nonlocal played, finished_at
                if record.key in self.finished:
                    return True  # reported twice: already journaled
                self.journal.commit_match(record, session)
                self.finished.add(record.key)
                played += 1
                finished_at = time.perf_counter() - began
                if self.struck.isdisjoint(record.seats):
                    self._tally(record)
                if self.monitor is not None:
                    self.monitor.add(record)
                    if self.monitor.finished and not self.halting:
                        self.stop(drain=True)  # decided: the matches in flight finish
                self._read_withdrawals()
                progress(record)
                gone = any(f.kind in GONE for f in record.faults)
                if job.keep and not all(self.plays(m) for m in job.matches):
                    return False  # a bot of the series was withdrawn meanwhile
                return not (job.keep and self.config.recover and gone) and not self.halting

            return commit

        # A job ended (or was put back): a lane waiting for a job it may play looks again.
        changed = asyncio.Event()

        async def lane() -> None:
            while jobs and not self.halting:
                # A bot withdrawn since the run began: its jobs go (those in play finish).
                self._read_withdrawals()
                for gone in [j for j in jobs if not all(self.plays(m) for m in j.matches)]:
                    jobs.remove(gone)
                if not jobs:
                    break
                # The next job in order that shares no deal and bot with one in play (clash):
                # no bot ever plays one deal twice at once. When every job left clashes, the
                # lane waits for one in play to end.
                in_play = list(running.values())
                job = next((j for j in jobs if not any(clash(j, r) for r in in_play)), None)
                if job is None:
                    changed.clear()
                    await changed.wait()
                    continue
                jobs.remove(job)
                task = asyncio.current_task()
                assert task is not None
                running[task] = job
                progress()
                before = len(self.finished)
                failure: JobLost | None = None
                try:
                    self.clean(self.job_directory(job))
                    await executor.run(job, self.job_directory(job), on_match(job))
                except JobLost as exc:
                    failure = exc  # its unreported matches are played again
                except Exception:
                    self.stop()  # a bug or a broken setup: stop the other lanes too
                    raise
                finally:
                    del running[task]
                    changed.set()
                    if any(m.key not in self.finished for m in job.matches):
                        self.clean(self.job_directory(job))
                    progress()
                left = [m for m in job.matches if m.key not in self.finished]
                if left and failure is not None:
                    key = left[0].key
                    lost[key] = lost.get(key, 0) + 1
                    if lost[key] >= MAX_LOST:
                        self.stop()
                        raise GinRefError(f"match {key} was lost {lost[key]} times: {failure}")
                elif left and not self.halting and len(self.finished) == before:
                    raise GinRefError(f"the executor ended job {job.key} without a result")
                if left and not self.halting:
                    jobs.extendleft(reversed(make_jobs(left, keep=job.keep)))
                    changed.set()

        status = "failed"
        try:
            progress()
            self._tasks = {asyncio.ensure_future(lane()) for _ in range(lanes)}
            results = await asyncio.gather(*self._tasks, return_exceptions=True)
            for item in results:
                if isinstance(item, BaseException) and not isinstance(item, asyncio.CancelledError):
                    errors.append(f"{type(item).__name__}: {item}")
            if errors:
                failure = next(
                    r
                    for r in results
                    if isinstance(r, BaseException) and not isinstance(r, asyncio.CancelledError)
                )
                raise failure
            status = "complete" if self.complete else "interrupted"
        finally:
            self._tasks = set()
            wall = time.perf_counter() - wall0
            cpu, main = time.process_time() - cpu0, time.thread_time() - main0
            self.journal.end_session(session, status, played, wall, cpu, main)
        return RunResult(
            status=status,
            total=self.total,
            done=self.done,
            played=played,
            concurrency=lanes,
            wall=wall,
            cpu=cpu,
            main_cpu=main,
            directory=self.directory,
            session=session,
            errors=errors,
            checks=checks,
            workers=0 if pool is None else pool.size,
            worker_cpu=0.0 if pool is None else pool.cpu_seconds() - workers0,
        )
