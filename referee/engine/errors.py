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
    """An unknown profile or parameter, a bad value, or an invalid combination of parameters.

    ``needs``: the parameter values that would lift it, where there is one way, so that a
    command line can say what to type (``--set scope=match``) and a file what to write."""

    def __init__(self, message: str, needs: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__(message)
        self.needs = needs

    def fix(self, *, option: bool) -> str:
        """What to add, as an option (``--set scope=match``) or in a tournament file; or ""."""
        if option:
            return " ".join(f"--set {k}={v}" for k, v in self.needs)
        return ", ".join(f'{k} = "{v}" to [rules.set]' for k, v in self.needs)


class IllegalActionError(GinRefError, ValueError):
    """An action that is not legal in the current position; the state is unchanged."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.reason = message


class EngineError(GinRefError, RuntimeError):
    """An internal invariant of the engine was broken (a bug in ginref)."""
