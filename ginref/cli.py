"""The ``ginref`` command line: the only module that imports click.

Each command parses its arguments, calls the library, formats the result with the pure
functions of :mod:`tournaments.outputs.console` and prints it. Errors raised on purpose by ginref
(:class:`referee.errors.GinRefError`) and usage errors are printed plainly with a non-zero exit
status, never as a traceback.

Every command starts by declaring them all (even ``ginref --help`` does), so the modules of the
commands import at their top only what declaring needs (click, the option table); what a
command plays, reads or formats with is imported in its function, when it runs.
"""

from __future__ import annotations

import dataclasses
import secrets
import sys
from collections.abc import Sequence
from pathlib import Path

import click
from click.core import ParameterSource

from ginref.deals_command import deal_set, deals_group
from ginref.ladder_command import ladder_group
from ginref.live_command import live_command
from ginref.match_seats import (
    format_pair_summary,
    hidden_path_advice,
    match_rules,
    play_one,
    series_config,
)
from ginref.option_spec import Given, with_options
from ginref.option_table import (
    BIND,
    DEALS,
    MATCHES,
    OUT,
    PROFILE,
    REFEREE,
    SEED,
    SET,
    SHOWING,
    TCP,
)
from ginref.ratings_command import ratings_command
from ginref.replay_commands import replay_command, verify_command
from ginref.report_command import report_command
from ginref.rules_command import rules_command
from ginref.serve_command import serve_command, tokens_group
from ginref.shared import confine
from ginref.sprt_command import sprt_command
from ginref.tournament_command import (
    EXIT_NOT_CONNECTED,
    play_and_report,
    standings_command,
    tournament_command,
)
from ginref.withdraw_command import disqualify_command, withdraw_command
from referee.bots.sandbox import HiddenPathError
from referee.bots.spec import BotSpec
from referee.engine.rules import parse_assignments
from referee.errors import GinRefError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option("0.1.0", prog_name="ginref")
def main() -> None:
    """Referee and tournament runner for Gin Rummy bots: two players, three, or partnerships."""


@main.command("match")
@click.argument("bots", nargs=-1, required=True, metavar="BOT_A BOT_B [BOT_C [BOT_D]]")
@with_options("match", PROFILE, SET, SEED, DEALS, OUT, MATCHES, TCP, BIND, *REFEREE, *SHOWING)
def match_command(bots: tuple[str, ...], given: Given) -> None:
    """Play one match between two bots (or three, or two partnerships of two) and print the
    result; or, with -n N, N matches between two bots and their standings.

    BOT_A (seat 0), BOT_B (seat 1) and so on are command lines, split like a shell would, e.g.
    "python -m sample_bots.random_bot" ({python}: the interpreter ginref runs on, as in a
    tournament file). Three bots play three-player gin (R10.1), four play two
    partnerships, A and C against B and D (R10.2); the number of bots sets the rules' players.
    Each bot finds the referee's address and its secret token in GINREF_ADDRESS and
    GINREF_TOKEN (docs/referee.md). Exit status 3 when a bot could not start and connect (its
    seat forfeits; the error says why). With -n N (more than 1) the two bots play as a
    tournament does (docs/tournaments.md): every match journaled in --out, Ctrl-C stops
    cleanly and the same command resumes; its exit status is ginref tournament's. With
    --deals FILE the match plays the file's first deal (a seed, or decks dealt in order), and
    with -n N match k plays deal k (docs/tournaments.md#deal-sets).
    """
    from tournaments.outputs.console import format_match_outcome, format_not_started

    # As click says of any missing or extra argument (a usage error, exit status 2).
    if len(bots) < 2:
        raise click.UsageError("Missing argument 'BOT_B'.")
    if len(bots) > 4:
        raise click.UsageError(f"Got unexpected extra arguments ({' '.join(bots[4:])})")
    matches = given.required(MATCHES)
    if matches > 1 and len(bots) != 2:
        raise click.UsageError(
            f"-n {matches} plays two bots; for three or four, write a tournament file "
            "(docs/tournaments.md)"
        )
    if matches > 1:
        play_series(bots, matches, given)
        return
    try:
        rules = match_rules(given.required(PROFILE), given[SET], len(bots))
        specs = bot_specs(bots, given[TCP])
        options = given.referee_options()
        seed = given[SEED]
        deals = deal_set(given[DEALS], rules.players)
        if deals is not None and seed is not None:
            raise click.UsageError("--seed and --deals both say how to deal: give one of them")
        if seed is None:
            seed = secrets.randbelow(2**31) if deals is None else deals.seed(1)
        decks = None if deals is None else deals.decks(1)
        out_dir = Path(given.required(OUT))
        # A deal set is kept out of the sandbox, as a tournament keeps it.
        hidden = [out_dir] + ([Path(deals.path)] if deals is not None else [])
        confinement = confine(options.sandbox, hidden, specs)
        try:
            outcome = play_one(specs, rules, seed, out_dir, options, confinement, decks)
        finally:
            confinement.close()
    except HiddenPathError as exc:
        raise click.ClickException(hidden_path_advice(exc)) from None
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(format_match_outcome(outcome))
    problems = format_not_started(outcome)
    for line in problems:
        click.echo(f"Error: {line}", err=True)
    if problems:
        sys.exit(EXIT_NOT_CONNECTED)


def bot_specs(bots: Sequence[str], tcp_bots: Sequence[str]) -> tuple[BotSpec, ...]:
    """The bots of the command line, A, B and so on, those of ``--tcp`` over TCP."""
    keys = "abcd"[: len(bots)]
    for key in tcp_bots:
        if key not in keys:
            raise GinRefError(f"--tcp {key}: there is no bot {key.upper()} among {len(bots)}")
    return tuple(
        dataclasses.replace(BotSpec.parse(text), transport="tcp" if key in tcp_bots else "unix")
        for key, text in zip(keys, bots, strict=True)
    )


def play_series(bots: Sequence[str], matches: int, given: Given) -> None:
    """``ginref match A B -n N``: the two bots' tournament, played and reported as
    ``ginref tournament`` plays and reports one (it exits itself)."""
    from tournaments.results.standings import load_standings

    explicit = click.get_current_context().get_parameter_source("out")
    out = Path(given.required(OUT)) if explicit != ParameterSource.DEFAULT else None
    try:
        profile = given.required(PROFILE)
        match_rules(profile, given[SET], len(bots))  # its mistakes told as a match tells them
        values = {
            **given.file_values(),
            "rules.profile": profile,
            "rules.set": dict(parse_assignments(given[SET])),
            **({} if given[DEALS] is None else {"deals": given[DEALS]}),
        }
        config = series_config(bot_specs(bots, given[TCP]), matches, out, given[SEED], values)
        confinement = confine(config.sandbox, config.protected, [b.spec() for b in config.bots])
    except HiddenPathError as exc:
        raise click.ClickException(hidden_path_advice(exc)) from None
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    play_and_report(config, confinement, given)  # exits itself unless the run is complete
    try:
        standings = load_standings(config.out_dir)
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(format_pair_summary(standings, *(bot.name for bot in config.bots)))


main.add_command(tournament_command)
main.add_command(standings_command)
main.add_command(sprt_command)
main.add_command(deals_group)
main.add_command(ratings_command)
main.add_command(replay_command)
main.add_command(verify_command)
main.add_command(report_command)
main.add_command(rules_command)
main.add_command(serve_command)
main.add_command(tokens_group)
main.add_command(live_command)
main.add_command(ladder_group)
main.add_command(withdraw_command)
main.add_command(disqualify_command)


if __name__ == "__main__":  # pragma: no cover
    main()
