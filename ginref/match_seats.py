"""``ginref match`` with two, three or four bots: the rules for that many, and the one match;
with ``-n N``, the two bots' tournament (:func:`series_config`) and its last line; a bot that
would see the logs, told in the command line's words.

Three bots play three-player gin (R10.1) and four two partnerships (R10.2): the number of
command lines sets the rules' ``players``, and a ``--set`` of players that says otherwise is the
user's mistake, told in one line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.engine.errors import RulesError
from referee.engine.rules import Rules, parse_assignments
from referee.errors import ConfigError
from tournaments.file.bots import BotEntry
from tournaments.file.config import TournamentConfig

# The referee's series and the tournament's modules are imported by the functions that play:
# ginref.cli imports this module, and every ginref command would otherwise pay for them at its
# start.
if TYPE_CHECKING:
    from referee.bots.confine import Confinement
    from referee.bots.sandbox import HiddenPathError
    from referee.bots.spec import BotSpec
    from referee.fairness import GivenDecks
    from referee.results import MatchOutcome
    from referee.settings import RefereeOptions
    from tournaments.results.standings import Standings

_NAME = re.compile(r"[^A-Za-z0-9_-]+")  # what a bot's name may not hold


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
    try:
        return Rules.profile(profile, **overrides)
    except RulesError as exc:
        if not exc.needs:
            raise
        raise RulesError(f"{exc}: add {exc.fix(option=True)}") from None


def series_config(
    bots: Sequence[BotSpec],
    matches: int,
    out: Path | None,
    seed: int | None,
    values: Mapping[str, Any],
) -> TournamentConfig:
    """``ginref match A B -n N``: the two bots' tournament of ``matches`` matches, scheduled,
    played, journaled and resumed as any tournament's pairing (seats alternating from one match
    to the next), in ``out`` (None: ``ginref-logs/A-vs-B-HASH``, the pair's own); ``values``
    set the file's keys (the rules, the clock, the limits, the sandbox)."""
    from tournaments.sprt_run import default_out

    names = [_NAME.sub("_", spec.name)[:38] or "bot" for spec in bots]
    if names[0] == names[1]:
        names = [f"{names[0]}-a", f"{names[1]}-b"]
    entries = tuple(
        BotEntry(name, spec.command, spec.cwd, spec.env, spec.dirs, spec.transport)
        for name, spec in zip(names, bots, strict=True)
    )
    where = out if out is not None else Path("ginref-logs") / default_out(*entries).name
    keys = {**values, "out": str(where), "seed": seed, "matches": matches}
    return TournamentConfig(
        name="match", bots=entries, format="round-robin", source="<ginref match>"
    ).with_keys(keys)


def format_pair_summary(standings: Standings, a: str, b: str) -> str:
    """The last line of ``ginref match -n N``: A's results against B and the Elo difference.

    With two bots the ratings are +d/2 and -d/2 (their mean is 0), so the difference and its
    interval are twice A's rating and interval."""
    pair = standings.head_to_head.get((a, b))
    won, drawn, lost = (pair.wins, pair.draws, pair.losses) if pair else (0, 0, 0)
    line = f"{a} against {b}: {won}-{drawn}-{lost} (W-D-L)"
    rated = next((s for s in standings.bots if s.name == a), None)
    if rated is None or rated.elo is None or rated.elo_low is None or rated.elo_high is None:
        return line
    return (
        f"{line}; Elo difference {2 * rated.elo:+.0f} "
        f"[{2 * rated.elo_low:+.0f}, {2 * rated.elo_high:+.0f}] (95%)"
    )


def hidden_path_advice(error: HiddenPathError) -> str:
    """What a bot would see that it may not, told in the words of ``ginref match``'s command
    line (the error's own are a tournament file's): the paths no bot of a match may see are its
    --out and its --deals."""
    if error.bot is None:
        if error.secret is None:
            return f"--bind {error.path} would show every bot all of it; bind a directory below it"
        return (
            f"--bind {error.path} would show every bot {error.secret} (--out); bind a "
            "directory that does not hold it"
        )
    if error.secret is None:
        return (
            f"bot {error.bot} would see all of {error.path}: put its files in a folder of their "
            "own and name them from there (cd into the folder, or python3 folder/bot.py)"
        )
    if error.secret.is_file():
        # The one file a match hides is its deal set (--out is a directory): no bot may read
        # the deals ahead.
        return (
            f"bot {error.bot} would see its folder {error.path}, which holds the deal set "
            f"{error.secret} (--deals): keep the deal set outside the bot's folder"
        )
    # Most often ginref match was run from the bot's own folder, the logs' default home.
    elsewhere = os.path.relpath(error.path.parent / "ginref-logs")
    return (
        f"bot {error.bot} would see its folder {error.path}, which holds the logs "
        f"({error.secret}, --out): give --out a directory outside it, e.g. --out {elsewhere}"
    )


def play_one(
    bots: Sequence[BotSpec],
    rules: Rules,
    seed: int,
    out_dir: Path,
    options: RefereeOptions,
    confinement: Confinement,
    decks: GivenDecks | None = None,
) -> MatchOutcome:
    """Play one match, bot A in seat 0, B in seat 1 and so on (dealt from ``decks``, a deal
    file's, when given); its outcome."""
    import asyncio

    from referee.series import Series

    async def play() -> MatchOutcome:
        async with Series(
            bots, rules, [seed], out_dir, options, confinement=confinement, decks=[decks]
        ) as one:
            return await one.play(one.plans[0])

    return asyncio.run(play())
