"""Withdrawn and disqualified bots: the organiser's decision, and what it does to the results.

An organiser takes a bot out of a tournament in one of two ways, as a chess arbiter does
(``ginref withdraw``, ``ginref withdraw --strike``; docs/tournaments.md):

- withdrawn: the matches it played stand, and every match of it not played yet is a forfeit
  of its seat, as if it had never connected: its opponent wins, in a three-player match the
  two others share first place, in a partnership its team loses. No game was played, so these
  forfeits are scored but not rated, have no replay log, and are never started.
- disqualified: its results are struck. Every match it sat in, played or not, counts for
  nobody: in a three- or four-player match the other seats' results in it go too, for the
  match was not a fair one. It stays in the standings, last, with no results.

The journal keeps the decisions alone (its ``withdrawals`` table); the forfeits are derived from
them and the schedule whenever the results are read (:func:`counted`), so they can never
disagree with the journal, and a decision taken while a run goes on takes effect at the next
match that run would start (the matches in play finish, and stand).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from referee.engine.outcomes import MatchResult, Termination
from tournaments.journal.records import Forfeit, MatchRecord
from tournaments.schedule import MatchSpec

WITHDRAWN = "withdrawn"  # also the forfeit's kind in the standings' records
DISQUALIFIED = "disqualified"
KINDS = (WITHDRAWN, DISQUALIFIED)
REASON = "the bot was withdrawn from the tournament by its organiser"


@dataclass(frozen=True, slots=True)
class Withdrawal:
    """One bot taken out of play: how (``withdrawn`` or ``disqualified``) and when (UTC)."""

    bot: str
    kind: str
    at: str

    @property
    def struck(self) -> bool:
        """Whether the bot's results are struck (disqualified), not only its future ones."""
        return self.kind == DISQUALIFIED


@dataclass(slots=True)
class Counted:
    """The matches that count, in the order of the schedule: the ones played (less those of a
    disqualified bot) and the forfeits of withdrawn bots; and how many matches count in all."""

    records: list[MatchRecord]
    total: int
    withdrawals: dict[str, Withdrawal] = field(default_factory=dict)
    played: dict[str, int] = field(default_factory=dict)  # bot -> its matches that stand
    forfeited: dict[str, int] = field(default_factory=dict)  # bot -> its matches forfeited
    struck: dict[str, int] = field(default_factory=dict)  # bot -> its matches struck

    def notes(self) -> list[str]:
        """What became of each bot taken out, in words, in the order they were taken out."""
        out = []
        for bot, w in self.withdrawals.items():
            if w.struck:
                out.append(
                    f"{bot} was disqualified: its results are struck ({_matches(self.struck[bot])} "
                    "it sat in, played or not, count for nobody)"
                )
            else:
                out.append(
                    f"{bot} withdrew: {_matches(self.played[bot])} it played "
                    f"{'stands' if self.played[bot] == 1 else 'stand'}, "
                    f"{_matches(self.forfeited[bot])} left forfeited to its opponents "
                    "(scored, not rated)"
                )
        return out


def _matches(n: int) -> str:
    return "1 match" if n == 1 else f"{n} matches"


def counted(
    schedule: Sequence[MatchSpec],
    records: Iterable[MatchRecord],
    withdrawals: Iterable[Withdrawal],
) -> Counted:
    """The matches that count once ``withdrawals`` are applied to the journal's ``records``."""
    taken = {w.bot: w for w in withdrawals}
    struck = {bot for bot, w in taken.items() if w.struck}
    played = {r.key: r for r in records}
    out = Counted([], 0, taken)
    for bot in taken:
        out.played[bot] = out.forfeited[bot] = out.struck[bot] = 0
    for spec in schedule:
        seated = [bot for bot in taken if bot in spec.seats]
        if struck.intersection(spec.seats):
            for bot in seated:
                out.struck[bot] += 1
            continue
        out.total += 1
        record = played.get(spec.key)
        if record is None and seated:
            record = forfeit_record(spec, set(seated))
            for bot in seated:
                out.forfeited[bot] += 1
        elif record is not None:
            for bot in seated:
                out.played[bot] += 1
        if record is not None:
            out.records.append(record)
    return out


def forfeit_record(spec: MatchSpec, out: set[str]) -> MatchRecord:
    """``spec``'s match as a forfeit of the seats of the bots in ``out``: the result the engine
    gives a match whose seats never connected (:meth:`MatchResult.placings`), with no game."""
    players = len(spec.seats)
    charged = tuple(seat for seat, bot in enumerate(spec.seats) if bot in out)
    teams = spec.sides is not None
    # As the engine's forfeit: a partnership whose seat forfeits loses as a team.
    if teams:
        left = {0, 1} - {seat % 2 for seat in charged}
    else:
        left = {seat for seat in range(players) if seat not in charged}
    result = MatchResult(
        Termination.FORFEIT,
        left.pop() if len(left) == 1 else None,
        (0,) * (2 if teams else players),
        forfeit_seat=charged[0] if len(charged) == 1 else None,
        forfeit_reason=REASON,
        teams=teams,
        forfeit_seats=charged,
    )
    return MatchRecord(
        key=spec.key,
        seats=spec.seats,
        seed=spec.seed,
        deal=spec.deal,
        match_id="",
        termination=Termination.FORFEIT.value,
        winner=result.winner,
        final=result.final,
        margin=0,
        hands_played=0,
        forfeit=Forfeit(result.forfeit_seat, WITHDRAWN, "", REASON, charged if players > 2 else ()),
        hands=(),
        faults=(),
        decisions=(0,) * players,
        think_ms=(0.0,) * players,
        log_path="",
        log_sha256="",
        log_bytes=0,
        started="",
        placings=result.placings(players),
        sides=spec.sides,
    )


def is_withdrawal(record: MatchRecord) -> bool:
    """Whether ``record`` is a withdrawn bot's forfeit (no game was played)."""
    return record.forfeit is not None and record.forfeit.kind == WITHDRAWN
