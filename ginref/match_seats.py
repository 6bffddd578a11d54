"""``ginref match`` with two, three or four bots: the rules for that many, and the one match.

Three bots play three-player gin (R10.1) and four two partnerships (R10.2): the number of
command lines sets the rules' ``players``, and a ``--set`` of players that says otherwise is the
user's mistake, told in one line.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from referee.bots.confine import Confinement
from referee.bots.sandbox import HiddenPathError
from referee.bots.spec import BotSpec
from referee.engine.rules import Rules, parse_assignments
from referee.errors import ConfigError
from referee.results import MatchOutcome
from referee.series import Series
from referee.settings import RefereeOptions


def match_rules(profile: str, assignments: Sequence[str], bots: int) -> Rules:
    """The profile with the ``--set`` overrides, for a match of ``bots`` bots."""
    overrides: dict[str, object] = dict(parse_assignments(assignments))
    if not 2 <= bots <= 4:
        raise ConfigError(
            f"a match is played by 2 bots, 3 (R10.1) or 4 in two partnerships (R10.2); got {bots}"
        )
    given = overrides.get("players")
    if given is not None and str(given).strip() != str(bots):
        raise ConfigError(f"--set players={given} but {bots} bots were given: leave players out")
    if bots > 2:
        overrides["players"] = bots
    return Rules.profile(profile, **overrides)


def hidden_path_advice(error: HiddenPathError) -> str:
    """What a bot would see that it may not, told in the words of ``ginref match``'s command
    line (the error's own are a tournament file's)."""
    if error.bot is None:
        if error.secret is None:
            return f"--bind {error.path} would show every bot all of it; bind a directory below it"
        return (
            f"--bind {error.path} would show every bot {error.secret} (--out); bind a "
            "directory that does not hold it"
        )
    return str(error)


def play_one(
    bots: Sequence[BotSpec],
    rules: Rules,
    seed: int,
    out_dir: Path,
    options: RefereeOptions,
    confinement: Confinement,
) -> MatchOutcome:
    """Play one match, bot A in seat 0, B in seat 1 and so on; its outcome."""

    async def play() -> MatchOutcome:
        async with Series(bots, rules, [seed], out_dir, options, confinement=confinement) as one:
            return await one.play(one.plans[0])

    return asyncio.run(play())
