"""The ladder's service (``ginref ladder run``): builds submissions and plays the pool, around
the clock, until it is stopped.

Two tasks share one event loop:

- **The pipeline** takes queued submissions one at a time, oldest first (a build is the
  heaviest thing the machine does), and runs :func:`tournaments.ladder.pipeline.process` on a
  thread: unpack, manifest, build in the sandbox, validation match. An accepted version joins
  the pool and replaces its entrant's previous one in matchmaking; a failed one is told to its
  entrant (the step, the exit status, the tail of the output) and never touches the pool.
- **Play** keeps ``lanes`` matches running. Each is of a pairing chosen by
  :func:`tournaments.ladder.matchmaking.choose` from the pool's ratings: a duplicate pair (one
  deal, seats swapped; the second match starts once the first is over, each with fresh
  processes, so that no bot carries the first's deck into the second) or a single match. Its
  matches are written to the journal's schedule before they start and committed as each ends,
  then rated.

The matches run on one tournament executor (worker processes by default, or in-process, or a
hosted referee when the season has remote entrants); an accepted version joins its bots
(:meth:`~tournaments.executors.local.Executor.add_bots`).

Killed (kill -9) at any point, the service loses only the matches in flight: started again,
it rates the journal's matches not yet rated, plays the scheduled matches that have no result
(a pairing chosen is a pairing played, whatever the ratings say now), and queues again any
submission that was being built or validated.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as _dt
import random
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.bots.spec import expand_python
from referee.errors import GinRefError
from referee.text import safe_text
from tournaments.executors.hosted import HostedExecutor
from tournaments.executors.local import Executor, JobLost
from tournaments.file.bots import BotEntry
from tournaments.journal.records import MatchRecord
from tournaments.journal.store import Journal, open_journal
from tournaments.ladder import pipeline, ratings_book
from tournaments.ladder.build import BuildLimits, image_environment
from tournaments.ladder.errors import SubmissionError
from tournaments.ladder.matchmaking import choose
from tournaments.ladder.pipeline import BOT
from tournaments.ladder.season import Season
from tournaments.ladder.store import (
    ACCEPTED,
    BUILDING,
    FAILED,
    QUEUED,
    SeasonStore,
    Version,
    open_season,
)
from tournaments.runner import make_executor
from tournaments.schedule import Job, MatchSpec, clash, deal_seed

PLAY = "play"  # the season's tournament directory: journal, replay logs
VERSIONS = "versions"  # versions/<entrant>/<n>/: an unpacked and built submission
SUBMISSIONS = "submissions"  # submissions/<entrant>/<n>.archive, <n>.log
POLL = 2.0  # seconds between looks at the queue and the deadline when nothing happens
ARRIVAL = 60.0  # a queued version whose archive never came (its upload died) fails after this

Say = Callable[[str], None]


def archive_path(directory: Path, version: Version) -> Path:
    return directory / SUBMISSIONS / version.entrant / f"{version.number}.archive"


def log_path(directory: Path, version: Version) -> Path:
    return directory / SUBMISSIONS / version.entrant / f"{version.number}.log"


def version_dir(directory: Path, version: Version) -> Path:
    return directory / VERSIONS / version.entrant / str(version.number)


def version_entry(directory: Path, version: Version) -> BotEntry:
    """A version as a bot of the pool: its run command in its own directory, in the sandbox."""
    if version.number == 0:
        return BotEntry(version.entrant, (), remote=True)
    where = version_dir(directory, version) / BOT
    return BotEntry(
        version.name,
        expand_python(version.command),
        str(where),
        tuple(image_environment().items()),
        dirs=(str(where),),  # all of its own directory, whatever its command names
        transport="tcp" if version.transport == "tcp" else "unix",
    )


def failure_line(name: str, exc: SubmissionError) -> str:
    """The console's line for a failed submission: its words come from the archive (a name, a
    key) and its build, so they are shown safe (no escape sequence reaches the terminal)."""
    return f"Ladder: {name} failed at {safe_text(str(exc), 300)}"


def split_command(run: str) -> tuple[str, ...]:
    return tuple(shlex.split(run))


def build_limits(season: Season) -> BuildLimits:
    """The season's ``[ladder.build]`` over the defaults."""
    table, default = season.ladder.build, BuildLimits()
    return BuildLimits(
        time_s=float(table.get("time", default.time_s)),
        memory_bytes=int(table.get("memory", default.memory_bytes)),
        disk_bytes=int(table.get("disk", default.disk_bytes)),
        pids=int(table.get("pids", default.pids)),
    )


@dataclass
class Tally:
    """What this run of the service did, for its lines and its tests."""

    played: int = 0
    accepted: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def open_play_journal(season: Season) -> Journal:
    """The season's journal (created with its house bots and remote entrants if new)."""
    play = season.directory / PLAY
    play.mkdir(parents=True, exist_ok=True)
    play.chmod(0o700)
    journal = open_journal(play)
    if not journal.initialised:
        identity = {"ladder": season.name}
        journal.initialise(
            identity, season.config.to_dict(), [b.to_dict() for b in season.config.bots], []
        )
    return journal


class LadderService:
    """One run of a season's service."""

    def __init__(
        self,
        season: Season,
        *,
        lanes: int = 2,
        workers: int | None = None,
        say: Say = lambda line: None,
        rng: random.Random | None = None,
    ) -> None:
        self.season = season
        self.directory = season.directory
        self.lanes = lanes
        self.workers = workers
        self.say = say
        self.rng = rng or random.Random()
        self.store: SeasonStore = open_season(self.directory, create=True)
        for name in season.remote:
            if name not in {e for e, _ in self.store.entrants()}:
                self.store.add_entrant(name, remote=True)
        self.journal = open_play_journal(season)
        self.book = ratings_book.RatingsBook(self.store, season.ladder.rating)
        self.tally = Tally()
        self._stopping = asyncio.Event()
        self._changed = asyncio.Event()  # a job ended or the pool changed
        self._busy: dict[str, int] = {}  # bot -> matches in play
        self._running: dict[asyncio.Task[None], Job] = {}
        self._failure: BaseException | None = None
        self._finished: set[str] = set()  # the journal's matches
        self._waiting: list[Job] = []  # jobs to play before new ones (resumed, or lost)
        self.session = 0

    # --- the pool ------------------------------------------------------------------------------

    def pool(self) -> list[BotEntry]:
        """The house bots, each entrant's newest accepted version, and the remote entrants
        connected now (one that is away is not paired: its match would wait, then forfeit)."""
        house = list(self.season.config.local_bots)
        versions = [version_entry(self.directory, v) for v in self.store.active()]
        return house + [v for v in versions if not v.remote or self._connected(v.name)]

    def _connected(self, name: str) -> bool:
        executor = getattr(self, "executor", None)
        return isinstance(executor, HostedExecutor) and executor.lobby.connected(name) > 0

    def _executor(self) -> Executor:
        """One executor for the run: the house bots, the remote entrants and every version
        ever accepted (a resumed match may be an older version's); new ones join it as they
        are accepted (:meth:`Executor.add_bots`)."""
        versions = [version_entry(self.directory, v) for v in self.store.versions(status=ACCEPTED)]
        bots = (*self.season.config.bots, *(v for v in versions if not v.remote))
        known = set(self.journal.bot_names())
        self.journal.extend([b.to_dict() for b in bots if b.name not in known], [])
        config = self.season.config.with_changes(bots=bots, processes="fresh", check_bots=False)
        play = self.directory / PLAY
        if self.season.remote:
            return HostedExecutor(config, play, None, config.serve, self._listening, say=self.say)
        return make_executor(config, play, None, self.lanes, self.workers)

    def _listening(self, address: str) -> None:
        self.say(f"Remote entrants connect to {address}")

    def _join(self, version: Version) -> None:
        """An accepted version joins the executor's bots and the journal's."""
        entry = version_entry(self.directory, version)
        self.journal.extend([entry.to_dict()], [])
        self.executor.add_bots([entry])

    # --- matchmaking ---------------------------------------------------------------------------

    def _new_jobs(self) -> list[Job]:
        """Choose the next pairing and write its matches to the journal's schedule: one job
        per match, so that each match of a duplicate pair has fresh processes (a bot that kept
        its process would know the second match's deck from the first)."""
        candidates = [self.book.candidate(b.name) for b in self.pool()]
        chosen = choose(
            candidates,
            1,
            self.rng,
            busy=self._busy,
            max_per_bot=self.season.ladder.max_per_bot,
            duplicate=self.season.ladder.duplicate,
            model=self.book.model,
        )
        if not chosen:
            return []
        a, b = chosen[0].bots
        # A remote entrant is one program for all its matches: it would remember the deal.
        twice = chosen[0].duplicate and not {a, b} & set(self.season.remote)
        deal = self.store.next_number("deals")
        seed = deal_seed(self.store.deal_key, deal, self.season.config.rules, 0)
        specs = []
        for seats in [(a, b), (b, a)] if twice else [(a, b)]:
            n = self.store.next_number("matches")
            specs.append(MatchSpec(f"{a}.{b}.{n:06d}", n, 1, (a, b), n, deal, seed, seats))
        self.journal.extend([], specs)
        return [_job(spec) for spec in specs]

    def _unfinished(self) -> list[Job]:
        """The scheduled matches without a result (a run killed in play), as their jobs."""
        return [_job(s) for s in self.journal.schedule() if s.key not in self._finished]

    def _next_job(self) -> Job | None:
        """The first job waiting that shares no deal with a job in play (the other match of a
        duplicate pair waits for the first to end: never one deal twice at once), else a new
        pairing's first; None when neither can start now."""
        in_play = list(self._running.values())
        for attempt in range(2):
            job = next((j for j in self._waiting if not any(clash(j, r) for r in in_play)), None)
            if job is not None:
                self._waiting.remove(job)
                return job
            if attempt == 0 and len(self._waiting) < 2 * self.lanes:
                self._waiting.extend(self._new_jobs())
        return None

    # --- play ----------------------------------------------------------------------------------

    def _commit(self, record: MatchRecord) -> bool:
        if record.key in self._finished:
            return True
        self.journal.commit_match(record, self.session)
        self._finished.add(record.key)
        self.book.rate(record)
        self.tally.played += 1
        return not self._stopping.is_set()

    def _start(self, job: Job) -> None:
        """Start ``job``; its bots count as busy from now on."""
        for bot in job.bots:
            self._busy[bot] = self._busy.get(bot, 0) + 1
        task = asyncio.ensure_future(self._play(job))
        self._running[task] = job
        task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        self._running.pop(task, None)
        if not task.cancelled() and task.exception() is not None:
            self._failure = task.exception()  # a bug or a broken setup: the service stops
        self._changed.set()

    async def _play(self, job: Job) -> None:
        directory = self.directory / PLAY / "logs" / job.key
        try:
            kept = self.journal.log_paths([m.key for m in job.matches])
            _clean(directory, kept, self.directory / PLAY)
            await self.executor.run(job, directory, self._commit)
        except JobLost as exc:
            left = [m for m in job.matches if m.key not in self._finished]
            self.say(f"Ladder: job {job.key} lost ({exc}): its {len(left)} matches left wait")
            self._waiting[:0] = [_job(m) for m in left]
        finally:
            if any(m.key not in self._finished for m in job.matches):
                # A cut match's partial log goes now; a kill's, when its job is played again.
                kept = self.journal.log_paths([m.key for m in job.matches])
                _clean(directory, kept, self.directory / PLAY)
            for bot in job.bots:
                self._busy[bot] -= 1
            self._changed.set()

    async def _play_loop(self) -> None:
        self._waiting = self._unfinished()
        if self._waiting:
            left = len(self._waiting)
            what = "1 scheduled match has" if left == 1 else f"{left} scheduled matches have"
            self.say(f"Ladder: {what} no result: they are played first")
        while not self._stopping.is_set():
            self._changed.clear()
            if self._failure is not None:
                raise self._failure
            while len(self._running) < self.lanes and not self._stopping.is_set():
                job = self._next_job()
                if job is None:
                    break
                self._start(job)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), POLL)

    # --- submissions ---------------------------------------------------------------------------

    async def _pipeline_loop(self) -> None:
        for version in self.store.requeue_interrupted():
            self.say(f"Ladder: {version.name} was being built when the service stopped: again")
        while not self._stopping.is_set():
            self._freeze_at_deadline()
            queued = self._next_queued()
            if queued is None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), POLL)
                continue
            version = queued
            self.store.set_status(version.entrant, version.number, BUILDING)
            self.say(f"Ladder: building {version.name}")
            begin = time.perf_counter()
            try:
                accepted = await asyncio.to_thread(
                    pipeline.process,
                    archive_path(self.directory, version).read_bytes(),
                    version_dir(self.directory, version),
                    self.season.config,
                    self.season.caps,
                    build_limits(self.season),
                    log_path(self.directory, version),
                    self._house(self.season.validation).spec(),
                    version.name,
                )
            except SubmissionError as exc:
                self.store.set_status(
                    version.entrant,
                    version.number,
                    FAILED,
                    step=exc.step,
                    message=exc.message,
                    exit_status=exc.status,
                    tail=exc.tail,
                )
                self.tally.failed.append(version.name)
                self.say(failure_line(version.name, exc))
                continue
            self.store.set_status(
                version.entrant,
                version.number,
                ACCEPTED,
                language=accepted.language,
                command=split_command(accepted.run),
                transport=accepted.transport,
            )
            self._join(self.store.versions(version.entrant, ACCEPTED)[-1])
            self.tally.accepted.append(version.name)
            seconds = time.perf_counter() - begin
            self.say(f"Ladder: {version.name} accepted ({seconds:.0f} s): it joins the pool")
            self._changed.set()

    def _house(self, name: str) -> BotEntry:
        return next(b for b in self.season.config.local_bots if b.name == name)

    def _next_queued(self) -> Version | None:
        for version in self.store.versions(status=QUEUED):
            if archive_path(self.directory, version).exists():
                return version
            submitted = _dt.datetime.fromisoformat(version.submitted)
            if (_dt.datetime.now(_dt.UTC) - submitted).total_seconds() > ARRIVAL:
                self.store.set_status(
                    version.entrant,
                    version.number,
                    FAILED,
                    step="upload",
                    message="the archive never arrived (the upload was cut)",
                )
        return None

    def _freeze_at_deadline(self) -> None:
        deadline = self.season.ladder.deadline
        if (
            deadline is not None
            and self.store.meta("frozen") is None
            and _dt.datetime.now(_dt.UTC) >= deadline
        ):
            self.store.set_meta("frozen", deadline.isoformat())
            self.say("Ladder: the deadline has passed: submissions are closed")

    # --- the whole -----------------------------------------------------------------------------

    def stop(self) -> None:
        """Stop: no job starts; those in flight are cut (played again at the next start)."""
        self._stopping.set()
        self._changed.set()
        for task in self._running:
            task.cancel()

    async def run(self) -> Tally:
        """Rate what was left unrated, then build and play until :meth:`stop`."""
        self._finished = self.journal.finished_keys()
        unrated = self._finished - self.store.rated()
        # Reading every record is for a start after a kill: rarely, and only then.
        caught_up = self.book.catch_up(self.journal.records()) if unrated else 0
        if caught_up:
            self.say(f"Ladder: rated {caught_up} matches the last run journaled but had not rated")
        self.executor = self._executor()
        try:
            await self.executor.start()
        except BaseException:
            await self.executor.close(complete=False)
            self.journal.close()
            self.store.close()
            raise
        self.session = self.journal.start_session(self.lanes)
        wall, cpu = time.perf_counter(), time.process_time()
        tasks = [
            asyncio.ensure_future(self._pipeline_loop()),
            asyncio.ensure_future(self._play_loop()),
        ]
        status = "failed"
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                task.result()
            status = "interrupted"
        finally:
            self.stop()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, *self._running, return_exceptions=True)
            await self.executor.close(complete=False)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            self.journal.end_session(self.session, status, self.tally.played, wall, cpu, cpu)
            self.journal.close()
            self.store.close()
        return self.tally


def _job(spec: MatchSpec) -> Job:
    """One match, its bots fresh processes: the job's key is the logs' folder."""
    return Job(f"{'.'.join(spec.pairing)}/m{spec.game:06d}", (spec,), False)


def _clean(directory: Path, kept_logs: set[str], root: Path) -> None:
    """Delete what an unfinished match left in ``directory`` (its partial log, its bots'
    output), keeping the files of journaled matches."""
    if not directory.exists():
        return
    kept = {(root / p).parent / Path(p).name.split(".", 1)[0] for p in kept_logs}
    for path in sorted(directory.rglob("*"), reverse=True):
        if path.is_file() and path.parent / path.name.split(".", 1)[0] not in kept:
            path.unlink()


def run_service(season: Season, **options: Any) -> Tally:
    """Run the service until SIGINT or SIGTERM (for the command line)."""
    import signal

    async def main() -> Tally:
        service = LadderService(season, **options)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, service.stop)
        return await service.run()

    try:
        return asyncio.run(main())
    except GinRefError:
        raise
