"""Run matches between two bot processes over gRPC: launch, connect, referee, log, clean up.

Two entry points, each with an async core and a sync wrapper:

- :func:`run_match` / :func:`run_match_async`: one match, a fresh process per bot.
- :func:`run_series` / :func:`run_series_async`: several matches, one after another, between
  the same two processes over one connection each (seats alternate unless told otherwise).

Launch contract (docs/referee.md): each bot is started from its command line in a process group
of its own, under its resource limits (:mod:`referee.limits`), with ``GINREF_ADDRESS`` (the
referee's ``host:port``), ``GINREF_TOKEN`` (its seat's secret token) and ``GINREF_SEAT`` (its
seat in the first match) added to the environment, and
the directory of the referee's interpreter first on its ``PATH`` (so ``python`` is the one
ginref runs on); its stdout and stderr go to ``<log stem>.seat<N>.<label>.log`` beside the
replay log. When the series is over, each bot gets ``exit_grace`` seconds to exit by itself,
then SIGTERM to its whole process group, then SIGKILL after ``kill_grace``; every process it
started in its group is gone.

Clock (R11.5, proto ``TimeControl``): each decision may take ``move_time`` without touching the
bank; time beyond it is taken from the match's ``bank``. The time runs from just before the
referee writes the request until the reply arrives, so network time counts. A reply that comes
later than ``move_time`` + the remaining bank is a fault: DEADLINE_MISSED when the match has no
bank, TIME_BANK_EXHAUSTED otherwise.

Faults (:mod:`referee.faults`) are data: recorded in the log, sent to the faulty bot when it is
still connected, and by default the faulty seat forfeits; when both seats are at fault at once
(neither bot connected, say), both forfeit and nobody wins. ``retries`` > 0 allows that many
illegal or malformed actions per seat and match, each answered with a Fault (retry = true) and a
new request for the same decision with the time that is left.

Events (proto, "Events"): each public event reaches each seat exactly once, with the next
message the referee sends to that seat: in the ``new_events`` of a request, or as Event messages
just before any other message (HandEnd, Fault, MatchEnd). A seat's events are not pushed while
the other seat thinks: an Event message of its own would wake that bot for nothing, and on a
machine with few cores would slow the bot that must answer (benchmarks/bench_referee.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as _dt
import os
import re
import secrets
import shlex
import signal
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

from referee.actions import Action, ChooseDeal, action_to_dict
from referee.cards import card_str
from referee.convert import (
    EventEncoder,
    SeatRequests,
    action_from_pb,
    choose_deal_event_pb,
    fault_pb,
    hand_end_pb,
    hand_start_pb,
    match_result_pb,
    rules_pb,
    seat_scores_pb,
    showdown_event_pb,
)
from referee.errors import (
    ConfigError,
    DeadlineExceededError,
    DisconnectedError,
    IllegalActionError,
    MalformedActionError,
)
from referee.faults import CONDUCT_RULE, Fault, FaultKind
from referee.game import Hand, HandResult, Match, MatchResult, Phase
from referee.limits import GroupWatch, Guard, Limits, describe_exit, limited_command
from referee.observation import KnockInfo, observe
from referee.replay_log import (
    FORMAT,
    VERSION,
    ReplayLogWriter,
    hand_result_dict,
    match_result_dict,
)
from referee.rules import Rules
from referee.server import REFEREE_VERSION, RefereeServer, SeatTicket
from referee.transport import BotLink, wait_reply
from referee.wire import ginrummy_pb2 as pb

ENV_ADDRESS = "GINREF_ADDRESS"
ENV_TOKEN = "GINREF_TOKEN"
ENV_SEAT = "GINREF_SEAT"

DEFAULT_MOVE_TIME = 10.0
DEFAULT_BANK = 60.0
DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_RETRIES = 0
DEFAULT_EXIT_GRACE = 2.0
DEFAULT_KILL_GRACE = 2.0
# After a stream breaks, how long to wait for the process to exit before calling it a
# disconnect rather than a crash.
CRASH_PROBE = 0.5

# Called with (seat, message, hand) just before each message is written to that seat, where
# ``hand`` is the engine's hand the message is about (None before the first deal): tests use it
# to check every message against the cards hidden from that seat at that moment.
OnSend = Callable[[int, pb.RefereeMessage, Hand | None], None]


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A bot to launch: its command line (argv) and a label for files and tables."""

    command: tuple[str, ...]
    label: str = ""

    @staticmethod
    def parse(text: str, label: str = "") -> BotSpec:
        """A command line as a shell would split it, e.g. ``"python -m sample_bots.random_bot"``."""
        try:
            argv = tuple(shlex.split(text))
        except ValueError as exc:
            raise ConfigError(f"cannot parse the bot command {text!r}: {exc}") from None
        if not argv:
            raise ConfigError("a bot command must not be empty")
        return BotSpec(argv, label or default_label(argv))

    @property
    def name(self) -> str:
        """The label, or one derived from the command."""
        return self.label or default_label(self.command)


def default_label(argv: Sequence[str]) -> str:
    """A short file-safe name for a command: the module after ``-m``, else the program's stem."""
    words = list(argv)
    if "-m" in words[:-1]:
        name = words[words.index("-m") + 1].rsplit(".", 1)[-1]
    else:
        script = next((w for w in words[1:] if w.endswith(".py")), words[0] if words else "bot")
        name = Path(script).stem
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:40] or "bot"


@dataclass(frozen=True, slots=True)
class RefereeOptions:
    """Clock, fault policy and process handling; times in seconds (docs/referee.md)."""

    move_time: float = DEFAULT_MOVE_TIME
    bank: float = DEFAULT_BANK
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    exit_grace: float = DEFAULT_EXIT_GRACE
    kill_grace: float = DEFAULT_KILL_GRACE
    fsync: bool = False
    limits: Limits = field(default_factory=Limits)  # per-bot resources, message size

    def validate(self) -> RefereeOptions:
        """Return ``self`` or raise :class:`ConfigError` naming the bad option."""
        self.limits.validate()
        if not self.move_time > 0:
            raise ConfigError(f"move time must be positive, got {self.move_time}")
        for name in ("bank", "exit_grace", "kill_grace"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name.replace('_', ' ')} must not be negative")
        if not self.connect_timeout > 0:
            raise ConfigError(f"connect timeout must be positive, got {self.connect_timeout}")
        if self.retries < 0:
            raise ConfigError(f"retries must not be negative, got {self.retries}")
        return self


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Who played a seat."""

    label: str
    command: tuple[str, ...]
    name: str  # Hello.bot_name ("" if it never connected)
    version: str
    output: Path  # the bot's stdout/stderr


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """Everything about a finished match that a caller needs; the log has the rest."""

    match_id: str
    log_path: Path
    rules: Rules
    seed: int
    seats: tuple[SeatInfo, SeatInfo]
    result: MatchResult
    hand_results: tuple[HandResult, ...]
    forfeit: Fault | None  # the fault that ended the match (the first recorded, if both seats')
    faults: tuple[Fault, ...]
    decisions: int
    elapsed: float
    forfeits: tuple[Fault, ...] = ()  # every seat's forfeiting fault: one, or two (both seats)

    @property
    def both_forfeit(self) -> bool:
        """Whether both seats forfeited (no winner)."""
        return len(self.forfeits) == 2


@dataclass(frozen=True, slots=True)
class SeriesOutcome:
    """The matches of a series, in order; ``bots[i]`` played seat ``seats[k][i]`` of match k."""

    matches: tuple[MatchOutcome, ...]
    seats: tuple[tuple[int, int], ...]


# --- processes --------------------------------------------------------------------------------


class BotProcess:
    """One launched bot: its process group, output file and exit."""

    def __init__(self, spec: BotSpec, output: Path, limits: Limits | None = None) -> None:
        self.spec = spec
        self.output = output
        self.limits = limits or Limits()
        self.guard: Guard | None = None  # the resource watch (referee.limits)
        self.proc: asyncio.subprocess.Process | None = None
        self.start_error: str | None = None
        self.exited: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._watch: asyncio.Task[None] | None = None
        self._out: IO[bytes] | None = None

    async def start(self, env: dict[str, str]) -> None:
        """Launch in a new session (its own process group); failures go to ``start_error``."""
        self._out = open(self.output, "wb")  # noqa: SIM115 (closed in stop())
        try:
            argv = limited_command(self.spec.command, self.limits, path=env.get("PATH"))
            self.proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=self._out,
                stderr=asyncio.subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        except OSError as exc:
            self.start_error = f"could not start {shlex.join(self.spec.command)!r}: {exc}"
            self._out.write(f"ginref: {self.start_error}\n".encode())
            self.exited.set_result(-1)
            return
        marker = f"{ENV_TOKEN}={env[ENV_TOKEN]}".encode() if ENV_TOKEN in env else None
        self.guard = GroupWatch.current().guard(self.proc.pid, self.limits, self.output, marker)
        self._watch = asyncio.get_running_loop().create_task(self._wait())

    def exit_text(self, code: int) -> str:
        """``exited with code N``, and the resource limit that ended it, if one did."""
        return describe_exit(code, self.limits, self.guard, self.output)

    async def _wait(self) -> None:
        assert self.proc is not None
        code = await self.proc.wait()
        if not self.exited.done():
            self.exited.set_result(code)

    async def exit_code_within(self, seconds: float) -> int | None:
        """The exit code if the process exits within ``seconds``, else None."""
        if self.exited.done():
            return self.exited.result()
        with contextlib.suppress(asyncio.TimeoutError):
            return await asyncio.wait_for(asyncio.shield(self.exited), seconds)
        return None

    async def stop(self, exit_grace: float, kill_grace: float) -> None:
        """Let it exit, else SIGTERM then SIGKILL its group; reap it; kill any straggler."""
        proc = self.proc
        try:
            if proc is not None:
                pgid = proc.pid
                if await self.exit_code_within(exit_grace) is None:
                    _killpg(pgid, signal.SIGTERM)
                    if await self.exit_code_within(kill_grace) is None:
                        _killpg(pgid, signal.SIGKILL)
                        await self.exit_code_within(kill_grace + 5.0)
                # Children the bot left in its group outlive it; none may stay.
                _killpg(pgid, signal.SIGKILL)
                if self._watch is not None:
                    await self._watch
                if self.guard is not None:
                    await self.guard.close()  # and whatever escaped the group
        finally:
            if self._out is not None:
                self._out.close()
                self._out = None


def _killpg(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


# --- one connection over a series ---------------------------------------------------------------


class _Conn:
    """One bot over the whole series: process, seat ticket, link, request ids."""

    def __init__(self, index: int, spec: BotSpec, proc: BotProcess, ticket: SeatTicket) -> None:
        self.index = index  # 0: bot A, 1: bot B
        self.spec = spec
        self.proc = proc
        self.ticket = ticket
        self.link: BotLink | None = None
        self.gone: Fault | None = None  # why it can't play (never connected, left)
        self.next_id = 1
        self.abandoned: set[int] = set()  # requests whose late replies are ignored
        self.session: _Session | None = None

    def attach(self, link: BotLink) -> None:
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


class _Faulted(Exception):
    """Delivered to the waiting decision when a fault happens meanwhile (either seat)."""

    def __init__(self, fault: Fault) -> None:
        super().__init__(fault.reason)
        self.fault = fault


@dataclass(slots=True)
class _Seat:
    """One seat of one match."""

    index: int
    conn: _Conn
    bank: float
    retries_left: int
    requests: SeatRequests
    outstanding: int | None = None

    @property
    def encoder(self) -> EventEncoder:
        """The seat's public events of the current hand, as sent."""
        return self.requests.encoder


@dataclass(slots=True)
class _Waiter:
    seat: _Seat
    request_id: int
    future: asyncio.Future[tuple[pb.ActionReply, float]]


@dataclass(slots=True)
class _MatchPlan:
    match_id: str
    number: int
    seed: int
    bots_by_seat: tuple[int, int]  # bot index playing seat 0 and seat 1
    log_path: Path
    faults: list[Fault] = field(default_factory=list)


class _Session:
    """The referee of one match: the engine, the two seats, the log."""

    def __init__(
        self,
        plan: _MatchPlan,
        rules: Rules,
        conns: Sequence[_Conn],
        options: RefereeOptions,
        series_length: int,
        on_send: OnSend | None,
    ) -> None:
        self.plan = plan
        self.rules = rules
        self.options = options
        self.series_length = series_length
        self._on_send = on_send
        self._loop = asyncio.get_running_loop()
        self.seats = [
            _Seat(
                s,
                conns[plan.bots_by_seat[s]],
                options.bank,
                options.retries,
                SeatRequests(s, rules),
            )
            for s in (0, 1)
        ]
        self._seat_of = {id(seat.conn): seat for seat in self.seats}
        self.match = Match(rules, plan.seed)
        self.hand: Hand | None = None  # the hand whose messages are being sent
        self.log = ReplayLogWriter(plan.log_path, fsync=options.fsync)
        self._waiter: _Waiter | None = None
        self._pending: list[Fault] = []
        self.faults: list[Fault] = []
        self.forfeit: Fault | None = None
        self.forfeits: tuple[Fault, ...] = ()
        self.decisions = 0
        self._move_ms = round(options.move_time * 1000)
        self.started = time.monotonic()

    # --- log ----------------------------------------------------------------------------------

    def write_header(self) -> None:
        o = self.options
        bots = []
        for seat in self.seats:
            proc = seat.conn.proc
            bots.append(
                {
                    "seat": seat.index,
                    "label": seat.conn.spec.name,
                    "command": list(seat.conn.spec.command),
                    "output": proc.output.name,
                }
            )
        self.log.write(
            "header",
            format=FORMAT,
            version=VERSION,
            match_id=self.plan.match_id,
            created=_dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds"),
            referee=REFEREE_VERSION,
            rules=self.rules.to_dict(),
            seed=self.plan.seed,
            time_control={"move_time_ms": self._move_ms, "bank_ms": round(o.bank * 1000)},
            fault_policy={"retries": o.retries},
            series={"match_number": self.plan.number, "length": self.series_length},
            bots=bots,
        )

    def log_connected(self, conn: _Conn) -> None:
        seat = self._seat_of[id(conn)]
        assert conn.link is not None
        self.log.write("connected", seat=seat.index, name=conn.link.name, version=conn.link.version)

    def log_rejected(self, conn: _Conn | None, code: str, reason: str) -> None:
        seat = None if conn is None else self._seat_of[id(conn)].index
        self.log.write(
            "connection_rejected", seat=seat, code=code, rule=CONDUCT_RULE, reason=reason
        )

    # --- messages from the bots ---------------------------------------------------------------

    def on_message(self, conn: _Conn, message: pb.BotMessage, arrived: float) -> None:
        seat = self._seat_of[id(conn)]
        kind = message.WhichOneof("kind")
        if kind == "action_reply":
            rid = message.action_reply.request_id
            waiter = self._waiter
            if waiter is not None and waiter.seat is seat and waiter.request_id == rid:
                future = waiter.future
                if not future.done():
                    future.set_result((message.action_reply, arrived))
                    return
                if future.cancelled() or future.exception() is not None:
                    # The decision was cut short (a timeout, or the other seat's fault) before
                    # the referee moved on: like any late answer, this one is ignored, not a
                    # fault of this bot.
                    return
                why = f"a second reply to request {rid}: no request is outstanding"
            elif rid in conn.abandoned:
                return  # a late answer to a request that timed out or was retried
            elif seat.outstanding is None:
                why = f"a reply to request {rid}, but no request is outstanding for this seat"
            else:
                why = f"a reply to request {rid}, but the outstanding request is {seat.outstanding}"
            self.raise_fault(Fault(seat.index, FaultKind.OUT_OF_TURN, CONDUCT_RULE, why, rid))
        elif kind == "hello":
            self.raise_fault(
                Fault(seat.index, FaultKind.PROTOCOL_ERROR, CONDUCT_RULE, "a second Hello")
            )
        else:
            self.raise_fault(
                Fault(
                    seat.index,
                    FaultKind.PROTOCOL_ERROR,
                    CONDUCT_RULE,
                    "an empty message (no kind set)",
                )
            )

    def on_lost(self, conn: _Conn, reason: str, half_closed: bool) -> None:
        if self.match.result is not None:
            return
        seat = self._seat_of[id(conn)]
        self.raise_fault(Fault(seat.index, FaultKind.DISCONNECTED, CONDUCT_RULE, reason))

    def on_exit(self, conn: _Conn, code: int) -> None:
        if self.match.result is not None:
            return
        seat = self._seat_of[id(conn)]
        self.raise_fault(
            Fault(
                seat.index,
                FaultKind.CRASHED,
                CONDUCT_RULE,
                f"the bot process {conn.proc.exit_text(code)} during the match",
            )
        )

    def seat_of(self, conn: _Conn) -> int:
        """The seat ``conn``'s bot plays in this match."""
        return self._seat_of[id(conn)].index

    def raise_fault(self, fault: Fault) -> None:
        """Interrupt the decision in progress with ``fault``, or keep it for the next one."""
        waiter = self._waiter
        if waiter is not None and not waiter.future.done():
            waiter.future.set_exception(_Faulted(fault))
        elif all(p.seat != fault.seat for p in self._pending):
            # One pending fault per seat decides: a bot flooding the stream must not grow this.
            self._pending.append(fault)

    # --- sending ------------------------------------------------------------------------------

    async def send(self, seat: _Seat, message: pb.RefereeMessage) -> None:
        """Write to a seat, after the events it has not received yet (proto, "Events").

        A failure becomes that seat's fault at the next opportunity.
        """
        if await self._send_events(seat):
            await self._write(seat, message)

    async def _send_events(self, seat: _Seat) -> bool:
        """Send the seat its undelivered events as Event messages; False if it can't be written."""
        for event in seat.encoder.take_undelivered():
            if not await self._write(seat, pb.RefereeMessage(event=event)):
                return False
        return True

    async def _write(self, seat: _Seat, message: pb.RefereeMessage) -> bool:
        link = seat.conn.link
        if link is None or not seat.conn.reachable:
            return False
        if self._on_send is not None:
            self._on_send(seat.index, message, self.hand)
        try:
            await link.send(message)
        except DisconnectedError as exc:
            if self.match.result is None:
                self._pending.append(
                    Fault(seat.index, FaultKind.DISCONNECTED, CONDUCT_RULE, str(exc))
                )
            return False
        return True

    async def send_both(self, make: Callable[[_Seat], pb.RefereeMessage]) -> None:
        for seat in self.seats:
            await self.send(seat, make(seat))

    # --- faults -------------------------------------------------------------------------------

    async def _classify(self, fault: Fault) -> Fault:
        """A lost stream whose process has exited (or exits at once) is a crash."""
        if fault.kind is not FaultKind.DISCONNECTED:
            return fault
        proc = self.seats[fault.seat].conn.proc
        code = await proc.exit_code_within(CRASH_PROBE)
        if code is None:
            return fault
        return replace(
            fault,
            kind=FaultKind.CRASHED,
            reason=f"the bot process {proc.exit_text(code)} during the match ({fault.reason})",
        )

    def _record(self, fault: Fault) -> Fault:
        hand = self.match.hand
        fault = replace(fault, hand=None if hand is None else hand.number + 1)
        self.faults.append(fault)
        self.log.write("fault", **fault.to_dict())
        return fault

    async def _forfeit(self, fault: Fault) -> None:
        """End the match on ``fault``: every seat at fault by now forfeits, so both may.

        Besides ``fault``, that is the faults still pending and those that arrive while a broken
        stream is told apart from a crash (``_classify``): the faults of both seats found
        together, e.g. when neither bot connected or both left before the first decision, make
        both seats forfeit, and nobody wins. A fault that comes later changes nothing.
        """
        if self.match.result is not None:
            return
        queue = [fault]
        recorded: list[Fault] = []
        while queue or self._pending:
            if not queue:
                queue.extend(self._pending)
                self._pending.clear()
            item = queue.pop(0)
            # One fault per seat: a crash is seen both as a broken stream and as an exit.
            if all(r.seat != item.seat for r in recorded):
                recorded.append(self._record(await self._classify(item)))
        first = recorded[0]
        self.forfeit = first
        self.forfeits = tuple(recorded)
        if len(recorded) == 1:
            self.match.forfeit(first.seat, first.rule, first.reason)
        else:
            rules = ", ".join(dict.fromkeys(f.rule for f in recorded))
            faults = "; ".join(f.describe() for f in sorted(recorded, key=lambda f: f.seat))
            self.match.forfeit(None, rules, f"both seats forfeit: {faults}")
        for item in recorded:
            if item.kind.reaches_bot:
                await self.send(self.seats[item.seat], fault_pb(item))

    # --- the match ----------------------------------------------------------------------------

    def _scores(self) -> list[pb.SeatScore]:
        """The match scores now (public: both seats' observations show the same)."""
        obs = observe(self.match, 0)
        return seat_scores_pb(obs.scores, obs.hands_won, obs.extra_boxes)

    async def run(self) -> MatchOutcome:
        """Play the match to its end; never raises for a bot's fault."""
        for conn in {id(s.conn): s.conn for s in self.seats}.values():
            conn.session = self
        try:
            await self._play()
        finally:
            for seat in self.seats:
                seat.conn.session = None
            self.log.close()
        result = self.match.result
        assert result is not None
        seats = tuple(
            SeatInfo(
                label=s.conn.spec.name,
                command=s.conn.spec.command,
                name=s.conn.link.name if s.conn.link else "",
                version=s.conn.link.version if s.conn.link else "",
                output=s.conn.proc.output,
            )
            for s in self.seats
        )
        return MatchOutcome(
            match_id=self.plan.match_id,
            log_path=self.plan.log_path,
            rules=self.rules,
            seed=self.plan.seed,
            seats=(seats[0], seats[1]),
            result=result,
            hand_results=tuple(self.match.hand_results),
            forfeit=self.forfeit,
            faults=tuple(self.faults),
            decisions=self.decisions,
            elapsed=time.monotonic() - self.started,
            forfeits=self.forfeits,
        )

    async def _play(self) -> None:
        m = self.match
        o = self.options
        time_control = pb.TimeControl(move_time_ms=self._move_ms, bank_ms=round(o.bank * 1000))
        for seat in self.seats:
            other = self.seats[1 - seat.index].conn
            start = pb.MatchStart(
                match_id=self.plan.match_id,
                match_number=self.plan.number,
                series_length=self.series_length,
                seat=seat.index,
                time_control=time_control,
                opponent_name=other.link.name if other.link else other.spec.name,
                opponent_version=other.link.version if other.link else "",
            )
            start.rules.CopyFrom(rules_pb(self.rules))
            await self.send(seat, pb.RefereeMessage(match_start=start))
        for seat in self.seats:
            conn = seat.conn
            if conn.gone is not None:
                self._pending.append(replace(conn.gone, seat=seat.index))
            elif not conn.connected:
                why = conn.link.lost if conn.link is not None else None
                self._pending.append(
                    Fault(
                        seat.index,
                        FaultKind.DISCONNECTED,
                        CONDUCT_RULE,
                        f"the bot left before this match ({why})",
                    )
                )
        if self._pending:
            await self._forfeit(self._pending.pop(0))
        if m.result is None and m.phase is Phase.CHOOSE_DEALER:
            chooser = self.seats[m.to_act or 0]
            action = await self._decide(chooser)
            if isinstance(action, ChooseDeal):
                event = choose_deal_event_pb(chooser.index, action.deal)
                await self.send_both(lambda _s: pb.RefereeMessage(event=event))
        while m.result is None:
            hand = m.hand
            await self._start_hand(hand)
            results = len(m.hand_results)
            while m.result is None and len(m.hand_results) == results:
                seat = self.seats[m.to_act if m.to_act is not None else 0]
                if await self._decide(seat) is None:
                    break
                self._convert_events(hand)
            if len(m.hand_results) > results:
                await self._end_hand(m.hand_results[-1])
        result = m.result
        assert result is not None
        self.log.write(
            "match_result",
            **match_result_dict(
                result, m.hands_dealt, self.forfeit.kind.value if self.forfeit else None
            ),
        )
        scores = self._scores()
        message = pb.RefereeMessage(
            match_end=pb.MatchEnd(
                match_id=self.plan.match_id,
                result=match_result_pb(result, scores, m.hands_dealt, self.forfeit),
            )
        )
        await self.send_both(lambda _s: message)

    async def _start_hand(self, hand: Hand) -> None:
        self.hand = hand  # from here on, messages are about this hand
        self.log.write(
            "deal",
            hand=hand.number + 1,
            dealer=hand.dealer,
            deck=[card_str(c) for c in hand.deck],
            upcard=None if hand.upcard is None else card_str(hand.upcard),
            knock_limit=hand.limit,
        )
        for seat in self.seats:
            seat.requests.new_hand()
            await self.send(seat, hand_start_pb(observe(self.match, seat.index)))

    def _convert_events(self, hand: Hand) -> None:
        """Convert the public events the last action caused, each seat's own view, for sending.

        They go out with the next message to each seat: in the new_events of a request, or as
        Event messages before any other message (:meth:`send`).
        """
        knock = None
        if hand.knocker is not None and hand.knock_kind is not None:
            assert hand.knock_arrangement is not None
            knock = KnockInfo(hand.knocker, hand.knock_kind, hand.knock_arrangement)
        for seat in self.seats:
            seat.encoder.sync(hand.events, knock)

    async def _end_hand(self, result: HandResult) -> None:
        self.log.write("hand_result", **hand_result_dict(result))
        showdown = showdown_event_pb(result)
        if showdown is not None:
            await self.send_both(lambda _s: pb.RefereeMessage(event=showdown))
        message = hand_end_pb(result, self._scores())
        await self.send_both(lambda _s: message)

    async def _decide(self, seat: _Seat) -> Action | None:
        """Ask ``seat`` for its decision and apply it; None if the match ended by a forfeit."""
        loop = self._loop
        conn = seat.conn
        m = self.match
        bank_before = seat.bank
        budget = self.options.move_time + bank_before
        # The clock starts just before the first request is written (the referee's own work to
        # build it is not the bot's time) and runs on through any retries.
        start = deadline = 0.0
        clock_started = False
        while True:
            if self._pending:
                await self._forfeit(self._pending.pop(0))
                return None
            link = conn.link
            if link is None or not conn.connected:
                await self._forfeit(
                    Fault(seat.index, FaultKind.DISCONNECTED, CONDUCT_RULE, "the bot has left")
                )
                return None
            obs = observe(m, seat.index)
            rid = conn.request_id()
            left = max(0.0, deadline - loop.time()) if clock_started else budget
            request = seat.requests.request(
                obs, rid, int(left * 1000), self._move_ms, int(seat.bank * 1000)
            )
            future: asyncio.Future[tuple[pb.ActionReply, float]] = loop.create_future()
            self._waiter = _Waiter(seat, rid, future)
            seat.outstanding = rid
            fault: Fault | None = None
            try:
                if self._on_send is not None:
                    self._on_send(seat.index, request, self.hand)
                if not clock_started:
                    clock_started = True
                    start = loop.time()
                    deadline = start + budget
                await link.send(request)
                reply, arrived = await wait_reply(future, deadline)
            except DisconnectedError as exc:
                fault = Fault(seat.index, FaultKind.DISCONNECTED, CONDUCT_RULE, str(exc), rid)
            except DeadlineExceededError:
                conn.abandoned.add(rid)
                fault = self._timeout_fault(seat, rid, loop.time() - start)
            except _Faulted as exc:
                conn.abandoned.add(rid)
                fault = exc.fault
            finally:
                self._waiter = None
                seat.outstanding = None
            if fault is not None:
                await self._forfeit(fault)
                return None
            think = arrived - start
            if think > budget:
                await self._forfeit(self._timeout_fault(seat, rid, think))
                return None
            seat.bank = bank_before - max(0.0, think - self.options.move_time)
            think_ms = round(think * 1000, 3)
            action: Action | None = None
            try:
                action = action_from_pb(reply.action, obs.hand)
                m.apply(action)
            except MalformedActionError as exc:
                fault = Fault(seat.index, FaultKind.MALFORMED_ACTION, CONDUCT_RULE, str(exc), rid)
            except IllegalActionError as exc:
                assert action is not None
                fault = Fault(
                    seat.index,
                    FaultKind.ILLEGAL_ACTION,
                    exc.rule,
                    f"{action}: {exc.reason}",
                    rid,
                    action=action_to_dict(action),
                )
            if fault is None:
                assert action is not None
                self.decisions += 1
                self.log.write(
                    "decision",
                    hand=0 if obs.phase is Phase.CHOOSE_DEALER else obs.hand_number + 1,
                    seat=seat.index,
                    phase=obs.phase.value,
                    request_id=rid,
                    action=action_to_dict(action),
                    think_ms=think_ms,
                    bank_ms=round(seat.bank * 1000, 3),
                )
                return action
            fault = replace(fault, think_ms=think_ms)
            if seat.retries_left > 0 and deadline > loop.time() and not self._pending:
                seat.retries_left -= 1
                fault = self._record(replace(fault, retry=True))
                await self.send(seat, fault_pb(fault))
                continue
            await self._forfeit(fault)
            return None

    def _timeout_fault(self, seat: _Seat, rid: int, think: float) -> Fault:
        o = self.options
        if o.bank > 0:
            return Fault(
                seat.index,
                FaultKind.TIME_BANK_EXHAUSTED,
                CONDUCT_RULE,
                f"no reply to request {rid} after {think:.3f} s: the move time "
                f"({o.move_time:g} s) and the time bank ({o.bank:g} s per match) are used up",
                rid,
                think_ms=round(think * 1000, 3),
            )
        return Fault(
            seat.index,
            FaultKind.DEADLINE_MISSED,
            CONDUCT_RULE,
            f"no reply to request {rid} within the move time of {o.move_time:g} s",
            rid,
            think_ms=round(think * 1000, 3),
        )


# --- series -----------------------------------------------------------------------------------


def new_match_id(seed: int) -> str:
    """A match id unique within a run: UTC time, seed and a random suffix."""
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-s{seed}-{secrets.token_hex(3)}"


async def run_series_async(
    bots: tuple[BotSpec, BotSpec],
    rules: Rules,
    seeds: Sequence[int],
    out_dir: str | os.PathLike[str],
    options: RefereeOptions | None = None,
    *,
    swap_seats: bool = True,
    server: RefereeServer | None = None,
    on_send: OnSend | None = None,
) -> SeriesOutcome:
    """Launch both bots once and play one match per seed between them, one after another.

    Bot A plays seat 0 of the first match; with ``swap_seats`` the seats alternate. Logs go to
    ``out_dir``; a bot that cannot play (it never connected, or left) forfeits each remaining
    match. Only a bad option raises (:class:`ConfigError`); bot faults are in the outcome.
    """
    options = (options or RefereeOptions()).validate()
    if not seeds:
        raise ConfigError("a series needs at least one seed")
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot create the log directory {str(out)!r}: {exc}") from None
    own_server = server is None
    if server is None:
        server = RefereeServer(
            hello_timeout=options.connect_timeout,
            max_message_bytes=options.limits.message_bytes,
        )
        await server.start()
    series_id = new_match_id(seeds[0])
    plans: list[_MatchPlan] = []
    for k, seed in enumerate(seeds):
        match_id = series_id if len(seeds) == 1 else f"{series_id}-m{k + 1}"
        order = (1, 0) if swap_seats and k % 2 else (0, 1)
        plans.append(_MatchPlan(match_id, k + 1, seed, order, out / f"{match_id}.jsonl"))
    conns: list[_Conn] = []
    outcomes: list[MatchOutcome] = []
    session: _Session | None = None

    def rejected_unknown(code: str, reason: str) -> None:
        if session is not None:
            session.log_rejected(None, code, reason)

    server.rejection_listeners.append(rejected_unknown)
    try:
        first = plans[0]
        stem = first.log_path.name.removesuffix(".jsonl")
        for index, spec in enumerate(bots):
            seat = first.bots_by_seat.index(index)
            ticket = server.issue_ticket(f"seat {seat} of match {first.match_id}")
            output = out / f"{stem}.seat{seat}.{spec.name}.log"
            conns.append(_Conn(index, spec, BotProcess(spec, output, options.limits), ticket))
        session = _Session(first, rules, conns, options, len(seeds), on_send)
        session.write_header()
        await _launch_and_connect(conns, first, server.address, options, lambda: session)
        for k, plan in enumerate(plans):
            if k > 0:
                session = _Session(plan, rules, conns, options, len(seeds), on_send)
                session.write_header()
            assert session is not None
            outcomes.append(await session.run())
            session = None
    finally:
        server.rejection_listeners.remove(rejected_unknown)
        for conn in conns:
            if conn.link is not None:
                conn.link.close()
            server.revoke(conn.ticket)
        await asyncio.gather(
            *(c.proc.stop(options.exit_grace, options.kill_grace) for c in conns),
            return_exceptions=True,
        )
        if own_server:
            await server.stop(grace=0.5)
    return SeriesOutcome(tuple(outcomes), tuple(p.bots_by_seat for p in plans))


def bot_environment(
    address: str, token: str, seat: int, base: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment a bot starts with: ``base`` (default: the referee's) and the launch contract.

    The directory of the referee's own interpreter goes first on PATH, so that a bot command
    such as ``python -m sample_bots.random_bot`` runs the interpreter ginref runs on (with grpc
    and the client) even when ginref was started as ``.venv/bin/ginref`` without activating the
    virtualenv. ``sys.executable`` is not resolved: a virtualenv's ``bin/python`` is a symlink
    out of it.
    """
    env = dict(os.environ if base is None else base)
    bindir = os.path.dirname(sys.executable)
    if bindir:
        env["PATH"] = bindir + os.pathsep + env.get("PATH", os.defpath)
    env.update({ENV_ADDRESS: address, ENV_TOKEN: token, ENV_SEAT: str(seat)})
    return env


async def _launch_and_connect(
    conns: Sequence[_Conn],
    plan: _MatchPlan,
    address: str,
    options: RefereeOptions,
    current: Callable[[], _Session | None],
) -> None:
    """Start every bot, then wait (concurrently) for each to connect or fail to."""

    def on_rejected(conn: _Conn) -> Callable[[str, str], None]:
        def report(code: str, reason: str) -> None:
            session = current()
            if session is not None:
                session.log_rejected(conn, code, reason)

        return report

    for conn in conns:
        seat = plan.bots_by_seat.index(conn.index)
        conn.ticket.on_rejected = on_rejected(conn)
        await conn.proc.start(bot_environment(address, conn.ticket.token, seat))

    async def connect(conn: _Conn) -> None:
        if conn.proc.start_error is not None:
            conn.gone = Fault(0, FaultKind.NOT_CONNECTED, CONDUCT_RULE, conn.proc.start_error)
            return
        waiting: set[asyncio.Future[Any]] = {conn.ticket.connected, conn.proc.exited}
        await asyncio.wait(
            waiting, timeout=options.connect_timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if conn.ticket.connected.done():
            conn.attach(conn.ticket.connected.result())
            session = current()
            if session is not None:
                session.log_connected(conn)
            conn.proc.exited.add_done_callback(lambda f: _exited(conn, f))
        elif conn.proc.exited.done():
            code = conn.proc.exited.result()
            conn.gone = Fault(
                0,
                FaultKind.NOT_CONNECTED,
                CONDUCT_RULE,
                f"the bot {conn.proc.exit_text(code)} without connecting",
            )
        else:
            conn.gone = Fault(
                0,
                FaultKind.NOT_CONNECTED,
                CONDUCT_RULE,
                f"the bot did not connect within {options.connect_timeout:g} s",
            )

    await asyncio.gather(*(connect(c) for c in conns))


def _exited(conn: _Conn, future: asyncio.Future[int]) -> None:
    if conn.session is not None and not future.cancelled():
        conn.session.on_exit(conn, future.result())


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
) -> MatchOutcome:
    """One match, bot A in seat 0, each bot in a fresh process."""
    series = await run_series_async(
        (bot_a, bot_b), rules, [seed], out_dir, options, server=server, on_send=on_send
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
) -> MatchOutcome:
    """Sync wrapper of :func:`run_match_async` (runs its own event loop)."""
    return asyncio.run(
        run_match_async(bot_a, bot_b, rules, seed, out_dir, options, on_send=on_send)
    )


def run_series(
    bots: tuple[BotSpec, BotSpec],
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
