"""The tournament journal: one SQLite file (stdlib :mod:`sqlite3`) that makes a run resumable.

Every finished match is committed in one transaction the moment it ends (its result, hands,
faults, timings, and the path and SHA-256 of its replay log), with ``synchronous = FULL`` in WAL
mode, so a killed runner loses no finished match and a reader (``ginref standings``) can look
while a run goes on. A match is in the journal at most once (its key is the primary key). The
schedule and the tournament's identity are stored at creation; a later run with the same
directory must agree with them (:meth:`Journal.check_identity`). Schema: docs/tournaments.md.
"""

from __future__ import annotations

import datetime as _dt
import functools
import json
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from referee.errors import ConfigError
from tournaments.records import FaultRow, Forfeit, HandRow, MatchRecord
from tournaments.schedule import MatchSpec

P = ParamSpec("P")
R = TypeVar("R")
SCHEMA_VERSION = 1
JOURNAL_FILE = "journal.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL               -- JSON
);
CREATE TABLE IF NOT EXISTS bots (
    name     TEXT PRIMARY KEY,
    position INTEGER NOT NULL,        -- order in the tournament file
    command  TEXT NOT NULL,           -- JSON array (argv)
    cwd      TEXT,
    env      TEXT NOT NULL            -- JSON object
);
CREATE TABLE IF NOT EXISTS schedule (
    key      TEXT PRIMARY KEY,        -- "<x>.<y>.<game>"
    position INTEGER NOT NULL UNIQUE, -- order of play
    round    INTEGER NOT NULL,
    bot_x    TEXT NOT NULL REFERENCES bots(name),
    bot_y    TEXT NOT NULL REFERENCES bots(name),
    game     INTEGER NOT NULL,        -- 1-based within the pairing
    deal     INTEGER NOT NULL,        -- duplicate pairs share it
    seed     INTEGER NOT NULL,
    seat0    TEXT NOT NULL,
    seat1    TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    id         INTEGER PRIMARY KEY,
    started    TEXT NOT NULL,         -- UTC ISO 8601
    finished   TEXT,
    status     TEXT NOT NULL,         -- running, complete, interrupted, failed
    concurrency INTEGER NOT NULL,
    played     INTEGER NOT NULL DEFAULT 0,
    wall_s     REAL,
    cpu_s      REAL,                  -- the runner process, all threads
    main_cpu_s REAL                   -- its event-loop thread
);
CREATE TABLE IF NOT EXISTS matches (
    key          TEXT PRIMARY KEY REFERENCES schedule(key),
    session      INTEGER NOT NULL REFERENCES sessions(id),
    match_id     TEXT NOT NULL,       -- the replay log's match id
    seat0        TEXT NOT NULL,
    seat1        TEXT NOT NULL,
    seed         INTEGER NOT NULL,
    deal         INTEGER NOT NULL,
    termination  TEXT NOT NULL,       -- target, single_hand, hollywood, forfeit
    winner_seat  INTEGER,             -- NULL: nobody won
    winner       TEXT,                -- bot name
    score0       INTEGER NOT NULL,
    score1       INTEGER NOT NULL,
    margin       INTEGER NOT NULL,
    hands_played INTEGER NOT NULL,
    forfeit_seat INTEGER,             -- NULL with a forfeit_kind: both seats forfeited
    forfeit_kind TEXT,                -- NULL: no forfeit
    forfeit_rule TEXT,
    forfeit_reason TEXT,
    decisions0   INTEGER NOT NULL,
    decisions1   INTEGER NOT NULL,
    think_ms0    REAL NOT NULL,       -- total per seat, as the referee timed it
    think_ms1    REAL NOT NULL,
    startup_s    REAL,                -- bot launch to MatchStart (a job's first match)
    elapsed_s    REAL,                -- MatchStart to MatchEnd
    started      TEXT NOT NULL,       -- UTC ISO 8601 (log header)
    committed    TEXT NOT NULL,       -- UTC ISO 8601
    log_path     TEXT NOT NULL,       -- relative to the tournament directory
    log_sha256   TEXT NOT NULL,
    log_bytes    INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS hands (
    match_key TEXT NOT NULL REFERENCES matches(key),
    hand      INTEGER NOT NULL,
    dealer    INTEGER NOT NULL,
    outcome   TEXT NOT NULL,
    winner    INTEGER,
    points    INTEGER NOT NULL,
    knocker   INTEGER,
    PRIMARY KEY (match_key, hand)
);
CREATE TABLE IF NOT EXISTS faults (
    match_key TEXT NOT NULL REFERENCES matches(key),
    n         INTEGER NOT NULL,       -- order within the match
    seat      INTEGER NOT NULL,
    bot       TEXT NOT NULL,
    kind      TEXT NOT NULL,
    rule      TEXT NOT NULL,
    reason    TEXT NOT NULL,
    retry     INTEGER NOT NULL,
    hand      INTEGER,
    PRIMARY KEY (match_key, n)
);
"""


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds")


class JournalError(ConfigError):
    """A journal that cannot be opened, or that belongs to another tournament."""


def _sqlite_errors(method: Callable[P, R]) -> Callable[P, R]:
    """A journal method whose SQLite errors (a file damaged while open, a full disk) become
    one :class:`JournalError` naming the file."""

    @functools.wraps(method)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except sqlite3.Error as exc:
            journal = args[0]
            assert isinstance(journal, Journal)
            raise journal._damaged(exc) from None

    return guarded


_TABLES = ("meta", "bots", "schedule", "sessions", "matches", "hands", "faults")


class Journal:
    """An open journal (one connection, used from one thread)."""

    def __init__(self, path: Path, *, create: bool = True) -> None:
        self.path = path
        if not create and not path.exists():
            raise JournalError(f"no tournament journal at {str(path)!r}")
        self.db = sqlite3.connect(path, isolation_level=None)
        try:
            self._open(create)
        except sqlite3.Error as exc:
            self.db.close()
            raise self._damaged(exc) from None
        except BaseException:
            self.db.close()
            raise

    def _open(self, create: bool) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        tables = {
            row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        if version == 0 and not tables and not create:
            raise JournalError(
                f"{self.path} holds no tournament (the file is empty): run the tournament to "
                "start it, or name the directory of another one"
            )
        if version not in (0, SCHEMA_VERSION):
            raise JournalError(
                f"{self.path} was written by a ginref whose journal has schema version {version}; "
                f"this ginref reads version {SCHEMA_VERSION}: resume the tournament with that "
                "ginref, or choose another --out directory to start one with this one"
            )
        if (version == 0 and tables) or (version == SCHEMA_VERSION and set(_TABLES) - tables):
            raise JournalError(
                f"{self.path} is an SQLite database but not a ginref tournament journal: move it "
                "away, or choose another --out directory"
            )
        # A truncated or overwritten file may open and fail only at a later query: check every
        # page now, so that the error comes once, here, and names the file.
        problem = self.db.execute("PRAGMA quick_check").fetchone()[0]
        if problem != "ok":  # its own words run over several lines: SQLite's usual ones
            raise sqlite3.DatabaseError("database disk image is malformed")
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = FULL")
        self.db.execute("PRAGMA foreign_keys = ON")
        if version == 0 and create:
            with self.transaction():
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self.db.execute(statement)
                self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _damaged(self, exc: sqlite3.Error) -> JournalError:
        """The one error for a journal SQLite cannot read, with what to do about it."""
        return JournalError(
            f"{self.path} is damaged or is not a ginref journal (SQLite: {exc}); the matches "
            f"it held cannot be resumed: move {self.path.parent} away, or choose another --out "
            "directory, to start the tournament over"
        )

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def transaction(self) -> _Transaction:
        """``with journal.transaction(): ...`` commits at the end, rolls back on error."""
        return _Transaction(self.db)

    # --- creation and identity -----------------------------------------------------------------

    @_sqlite_errors
    def meta(self, key: str) -> Any:
        """A metadata value (JSON-decoded), or None."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    @property
    def initialised(self) -> bool:
        """Whether the schedule has been written."""
        return self.meta("identity") is not None

    @_sqlite_errors
    def initialise(
        self,
        identity: dict[str, Any],
        config: dict[str, Any],
        bots: Sequence[dict[str, Any]],
        schedule: Sequence[MatchSpec],
    ) -> None:
        """Write the tournament's identity, bots and schedule (once, when the journal is new)."""
        with self.transaction():
            for key, value in (("identity", identity), ("config", config), ("created", _now())):
                self.db.execute(
                    "INSERT INTO meta (key, value) VALUES (?, ?)", (key, json.dumps(value))
                )
            for position, bot in enumerate(bots):
                self.db.execute(
                    "INSERT INTO bots (name, position, command, cwd, env) VALUES (?, ?, ?, ?, ?)",
                    (
                        bot["name"],
                        position,
                        json.dumps(bot["command"]),
                        bot["cwd"],
                        json.dumps(bot["env"]),
                    ),
                )
            self.db.executemany(
                "INSERT INTO schedule (key, position, round, bot_x, bot_y, game, deal, seed, "
                "seat0, seat1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        s.key,
                        s.position,
                        s.round,
                        s.pairing[0],
                        s.pairing[1],
                        s.game,
                        s.deal,
                        s.seed,
                        s.seats[0],
                        s.seats[1],
                    )
                    for s in schedule
                ],
            )

    @_sqlite_errors
    def check_identity(self, identity: dict[str, Any]) -> None:
        """Raise :class:`JournalError` naming what differs from the stored identity."""
        stored = self.meta("identity") or {}
        fresh = json.loads(json.dumps(identity))
        differ = sorted(k for k in set(stored) | set(fresh) if stored.get(k) != fresh.get(k))
        if differ:
            parts = [f"{k}: {stored.get(k)!r} in the journal, {fresh.get(k)!r} now" for k in differ]
            raise JournalError(
                f"{self.path} belongs to a different tournament ({'; '.join(parts)}); "
                "run it with its own settings to resume it, or choose another --out directory"
            )

    @_sqlite_errors
    def schedule(self) -> list[MatchSpec]:
        """The stored schedule, in order of play."""
        rows = self.db.execute(
            "SELECT key, position, round, bot_x, bot_y, game, deal, seed, seat0, seat1 "
            "FROM schedule ORDER BY position"
        ).fetchall()
        return [
            MatchSpec(k, p, r, (x, y), g, d, s, (s0, s1)) for k, p, r, x, y, g, d, s, s0, s1 in rows
        ]

    @_sqlite_errors
    def bot_names(self) -> list[str]:
        """The bots, in the order of the tournament file."""
        return [r[0] for r in self.db.execute("SELECT name FROM bots ORDER BY position")]

    # --- sessions ------------------------------------------------------------------------------

    @_sqlite_errors
    def start_session(self, concurrency: int) -> int:
        """Record the start of a run; its id."""
        with self.transaction():
            cur = self.db.execute(
                "INSERT INTO sessions (started, status, concurrency) VALUES (?, 'running', ?)",
                (_now(), concurrency),
            )
        assert cur.lastrowid is not None
        return cur.lastrowid

    @_sqlite_errors
    def end_session(
        self, session: int, status: str, played: int, wall: float, cpu: float, main_cpu: float
    ) -> None:
        """Record how a run ended."""
        with self.transaction():
            self.db.execute(
                "UPDATE sessions SET finished = ?, status = ?, played = ?, wall_s = ?, cpu_s = ?, "
                "main_cpu_s = ? WHERE id = ?",
                (_now(), status, played, wall, cpu, main_cpu, session),
            )

    @_sqlite_errors
    def sessions(self) -> list[dict[str, Any]]:
        """Every run, oldest first."""
        cur = self.db.execute("SELECT * FROM sessions ORDER BY id")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]

    # --- matches -------------------------------------------------------------------------------

    @_sqlite_errors
    def finished_keys(self) -> set[str]:
        """The keys of the matches in the journal."""
        return {r[0] for r in self.db.execute("SELECT key FROM matches")}

    @_sqlite_errors
    def log_paths(self) -> set[str]:
        """The replay logs the journal refers to (relative paths)."""
        return {r[0] for r in self.db.execute("SELECT log_path FROM matches")}

    @_sqlite_errors
    def commit_match(self, record: MatchRecord, session: int) -> None:
        """Store a finished match, its hands and faults, in one transaction."""
        forfeit = record.forfeit
        with self.transaction():
            self.db.execute(
                "INSERT INTO matches (key, session, match_id, seat0, seat1, seed, deal, "
                "termination, winner_seat, winner, score0, score1, margin, hands_played, "
                "forfeit_seat, forfeit_kind, forfeit_rule, forfeit_reason, decisions0, "
                "decisions1, think_ms0, think_ms1, startup_s, elapsed_s, started, committed, "
                "log_path, log_sha256, log_bytes) VALUES "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                "?, ?)",
                (
                    record.key,
                    session,
                    record.match_id,
                    record.seats[0],
                    record.seats[1],
                    record.seed,
                    record.deal,
                    record.termination,
                    record.winner,
                    record.winner_bot,
                    record.final[0],
                    record.final[1],
                    record.margin,
                    record.hands_played,
                    None if forfeit is None else forfeit.seat,
                    None if forfeit is None else forfeit.kind,
                    None if forfeit is None else forfeit.rule,
                    None if forfeit is None else forfeit.reason,
                    record.decisions[0],
                    record.decisions[1],
                    record.think_ms[0],
                    record.think_ms[1],
                    record.startup_s,
                    record.elapsed_s,
                    record.started,
                    _now(),
                    record.log_path,
                    record.log_sha256,
                    record.log_bytes,
                ),
            )
            self.db.executemany(
                "INSERT INTO hands (match_key, hand, dealer, outcome, winner, points, knocker) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (record.key, h.hand, h.dealer, h.outcome, h.winner, h.points, h.knocker)
                    for h in record.hands
                ],
            )
            self.db.executemany(
                "INSERT INTO faults (match_key, n, seat, bot, kind, rule, reason, retry, hand) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        record.key,
                        n,
                        f.seat,
                        record.seats[f.seat],
                        f.kind,
                        f.rule,
                        f.reason,
                        int(f.retry),
                        f.hand,
                    )
                    for n, f in enumerate(record.faults)
                ],
            )

    @_sqlite_errors
    def records(self) -> list[MatchRecord]:
        """Every finished match, in order of play."""
        hands: dict[str, list[HandRow]] = {}
        for key, *row in self.db.execute(
            "SELECT match_key, hand, dealer, outcome, winner, points, knocker FROM hands "
            "ORDER BY match_key, hand"
        ):
            hands.setdefault(key, []).append(HandRow(*row))
        faults: dict[str, list[FaultRow]] = {}
        for key, seat, kind, rule, reason, retry, hand in self.db.execute(
            "SELECT match_key, seat, kind, rule, reason, retry, hand FROM faults "
            "ORDER BY match_key, n"
        ):
            faults.setdefault(key, []).append(FaultRow(seat, kind, rule, reason, bool(retry), hand))
        out: list[MatchRecord] = []
        for row in self.db.execute(
            "SELECT m.key, m.seat0, m.seat1, m.seed, m.deal, m.match_id, m.termination, "
            "m.winner_seat, m.score0, m.score1, m.margin, m.hands_played, m.forfeit_seat, "
            "m.forfeit_kind, m.forfeit_rule, m.forfeit_reason, m.decisions0, m.decisions1, "
            "m.think_ms0, m.think_ms1, m.log_path, m.log_sha256, m.log_bytes, m.started, "
            "m.elapsed_s, m.startup_s FROM matches m JOIN schedule s ON s.key = m.key "
            "ORDER BY s.position"
        ):
            (key, s0, s1, seed, deal, match_id, term, winner, f0, f1, margin, played) = row[:12]
            fseat, fkind, frule, freason = row[12:16]
            d0, d1, t0, t1, log_path, sha, size, started, elapsed, startup = row[16:]
            out.append(
                MatchRecord(
                    key=key,
                    seats=(s0, s1),
                    seed=seed,
                    deal=deal,
                    match_id=match_id,
                    termination=term,
                    winner=winner,
                    final=(f0, f1),
                    margin=margin,
                    hands_played=played,
                    forfeit=None
                    if fkind is None
                    else Forfeit(fseat, fkind, frule or "", freason or ""),
                    hands=tuple(hands.get(key, ())),
                    faults=tuple(faults.get(key, ())),
                    decisions=(d0, d1),
                    think_ms=(t0, t1),
                    log_path=log_path,
                    log_sha256=sha,
                    log_bytes=size,
                    started=started,
                    elapsed_s=elapsed,
                    startup_s=startup,
                )
            )
        return out


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, value: object, tb: object) -> None:
        if kind is None:
            self.db.execute("COMMIT")
        else:
            self.db.execute("ROLLBACK")


def open_journal(directory: Path, *, create: bool = True) -> Journal:
    """The journal of the tournament in ``directory``."""
    return Journal(directory / JOURNAL_FILE, create=create)
