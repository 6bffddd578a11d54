"""The ``ginref`` command line: the only module that imports click.

Each command parses its arguments, calls the library, formats the result with the pure
functions of :mod:`tournaments.report` and prints it. Errors raised on purpose by ginref
(:class:`referee.errors.GinRefError`) and usage errors are printed plainly with a non-zero exit
status, never as a traceback.
"""

from __future__ import annotations

import secrets

import click

from referee.errors import GinRefError
from referee.match_runner import (
    DEFAULT_BANK,
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MOVE_TIME,
    DEFAULT_RETRIES,
    BotSpec,
    RefereeOptions,
    run_match,
)
from referee.rules import PROFILES, Rules, parse_assignments
from tournaments.report import format_match_outcome

_MAX_SEED = 2**64 - 1


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option("0.1.0", prog_name="ginref")
def main() -> None:
    """Referee and tournament runner for two-player Gin Rummy bots."""


@main.command("match")
@click.argument("bot_a")
@click.argument("bot_b")
@click.option(
    "--profile",
    "-p",
    default="standard",
    show_default=True,
    help=f"Rule profile: {', '.join(PROFILES)}.",
)
@click.option(
    "--set",
    "assignments",
    multiple=True,
    metavar="NAME=VALUE",
    help="Override a rule parameter of the profile (repeatable), e.g. --set target=150.",
)
@click.option(
    "--seed",
    type=click.IntRange(0, _MAX_SEED),
    default=None,
    help="Match seed (every deal derives from it). Default: a random one, printed.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    default="ginref-logs",
    show_default=True,
    help="Directory for the replay log and the bots' output files.",
)
@click.option(
    "--move-time",
    type=float,
    default=DEFAULT_MOVE_TIME,
    show_default=True,
    help="Seconds each decision may take without touching the bank.",
)
@click.option(
    "--bank",
    type=float,
    default=DEFAULT_BANK,
    show_default=True,
    help="Time bank per seat and match, in seconds (0: none).",
)
@click.option(
    "--connect-timeout",
    type=float,
    default=DEFAULT_CONNECT_TIMEOUT,
    show_default=True,
    help="Seconds a bot has to start and connect.",
)
@click.option(
    "--retries",
    type=click.IntRange(0),
    default=DEFAULT_RETRIES,
    show_default=True,
    help="Illegal or malformed actions forgiven per seat and match (0: forfeit at once).",
)
def match_command(
    bot_a: str,
    bot_b: str,
    profile: str,
    assignments: tuple[str, ...],
    seed: int | None,
    out_dir: str,
    move_time: float,
    bank: float,
    connect_timeout: float,
    retries: int,
) -> None:
    """Play one match between two bots and print the result.

    BOT_A (seat 0) and BOT_B (seat 1) are command lines, split like a shell would, e.g.
    "python -m sample_bots.random_bot". Each bot finds the referee's address and its secret
    token in GINREF_ADDRESS and GINREF_TOKEN (docs/referee.md).
    """
    try:
        rules = Rules.profile(profile, **parse_assignments(assignments))
        bots = (BotSpec.parse(bot_a), BotSpec.parse(bot_b))
        options = RefereeOptions(
            move_time=move_time, bank=bank, connect_timeout=connect_timeout, retries=retries
        ).validate()
        if seed is None:
            seed = secrets.randbelow(2**31)
        outcome = run_match(bots[0], bots[1], rules, seed, out_dir, options)
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(format_match_outcome(outcome))


if __name__ == "__main__":  # pragma: no cover
    main()
