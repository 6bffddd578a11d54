"""A season's file (``season.toml`` in the season's directory): a tournament file's tables for
the rules, the clock, faults, limits and the sandbox, its ``[[bots]]`` (the house bots, which
play in the pool from the start, and the remote entrants), and a ``[ladder]`` table of its own::

    name = "spring"
    [rules]
    profile = "standard"
    [ladder]
    quota = 5                 # submissions per entrant per UTC day (kaggle's number)
    deadline = 2027-04-01T00:00:00Z   # optional: submissions close (ginref ladder freeze)
    duplicate = true          # each pairing plays a duplicate pair: one deal, seats swapped
    max_per_bot = 4           # matches one bot plays at once
    validation = "greedy"     # the house bot a new version's validation match is against
    [ladder.rating]           # openskill's model and the leaderboard's mu - k * sigma
    model = "plackett-luce"
    k = 3
    [ladder.archive]          # caps on an upload, in bytes and files
    [ladder.build]            # the build's limits: time (s), memory, disk (bytes), pids
    [ladder.final]            # ginref ladder final: matches per pairing, the top N (0: all)

Every mistake names the file, line and key, as in a tournament file.
"""

from __future__ import annotations

import datetime as _dt
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tournaments.file.config import TournamentConfig, parse_text
from tournaments.file.toml_lines import Reader
from tournaments.ladder.archive import ArchiveCaps
from tournaments.ladder.errors import LadderError
from tournaments.ladder.rating import RatingModel

SEASON_TOML = "season.toml"
LADDER_KEYS = ("quota", "deadline", "duplicate", "max_per_bot", "validation", "rating",
               "archive", "build", "final")  # fmt: skip
RATING_KEYS = {"model": str, "mu": float, "sigma": float, "beta": float, "tau": float, "k": float}
ARCHIVE_KEYS = {"upload_bytes": int, "total_bytes": int, "file_bytes": int, "files": int}
BUILD_KEYS = {"time": float, "memory": int, "disk": int, "pids": int}
FINAL_KEYS = {"matches": int, "top": int}


@dataclass(frozen=True, slots=True)
class LadderSettings:
    """The ``[ladder]`` table."""

    quota: int = 5
    deadline: _dt.datetime | None = None
    duplicate: bool = True
    max_per_bot: int = 4
    validation: str | None = None  # None: the first house bot
    rating: Mapping[str, Any] = field(default_factory=dict)
    archive: Mapping[str, int] = field(default_factory=dict)
    build: Mapping[str, float] = field(default_factory=dict)
    final_matches: int = 4
    final_top: int = 0


@dataclass(frozen=True, slots=True)
class Season:
    """A season's file: its tournament settings and its ladder settings."""

    directory: Path
    config: TournamentConfig  # its bots: the house bots and the remote entrants
    ladder: LadderSettings

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def house(self) -> list[str]:
        """The house bots (the file's local bots), in the file's order."""
        return [b.name for b in self.config.local_bots]

    @property
    def remote(self) -> list[str]:
        """The remote entrants (the file's ``remote = true`` bots)."""
        return [b.name for b in self.config.bots if b.remote]

    @property
    def rating_model(self) -> RatingModel:
        """The ``[ladder.rating]`` model: its ratings, and the leaderboard's mu - k * sigma."""
        return RatingModel.from_settings(self.ladder.rating)

    @property
    def caps(self) -> ArchiveCaps:
        """The ``[ladder.archive]`` caps of an upload."""
        return ArchiveCaps(**self.ladder.archive)

    @property
    def validation(self) -> str:
        return self.ladder.validation or self.house[0]


def _table(
    r: Reader, data: Mapping[str, Any], key: str, kinds: Mapping[str, type]
) -> dict[str, Any]:
    table = r.get(data, key, dict, ("ladder",), "a table")
    r.check_keys(table, list(kinds), ("ladder", key))
    out: dict[str, Any] = {}
    for name, kind in kinds.items():
        if name in table:
            what = "a string" if kind is str else "a number"
            value = r.get(table, name, kind, ("ladder", key), what)
            if kind is not str and name == "top" and value < 0:
                raise r.error(("ladder", key, name), f"must be 0 (all) or more, got {value}")
            if kind is not str and name != "top" and value <= 0:
                raise r.error(("ladder", key, name), f"must be more than 0, got {value}")
            out[name] = value
    return out


def parse_ladder(r: Reader, data: Mapping[str, Any], house: list[str]) -> LadderSettings:
    """The ``[ladder]`` table of a parsed season file."""
    table = r.get(data, "ladder", dict, (), "a table") if "ladder" in data else {}
    r.check_keys(table, LADDER_KEYS, ("ladder",))
    fields: dict[str, Any] = {}
    for key in ("quota", "max_per_bot"):
        if key in table:
            value = r.get(table, key, int, ("ladder",), "a whole number")
            if value < 1:
                raise r.error(("ladder", key), f"must be at least 1, got {value}")
            fields[key] = value
    if "duplicate" in table:
        fields["duplicate"] = r.get(table, "duplicate", bool, ("ladder",), "true or false")
    if "deadline" in table:
        value = table["deadline"]
        if isinstance(value, str):
            try:
                value = _dt.datetime.fromisoformat(value)
            except ValueError:
                raise r.error(("ladder", "deadline"), f"not a date and time: {value!r}") from None
        if not isinstance(value, _dt.datetime):
            raise r.error(("ladder", "deadline"), "expected a date and time, 2027-04-01T00:00:00Z")
        fields["deadline"] = value if value.tzinfo else value.replace(tzinfo=_dt.UTC)
    if "validation" in table:
        value = r.get(table, "validation", str, ("ladder",), "a house bot's name")
        if value not in house:
            raise r.error(("ladder", "validation"), f"{value!r} is not a house bot of the file")
        fields["validation"] = value
    if "rating" in table:
        fields["rating"] = _table(r, table, "rating", RATING_KEYS)
    if "archive" in table:
        fields["archive"] = _table(r, table, "archive", ARCHIVE_KEYS)
    if "build" in table:
        fields["build"] = _table(r, table, "build", BUILD_KEYS)
    if "final" in table:
        final = _table(r, table, "final", FINAL_KEYS)
        if "matches" in final:
            fields["final_matches"] = final["matches"]
        if "top" in final:
            fields["final_top"] = final["top"]
    return LadderSettings(**fields)


def load_season(directory: Path) -> Season:
    """Read ``directory/season.toml``; a mistake is one line naming the file, line and key."""
    path = directory / SEASON_TOML
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LadderError(
            f"no season in {str(directory)!r} (no {SEASON_TOML}): start one with "
            f"'ginref ladder new {directory}'"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LadderError(f"cannot read {path}: {exc}") from None
    config = parse_text(text, str(path), directory.resolve(), other="ladder")
    if not config.local_bots:
        raise LadderError(f"{path}: a season needs a house bot ([[bots]] with a command)")
    if config.format != "round-robin" or config.players != 2:
        raise LadderError(f"{path}: a season is of two-player matches ([rules] players = 2)")
    data = tomllib.loads(text)  # valid: parse_text read it
    ladder = parse_ladder(
        Reader(str(path), text, directory), data, [b.name for b in config.local_bots]
    )
    return Season(directory, config, ladder)


TEMPLATE = """\
# A season of ginref ladder (docs/ladder.md). Entrants submit bots (ginref ladder submit, or the
# web page), each is built in the sandbox and validated, then plays the pool around the clock.
name = "{name}"

[rules]
profile = "standard"

[time]
move_time = 10.0
bank = 60.0
connect_timeout = 30.0     # a JVM on a busy machine can take seconds to connect

[ladder]
quota = 5                  # submissions per entrant per UTC day
duplicate = true           # each pairing plays a duplicate pair (one deal, seats swapped)
max_per_bot = 4            # matches one bot plays at once
validation = "greedy"      # a new version's validation match is against this house bot
# deadline = 2027-04-01T00:00:00Z

[ladder.rating]
model = "plackett-luce"    # openskill's model
k = 3                      # the leaderboard ranks by mu - k * sigma

[ladder.final]
matches = 4                # per pairing of the final round robin
top = 0                    # 0: every entrant's last version; N: the top N only

# The house bots: in the pool from the start, an anchor for the ratings.
[[bots]]
name = "greedy"
command = "{{python}} -m sample_bots.greedy_bot"

[[bots]]
name = "random"
command = "{{python}} -m sample_bots.random_bot"
"""
