"""A match as planned (its id, seed, seats and log), and what a finished match or series hands
back to its caller (the replay log has the rest)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from referee.bots.process import ExitStatus
from referee.engine.outcomes import HandResult, MatchResult
from referee.engine.rules import Rules
from referee.fairness import DealSeal
from referee.faults import Fault


@dataclass(slots=True)
class MatchPlan:
    """One match of a series: its id, number (1-based), seed, who sits where, its log."""

    match_id: str
    number: int
    seed: int
    bots_by_seat: tuple[int, ...]  # the bot index playing each seat
    log_path: Path
    faults: list[Fault] = field(default_factory=list)
    seal: DealSeal | None = None  # the deal's commitment (default: a fresh salt for the seed)

    def __post_init__(self) -> None:
        if self.seal is None or self.seal.seed != self.seed:
            self.seal = DealSeal(self.seed)


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Who played a seat."""

    label: str
    command: tuple[str, ...]
    name: str  # Hello.bot_name ("" if it never connected)
    version: str
    output: Path  # the bot's stdout/stderr


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """Everything about a finished match that a caller needs; the log has the rest."""

    match_id: str
    log_path: Path
    rules: Rules
    seed: int
    seats: tuple[SeatInfo, ...]  # two, three or four (§10)
    result: MatchResult
    hand_results: tuple[HandResult, ...]
    forfeit: Fault | None  # the fault that ended the match (the first recorded, if both seats')
    faults: tuple[Fault, ...]
    decisions: int
    elapsed: float
    forfeits: tuple[Fault, ...] = ()  # every forfeiting seat's fault: one, or more
    # What the log records, kept in memory so that no caller has to trust the file:
    created: str = ""  # the log header's "created" (UTC, ISO 8601)
    hands_played: int = 0  # the match result's "hands_played": the hands dealt in the log
    seat_decisions: tuple[int, ...] = (0, 0)  # accepted decisions by seat
    seat_think_ms: tuple[float, ...] = (0.0, 0.0)  # the sum of their think_ms, by seat
    log_sha256: str = ""  # of the log's bytes as the referee wrote them
    log_bytes: int = 0
    # How each seat's bot process ended, by the time the log was complete (None: running).
    exits: tuple[ExitStatus | None, ...] = (None, None)

    @property
    def both_forfeit(self) -> bool:
        """Whether more than one seat forfeited (both seats of a two-player match)."""
        return len(self.forfeits) >= 2


@dataclass(frozen=True, slots=True)
class SeriesOutcome:
    """The matches of a series, in order; ``seats[k][s]`` is the bot that played seat ``s`` of
    match k."""

    matches: tuple[MatchOutcome, ...]
    seats: tuple[tuple[int, ...], ...]
