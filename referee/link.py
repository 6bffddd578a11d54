"""What the per-match session needs of a bot, as small protocols, and the bot as a player.

The session (:mod:`referee.session`) talks to each seat through a :class:`SeatLink` (the real one
is :class:`referee.transport.BotLink`, a gRPC stream), asks a :class:`BotHandle` (the real one is
:class:`referee.bots.process.BotProcess`) how the process ended, and reads time from a
:class:`Clock` (the event loop). Unit tests drive the session through every fault with fakes of
all three and no process or socket (tests/referee/fakes.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from referee.bots.process import ExitStatus
from referee.faults import CONDUCT_RULE, Fault, FaultKind
from referee.wire import ginrummy_pb2 as pb

OnMessage = Callable[[pb.BotMessage, float], None]
OnLost = Callable[[str, bool], None]
OnInvalid = Callable[[str, float], None]


class SeatLink(Protocol):
    """A welcomed bot's stream: send to it; hear from it through the three callbacks.

    ``on_message(message, arrival_time)`` for every message the bot sends (the arrival on the
    link's clock); ``on_lost(reason, half_closed)`` once, when the stream ends from the bot's
    side; ``on_invalid(reason, arrival_time)`` for a message that could not be read. ``lost`` is
    why the stream ended (None while it is open); after a clean half-close (``half_closed``) the
    bot can still read what the referee sends.

    The link's clock is the machine's monotonic clock (the event loop's), read where the link
    meets the bot: for a sandboxed bot, in its relay process, so that the referee's own load
    never counts as the bot's time.
    """

    name: str
    version: str
    lost: str | None
    half_closed: bool
    on_message: OnMessage
    on_lost: OnLost
    on_invalid: OnInvalid

    def send(self, message: pb.RefereeMessage | bytes) -> None:
        """Queue one message, or one already serialized, for the bot; never waits (what the bot
        has not read yet waits in the link, which cuts a bot that leaves too much unread).
        Raises :class:`referee.errors.DisconnectedError` when the stream is gone."""

    def ask(self, request: bytes) -> int:
        """Queue a DecisionRequest as :meth:`send` does, and start the bot's clock for it;
        return the request's number for :meth:`started`."""

    def started(self, number: int) -> float:
        """When the bot's side had request ``number``, on the link's clock (a link that learns
        it later gives its best estimate until then: when the request was queued)."""

    async def settle(self) -> float:
        """The link's clock now, once every message its side has received from the bot has
        reached ``on_message``; raises :class:`referee.errors.DisconnectedError` if the link
        cannot tell (its side is gone)."""

    def close(self) -> None:
        """End the stream (the referee's side), once what is queued is written."""


class BotHandle(Protocol):
    """A bot's process, as far as the session cares: how it ended, and where its output went."""

    @property
    def output(self) -> Path:
        """The file with its stdout and stderr."""

    async def exit_code_within(self, seconds: float) -> int | None:
        """The exit code if the process exits within ``seconds``, else None."""

    def exit_text(self, code: int) -> str:
        """``exited with code N``, and the resource limit that ended it, if one did."""

    def exit_status(self) -> ExitStatus | None:
        """How the process ended (whether the referee ended it); None while it runs."""

    def pause(self, paused: bool) -> None:
        """Freeze the process between its turns, or thaw it (where the machine can)."""


class Clock(Protocol):
    """Time for deadlines: the running event loop, or a fake one in tests."""

    def time(self) -> float:
        """Seconds on a monotonic clock."""

    def call_at(self, when: float, callback: Callable[..., object], *args: Any) -> Timer:
        """Call ``callback(*args)`` when :meth:`time` reaches ``when``."""


class Timer(Protocol):
    """A callback scheduled by :meth:`Clock.call_at`."""

    def cancel(self) -> None:
        """Do not call it."""


class PlayerSession(Protocol):
    """The session a player's messages go to (:class:`referee.session.Session`)."""

    def on_message(self, conn: Player, message: pb.BotMessage, arrived: float) -> None: ...
    def on_lost(self, conn: Player, reason: str, half_closed: bool) -> None: ...
    def on_exit(self, conn: Player, code: int) -> None: ...
    def seat_of(self, conn: Player) -> int: ...
    def raise_fault(self, fault: Fault) -> None: ...


class Player:
    """One bot over a whole series, as the session sees it: its process, link and request ids.

    ``label`` and ``command`` name it in the log; ``gone`` says why it cannot play (it never
    connected, say) when it has no link.
    """

    def __init__(self, index: int, label: str, command: Sequence[str], proc: BotHandle) -> None:
        self.index = index  # 0: bot A, 1: bot B
        self.label = label
        self.command = tuple(command)
        self.proc = proc
        self.link: SeatLink | None = None
        self.gone: Fault | None = None  # why it can't play (never connected, left)
        self.next_id = 1
        self.abandoned: set[int] = set()  # requests whose late replies are ignored
        self.session: PlayerSession | None = None

    def attach(self, link: SeatLink) -> None:
        """Take ``link`` as this bot's connection; its messages go to the current session."""
        self.link = link
        link.on_message = self._on_message
        link.on_lost = self._on_lost
        link.on_invalid = self._on_invalid

    def _on_message(self, message: pb.BotMessage, arrived: float) -> None:
        if self.session is not None:
            self.session.on_message(self, message, arrived)

    def _on_lost(self, reason: str, half_closed: bool) -> None:
        if self.session is not None:
            self.session.on_lost(self, reason, half_closed)

    def _on_invalid(self, reason: str, arrived: float) -> None:
        if self.session is not None:
            seat = self.session.seat_of(self)
            self.session.raise_fault(Fault(seat, FaultKind.PROTOCOL_ERROR, CONDUCT_RULE, reason))

    def request_id(self) -> int:
        """A new request id: they run 1, 2, 3... over the whole series."""
        rid = self.next_id
        self.next_id += 1
        return rid

    @property
    def connected(self) -> bool:
        """Whether the bot can still answer (its stream is open both ways)."""
        return self.link is not None and self.link.lost is None

    @property
    def reachable(self) -> bool:
        """Whether the referee can still write to the bot (it may have half-closed)."""
        link = self.link
        return link is not None and (link.lost is None or link.half_closed)


def exited_callback(conn: Player) -> Callable[[asyncio.Future[int]], None]:
    """A done-callback for the process's exit future: tells the current session, if any."""

    def exited(future: asyncio.Future[int]) -> None:
        if conn.session is not None and not future.cancelled():
            conn.session.on_exit(conn, future.result())

    return exited
