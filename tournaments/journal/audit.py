"""``ginref verify DIR`` for a tournament: the journal against its replay logs, and back.

The journal holds what the referee saw of each match, and the SHA-256 of each log as the
referee wrote it (:mod:`tournaments.journal.records`). :func:`audit_tournament` checks, for every
row: that its log is there, unchanged since the referee wrote it (size and hash), and says what the
row says (the one walk of a log of any number of players, :func:`referee.timeline.load_replay`:
ids, seats, seed, result, hands, faults, decisions, places); that the seed is the schedule's;
and that every finished log in the tournament's directory is one the journal holds. Each log's
own re-adjudication, the deal's commitment included, is :mod:`replays.verify`'s. Problems are
sentences naming the match.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from referee.errors import GinRefError
from referee.text import safe_text
from referee.timeline import Timeline, load_replay
from tournaments.journal.records import FaultRow, Forfeit, MatchRecord, hand_row
from tournaments.journal.store import JOURNAL_FILE, open_journal

# The fields of a journal row that its log also records.
COMPARED = (
    "match_id",
    "seats",
    "seed",
    "started",
    "termination",
    "winner",
    "final",
    "margin",
    "hands_played",
    "forfeit",
    "hands",
    "faults",
    "decisions",
    "think_ms",
    "placings",
)


def said_by(timeline: Timeline) -> dict[str, Any]:
    """The fields of a journal row as a complete log gives them, through the engine's walk."""
    header = timeline.header
    end = timeline.steps[-1]
    result = end.after.result
    if result is None or end.kind != "match_result":
        raise GinRefError("the log ends before its match result")
    forfeit = end.record["forfeit"]
    decisions = [s.record for s in timeline.steps if s.kind == "decision"]
    seats = tuple(b["label"] for b in sorted(header["bots"], key=lambda b: b["seat"]))
    many = len(seats) > 2
    return {
        "match_id": header["match_id"],
        "seats": seats,
        "seed": header["seed"],
        "started": header["created"],
        "termination": result.termination.value,
        "winner": result.winner,
        "final": tuple(result.final),
        "margin": result.margin,
        "hands_played": len(timeline.hands()),
        "forfeit": None
        if forfeit is None
        else Forfeit(
            forfeit["seat"],
            forfeit["kind"],
            forfeit["rule"],
            forfeit["reason"],
            tuple(forfeit.get("seats", ())) if many else (),
        ),
        "hands": tuple(
            hand_row(r) for r in (s.result for s in timeline.steps if s.result is not None)
        ),
        "faults": tuple(
            FaultRow(f["seat"], f["kind"], f["rule"], f["reason"], f["retry"], f["hand"])
            for f in (s.record for s in timeline.steps if s.kind == "fault")
        ),
        "decisions": tuple(sum(1 for d in decisions if d["seat"] == k) for k in range(len(seats))),
        "think_ms": tuple(
            round(sum(d["think_ms"] for d in decisions if d["seat"] == k), 3)
            for k in range(len(seats))
        ),
        "placings": result.placings(len(seats)),
    }


def is_tournament(directory: Path) -> bool:
    """Whether ``directory`` holds a tournament's journal."""
    return (directory / JOURNAL_FILE).is_file()


def audit_tournament(directory: Path) -> list[str]:
    """Every difference between the tournament's journal and its logs (empty: they agree)."""
    # Imported here: the runner (its executors, the referee's series and server) would cost
    # ginref verify its start-up time for the name of a folder.
    from tournaments.runner import LOGS

    journal = open_journal(directory, create=False)
    try:
        records = journal.records()
        seeds = {spec.key: spec.seed for spec in journal.schedule()}
    finally:
        journal.close()
    problems: list[str] = []
    known: set[Path] = set()
    for record in records:
        log = (directory / record.log_path).resolve()
        known.add(log)
        problems.extend(_audit_record(record, log, seeds.get(record.key)))
    logs = directory / LOGS
    for path in sorted(logs.rglob("*.jsonl")) if logs.is_dir() else []:
        if path.resolve() in known:
            continue
        try:
            finished = load_replay(path).complete
        except GinRefError:
            finished = False
        if finished:
            problems.append(f"{path}: a finished match that the journal does not hold")
    return problems


def _audit_record(record: MatchRecord, log: Path, seed: int | None) -> list[str]:
    where = f"match {record.key} ({log})"
    if seed is None:
        return [f"{where}: not in the tournament's schedule"]
    if record.seed != seed:
        return [f"{where}: the journal's seed {record.seed} is not the schedule's {seed}"]
    try:
        data = log.read_bytes()
    except OSError as exc:
        return [f"{where}: the log cannot be read ({exc.strerror or exc})"]
    if len(data) != record.log_bytes or hashlib.sha256(data).hexdigest() != record.log_sha256:
        return [
            f"{where}: the log is not the one the referee wrote (its size or SHA-256 differs "
            "from the journal's): it was changed after the match"
        ]
    try:
        said = said_by(load_replay(log))
    except GinRefError as exc:
        return [f"{where}: {exc}"]
    for key in COMPARED:
        mine = getattr(record, key)
        if key == "placings" and not mine:
            continue  # a match journaled by a ginref whose journal had no placings (version 1)
        if mine != said[key]:
            return [f"{where}: {key}: the journal says {mine!r}, the log {said[key]!r}"]
    return []


def audit_report(directory: Path) -> tuple[list[str], int]:
    """The lines ``ginref verify DIR`` prints for a tournament's journal, and how many
    differences they name."""
    try:
        problems = audit_tournament(directory)
    except GinRefError as exc:
        problems = [f"{directory}: the journal cannot be read: {exc}"]
    lines = [f"DIFFERS  {safe_text(problem, None)}" for problem in problems]
    verdict = "agrees with" if not problems else f"differs in {len(problems)} places from"
    lines.append(f"{directory}: the journal {verdict} the logs")
    return lines, len(problems)
