"""The ladder's ratings: openskill's update read the right way round, and which matches count."""

from __future__ import annotations

import pytest

from tournaments.journal.records import Forfeit, HandRow, MatchRecord
from tournaments.journal.withdrawals import WITHDRAWN
from tournaments.ladder.errors import LadderError
from tournaments.ladder.rating import Rating, RatingModel, places_of

MODEL = RatingModel()
HAND = HandRow(1, 0, "knock", 0, 20, 0)


def record(
    seats: tuple[str, ...],
    winner: int | None,
    final: tuple[int, ...],
    *,
    hands: int = 3,
    forfeit: Forfeit | None = None,
    placings: tuple[int, ...] = (),
    sides: tuple[str, str] | None = None,
) -> MatchRecord:
    n = len(seats)
    return MatchRecord(
        key="m",
        seats=seats,
        seed=1,
        deal=1,
        match_id="m",
        termination="forfeit" if forfeit else "target",
        winner=winner,
        final=final,
        margin=0,
        hands_played=hands,
        forfeit=forfeit,
        hands=(HAND,) * hands,
        faults=(),
        decisions=(1,) * n,
        think_ms=(1.0,) * n,
        log_path="x.jsonl",
        log_sha256="0" * 64,
        log_bytes=1,
        started="2026-01-01T00:00:00Z",
        placings=placings,
        sides=sides,
    )


def test_the_winner_goes_up_the_loser_down_and_both_are_surer() -> None:
    a, b = MODEL.initial(), MODEL.initial()
    won, lost = MODEL.rate([a, b], [1, 2])
    assert won.mu > a.mu > lost.mu
    assert won.sigma < a.sigma and lost.sigma < b.sigma
    # The second place is the loser whichever seat it sat in.
    lost2, won2 = MODEL.rate([a, b], [2, 1])
    assert (won2, lost2) == (won, lost)


def test_sigma_shrinks_game_after_game() -> None:
    a, b = MODEL.initial(), Rating(30.0, 3.0)
    sigmas = [a.sigma]
    for n in range(12):
        a, b = MODEL.rate([a, b], [1 + n % 2, 2 - n % 2])
        sigmas.append(a.sigma)
    assert sigmas == sorted(sigmas, reverse=True) and len(set(sigmas)) == len(sigmas)
    assert sigmas[-1] < 0.6 * sigmas[0]


def test_a_draw_between_equals_moves_neither_mean() -> None:
    a = Rating(27.0, 4.0)
    x, y = MODEL.rate([a, a], [1, 1])
    assert x.mu == pytest.approx(27.0) and y.mu == pytest.approx(27.0)
    assert x.sigma < 4.0
    # Between unequal bots a draw pulls them together.
    hi, lo = MODEL.rate([Rating(30.0, 4.0), Rating(20.0, 4.0)], [1, 1])
    assert 20.0 < lo.mu < hi.mu < 30.0


def test_three_players_in_the_order_of_their_places_ties_shared() -> None:
    r = MODEL.initial()
    first, second, third = MODEL.rate([r, r, r], [2, 1, 3])
    assert second.mu > first.mu > third.mu
    top, shared, shared2 = MODEL.rate([r, r, r], [1, 2, 2])
    assert top.mu > shared.mu == shared2.mu


def test_partners_win_and_lose_together() -> None:
    r = MODEL.initial()
    (a, c), (b, d) = MODEL.rate_teams([[r, r], [r, Rating(25.0, 2.0)]], [1, 2])
    assert a.mu > r.mu and c.mu > r.mu
    assert b.mu < r.mu and d.mu < 25.0
    # The partner whose rating was surer moves less.
    assert r.mu - b.mu > 25.0 - d.mu


def test_every_model_by_name_and_the_same_matches_give_the_same_ratings() -> None:
    for name in ("plackett-luce", "bradley-terry-full", "thurstone-mosteller-full"):
        model = RatingModel.from_settings({"model": name, "k": 2})
        assert model.k == 2
        once = model.rate([model.initial(), Rating(20.0, 5.0)], [1, 2])
        assert once == model.rate([model.initial(), Rating(20.0, 5.0)], [1, 2])
        assert once[0].mu > 25.0


def test_bad_settings_are_one_line_mistakes() -> None:
    with pytest.raises(LadderError, match="'elo' is not one of plackett-luce"):
        RatingModel(model="elo")
    with pytest.raises(LadderError, match="sigma = 0"):
        RatingModel(sigma=0)
    with pytest.raises(LadderError, match="tau = -1"):
        RatingModel(tau=-1)


def test_the_leaderboard_reads_the_low_end_of_the_interval() -> None:
    r = MODEL.initial()
    assert MODEL.conservative(r) == pytest.approx(0.0)  # openskill's 25 - 3 * 25/3
    assert MODEL.interval(Rating(30.0, 2.0)) == (24.0, 36.0)
    assert RatingModel(k=1).conservative(Rating(30.0, 2.0)) == 28.0
    # No drift by default: sigma shrinks more than with openskill's own tau.
    drifting = RatingModel(tau=25 / 300).rate([r, r], [1, 2])[0]
    assert MODEL.rate([r, r], [1, 2])[0].sigma < drifting.sigma


def test_who_places_where_in_a_two_player_match() -> None:
    assert places_of(record(("a", "b"), 0, (120, 40))) == [1.0, 2.0]
    assert places_of(record(("a", "b"), 1, (40, 120))) == [2.0, 1.0]
    assert places_of(record(("a", "b"), None, (60, 60))) == [1.0, 1.0]  # nobody won: a draw


def test_a_fault_that_ends_the_match_is_the_faulting_bots_loss() -> None:
    # b led on points when it crashed: the forfeit, not the score, decides.
    crashed = Forfeit(1, "crashed", "R11.5", "exit 3")
    assert places_of(record(("a", "b"), 0, (10, 90), forfeit=crashed)) == [1.0, 2.0]
    # Three players: the seat that timed out is last, the two others share first place.
    late = Forfeit(None, "timeout", "R11.5", "late", seats=(2,))
    three = record(("a", "b", "c"), None, (30, 50, 90), forfeit=late, placings=(1, 1, 3))
    assert places_of(three) == [1.0, 1.0, 3.0]


def test_matches_that_say_nothing_are_not_rated() -> None:
    both = Forfeit(None, "not_connected", "R11.5", "neither connected")
    assert places_of(record(("a", "b"), None, (0, 0), forfeit=both)) is None
    gone = Forfeit(1, WITHDRAWN, "", "withdrawn")
    assert places_of(record(("a", "b"), 0, (0, 0), forfeit=gone, hands=0)) is None
    played = record(("a", "b"), 0, (120, 40))
    assert places_of(played, struck=frozenset({"b"})) is None
    assert places_of(played, struck=frozenset({"z"})) == [1.0, 2.0]
    assert places_of(record(("a", "a"), 0, (120, 40))) is None


def test_a_bot_that_leaves_before_the_first_deal_loses() -> None:
    # It knew its opponent from the match's start: leaving must not keep its rating safe.
    crashed_at_once = Forfeit(1, "crashed", "R11.5", "exit 1")
    assert places_of(record(("a", "b"), 0, (0, 0), forfeit=crashed_at_once, hands=0)) == [1.0, 2.0]


def test_partnerships_are_placed_by_team() -> None:
    teams = record(("a", "b", "c", "d"), 1, (80, 130), placings=(2, 1, 2, 1), sides=("a+c", "b+d"))
    assert places_of(teams) == [2.0, 1.0]
    new = MODEL.rate_record({"a": Rating(30.0, 3.0)}, teams)
    assert set(new) == {"a", "b", "c", "d"}
    assert new["a"].mu < 30.0 and new["c"].mu < 25.0 < new["b"].mu == new["d"].mu
    # A team forfeit counts against both partners; both teams forfeiting is not rated.
    one = Forfeit(None, "crashed", "R11.5", "x", seats=(2,))
    assert places_of(record(("a", "b", "c", "d"), 1, (0, 0), forfeit=one, sides=("x", "y"),
                            placings=(2, 1, 2, 1))) == [2.0, 1.0]  # fmt: skip
    all_out = Forfeit(None, "crashed", "R11.5", "x", seats=(1, 2))
    assert places_of(record(("a", "b", "c", "d"), None, (0, 0), forfeit=all_out,
                            sides=("x", "y"))) is None  # fmt: skip


def test_rate_record_starts_unknown_bots_at_the_prior_and_skips_unrated_matches() -> None:
    ratings = {"a": Rating(25.0, 2.0)}
    new = MODEL.rate_record(ratings, record(("b", "a"), 0, (100, 0)))
    assert new["b"].mu > 25.0 > new["a"].mu
    assert new["b"].sigma < MODEL.initial().sigma
    both = Forfeit(None, "not_connected", "R11.5", "neither connected")
    assert MODEL.rate_record(ratings, record(("a", "b"), None, (0, 0), forfeit=both)) == {}
