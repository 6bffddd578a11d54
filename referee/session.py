"""The referee of one match: its seats, the engine, the clock, the faults and the replay log.

A :class:`Session` plays one match between two :class:`~referee.link.Player` objects (a bot
each, over a :class:`~referee.link.SeatLink`), or three or four of them (§10), from MatchStart to
MatchEnd; a series (:mod:`referee.series`) plays one session after another over the same links.
With three or four players each seat is sent its own hand's messages in hand seats, as in a
two-player match, and what :mod:`referee.seating` adds.

Clock (R11.5, proto ``TimeControl``): each decision may take ``move_time`` without touching the
bank; time beyond it is taken from the match's ``bank``. The time runs from when the bot's side
of its link has the request (for a sandboxed bot, its relay: :mod:`referee.relay`) until the
reply arrives there, so the bot's reading and network time count, and the referee's own work
and load do not. A reply that comes later than ``move_time`` + the remaining bank is a fault:
DEADLINE_MISSED when the match has no bank, TIME_BANK_EXHAUSTED otherwise. Nothing the referee
writes waits for the bot: a bot that does not read is charged by its clock, and its link cuts
it once too much is left unread.

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
import datetime as _dt
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from referee.bots.process import ExitStatus
from referee.convert import (
    choose_deal_event_pb,
    fault_pb,
    match_result_pb,
    rules_pb,
    showdown_event_pb,
)
from referee.engine.actions import ChooseDeal
from referee.engine.game import Game, new_game
from referee.engine.hand import Hand
from referee.engine.observation import observe_seat
from referee.engine.outcomes import HandResult, Phase
from referee.engine.rules import Rules
from referee.errors import (
    DisconnectedError,
)
from referee.faults import CONDUCT_RULE, Fault, FaultKind
from referee.inbox import Faulted, Waiter, read_message
from referee.link import Clock, Player
from referee.replay_log import (
    ReplayLogWriter,
    hand_result_dict,
    header_dict,
    match_result_dict,
    round_result_dict,
)
from referee.requests import SeatRequests, event_message, hand_start_pb
from referee.results import MatchOutcome, MatchPlan
from referee.seat import SeatState
from referee.seating import (
    deal_dict,
    forfeit_match,
    hand_ends,
    match_scores,
    seat_in_match,
    seats_at,
    tables_of,
)
from referee.settings import RefereeOptions
from referee.turn import SeatTurns
from referee.wire import ginrummy_pb2 as pb

# Refused connections a match's log records; more are counted, not written.
MAX_REJECTIONS_LOGGED = 100
# After a stream breaks, how long to wait for the process to exit before calling it a
# disconnect rather than a crash.
CRASH_PROBE = 0.5

# Called with (seat, message, hand) just before each message is written to that seat, where
# ``hand`` is the engine's hand the message is about (None before the first deal, and while the
# seat sits out a three-player hand): tests use it to check every message against the cards
# hidden from that seat at that moment.
OnSend = Callable[[int, pb.RefereeMessage, Hand | None], None]
# Called with each finished match's outcome, once its log is complete.
OnFinished = Callable[[MatchOutcome], None]
# Stops the bots after the last match of a series, before its result is logged.
BeforeResult = Callable[[], Awaitable[None]]


class Session(SeatTurns):
    """The referee of one match: the engine, the two seats, the clock, the faults, the log.

    ``on_finished`` is called with the outcome once the log is complete, before the bots are
    told the match is over; ``on_send`` (a test hook) with every message just before it is
    written. ``clock`` defaults to the running event loop.
    """

    def __init__(
        self,
        plan: MatchPlan,
        rules: Rules,
        conns: Sequence[Player],
        options: RefereeOptions,
        series_length: int,
        on_send: OnSend | None = None,
        *,
        on_finished: OnFinished | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.plan = plan
        self.rules = rules
        self.options = options
        self.series_length = series_length
        self._on_send = on_send
        self._on_finished = on_finished
        self._loop = asyncio.get_running_loop()
        self._clock: Clock = clock or self._loop
        self.players = rules.players
        self.seats = [
            SeatState(
                s,
                conns[plan.bots_by_seat[s]],
                options.bank,
                options.retries,
                SeatRequests(s, rules),
            )
            for s in range(self.players)
        ]
        self._seat_of = {id(seat.conn): seat for seat in self.seats}
        assert plan.seal is not None
        self._seal = plan.seal
        given = plan.seal.decks  # a deal file's decks, which the seal commits to
        self.match: Game = (
            new_game(rules, plan.seed)
            if given is None
            else new_game(rules, plan.seed, decks=given.decks, first_dealer=given.first_dealer)
        )
        # The hand each seat's messages are about (None before the first deal, or sitting out).
        self._hand_of: list[Hand | None] = [None] * self.players
        self._dealt: set[int] = set()  # the numbers of the hands whose deal was announced
        self.log = ReplayLogWriter(plan.log_path, fsync=options.fsync)
        self._waiter: Waiter | None = None
        self._pending: list[Fault] = []
        self.faults: list[Fault] = []
        self.forfeit: Fault | None = None
        self.forfeits: tuple[Fault, ...] = ()
        self.decisions = 0
        self.seat_decisions = [0] * self.players
        self.seat_think_ms = [0.0] * self.players  # the sum of the logged think_ms, by seat
        self.created = ""  # the header's, set by write_header
        self._move_ms = round(options.move_time * 1000)
        self.started = self._clock.time()
        self.ended = self.started  # when the match was decided
        self.outcome: MatchOutcome | None = None
        self._rejected = 0

    # --- log ----------------------------------------------------------------------------------

    def write_header(self) -> None:
        """The log's first line: the match, its rules, seed and deal commitment, the bots."""
        o = self.options
        self.created = _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds")
        bots = [
            (s.index, s.conn.label, s.conn.command, s.conn.proc.output.name) for s in self.seats
        ]
        self.log.write(
            "header",
            **header_dict(
                self.plan.match_id,
                self.created,
                self.rules,
                self.plan.seed,
                self._seal.commitment,
                (self._move_ms, round(o.bank * 1000), o.retries),
                (self.plan.number, self.series_length),
                bots,
                None if self._seal.decks is None else self._seal.decks.header(),
            ),
        )

    def log_connected(self, conn: Player) -> None:
        seat = self._seat_of[id(conn)]
        assert conn.link is not None
        self.log.write("connected", seat=seat.index, name=conn.link.name, version=conn.link.version)

    def log_rejected(self, conn: Player | None, code: str, reason: str) -> None:
        if self.log.closed:
            return  # the match is over: a refused connection no longer concerns it
        self._rejected += 1
        if self._rejected > MAX_REJECTIONS_LOGGED:
            return  # a bot knocking on its socket all match long must not grow the log
        if self._rejected == MAX_REJECTIONS_LOGGED:
            reason += f" (the last refusal this log records: at most {MAX_REJECTIONS_LOGGED})"
        seat = None if conn is None else self._seat_of[id(conn)].index
        self.log.write(
            "connection_rejected", seat=seat, code=code, rule=CONDUCT_RULE, reason=reason
        )

    # --- messages from the bots ---------------------------------------------------------------

    def on_message(self, conn: Player, message: pb.BotMessage, arrived: float) -> None:
        seat = self._seat_of[id(conn)]
        fault = read_message(seat.index, message, arrived, self._waiter, seat.outstanding, conn)
        if fault is not None:
            self.raise_fault(fault)

    def on_lost(self, conn: Player, reason: str, half_closed: bool) -> None:
        if self.match.result is not None:
            return
        seat = self._seat_of[id(conn)]
        self.raise_fault(Fault(seat.index, FaultKind.DISCONNECTED, CONDUCT_RULE, reason))

    def on_exit(self, conn: Player, code: int) -> None:
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

    def seat_of(self, conn: Player) -> int:
        """The seat ``conn``'s bot plays in this match."""
        return self._seat_of[id(conn)].index

    def raise_fault(self, fault: Fault) -> None:
        """Interrupt the decision in progress with ``fault``, or keep it for the next one."""
        waiter = self._waiter
        if waiter is not None and not waiter.future.done():
            waiter.future.set_exception(Faulted(fault))
        elif all(p.seat != fault.seat for p in self._pending):
            # One pending fault per seat decides: a bot flooding the stream must not grow this.
            self._pending.append(fault)

    # --- sending ------------------------------------------------------------------------------

    def send(self, seat: SeatState, message: pb.RefereeMessage) -> None:
        """Write to a seat, after the events it has not received yet (proto, "Events").

        Never waits: the link queues what the bot has not read yet (a bot that stops reading is
        its link's to cut). A failure becomes that seat's fault at the next opportunity.
        """
        if self._send_events(seat):
            self._write(seat, message)

    def _send_events(self, seat: SeatState) -> bool:
        """Send the seat its undelivered events as Event messages; False if it can't be written."""
        for event in seat.encoder.take_undelivered_encoded():
            if not self._write(seat, event_message(event)):
                return False
        return True

    def _sending(self, seat: SeatState, message: pb.RefereeMessage | bytes) -> None:
        """The ``on_send`` hook, with the message as the seat will read it."""
        if self._on_send is not None:
            if isinstance(message, bytes):
                data, message = message, pb.RefereeMessage()
                message.ParseFromString(data)
            self._on_send(seat.index, message, self._hand_of[seat.index])

    def _write(self, seat: SeatState, message: pb.RefereeMessage | bytes) -> bool:
        link = seat.conn.link
        if link is None or not seat.conn.reachable:
            return False
        self._sending(seat, message)
        try:
            link.send(message)
        except DisconnectedError as exc:
            if self.match.result is None:
                self._pending.append(
                    Fault(seat.index, FaultKind.DISCONNECTED, CONDUCT_RULE, str(exc))
                )
            return False
        return True

    def send_both(self, make: Callable[[SeatState], pb.RefereeMessage]) -> None:
        """Send every seat its message (both seats of a two-player match)."""
        for seat in self.seats:
            self.send(seat, make(seat))

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
        hand = self._hand_of[fault.seat] or self.match.hand
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
        forfeit_match(self.match, recorded)
        for item in recorded:
            if item.kind.reaches_bot:
                self.send(self.seats[item.seat], fault_pb(item))

    # --- the match ----------------------------------------------------------------------------

    def _scores(self) -> list[pb.SeatScore]:
        """The match scores now, by seat (public: every seat is sent the same)."""
        return match_scores(self.match)

    async def run(self, before_result: BeforeResult | None = None) -> MatchOutcome:
        """Play the match to its end; never raises for a bot's fault. ``before_result`` (the
        last match of a series) stops the bots after MatchEnd, before the log's match_result,
        which then records how each bot process ended."""
        for conn in {id(s.conn): s.conn for s in self.seats}.values():
            conn.session = self
        self.started = self._clock.time()
        try:
            await self._play(before_result)
        finally:
            for seat in self.seats:
                seat.conn.session = None
                seat.conn.proc.pause(False)
            self.log.close()
        assert self.outcome is not None
        return self.outcome

    def _make_outcome(self) -> MatchOutcome:
        result = self.match.result
        assert result is not None
        return MatchOutcome(
            match_id=self.plan.match_id,
            log_path=self.plan.log_path,
            rules=self.rules,
            seed=self.plan.seed,
            seats=tuple(seat.info() for seat in self.seats),
            result=result,
            hand_results=tuple(self.match.hand_results),
            forfeit=self.forfeit,
            faults=tuple(self.faults),
            decisions=self.decisions,
            elapsed=self.ended - self.started,
            forfeits=self.forfeits,
            created=self.created,
            hands_played=len(self._dealt),
            seat_decisions=tuple(self.seat_decisions),
            seat_think_ms=tuple(self.seat_think_ms),
            log_sha256=self.log.sha256,
            log_bytes=self.log.size,
            exits=self._exits(),
        )

    async def _play(self, before_result: BeforeResult | None) -> None:
        m = self.match
        o = self.options
        time_control = pb.TimeControl(move_time_ms=self._move_ms, bank_ms=round(o.bank * 1000))
        names = [s.conn.link.name if s.conn.link else s.conn.label for s in self.seats]
        versions = [s.conn.link.version if s.conn.link else "" for s in self.seats]
        for seat in self.seats:
            start = pb.MatchStart(
                match_id=self.plan.match_id,
                match_number=self.plan.number,
                series_length=self.series_length,
                seat=seat.index,
                time_control=time_control,
                deal_commitment=self._seal.commitment,
            )
            start.rules.CopyFrom(rules_pb(self.rules))
            seat_in_match(start, seat.index, names, versions)
            self.send(seat, pb.RefereeMessage(match_start=start))
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
        if not o.ponder:
            for seat in self.seats:
                seat.conn.proc.pause(True)  # each thaws for its own decisions (_decide)
        if m.result is None and m.phase is Phase.CHOOSE_DEALER:
            chooser = self.seats[m.to_act or 0]
            action = await self._decide(chooser)
            if isinstance(action, ChooseDeal):
                event = choose_deal_event_pb(chooser.index, action.deal)
                self.send_both(lambda _s: pb.RefereeMessage(event=event))
        while m.result is None:
            if m.hands_dealt != len(self._dealt):
                await self._deal_new_hands()
            hand = m.hand
            assert hand is not None  # the first dealer is decided once the match goes on
            at_table = seats_at(m, hand)
            results = len(m.hand_results)
            seat = self.seats[m.to_act if m.to_act is not None else 0]
            if await self._decide(seat) is None:
                break
            for index in at_table:
                self.seats[index].encoder.sync(hand.events, hand.knock)
            if len(m.hand_results) > results:
                await self._end_hands(m.hand_results[results:])
        result = m.result
        assert result is not None
        self.ended = self._clock.time()
        for seat in self.seats:
            seat.conn.proc.pause(False)  # to read the end, and to exit after a series
        scores = self._scores()
        # The hands logged: a match forfeited before its first deal played none, though the
        # engine has dealt it.
        hands = len(self._dealt)
        message = pb.RefereeMessage(
            match_end=pb.MatchEnd(
                match_id=self.plan.match_id,
                result=match_result_pb(result, scores, hands, self.forfeit, self.players),
                deal_seed=self._seal.seed,
                deal_salt=self._seal.salt,
            )
        )
        if before_result is not None:
            self.send_both(lambda _s: message)
            await before_result()
        self.log.write(
            "match_result",
            **match_result_dict(
                result,
                hands,
                self.forfeit.kind.value if self.forfeit else None,
                self.players,
            ),
            deal_salt=self._seal.salt.hex(),
            exits=[None if x is None else x.to_dict() for x in self._exits()],
        )
        # The log is complete before the bots hear the result (or, at the end of a series,
        # once they are stopped): a caller may commit it now.
        self.log.close()
        self.outcome = self._make_outcome()
        if self._on_finished is not None:
            self._on_finished(self.outcome)
        if before_result is None:
            self.send_both(lambda _s: message)

    def _exits(self) -> tuple[ExitStatus | None, ...]:
        """How each seat's bot process ended (None: it is still running)."""
        return tuple(s.conn.proc.exit_status() for s in self.seats)

    async def _deal_new_hands(self) -> None:
        """Log and announce every hand dealt since the last call (two at once with tables).

        The public events a seat's action causes go out with the seat's next message: in the
        new_events of a request, or as Event messages before any other message (:meth:`send`).
        """
        m = self.match
        fresh = [t for t in tables_of(m) if t[2].number not in self._dealt]
        for number, seats, hand in fresh:
            self._dealt.add(hand.number)
            self.log.write("deal", **deal_dict(hand, seats, number, self.players))
        for _number, seats, hand in fresh:
            told = seats if self.players == 4 else range(self.players)
            for index in told:
                seat = self.seats[index]
                hand_seat = seats.index(index) if index in seats else None
                self._hand_of[index] = None if hand_seat is None else hand
                seat.requests.new_hand(hand_seat if self.players > 2 else None)
                self.send(seat, hand_start_pb(observe_seat(m, index)))

    async def _end_hands(self, results: list[HandResult]) -> None:
        """Log and announce finished hands: one, or a partnership round's two (R10.2)."""
        m = self.match
        for result in results:
            self.log.write("hand_result", **hand_result_dict(result, m.players > 2))
        if m.teams:
            self.log.write("round_result", **round_result_dict(m.round_results[-1]))
        for told, result, message in hand_ends(m, results):
            showdown = showdown_event_pb(result)
            for index in told:
                seat = self.seats[index]
                if showdown is not None and index in result.seats:
                    self.send(seat, pb.RefereeMessage(event=showdown))
                self.send(seat, message)
