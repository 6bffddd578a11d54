"""``ginref replay LOG --ask BOT --at EVENT``: put a live bot into a recorded position.

The position is the one the acting seat was asked about on line EVENT of the log (a
``decision``, or a decision ``fault``), in a match of two, three or four players, rebuilt by
:mod:`referee.timeline`. A one-decision session then plays it: the bot is started as a series
starts its bots (:class:`referee.lineup.Lineup`: the launch contract ``GINREF_ADDRESS``,
``GINREF_TOKEN``, ``GINREF_SEAT``, a process group of its own, its sandbox, a real
:class:`referee.server.RefereeServer`), welcomed, and sent what the referee sent that seat: the
MatchStart, the HandStart of the seat's hand, and the DecisionRequest built by
:func:`referee.requests.decision_request_pb` from :func:`referee.engine.observation.observe_seat`
(the hand's events so far are in its observation, and in its ``new_events`` where the protocol
has them; with three or four players the hand as a two-player hand from the seat's hand seat),
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
from referee.bots.spec import BotSpec
from referee.convert import EventEncoder, action_from_pb, rules_pb
from referee.engine.actions import Action
from referee.engine.observation import observe_seat
from referee.engine.outcomes import Phase
from referee.errors import GinRefError, IllegalActionError, MalformedActionError
from referee.faults import Fault
from referee.lineup import Entry, Lineup
from referee.link import Player
from referee.requests import decision_request_pb, hand_start_pb
from referee.seating import seat_in_match
from referee.settings import RefereeOptions
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
    """The seat's MatchStart, as the session builds it (referee.session.Session._play), from
    what the log recorded of the match and its bots."""
    header = timeline.header
    series = _object(header.get("series"))
    connected = {r["seat"]: r for r in timeline.log.of_type("connected")}
    seats = range(timeline.rules.players)
    names = [str(connected[s]["name"]) if s in connected else timeline.label(s) for s in seats]
    versions = [str(connected[s]["version"]) if s in connected else "" for s in seats]
    start = pb.MatchStart(
        match_id=str(header["match_id"]),
        match_number=int(series.get("match_number", 1)),
        series_length=int(series.get("length", 1)),
        seat=seat,
        time_control=pb.TimeControl(move_time_ms=move_ms, bank_ms=bank_ms),
    )
    start.rules.CopyFrom(rules_pb(timeline.rules))
    seat_in_match(start, seat, names, versions)
    with contextlib.suppress(KeyError, ValueError):  # a log without it still asks
        start.deal_commitment = bytes.fromhex(str(header["deal_commitment"]))
    return pb.RefereeMessage(match_start=start)


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _tail(path: Path, lines: int = 8) -> str:
    try:
        text = path.read_text(errors="replace").strip()
    except OSError:
        return ""
    # The referee's own note of a launch that failed says what the error already says.
    kept = [line for line in safe_lines(text) if not line.startswith("ginref: ")] if text else []
    if not kept:
        return ""
    return "\nLast lines of the bot's output:\n  " + "\n  ".join(kept[-lines:])


def recorded_messages(
    timeline: Timeline, step: Step
) -> tuple[list[pb.RefereeMessage], pb.RefereeMessage]:
    """What the referee sent the seat asked the decision of ``step`` before its request (its
    MatchStart, and its hand's HandStart once a hand is dealt), and the request, with the
    recorded request id and the seat's clock as it stood; its ``new_events`` are all the hand's
    events so far, as if the seat had been told none yet."""
    obs = request_observation(step)
    seat = step.seat
    if obs is None or seat is None:
        raise AskError(f"line {step.line}: no seat was asked a decision there")
    clock = _object(timeline.header.get("time_control"))
    move_ms = int(clock.get("move_time_ms", 10_000))
    bank_ms = int(clock.get("bank_ms", 0))
    bank_left = bank_before(timeline, step, seat)
    rid = int(step.record.get("request_id") or 1)
    messages = [_match_start(timeline, seat, move_ms, bank_ms)]
    if obs.phase is not Phase.CHOOSE_DEALER:  # a hand is dealt: the seat was told of it
        deal = timeline.deal_step(obs.hand_number + 1)
        if deal is not None:
            messages.append(hand_start_pb(observe_seat(deal.after, seat)))
    # A hand's events are told from the seat's place in that hand (its hand seat).
    request = decision_request_pb(
        obs, EventEncoder(obs.seat), rid, int(move_ms + bank_left), move_ms, int(bank_left)
    )
    return messages, request


class _OneDecision:
    """The session of one request: its reply, or why there is none
    (a :class:`~referee.link.PlayerSession` for the asked bot's player)."""

    def __init__(self, seat: int, request_id: int) -> None:
        self.seat = seat
        self.request_id = request_id
        self.reply: asyncio.Future[tuple[pb.ActionReply, float]] = (
            asyncio.get_running_loop().create_future()
        )

    def on_message(self, conn: Player, message: pb.BotMessage, arrived: float) -> None:
        # Only the answer to this request counts; the session has no other.
        kind = message.WhichOneof("kind")
        ours = kind == "action_reply" and message.action_reply.request_id == self.request_id
        if ours and not self.reply.done():
            self.reply.set_result((message.action_reply, arrived))

    def on_lost(self, conn: Player, reason: str, half_closed: bool) -> None:
        self._fail(f"the bot left before answering: {reason}")

    def on_exit(self, conn: Player, code: int) -> None:
        self._fail(f"the bot exited with code {code} before answering")

    def seat_of(self, conn: Player) -> int:
        return self.seat

    def raise_fault(self, fault: Fault) -> None:
        """A message that cannot be read is not the answer: the bot may still send it."""

    def _fail(self, why: str) -> None:
        if not self.reply.done():
            self.reply.set_exception(AskError(why))


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
    seat = step.before.to_act
    assert seat is not None
    messages, request = recorded_messages(timeline, step)
    rid = request.decision_request.request_id
    # The time the seat had there: move time + its bank.
    timeout = request.decision_request.time_left_ms / 1000
    if answer_timeout is not None:
        timeout = answer_timeout
    options = RefereeOptions(
        connect_timeout=connect_timeout, exit_grace=EXIT_GRACE, kill_grace=KILL_GRACE
    ).validate()
    loop = asyncio.get_running_loop()
    with tempfile.TemporaryDirectory(prefix="ginref-ask-", ignore_cleanup_errors=True) as work:
        output = Path(work) / "bot.log"
        entry = Entry(bot, seat, output)
        async with Lineup(
            [entry],
            options,
            "(ginref replay --ask)",
            confinement=confinement,
            connect_hint=None,
        ) as lineup:
            launched = time.monotonic()
            await lineup.connect()
            (player,) = lineup.players
            link = player.link
            if link is None:
                why = player.gone.reason if player.gone is not None else "the bot did not connect"
                raise AskError(why + _tail(output))
            connect_s = time.monotonic() - launched
            session = _OneDecision(seat, rid)
            player.session = session
            for message in messages:
                link.send(message)
            start = loop.time()
            number = link.ask(request.SerializeToString())
            try:
                answer, arrived = await wait_reply(session.reply, start + timeout)
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
    probe = step.before.copy()
    try:
        probe.apply(action)
    except IllegalActionError as exc:
        return Answer(name, action, think_ms, connect_s, illegal=exc)
    return Answer(name, action, think_ms, connect_s)


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
