"""A ladder's ratings: a skill estimate with its uncertainty per bot, from the openskill library.

Each bot has a :class:`Rating`, a normal belief about its skill (``mu`` its mean, ``sigma`` its
standard deviation), updated after every rated match by one of openskill's Weng–Lin models
(Plackett–Luce by default; the Bradley–Terry and Thurstone–Mosteller ones by name). The
rating system is openskill's, not one of ours: this module only turns a finished match
(:class:`~tournaments.journal.records.MatchRecord`) into the places openskill reads, and
openskill's ratings into ours. The update is plain arithmetic: the same matches in the same
order give the same ratings.

The leaderboard ranks by the conservative rating ``mu - k * sigma`` (``k = 3`` by default, as
the Battlesnake and CodinGame leaderboards do): a bot climbs by showing its skill over enough
matches, not by a lucky first one, and a new submission starts at the bottom (0 with the
defaults) instead of in the middle.

Which matches are rated (:func:`places_of`):

- a better place is a win, an equal one a draw: two players, three (places 1 to 3, shared when
  equal), or partnerships (a place per team: :meth:`RatingModel.rate_teams`);
- a bot that forfeits (it faulted out, crashed, ran out of time) is behind every bot that did
  not: the referee's placings already say so (R11.5), so its forfeit is its loss; a fault that
  did not end the match was already punished by the match's own fault policy;
- a forfeit before the first deal is rated too: a bot learns its opponent when the match starts,
  and one that then left (or never came) would otherwise keep its rating out of reach of every
  opponent it fears;
- not rated: a withdrawn bot's forfeit (the organiser's decision, no game was played), a match
  in which every side forfeited (a loss for each, but not a result between them), one whose
  results are struck (a disqualified bot's), and a bot against itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, Protocol

from openskill.models import (
    BradleyTerryFull,
    BradleyTerryPart,
    PlackettLuce,
    ThurstoneMostellerFull,
    ThurstoneMostellerPart,
)

from tournaments.journal.records import MatchRecord
from tournaments.journal.withdrawals import is_withdrawal
from tournaments.ladder.errors import LadderError

# openskill's defaults: a new player at 25 ± 25/3, a skill difference of beta = 25/6 being
# about a 76% chance to win.
MU = 25.0
SIGMA = MU / 3
BETA = SIGMA / 2
K = 3.0


class _Player(Protocol):
    mu: float
    sigma: float


class _Model(Protocol):
    """What this module uses of an openskill model (each model class has its own rating type)."""

    def rating(self, mu: float | None = ..., sigma: float | None = ...) -> _Player: ...

    def rate(
        self, teams: list[list[_Player]], ranks: list[float] | None = ...
    ) -> list[list[_Player]]: ...

    def predict_win(self, teams: list[list[_Player]]) -> list[float]: ...


MODELS: dict[str, type] = {
    "plackett-luce": PlackettLuce,
    "bradley-terry-full": BradleyTerryFull,
    "bradley-terry-part": BradleyTerryPart,
    "thurstone-mosteller-full": ThurstoneMostellerFull,
    "thurstone-mosteller-part": ThurstoneMostellerPart,
}


@dataclass(frozen=True, slots=True)
class Rating:
    """A belief about a bot's skill: mean ``mu``, standard deviation ``sigma``."""

    mu: float
    sigma: float


@dataclass(frozen=True)
class RatingModel:
    """The season's rating settings, and the openskill model they make.

    ``tau``: openskill's additive dynamics, added to ``sigma`` before each update, for a skill
    that drifts; 0 by default, because a version of a bot never changes (a change is a new
    version, rated afresh). openskill's own default, ``mu / 300``, keeps every rating a little
    uncertain forever, so that the latest matches weigh more than the old and two close bots
    keep swapping places: over 2,400 matches of six bots a round robin rated with it found the
    true order after a median 1,128 matches, 716 with 0, and 2 ladders in 40 ended in the wrong
    order, none with 0 (``benchmarks/bench_ladder_convergence.py``). ``k``: how many ``sigma``
    the conservative rating and the interval reach below and above ``mu``.
    """

    model: str = "plackett-luce"
    mu: float = MU
    sigma: float = SIGMA
    beta: float = BETA
    tau: float = 0.0
    k: float = K
    _engine: _Model = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise LadderError(f"rating model {self.model!r} is not one of {', '.join(MODELS)}")
        for name in ("sigma", "beta"):
            if not getattr(self, name) > 0:
                raise LadderError(f"rating {name} = {getattr(self, name)} must be positive")
        if not self.tau >= 0:
            raise LadderError(f"rating tau = {self.tau} must be 0 or more")
        if not self.k >= 0:
            raise LadderError(f"rating k = {self.k} must be 0 or more")
        engine = MODELS[self.model](mu=self.mu, sigma=self.sigma, beta=self.beta, tau=self.tau)
        object.__setattr__(self, "_engine", engine)

    @classmethod
    def from_settings(cls, table: Mapping[str, Any]) -> RatingModel:
        """The model of a season's ``[ladder.rating]`` table (its keys already checked by the
        season's reader); a missing key takes its default."""
        known = ("model", "mu", "sigma", "beta", "tau", "k")
        return cls(**{key: table[key] for key in known if key in table})

    def initial(self) -> Rating:
        """A new bot's rating."""
        return Rating(self.mu, self.sigma)

    def conservative(self, r: Rating) -> float:
        """What the leaderboard ranks by: ``mu - k * sigma``."""
        return r.mu - self.k * r.sigma

    def interval(self, r: Rating) -> tuple[float, float]:
        """``mu`` less and plus ``k * sigma``: its low end is the conservative rating."""
        return (r.mu - self.k * r.sigma, r.mu + self.k * r.sigma)

    def rate(self, ratings: Sequence[Rating], places: Sequence[float]) -> list[Rating]:
        """The ratings after one match of two or three bots that finished at ``places`` (1 the
        best, equal places a tie: a draw)."""
        return [team[0] for team in self.rate_teams([[r] for r in ratings], places)]

    def rate_teams(
        self, teams: Sequence[Sequence[Rating]], places: Sequence[float]
    ) -> list[list[Rating]]:
        """The ratings after one match of teams (partnerships) that finished at ``places``."""
        if len(teams) != len(places) or len(teams) < 2:
            raise ValueError(f"{len(teams)} teams with {len(places)} places")
        after = self._engine.rate(
            [[self._player(r) for r in team] for team in teams], ranks=[float(p) for p in places]
        )
        return [[Rating(p.mu, p.sigma) for p in team] for team in after]

    def win_probability(self, a: Rating, b: Rating) -> float:
        """The model's chance that ``a`` finishes ahead of ``b`` in a match of the two."""
        return self._engine.predict_win([[self._player(a)], [self._player(b)]])[0]

    def rate_record(
        self,
        ratings: Mapping[str, Rating],
        record: MatchRecord,
        *,
        struck: AbstractSet[str] = frozenset(),
    ) -> dict[str, Rating]:
        """The new ratings of the bots of ``record`` (their current ones in ``ratings``; a bot
        not there starts at :meth:`initial`); ``{}`` if the match is not rated
        (:func:`places_of`)."""
        places = places_of(record, struck=struck)
        if places is None:
            return {}
        sides: list[list[str]] = [[] for _ in places]
        for seat, bot in enumerate(record.seats):
            sides[record.side_of(seat)].append(bot)
        teams = [[ratings.get(bot, self.initial()) for bot in side] for side in sides]
        out: dict[str, Rating] = {}
        for side, after in zip(sides, self.rate_teams(teams, places), strict=True):
            for bot, r in zip(side, after, strict=True):
                # A bot twice in one team: both entries had one rating and moved alike.
                out.setdefault(bot, r)
        return out

    def _player(self, r: Rating) -> _Player:
        return self._engine.rating(mu=r.mu, sigma=r.sigma)


def places_of(record: MatchRecord, *, struck: AbstractSet[str] = frozenset()) -> list[float] | None:
    """Each side's place in ``record`` (a seat's, or with partnerships a team's: team 0 being
    seats 0 and 2), 1 the best and shared when equal; None if the match is not rated (the
    module docstring says which are not). ``struck``: the bots whose results are struck."""
    if is_withdrawal(record) or not struck.isdisjoint(record.seats):
        return None
    if record.hands_played == 0 and record.forfeit is None:
        return None  # nothing was played and nobody is to blame
    sides = 2 if record.sides else record.players
    bots: list[set[str]] = [set() for _ in range(sides)]
    for seat, bot in enumerate(record.seats):
        bots[record.side_of(seat)].add(bot)
    if any(bots[i] & bots[j] for i in range(sides) for j in range(i + 1, sides)):
        return None  # a bot against itself: nothing to learn
    forfeit = record.forfeit
    if forfeit is not None:
        charged = {record.side_of(s) for s in range(record.players) if forfeit.charged(s)}
        if len(charged) == sides:
            return None
    # The first seat of each side stands for it (a team's seats share their place).
    return [float(record.place(side)) for side in range(sides)]
