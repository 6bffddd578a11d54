"""A hosted referee's executor: remote bots connect to it, local bots are started as usual.

:class:`HostedExecutor` is the local executor (:class:`~tournaments.executors.local.LocalExecutor`:
sandboxed local bots on the referee's own internal server) plus a public listener for remote
bots: TLS on the ``[serve]`` address (plain text only on loopback), each Hello checked against
the tournament's tokens (:class:`~tournaments.tokens.TokenCheck`), and the remote bots' streams
kept in a :class:`~referee.lobby.Lobby` until the schedule needs them. Play starts when the
``[serve]`` ``start`` says (now, at a time, or once every remote bot is connected): the local
bots are checked first, then the first match waits, and the remote bots' absence waits count
from then. Everything else — the schedule, the journal, resume after a kill, the standings —
is the tournament runner's, as for a tournament of local bots only.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from referee.bot_check import BotCheck
from referee.bots.confine import Confinement
from referee.lobby import Lobby
from referee.server import RefereeServer
from tournaments.executors.lobby_lines import format_lobby, format_streams, format_waiting
from tournaments.executors.local import LocalExecutor, OnMatch
from tournaments.file.config import TournamentConfig
from tournaments.file.serve import ServeSettings, split_address, start_time
from tournaments.journal.store import out_of_play
from tournaments.live.lobby import lobby_rows, write_lobby
from tournaments.runner import RunStopped
from tournaments.schedule import Job
from tournaments.tokens import TokenCheck

TOKEN_POLL = 1.0  # seconds between looks at the tokens file, to end a revoked bot's streams
# Seconds between two looks at whether the run was stopped while play waits to start (the
# runner is told of a Ctrl-C; nothing wakes a waiter).
STOP_POLL = 0.2
# Seconds between two summaries of the lobby on the console while play waits to start.
LOBBY_SUMMARY = 60.0
# Seconds the stopped servers' calls may take to wind down (_calls_wound_down).
WIND_DOWN = 2.0


class HostedExecutor(LocalExecutor):
    """Local bots as local processes, remote bots over the public listener's lobby."""

    def __init__(
        self,
        config: TournamentConfig,
        root: Path,
        confinement: Confinement | None = None,
        settings: ServeSettings | None = None,
        on_listening: Callable[[str], None] | None = None,
        *,
        say: Callable[[str], None] | None = None,
        halting: Callable[[], bool] | None = None,
    ) -> None:
        """``say``: where the lobby's lines go (the console); ``halting``: whether the run was
        stopped (Ctrl-C), asked while play waits to start."""
        super().__init__(config, root, confinement)
        self.settings = settings or config.serve
        self.absent_wait = self.settings.absent_wait
        # The remote bots still in play: a withdrawn one is not shown, waited for or asked for
        # its token (its matches never start).
        out = out_of_play(root)
        self.entrants = [name for name in self.remote if name not in out]
        self.tokens = TokenCheck(root, set(self.entrants))
        self.lobby: Lobby = Lobby(self.tokens)
        self.public: RefereeServer | None = None
        self._watch: asyncio.Task[None] | None = None
        self._on_listening = on_listening
        self._say = say or (lambda line: None)
        self._halting = halting or (lambda: False)
        self._changed = asyncio.Event()  # the lobby changed: a waiting start looks again
        self.lobby.watchers.append(self._streams_changed)
        self._started: asyncio.Task[bool] | None = None
        self._closing = False  # the end closes every stream: that is no news

    def _streams_changed(self, name: str, streams: int, peer: str | None) -> None:
        self._changed.set()
        self._show_lobby()
        if not self._closing:
            self._say(format_streams(name, streams, peer))

    def _show_lobby(self) -> None:
        """The lobby for the live page (``lobby.json``)."""
        counts = {name: self.lobby.connected(name) for name in self.entrants}
        revoked = {n for n in self.entrants if self.lobby.barred(n)}
        with contextlib.suppress(OSError):  # the page lags; the tournament goes on
            write_lobby(self.root, lobby_rows(counts, revoked))

    def _handshake_failed(self, peer: str, why: str) -> None:
        self._say(f"TLS handshake with {peer} failed: {why}")

    def lobby_summary(self) -> str:
        """Each remote bot connected with its streams, and those missing, in a line."""
        counts = {name: self.lobby.connected(name) for name in self.entrants}
        return format_lobby(counts, {n for n in self.entrants if self.lobby.barred(n)})

    @property
    def address(self) -> str:
        """``host:port`` where remote bots connect (the real port once started)."""
        return self.public.address if self.public is not None else self.settings.address

    async def start(self) -> None:
        """Start the local server and sandbox, then the public listener."""
        await super().start()
        host, port = split_address(self.settings.address, "address")
        self.public = RefereeServer(
            host,
            port,
            hello_timeout=self.options.connect_timeout,
            max_message_bytes=self.options.limits.message_bytes,
            tls=self.settings.tls,
            lobby=self.lobby,
        )
        await self.public.start()
        self._show_lobby()
        front = self.public.front
        if front is not None and self.settings.tls is not None:
            front.mutual = self.settings.client_ca is not None
            front.on_handshake_failed = self._handshake_failed
        self.lobby.bar(set(self.tokens.missing()))
        self._watch = asyncio.ensure_future(self._watch_tokens())
        if self._on_listening is not None:
            self._on_listening(self.public.address)

    async def check(self, bots: Sequence[str], directory: Path, concurrency: int) -> list[BotCheck]:
        """Check the local bots, then (if they all passed) wait for play to start; a stop
        while waiting is :class:`~tournaments.runner.RunStopped`, as during the check."""
        checks = await super().check(bots, directory, concurrency)
        if all(c.ok for c in checks) and not await self.started():
            raise RunStopped("stopped while waiting for play to start")
        return checks

    async def run(self, job: Job, directory: Path, on_match: OnMatch) -> None:
        """Play the job once play has started (at once, if it has); nothing if the run was
        stopped before."""
        if await self.started():
            await super().run(job, directory, on_match)

    async def started(self) -> bool:
        """Wait for play to start (once for the whole run); False if the run was stopped."""
        if self._started is None:
            self._started = asyncio.ensure_future(self._wait_for_start())
        return await asyncio.shield(self._started)

    async def _wait_for_start(self) -> bool:
        when = start_time(self.settings.start, datetime.now().astimezone())
        loop = asyncio.get_running_loop()
        said, summary = "", loop.time()
        while True:
            self._changed.clear()
            if self._halting():
                return False
            now = datetime.now().astimezone()
            missing = [n for n in self.entrants if not self._present(n)]
            if (when is None and not missing) or (when is not None and now >= when):
                self._say("Play starts now.")
                self._say(self.lobby_summary())
                return True
            # A moment is said once (not each tick), the bots still missing as they change;
            # the whole lobby at first and then every LOBBY_SUMMARY seconds.
            line = format_waiting(when, now, missing) if when is None or not said else said
            if line != said:
                self._say(line)
            if not said or loop.time() >= summary:
                self._say(self.lobby_summary())
                summary = loop.time() + LOBBY_SUMMARY
            said = line
            timeout = STOP_POLL if when is None else min(STOP_POLL, (when - now).total_seconds())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), timeout)

    def _present(self, name: str) -> bool:
        """Whether ``name`` is there for play to start: connected, or barred (its token
        revoked: it cannot come, and its matches forfeit at once)."""
        return self.lobby.connected(name) > 0 or self.lobby.barred(name)

    async def _watch_tokens(self) -> None:
        """End the idle streams of a bot whose token was revoked or re-issued, and bar the bots
        without a token from their matches (none is waited for: it cannot connect)."""
        assert self.lobby is not None
        while True:
            await asyncio.sleep(TOKEN_POLL)
            for bot in self.tokens.take_changed():
                self.lobby.drop(bot)
            self.lobby.bar(set(self.tokens.missing()))

    async def close(self, complete: bool = False) -> None:
        """End the remote bots' streams (status OK when the tournament is ``complete``; else
        the listener's stop ends them with UNAVAILABLE, so that their bots know to come back),
        stop the public listener, then the rest."""
        self._closing = True
        if self._started is not None and not self._started.done():
            self._started.cancel()
        if self._watch is not None:
            self._watch.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch
            self._watch = None
        if self.lobby is not None and complete:
            self.lobby.close()
        if self.public is not None:
            await self.public.stop(grace=0.5)
            self.public = None
        await super().close(complete)
        await _calls_wound_down()


async def _calls_wound_down() -> None:
    """Wait, a bounded while, for the tasks that grpc keeps for each call of a stopped server.

    grpc ends a call's task only after its server has stopped, once the call's close has come
    back from its core; a task still pending when the event loop closes is cancelled there and
    grpc prints a traceback for it (a Ctrl-C while remote bots' streams wait in the lobby)."""
    calls = [
        task
        for task in asyncio.all_tasks()
        if getattr(task.get_coro(), "__qualname__", "") == "_schedule_rpc_coro"
    ]
    if calls:
        await asyncio.wait(calls, timeout=WIND_DOWN)
