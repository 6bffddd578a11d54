"""Ratings pinned against figures worked by hand; standings without a library's warnings:
ratings of a bot that won everything, of groups that never met, and the duplicate report's
comparison of interval widths in words that follow the numbers."""

from __future__ import annotations

import warnings

import pytest

from tests.tournaments.test_config import record
from tournaments.file.config import load_default
from tournaments.outputs.console import compare_intervals, format_standings
from tournaments.results.ratings import fit_ratings
from tournaments.results.standings import DuplicatePairing, compute_standings


def sweep_records() -> list:  # type: ignore[type-arg]
    """a beats b and c in every match; b and c never meet (a saturated model)."""
    return [
        record(f"a.{other}.00{k}", ("a", other) if k % 2 else (other, "a"), k % 2 ^ 1, (100, 0))
        for other in "bc"
        for k in (1, 2)
    ]


# Worked by hand. 400 / ln 10 = 173.72 Elo per logit; z = 1.96.
# a beats b 8-2; one virtual draw makes it 8.5-2.5 in 11: the difference is ln(8.5 / 2.5) =
# 1.2238 logits = 212.6 Elo, +-106.3 about the mean. Its variance is 1 / (11 p q) = 11 / (8.5 *
# 2.5) = 0.5176; each centred rating carries half the difference, so half of its sd:
# 1.96 * 0.7195 / 2 * 173.72 = 122.5 Elo either side.
# a beats b 3-1 and b beats c 3-1, a and c never meet: each difference is ln(3.5 / 1.5) =
# 0.8473 logits = 147.2 Elo, with variance 5 / (3.5 * 1.5) = 0.9524. Centred, a = (2 d1 + d2) / 3
# (variance 5/9 of it: +-247.7), b = (d2 - d1) / 3 (2/9: +-156.6), c = -a.
HAND_WORKED = [
    (
        ["a", "b"],
        [("a", "b", 1.0)] * 8 + [("b", "a", 1.0)] * 2,
        {"a": (106.3, 122.5), "b": (-106.3, 122.5)},
    ),
    (
        ["a", "b", "c"],
        [("a", "b", 1.0)] * 3 + [("a", "b", 0.0)] + [("b", "c", 1.0)] * 3 + [("c", "b", 1.0)],
        {"a": (147.2, 247.7), "b": (0.0, 156.6), "c": (-147.2, 247.7)},
    ),
]


@pytest.mark.parametrize(("bots", "games", "expected"), HAND_WORKED)
def test_ratings_and_their_intervals_are_the_hand_worked_figures(
    bots: list[str], games: list[tuple[str, str, float]], expected: dict[str, tuple[float, float]]
) -> None:
    fit = fit_ratings(bots, games)
    for bot, (elo, half) in expected.items():
        rating, low, high = fit.elo[bot]
        assert rating == pytest.approx(elo, abs=0.11), bot
        assert (high - low) / 2 == pytest.approx(half, abs=0.11), bot
        assert (low + high) / 2 == pytest.approx(elo, abs=0.11), bot  # Wald: symmetric
    assert fit.notes == ()


def test_a_match_without_a_winner_counts_half_to_each() -> None:
    # 4 wins, 4 losses and 2 matches without a winner between a and b: level, whatever the order.
    games = [("a", "b", 1.0)] * 4 + [("a", "b", 0.0)] * 4 + [("b", "a", 0.5)] * 2
    level = fit_ratings(["a", "b"], games).elo["a"]
    assert level[0] == pytest.approx(0.0, abs=0.05)
    # 5-3 with 2 halves is 6-4, +1 virtual draw 6.5-4.5: ln(6.5 / 4.5) / 2 * 173.72 = 31.9 Elo.
    games = [("a", "b", 1.0)] * 5 + [("a", "b", 0.0)] * 3 + [("a", "b", 0.5)] * 2
    assert fit_ratings(["a", "b"], games).elo["a"][0] == pytest.approx(31.9, abs=0.11)


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
    assert config.with_keys({"concurrency": 0}).concurrency is None
    assert config.with_keys({"concurrency": None}).concurrency == 3
