"""A seat's turn: its request, its clock and its retries, up to a decision or a forfeit.

:class:`SeatTurns` is the part of :class:`~referee.session.Session` that asks the seat to act
(the clock of R11.5 and the ``retries`` of the session's docstring); the session owns the state
it reads and the forfeits it ends in.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

from referee.convert import action_from_pb, fault_pb
from referee.engine.actions import Action, action_to_dict
from referee.engine.game import Game
from referee.engine.observation import observe_seat
from referee.engine.outcomes import Phase
from referee.errors import (
    DeadlineExceededError,
    DisconnectedError,
    IllegalActionError,
    MalformedActionError,
)
from referee.faults import CONDUCT_RULE, Fault, FaultKind, timeout_fault
from referee.inbox import Faulted, Waiter
from referee.link import Clock
from referee.replay_log import ReplayLogWriter, decision_line
from referee.seat import SeatState
from referee.settings import RefereeOptions
from referee.transport import wait_reply
from referee.wire import ginrummy_pb2 as pb


class _TimeUp(Exception):
    """A decision's time ran out: ``used`` seconds of the bot's clock."""

    def __init__(self, used: float) -> None:
        super().__init__(f"no reply within {used:.3f} s")
        self.used = used


class SeatTurns:
    """Asking the seat to act, for :class:`~referee.session.Session`, which provides the rest."""

    match: Game
    options: RefereeOptions
    log: ReplayLogWriter
    decisions: int
    seat_decisions: list[int]
    seat_think_ms: list[float]
    _loop: asyncio.AbstractEventLoop
    _clock: Clock
    _waiter: Waiter | None
    _pending: list[Fault]
    _move_ms: int

    async def _forfeit(self, fault: Fault) -> None:
        raise NotImplementedError

    def _record(self, fault: Fault) -> Fault:
        raise NotImplementedError

    def _sending(self, seat: SeatState, message: pb.RefereeMessage | bytes) -> None:
        raise NotImplementedError

    def send(self, seat: SeatState, message: pb.RefereeMessage) -> None:
        raise NotImplementedError

    async def _decide(self, seat: SeatState) -> Action | None:
        """Ask ``seat`` for its decision and apply it; None if the match ended by a forfeit.

        Unless bots may ponder, the seat's bot is thawed for the decision and frozen again
        after it: a bot that is not to act takes no CPU from the one that is."""
        proc = seat.conn.proc
        proc.pause(False)
        try:
            return await self._ask(seat)
        finally:
            if not self.options.ponder:
                proc.pause(True)

    async def _ask(self, seat: SeatState) -> Action | None:
        loop = self._loop
        clock = self._clock
        conn = seat.conn
        m = self.match
        bank_before = seat.bank
        budget = self.options.move_time + bank_before
        # The bot's clock starts when its side of the link has the first request (the referee's
        # own work to build it, and its write, are not the bot's time) and runs on through any
        # retries; ``deadline`` is when the referee's clock next asks the link how it stands.
        deadline = 0.0
        first: int | None = None  # the link's number of the first request
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
            obs = observe_seat(m, seat.index)
            rid = conn.request_id()
            left = max(0.0, deadline - clock.time()) if first is not None else budget
            request = seat.requests.encode(
                obs, rid, int(left * 1000), self._move_ms, int(seat.bank * 1000)
            )
            future: asyncio.Future[tuple[pb.ActionReply, float]] = loop.create_future()
            self._waiter = Waiter(seat.index, rid, future)
            seat.outstanding = rid
            fault: Fault | None = None
            try:
                self._sending(seat, request)
                if first is None:
                    deadline = clock.time() + budget
                    first = link.ask(request)
                else:
                    link.ask(request)
                reply, arrived = await self._reply(seat, rid, future, deadline, budget, first)
            except DisconnectedError as exc:
                fault = Fault(seat.index, FaultKind.DISCONNECTED, CONDUCT_RULE, str(exc), rid)
            except _TimeUp as exc:
                conn.abandoned.add(rid)
                fault = timeout_fault(seat.index, rid, exc.used, self.options)
            except Faulted as exc:
                conn.abandoned.add(rid)
                fault = exc.fault
            finally:
                self._waiter = None
                seat.outstanding = None
            if fault is not None:
                await self._forfeit(fault)
                return None
            # Only now: a link may learn when its side had the request with the reply (a relay).
            assert first is not None
            think = arrived - link.started(first)
            if think > budget:
                await self._forfeit(timeout_fault(seat.index, rid, think, self.options))
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
                self.seat_decisions[seat.index] += 1
                self.seat_think_ms[seat.index] += think_ms
                self.log.write_line(
                    decision_line(
                        0 if obs.phase is Phase.CHOOSE_DEALER else obs.hand_number + 1,
                        seat.index,
                        obs.phase.value,
                        rid,
                        action,
                        think_ms,
                        round(seat.bank * 1000, 3),
                    )
                )
                return action
            fault = replace(fault, think_ms=think_ms)
            if seat.retries_left > 0 and think < budget and not self._pending:
                seat.retries_left -= 1
                fault = self._record(replace(fault, retry=True))
                self.send(seat, fault_pb(fault))
                continue
            await self._forfeit(fault)
            return None

    async def _reply(
        self,
        seat: SeatState,
        rid: int,
        future: asyncio.Future[tuple[pb.ActionReply, float]],
        deadline: float,
        budget: float,
        first: int,
    ) -> tuple[pb.ActionReply, float]:
        """The reply to request ``rid`` (and its arrival, on the link's clock), or
        :class:`_TimeUp` once the bot has used ``budget`` since request ``first`` reached it.

        The referee's clock reaching ``deadline`` is not the verdict: the link is asked how long
        the bot has had the request on its side, and delivers whatever reply its side already
        has (:meth:`~referee.link.SeatLink.settle`), so that neither the referee's load nor its
        write of the request is charged to the bot.
        """
        clock = self._clock
        link = seat.conn.link
        assert link is not None
        while True:
            try:
                return await wait_reply(future, deadline, clock)
            except DeadlineExceededError:
                pass
            # The timer failed the future: a reply delivered while the link is asked needs a
            # fresh one.
            future = self._loop.create_future()
            self._waiter = Waiter(seat.index, rid, future)
            now = await link.settle()
            if future.done():
                return future.result()
            used = now - link.started(first)
            if used >= budget:
                raise _TimeUp(used)
            deadline = clock.time() + budget - used
