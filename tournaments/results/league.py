"""One rating list over several tournaments: a league that grows run by run (``ginref ratings``).

Every journal's matches are read (read only, so a tournament may be running) and fitted
together: the standings of :mod:`tournaments.results.standings` over all of them, Bradley–Terry Elo
with 95% intervals from :mod:`tournaments.results.ratings`, so a bot rated in one run and a bot
rated in another are on one scale as soon as some bot links them. A bot is its name: the same name
in two journals is one bot (a note says so when its command differs between them, e.g. a new version
under an old name). The list is ranked by Elo, since bots that played different numbers of
matches cannot be ranked by points.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tournaments.journal.records import MatchRecord
from tournaments.journal.store import JournalError, open_journal
from tournaments.outputs.console import format_standings
from tournaments.results.standings import (
    Standings,
    compute_standings,
    counted_matches,
    standings_json,
)


@dataclass(frozen=True, slots=True)
class Source:
    """One tournament of the league: its directory, name and matches."""

    directory: Path
    name: str
    matches: int
    bots: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class League:
    """The league's standings (ranked by Elo), where they come from, and what to know."""

    standings: Standings
    sources: tuple[Source, ...]
    tournaments: dict[str, int]  # bot -> in how many of the sources it played
    notes: tuple[str, ...]


def league(directories: Sequence[Path]) -> League:
    """Fit one rating list over the tournaments in ``directories`` (each must hold a journal;
    the same directory twice counts once)."""
    seen: set[Path] = set()
    sources: list[Source] = []
    records: list[MatchRecord] = []
    names: list[str] = []
    commands: dict[str, dict[str, list[Path]]] = {}  # bot -> command -> where
    for directory in directories:
        if directory.resolve() in seen:
            continue
        seen.add(directory.resolve())
        journal = open_journal(directory, create=False)
        try:
            if not journal.initialised:
                raise JournalError(f"{journal.path} holds no tournament yet: nothing to rate")
            identity = journal.meta("identity") or {}
            config = journal.meta("config") or {}
            found = counted_matches(journal).records  # withdrawals applied
            bots = journal.bot_names()
        finally:
            journal.close()
        for bot in identity.get("bots", ()):
            command = " ".join(bot.get("command", ())) or "(remote)"
            commands.setdefault(bot["name"], {}).setdefault(command, []).append(directory)
        names += [b for b in bots if b not in names]
        # Keys repeat from one tournament to the next: make each match's key its own.
        records += [dataclasses.replace(r, key=f"{len(sources)}:{r.key}") for r in found]
        name = str(config.get("name", "tournament"))
        sources.append(Source(directory, name, len(found), tuple(bots)))
    players = max((r.players for r in records), default=2)
    title = f"{len(sources)} tournaments"
    standings = compute_standings(title, names, records, len(records), players=players)
    # Bots that played different numbers of matches: rank by rating, not by points.
    ranked = sorted(
        standings.bots,
        key=lambda s: (s.elo is None, -(s.elo or 0.0), -s.points, names.index(s.name)),
    )
    for rank, s in enumerate(ranked, start=1):
        s.rank = rank
    standings.bots = ranked
    standings.rating_note = standings.rating_note.replace(
        "Elo:", f"Elo over {len(sources)} tournaments, ranked by Elo:", 1
    )
    played = {b: sum(1 for src in sources if b in src.bots) for b in names}
    notes = []
    for bot, variants in commands.items():
        if len(variants) > 1:
            where = "; ".join(
                f"{cmd!r} in {', '.join(str(d) for d in dirs)}" for cmd, dirs in variants.items()
            )
            notes.append(f"{bot} has different commands ({where}): it is rated as one bot")
    return League(standings, tuple(sources), played, tuple(notes))


def format_league(result: League, width: int | None = None) -> str:
    """The league as a report: its tournaments, then the standings (ranked by Elo), the head to
    head and the rating notes."""
    total = sum(s.matches for s in result.sources)
    lines = [f"Ratings over {len(result.sources)} tournaments, {total} matches:"]
    for s in result.sources:
        lines.append(f"  {s.directory}: {s.name}, {s.matches} matches ({', '.join(s.bots)})")
    played = ", ".join(f"{bot} {n}" for bot, n in result.tournaments.items())
    lines += [f"Tournaments per bot: {played}", "", format_standings(result.standings, width)]
    lines += [f"Note: {note}" for note in result.notes]
    return "\n".join(lines)


def league_json(result: League) -> str:
    """The league for programs: the standings' JSON with the tournaments it covers."""
    data = json.loads(standings_json(result.standings))
    data["tournaments"] = [
        {"directory": str(s.directory), "name": s.name, "matches": s.matches, "bots": list(s.bots)}
        for s in result.sources
    ]
    data["tournaments_per_bot"] = result.tournaments
    data["notes"] = list(result.notes)
    return json.dumps(data, indent=2) + "\n"
