"""The pool's ratings as the service keeps them: read from the store once, moved by each match
as it is journaled (:meth:`RatingsBook.rate`), written back in the same step, once per match.
A match journaled but not rated (the service killed in between) is rated at the next start,
in the order of play (:meth:`RatingsBook.catch_up`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tournaments.journal.records import MatchRecord
from tournaments.ladder.board import results_of
from tournaments.ladder.matchmaking import Candidate
from tournaments.ladder.rating import Rating, RatingModel
from tournaments.ladder.store import SeasonStore, StoredRating

# A bot with fewer rated matches than this is still being placed: the matchmaker serves it
# first (a new submission plays many games at once).
PLACEMENT = 10


class RatingsBook:
    def __init__(self, store: SeasonStore, settings: Mapping[str, Any]) -> None:
        self.store = store
        self.model = RatingModel.from_settings(settings)
        stored = store.ratings()
        self.ratings = {bot: Rating(r.mu, r.sigma) for bot, r in stored.items()}
        self.games = {bot: r.games for bot, r in stored.items()}

    def rating(self, bot: str) -> Rating:
        return self.ratings.get(bot) or self.model.initial()

    def candidate(self, bot: str) -> Candidate:
        games = self.games.get(bot, 0)
        return Candidate(bot, self.rating(bot), games, new=games < PLACEMENT)

    def rate(self, record: MatchRecord) -> bool:
        """Rate one journaled match and count its results and faults (a match not rated, a
        forfeit before the first deal say, is counted and marked as seen); False if it was
        counted already."""
        moved = self.model.rate_record(self.ratings, record)
        rows = [
            StoredRating(bot, r.mu, r.sigma, self.games.get(bot, 0) + 1) for bot, r in moved.items()
        ]
        tally = results_of([record])
        results = {
            bot: (tally.wins[bot], tally.draws[bot], tally.losses[bot]) for bot in set(record.seats)
        }
        faults = {bot: dict(kinds) for bot, kinds in tally.faults.items()}
        if not self.store.record_ratings(record.key, rows, results, faults):
            return False
        for row in rows:
            self.ratings[row.bot] = Rating(row.mu, row.sigma)
            self.games[row.bot] = row.games
        return True

    def catch_up(self, records: Iterable[MatchRecord]) -> int:
        """Rate the journal's matches the store has not seen; how many."""
        seen = self.store.rated()
        return sum(self.rate(r) for r in records if r.key not in seen)
