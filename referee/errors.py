"""The package's exception tree, typed by who is at fault.

The engine's own (:mod:`referee.engine.errors`) are re-exported here:

- :class:`CardError`, :class:`RulesError`: malformed input (a card string, a parameter).
- :class:`IllegalActionError`: a well-formed action that the rules forbid in this position; it
  names the rule (``R4.3``...) and the state is left unchanged.
- :class:`EngineError`: a broken engine invariant, i.e. a bug, never a player's fault.

The referee's:

- :class:`MalformedActionError`: a bot's wire action that cannot be read (R11.5).
- :class:`TransportError` (:class:`DisconnectedError`, :class:`DeadlineExceededError`): the link
  to a bot failed; gRPC's own errors are mapped to these in :mod:`referee.transport` alone.
- :class:`ReplayLogError`: a replay log that does not parse or does not re-adjudicate.

A bot's fault is never raised out of the referee: the match runner turns these into data (a
:class:`referee.faults.Fault` in the result and the replay log).
"""

from __future__ import annotations

from referee.engine.errors import (
    CardError,
    EngineError,
    GinRefError,
    IllegalActionError,
    RulesError,
)

__all__ = [
    "CardError",
    "ConfigError",
    "DeadlineExceededError",
    "DisconnectedError",
    "EngineError",
    "GinRefError",
    "IllegalActionError",
    "MalformedActionError",
    "ReplayLogError",
    "RulesError",
    "TransportError",
]


class MalformedActionError(GinRefError, ValueError):
    """A bot's action cannot be read: no kind, a non-canonical card, a duplicate card (R11.5)."""


class TransportError(GinRefError):
    """The connection to a bot failed; raised only by :mod:`referee.transport`."""


class DisconnectedError(TransportError):
    """The bot closed or broke its stream, or its process went away."""


class DeadlineExceededError(TransportError):
    """No reply arrived before the decision's deadline."""


class ReplayLogError(GinRefError, ValueError):
    """A replay log is malformed, or does not re-adjudicate to the scores it records.

    ``problems`` lists ``(line number, message)`` pairs, every one found (line 0: the file).
    """

    def __init__(self, problems: list[tuple[int, str]]) -> None:
        shown = "; ".join(f"line {n}: {m}" for n, m in problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        super().__init__(f"invalid replay log: {shown}{more}")
        self.problems = problems


class ConfigError(GinRefError, ValueError):
    """A bad option of the match runner or the command line (a bot command, a time limit)."""
