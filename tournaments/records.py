"""What the journal keeps of a finished match, from the referee's own outcome.

The row is built from the :class:`~referee.results.MatchOutcome` the referee hands to
``on_match_finished``, never from the replay log: the log is a file in a directory a bot's
process may reach, so a bot could rewrite it, and the journal must not take its word. The record
carries the log's SHA-256 and size as a fingerprint, so a log changed later no longer matches
its row (and ``ginref verify`` re-adjudicates the log itself). The referee calls
``on_match_finished`` once the log is complete and before it tells the bots the match is over,
so a match can be committed at that moment.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from referee.engine.outcomes import Termination
from referee.errors import GinRefError
from referee.results import MatchOutcome
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
    final: tuple[int, ...]
    margin: int
    hands_played: int
    forfeit: Forfeit | None
    hands: tuple[HandRow, ...]
    faults: tuple[FaultRow, ...]
    decisions: tuple[int, ...]
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


def record_from_outcome(
    outcome: MatchOutcome,
    spec: MatchSpec,
    root: Path,
    *,
    elapsed_s: float | None = None,
    startup_s: float | None = None,
) -> MatchRecord:
    """The record of ``spec``'s match from the referee's outcome; its log lies under ``root``.

    Raises :class:`GinRefError` if the outcome is not that match's (other bots or seed): the
    executor paired them wrongly.
    """
    seats = (outcome.seats[0].label, outcome.seats[1].label)
    if seats != spec.seats or outcome.seed != spec.seed:
        raise GinRefError(
            f"match {outcome.match_id} (seats {seats}, seed {outcome.seed}) is not {spec.key} "
            f"(seats {spec.seats}, seed {spec.seed})"
        )
    result = outcome.result
    forfeit = None
    if result.termination is Termination.FORFEIT:
        forfeit = Forfeit(
            result.forfeit_seat,
            "" if outcome.forfeit is None else outcome.forfeit.kind.value,
            result.forfeit_rule or "",
            result.forfeit_reason or "",
        )
    return MatchRecord(
        key=spec.key,
        seats=spec.seats,
        seed=spec.seed,
        deal=spec.deal,
        match_id=outcome.match_id,
        termination=result.termination.value,
        winner=result.winner,
        final=result.final,
        margin=result.margin,
        hands_played=outcome.hands_played,
        forfeit=forfeit,
        hands=tuple(
            HandRow(r.number + 1, r.dealer, r.outcome.value, r.winner, r.points, r.knocker)
            for r in outcome.hand_results
        ),
        faults=tuple(
            FaultRow(f.seat, f.kind.value, f.rule, f.reason, f.retry, f.hand)
            for f in outcome.faults
        ),
        decisions=outcome.seat_decisions,
        think_ms=(round(outcome.seat_think_ms[0], 3), round(outcome.seat_think_ms[1], 3)),
        log_path=str(outcome.log_path.resolve().relative_to(root.resolve())),
        # The fingerprint of the bytes the referee wrote, hashed as it wrote them: a log
        # changed on disk at any moment no longer matches its row (ginref verify says so).
        log_sha256=outcome.log_sha256,
        log_bytes=outcome.log_bytes,
        started=outcome.created,
        elapsed_s=elapsed_s,
        startup_s=startup_s,
    )
