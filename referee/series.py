"""Matches between the same bots, one after another: a :class:`Series` holds its bots for its
lifetime and plays one session per match.

::

    async with Series(bots, rules, seeds, out_dir, options) as series:
        for plan in series.plans:
            outcome = await series.play(plan)

Entering a series launches each bot once (:class:`~referee.lineup.Lineup`: its process, its
sandbox and cgroup, the referee server, or a remote bot's stream from the lobby) and waits for
each to connect; :meth:`Series.play` plays the next match over the same connections (seats
alternate unless told otherwise) and returns its :class:`~referee.results.MatchOutcome` once its
log is complete; leaving it stops the bots and releases all it holds, whatever happened. Each
bot's stdout and stderr go to ``<first log stem>.seat<N>.<label>.log`` beside the replay logs.
After the last match, each bot gets ``exit_grace`` seconds to exit by itself, then SIGTERM to
its whole process group, then SIGKILL after ``kill_grace``.

Sync and one-call faces of the same object: :func:`run_series` / :func:`run_series_async` (a
series played to its end) and :func:`run_match` / :func:`run_match_async` (one match, a fresh
process per bot).
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import os
import secrets
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from referee.bots.confine import Confinement
from referee.bots.spec import BotSpec
from referee.engine.rules import Rules
from referee.errors import ConfigError
from referee.fairness import DealSeal, GivenDecks
from referee.lineup import Entry, Lineup
from referee.lobby import Lobby, RemoteSeat
from referee.results import MatchOutcome, MatchPlan, SeriesOutcome
from referee.server import RefereeServer
from referee.session import OnSend, Session
from referee.settings import RefereeOptions


def new_match_id() -> str:
    """A match id: UTC time and 48 random bits; nothing in it comes from the match's seed."""
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(6)}"


class Series:
    """One match per seed between the same bots; an async context manager that owns them.

    ``bots`` are as many as ``rules.players`` (two, three or four, §10). Bot A plays seat 0 of
    the first match; with ``swap_seats`` the seats alternate (with more bots, each match moves
    every bot on one seat, so a partnership keeps its two bots together). Logs go to
    ``out_dir``; a bot that cannot play (it never connected, or left) forfeits each remaining
    match. Bots are confined as ``confinement`` says (default: one made from
    ``options.sandbox``, protecting ``out_dir``) and connect to ``server`` (default: one of the
    series' own). Only a bad option, or a sandbox the machine cannot build, raises
    (:class:`ConfigError`); bot faults are in the outcomes.

    A :class:`~referee.lobby.RemoteSeat` among ``bots`` is a remote bot: it is not launched,
    but one of its streams is taken from ``lobby`` (waiting up to the seat's ``wait`` while it
    has none open; then it forfeits) and handed back there when the series is over.

    ``on_send`` is the sessions' test hook (:data:`referee.session.OnSend`). ``decks[k]``, when
    given, are a deal file's decks for match ``k`` (:class:`~referee.fairness.GivenDecks`).
    """

    def __init__(
        self,
        bots: Sequence[BotSpec | RemoteSeat],
        rules: Rules,
        seeds: Sequence[int],
        out_dir: str | os.PathLike[str],
        options: RefereeOptions | None = None,
        *,
        swap_seats: bool = True,
        server: RefereeServer | None = None,
        confinement: Confinement | None = None,
        lobby: Lobby | None = None,
        on_send: OnSend | None = None,
        decks: Sequence[GivenDecks | None] = (),
    ) -> None:
        self.options = (options or RefereeOptions()).validate()
        if not seeds:
            raise ConfigError("a series needs at least one seed")
        if len(bots) != rules.players:
            raise ConfigError(
                f"players = {rules.players} needs {rules.players} bots, not {len(bots)} (§10)"
            )
        self.rules = rules
        self.out = Path(out_dir)
        self._on_send = on_send
        n = len(bots)
        series_id = new_match_id()
        plans: list[MatchPlan] = []
        for k, seed in enumerate(seeds):
            match_id = series_id if len(seeds) == 1 else f"{series_id}-m{k + 1}"
            shift = k if swap_seats else 0
            order = tuple((seat + shift) % n for seat in range(n))
            given = decks[k] if k < len(decks) else None  # a deal file's, for match k
            seal = None if given is None else DealSeal(seed, decks=given)
            path = self.out / f"{match_id}.jsonl"
            plans.append(MatchPlan(match_id, k + 1, seed, order, path, seal=seal))
        self.plans: tuple[MatchPlan, ...] = tuple(plans)
        first = plans[0]
        stem = first.log_path.name.removesuffix(".jsonl")
        entries = []
        for index, bot in enumerate(bots):
            seat = first.bots_by_seat.index(index)
            entries.append(Entry(bot, seat, self.out / f"{stem}.seat{seat}.{bot.name}.log"))
        self._lineup = Lineup(
            entries,
            self.options,
            f"of match {first.match_id}",
            server=server,
            confinement=confinement,
            lobby=lobby,
            protected=[self.out],
        )
        self.outcomes: list[MatchOutcome] = []
        self._entered = False
        # The first match's session, made before the bots connect so that its log records
        # their connections; the others are made as they start.
        self._first: Session | None = None

    @property
    def outcome(self) -> SeriesOutcome:
        """The matches played so far, and who sat where in each."""
        played = self.plans[: len(self.outcomes)]
        return SeriesOutcome(tuple(self.outcomes), tuple(p.bots_by_seat for p in played))

    async def __aenter__(self) -> Series:
        try:
            self.out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot create the log directory {str(self.out)!r}: {exc}") from None
        lineup = self._lineup
        await lineup.__aenter__()
        try:
            self._first = self._session(self.plans[0])
            await lineup.connect()
        except BaseException:
            await self.__aexit__(None, None, None)
            raise
        self._entered = True
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._entered = False
        if self._first is not None:  # never played: its log stays as far as it got
            self._first.log.close()
            self._first = None
        self._lineup.log = None
        await self._lineup.__aexit__(kind, error, trace)

    def _session(self, plan: MatchPlan) -> Session:
        lineup = self._lineup
        session = Session(
            plan, self.rules, lineup.players, self.options, len(self.plans), self._on_send
        )
        session.write_header()
        lineup.log = session
        return session

    async def play(self, plan: MatchPlan) -> MatchOutcome:
        """Play ``plan``, the next of :attr:`plans`, to its end; its outcome, once its log is
        complete (a bot's fault is in it, never raised)."""
        assert self._entered, "play a series inside 'async with'"
        played = len(self.outcomes)
        if played == len(self.plans) or plan is not self.plans[played]:
            raise ValueError(f"match {plan.match_id} is not the next match of this series")
        session = self._first if self._first is not None else self._session(plan)
        self._first = None
        # After the last match the bots are stopped before its log is complete, so that the
        # log records how each process ended.
        last = plan.number == len(self.plans)
        try:
            outcome = await session.run(self._lineup.stop if last else None)
        finally:
            self._lineup.log = None
        self.outcomes.append(outcome)
        return outcome


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
    confinement: Confinement | None = None,
    lobby: Lobby | None = None,
) -> SeriesOutcome:
    """Launch the bots once and play one match per seed between them: a :class:`Series`
    played to its end."""
    series = Series(
        bots,
        rules,
        seeds,
        out_dir,
        options,
        swap_seats=swap_seats,
        server=server,
        confinement=confinement,
        lobby=lobby,
        on_send=on_send,
    )
    async with series:
        for plan in series.plans:
            await series.play(plan)
    return series.outcome


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
