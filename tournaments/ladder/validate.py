"""A built submission's validation: one match under the season's rules, clock, limits and
sandbox, against a house bot (the Python greedy bot by default), started as the pool's
matches will start it. Any fault of the submission (it crashed, never said Hello, timed out,
sent an illegal or malformed action) fails it; whether it won does not matter."""

from __future__ import annotations

import asyncio
import secrets
import sys
from dataclasses import dataclass
from pathlib import Path

from referee.bots.confine import Confinement
from referee.bots.spec import BotSpec
from referee.errors import ConfigError
from referee.results import MatchOutcome
from referee.series import Series
from tournaments.file.config import TournamentConfig
from tournaments.ladder.build import tail_text
from tournaments.ladder.errors import SubmissionError

GREEDY = BotSpec((sys.executable, "-m", "sample_bots.greedy_bot"), "greedy")
SEAT = 0  # the submission's seat in its validation match


@dataclass(frozen=True, slots=True)
class Validation:
    """A validation match the submission played without a fault."""

    outcome: MatchOutcome
    output: Path  # the submission's stdout and stderr during the match

    @property
    def summary(self) -> str:
        """``won 100-23 in 4 hands``: the submission's score (its seat's, or its team's) first."""
        result = self.outcome.result
        won = "won" if result.winner == SEAT else "lost" if result.winner is not None else "drew"
        scores = "-".join(str(s) for s in result.final)
        return f"{won} {scores} in {self.outcome.hands_played} hands"


async def run_validation(
    spec: BotSpec, config: TournamentConfig, out: Path, opponent: BotSpec = GREEDY
) -> Validation:
    """Play ``spec`` against ``opponent`` (in every other seat, with more players) once; the
    replay log and both bots' output go to ``out``. Raises :class:`SubmissionError` (step
    ``validate``) on a fault of the submission."""
    out.mkdir(parents=True, exist_ok=True)
    bots = (spec, *[opponent] * (config.rules.players - 1))
    try:
        confinement = Confinement.prepare(config.sandbox, [out], bots)
    except ConfigError as exc:
        raise SubmissionError("validate", str(exc)) from None
    try:
        series = Series(
            bots,
            config.rules,
            [secrets.randbelow(2**63)],
            out,
            config.options,
            swap_seats=False,
            confinement=confinement,
        )
        async with series:
            outcome = await series.play(series.plans[0])
    finally:
        confinement.close()
    output = outcome.seats[SEAT].output
    faults = [f for f in outcome.faults if f.seat == SEAT]
    if faults:
        fault = faults[0]
        try:
            tail = tail_text(output.read_bytes())
        except OSError:
            tail = ""
        raise SubmissionError(
            "validate",
            f"{fault.kind.value}: {fault.reason}",
            status=fault.kind.value,
            tail=tail,
        )
    return Validation(outcome, output)


def validate(
    spec: BotSpec, config: TournamentConfig, out: Path, opponent: BotSpec = GREEDY
) -> Validation:
    """Sync face of :func:`run_validation` (its own event loop)."""
    return asyncio.run(run_validation(spec, config, out, opponent))
