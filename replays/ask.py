"""``ginref replay LOG --ask BOT --at EVENT``: put a live bot into a recorded position.

The position is the one the acting seat was asked about on line EVENT of the log (a
``decision``, or a decision ``fault``), rebuilt by :mod:`referee.timeline`. A one-decision
session then plays it on a real :class:`referee.server.RefereeServer`: the bot is started with
the launch contract (``GINREF_ADDRESS``, ``GINREF_TOKEN``, ``GINREF_SEAT``) in a process group
of its own (:class:`referee.bots.process.BotProcess`), welcomed, and sent what the referee sent
that seat: the MatchStart, the HandStart of the hand, and the DecisionRequest built by
:func:`referee.convert.decision_request_pb` from :func:`referee.engine.observation.observe` (the
hand's events so far are in its observation, and in its ``new_events`` where the protocol has them),
with the request id and clock of the recorded match. The reply's think time is measured as the
referee measures it, from when the bot's side of its link has the request to the reply's
arrival. Then the stream ends with status OK and the bot's process group is stopped (exit
grace, SIGTERM, SIGKILL).
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.bots.confine import Confinement
from referee.bots.process import BotProcess
from referee.bots.sandbox import SandboxSettings
from referee.bots.spec import BotSpec
from referee.convert import EventEncoder, action_from_pb, rules_pb
from referee.engine.actions import Action
from referee.engine.observation import observe
from referee.errors import GinRefError, IllegalActionError, MalformedActionError
from referee.link import SeatLink
from referee.requests import decision_request_pb, hand_start_pb
from referee.series import launch
from referee.server import RefereeServer
from referee.text import safe_lines
from referee.timeline import Step, Timeline, request_observation
from referee.transport import wait_reply
from referee.wire import ginrummy_pb2 as pb

DEFAULT_CONNECT_TIMEOUT = 10.0
EXIT_GRACE = 2.0
KILL_GRACE = 2.0


class AskError(GinRefError):
    """The bot could not be asked: it did not start, connect or answer."""


@dataclass(frozen=True, slots=True)
class Answer:
    """What the bot answered in the recorded position, and how long it took."""

    bot: str  # its Hello: name and version
    action: Action | None  # None: the action could not be read
    think_ms: float  # from when the bot's side had the request to the reply's arrival
    connect_s: float  # from the launch to the Welcome
    malformed: str | None = None  # why the action could not be read (R11.5)
    illegal: IllegalActionError | None = None  # why the engine refuses it here

    @property
    def legal(self) -> bool:
        """Whether the engine accepts the answer in that position."""
        return self.action is not None and self.illegal is None


def position_at(timeline: Timeline, line: int) -> Step:
    """The step of line ``line`` if a seat was asked a decision there; else a clear error."""
    step = timeline.step_at(line)
    if step is None:
        last = timeline.last_line
        raise GinRefError(
            f"--at {line}: no such event; the log's records are lines 1 to {last} "
            "(ginref replay shows each event's line number)"
        )
    if step.kind not in ("decision", "fault") or request_observation(step) is None:
        following = next(
            (s.line for s in timeline.steps if s.line > line and s.kind == "decision"), None
        )
        hint = f"; the next decision is line {following}" if following else ""
        what = step.kind if step.kind != "fault" else "fault outside a decision"
        raise GinRefError(
            f"--at {line}: line {line} is a {what} record, not a decision a seat was asked{hint}"
        )
    return step


def bank_before(timeline: Timeline, step: Step, seat: int) -> float:
    """The seat's time bank (ms) when it was asked the decision of ``step``."""
    clock = timeline.header.get("time_control", {})
    bank = float(clock.get("bank_ms", 0)) if isinstance(clock, dict) else 0.0
    for s in timeline.steps:
        if s.line >= step.line:
            break
        if s.kind == "decision" and s.record["seat"] == seat:
            bank = float(s.record["bank_ms"])
    return bank


def _match_start(timeline: Timeline, seat: int, move_ms: int, bank_ms: int) -> pb.RefereeMessage:
    # The runner builds MatchStart itself (referee.session.Session._play); convert has no
    # public builder for it yet, so this mirrors the runner's fields.
    header = timeline.header
    series = _object(header.get("series"))
    names = {r["seat"]: r for r in timeline.log.of_type("connected")}
    other = names.get(1 - seat)
    start = pb.MatchStart(
        match_id=str(header["match_id"]),
        match_number=int(series.get("match_number", 1)),
        series_length=int(series.get("length", 1)),
        seat=seat,
        time_control=pb.TimeControl(move_time_ms=move_ms, bank_ms=bank_ms),
        opponent_name=str(other["name"]) if other else timeline.label(1 - seat),
        opponent_version=str(other["version"]) if other else "",
    )
    start.rules.CopyFrom(rules_pb(timeline.rules))
    return pb.RefereeMessage(match_start=start)


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _tail(path: Path, lines: int = 8) -> str:
    try:
        text = path.read_text(errors="replace").strip()
    except OSError:
        return ""
    if not text:
        return ""
    shown = safe_lines(text)[-lines:]
    return "\nLast lines of the bot's output:\n  " + "\n  ".join(shown)


async def ask_async(
    timeline: Timeline,
    step: Step,
    bot: BotSpec,
    *,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    answer_timeout: float | None = None,
    confinement: Confinement | None = None,
) -> Answer:
    """Ask ``bot`` for its decision in ``step``'s position (see the module docstring).

    ``answer_timeout`` defaults to the time the seat had there (move time + its bank). The bot
    runs confined as ``confinement`` says (default: sandboxed). Raises :class:`AskError` if the
    bot does not start, connect or answer, :class:`ConfigError` if it cannot be sandboxed.
    """
    obs = request_observation(step)
    if obs is None:
        raise AskError(f"line {step.line}: no seat was asked a decision there")
    seat = obs.seat
    header = timeline.header
    clock = _object(header.get("time_control"))
    move_ms = int(clock.get("move_time_ms", 10_000))
    bank_ms = int(clock.get("bank_ms", 0))
    bank_left = bank_before(timeline, step, seat)
    time_left_ms = move_ms + bank_left
    timeout = time_left_ms / 1000 if answer_timeout is None else answer_timeout
    rid = int(step.record.get("request_id") or 1)
    messages = [_match_start(timeline, seat, move_ms, bank_ms)]
    before = step.before
    if before.hand is not None:
        deal = timeline.deal_step(before.hand.number + 1)
        if deal is not None:
            messages.append(hand_start_pb(observe(deal.after, seat)))
    request = decision_request_pb(
        obs, EventEncoder(seat), rid, int(time_left_ms), move_ms, int(bank_left)
    )

    loop = asyncio.get_running_loop()
    own = confinement is None
    if confinement is None:
        confinement = Confinement.prepare(SandboxSettings())
    server = RefereeServer(hello_timeout=connect_timeout, tcp=not confinement.settings.enabled)
    await server.start()
    ticket = server.issue_ticket(f"seat {seat} (ginref replay --ask)")
    workdir = tempfile.TemporaryDirectory(prefix="ginref-ask-")
    output = Path(workdir.name) / "bot.log"
    proc = BotProcess(bot, output, confinement=confinement)
    link: SeatLink | None = None
    try:
        launched = time.monotonic()
        await launch(proc, ticket, server, seat)
        if proc.start_error is not None:
            raise AskError(proc.start_error)
        waiting: set[asyncio.Future[Any]] = {ticket.connected, proc.exited}
        await asyncio.wait(waiting, timeout=connect_timeout, return_when=asyncio.FIRST_COMPLETED)
        if not ticket.connected.done():
            if proc.exited.done():
                why = f"the bot exited with code {proc.exited.result()} without connecting"
            else:
                why = f"the bot did not connect within {connect_timeout:g} s"
            raise AskError(why + _tail(output))
        link = ticket.connected.result()
        connect_s = time.monotonic() - launched
        reply: asyncio.Future[tuple[pb.ActionReply, float]] = loop.create_future()

        def on_message(message: pb.BotMessage, arrived: float) -> None:
            # Only the answer to this request counts; the session has no other.
            kind = message.WhichOneof("kind")
            ours = kind == "action_reply" and message.action_reply.request_id == rid
            if ours and not reply.done():
                reply.set_result((message.action_reply, arrived))

        def on_lost(reason: str, half_closed: bool) -> None:
            if not reply.done():
                reply.set_exception(AskError(f"the bot left before answering: {reason}"))

        def on_exit(future: asyncio.Future[int]) -> None:
            if not reply.done() and not future.cancelled():
                code = future.result()
                reply.set_exception(AskError(f"the bot exited with code {code} before answering"))

        link.on_message = on_message
        link.on_lost = on_lost
        proc.exited.add_done_callback(on_exit)
        for message in messages:
            link.send(message)
        start = loop.time()
        number = link.ask(request.SerializeToString())
        try:
            answer, arrived = await wait_reply(reply, start + timeout)
        except GinRefError as exc:
            why = str(exc)
            if not isinstance(exc, AskError):
                why = f"no answer within {timeout:g} s (the time the seat had there)"
            raise AskError(why + _tail(output)) from None
        think_ms = round((arrived - link.started(number)) * 1000, 3)
        name = f"{link.name} {link.version}".strip()
        try:
            action = action_from_pb(answer.action, obs.hand)
        except MalformedActionError as exc:
            return Answer(name, None, think_ms, connect_s, malformed=str(exc))
        probe = before.copy()
        try:
            probe.apply(action)
        except IllegalActionError as exc:
            return Answer(name, action, think_ms, connect_s, illegal=exc)
        return Answer(name, action, think_ms, connect_s)
    finally:
        if link is not None:
            link.close()
        server.revoke(ticket)
        await proc.stop(EXIT_GRACE, KILL_GRACE)
        await server.stop(grace=0.5)
        if own:
            confinement.close()
        with contextlib.suppress(OSError):
            workdir.cleanup()


def ask(
    timeline: Timeline,
    step: Step,
    bot: BotSpec,
    *,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    answer_timeout: float | None = None,
    confinement: Confinement | None = None,
) -> Answer:
    """Sync wrapper of :func:`ask_async` (runs its own event loop)."""
    return asyncio.run(
        ask_async(
            timeline,
            step,
            bot,
            connect_timeout=connect_timeout,
            answer_timeout=answer_timeout,
            confinement=confinement,
        )
    )
