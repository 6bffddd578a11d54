"""Ratings from match results: Bradley–Terry by maximum likelihood on the Elo scale, with 95%
intervals and notes in words (docs/tournaments.md, "Standings").

The model is fitted as a binomial GLM with :mod:`statsmodels` (logistic regression on "+1 for
the row's bot, -1 for the column's"), with one virtual draw added to every pairing that was
played (BayesElo's prior) so that a bot that wins every match still gets a finite rating.
Ratings are centred on the field's mean (0), or on each group's where groups of bots never met;
the 95% intervals are Wald intervals from the fit's covariance, carried through the centring.
statsmodels' warnings are caught where the fit is made and never reach the user.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

ELO_PER_LOGIT = 400.0 / math.log(10.0)
PRIOR_DRAWS = 1.0
Z95 = NormalDist().inv_cdf(0.975)


Rating = tuple[float, float, float]  # Elo, low and high end of its 95% interval


@dataclass(frozen=True, slots=True)
class Ratings:
    """Fitted ratings and, in our own words, what the reader should know about them."""

    elo: dict[str, Rating]
    notes: tuple[str, ...] = ()


def bradley_terry(
    bots: Sequence[str], games: Iterable[tuple[str, str, float]]
) -> dict[str, Rating]:
    """Elo ratings with 95% intervals from ``(a, b, score of a)`` results; ``{}`` if < 2 bots
    have played. Bots that played nobody get no rating."""
    return fit_ratings(bots, games).elo


def fit_ratings(bots: Sequence[str], games: Iterable[tuple[str, str, float]]) -> Ratings:
    """:func:`bradley_terry` with notes: a bot that won (or lost) every match it played, groups
    of bots that never met, a fit that did not converge. statsmodels' own warnings are caught
    here and never reach the user; the situations they point at are described instead."""
    pairs: dict[tuple[int, int], list[float]] = {}
    index = {b: i for i, b in enumerate(bots)}
    for a, b, score in games:
        i, j = index[a], index[b]
        if i > j:
            i, j, score = j, i, 1.0 - score
        tally = pairs.setdefault((i, j), [0.0, 0.0])
        tally[0] += score
        tally[1] += 1.0 - score
    notes: list[str] = []
    swept: dict[str, list[str]] = {"won": [], "lost": []}
    for i in sorted({i for pair in pairs for i in pair}):
        won = sum(t[0] if p[0] == i else t[1] for p, t in pairs.items() if i in p)
        lost = sum(t[1] if p[0] == i else t[0] for p, t in pairs.items() if i in p)
        if won == 0 or lost == 0:
            swept["won" if lost == 0 else "lost"].append(bots[i])
    for what, names in swept.items():
        if names:
            who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
            side, end = ("above", "upper") if what == "won" else ("below", "lower")
            one = len(names) == 1
            rating, interval = (
                ("its rating is", "its interval")
                if one
                else ("their ratings are", "their intervals")
            )
            notes.append(
                f"{who} {what} every rated match: on the results alone {rating} unbounded "
                f"{side}, so the {end} end of {interval} comes from the prior's virtual "
                "draws, not from the games"
            )
    groups = _groups(pairs)
    if len(groups) > 1:
        listed = "; ".join(", ".join(bots[i] for i in g) for g in groups)
        notes.append(
            f"the bots form {len(groups)} groups that never met, directly or through others "
            f"({listed}): each group is rated on its own (mean 0), so ratings compare only "
            "within a group"
        )
    out: dict[str, Rating] = {}
    for group in groups:
        fitted, converged = _fit_group(bots, group, pairs)
        out.update(fitted)
        if not converged:
            members = ", ".join(bots[i] for i in group)
            notes.append(f"the rating fit of {members} did not converge: read the ratings as rough")
    return Ratings(out, tuple(notes))


def _groups(pairs: dict[tuple[int, int], list[float]]) -> list[list[int]]:
    """The connected groups of bots (by index) in the graph of the pairings that were played."""
    parent: dict[int, int] = {}

    def root(i: int) -> int:
        while parent.setdefault(i, i) != i:
            i = parent[i]
        return i

    for i, j in pairs:
        parent[root(i)] = root(j)
    groups: dict[int, list[int]] = {}
    for i in sorted(parent):
        groups.setdefault(root(i), []).append(i)
    return sorted(groups.values())


def _fit_group(
    bots: Sequence[str], rated: list[int], all_pairs: dict[tuple[int, int], list[float]]
) -> tuple[dict[str, Rating], bool]:
    """Fit one connected group; its ratings (mean 0) and whether the fit converged."""
    import numpy as np

    members = set(rated)
    pairs = {p: t for p, t in all_pairs.items() if p[0] in members}
    column = {bot: c for c, bot in enumerate(rated)}
    k = len(rated)
    design = np.zeros((len(pairs), k))
    outcome = np.zeros((len(pairs), 2))
    for row, ((i, j), (won, lost)) in enumerate(sorted(pairs.items())):
        design[row, column[i]] = 1.0
        design[row, column[j]] = -1.0
        outcome[row] = (won + PRIOR_DRAWS / 2, lost + PRIOR_DRAWS / 2)
    # statsmodels warns about situations fit_ratings describes in its own notes: a saturated
    # model (as many pairings as free strengths) fits exactly, which it calls "perfect
    # prediction", and it divides by zero residual degrees of freedom for a scale the binomial
    # family does not use. Record every warning so that none is printed; only non-convergence
    # is reported, as a note.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from statsmodels.genmod import families  # type: ignore[import-untyped]
        from statsmodels.genmod.generalized_linear_model import GLM  # type: ignore[import-untyped]
        from statsmodels.tools.sm_exceptions import ConvergenceWarning  # type: ignore[import-untyped]

        # The first bot of the group is the reference (its strength is 0): drop its column.
        fit = GLM(outcome, design[:, 1:], family=families.Binomial()).fit()
        cov_free = np.asarray(fit.cov_params(), dtype=float)
    converged = bool(getattr(fit, "converged", True)) and not any(
        issubclass(w.category, ConvergenceWarning) for w in caught
    )
    beta = np.concatenate([[0.0], np.asarray(fit.params, dtype=float)])
    cov = np.zeros((k, k))
    cov[1:, 1:] = cov_free
    centre = np.eye(k) - np.full((k, k), 1.0 / k)
    strength = centre @ beta
    spread = np.sqrt(np.clip(np.diag(centre @ cov @ centre.T), 0.0, None))
    out: dict[str, Rating] = {}
    for c, i in enumerate(rated):
        elo = float(strength[c]) * ELO_PER_LOGIT
        half = Z95 * float(spread[c]) * ELO_PER_LOGIT
        out[bots[i]] = (round(elo, 1), round(elo - half, 1), round(elo + half, 1))
    return out, converged
