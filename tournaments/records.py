"""What the journal keeps of a finished match, read from its replay log.

The replay log is the record of truth: the journal's row is derived from it (and carries its
SHA-256), whichever executor played the match. A log counts as finished once its
``match_result`` line is written; the runner writes that line before it tells the bots the match
is over, so a match can be committed at that moment.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.errors import ReplayLogError
from tournaments.schedule import MatchSpec


@dataclass(frozen=True, slots=True)
class HandRow:
    """One finished hand: how it ended and who scored."""

    hand: int  # 1-based
    dealer: int
    outcome: str  # knock, gin, big_gin, undercut, push, dead
    winner: int | None  # seat
    points: int
    knocker: int | None


@dataclass(frozen=True, slots=True)
class FaultRow:
    """One fault of one seat (retried ones included)."""

    seat: int
    kind: str
    rule: str
    reason: str
    retry: bool
    hand: int | None


@dataclass(frozen=True, slots=True)
class Forfeit:
    """Why a match ended early: the seat at fault (None: both seats), the fault's kind."""

    seat: int | None
    kind: str
    rule: str
    reason: str

    def charged(self, seat: int) -> bool:
        """Whether ``seat`` forfeited."""
        return self.seat is None or self.seat == seat


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A finished match as the journal stores it."""

    key: str
    seats: tuple[str, str]  # bot names by seat
    seed: int
    deal: int
    match_id: str
    termination: str  # target, single_hand, hollywood, forfeit
    winner: int | None  # seat; None: nobody won (both seats at fault)
    final: tuple[int, int]
    margin: int
    hands_played: int
    forfeit: Forfeit | None
    hands: tuple[HandRow, ...]
    faults: tuple[FaultRow, ...]
    decisions: tuple[int, int]
    think_ms: tuple[float, float]  # total per seat
    log_path: str  # relative to the tournament's directory
    log_sha256: str
    log_bytes: int
    started: str  # UTC, ISO 8601 (the log header's "created")
    elapsed_s: float | None = None  # MatchStart to MatchEnd, as the executor saw it
    startup_s: float | None = None  # launch to MatchStart, for a job's first match

    @property
    def winner_bot(self) -> str | None:
        """The winning bot's name."""
        return None if self.winner is None else self.seats[self.winner]

    def seat_of(self, bot: str) -> int:
        """The seat ``bot`` played."""
        return self.seats.index(bot)


def _fault(data: dict[str, Any]) -> FaultRow:
    return FaultRow(
        seat=int(data["seat"]),
        kind=str(data["kind"]),
        rule=str(data.get("rule", "")),
        reason=str(data.get("reason", "")),
        retry=bool(data.get("retry", False)),
        hand=data.get("hand"),
    )


def record_from_log(
    path: Path,
    specs: Sequence[MatchSpec],
    root: Path,
    *,
    elapsed_s: float | None = None,
    startup_s: float | None = None,
) -> MatchRecord:
    """Read the finished log of one match of a job whose matches are ``specs`` (the log header's
    series number says which); raise :class:`ReplayLogError` if it is not such a log."""
    raw = path.read_bytes()
    header: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    hands: list[HandRow] = []
    faults: list[FaultRow] = []
    decisions = [0, 0]
    think = [0.0, 0.0]
    for number, line in enumerate(raw.decode("utf-8").splitlines(), start=1):
        try:
            record = json.loads(line)
            kind = record["type"]
            if kind == "decision":
                seat = record["seat"]
                decisions[seat] += 1
                think[seat] += float(record.get("think_ms") or 0.0)
            elif kind == "hand_result":
                hands.append(
                    HandRow(
                        hand=record["hand"],
                        dealer=record["dealer"],
                        outcome=record["outcome"],
                        winner=record["winner"],
                        points=record["points"],
                        knocker=record.get("knocker"),
                    )
                )
            elif kind == "fault":
                faults.append(_fault(record))
            elif kind == "header":
                header = record
            elif kind == "match_result":
                result = record
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise ReplayLogError([(number, f"unreadable record: {exc}")]) from None
    if header is None or result is None:
        raise ReplayLogError([(0, f"{path}: not a finished match (no header or match_result)")])
    number = int(header.get("series", {}).get("match_number", 1))
    if not 1 <= number <= len(specs):
        raise ReplayLogError([(1, f"{path}: match {number} of a job of {len(specs)}")])
    spec = specs[number - 1]
    labels = tuple(b["label"] for b in sorted(header["bots"], key=lambda b: b["seat"]))
    if labels != spec.seats or header["seed"] != spec.seed:
        raise ReplayLogError(
            [(1, f"{path}: seats {labels} and seed {header['seed']} are not those of {spec.key}")]
        )
    forfeit = result.get("forfeit")
    return MatchRecord(
        key=spec.key,
        seats=spec.seats,
        seed=spec.seed,
        deal=spec.deal,
        match_id=header["match_id"],
        termination=result["termination"],
        winner=result["winner"],
        final=(result["final"][0], result["final"][1]),
        margin=result.get("margin") or 0,
        hands_played=result.get("hands_played", len(hands)),
        forfeit=None
        if forfeit is None
        else Forfeit(
            forfeit.get("seat"),
            str(forfeit.get("kind") or ""),
            str(forfeit.get("rule") or ""),
            str(forfeit.get("reason") or ""),
        ),
        hands=tuple(hands),
        faults=tuple(faults),
        decisions=(decisions[0], decisions[1]),
        think_ms=(round(think[0], 3), round(think[1], 3)),
        log_path=str(path.resolve().relative_to(root.resolve())),
        log_sha256=hashlib.sha256(raw).hexdigest(),
        log_bytes=len(raw),
        started=header["created"],
        elapsed_s=elapsed_s,
        startup_s=startup_s,
    )
