"""Fakes of what a :class:`~referee.session.Session` talks to: a seat's stream, a process, a clock.

With them a whole match runs in one event loop with no process, no socket and no real time:
:class:`FakeLink` records every message the referee writes and lets a test play the bot (a
reply, a lost stream, a half-close, an unreadable message, now or at a time of the fake clock);
:class:`FakeProcess` exits when a test says so; :class:`FakeClock` moves only when told.
:class:`ScriptedBot` answers each request by a policy, and :func:`run_on` awaits a coroutine
while jumping the clock to each next timer, so a match with think times plays in no time.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from referee.bots.process import ExitStatus
from referee.errors import DeadlineExceededError, DisconnectedError
from referee.link import OnInvalid, OnLost, OnMessage, Player, exited_callback
from referee.transport import wait_reply
from referee.wire import ginrummy_pb2 as pb

T = TypeVar("T")

# Whatever a test or a timer completes reaches the session through a short chain of callbacks
# (a future's done callback, the task's wake-up, a shield): a few loop turns. When this many
# turns in a row pass with nothing sent, delivered or scheduled, everything waits.
QUIET_TURNS = 20
# So much activity without a wait is a match that never ends (a session broken by a change,
# bots that never knock): fail rather than hang.
BUSY_LIMIT = 100_000


class FakeTimer:
    """A callback set on a :class:`FakeClock`."""

    __slots__ = ("args", "callback", "cancelled")

    def __init__(self, callback: Callable[..., object], args: tuple[Any, ...]) -> None:
        self.callback = callback
        self.args = args
        self.cancelled = False

    def cancel(self) -> None:
        """Do not call it."""
        self.cancelled = True


class FakeClock:
    """Virtual time (a :class:`referee.link.Clock`) that moves only when a test advances it."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        self._timers: list[tuple[float, int, FakeTimer]] = []
        self._order = itertools.count()  # timers due at the same time fire as they were set
        self.activity = 0  # timers set, messages sent or delivered: :meth:`settle` watches it

    def time(self) -> float:
        """The virtual time, in seconds."""
        return self.now

    def call_at(self, when: float, callback: Callable[..., object], *args: Any) -> FakeTimer:
        """Call ``callback(*args)`` once the clock reaches ``when``."""
        self.activity += 1
        timer = FakeTimer(callback, args)
        heapq.heappush(self._timers, (when, next(self._order), timer))
        return timer

    def next_due(self) -> float | None:
        """When the next live timer is due, or None if there is none."""
        while self._timers and self._timers[0][2].cancelled:
            heapq.heappop(self._timers)
        return self._timers[0][0] if self._timers else None

    async def settle(self) -> None:
        """Let every task run until all of them wait for something only a test or time can give."""
        start = self.activity
        while True:
            before = self.activity
            for _ in range(QUIET_TURNS):
                await asyncio.sleep(0)
            if self.activity == before:
                return
            if self.activity - start > BUSY_LIMIT:
                raise AssertionError("busy without end: does the match never wait or end?")

    async def advance(self, seconds: float) -> None:
        """Move on by ``seconds``: each timer due by then fires at its own time, in order."""
        await self.advance_to(self.now + seconds)

    async def advance_to(self, when: float) -> None:
        """Move on to ``when``, letting the loop run before and after each timer fires."""
        await self.settle()
        while (due := self.next_due()) is not None and due <= when:
            _, _, timer = heapq.heappop(self._timers)
            self.now = max(self.now, due)
            timer.callback(*timer.args)
            await self.settle()
        self.now = max(self.now, when)


async def run_on(clock: FakeClock, work: Awaitable[T]) -> T:
    """Await ``work``, moving ``clock`` to the next timer each time everything waits for it."""
    task = asyncio.ensure_future(work)
    while True:
        await clock.settle()
        if task.done():
            return task.result()
        due = clock.next_due()
        if due is None:
            task.cancel()
            raise AssertionError("stalled: everything waits, and no timer is set")
        await clock.advance_to(due)


def _ignore(*args: object) -> None:
    return None


class FakeLink:
    """A welcomed bot's stream (a :class:`referee.link.SeatLink`) that a test plays the bot of.

    ``sent`` holds a copy of every message the referee wrote; ``bot``, if set, is called with
    each one a loop turn later (as a bot process would read it). ``write_error`` makes the next
    write fail as a broken stream does.
    """

    def __init__(self, clock: FakeClock, name: str = "fakebot", version: str = "1.0") -> None:
        self.clock = clock
        self.name = name
        self.version = version
        self.lost: str | None = None
        self.half_closed = False
        self.on_message: OnMessage = _ignore
        self.on_lost: OnLost = _ignore
        self.on_invalid: OnInvalid = _ignore
        self.sent: list[pb.RefereeMessage] = []
        self.bot: Callable[[pb.RefereeMessage], None] | None = None
        self.write_error: str | None = None
        self.closed = False
        self.starts: list[float] = []  # when each request reached the bot's side
        # How long after the referee sends a request the bot's side has it (a relay's delay,
        # the referee's own load): the bot's clock must not count it.
        self.delay = 0.0
        self.settles = 0

    def send(self, message: pb.RefereeMessage | bytes) -> None:
        """Record ``message``, or raise :class:`DisconnectedError` as a broken stream does."""
        if self.write_error is not None:
            self.lose(self.write_error)
        if self.lost is not None and not self.half_closed:
            raise DisconnectedError(self.lost)
        copy = pb.RefereeMessage()
        if isinstance(message, bytes):
            copy.ParseFromString(message)  # as the bot would read it
        else:
            copy.CopyFrom(message)  # the session may reuse a message for the next one
        self.sent.append(copy)
        self.clock.activity += 1
        if self.bot is not None:
            asyncio.get_running_loop().call_soon(self.bot, copy)

    def ask(self, request: bytes) -> int:
        """Record a request; the bot's clock starts now (or ``delay`` later: :attr:`delay`)."""
        self.send(request)
        self.starts.append(self.clock.time() + self.delay)
        return len(self.starts)

    def started(self, number: int) -> float:
        """When request ``number`` reached the bot's side."""
        return self.starts[number - 1]

    async def settle(self) -> float:
        """The clock now: what the bot sent has been delivered already."""
        self.settles += 1
        if self.lost is not None and not self.half_closed:
            raise DisconnectedError(self.lost)
        return self.clock.time()

    def close(self) -> None:
        """End the stream from the referee's side."""
        self.closed = True

    # --- what the bot does -------------------------------------------------------------------

    def deliver(self, message: pb.BotMessage, at: float | None = None) -> None:
        """The bot sends ``message``: now, or when the clock reaches ``at``."""
        if at is not None:
            self.clock.call_at(at, self.deliver, message)
            return
        assert self.lost is None, "a bot cannot send on a stream it has closed"
        self.clock.activity += 1
        self.on_message(message, self.clock.time())

    def reply(self, request_id: int, action: pb.Action, at: float | None = None) -> None:
        """The bot answers request ``request_id`` with ``action``."""
        answer = pb.ActionReply(request_id=request_id, action=action)
        self.deliver(pb.BotMessage(action_reply=answer), at)

    def deliver_invalid(self, reason: str, at: float | None = None) -> None:
        """The bot sends a message the referee cannot read (``reason`` says why)."""
        if at is not None:
            self.clock.call_at(at, self.deliver_invalid, reason)
            return
        self.clock.activity += 1
        self.on_invalid(reason, self.clock.time())

    def lose(
        self, reason: str = "the bot disconnected (its stream was cancelled)", half: bool = False
    ) -> None:
        """The stream ends from the bot's side, as :class:`referee.transport.BotLink` reports it."""
        if self.lost is None or (self.half_closed and not half):
            self.clock.activity += 1
            self.lost = reason
            self.half_closed = half
            self.on_lost(reason, half)

    def half_close(self) -> None:
        """The bot closes its sending side cleanly; it can still read."""
        self.lose("the bot closed its side of the stream", half=True)

    # --- what the referee wrote --------------------------------------------------------------

    def kinds(self) -> list[str]:
        """The kind of each message written, in order."""
        return [m.WhichOneof("kind") or "" for m in self.sent]

    def requests(self) -> list[pb.DecisionRequest]:
        """The DecisionRequests written, in order."""
        return [m.decision_request for m in self.sent if m.HasField("decision_request")]

    def faults(self) -> list[pb.Fault]:
        """The Fault messages written, in order."""
        return [m.fault for m in self.sent if m.HasField("fault")]


class FakeProcess:
    """A bot's process (a :class:`referee.link.BotHandle`) that runs until a test ends it."""

    def __init__(self, clock: FakeClock, output: Path) -> None:
        self.clock = clock
        self._output = output
        output.touch()
        self.exited: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.probes: list[float] = []  # the wait of each exit_code_within
        self.pauses: list[bool] = []  # each pause(): True frozen, False thawed

    @property
    def output(self) -> Path:
        """The (empty) file a real bot's stdout and stderr would go to."""
        return self._output

    def exit(self, code: int, at: float | None = None) -> None:
        """The process exits with ``code``: now, or when the clock reaches ``at``."""
        if at is not None:
            self.clock.call_at(at, self.exit, code)
        elif not self.exited.done():
            self.clock.activity += 1
            self.exited.set_result(code)

    async def exit_code_within(self, seconds: float) -> int | None:
        """The exit code if the process exits within ``seconds`` of the fake clock, else None."""
        self.probes.append(seconds)
        if self.exited.done():
            return self.exited.result()
        try:
            return await wait_reply(
                asyncio.shield(self.exited), self.clock.time() + seconds, self.clock
            )
        except DeadlineExceededError:
            return None

    def pause(self, paused: bool) -> None:
        """Record each freeze (True) and thaw (False)."""
        self.pauses.append(paused)

    def exit_text(self, code: int) -> str:
        """``exited with code N``."""
        return f"exited with code {code}"

    def exit_status(self) -> ExitStatus | None:
        """Its exit code, once it has exited (a fake is never killed)."""
        if not self.exited.done():
            return None
        code = self.exited.result()
        return ExitStatus(code, None, False, self.exit_text(code))


def fake_player(
    index: int, clock: FakeClock, folder: Path, *, connected: bool = True
) -> tuple[Player, FakeLink, FakeProcess]:
    """Bot ``index`` as the series wires a real one: its process, and its link if it connected."""
    proc = FakeProcess(clock, folder / f"bot{index}.log")
    player = Player(index, f"fake{index}", ("fakebot", str(index)), proc)
    link = FakeLink(clock, f"fakebot-{index}")
    if connected:
        player.attach(link)
        proc.exited.add_done_callback(exited_callback(player))
    return player, link, proc


# --- scripted bots -------------------------------------------------------------------------------

Policy = Callable[[pb.DecisionRequest], pb.Action]
# What a bot does instead of answering at its n-th decision (counted from 1): anything a test
# can do with the link, or nothing at all.
Step = Callable[[FakeLink, pb.DecisionRequest], None]


def first_legal(request: pb.DecisionRequest) -> pb.Action:
    """The first legal action."""
    action: pb.Action = request.legal_actions[0]
    return action


def knock_or_random_index(actions: Sequence[pb.Action], rng: random.Random) -> int:
    """A knock or gin when one is legal (so hands end), else a random choice."""
    for i, action in enumerate(actions):
        if action.WhichOneof("kind") in ("knock", "big_gin"):
            return i
    return rng.randrange(len(actions))


def knock_or_random(rng: random.Random) -> Policy:
    """The policy of :func:`knock_or_random_index` with ``rng``."""
    return lambda request: request.legal_actions[knock_or_random_index(request.legal_actions, rng)]


def answer_after(seconds: float, policy: Policy = first_legal) -> Step:
    """A step: answer by ``policy`` after ``seconds`` of the fake clock (0: at once)."""

    def answer(link: FakeLink, request: pb.DecisionRequest) -> None:
        at = link.clock.time() + seconds if seconds else None
        link.reply(request.request_id, policy(request), at)

    return answer


def no_answer(link: FakeLink, request: pb.DecisionRequest) -> None:
    """A step: never answer."""


class ScriptedBot:
    """Answers each DecisionRequest on ``link`` by ``policy``, ``think`` seconds later.

    ``script`` replaces the answer to chosen decisions (1-based) with a step of its own.
    """

    def __init__(
        self,
        link: FakeLink,
        policy: Policy = first_legal,
        *,
        think: float = 0.0,
        script: Mapping[int, Step] | None = None,
    ) -> None:
        self.link = link
        self.policy = policy
        self.think = think
        self.script = dict(script or {})
        self.decisions = 0
        link.bot = self

    def __call__(self, message: pb.RefereeMessage) -> None:
        if not message.HasField("decision_request") or self.link.lost is not None:
            return
        self.decisions += 1
        request = message.decision_request
        step = self.script.get(self.decisions) or answer_after(self.think, self.policy)
        step(self.link, request)
