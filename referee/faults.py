"""Bot faults (R11.5 in docs/rules.md) as data: what went wrong, which rule it breaks, whether to
retry.

A fault is never raised out of the referee; the match runner records it in the replay log and in
the match result, and the default policy makes the faulty seat forfeit (:meth:`Match.forfeit`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Protocol

# Timing, connection and protocol faults all break R11.5; an illegal action names the engine's
# own rule (R4.3, R5.3, ...).
CONDUCT_RULE = "R11.5"


class FaultKind(enum.Enum):
    """The kinds of bot fault; the value is the spelling used in the replay log."""

    ILLEGAL_ACTION = "illegal_action"  # well-formed, forbidden by the rules here (R3-R7)
    MALFORMED_ACTION = "malformed_action"  # no kind, bad card string, duplicate card...
    OUT_OF_TURN = "out_of_turn"  # a reply with no request outstanding, or an unknown request_id
    PROTOCOL_ERROR = "protocol_error"  # e.g. a second Hello, an empty message
    DEADLINE_MISSED = "deadline_missed"  # no reply within the move time, no bank
    TIME_BANK_EXHAUSTED = "time_bank_exhausted"  # the bank ran out before the reply arrived
    DISCONNECTED = "disconnected"  # the stream closed or broke, the process still running
    CRASHED = "crashed"  # the bot process exited during the match
    NOT_CONNECTED = "not_connected"  # never connected (in time), or could not be started

    @property
    def retryable(self) -> bool:
        """Whether the retry policy applies: only to an action that was read and refused."""
        return self in (FaultKind.ILLEGAL_ACTION, FaultKind.MALFORMED_ACTION)

    @property
    def reaches_bot(self) -> bool:
        """Whether a Fault message can still be sent to the bot (it is connected)."""
        return self not in (FaultKind.DISCONNECTED, FaultKind.CRASHED, FaultKind.NOT_CONNECTED)


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault of one seat, as recorded in the replay log."""

    seat: int
    kind: FaultKind
    rule: str
    reason: str
    request_id: int = 0
    retry: bool = False
    hand: int | None = None  # 1-based hand number; None before the first deal
    action: dict[str, Any] | None = None  # the refused action, when it could be read
    think_ms: float | None = None

    def describe(self) -> str:
        """One line for people, e.g. ``seat 1: illegal_action (R4.3): ...``."""
        return f"seat {self.seat}: {self.kind.value} ({self.rule}): {self.reason}"

    def to_dict(self) -> dict[str, Any]:
        """The replay log's ``fault`` record, without its ``type`` key."""
        return {
            "hand": self.hand,
            "seat": self.seat,
            "kind": self.kind.value,
            "rule": self.rule,
            "reason": self.reason,
            "request_id": self.request_id,
            "retry": self.retry,
            "action": self.action,
            "think_ms": self.think_ms,
        }


def timeout_fault(seat: int, request_id: int, think: float, options: Clocked) -> Fault:
    """The fault of a reply that came too late (or never) after ``think`` seconds: the bank's
    when the match has one, else the move time's."""
    if options.bank > 0:
        return Fault(
            seat,
            FaultKind.TIME_BANK_EXHAUSTED,
            CONDUCT_RULE,
            f"no reply to request {request_id} after {think:.3f} s: the move time "
            f"({options.move_time:g} s) and the time bank ({options.bank:g} s per match) are "
            "used up",
            request_id,
            think_ms=round(think * 1000, 3),
        )
    return Fault(
        seat,
        FaultKind.DEADLINE_MISSED,
        CONDUCT_RULE,
        f"no reply to request {request_id} within the move time of {options.move_time:g} s",
        request_id,
        think_ms=round(think * 1000, 3),
    )


class Clocked(Protocol):
    """A match's time control (:class:`referee.settings.RefereeOptions` has one)."""

    @property
    def move_time(self) -> float:
        """Seconds each decision may take without touching the bank."""

    @property
    def bank(self) -> float:
        """The time bank per seat and match, in seconds."""
