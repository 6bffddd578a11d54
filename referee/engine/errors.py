"""The engine's exceptions, typed by who is at fault.

- :class:`CardError`, :class:`RulesError`: malformed input (a card string, a parameter).
- :class:`IllegalActionError`: a well-formed action that the rules forbid in this position; it
  names the rule (``R4.3``...) and the state is left unchanged.
- :class:`EngineError`: a broken engine invariant, i.e. a bug, never a player's fault.

:class:`GinRefError` is the base of every error ginref raises on purpose; the layers above the
engine add their own (:mod:`referee.errors`).
"""

from __future__ import annotations


class GinRefError(Exception):
    """Base class of every error ginref raises on purpose."""


class CardError(GinRefError, ValueError):
    """A card or card list could not be parsed, or is not a valid meld."""


class RulesError(GinRefError, ValueError):
    """An unknown profile or parameter, a bad value, or an invalid combination of parameters."""


class IllegalActionError(GinRefError, ValueError):
    """An action that is not legal in the current position; the state is unchanged."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.reason = message


class EngineError(GinRefError, RuntimeError):
    """An internal invariant of the engine was broken (a bug in ginref)."""
