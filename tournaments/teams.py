"""Who plays whom when a match has more than two seats: teams, entrants and their groups.

With two players (the usual game) the entrants of a tournament are its bots, and a match is a
pairing of two. With three players (R10.1) the entrants are still the bots, and a match seats a
triple of them. With four players in two partnerships (R10.2) the entrants are teams: a
``[[teams]]`` table names two bots (or the same bot twice), and a match seats two teams, team
0's bots in seats 0 and 2 and team 1's in seats 1 and 3. A file with ``players = 4`` and no
``[[teams]]`` makes each bot a team of two copies of itself, named after the bot.

Everything here is pure: :func:`field_problem` says in one sentence what is wrong with a field
of bots and teams for a number of players, and :func:`groups` lists a round's groups.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tournaments.file.toml_lines import Reader

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
_TEAM_KEYS = ("name", "bots")


@dataclass(frozen=True, slots=True)
class TeamEntry:
    """A partnership (R10.2): its name and its two bots, the first in the lower seat."""

    name: str
    bots: tuple[str, str]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"name": self.name, "bots": list(self.bots)}


def self_teams(bots: Sequence[str]) -> tuple[TeamEntry, ...]:
    """Each bot as a team of two copies of itself, named after it."""
    return tuple(TeamEntry(bot, (bot, bot)) for bot in bots)


def field_problem(
    players: int,
    bots: Sequence[str],
    teams: Sequence[TeamEntry],
    explicit_teams: bool,
) -> str | None:
    """What is wrong with ``bots`` and ``teams`` for ``players`` seats, in one sentence, or
    None. ``explicit_teams``: the teams were written in the file (not each bot with itself)."""
    if explicit_teams and players != 4:
        return (
            f"[[teams]] are for partnerships: set players = 4 in [rules] (this tournament has "
            f"players = {players})"
        )
    if players == 3 and len(bots) < 3:
        return f"three players (players = 3) need at least three bots, got {len(bots)}"
    if players != 4:
        return None
    if len(teams) < 2:
        return f"partnerships (players = 4) need at least two teams, got {len(teams)}"
    names = [t.name for t in teams]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        return f"team names must be unique: {', '.join(dup)}"
    for team in teams:
        for bot in team.bots:
            if bot not in bots:
                return f"team {team.name!r}: no bot is called {bot!r}"
    used = {bot for team in teams for bot in team.bots}
    idle = [b for b in bots if b not in used]
    if idle:
        return f"bot {idle[0]!r} plays in no team: add it to a [[teams]] table or remove it"
    return None


def challenger_problem(
    players: int, entrants: Sequence[str], challengers: Sequence[str], fmt: str
) -> str | None:
    """What is wrong with the challengers among ``entrants`` (a gauntlet's, or any named), or
    None."""
    what = "team" if players == 4 else "bot"
    unknown = [c for c in challengers if c not in entrants]
    if unknown:
        return f"challenger {unknown[0]!r} is not one of the {what}s"
    if fmt != "gauntlet":
        return None
    if not challengers:
        return "a gauntlet needs at least one challenger"
    field = [e for e in entrants if e not in challengers]
    if players == 3 and len(field) < 2:
        return (
            "a gauntlet of three players seats each challenger with two bots that are not "
            f"challengers, and there are {len(field)}"
        )
    if not field:
        return f"a gauntlet needs at least one {what} that is not a challenger"
    return None


def groups(
    players: int, entrants: Sequence[str], fmt: str, challengers: Sequence[str]
) -> list[tuple[str, ...]]:
    """The groups of one round, in the order of the entrants in the file: pairs of bots or
    of teams, or triples of bots. A gauntlet's groups hold one challenger each."""
    size = 3 if players == 3 else 2
    if fmt == "gauntlet":
        chosen = [c for c in entrants if c in challengers]
        field = [e for e in entrants if e not in challengers]
        return [(c, *rest) for c in chosen for rest in itertools.combinations(field, size - 1)]
    return list(itertools.combinations(entrants, size))


def base_seating(players: int, group: Sequence[str], teams: Sequence[TeamEntry]) -> tuple[str, ...]:
    """The bot in each seat of a group's first match: the pair or triple in its order; two
    teams with the first team's bots in seats 0 and 2 and the second's in seats 1 and 3."""
    if players != 4:
        return tuple(group)
    by_name = {t.name: t for t in teams}
    (a, c), (b, d) = by_name[group[0]].bots, by_name[group[1]].bots
    return (a, b, c, d)


def rotated(seats: Sequence[str], turn: int) -> tuple[str, ...]:
    """``seats`` with every bot moved ``turn`` seats down (seat s takes seat s + turn's bot), as
    a series with its seats swapped moves them match by match: two players swap; three each sit
    in each seat in three matches; partnerships swap sides each match, keeping every team
    together."""
    n = len(seats)
    return tuple(seats[(seat + turn) % n] for seat in range(n))


def parse_teams(r: Reader, value: Any, bots: Sequence[str], players: int) -> tuple[TeamEntry, ...]:
    """The ``[[teams]]`` tables of a tournament file, each checked where it stands."""
    if not isinstance(value, list) or not all(isinstance(t, dict) for t in value):
        raise r.error(("teams",), "expected [[teams]] tables")
    teams: list[TeamEntry] = []
    for i, item in enumerate(value):
        path: tuple[str | int, ...] = ("teams", i)
        r.check_keys(item, _TEAM_KEYS, path)
        if "bots" not in item:
            raise r.error(path, 'missing key \'bots\': the team\'s two bots, bots = ["a", "b"]')
        names = item["bots"]
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise r.error((*path, "bots"), f"expected a list of two bot names, got {names!r}")
        if len(names) != 2:
            raise r.error(
                (*path, "bots"),
                f"a team is two bots (the same one twice for a bot with itself), got {len(names)}",
            )
        for name in names:
            if name not in bots:
                raise r.error((*path, "bots"), f"no bot is called {name!r}")
        if "name" in item:
            name = r.get(item, "name", str, path, "a string")
            if not _NAME.match(name):
                raise r.error((*path, "name"), f"{name!r}: use 1 to 40 letters, digits, '-' or '_'")
        else:
            name = f"{names[0]}+{names[1]}"
        if any(t.name == name for t in teams):
            raise r.error((*path, "name") if "name" in item else path,
                          f"another team is already called {name!r}")  # fmt: skip
        teams.append(TeamEntry(name, (names[0], names[1])))
    return tuple(teams)
