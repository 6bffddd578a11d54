"""What a bot's message means while a match is played: the answer awaited, or a fault.

The session waits for one answer at a time (:class:`Waiter`: the seat, the request id, the
future the answer is delivered to). :func:`read_message` sorts every message a bot sends: the
awaited answer resolves the future; an answer too late for a request already given up on (it
timed out, or the other seat's fault cut it short) is ignored; anything else is a fault of the
sender (R11.5), which the session delivers to the decision in progress as :class:`Faulted`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from referee.faults import CONDUCT_RULE, Fault, FaultKind
from referee.link import Player
from referee.wire import ginrummy_pb2 as pb


class Faulted(Exception):
    """Delivered to the waiting decision when a fault happens meanwhile (either seat)."""

    def __init__(self, fault: Fault) -> None:
        super().__init__(fault.reason)
        self.fault = fault


@dataclass(slots=True)
class Waiter:
    """The answer the session awaits: from ``seat``, to request ``request_id``."""

    seat: int
    request_id: int
    future: asyncio.Future[tuple[pb.ActionReply, float]]


def read_message(
    seat: int,
    message: pb.BotMessage,
    arrived: float,
    waiter: Waiter | None,
    outstanding: int | None,
    conn: Player,
) -> Fault | None:
    """Deliver an awaited answer to ``waiter``; return the fault ``message`` is, if any.

    ``outstanding`` is the request the seat has been sent and not answered; ``conn.abandoned``
    the requests whose late answers are ignored.
    """
    kind = message.WhichOneof("kind")
    if kind == "hello":
        return Fault(seat, FaultKind.PROTOCOL_ERROR, CONDUCT_RULE, "a second Hello")
    if kind != "action_reply":
        return Fault(seat, FaultKind.PROTOCOL_ERROR, CONDUCT_RULE, "an empty message (no kind set)")
    rid = message.action_reply.request_id
    if waiter is not None and waiter.seat == seat and waiter.request_id == rid:
        future = waiter.future
        if not future.done():
            future.set_result((message.action_reply, arrived))
            return None
        if future.cancelled() or future.exception() is not None:
            # The decision was cut short (a timeout, or the other seat's fault) before the
            # referee moved on: like any late answer, this one is ignored, not a fault.
            return None
        why = f"a second reply to request {rid}: no request is outstanding"
    elif rid in conn.abandoned:
        return None  # a late answer to a request that timed out (or a fault cut short)
    elif outstanding is None:
        why = f"a reply to request {rid}, but no request is outstanding for this seat"
    else:
        why = f"a reply to request {rid}, but the outstanding request is {outstanding}"
    return Fault(seat, FaultKind.OUT_OF_TURN, CONDUCT_RULE, why, rid)
