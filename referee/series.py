"""Matches between two bot processes: launch, connect, play one session per match, clean up.

Two entry points, each with an async core and a sync wrapper:

- :func:`run_match` / :func:`run_match_async`: one match, a fresh process per bot.
- :func:`run_series` / :func:`run_series_async`: several matches, one after another, between
  the same two processes over one connection each (seats alternate unless told otherwise).

Each bot is launched (:mod:`referee.bots.process`) with the launch contract
(:mod:`referee.bots.spec`); its stdout and stderr go to ``<log stem>.seat<N>.<label>.log``
beside the replay log. A caller learns of each match as it starts (``on_match_started``, with
its :class:`~referee.session.MatchPlan`) and as it ends (``on_match_finished``, with its
:class:`~referee.results.MatchOutcome`, once its log is complete and before the bots are told).
When the series is over, each bot gets ``exit_grace`` seconds to exit by itself, then SIGTERM to
its whole process group, then SIGKILL after ``kill_grace``.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import os
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.bots.confine import Confinement
from referee.bots.process import BotProcess
from referee.bots.spec import BotSpec, bot_environment
from referee.engine.rules import Rules
from referee.errors import ConfigError
from referee.faults import CONDUCT_RULE, Fault, FaultKind
from referee.link import Player, exited_callback
from referee.lobby import Lobby, RemoteHandle, RemoteSeat
from referee.results import MatchOutcome, MatchPlan, SeriesOutcome
from referee.server import RefereeServer, SeatTicket
from referee.session import OnFinished, OnSend, Session
from referee.settings import RefereeOptions
from referee.transport import BotLink

# Where the time a bot has to connect is set, named in the fault of a bot that took longer.
CONNECT_TIMEOUT_OPTION = "--connect-timeout, or connect_timeout in a tournament file's [time]"
# Called with each match's plan just before its session starts.
OnStarted = Callable[[MatchPlan], None]


@dataclass(slots=True)
class _Bot:
    """One bot of a series: what to launch, the process, its seat ticket, the session's view."""

    spec: BotSpec
    process: BotProcess
    ticket: SeatTicket
    player: Player


@dataclass(slots=True)
class _Remote:
    """A remote bot of a series: its lobby name, its stand-in process, the session's view."""

    seat: RemoteSeat
    handle: RemoteHandle
    player: Player
    link: BotLink | None = None  # the stream taken from the lobby


def new_match_id() -> str:
    """A match id: UTC time and 48 random bits; nothing in it comes from the match's seed."""
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(6)}"


async def run_series_async(
    bots: Sequence[BotSpec | RemoteSeat],
    rules: Rules,
    seeds: Sequence[int],
    out_dir: str | os.PathLike[str],
    options: RefereeOptions | None = None,
    *,
    swap_seats: bool = True,
    server: RefereeServer | None = None,
    on_send: OnSend | None = None,
    on_match_started: OnStarted | None = None,
    on_match_finished: OnFinished | None = None,
    confinement: Confinement | None = None,
    keep_going: Callable[[], bool] | None = None,
    lobby: Lobby | None = None,
) -> SeriesOutcome:
    """Launch both bots once and play one match per seed between them, one after another.

    ``keep_going`` is asked before every match but the first: False ends the series there
    (its bots are stopped as at its end, and the outcome holds the matches played).

    ``bots`` are as many as ``rules.players`` (two, three or four, §10). Bot A plays seat 0 of
    the first match; with ``swap_seats`` the seats alternate (with more bots, each match moves
    every bot on one seat, so a partnership keeps its two bots together). Logs go to
    ``out_dir``; a bot that cannot play (it never connected, or left) forfeits each remaining
    match. Bots are confined as ``confinement`` says (default: one made from
    ``options.sandbox``, protecting ``out_dir``). Only a bad option, or a sandbox the machine
    cannot build, raises (:class:`ConfigError`); bot faults are in the outcome.

    A :class:`~referee.lobby.RemoteSeat` among ``bots`` is a remote bot: it is not launched,
    but one of its streams is taken from ``lobby`` (waiting up to the seat's ``wait`` while it
    has none open; then it forfeits) and handed back there after the series.
    """
    options = (options or RefereeOptions()).validate()
    if not seeds:
        raise ConfigError("a series needs at least one seed")
    if len(bots) != rules.players:
        raise ConfigError(
            f"players = {rules.players} needs {rules.players} bots, not {len(bots)} (§10)"
        )
    n = len(bots)
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot create the log directory {str(out)!r}: {exc}") from None
    own_confinement = confinement is None
    if confinement is None:
        confinement = Confinement.prepare(options.sandbox, protected=[out])
    own_server = server is None
    if server is None:
        server = RefereeServer(
            hello_timeout=options.connect_timeout,
            max_message_bytes=options.limits.message_bytes,
            tcp=not confinement.settings.enabled,
        )
        await server.start()
    series_id = new_match_id()
    plans: list[MatchPlan] = []
    for k, seed in enumerate(seeds):
        match_id = series_id if len(seeds) == 1 else f"{series_id}-m{k + 1}"
        shift = k if swap_seats else 0
        order = tuple((seat + shift) % n for seat in range(n))
        plans.append(MatchPlan(match_id, k + 1, seed, order, out / f"{match_id}.jsonl"))
    if lobby is None and any(isinstance(b, RemoteSeat) for b in bots):
        raise ConfigError("a remote bot plays only on a hosted referee (ginref serve)")
    launched: list[_Bot] = []
    remotes: list[_Remote] = []
    players: list[Player] = []
    outcomes: list[MatchOutcome] = []
    session: Session | None = None

    def rejected_unknown(code: str, reason: str) -> None:
        if session is not None:
            session.log_rejected(None, code, reason)

    def new_session(plan: MatchPlan) -> Session:
        made = Session(
            plan, rules, players, options, len(seeds), on_send, on_finished=on_match_finished
        )
        made.write_header()
        return made

    stopped = False

    async def stop_bots(cut: bool = False) -> None:
        """End the streams and stop the processes (at once when the series is ``cut``)."""
        nonlocal stopped
        if stopped:
            return
        for bot in launched:
            if bot.player.link is not None:
                bot.player.link.close()
            server.revoke(bot.ticket)
        for remote in remotes:
            link = remote.link
            if link is None:
                continue
            if cut or lobby is None:
                link.close()  # cut in the middle of a match: the bot may connect again
            else:
                player = remote.player
                lobby.release(remote.seat.name, link, player.next_id, player.abandoned)
            remote.link = None
        grace = 0.0 if cut else options.exit_grace
        cause = "the series was cut short" if cut else None
        await asyncio.gather(
            *(b.process.stop(grace, options.kill_grace, cause) for b in launched),
            return_exceptions=True,
        )
        stopped = True

    server.rejection_listeners.append(rejected_unknown)
    try:
        first = plans[0]
        stem = first.log_path.name.removesuffix(".jsonl")
        for index, spec in enumerate(bots):
            seat = first.bots_by_seat.index(index)
            output = out / f"{stem}.seat{seat}.{spec.name}.log"
            if isinstance(spec, RemoteSeat):
                handle = RemoteHandle(output)
                player = Player(index, spec.name, (), handle)
                remotes.append(_Remote(spec, handle, player))
            else:
                ticket = server.issue_ticket(f"seat {seat} of match {first.match_id}")
                process = BotProcess(spec, output, options.limits, confinement)
                player = Player(index, spec.name, spec.command, process)
                launched.append(_Bot(spec, process, ticket, player))
            players.append(player)
        session = new_session(first)

        def now_playing() -> Session | None:
            return session

        await asyncio.gather(
            _launch_and_connect(launched, first, server, options, lambda: session),
            *(
                _take_from_lobby([r for r in remotes if r.seat.name == name], lobby, now_playing)
                for name in {r.seat.name for r in remotes}
                if lobby is not None
            ),
        )
        for k, plan in enumerate(plans):
            if k > 0:
                if keep_going is not None and not keep_going():
                    break
                session = new_session(plan)
            assert session is not None
            if on_match_started is not None:
                on_match_started(plan)
            # After the last match the bots are stopped before its log is complete, so that
            # the log records how each process ended.
            last = k == len(plans) - 1
            outcomes.append(await session.run(stop_bots if last else None))
            session = None
    finally:
        server.rejection_listeners.remove(rejected_unknown)
        current = asyncio.current_task()
        await stop_bots(cut=current is not None and current.cancelling() > 0)
        for bot in launched:
            await server.close_seat(bot.ticket)
        if own_server:
            await server.stop(grace=0.5)
        if own_confinement:
            confinement.close()
    return SeriesOutcome(tuple(outcomes), tuple(p.bots_by_seat for p in plans[: len(outcomes)]))


async def _take_from_lobby(
    seats: Sequence[_Remote], lobby: Lobby, current: Callable[[], Session | None]
) -> None:
    """Give each remote seat of one bot one of its idle streams, or its absence as a fault.

    One after another: a bot that plays itself needs a stream per seat, and while it holds
    fewer than that it counts as absent (its streams held here will not come back).
    """
    for held, remote in enumerate(seats):
        await _take_one(remote, lobby, current, held)


async def _take_one(
    remote: _Remote, lobby: Lobby, current: Callable[[], Session | None], held: int
) -> None:
    conn, name, wait = remote.player, remote.seat.name, remote.seat.wait
    remote.handle.note(f"remote bot {name}: waiting for one of its streams")
    taken = await lobby.acquire(name, wait, held)
    if taken is None:
        remote.handle.note(f"remote bot {name}: absent for {wait:g} s")
        conn.gone = Fault(
            0,
            FaultKind.NOT_CONNECTED,
            CONDUCT_RULE,
            f"the remote bot was not connected within {wait:g} s of its match being due "
            f"(absent_wait in the tournament file's [serve], or --absent-wait)",
        )
        return
    link, conn.next_id, conn.abandoned = taken
    remote.link = link
    conn.attach(link)
    remote.handle.note(f"remote bot {name}: playing on its stream from {link.peer}")
    session = current()
    if session is not None:
        session.log_connected(conn)


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


async def _launch_and_connect(
    bots: Sequence[_Bot],
    plan: MatchPlan,
    server: RefereeServer,
    options: RefereeOptions,
    current: Callable[[], Session | None],
) -> None:
    """Start every bot, then wait (concurrently) for each to connect or fail to."""

    def on_rejected(conn: Player) -> Callable[[str, str], None]:
        def report(code: str, reason: str) -> None:
            session = current()
            if session is not None:
                session.log_rejected(conn, code, reason)

        return report

    for bot in bots:
        bot.ticket.on_rejected = on_rejected(bot.player)
        seat = plan.bots_by_seat.index(bot.player.index)
        await launch(bot.process, bot.ticket, server, seat)

    async def connect(bot: _Bot) -> None:
        conn, proc, ticket = bot.player, bot.process, bot.ticket
        if proc.start_error is not None:
            conn.gone = Fault(0, FaultKind.NOT_CONNECTED, CONDUCT_RULE, proc.start_error)
            return
        waiting: set[asyncio.Future[Any]] = {ticket.connected, proc.exited, ticket.abused}
        await asyncio.wait(
            waiting, timeout=options.connect_timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if ticket.abused.done() and not ticket.connected.done():
            conn.gone = Fault(0, FaultKind.PROTOCOL_ERROR, CONDUCT_RULE, ticket.abused.result())
        elif ticket.connected.done():
            conn.attach(ticket.connected.result())
            session = current()
            if session is not None:
                session.log_connected(conn)
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
            late = f"it did not connect within {options.connect_timeout:g} s"
            # Nothing to wait for: stop it now, so that its log can say how it ended.
            await proc.stop(0.0, options.kill_grace, late)
            conn.gone = Fault(
                0,
                FaultKind.NOT_CONNECTED,
                CONDUCT_RULE,
                f"the bot did not connect within {options.connect_timeout:g} s "
                f"(raise it with {CONNECT_TIMEOUT_OPTION})",
            )

    await asyncio.gather(*(connect(b) for b in bots))


async def run_match_async(
    bot_a: BotSpec,
    bot_b: BotSpec,
    rules: Rules,
    seed: int,
    out_dir: str | os.PathLike[str],
    options: RefereeOptions | None = None,
    *,
    server: RefereeServer | None = None,
    on_send: OnSend | None = None,
    confinement: Confinement | None = None,
) -> MatchOutcome:
    """One match, bot A in seat 0, each bot in a fresh process."""
    series = await run_series_async(
        (bot_a, bot_b),
        rules,
        [seed],
        out_dir,
        options,
        server=server,
        on_send=on_send,
        confinement=confinement,
    )
    return series.matches[0]


def run_match(
    bot_a: BotSpec,
    bot_b: BotSpec,
    rules: Rules,
    seed: int,
    out_dir: str | os.PathLike[str],
    options: RefereeOptions | None = None,
    *,
    on_send: OnSend | None = None,
    confinement: Confinement | None = None,
) -> MatchOutcome:
    """Sync wrapper of :func:`run_match_async` (runs its own event loop)."""
    return asyncio.run(
        run_match_async(
            bot_a, bot_b, rules, seed, out_dir, options, on_send=on_send, confinement=confinement
        )
    )


def run_series(
    bots: Sequence[BotSpec],
    rules: Rules,
    seeds: Sequence[int],
    out_dir: str | os.PathLike[str],
    options: RefereeOptions | None = None,
    *,
    swap_seats: bool = True,
) -> SeriesOutcome:
    """Sync wrapper of :func:`run_series_async` (runs its own event loop)."""
    return asyncio.run(
        run_series_async(bots, rules, seeds, out_dir, options, swap_seats=swap_seats)
    )
