"""What the journal keeps of a finished match, from the referee's own outcome.

The row is built from the :class:`~referee.results.MatchOutcome` the referee returns from
:meth:`~referee.series.Series.play`, never from the replay log: the log is a file in a
directory a bot's process may reach, so a bot could rewrite it, and the journal must not take
its word. The record carries the log's SHA-256 and size as a fingerprint, so a log changed
later no longer matches its row (and ``ginref verify`` re-adjudicates the log itself). The
outcome comes once the log is complete, so a match can be committed at that moment.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from referee.engine.outcomes import HandResult, Termination
from referee.errors import GinRefError
from referee.results import MatchOutcome
from tournaments.schedule import MatchSpec

# A bot that is gone (crashed, left, never connected) forfeits every later match of its series,
# so with ``recover`` the rest of the series is played with fresh processes instead.
GONE = frozenset({"crashed", "disconnected", "not_connected"})


@dataclass(frozen=True, slots=True)
class HandRow:
    """One finished hand: how it ended and who scored.

    ``dealer``, ``winner`` and ``knocker`` are the hand's own seats 0 and 1; with three or four
    players ``seats`` says which match seats played them, and ``table`` where (partnerships).
    """

    hand: int  # 1-based
    dealer: int
    outcome: str  # knock, gin, big_gin, undercut, push, dead
    winner: int | None  # hand seat
    points: int
    knocker: int | None
    seats: tuple[int, int] = (0, 1)  # the match seats at hand seats 0 and 1
    table: int = 0

    def hand_seat(self, seat: int) -> int | None:
        """The hand seat match seat ``seat`` played, or None if it did not play this hand."""
        return self.seats.index(seat) if seat in self.seats else None


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
    """Why a match ended early: the seat at fault (None: every seat, or with more than two
    players several, listed in ``seats``), the fault's kind."""

    seat: int | None
    kind: str
    rule: str
    reason: str
    seats: tuple[int, ...] = ()  # three or four players: every seat that forfeited

    def charged(self, seat: int) -> bool:
        """Whether ``seat`` forfeited."""
        if self.seats:
            return seat in self.seats
        return self.seat is None or self.seat == seat


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A finished match as the journal stores it.

    With two or three players ``winner`` and ``final`` are by seat; in a partnership match
    (``sides`` set) they are by team, team 0 being seats 0 and 2 (R10.2).
    """

    key: str
    seats: tuple[str, ...]  # bot names by seat
    seed: int
    deal: int
    match_id: str
    termination: str  # target, single_hand, hollywood, forfeit
    winner: int | None  # seat (team with partnerships); None: nobody won
    final: tuple[int, ...]
    margin: int
    hands_played: int
    forfeit: Forfeit | None
    hands: tuple[HandRow, ...]
    faults: tuple[FaultRow, ...]
    decisions: tuple[int, ...]
    think_ms: tuple[float, ...]  # total per seat
    log_path: str  # relative to the tournament's directory
    log_sha256: str
    log_bytes: int
    started: str  # UTC, ISO 8601 (the log header's "created")
    elapsed_s: float | None = None  # MatchStart to MatchEnd, as the executor saw it
    startup_s: float | None = None  # launch to MatchStart, for a job's first match
    placings: tuple[int, ...] = ()  # each seat's place, 1 the best (the engine's placings)
    sides: tuple[str, str] | None = None  # partnerships: the teams of seats 0, 2 and 1, 3

    @property
    def players(self) -> int:
        """Seats at the match."""
        return len(self.seats)

    @property
    def winner_bot(self) -> str | None:
        """The winner's name: a bot, or with partnerships a team."""
        if self.winner is None:
            return None
        return self.sides[self.winner] if self.sides else self.seats[self.winner]

    def seat_of(self, bot: str) -> int:
        """The seat ``bot`` played (its first, if it played several)."""
        return self.seats.index(bot)

    def side_of(self, seat: int) -> int:
        """The index of ``seat``'s entry in ``winner`` and ``final``: its team with
        partnerships, else the seat itself."""
        return seat % 2 if self.sides else seat

    def place(self, seat: int) -> int:
        """``seat``'s place, 1 the best (shared when equal)."""
        if self.placings:
            return self.placings[seat]
        if self.winner is None:
            return 1
        return 1 if self.winner == seat else 2

    def pairs(self) -> list[tuple[int, int, float | None]]:
        """The match as results between two opponents: ``(i, j, score of i)`` for seats
        ``i < j`` on different sides; a better place is a win (1), an equal one a draw (1/2),
        and None when both forfeited (a loss for each, unrated). Teammates are not compared,
        nor a bot with itself, and two bots only once (a team of one bot twice)."""
        out: list[tuple[int, int, float | None]] = []
        met: set[frozenset[str]] = set()
        for i in range(self.players):
            for j in range(i + 1, self.players):
                bots = frozenset((self.seats[i], self.seats[j]))
                if self.side_of(i) == self.side_of(j) or len(bots) == 1 or bots in met:
                    continue
                met.add(bots)
                if self.forfeit is not None and self.forfeit.charged(i) and self.forfeit.charged(j):
                    out.append((i, j, None))
                    continue
                a, b = self.place(i), self.place(j)
                out.append((i, j, 1.0 if a < b else 0.5 if a == b else 0.0))
        return out


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
    seats = tuple(info.label for info in outcome.seats)
    if seats != spec.seats or outcome.seed != spec.seed:
        raise GinRefError(
            f"match {outcome.match_id} (seats {seats}, seed {outcome.seed}) is not {spec.key} "
            f"(seats {spec.seats}, seed {spec.seed})"
        )
    result = outcome.result
    players = len(seats)
    forfeit = None
    if result.termination is Termination.FORFEIT:
        forfeit = Forfeit(
            result.forfeit_seat,
            "" if outcome.forfeit is None else outcome.forfeit.kind.value,
            result.forfeit_rule or "",
            result.forfeit_reason or "",
            tuple(result.forfeit_seats) if players > 2 else (),
        )
    return MatchRecord(
        key=spec.key,
        seats=spec.seats,
        seed=spec.seed,
        deal=spec.deal,
        match_id=outcome.match_id,
        termination=result.termination.value,
        winner=result.winner,
        final=tuple(result.final),
        margin=result.margin,
        hands_played=outcome.hands_played,
        forfeit=forfeit,
        hands=tuple(hand_row(r) for r in outcome.hand_results),
        faults=tuple(
            FaultRow(f.seat, f.kind.value, f.rule, f.reason, f.retry, f.hand)
            for f in outcome.faults
        ),
        decisions=tuple(outcome.seat_decisions),
        think_ms=tuple(round(t, 3) for t in outcome.seat_think_ms),
        log_path=str(outcome.log_path.resolve().relative_to(root.resolve())),
        # The fingerprint of the bytes the referee wrote, hashed as it wrote them: a log
        # changed on disk at any moment no longer matches its row (ginref verify says so).
        log_sha256=outcome.log_sha256,
        log_bytes=outcome.log_bytes,
        started=outcome.created,
        elapsed_s=elapsed_s,
        startup_s=startup_s,
        placings=result.placings(players),
        sides=spec.sides,
    )


def hand_row(result: HandResult) -> HandRow:
    """The journal's row of a finished hand."""
    return HandRow(
        result.number + 1,
        result.dealer,
        result.outcome.value,
        result.winner,
        result.points,
        result.knocker,
        (result.seats[0], result.seats[1]),
        result.table,
    )
