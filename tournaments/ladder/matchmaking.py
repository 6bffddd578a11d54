"""Who plays whom next on the ladder: the choice of pairings from the pool and its ratings.

:func:`choose` fills the free job slots with pairings, one at a time:

1. **Whose turn**: the bot whose rating is least certain, for its own load. A new submission
   comes first (``new``: the entrant is waiting to see where it stands), then the highest
   ``sigma / (1 + load)``, ``load`` being the jobs the bot is in now (``busy``) and those
   chosen for it in this call. A matchmaker's matches are worth most where the ratings are
   least known: a new submission's ``sigma`` is the prior's, several times a settled bot's, so
   it takes several slots at once and is placed within a few rounds, while a settled bot plays
   now and then, enough to follow the field. Dividing by the load spreads the slots over the
   uncertain bots instead of giving them all to one.
2. **Its opponent**: drawn at random, each candidate weighted by the quality of the match,
   ``q = 1 - |2p - 1|`` (``p`` the model's chance that either wins: 1 for an even match, 0 for a
   foregone one), raised to ``sharpness``. A close match says the most about the order of the
   two (a foregone one tells nothing the ratings did not know), and the leaderboard's order is
   made of neighbours' comparisons (measured: 85-88% of the ladder's matches are between
   neighbours in the true order, a third in a round robin). The draw is random, not the best
   match every time, so that a bot meets several neighbours and not one forever; a new bot's
   ``p`` is near 1/2 against everyone (its ``sigma`` is wide), so its first opponents are
   spread over the field.
3. **Limits**: a bot is in at most ``max_per_bot`` jobs at once (each job its own deal, so
   several at once are independent matches), and a pair is chosen once per call. With fewer
   than two bots free there is nothing to choose.

A pairing is a job: with ``duplicate`` (the default) two matches on one deal, seats swapped,
played one after the other by the job, which takes the luck of the deal out of the pair's
result (docs/testing-bots.md); else one match, the seats drawn at random.

Pure: no clock, no I/O; the only chance is ``rng``, so the same pool, slots and seed give the
same pairings.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tournaments.ladder.errors import LadderError
from tournaments.ladder.rating import Rating, RatingModel


@dataclass(frozen=True, slots=True)
class Candidate:
    """A bot in the pool: its name (``entrant@n``), rating and rated matches; ``new``: a
    submission still being placed (the matchmaker serves it first)."""

    name: str
    rating: Rating
    games: int
    new: bool = False


@dataclass(frozen=True, slots=True)
class Pairing:
    """One job: ``first`` in seat 0 and ``second`` in seat 1 (and, if ``duplicate``, then the
    seats swapped on the same deal); ``quality`` of the match when chosen (1: even)."""

    first: str
    second: str
    duplicate: bool
    quality: float

    @property
    def bots(self) -> tuple[str, str]:
        """The two bots, seat 0's first."""
        return (self.first, self.second)

    @property
    def matches(self) -> int:
        """How many matches the job plays."""
        return 2 if self.duplicate else 1


MAX_PER_BOT = 4  # jobs one bot may be in at once (the season's default)
# 0: opponents drawn uniformly; higher: ever closer matches. Six bots were in the right order
# for good after a median 386 matches with 1, 434 with 2 (the same, within the spread) and 550
# with 4, where the matches pile up on the closest pair (benchmarks/bench_ladder_convergence.py).
SHARPNESS = 1.0
DEFAULT_MODEL = RatingModel()


def quality(model: RatingModel, a: Rating, b: Rating) -> float:
    """How even a match of ``a`` and ``b`` is: 1 when either is as likely to win, 0 when one
    is sure to."""
    return 1.0 - abs(2.0 * model.win_probability(a, b) - 1.0)


def choose(
    pool: Sequence[Candidate],
    slots: int,
    rng: random.Random,
    *,
    busy: Mapping[str, int] | None = None,
    max_per_bot: int = MAX_PER_BOT,
    duplicate: bool = True,
    sharpness: float = SHARPNESS,
    model: RatingModel = DEFAULT_MODEL,
) -> list[Pairing]:
    """At most ``slots`` pairings from ``pool`` (the module docstring says how). ``busy``: how
    many jobs each bot is in now; ``model``: the season's (its ``beta`` sets how even a match
    of two ratings is)."""
    if max_per_bot < 1:
        raise LadderError(f"max_per_bot = {max_per_bot} must be at least 1")
    if not sharpness >= 0:
        raise LadderError(f"matchmaking sharpness = {sharpness} must be 0 or more")
    load = {c.name: (busy or {}).get(c.name, 0) for c in pool}
    chosen: set[frozenset[str]] = set()
    out: list[Pairing] = []
    spent: set[str] = set()  # bots with no opponent left in this call
    while len(out) < slots:
        free = [c for c in pool if load[c.name] < max_per_bot]
        focal = _neediest([c for c in free if c.name not in spent], load)
        if focal is None:
            break
        rivals = [
            c
            for c in free
            if c.name != focal.name and frozenset((c.name, focal.name)) not in chosen
        ]
        if not rivals:
            spent.add(focal.name)
            continue
        scores = [quality(model, focal.rating, c.rating) for c in rivals]
        weights = [max(q, 1e-12) ** sharpness for q in scores]
        pick = rng.choices(range(len(rivals)), weights=weights)[0]
        rival = rivals[pick]
        first, second = (focal, rival) if rng.random() < 0.5 else (rival, focal)
        out.append(Pairing(first.name, second.name, duplicate, scores[pick]))
        chosen.add(frozenset((first.name, second.name)))
        for name in (first.name, second.name):
            load[name] += 1
    return out


def _neediest(free: Sequence[Candidate], load: Mapping[str, int]) -> Candidate | None:
    """The bot to serve next: a new one first, then the most uncertain for its load; ties go
    to the one with fewer games, then to the pool's order."""
    if not free:
        return None
    return min(
        free,
        key=lambda c: (not c.new, -c.rating.sigma / (1 + load[c.name]), c.games),
    )
