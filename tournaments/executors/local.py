"""Where matches are played: the executor interface and the local-process executor.

The scheduler hands an executor a :class:`~tournaments.schedule.Job` (one match, or a series
of one pairing's matches with the same two bot processes) and a callback. The executor plays
the matches in order and calls ``on_match`` with each finished match's
:class:`~tournaments.journal.records.MatchRecord` as soon as its replay log is complete; a false
return asks it to stop the job after that match (the scheduler plays the rest as a new job). That is
all the scheduler and the journal know about execution, so a distributed executor can take this
one's place: it needs only to deliver each match's log and record, the record built from its
referee's outcome (:func:`~tournaments.journal.records.record_from_outcome`), not from the log.

:class:`LocalExecutor` plays each job as a :class:`~referee.series.Series` of local processes, all
of a tournament's matches on one shared referee server.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from referee.bot_check import BotCheck, check_bots
from referee.bots.confine import Confinement
from referee.bots.sandbox import check_bot
from referee.errors import ConfigError, GinRefError
from referee.lobby import Lobby, RemoteSeat
from referee.series import Series
from referee.server import RefereeServer
from tournaments.file.bots import BotEntry
from tournaments.file.config import TournamentConfig
from tournaments.journal.records import MatchRecord, record_from_outcome
from tournaments.schedule import Job

# Called with each finished match; returns whether to go on with the job.
OnMatch = Callable[[MatchRecord], bool]


def cores() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover (not Linux)
        return max(1, os.cpu_count() or 1)


def refuse_remote(
    config: TournamentConfig, run_it: str = "run this tournament with 'ginref serve'"
) -> None:
    """A :class:`ConfigError` if the tournament has remote bots: only a hosted referee's
    lobby takes them."""
    remote = [b.name for b in config.bots if b.remote]
    if remote:
        raise ConfigError(f"{', '.join(remote)}: remote bots connect to a hosted referee; {run_it}")


class JobLost(GinRefError):
    """The process playing a job died (a worker killed, say): the job's matches not yet
    reported are lost, and the runner plays them again. The matches it reported stand."""


class Executor(Protocol):
    """Plays jobs; one instance serves a whole tournament run."""

    async def start(self) -> None:
        """Get ready (start servers, connect to workers)."""

    async def close(self, complete: bool = False) -> None:
        """Release everything :meth:`start` took (``complete``: the tournament is over, not
        stopped, so that waiting bots may be told so)."""

    async def run(self, job: Job, directory: Path, on_match: OnMatch) -> None:
        """Play ``job``'s matches in order, logs under ``directory``; report each finished one.

        Cancellation stops the job at once (its unfinished match is lost, its partial log may
        stay in ``directory``). A bot's fault is a result, never an exception; a process of
        the executor's own that dies under the job is :class:`JobLost`.
        """

    async def check(self, bots: Sequence[str], directory: Path, concurrency: int) -> list[BotCheck]:
        """Start each bot once as its matches will start it and wait for its Hello,
        ``concurrency`` at once; each one's output under ``directory``."""

    def add_bots(self, bots: Sequence[BotEntry]) -> None:
        """Bots that join a run in progress (a ladder's new versions), checked as the
        tournament's were at :meth:`start`: none may see a protected path."""


class LocalExecutor:
    """Bots as local processes, refereed in this process over one gRPC server."""

    def __init__(
        self, config: TournamentConfig, root: Path, confinement: Confinement | None = None
    ) -> None:
        self.config = config
        self.rules = config.rules
        self.options = config.options
        self.root = root
        self.specs = {b.name: b.spec() for b in config.local_bots}
        self.remote = [b.name for b in config.bots if b.remote]
        self.server: RefereeServer | None = None
        self.lobby: Lobby | None = None  # remote bots' streams (a hosted referee's only)
        # What no bot may see: the tournament's directory (journal, logs, standings) and file.
        self.protected = [root, *config.inputs]
        self.confinement = confinement
        self._own_confinement = confinement is None
        self.absent_wait = 0.0  # how long a remote bot may be absent when its match is due

    async def start(self) -> None:
        """Check the sandbox can be built; start the shared referee server."""
        if self.lobby is None:
            refuse_remote(self.config)
        if self.confinement is None:
            # Before any match: a bot whose view would hold the results is the file's mistake.
            self.confinement = Confinement.prepare(
                self.options.sandbox, self.protected, self.specs.values()
            )
        self.server = RefereeServer(
            hello_timeout=self.options.connect_timeout,
            max_message_bytes=self.options.limits.message_bytes,
            tcp=not self.confinement.settings.enabled,
        )
        await self.server.start()

    async def close(self, complete: bool = False) -> None:
        """Stop the server; remove the bots' socket directory."""
        if self.server is not None:
            await self.server.stop(grace=0.5)
            self.server = None
        if self.confinement is not None and self._own_confinement:
            self.confinement.close()
            self.confinement = None  # closed once, however often close() is called

    def add_bots(self, bots: Sequence[BotEntry]) -> None:
        """Bots that join the run (a ladder's new versions); checked as at :meth:`start`."""
        known = {b.name for b in self.config.bots}
        new = tuple(b for b in bots if b.name not in known)
        specs = {b.name: b.spec() for b in new if not b.remote}
        if self.confinement is not None and self.confinement.settings.enabled:
            for spec in specs.values():
                check_bot(spec, self.confinement.protected)
        self.specs.update(specs)
        self.remote += [b.name for b in new if b.remote]
        self.config = dataclasses.replace(self.config, bots=self.config.bots + new)

    async def check(self, bots: Sequence[str], directory: Path, concurrency: int) -> list[BotCheck]:
        """Check the bots on the shared server, confined as their matches will be."""
        assert self.server is not None, "start() first"
        # A remote bot is nobody's to start: it connects when its entrant runs it.
        specs = [self.specs[name] for name in bots if name in self.specs]
        return await check_bots(
            specs, directory, self.server, self.options, self.confinement, concurrency
        )

    async def run(self, job: Job, directory: Path, on_match: OnMatch) -> None:
        """Play the job as one :class:`~referee.series.Series` (a series of one in fresh mode),
        reporting each match as soon as its log is complete, not when the series is over."""
        directory.mkdir(parents=True, exist_ok=True)
        launched = time.perf_counter()
        # The bots in the seats of the job's first match; the series moves them on match by
        # match as the schedule does (two swap, more move one seat).
        wait = 0.0 if self.lobby is None else self.absent_wait
        bots = tuple(
            RemoteSeat(name, wait) if name in self.remote else self.specs[name] for name in job.bots
        )
        deals = self.config.deals  # a deal file's decks, for the deals that hold some
        series = Series(
            bots,
            self.rules,
            [m.seed for m in job.matches],
            directory,
            self.options,
            swap_seats=True,
            server=self.server,
            confinement=self.confinement,
            lobby=self.lobby,
            decks=[deals.decks(m.deal) for m in job.matches] if deals else (),
        )
        async with series:  # the bots are launched and connected here
            for spec, plan in zip(job.matches, series.plans, strict=True):
                begin = time.perf_counter()
                outcome = await series.play(plan)
                record = record_from_outcome(
                    outcome,
                    spec,
                    self.root,
                    # The match itself: the last one's outcome comes once its bots are stopped.
                    elapsed_s=round(outcome.elapsed, 4),
                    startup_s=round(begin - launched, 4) if plan.number == 1 else None,
                )
                if not on_match(record):
                    break  # the series ends after this match, its bots stopped as usual
