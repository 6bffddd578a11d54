"""The close of a season: the final is an ordinary tournament (``DIRECTORY/final``: journal,
report, CSV and JSON, resumable) of the frozen versions, each entrant's last accepted one, or
the leaderboard's top N of them, as CodinGame replays its top at the close; the house bots
are anchors of the ladder, not finalists."""

from __future__ import annotations

from collections.abc import Sequence

from tournaments.file.config import TournamentConfig
from tournaments.ladder.board import BotRow
from tournaments.ladder.errors import LadderError
from tournaments.ladder.season import Season
from tournaments.ladder.service import version_entry
from tournaments.ladder.store import open_season

FINAL = "final"


def final_config(
    season: Season, rows: Sequence[BotRow], *, top: int | None = None, matches: int | None = None
) -> TournamentConfig:
    """The final's tournament, from the leaderboard ``rows`` (best first)."""
    store = open_season(season.directory)
    try:
        if store.meta("frozen") is None:
            raise LadderError(
                f"{season.name} is not frozen: 'ginref ladder freeze {season.directory}' first "
                "(the final plays the versions as they are at the close)"
            )
        versions = {v.name: v for v in store.active()}
    finally:
        store.close()
    finalists = [r for r in rows if r.kind != "house"]
    limit = season.ladder.final_top if top is None else top
    if limit:
        finalists = finalists[:limit]
    if len(finalists) < 2:
        raise LadderError(
            f"a final needs two entrants with an accepted version; {season.name} has "
            f"{len(finalists)}"
        )
    remote = [r.bot for r in finalists if r.kind == "remote"]
    if remote:
        raise LadderError(
            f"{', '.join(remote)}: remote finalists connect to a hosted referee; the final of "
            "a season with remote entrants is played with 'ginref serve'"
        )
    bots = tuple(version_entry(season.directory, versions[r.bot]) for r in finalists)
    return season.config.with_changes(
        name=f"{season.name}-final",
        bots=bots,
        format="round-robin",
        matches=matches or season.ladder.final_matches,
        duplicate=season.ladder.duplicate,
        out=str(season.directory / FINAL),
    )
