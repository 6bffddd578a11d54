"""A sequential test's settings: its hypotheses, error rates, Elo model and match limit.

Apart from :mod:`tournaments.results.sprt` (the statistics, with numpy and scipy) because every
ginref command's options read these, and a command should not pay numpy's import to start.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Literal

Model = Literal["logistic", "normalized"]
MODELS: tuple[Model, ...] = ("logistic", "normalized")
DEFAULT_MAX_MATCHES = 20_000


def elo_to_score(elo: float) -> float:
    """The expected score per match of a bot ``elo`` logistic Elo stronger."""
    return float(1.0 / (1.0 + 10.0 ** (-elo / 400.0)))


def score_to_elo(score: float) -> float:
    """The logistic Elo difference whose expected score is ``score`` (±inf at 1 and 0)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclass(frozen=True, slots=True)
class SprtSettings:
    """The hypotheses, error rates and model of a test, and the most matches it may play."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    model: Model = "logistic"
    max_matches: int = DEFAULT_MAX_MATCHES

    def problem(self) -> str | None:
        """What is wrong with the settings, in one line, or None."""
        if not self.elo0 < self.elo1:
            return f"elo0 ({self.elo0:g}) must be less than elo1 ({self.elo1:g})"
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < value < 1.0:
                return f"{name} must be between 0 and 1 (exclusive), got {value:g}"
        if self.alpha + self.beta >= 1.0:
            return f"alpha + beta must be less than 1, got {self.alpha + self.beta:g}"
        if self.model not in MODELS:
            return f"model {self.model!r} is not one of: {', '.join(MODELS)}"
        if self.max_matches < 2 or self.max_matches % 2:
            return (
                f"max_matches must be an even number of at least 2 (matches come in pairs with "
                f"the seats swapped), got {self.max_matches}"
            )
        return None

    @property
    def lower(self) -> float:
        """The LLR at or below which H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (kept in the journal's identity)."""
        return dataclasses.asdict(self)
