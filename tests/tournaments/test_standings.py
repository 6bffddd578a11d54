"""Standings without a library's warnings: ratings of a bot that won everything, of groups that
never met, and the duplicate report's comparison of interval widths in words that follow the
numbers."""

from __future__ import annotations

import warnings

import pytest

from tests.tournaments.test_config import record
from tournaments.config import load_default
from tournaments.ratings import fit_ratings
from tournaments.report import compare_intervals, format_standings
from tournaments.standings import DuplicatePairing, compute_standings


def sweep_records() -> list:  # type: ignore[type-arg]
    """a beats b and c in every match; b and c never meet (a saturated model)."""
    return [
        record(f"a.{other}.00{k}", ("a", other) if k % 2 else (other, "a"), k % 2 ^ 1, (100, 0))
        for other in "bc"
        for k in (1, 2)
    ]


def test_a_bot_that_wins_every_match_gets_a_note_not_a_library_warning() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = compute_standings("t", ["a", "b", "c"], sweep_records(), 4)
    assert [str(w.message) for w in caught] == []
    assert all(b.elo is not None for b in s.bots)
    assert s.bots[0].name == "a" and s.bots[0].wins == 4
    won, lost = s.rating_notes
    assert won.startswith("a won every rated match") and "its rating is unbounded above" in won
    assert "the upper end of its interval" in won
    assert lost.startswith("b and c lost every rated match") and "unbounded below" in lost
    assert "the lower end of their intervals" in lost
    text = format_standings(s)
    assert "Note: a won every rated match" in text and "Warning" not in text


def test_groups_that_never_met_are_rated_apart_and_said_so() -> None:
    games = [("a", "b", 1.0), ("a", "b", 0.0), ("a", "b", 1.0)]
    games += [("c", "d", 0.0), ("c", "d", 1.0), ("c", "d", 0.0)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit = fit_ratings(["a", "b", "c", "d"], games)
    assert [str(w.message) for w in caught] == []
    assert fit.elo["a"][0] == pytest.approx(-fit.elo["b"][0])  # each group on its own mean 0
    assert fit.elo["c"][0] == pytest.approx(-fit.elo["d"][0])
    assert fit.elo["a"][0] == pytest.approx(fit.elo["d"][0])  # the same results, the same Elo
    (note,) = fit.notes
    assert "2 groups that never met" in note and "(a, b; c, d)" in note


def pairing(paired: tuple[float, float], unpaired: tuple[float, float]) -> DuplicatePairing:
    return DuplicatePairing("x", "y", [], 0, paired_ci=paired, unpaired_ci=unpaired)


def test_the_duplicate_report_calls_an_interval_narrower_only_when_it_is() -> None:
    assert compare_intervals(pairing((-5, 5), (-10, 10))) == "paired 2.00x narrower"
    assert compare_intervals(pairing((-10, 10), (-5, 5))) == "paired 2.00x wider"
    assert compare_intervals(pairing((-5, 5), (-5, 5))) == "paired as wide"
    assert compare_intervals(pairing((0, 0), (-40, 40))) == "paired of zero width"
    assert compare_intervals(DuplicatePairing("x", "y", [], 0)) == "-"


def test_zero_concurrency_means_every_core_on_the_command_line_as_in_the_file() -> None:
    config = load_default().with_changes(concurrency=3)
    assert config.with_options({"concurrency": 0}).concurrency is None
    assert config.with_options({"concurrency": None}).concurrency == 3
