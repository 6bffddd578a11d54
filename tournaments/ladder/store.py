"""A season's own tables: one SQLite file (``season.sqlite``, WAL), and the only module that
speaks SQL about them, so that another database (PostgreSQL) could take its place.

What it holds: the season's metadata (its deal key, when it was frozen, its final), the
entrants, every version an entrant submitted (its status through the pipeline, and why it
failed), each bot's rating (mean and uncertainty) and the history of its ratings, and which
matches have been rated. The matches themselves are in the tournament journal of the season's
``play`` directory (:mod:`tournaments.journal.store`): each finished match is committed there
first, then rated here, and a match committed but not rated (the service killed between the
two) is rated when the service starts again (:meth:`SeasonStore.unrated`), so that ratings
never miss a match and never count one twice.

Each statement that changes more than one row runs in one transaction; ``synchronous = FULL``
as in the journal. Several processes use the file at once (the service, the web app, the
command line): SQLite's locking serialises writers and ``busy_timeout`` makes them wait.
"""

from __future__ import annotations

import datetime as _dt
import json
import secrets
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tournaments.ladder.errors import LadderError

SEASON_FILE = "season.sqlite"
SCHEMA_VERSION = 1

# A version's way through the pipeline; accepted is the only one that plays.
QUEUED, BUILDING, VALIDATING, ACCEPTED, FAILED = (
    "queued",
    "building",
    "validating",
    "accepted",
    "failed",
)
IN_PIPELINE = (QUEUED, BUILDING, VALIDATING)

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE entrants (name TEXT PRIMARY KEY, created TEXT NOT NULL, remote INTEGER NOT NULL);
CREATE TABLE versions (
    entrant TEXT NOT NULL REFERENCES entrants(name),
    number INTEGER NOT NULL,
    submitted TEXT NOT NULL,
    status TEXT NOT NULL,
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    language TEXT,
    command TEXT,
    transport TEXT,
    step TEXT,
    message TEXT,
    exit_status TEXT,
    tail TEXT,
    finished TEXT,
    PRIMARY KEY (entrant, number)
);
CREATE TABLE ratings (
    bot TEXT PRIMARY KEY, mu REAL NOT NULL, sigma REAL NOT NULL, games INTEGER NOT NULL
);
CREATE TABLE results (
    bot TEXT PRIMARY KEY, wins INTEGER NOT NULL, draws INTEGER NOT NULL, losses INTEGER NOT NULL
);
CREATE TABLE faults (
    bot TEXT NOT NULL, kind TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (bot, kind)
);
CREATE TABLE history (
    bot TEXT NOT NULL, n INTEGER NOT NULL, match_key TEXT NOT NULL,
    mu REAL NOT NULL, sigma REAL NOT NULL, at TEXT NOT NULL
);
CREATE INDEX history_bot ON history (bot, n);
CREATE TABLE rated (match_key TEXT PRIMARY KEY, n INTEGER NOT NULL)
"""


def now() -> str:
    """UTC, ISO 8601, to the second."""
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def version_name(entrant: str, number: int) -> str:
    """A version's name as a bot of the season's matches: ``alice@2``."""
    return f"{entrant}@{number}"


@dataclass(frozen=True, slots=True)
class Version:
    """One submission of an entrant (a remote entrant has one version, ``number`` 0)."""

    entrant: str
    number: int
    submitted: str
    status: str
    size: int
    sha256: str
    language: str | None = None
    command: tuple[str, ...] = ()  # the run command, as split for the referee
    transport: str | None = None
    step: str | None = None  # the failing step
    message: str | None = None
    exit_status: str | None = None
    tail: str | None = None
    finished: str | None = None

    @property
    def name(self) -> str:
        return self.entrant if self.number == 0 else version_name(self.entrant, self.number)


@dataclass(frozen=True, slots=True)
class StoredRating:
    bot: str
    mu: float
    sigma: float
    games: int


_VERSION_COLUMNS = (
    "entrant, number, submitted, status, size, sha256, language, command, transport, step, "
    "message, exit_status, tail, finished"
)


def _version(row: Sequence[Any]) -> Version:
    values = list(row)
    values[7] = tuple(json.loads(values[7])) if values[7] else ()
    return Version(*values)


class SeasonStore:
    """An open ``season.sqlite``: ``create`` makes it (with a new deal key) when absent."""

    def __init__(self, path: Path, *, create: bool = False, read_only: bool = False) -> None:
        self.path = path
        if not path.exists() and not create:
            raise LadderError(f"no season at {str(path.parent)!r} (no {SEASON_FILE})")
        try:
            if read_only:
                self.db = sqlite3.connect(
                    f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None
                )
            else:
                self.db = sqlite3.connect(path, isolation_level=None, timeout=30.0)
            self.db.execute("PRAGMA busy_timeout = 30000")
            version = self.db.execute("PRAGMA user_version").fetchone()[0]
            if version == 0 and not read_only:
                self.db.execute("PRAGMA journal_mode = WAL")
                with self.transaction():
                    for statement in _SCHEMA.split(";"):
                        self.db.execute(statement)
                    self._set("deal_key", secrets.token_hex(32))
                    self._set("created", now())
                    self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            elif version != SCHEMA_VERSION:
                raise LadderError(
                    f"{path} is not a season of this ginref (schema version {version})"
                )
            if not read_only:
                self.db.execute("PRAGMA synchronous = FULL")
        except sqlite3.Error as exc:
            self.db.close()
            raise LadderError(f"{path} is damaged or is not a season (SQLite: {exc})") from None

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction, taken at once (``BEGIN IMMEDIATE``): a check and the write
        that depends on it (a quota, one build at a time) cannot interleave with another's."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # --- metadata ------------------------------------------------------------------------------

    def _set(self, key: str, value: Any) -> None:
        self.db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, json.dumps(value)),
        )

    def meta(self, key: str) -> Any:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def set_meta(self, key: str, value: Any) -> None:
        with self.transaction():
            self._set(key, value)

    @property
    def deal_key(self) -> bytes:
        """The key every ladder match's deal is drawn from (never shown to anyone)."""
        return bytes.fromhex(self.meta("deal_key"))

    def next_number(self, key: str) -> int:
        """A counter kept in the metadata (deals, matches): its next value, 1 first."""
        with self.transaction():
            value = int(self.meta(key) or 0) + 1
            self._set(key, value)
        return value

    # --- entrants and versions -----------------------------------------------------------------

    def add_entrant(self, name: str, *, remote: bool = False) -> None:
        try:
            with self.transaction():
                self.db.execute(
                    "INSERT INTO entrants (name, created, remote) VALUES (?, ?, ?)",
                    (name, now(), int(remote)),
                )
                if remote:  # a remote entrant's one version: the bot that connects
                    self.db.execute(
                        f"INSERT INTO versions ({_VERSION_COLUMNS}) "
                        "VALUES (?, 0, ?, ?, 0, '', NULL, NULL, NULL, NULL, NULL, NULL, NULL, ?)",
                        (name, now(), ACCEPTED, now()),
                    )
        except sqlite3.IntegrityError:
            raise LadderError(f"there is already an entrant called {name!r}") from None

    def entrants(self) -> list[tuple[str, bool]]:
        """Each entrant and whether it is remote, in the order they entered."""
        rows = self.db.execute("SELECT name, remote FROM entrants ORDER BY created, rowid")
        return [(name, bool(remote)) for name, remote in rows]

    def queue_version(
        self, entrant: str, size: int, sha256: str, quota: int, day_start: str
    ) -> Version:
        """Add a submission (queued), refusing in the same transaction one that would break a
        rule: the season frozen, another of the entrant's still in the pipeline, or more than
        ``quota`` submissions since ``day_start``. The refusal is a :class:`LadderError`."""
        with self.transaction():
            if self.meta("frozen") is not None:
                raise LadderError("the season is frozen: no more submissions")
            remote = self.db.execute(
                "SELECT remote FROM entrants WHERE name = ?", (entrant,)
            ).fetchone()
            if remote is None:
                raise LadderError(f"no entrant called {entrant!r}")
            if remote[0]:
                raise LadderError(
                    f"{entrant} is a remote entrant: its bot connects, it is not uploaded"
                )
            busy = self.db.execute(
                "SELECT number FROM versions WHERE entrant = ? AND status IN (?, ?, ?)",
                (entrant, *IN_PIPELINE),
            ).fetchone()
            if busy is not None:
                raise LadderError(
                    f"version {busy[0]} of {entrant} is still being built or validated: "
                    "submit again once it is done"
                )
            (today,) = self.db.execute(
                "SELECT COUNT(*) FROM versions WHERE entrant = ? AND submitted >= ?",
                (entrant, day_start),
            ).fetchone()
            if today >= quota:
                raise LadderError(
                    f"{entrant} has used today's {quota} submissions (the day is UTC): "
                    "submit again tomorrow"
                )
            (last,) = self.db.execute(
                "SELECT COALESCE(MAX(number), 0) FROM versions WHERE entrant = ?", (entrant,)
            ).fetchone()
            version = Version(entrant, last + 1, now(), QUEUED, size, sha256)
            self.db.execute(
                f"INSERT INTO versions ({_VERSION_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
                (entrant, version.number, version.submitted, QUEUED, size, sha256),
            )
        return version

    def set_status(self, entrant: str, number: int, status: str, **fields: Any) -> None:
        """Move a version on: ``fields`` among language, command, transport, step, message,
        exit_status, tail (finished is set when it is accepted or failed)."""
        allowed = {"language", "command", "transport", "step", "message", "exit_status", "tail"}
        assert set(fields) <= allowed, fields
        values = {k: json.dumps(list(v)) if k == "command" else v for k, v in fields.items()}
        if status in (ACCEPTED, FAILED):
            values["finished"] = now()
        sets = ", ".join(f"{k} = ?" for k in ["status", *values])
        with self.transaction():
            self.db.execute(
                f"UPDATE versions SET {sets} WHERE entrant = ? AND number = ?",
                (status, *values.values(), entrant, number),
            )

    def versions(self, entrant: str | None = None, status: str | None = None) -> list[Version]:
        """Versions in order of submission, of one entrant and/or in one status."""
        where, args = [], []
        if entrant is not None:
            where.append("entrant = ?")
            args.append(entrant)
        if status is not None:
            where.append("status = ?")
            args.append(status)
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        rows = self.db.execute(
            f"SELECT {_VERSION_COLUMNS} FROM versions {clause} ORDER BY submitted, rowid", args
        )
        return [_version(row) for row in rows]

    def active(self) -> list[Version]:
        """Each entrant's newest accepted version: the pool matchmaking draws from."""
        latest: dict[str, Version] = {}
        for version in self.versions(status=ACCEPTED):
            if version.entrant not in latest or version.number > latest[version.entrant].number:
                latest[version.entrant] = version
        return list(latest.values())

    def requeue_interrupted(self) -> list[Version]:
        """Versions left building or validating by a service that stopped: queued again (the
        pipeline starts them over from their archive)."""
        with self.transaction():
            rows = self.db.execute(
                f"SELECT {_VERSION_COLUMNS} FROM versions WHERE status IN (?, ?)",
                (BUILDING, VALIDATING),
            ).fetchall()
            self.db.execute(
                "UPDATE versions SET status = ? WHERE status IN (?, ?)",
                (QUEUED, BUILDING, VALIDATING),
            )
        return [_version(row) for row in rows]

    # --- ratings -------------------------------------------------------------------------------

    def ratings(self) -> dict[str, StoredRating]:
        rows = self.db.execute("SELECT bot, mu, sigma, games FROM ratings")
        return {bot: StoredRating(bot, mu, sigma, games) for bot, mu, sigma, games in rows}

    def rated(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT match_key FROM rated")}

    def record_ratings(
        self,
        match_key: str,
        new: Sequence[StoredRating],
        results: Mapping[str, tuple[int, int, int]] = {},
        faults: Mapping[str, Mapping[str, int]] = {},
    ) -> bool:
        """Store the ratings after ``match_key``, its history rows, and each bot's wins, draws,
        losses and faults of that match added to its counts (the leaderboard reads them, never
        the whole journal), once: False (nothing written) when that match was counted already."""
        with self.transaction():
            if self.db.execute("SELECT 1 FROM rated WHERE match_key = ?", (match_key,)).fetchone():
                return False
            (n,) = self.db.execute("SELECT COUNT(*) FROM rated").fetchone()
            self.db.execute("INSERT INTO rated (match_key, n) VALUES (?, ?)", (match_key, n + 1))
            at = now()
            for r in new:
                self.db.execute(
                    "INSERT INTO ratings (bot, mu, sigma, games) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (bot) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, "
                    "games = excluded.games",
                    (r.bot, r.mu, r.sigma, r.games),
                )
                self.db.execute(
                    "INSERT INTO history (bot, n, match_key, mu, sigma, at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (r.bot, n + 1, match_key, r.mu, r.sigma, at),
                )
            for bot, (wins, draws, losses) in results.items():
                self.db.execute(
                    "INSERT INTO results (bot, wins, draws, losses) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (bot) DO UPDATE SET wins = wins + excluded.wins, "
                    "draws = draws + excluded.draws, losses = losses + excluded.losses",
                    (bot, wins, draws, losses),
                )
            for bot, kinds in faults.items():
                for kind, count in kinds.items():
                    self.db.execute(
                        "INSERT INTO faults (bot, kind, n) VALUES (?, ?, ?) "
                        "ON CONFLICT (bot, kind) DO UPDATE SET n = n + excluded.n",
                        (bot, kind, count),
                    )
        return True

    def results(self) -> dict[str, tuple[int, int, int]]:
        """Each bot's wins, draws and losses in the matches counted so far."""
        rows = self.db.execute("SELECT bot, wins, draws, losses FROM results")
        return {bot: (wins, draws, losses) for bot, wins, draws, losses in rows}

    def faults(self) -> dict[str, dict[str, int]]:
        """Each bot's faults by kind in the matches counted so far."""
        out: dict[str, dict[str, int]] = {}
        for bot, kind, n in self.db.execute("SELECT bot, kind, n FROM faults"):
            out.setdefault(bot, {})[kind] = n
        return out

    def history(self, bot: str) -> list[tuple[int, float, float, str]]:
        """``bot``'s ratings after each of its rated matches: (n, mu, sigma, at)."""
        rows = self.db.execute(
            "SELECT n, mu, sigma, at FROM history WHERE bot = ? ORDER BY n", (bot,)
        )
        return [(n, mu, sigma, at) for n, mu, sigma, at in rows]


def open_season(directory: Path, *, create: bool = False, read_only: bool = False) -> SeasonStore:
    """The store of the season in ``directory``."""
    return SeasonStore(directory / SEASON_FILE, create=create, read_only=read_only)
