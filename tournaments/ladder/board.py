"""The leaderboard: each bot of the pool (the house bots and each entrant's newest accepted
version) ranked by its conservative rating, mu - k * sigma, as Battlesnake and CodinGame rank
by TrueSkill: a bot with few games has a wide interval and climbs as it proves itself.

The figures come from the store (ratings) and the journal (each bot's matches, its results and
its faults by kind); the command line (``ginref ladder status``, ``export``) and the web app
draw the same rows.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field

from tournaments.journal.records import MatchRecord
from tournaments.ladder.rating import Rating
from tournaments.ladder.season import Season
from tournaments.ladder.store import SeasonStore


@dataclass(slots=True)
class BotRow:
    """One bot on the leaderboard."""

    rank: int
    bot: str  # the version's name (``alice@2``), or a house bot's
    entrant: str  # the entrant, or the house bot's name
    kind: str  # "house", "remote" or "submitted"
    mu: float
    sigma: float
    rating: float  # mu - k * sigma
    low: float  # the interval mu -+ k * sigma
    high: float
    matches: int
    wins: int
    draws: int
    losses: int
    faults: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(slots=True)
class Results:
    """Each bot's matches in the journal: W-D-L against its opponents, faults by kind."""

    wins: Counter[str] = field(default_factory=Counter)
    draws: Counter[str] = field(default_factory=Counter)
    losses: Counter[str] = field(default_factory=Counter)
    faults: dict[str, Counter[str]] = field(default_factory=dict)

    def add(self, record: MatchRecord) -> None:
        for i, j, score in record.pairs():
            a, b = record.seats[i], record.seats[j]
            if score is None:
                self.losses[a] += 1
                self.losses[b] += 1
            elif score == 0.5:
                self.draws[a] += 1
                self.draws[b] += 1
            else:
                winner, loser = (a, b) if score == 1.0 else (b, a)
                self.wins[winner] += 1
                self.losses[loser] += 1
        for fault in record.faults:
            bot = record.seats[fault.seat]
            self.faults.setdefault(bot, Counter())[fault.kind] += 1


def stored_results(store: SeasonStore) -> Results:
    """The counts the store keeps."""
    results = Results()
    for bot, (wins, draws, losses) in store.results().items():
        results.wins[bot], results.draws[bot], results.losses[bot] = wins, draws, losses
    results.faults = {bot: Counter(kinds) for bot, kinds in store.faults().items()}
    return results


def results_of(records: Iterable[MatchRecord]) -> Results:
    results = Results()
    for record in records:
        results.add(record)
    return results


def leaderboard(season: Season, store: SeasonStore) -> list[BotRow]:
    """The pool's rows, best first (ties: more matches, then the name), from the counts the
    store keeps as matches are rated: the same cost at any size of the journal."""
    model = season.rating_model
    ratings = store.ratings()
    results = stored_results(store)
    remote = set(season.remote)
    pool: list[tuple[str, str, str]] = [(h, h, "house") for h in season.house]
    for version in store.active():
        kind = "remote" if version.entrant in remote else "submitted"
        pool.append((version.name, version.entrant, kind))
    rows: list[BotRow] = []
    for bot, entrant, kind in pool:
        stored = ratings.get(bot)
        rating = Rating(stored.mu, stored.sigma) if stored else model.initial()
        low, high = model.interval(rating)
        rows.append(
            BotRow(
                0,
                bot,
                entrant,
                kind,
                rating.mu,
                rating.sigma,
                model.conservative(rating),
                low,
                high,
                results.wins[bot] + results.draws[bot] + results.losses[bot],
                results.wins[bot],
                results.draws[bot],
                results.losses[bot],
                dict(results.faults.get(bot, {})),
            )
        )
    rows.sort(key=lambda r: (-r.rating, -r.matches, r.bot))
    for n, row in enumerate(rows, 1):
        row.rank = n
    return rows


def board_text(rows: Sequence[BotRow]) -> str:
    """The leaderboard as a plain table for a terminal."""
    lines = [f"{'#':>3}  {'bot':<24} {'rating':>7} {'mu':>7} {'sigma':>6} {'W-D-L':>11}  faults"]
    for r in rows:
        record = f"{r.wins}-{r.draws}-{r.losses}"
        faults = ", ".join(f"{k} {v}" for k, v in sorted(r.faults.items())) or "-"
        house = " (house)" if r.kind == "house" else ""
        lines.append(
            f"{r.rank:>3}  {r.bot + house:<24} {r.rating:>7.2f} {r.mu:>7.2f} {r.sigma:>6.2f} "
            f"{record:>11}  {faults}"
        )
    return "\n".join(lines)


def board_csv(rows: Sequence[BotRow]) -> str:
    out = io.StringIO()
    columns = ["rank", "bot", "entrant", "kind", "rating", "mu", "sigma", "low", "high",
               "matches", "wins", "draws", "losses", "faults"]  # fmt: skip
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for r in rows:
        faults = ";".join(f"{k}={v}" for k, v in sorted(r.faults.items()))
        writer.writerow([
            r.rank, r.bot, r.entrant, r.kind, f"{r.rating:.3f}", f"{r.mu:.3f}", f"{r.sigma:.3f}",
            f"{r.low:.3f}", f"{r.high:.3f}", r.matches, r.wins, r.draws, r.losses, faults,
        ])  # fmt: skip
    return out.getvalue()


def board_json(rows: Sequence[BotRow]) -> str:
    return json.dumps([r.to_dict() for r in rows], indent=2) + "\n"
