"""The sequential probability ratio test of a new bot against an old one (pure statistics).

The test is the generalised SPRT (GSPRT) that fastchess and fishtest run: the outcomes are a
multinomial over score categories, and the log-likelihood ratio compares the maximum-likelihood
distributions whose expected score is that of ``elo0`` (H0) and of ``elo1`` (H1), each
constrained from the empirical one (M. Van den Bergh, "Comparing the approximations for the
generalized log likelihood ratio of a multinomial distribution", and "Comments on normalized
Elo"). Its bounds are Wald's: accept H0 at ``log(beta / (1 - alpha))`` or below, H1 at
``log((1 - beta) / alpha)`` or above.

- **Trinomial**: one unit is one match, scored 0 (loss), ½ (no winner) or 1 (win) for the new
  bot.
- **Pentanomial**: one unit is a pair of matches on the same deal with the seats swapped, scored
  0, ½, 1, 1½ or 2, i.e. 0, ¼, ½, ¾, 1 per match. The two matches of a pair are not
  independent (the deal is shared); counting pairs keeps the test's error rates whatever their
  correlation, where a trinomial count of the same matches would not.

Two models of "Elo": ``logistic`` (the expected score per match is ``1 / (1 + 10^(-elo/400))``,
the scale of the standings' ratings) and ``normalized`` (fastchess's default: the expected
score's distance from ½ in standard deviations of one match's score, times ``800 / ln 10``, so
that a given nElo needs the same number of matches whatever the draw rate or the pairing).

Zero counts are replaced by 1e-3 before the LLR is computed, as fastchess does, so that the
constrained distributions exist from the first unit on. Every function takes counts of many
runs at once (an array of shape ``(..., K)``) so that the simulations can run thousands of
tests side by side; the roots are found with :func:`scipy.optimize.elementwise.find_root`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize.elementwise import find_root  # type: ignore[import-untyped]
from scipy.stats import norm  # type: ignore[import-untyped]

from tournaments.results.sprt_settings import SprtSettings, elo_to_score, score_to_elo

Floats = NDArray[np.float64]

NELO_PER_UNIT = 800.0 / math.log(10.0)  # normalized Elo per standard deviation of the score
Z95 = 1.959963984540054
REGULARIZE = 1e-3  # stands in for a zero count (fastchess)
TRINOMIAL = (0.0, 0.5, 1.0)  # score per match of each category: loss, no winner, win
PENTANOMIAL = (0.0, 0.25, 0.5, 0.75, 1.0)  # per match of a pair: 0, 0.5, 1, 1.5, 2 points
CHUNK = 512  # units whose LLRs are computed in one call


def category_scores(categories: int) -> Floats:
    """The per-match score of each of ``categories`` (3: trinomial, 5: pentanomial)."""
    if categories == 3:
        return np.array(TRINOMIAL)
    if categories == 5:
        return np.array(PENTANOMIAL)
    raise ValueError(f"counts have 3 (trinomial) or 5 (pentanomial) categories, not {categories}")


def _constrained(phat: Floats, phi: Floats) -> Floats:
    """The distributions ``phat / (1 + theta * phi)`` with, row by row, the ``theta`` for which
    they sum to 1 (equation 1.2 of Van den Bergh; 4.9 of the normalized note): the root of
    ``sum(phat * phi / (1 + theta * phi))``, which decreases in ``theta`` between
    ``-1 / max(phi)`` and ``-1 / min(phi)``, where it runs from +inf to -inf."""
    low = -1.0 / phi.max(axis=-1)
    high = -1.0 / phi.min(axis=-1)
    # Just inside the poles: every phat is at least the regularised count over the total, so
    # the pole's own term dominates there and the bracket is valid.
    margin = (high - low) * 1e-12
    columns = [phat[..., i] for i in range(phat.shape[-1])]
    weights = [phi[..., i] for i in range(phi.shape[-1])]
    k = len(columns)

    def equation(theta: Floats, *cols: Floats) -> Floats:
        total = np.zeros_like(theta)
        for p, w in zip(cols[:k], cols[k:], strict=True):
            total = total + p * w / (1.0 + theta * w)
        return total

    found = find_root(equation, (low + margin, high - margin), args=(*columns, *weights))
    theta = np.asarray(found.x, dtype=float)
    return phat / (1.0 + theta[..., None] * phi)


def _probabilities(counts: ArrayLike) -> tuple[Floats, Floats, Floats]:
    """Regularised counts as distributions, their totals, and the category scores."""
    raw = np.asarray(counts, dtype=float)
    regular = np.where(raw == 0.0, REGULARIZE, raw)
    total = regular.sum(axis=-1)
    return regular / total[..., None], total, category_scores(raw.shape[-1])


def llr(counts: ArrayLike, settings: SprtSettings) -> Floats:
    """The GSPRT log-likelihood ratio of H1 against H0 for ``counts`` (shape ``(..., K)``,
    categories ordered by score: ``[L, D, W]`` or ``[LL, LD, WL+DD, WD, WW]``)."""
    phat, total, scores = _probabilities(counts)
    if settings.model == "logistic":
        p0 = _logistic_mle(phat, scores, elo_to_score(settings.elo0))
        p1 = _logistic_mle(phat, scores, elo_to_score(settings.elo1))
    else:
        # A pair's per-match score has sqrt(2) times less spread than a match's would with the
        # same normalized Elo (fastchess: t = sqrt(2) * nElo / (800 / ln 10) for pairs).
        scale = math.sqrt(2.0) if scores.size == 5 else 1.0
        p0 = _normalized_mle(phat, scores, scale * settings.elo0 / NELO_PER_UNIT)
        p1 = _normalized_mle(phat, scores, scale * settings.elo1 / NELO_PER_UNIT)
    result: Floats = total * np.sum(phat * (np.log(p1) - np.log(p0)), axis=-1)
    return result


def _logistic_mle(phat: Floats, scores: Floats, s: float) -> Floats:
    """The distribution closest to ``phat`` (maximum likelihood) whose expected score is ``s``."""
    phi = np.broadcast_to(scores - s, phat.shape)
    return _constrained(phat, np.ascontiguousarray(phi))


def _normalized_mle(phat: Floats, scores: Floats, t: float, rounds: int = 10) -> Floats:
    """The distribution closest to ``phat`` whose ``(mean - 1/2) / sd`` is ``t``, by the fixed
    point of the normalized note (section 4.1), from the uniform distribution, as fastchess."""
    p = np.full(phat.shape, 1.0 / phat.shape[-1])
    for _ in range(rounds):
        mu = np.sum(p * scores, axis=-1, keepdims=True)
        sigma = np.sqrt(np.sum(p * (scores - mu) ** 2, axis=-1, keepdims=True))
        phi = scores - 0.5 - 0.5 * t * sigma * (1.0 + ((scores - mu) / sigma) ** 2)
        new = _constrained(phat, phi)
        change = float(np.max(np.abs(new - p))) if new.size else 0.0
        p = new
        if change < 1e-4:
            break
    return p


@dataclass(frozen=True, slots=True)
class EloEstimate:
    """What the counts say about the difference, as fastchess reports it."""

    units: int  # matches (trinomial) or pairs (pentanomial)
    score: float  # mean score per match of the new bot
    elo: float  # logistic Elo difference
    low: float  # its 95% interval
    high: float
    nelo: float  # normalized Elo difference
    nelo_error: float  # half the width of its 95% interval
    los: float | None  # likelihood of superiority: P(new is stronger), None without spread

    @property
    def error(self) -> float:
        """Half the width of the Elo interval (fastchess's ``+/-``)."""
        return (self.high - self.low) / 2.0


def estimate(counts: Sequence[int]) -> EloEstimate | None:
    """The Elo difference with its 95% interval, the nElo and the LOS; None before any unit."""
    raw = np.asarray(counts, dtype=float)
    units = float(raw.sum())
    if units == 0:
        return None
    scores = category_scores(raw.size)
    p = raw / units
    score = float(np.sum(p * scores))
    variance = float(np.sum(p * (scores - score) ** 2))
    per_unit = variance / units
    spread = math.sqrt(per_unit)
    low, high = score - Z95 * spread, score + Z95 * spread
    # A pair's variance is that of the mean of its two matches' scores (fastchess).
    sd = math.sqrt((2.0 if raw.size == 5 else 1.0) * variance)
    if sd > 0:
        nelo = (score - 0.5) / sd * NELO_PER_UNIT
        nelo_error = Z95 * spread / sd * NELO_PER_UNIT
    else:
        nelo, nelo_error = (0.0 if score == 0.5 else math.copysign(math.inf, score - 0.5)), 0.0
    los = None
    if spread > 0:
        los = float(norm.cdf((score - 0.5) / spread))
    return EloEstimate(
        units=int(units),
        score=score,
        elo=score_to_elo(score),
        low=score_to_elo(low),
        high=score_to_elo(high),
        nelo=nelo,
        nelo_error=nelo_error,
        los=los,
    )


Decision = Literal["H0", "H1"]


def advance(
    counts: Floats, drawn: NDArray[np.intp], steps_of: Floats, settings: SprtSettings
) -> tuple[Floats, NDArray[np.int64], NDArray[np.int8], Floats]:
    """Count units of many runs at once, each run up to the first unit whose LLR is on or past
    a bound: the one step of :class:`SequentialTest` and of :func:`simulate`.

    ``counts`` (shape ``(runs, K)``) are the runs' counts so far, ``drawn`` (``(runs, n)``) the
    categories of their next ``n`` units, and row ``c`` of ``steps_of`` what a unit of category
    ``c`` adds to the counts. Returns, per run, the counts after its last unit counted, the
    units counted (``n`` if no bound was crossed), the decision (1: H1, 0: H0, -1: none yet)
    and the LLR after the last unit counted."""
    runs, n = drawn.shape
    cumulative = counts[:, None, :] + np.cumsum(steps_of[drawn], axis=1)
    values = llr(cumulative.reshape(runs * n, -1), settings).reshape(runs, n)
    upper, lower = values >= settings.upper, values <= settings.lower
    crossed = upper | lower
    hit = crossed.any(axis=1)
    last = np.where(hit, np.argmax(crossed, axis=1), n - 1)
    rows = np.arange(runs)
    decisions = np.where(hit, upper[rows, last], -1).astype(np.int8)
    return cumulative[rows, last], (last + 1).astype(np.int64), decisions, values[rows, last]


@dataclass(slots=True)
class SequentialTest:
    """A test run unit by unit in the schedule's order, whatever order the matches finish in.

    ``add(game, score)`` records the new bot's score in game ``game`` (1-based, the schedule's
    numbering; games ``2j - 1`` and ``2j`` are pair ``j``). The test counts the longest run of
    complete units from the first and evaluates the LLR after each one, so its decision, and
    the unit it falls on, depend only on the results, never on which match finished first.
    Results after the decision are kept apart (``beyond``) and never counted.
    """

    settings: SprtSettings
    paired: bool
    results: dict[int, float] = field(default_factory=dict)
    counts: list[int] = field(default_factory=list)
    units: int = 0  # units counted
    value: float = 0.0  # the LLR after the last unit counted
    decision: Decision | None = None

    def __post_init__(self) -> None:
        self.counts = [0] * (5 if self.paired else 3)

    @property
    def per_unit(self) -> int:
        """Matches per unit."""
        return 2 if self.paired else 1

    @property
    def max_units(self) -> int:
        """The units the test may count at most."""
        return self.settings.max_matches // self.per_unit

    @property
    def matches(self) -> int:
        """Matches counted."""
        return self.units * self.per_unit

    @property
    def finished(self) -> bool:
        """A bound is crossed, or every unit the test may play is counted."""
        return self.decision is not None or self.units >= self.max_units

    @property
    def beyond(self) -> int:
        """Matches finished but not counted: after the decision, or past an unfinished one."""
        return len(self.results) - self.matches

    def add(self, game: int, score: float) -> None:
        """Record game ``game``'s score for the new bot (0, 0.5 or 1); count what it completes."""
        self.extend([(game, score)])

    def extend(self, results: Iterable[tuple[int, float]]) -> None:
        """Record many games' scores, then count every unit they complete: the LLRs of all the
        new units come from one call (a resumed test of thousands of matches is quick)."""
        self.results.update(results)
        if self.finished:
            return
        points: list[float] = []
        unit = self.units
        while unit < self.max_units:
            games = range(unit * self.per_unit + 1, (unit + 1) * self.per_unit + 1)
            if any(g not in self.results for g in games):
                break
            points.append(sum(self.results[g] for g in games))
            unit += 1
        if not points:
            return
        # In chunks, so that a long resumed run stops computing at its decision.
        steps_of = np.eye(len(self.counts))
        for start in range(0, len(points), CHUNK):
            drawn = np.round(np.array([points[start : start + CHUNK]]) * 2).astype(np.intp)
            counts = np.array([self.counts], dtype=float)
            after, counted, decided, value = advance(counts, drawn, steps_of, self.settings)
            self.counts = [int(c) for c in after[0]]
            self.units += int(counted[0])
            self.value = float(value[0])
            if decided[0] >= 0:
                self.decision = "H1" if decided[0] == 1 else "H0"
                return

    def estimate(self) -> EloEstimate | None:
        """The Elo difference over the units counted."""
        return estimate(self.counts)


@dataclass(frozen=True, slots=True)
class Simulation:
    """How simulated tests ended: per run, the decision and the units it took."""

    decisions: NDArray[np.int8]  # 1: H1 accepted, 0: H0 accepted, -1: none by the maximum
    units: NDArray[np.int64]

    def share(self, decision: int) -> float:
        """The share of runs that ended in ``decision``."""
        return float(np.mean(self.decisions == decision))


def simulate(
    probabilities: Sequence[float],
    settings: SprtSettings,
    runs: int,
    rng: np.random.Generator,
    *,
    increments: ArrayLike | None = None,
    chunk: int = 128,
) -> Simulation:
    """``runs`` tests whose units are drawn independently from ``probabilities`` (one per
    category, ordered by score), counted by :func:`advance` as :class:`SequentialTest` counts
    them, so each stops where a real run would: at the first unit whose LLR is on or past a
    bound, or at the maximum. ``increments`` (one row per
    category) says what a unit adds to the counts the LLR reads, e.g. a pair's two matches to
    trinomial counts; by default each unit counts in its own category. The LLRs of every unit of
    every run still going are computed in one call per ``chunk`` units."""
    p = np.asarray(probabilities, dtype=float)
    steps_of = np.eye(p.size) if increments is None else np.asarray(increments, dtype=float)
    # Matches per unit: a pentanomial unit is a pair, and so is a row that adds two matches.
    per_unit = 2 if p.size == 5 and increments is None else round(float(steps_of[0].sum()))
    max_units = settings.max_matches // per_unit
    decisions = np.full(runs, -1, dtype=np.int8)
    units = np.full(runs, max_units, dtype=np.int64)
    counts = np.zeros((runs, steps_of.shape[1]))
    active = np.arange(runs)
    done = 0
    while active.size and done < max_units:
        size = min(chunk, max_units - done)
        drawn = rng.choice(p.size, size=(active.size, size), p=p)
        after, counted, decided, _ = advance(counts[active], drawn, steps_of, settings)
        hit = decided >= 0
        decisions[active[hit]] = decided[hit]
        units[active[hit]] = done + counted[hit]
        counts[active] = after
        active = active[~hit]
        done += size
    return Simulation(decisions, units)
