"""``ginref ratings DIR...``: one rating list over several tournaments (a league that grows run
by run), fitted from their journals (docs/testing-bots.md#ratings-across-tournaments)."""

from __future__ import annotations

from pathlib import Path

import click

from ginref.option_spec import Given, with_options
from ginref.option_table import REPORT_FORMAT
from ginref.shared import report_width
from referee.errors import GinRefError


@click.command("ratings")
@click.argument("directories", nargs=-1, required=True, type=click.Path(file_okay=False))
@with_options("ratings", REPORT_FORMAT)
def ratings_command(directories: tuple[str, ...], given: Given) -> None:
    """Rate every bot of the tournaments in DIRECTORIES together: one Bradley-Terry fit over
    all their matches, Elo with 95% intervals, ranked by Elo.

    A bot is its name: the same name in two tournaments is one bot. The journals are read,
    never written, so a tournament may still be running.
    """
    # Imported here, not by every ginref command at its start (the journals, the fit).
    from tournaments.results.league import format_league, league, league_json
    from tournaments.results.standings import standings_csv

    try:
        result = league([Path(d) for d in directories])
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    fmt = given[REPORT_FORMAT]
    if fmt == "csv":
        click.echo(standings_csv(result.standings), nl=False)
    elif fmt == "json":
        click.echo(league_json(result), nl=False)
    else:
        click.echo(format_league(result, report_width()))
