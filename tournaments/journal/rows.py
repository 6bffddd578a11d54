"""The journal's tables (schema version 2) and how a match record becomes a row and back.

Version 1 had two seats a match; version 2 adds the ``teams`` table and, for three players and
partnerships, the columns of :data:`ADDED` (NULL for two players), so a version 1 journal is
upgraded in place by adding them (:mod:`tournaments.journal.store`). Version 3 adds the
``withdrawals`` table, when a bot is first withdrawn. docs/tournaments.md has the tables.
"""

from __future__ import annotations

import json
from typing import Any

from tournaments.journal.records import FaultRow, Forfeit, HandRow, MatchRecord
from tournaments.schedule import MatchSpec

SCHEMA = """
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
    key      TEXT PRIMARY KEY,        -- "<x>.<y>.<game>" ("<x>.<y>.<z>.<game>": a triple)
    position INTEGER NOT NULL UNIQUE, -- order of play
    round    INTEGER NOT NULL,
    bot_x    TEXT NOT NULL REFERENCES bots(name),  -- 3 or 4 players: seat0's
    bot_y    TEXT NOT NULL REFERENCES bots(name),  -- 3 or 4 players: seat1's
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
    winner_seat  INTEGER,             -- NULL: nobody won (partnerships: the team)
    winner       TEXT,                -- bot name (partnerships: team name)
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
# Version 2: the teams of partnerships, and columns for three players and partnerships (NULL
# for two players). A version 1 journal gets them when a run opens it.
TEAMS = """
CREATE TABLE IF NOT EXISTS teams (
    name     TEXT PRIMARY KEY,
    position INTEGER NOT NULL,        -- order in the tournament file
    bot_a    TEXT NOT NULL REFERENCES bots(name),  -- seat 0 or 1
    bot_b    TEXT NOT NULL REFERENCES bots(name)   -- seat 2 or 3
)
"""
ADDED = {
    "schedule": (
        "entrants TEXT",  # JSON: the triple of bots, or the two teams, in the file's order
        "seat2 TEXT REFERENCES bots(name)",
        "seat3 TEXT REFERENCES bots(name)",
        "side0 TEXT REFERENCES teams(name)",  # partnerships: the team of seats 0 and 2
        "side1 TEXT REFERENCES teams(name)",  # and of seats 1 and 3
    ),
    "matches": (
        "seat2 TEXT",
        "seat3 TEXT",
        "side0 TEXT",  # partnerships: winner_seat, winner, score0/1 are by team
        "side1 TEXT",
        "score2 INTEGER",
        "decisions2 INTEGER",
        "decisions3 INTEGER",
        "think_ms2 REAL",
        "think_ms3 REAL",
        "placings TEXT",  # JSON: each seat's place, 1 the best (every match from version 2)
        "forfeit_seats TEXT",  # JSON: every seat that forfeited (3 or 4 players)
    ),
    "hands": (
        "seats TEXT",  # JSON: the match seats at hand seats 0 and 1 (3 or 4 players)
        "table_number INTEGER",  # partnerships: 0 or 1
    ),
}


# Version 3: the organiser's withdrawals (tournaments.journal.withdrawals). A journal becomes
# version 3 only when a bot is first withdrawn, so that an older ginref, which would start its
# matches again, refuses it, and reads every other journal as before.
WITHDRAWALS = """
CREATE TABLE IF NOT EXISTS withdrawals (
    bot   TEXT PRIMARY KEY REFERENCES bots(name),
    kind  TEXT NOT NULL,             -- withdrawn (its matches left forfeit), disqualified (struck)
    at    TEXT NOT NULL              -- UTC ISO 8601
)
"""


TABLES = ("meta", "bots", "teams", "schedule", "sessions", "matches", "hands", "faults")


ADDED_NAMES = {column.split()[0] for columns in ADDED.values() for column in columns}
MATCH_COLUMNS = (
    "key", "match_id", "seed", "deal", "termination", "winner_seat", "margin", "hands_played",
    "forfeit_seat", "forfeit_kind", "forfeit_rule", "forfeit_reason", "log_path", "log_sha256",
    "log_bytes", "started", "elapsed_s", "startup_s", "placings", "forfeit_seats", "side0",
    "side1", *(f"seat{i}" for i in range(4)), *(f"score{i}" for i in range(3)),
    *(f"decisions{i}" for i in range(4)), *(f"think_ms{i}" for i in range(4)),
)  # fmt: skip


def schedule_row(spec: MatchSpec) -> dict[str, Any]:
    """A scheduled match as its row: two players fill the first columns, and three or four
    players the columns of version 2 too (``bot_x`` and ``bot_y`` are then seats 0 and 1)."""
    many = spec.players > 2
    x, y = (spec.seats[0], spec.seats[1]) if many else spec.pairing
    return {
        "key": spec.key,
        "position": spec.position,
        "round": spec.round,
        "bot_x": x,
        "bot_y": y,
        "game": spec.game,
        "deal": spec.deal,
        "seed": spec.seed,
        **{f"seat{i}": bot for i, bot in enumerate(spec.seats)},
        "entrants": json.dumps(list(spec.pairing)) if many else None,
        "side0": spec.sides[0] if spec.sides else None,
        "side1": spec.sides[1] if spec.sides else None,
    }


def match_row(record: MatchRecord, session: int, committed: str) -> dict[str, Any]:
    """A finished match as its row (columns by seat for every seat it had)."""
    forfeit = record.forfeit
    many = record.players > 2
    return {
        "key": record.key,
        "session": session,
        "match_id": record.match_id,
        **{f"seat{i}": bot for i, bot in enumerate(record.seats)},
        "seed": record.seed,
        "deal": record.deal,
        "termination": record.termination,
        "winner_seat": record.winner,
        "winner": record.winner_bot,
        **{f"score{i}": score for i, score in enumerate(record.final)},
        "margin": record.margin,
        "hands_played": record.hands_played,
        "forfeit_seat": None if forfeit is None else forfeit.seat,
        "forfeit_kind": None if forfeit is None else forfeit.kind,
        "forfeit_rule": None if forfeit is None else forfeit.rule,
        "forfeit_reason": None if forfeit is None else forfeit.reason,
        "forfeit_seats": json.dumps(list(forfeit.seats)) if forfeit and many else None,
        **{f"decisions{i}": n for i, n in enumerate(record.decisions)},
        **{f"think_ms{i}": ms for i, ms in enumerate(record.think_ms)},
        "startup_s": record.startup_s,
        "elapsed_s": record.elapsed_s,
        "started": record.started,
        "committed": committed,
        "log_path": record.log_path,
        "log_sha256": record.log_sha256,
        "log_bytes": record.log_bytes,
        "placings": json.dumps(list(record.placings)) if record.placings else None,
        "side0": record.sides[0] if record.sides else None,
        "side1": record.sides[1] if record.sides else None,
    }


def record_of(
    row: dict[str, Any], hands: tuple[HandRow, ...], faults: tuple[FaultRow, ...]
) -> MatchRecord:
    """A ``matches`` row back as the record it was made from."""
    seats = tuple(row[f"seat{i}"] for i in range(4) if row[f"seat{i}"] is not None)
    sides = (row["side0"], row["side1"]) if row["side0"] else None
    sides_n = 2 if sides else len(seats)
    forfeit = None
    if row["forfeit_kind"] is not None:
        forfeit = Forfeit(
            row["forfeit_seat"],
            row["forfeit_kind"],
            row["forfeit_rule"] or "",
            row["forfeit_reason"] or "",
            tuple(json.loads(row["forfeit_seats"])) if row["forfeit_seats"] else (),
        )
    return MatchRecord(
        key=row["key"],
        seats=seats,
        seed=row["seed"],
        deal=row["deal"],
        match_id=row["match_id"],
        termination=row["termination"],
        winner=row["winner_seat"],
        final=tuple(row[f"score{i}"] for i in range(sides_n)),
        margin=row["margin"],
        hands_played=row["hands_played"],
        forfeit=forfeit,
        hands=hands,
        faults=faults,
        decisions=tuple(row[f"decisions{i}"] for i in range(len(seats))),
        think_ms=tuple(row[f"think_ms{i}"] for i in range(len(seats))),
        log_path=row["log_path"],
        log_sha256=row["log_sha256"],
        log_bytes=row["log_bytes"],
        started=row["started"],
        elapsed_s=row["elapsed_s"],
        startup_s=row["startup_s"],
        placings=tuple(json.loads(row["placings"])) if row["placings"] else (),
        sides=sides,
    )
