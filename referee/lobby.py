"""Remote bots of a hosted referee: their streams between matches, and their seats in a match.

A remote bot is not started by the referee: it runs on its entrant's machine, connects with its
own token (not a seat's) and waits in the :class:`Lobby` with no message until the schedule
gives it a match. The match runner then takes one of its idle streams (:meth:`Lobby.acquire`),
plays the match over it exactly as over a launched bot's, and hands it back
(:meth:`Lobby.release`), so the stream plays one match after another. A bot may hold as many
streams as its Hello's ``concurrent_matches`` (default 1); a stream that breaks is forgotten,
and the bot may connect again.

Absence: :meth:`Lobby.acquire` waits for an idle stream; it gives up (None: the bot forfeits that
match) only after the bot has had no stream open at all for ``wait`` seconds without a break.
Once one match has waited that long, the bot's other matches are given up at once, those waiting
and those to come, until it connects again: a bot that has left costs one wait, not one per
match. A bot that is connected but busy in its other matches is waited for as long as that
takes. A barred bot (its token revoked: :meth:`Lobby.bar`) cannot connect, so it is not waited
for at all.

Request ids run on per stream, not per match, so that a late reply to a request of an earlier
match can never be taken for the answer to a new one.

In a series (:mod:`referee.series`) a remote bot is a :class:`RemoteBot`: it takes its stream
(:meth:`RemoteBot.take`, :func:`take_streams`) where a launched bot would start its process,
and gives it back (:meth:`RemoteBot.give_back`) where a launched bot is stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path

from referee.bots.process import ExitStatus
from referee.faults import CONDUCT_RULE, Fault, FaultKind
from referee.link import Player
from referee.transport import BotLink, StreamEnd

# The most streams one remote bot may hold, whatever its Hello says.
MAX_STREAMS = 16

# A token -> the remote bot it belongs to (None: no remote bot has it).
TokenCheck = Callable[[str], str | None]
# Told as a bot's streams come and go: its name, how many it holds now, and where the new one
# connected from (None: one ended).
OnStreams = Callable[[str, int, str | None], None]

# How a remote bot's stream ends when the competition is over: its client stops with success.
# No message: gRPC carries none with status OK, whose meaning here is just that.
COMPETITION_OVER = StreamEnd("OK")
# How it ends when a match of it was cut short (the referee stops): its client connects again.
MATCH_CUT = StreamEnd("UNAVAILABLE", "the referee stopped this match; connect again")


def revoked(name: str) -> StreamEnd:
    """How a revoked (or re-issued) token's streams end: its client stops with failure."""
    return StreamEnd(
        "PERMISSION_DENIED",
        f"the organiser revoked {name}'s token ('ginref tokens revoke', or a new token issued): "
        "this bot may not play on with it",
    )


@dataclasses.dataclass(frozen=True, slots=True)
class RemoteSeat:
    """A seat a remote bot plays (in place of a :class:`~referee.bots.spec.BotSpec`)."""

    name: str
    wait: float  # seconds the bot may be absent when its match is due


@dataclasses.dataclass(slots=True)
class _Stream:
    link: BotLink
    next_id: int = 1
    abandoned: set[int] = dataclasses.field(default_factory=set)
    matches: int = 0
    end: StreamEnd | None = None  # set: it ends so when its match does (revoked, over)


class _Bot:
    def __init__(self, name: str) -> None:
        self.name = name
        self.open: list[_Stream] = []  # every stream, idle or playing
        self.idle: list[_Stream] = []
        self.changed = asyncio.Event()
        # A match of it waited its absence out: the next ones do not wait (until it connects).
        self.waited_out = False

    def touch(self) -> None:
        """Wake every waiter (a stream came, went or became idle)."""
        self.changed.set()
        self.changed = asyncio.Event()


class Lobby:
    """Remote bots' streams by bot name; ``check`` tells a remote bot's token from others."""

    def __init__(self, check: TokenCheck, max_streams: int = MAX_STREAMS) -> None:
        self.check = check
        self.max_streams = max_streams
        self._bots: dict[str, _Bot] = {}
        self._barred: set[str] = set()
        self.watchers: list[OnStreams] = []

    def _bot(self, name: str) -> _Bot:
        bot = self._bots.get(name)
        if bot is None:
            bot = self._bots[name] = _Bot(name)
        return bot

    def _tell(self, bot: _Bot, peer: str | None) -> None:
        for watcher in self.watchers:
            watcher(bot.name, len(bot.open), peer)

    # --- the server's side -----------------------------------------------------------------------

    def capacity_left(self, name: str, declared: int) -> bool:
        """Whether ``name`` may open one more stream, having declared ``declared`` at once."""
        allowed = min(self.max_streams, max(1, declared))
        return len(self._bot(name).open) < allowed

    def admit(self, name: str, link: BotLink) -> None:
        """A welcomed stream of ``name``: idle until a match takes it."""
        bot = self._bot(name)
        stream = _Stream(link)
        bot.open.append(stream)
        bot.waited_out = False
        self._tell(bot, link.peer)
        self._idle(bot, stream)

    def _idle(self, bot: _Bot, stream: _Stream) -> None:
        link = stream.link

        def lost(reason: str, half_closed: bool) -> None:
            # Leaving the lobby (a half-close, a break): forget the stream and end its call.
            self._forget(bot, stream)
            link.close()

        def ignore_message(message: object, arrived: float) -> None:
            return None

        def ignore_invalid(reason: str, arrived: float) -> None:
            return None

        # Between matches nothing is asked: whatever the bot sends is ignored.
        link.on_message = ignore_message
        link.on_invalid = ignore_invalid
        link.on_lost = lost
        bot.idle.append(stream)
        bot.touch()
        if link.lost is not None:
            lost(link.lost, link.half_closed)

    def _forget(self, bot: _Bot, stream: _Stream) -> None:
        with contextlib.suppress(ValueError):
            bot.idle.remove(stream)
        if stream in bot.open:
            bot.open.remove(stream)
            self._tell(bot, None)
        bot.touch()

    def drop(self, name: str) -> int:
        """End every idle stream of ``name`` (its token was revoked or re-issued), and each
        busy one when its match is over, with PERMISSION_DENIED; return how many ended now."""
        return self._end(name, revoked(name))

    def _end(self, name: str, end: StreamEnd) -> int:
        """End ``name``'s idle streams now and its busy ones after their match, as ``end``
        says; return how many ended now."""
        bot = self._bot(name)
        for stream in bot.open:
            stream.end = end
        streams = list(bot.idle)
        for stream in streams:
            self._forget(bot, stream)
            stream.link.close(end)
        return len(streams)

    def bar(self, names: set[str]) -> None:
        """The bots that cannot connect now (their tokens revoked): their matches are given up
        at once, those waiting for them included, instead of after an absence."""
        changed = names ^ self._barred
        self._barred = set(names)
        for name in changed:
            self._bot(name).touch()

    def barred(self, name: str) -> bool:
        """Whether ``name`` cannot connect now (:meth:`bar`)."""
        return name in self._barred

    def close(self) -> None:
        """End every stream with status OK, the competition being over (a busy one after its
        match), so that the bots stop rather than connect again."""
        for name in list(self._bots):
            self._end(name, COMPETITION_OVER)

    # --- the match runner's side -----------------------------------------------------------------

    def connected(self, name: str) -> int:
        """How many streams ``name`` has open."""
        return len(self._bot(name).open)

    async def acquire(
        self, name: str, wait: float, held: int = 0
    ) -> tuple[BotLink, int, set[int]] | None:
        """An idle stream of ``name`` with its next request id and abandoned requests, or None
        once the bot has had no stream at all for ``wait`` seconds in a row, or is barred
        (``held``: streams of it the caller already holds, which do not count as present).
        """
        bot = self._bot(name)
        loop = asyncio.get_running_loop()
        absent_since: float | None = None
        while True:
            while bot.idle:
                stream = bot.idle.pop(0)
                if stream.link.lost is None:
                    stream.matches += 1
                    return stream.link, stream.next_id, stream.abandoned
                self._forget(bot, stream)
            if len(bot.open) > held:
                absent_since = None
            elif name in self._barred or (bot.waited_out and not bot.open):
                return None
            elif absent_since is None:
                absent_since = loop.time()
            timeout = None if absent_since is None else absent_since + wait - loop.time()
            if timeout is not None and timeout <= 0:
                if not bot.open:
                    bot.waited_out = True
                    bot.touch()  # the other matches waiting for it give up with this one
                return None
            changed = bot.changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), timeout)

    def release(self, name: str, link: BotLink, next_id: int, abandoned: set[int]) -> None:
        """Hand a stream back after its match: idle again if it is still open both ways."""
        bot = self._bot(name)
        stream = next((s for s in bot.open if s.link is link), None)
        if stream is None:
            return
        stream.next_id, stream.abandoned = next_id, abandoned
        if link.lost is not None or link.closed or stream.end is not None:
            self._forget(bot, stream)
            link.close(stream.end)
            return
        self._idle(bot, stream)


class RemoteHandle:
    """A remote bot's stand-in for a process (:class:`~referee.link.BotHandle`): it has none
    here, so it never exits; its "output" file holds where it connected from."""

    def __init__(self, output: Path) -> None:
        self._output = output

    @property
    def output(self) -> Path:
        return self._output

    def note(self, text: str) -> None:
        """Add a line to the output file."""
        with contextlib.suppress(OSError), self._output.open("a", encoding="utf-8") as out:
            out.write(text + "\n")

    async def exit_code_within(self, seconds: float) -> int | None:
        return None

    def exit_text(self, code: int) -> str:
        return f"exited with code {code}"

    def exit_status(self) -> ExitStatus | None:
        return None

    def pause(self, paused: bool) -> None:
        """Nothing: a remote bot's machine is its own."""


class RemoteBot:
    """A remote bot in a series: the player the sessions see, its stand-in process, and the
    stream it holds from the lobby while the series lasts."""

    def __init__(self, seat: RemoteSeat, index: int, output: Path) -> None:
        self.seat = seat
        self.handle = RemoteHandle(output)
        self.player = Player(index, seat.name, (), self.handle)
        self.link: BotLink | None = None

    async def take(self, lobby: Lobby, held: int, connected: Callable[[Player], None]) -> None:
        """Take one of the bot's idle streams (``held``: how many of its streams this series
        holds already), or make its absence the player's fault; ``connected`` is told of a
        stream taken."""
        conn, name, wait = self.player, self.seat.name, self.seat.wait
        self.handle.note(f"remote bot {name}: waiting for one of its streams")
        taken = await lobby.acquire(name, wait, held)
        if taken is None:
            if lobby.barred(name):
                self.handle.note(f"remote bot {name}: its token is revoked")
                reason = "the remote bot's token was revoked ('ginref tokens revoke')"
            else:
                self.handle.note(f"remote bot {name}: absent for {wait:g} s")
                reason = (
                    f"the remote bot was absent for {wait:g} s with a match of it due and has "
                    "not connected since (absent_wait in the tournament file's [serve], or "
                    "--absent-wait)"
                )
            conn.gone = Fault(0, FaultKind.NOT_CONNECTED, CONDUCT_RULE, reason)
            return
        link, conn.next_id, conn.abandoned = taken
        self.link = link
        conn.attach(link)
        self.handle.note(f"remote bot {name}: playing on its stream from {link.peer}")
        connected(conn)

    def give_back(self, lobby: Lobby | None, cut: bool) -> None:
        """Hand the stream back to ``lobby`` with its request ids, or end it when the series
        was ``cut`` (in the middle of a match: the bot may connect again)."""
        link = self.link
        if link is None:
            return
        if cut or lobby is None:
            link.close(MATCH_CUT if cut else None)
        else:
            player = self.player
            lobby.release(self.seat.name, link, player.next_id, player.abandoned)
        self.link = None


async def take_streams(
    bots: Sequence[RemoteBot], lobby: Lobby, connected: Callable[[Player], None]
) -> None:
    """Give each remote seat of one bot one of its idle streams, or its absence as a fault.

    One after another: a bot that plays itself needs a stream per seat, and while it holds
    fewer than that it counts as absent (its streams held here will not come back).
    """
    for held, bot in enumerate(bots):
        await bot.take(lobby, held, connected)
