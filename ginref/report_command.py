"""``ginref report DIR``: a tournament's web page, with a replay page for each of its matches
(:func:`tournaments.outputs.report.write_report`, which ``ginref tournament`` also runs at the end
of every run).
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from referee.errors import GinRefError


@click.command("report")
@click.argument("directory", type=click.Path(file_okay=False))
def report_command(directory: str) -> None:
    """Write DIRECTORY/report.html: the tournament's leaderboard, head to head, bots and
    matches, each match linked to its replay page (written to DIRECTORY/replays/).

    One self-contained page that loads nothing from anywhere; works while the tournament runs.
    """
    # Imported here, not by every ginref command at its start (the journal, the replay pages).
    from tournaments.outputs.report import write_report

    try:
        path, missing = write_report(Path(directory))
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    matches = "1 match" if missing == 1 else f"{missing} matches"
    note = f" ({matches} without a replay page: see the report)" if missing else ""
    click.echo(f"Wrote {os.fspath(path)}{note}")
