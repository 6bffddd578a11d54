"""The bots of a series for its whole lifetime: their processes or streams, the server they
connect to, the confinement they run in.

A :class:`Lineup` is an async context manager. Entering it prepares what it owns (a
:class:`~referee.bots.confine.Confinement` and a :class:`~referee.server.RefereeServer`, each
unless it is given one) and makes each bot's :class:`~referee.link.Player`;
:meth:`Lineup.connect` launches every local bot with the launch contract (:func:`launch`) and
waits for each to connect, and takes each remote bot's stream from the lobby
(:class:`~referee.lobby.RemoteBot`); a bot that cannot play has its player's ``gone`` fault
instead. Leaving it, whatever happened (an error, a cancellation, even a second one while it
releases), ends the streams (a remote bot's goes back to the lobby), stops every process
(``exit_grace`` to exit by itself, then SIGTERM to its whole process group, then SIGKILL after
``kill_grace``; at once when it is left by a cancellation), closes the seats and releases its own
server and confinement.

Connections are recorded in the match being played, :attr:`Lineup.log` (the series' current
:class:`~referee.session.Session`): each bot's, and every refused one.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

from referee.bots.confine import Confinement
from referee.bots.process import BotProcess
from referee.bots.spec import BotSpec, bot_environment
from referee.errors import ConfigError
from referee.faults import CONDUCT_RULE, Fault, FaultKind
from referee.link import Player, exited_callback
from referee.lobby import Lobby, RemoteBot, RemoteSeat, take_streams
from referee.server import RefereeServer, SeatTicket
from referee.settings import RefereeOptions

# Where the time a bot has to connect is set, named in the fault of a bot that took longer.
CONNECT_TIMEOUT_OPTION = "--connect-timeout, or connect_timeout in a tournament file's [time]"


class ConnectionLog(Protocol):
    """Where a lineup records its bots' connections: the match being played."""

    def log_connected(self, conn: Player) -> None: ...
    def log_rejected(self, conn: Player | None, code: str, reason: str) -> None: ...


@dataclass(frozen=True, slots=True)
class Entry:
    """A bot of a lineup: what to start (or the remote bot), its seat in its first match, and
    the file its output goes to."""

    bot: BotSpec | RemoteSeat
    seat: int
    output: Path


@dataclass(slots=True)
class _Launched:
    """A bot the lineup starts: what to launch, the process, its seat ticket, its player."""

    spec: BotSpec
    process: BotProcess
    ticket: SeatTicket
    player: Player


class Lineup:
    """Bots held for a series: ``async with Lineup(...) as lineup: await lineup.connect()``.

    ``occasion`` ends each seat ticket's label (``seat 1 of match ...``). A server, a
    confinement or a lobby given is shared and stays as it was; what the lineup makes itself
    (its server, and its confinement, hiding ``protected`` from the bots) goes with it.
    ``connect_hint`` says in a late bot's fault which option gives it more time (None: no
    option does). ``options`` are validated.
    """

    def __init__(
        self,
        entries: Sequence[Entry],
        options: RefereeOptions,
        occasion: str,
        *,
        server: RefereeServer | None = None,
        confinement: Confinement | None = None,
        lobby: Lobby | None = None,
        protected: Sequence[Path] = (),
        connect_hint: str | None = CONNECT_TIMEOUT_OPTION,
    ) -> None:
        if lobby is None and any(isinstance(e.bot, RemoteSeat) for e in entries):
            raise ConfigError("a remote bot plays only on a hosted referee (ginref serve)")
        self.entries = tuple(entries)
        self.options = options
        self.occasion = occasion
        self.lobby = lobby
        self.protected = tuple(protected)
        self.connect_hint = connect_hint
        self._server = server
        self._own_server = server is None
        self._confinement = confinement
        self._own_confinement = confinement is None
        self.players: list[Player] = []  # by bot index, once entered
        self.log: ConnectionLog | None = None
        self._launched: list[_Launched] = []
        self._remotes: list[RemoteBot] = []
        self._unknown = functools.partial(self._rejected, None)
        self._listening = False
        self._stopped = False

    @property
    def server(self) -> RefereeServer:
        """The server the bots connect to (once entered)."""
        assert self._server is not None, "enter the lineup first"
        return self._server

    # --- the lifetime ----------------------------------------------------------------------------

    async def __aenter__(self) -> Lineup:
        try:
            await self._prepare()
        except BaseException:
            await self.__aexit__(None, None, None)
            raise
        return self

    async def _prepare(self) -> None:
        options = self.options
        if self._confinement is None:
            self._confinement = Confinement.prepare(options.sandbox, protected=self.protected)
        confinement = self._confinement
        if self._server is None:
            self._server = RefereeServer(
                hello_timeout=options.connect_timeout,
                max_message_bytes=options.limits.message_bytes,
                tcp=not confinement.settings.enabled,
            )
            await self._server.start()
        server = self._server
        server.rejection_listeners.append(self._unknown)
        self._listening = True
        for index, entry in enumerate(self.entries):
            bot = entry.bot
            if isinstance(bot, RemoteSeat):
                remote = RemoteBot(bot, index, entry.output)
                self._remotes.append(remote)
                self.players.append(remote.player)
                continue
            ticket = server.issue_ticket(f"seat {entry.seat} {self.occasion}")
            process = BotProcess(bot, entry.output, options.limits, confinement)
            player = Player(index, bot.name, bot.command, process)
            ticket.on_rejected = functools.partial(self._rejected, player)
            self._launched.append(_Launched(bot, process, ticket, player))
            self.players.append(player)

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        current = asyncio.current_task()
        cut = current is not None and current.cancelling() > 0
        await run_to_the_end(self._release(cut))

    async def _release(self, cut: bool) -> None:
        try:
            if self._listening:
                self.server.rejection_listeners.remove(self._unknown)
                self._listening = False
            await self.stop(cut)
            for bot in self._launched:
                await self.server.close_seat(bot.ticket)
        finally:
            try:
                if self._own_server and self._server is not None:
                    await self._server.stop(grace=0.5)
            finally:
                if self._own_confinement and self._confinement is not None:
                    self._confinement.close()
                    self._confinement = None

    async def stop(self, cut: bool = False) -> None:
        """End the streams and stop the processes (at once when the series is ``cut``); once."""
        if self._stopped:
            return
        for bot in self._launched:
            if bot.player.link is not None:
                bot.player.link.close()
            self.server.revoke(bot.ticket)
        for remote in self._remotes:
            remote.give_back(self.lobby, cut)
        options = self.options
        grace = 0.0 if cut else options.exit_grace
        cause = "the series was cut short" if cut else None
        await asyncio.gather(
            *(b.process.stop(grace, options.kill_grace, cause) for b in self._launched),
            return_exceptions=True,
        )
        self._stopped = True

    # --- connecting ------------------------------------------------------------------------------

    async def connect(self) -> None:
        """Start every local bot and take every remote bot's stream, then wait (concurrently)
        for each to connect or fail to (its player's ``gone`` then says why)."""
        lobby = self.lobby
        names = dict.fromkeys(r.seat.name for r in self._remotes)
        await asyncio.gather(
            self._launch_and_connect(),
            *(
                take_streams([r for r in self._remotes if r.seat.name == name], lobby, self._logged)
                for name in names
                if lobby is not None
            ),
        )

    def _logged(self, conn: Player) -> None:
        if self.log is not None:
            self.log.log_connected(conn)

    def _rejected(self, conn: Player | None, code: str, reason: str) -> None:
        if self.log is not None:
            self.log.log_rejected(conn, code, reason)

    async def _launch_and_connect(self) -> None:
        for bot in self._launched:
            seat = self.entries[bot.player.index].seat
            await launch(bot.process, bot.ticket, self.server, seat)
        await asyncio.gather(*(self._connect(b) for b in self._launched))

    async def _connect(self, bot: _Launched) -> None:
        conn, proc, ticket = bot.player, bot.process, bot.ticket
        timeout = self.options.connect_timeout
        if proc.start_error is not None:
            conn.gone = Fault(0, FaultKind.NOT_CONNECTED, CONDUCT_RULE, proc.start_error)
            return
        waiting: set[asyncio.Future[Any]] = {ticket.connected, proc.exited, ticket.abused}
        await asyncio.wait(waiting, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if ticket.abused.done() and not ticket.connected.done():
            conn.gone = Fault(0, FaultKind.PROTOCOL_ERROR, CONDUCT_RULE, ticket.abused.result())
        elif ticket.connected.done():
            conn.attach(ticket.connected.result())
            self._logged(conn)
            proc.exited.add_done_callback(exited_callback(conn))
        elif proc.exited.done():
            code = proc.exited.result()
            conn.gone = Fault(
                0,
                FaultKind.NOT_CONNECTED,
                CONDUCT_RULE,
                f"the bot {proc.exit_text(code)} without connecting",
            )
        else:
            late = f"it did not connect within {timeout:g} s"
            # Nothing to wait for: stop it now, so that its log can say how it ended.
            await proc.stop(0.0, self.options.kill_grace, late)
            hint = f" (raise it with {self.connect_hint})" if self.connect_hint else ""
            conn.gone = Fault(
                0,
                FaultKind.NOT_CONNECTED,
                CONDUCT_RULE,
                f"the bot did not connect within {timeout:g} s{hint}",
            )


async def launch(process: BotProcess, ticket: SeatTicket, server: RefereeServer, seat: int) -> None:
    """Start ``process`` for ``ticket``'s seat (``seat`` in its first match): its own socket and
    listener when it is sandboxed, then the launch contract; failures go to
    ``process.start_error``."""
    try:
        socket = process.prepare()
        if socket is not None:
            await server.listen_unix(ticket, socket, process.uid, process.relay_cgroups())
            if ticket.relay is not None:
                process.helpers.append(ticket.relay.stop)
    except ConfigError as exc:
        process.start_error = f"cannot sandbox {process.spec.name}: {exc}"
        return
    address = process.address(server.address)
    await process.start(bot_environment(address, ticket.token, seat, extra=process.spec.env))


async def run_to_the_end(work: Coroutine[Any, Any, None]) -> None:
    """Run ``work`` to its end even if this task is cancelled meanwhile, then go on being
    cancelled: a release cut halfway would leave processes and cgroups behind."""
    task = asyncio.ensure_future(work)
    cancelled: asyncio.CancelledError | None = None
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError as exc:
            cancelled = exc
    task.result()
    if cancelled is not None:
        raise cancelled
