"""The ladder's matchmaker: the least certain bots first, close matches preferred, limits kept."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tournaments.ladder.errors import LadderError
from tournaments.ladder.matchmaking import Candidate, Pairing, choose
from tournaments.ladder.rating import Rating, RatingModel

PRIOR = RatingModel().initial()


def settled(name: str, mu: float, sigma: float = 1.5, games: int = 80) -> Candidate:
    return Candidate(name, Rating(mu, sigma), games)


FIELD = [settled(f"s{i}", 20.0 + 2 * i) for i in range(6)]


def appearances(pairings: list[Pairing]) -> Counter[str]:
    return Counter(name for p in pairings for name in p.bots)


def test_a_new_submission_gets_many_games_at_once_and_settled_bots_few() -> None:
    pool = [*FIELD, Candidate("new@1", PRIOR, 0, new=True)]
    pairings = choose(pool, 6, random.Random(1), max_per_bot=4)
    seen = appearances(pairings)
    assert len(pairings) == 6
    assert seen["new@1"] == 4
    assert max(n for name, n in seen.items() if name != "new@1") <= 2


def test_the_most_uncertain_settled_bot_is_served_first() -> None:
    pool = [*FIELD[:5], settled("shaky", 25.0, sigma=4.0, games=200)]
    for seed in range(20):
        first = choose(pool, 1, random.Random(seed))[0]
        assert "shaky" in first.bots


def test_close_ratings_are_preferred_to_far_ones() -> None:
    # "a" is served first (the least sure); "near" is one point away, "far" fifteen. A
    # uniform choice would give each about half of the matches.
    pool = [settled("a", 25.0, sigma=1.6), settled("near", 26.0), settled("far", 40.0)]
    rng = random.Random(5)
    opponents = Counter(
        next(b for b in choose(pool, 1, rng)[0].bots if b != "a") for _ in range(400)
    )
    assert opponents["near"] > 360
    # Among the middling ones the chance still follows closeness, not the pool's order.
    pool = [settled("a", 25.0, sigma=1.6)] + [settled(f"d{d}", 25.0 + d) for d in (6, 4, 2)]
    opponents = Counter(
        next(b for b in choose(pool, 1, rng)[0].bots if b != "a") for _ in range(600)
    )
    assert opponents["d2"] > opponents["d4"] > opponents["d6"] > 0


def test_a_new_bot_meets_many_opponents_across_rounds() -> None:
    pool = [*FIELD, Candidate("new@1", PRIOR, 0, new=True)]
    rng = random.Random(3)
    met = {b for _ in range(10) for p in choose(pool, 1, rng) for b in p.bots}
    assert len(met - {"new@1"}) >= 4


def test_max_per_bot_counts_the_jobs_in_play_too() -> None:
    rng = random.Random(11)
    for _ in range(50):
        pool = [
            Candidate(f"b{i}", Rating(rng.uniform(15, 35), rng.uniform(0.5, 8)), rng.randrange(50))
            for i in range(rng.randrange(2, 9))
        ]
        busy = {c.name: rng.randrange(0, 3) for c in pool}
        limit = rng.randrange(1, 4)
        pairings = choose(pool, rng.randrange(1, 12), rng, busy=busy, max_per_bot=limit)
        seen = appearances(pairings)
        assert all(busy[name] + n <= limit for name, n in seen.items())
        assert all(p.first != p.second for p in pairings)
        assert len({frozenset(p.bots) for p in pairings}) == len(pairings)


def test_the_same_seed_gives_the_same_pairings() -> None:
    pool = [*FIELD, Candidate("new@1", PRIOR, 0, new=True)]
    runs = [choose(pool, 5, random.Random(42), busy={"s1": 1}) for _ in range(2)]
    assert runs[0] == runs[1]
    others = {tuple(choose(pool, 5, random.Random(seed))) for seed in range(10)}
    assert len(others) > 1  # the seed is what varies the choice


def test_nothing_to_choose_without_two_free_bots() -> None:
    assert choose([], 3, random.Random(1)) == []
    assert choose(FIELD[:1], 3, random.Random(1)) == []
    assert choose(FIELD[:2], 3, random.Random(1), busy={"s0": 4}) == []
    assert choose(FIELD[:2], 0, random.Random(1)) == []
    # Two bots make one pair, however many slots are free.
    assert len(choose(FIELD[:2], 3, random.Random(1))) == 1


def test_a_job_is_a_duplicate_pair_unless_the_season_says_otherwise() -> None:
    (pair,) = choose(FIELD[:2], 1, random.Random(1))
    assert pair.duplicate and pair.matches == 2
    (single,) = choose(FIELD[:2], 1, random.Random(1), duplicate=False)
    assert not single.duplicate and single.matches == 1
    seats = Counter(choose(FIELD[:2], 1, random.Random(s))[0].first for s in range(40))
    assert set(seats) == {"s0", "s1"}  # seat 0 is drawn, not always the neediest's


def test_bad_limits_are_one_line_mistakes() -> None:
    with pytest.raises(LadderError, match="max_per_bot = 0"):
        choose(FIELD, 1, random.Random(1), max_per_bot=0)
