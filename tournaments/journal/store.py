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
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from referee.errors import ConfigError
from tournaments.journal.identity import differences
from tournaments.journal.records import FaultRow, HandRow, MatchRecord
from tournaments.journal.rows import (
    ADDED,
    ADDED_NAMES,
    MATCH_COLUMNS,
    SCHEMA,
    TABLES,
    TEAMS,
    WITHDRAWALS,
    match_row,
    record_of,
    schedule_row,
)
from tournaments.journal.withdrawals import DISQUALIFIED, KINDS, Withdrawal
from tournaments.schedule import MatchSpec

P = ParamSpec("P")
R = TypeVar("R")
SCHEMA_VERSION = 2  # 2: three players and partnerships (version 1 journals are upgraded)
WITHDRAWALS_VERSION = 3  # a version 2 journal with a bot withdrawn (Journal.withdraw)
JOURNAL_FILE = "journal.sqlite"


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds")


class JournalError(ConfigError):
    """A journal that cannot be opened, or that belongs to another tournament."""


class EmptyJournalError(JournalError):
    """A journal file with nothing in it yet (a run creating it may be about to fill it)."""


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


class Journal:
    """An open journal (one connection, used from one thread).

    ``read_only``: a connection that SQLite refuses to write with (a spectator's), opened
    without creating or upgrading anything.
    """

    def __init__(self, path: Path, *, create: bool = True, read_only: bool = False) -> None:
        self.path = path
        self.read_only = read_only
        create = create and not read_only
        if not create and not path.exists():
            raise JournalError(f"no tournament journal at {str(path)!r}")
        if read_only:
            uri = f"{path.resolve().as_uri()}?mode=ro"
            self.db = sqlite3.connect(uri, uri=True, isolation_level=None)
        else:
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
        # A run creates its journal in two transactions (the tables, then their version): a
        # reader that comes between sees ginref's tables at version 0, a journal not ready yet.
        being_made = version == 0 and tables <= set(TABLES) and self.read_only
        if (version == 0 and not tables and not create) or being_made:
            raise EmptyJournalError(
                f"{self.path} holds no tournament (the file is empty): run the tournament to "
                "start it, or name the directory of another one"
            )
        if version not in (0, 1, SCHEMA_VERSION, WITHDRAWALS_VERSION):
            raise JournalError(
                f"{self.path} was written by a ginref whose journal has schema version {version}; "
                f"this ginref reads versions 1 to {WITHDRAWALS_VERSION}: resume the tournament "
                "with that ginref, or choose another --out directory to start one with this one"
            )
        if (version == 0 and tables) or (version and set(TABLES) - tables - {"teams"}):
            raise JournalError(
                f"{self.path} is an SQLite database but not a ginref tournament journal: move it "
                "away, or choose another --out directory"
            )
        # A truncated or overwritten file may open and fail only at a later query: check every
        # page now, so that the error comes once, here, and names the file.
        problem = self.db.execute("PRAGMA quick_check").fetchone()[0]
        if problem != "ok":  # its own words run over several lines: SQLite's usual ones
            raise sqlite3.DatabaseError("database disk image is malformed")
        if not self.read_only:
            self.db.execute("PRAGMA journal_mode = WAL")
            self.db.execute("PRAGMA synchronous = FULL")
        self.db.execute("PRAGMA foreign_keys = ON")
        self.version = version
        if version == 0 and create:
            with self.transaction():
                for statement in SCHEMA.split(";"):
                    if statement.strip():
                        self.db.execute(statement)
            self.upgrade()
        self._read_columns()

    def _read_columns(self) -> None:
        # A reader of a version 1 journal (never written to) reads the added columns as NULL.
        self._columns = {
            table: {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}
            for table in ADDED
        }

    @_sqlite_errors
    def upgrade(self) -> None:
        """Bring a version 1 journal to version 2 (the teams table and the added columns);
        a run calls it once the tournament is known to be the journal's, before it writes."""
        if self.version >= SCHEMA_VERSION:
            return
        with self.transaction():
            self.db.execute(TEAMS)
            for table, columns in ADDED.items():
                for column in columns:
                    self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        self.version = SCHEMA_VERSION
        self._read_columns()

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
        teams: Sequence[dict[str, Any]] = (),
    ) -> None:
        """Write the tournament's identity, bots, teams and schedule (once, when it is new)."""
        with self.transaction():
            for key, value in (("identity", identity), ("config", config), ("created", _now())):
                self.db.execute(
                    "INSERT INTO meta (key, value) VALUES (?, ?)", (key, json.dumps(value))
                )
            for position, bot in enumerate(bots):
                self._insert_bot(position, bot)
            for position, team in enumerate(teams):
                self.db.execute(
                    "INSERT INTO teams (name, position, bot_a, bot_b) VALUES (?, ?, ?, ?)",
                    (team["name"], position, *team["bots"]),
                )
            for spec in schedule:
                self._insert("schedule", schedule_row(spec))

    @_sqlite_errors
    def reschedule(
        self,
        identity: dict[str, Any],
        config: dict[str, Any],
        keep: int,
        added: Sequence[MatchSpec] = (),
    ) -> None:
        """A new identity and config for a run that grows or shrinks (a sequential test's
        ``--max-matches``): the schedule's first ``keep`` matches stay, later ones go, and
        ``added`` follow them; all in one transaction."""
        with self.transaction():
            for key, value in (("identity", identity), ("config", config)):
                self.db.execute("UPDATE meta SET value = ? WHERE key = ?", (json.dumps(value), key))
            self.db.execute("DELETE FROM schedule WHERE position >= ?", (keep,))
            for spec in added:
                self._insert("schedule", schedule_row(spec))

    @_sqlite_errors
    def extend(self, bots: Sequence[dict[str, Any]], added: Sequence[MatchSpec]) -> None:
        """A schedule that grows as it is played (a ladder's): new bots and new matches, after
        those already there, in one transaction."""
        with self.transaction():
            (position,) = self.db.execute("SELECT COUNT(*) FROM bots").fetchone()
            for n, bot in enumerate(bots):
                self._insert_bot(position + n, bot)
            for spec in added:
                self._insert("schedule", schedule_row(spec))

    def _insert_bot(self, position: int, bot: dict[str, Any]) -> None:
        self.db.execute(
            "INSERT INTO bots (name, position, command, cwd, env) VALUES (?, ?, ?, ?, ?)",
            (
                bot["name"],
                position,
                # A remote bot (ginref serve) has no command: an empty one.
                json.dumps(bot.get("command", [])),
                bot.get("cwd"),
                json.dumps(bot.get("env", {})),
            ),
        )

    def _insert(self, table: str, row: dict[str, Any]) -> None:
        names = ", ".join(row)
        marks = ", ".join("?" * len(row))
        self.db.execute(f"INSERT INTO {table} ({names}) VALUES ({marks})", tuple(row.values()))

    def _select(self, table: str, columns: Sequence[str], rest: str) -> list[dict[str, Any]]:
        """Rows of ``table`` as dicts; a column a version 1 journal lacks reads as NULL."""
        known = self._columns.get(table)
        parts = [
            c if known is None or c in known or c not in ADDED_NAMES else f"NULL AS {c}"
            for c in columns
        ]
        cur = self.db.execute(f"SELECT {', '.join(parts)} FROM {table} {rest}")
        return [dict(zip(columns, row, strict=True)) for row in cur.fetchall()]

    @_sqlite_errors
    def check_identity(self, identity: dict[str, Any]) -> None:
        """Raise :class:`JournalError` naming in words what differs from the stored identity."""
        stored = self.meta("identity") or {}
        fresh = json.loads(json.dumps(identity))
        withdrawn = {w.bot for w in self.withdrawals()}
        differ = differences(stored, fresh, withdrawn)
        if differ:
            raise JournalError(
                f"{self.path} belongs to a different tournament: {'; '.join(differ)}. Run it "
                "with its own settings to resume it, or choose another --out directory"
            )

    @_sqlite_errors
    def schedule(self) -> list[MatchSpec]:
        """The stored schedule, in order of play."""
        columns = ("key", "position", "round", "bot_x", "bot_y", "game", "deal", "seed")
        seats = ("seat0", "seat1", "seat2", "seat3")
        rows = self._select(
            "schedule", (*columns, *seats, "entrants", "side0", "side1"), "ORDER BY position"
        )
        out = []
        for row in rows:
            group = json.loads(row["entrants"]) if row["entrants"] else (row["bot_x"], row["bot_y"])
            sides = (row["side0"], row["side1"]) if row["side0"] else None
            out.append(
                MatchSpec(
                    row["key"],
                    row["position"],
                    row["round"],
                    tuple(group),
                    row["game"],
                    row["deal"],
                    row["seed"],
                    tuple(row[c] for c in seats if row[c] is not None),
                    sides,
                )
            )
        return out

    @_sqlite_errors
    def team_names(self) -> list[str]:
        """The teams of a partnership tournament, in the order of the file (none otherwise)."""
        if "teams" not in self._tables():
            return []
        return [r[0] for r in self.db.execute("SELECT name FROM teams ORDER BY position")]

    def _tables(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}

    @_sqlite_errors
    def bot_names(self) -> list[str]:
        """The bots, in the order of the tournament file."""
        return [r[0] for r in self.db.execute("SELECT name FROM bots ORDER BY position")]

    @_sqlite_errors
    def withdrawals(self) -> list[Withdrawal]:
        """The bots the organiser took out of play, in the order they were taken out."""
        if "withdrawals" not in self._tables():
            return []
        rows = self.db.execute("SELECT bot, kind, at FROM withdrawals ORDER BY at, rowid")
        return [Withdrawal(bot, kind, at) for bot, kind, at in rows]

    @_sqlite_errors
    def withdraw(self, bot: str, kind: str) -> Withdrawal:
        """Take ``bot`` out of play (``kind``: withdrawn or disqualified), for every run from
        now on; a withdrawn bot may still be disqualified, not the other way round."""
        if kind not in KINDS:
            raise ValueError(f"a withdrawal is one of {', '.join(KINDS)}, not {kind!r}")
        if bot not in self.bot_names():
            raise JournalError(
                f"{bot!r} is not a bot of the tournament in {self.path.parent} (its bots: "
                f"{', '.join(self.bot_names())})"
            )
        before = next((w for w in self.withdrawals() if w.bot == bot), None)
        if before is not None and (before.kind == kind or before.kind == DISQUALIFIED):
            raise JournalError(f"{bot} was already {before.kind} ({before.at})")
        withdrawal = Withdrawal(bot, kind, _now())
        self.upgrade()  # version 3 has version 2's columns
        with self.transaction():
            self.db.execute(WITHDRAWALS)
            self.db.execute(
                "INSERT OR REPLACE INTO withdrawals (bot, kind, at) VALUES (?, ?, ?)",
                (bot, kind, withdrawal.at),
            )
            self.db.execute(f"PRAGMA user_version = {WITHDRAWALS_VERSION}")
        self.version = WITHDRAWALS_VERSION
        return withdrawal

    @_sqlite_errors
    def data_version(self) -> int:
        """A number that changes when another connection commits (``PRAGMA data_version``): a
        reader polls it to know when there is something new to read."""
        version: int = self.db.execute("PRAGMA data_version").fetchone()[0]
        return version

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
    def log_paths(self, keys: Collection[str] | None = None) -> set[str]:
        """The replay logs the journal refers to (relative paths): of every match, or of the
        matches ``keys`` (those that are in the journal)."""
        if keys is None:
            return {r[0] for r in self.db.execute("SELECT log_path FROM matches")}
        marks = ", ".join("?" * len(keys))
        rows = self.db.execute(f"SELECT log_path FROM matches WHERE key IN ({marks})", list(keys))
        return {r[0] for r in rows}

    @_sqlite_errors
    def commit_match(self, record: MatchRecord, session: int) -> None:
        """Store a finished match, its hands and faults, in one transaction."""
        with self.transaction():
            self._insert("matches", match_row(record, session, _now()))
            many = record.players > 2
            for h in record.hands:
                row = {
                    "match_key": record.key,
                    "hand": h.hand,
                    "dealer": h.dealer,
                    "outcome": h.outcome,
                    "winner": h.winner,
                    "points": h.points,
                    "knocker": h.knocker,
                    "seats": json.dumps(list(h.seats)) if many else None,
                    "table_number": h.table if record.sides else None,
                }
                self._insert("hands", row)
            for n, f in enumerate(record.faults):
                row = {
                    "match_key": record.key,
                    "n": n,
                    "seat": f.seat,
                    "bot": record.seats[f.seat],
                    "kind": f.kind,
                    "rule": f.rule,
                    "reason": f.reason,
                    "retry": int(f.retry),
                    "hand": f.hand,
                }
                self._insert("faults", row)

    @_sqlite_errors
    def records(self) -> list[MatchRecord]:
        """Every finished match, in order of play."""
        hands: dict[str, list[HandRow]] = {}
        columns = ("match_key", "hand", "dealer", "outcome", "winner", "points", "knocker")
        for h in self._select(
            "hands", (*columns, "seats", "table_number"), "ORDER BY match_key, hand"
        ):
            seats = tuple(json.loads(h["seats"])) if h["seats"] else (0, 1)
            row = HandRow(
                h["hand"],
                h["dealer"],
                h["outcome"],
                h["winner"],
                h["points"],
                h["knocker"],
                (seats[0], seats[1]),
                h["table_number"] or 0,
            )
            hands.setdefault(h["match_key"], []).append(row)
        faults: dict[str, list[FaultRow]] = {}
        for key, seat, kind, rule, reason, retry, hand in self.db.execute(
            "SELECT match_key, seat, kind, rule, reason, retry, hand FROM faults "
            "ORDER BY match_key, n"
        ):
            faults.setdefault(key, []).append(FaultRow(seat, kind, rule, reason, bool(retry), hand))
        keys = [r[0] for r in self.db.execute(
            "SELECT m.key FROM matches m JOIN schedule s ON s.key = m.key ORDER BY s.position"
        )]  # fmt: skip
        rows = {row["key"]: row for row in self._select("matches", MATCH_COLUMNS, "")}
        return [
            record_of(rows[key], tuple(hands.get(key, ())), tuple(faults.get(key, ())))
            for key in keys
        ]


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


def open_journal(directory: Path, *, create: bool = True, read_only: bool = False) -> Journal:
    """The journal of the tournament in ``directory`` (``read_only``: see :class:`Journal`)."""
    return Journal(directory / JOURNAL_FILE, create=create, read_only=read_only)


def out_of_play(directory: Path) -> set[str]:
    """The bots withdrawn or disqualified from the tournament in ``directory`` (none when it has
    no journal yet), read without writing anything."""
    if not (directory / JOURNAL_FILE).exists():
        return set()
    try:
        journal = open_journal(directory, create=False, read_only=True)
    except EmptyJournalError:
        return set()
    try:
        return {w.bot for w in journal.withdrawals()}
    finally:
        journal.close()
