"""``ginref ladder``: a standing competition (docs/ladder.md).

``new`` writes a season's file and store, ``entrant`` registers an entrant and issues its
token, ``submit`` queues an archive, ``run`` is the service (builds and plays until Ctrl-C, the
web app beside it with ``--web``), ``status`` and ``export`` show the leaderboard, ``freeze``
closes submissions and ``final`` plays the frozen versions' round robin as a tournament.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ginref.option_spec import Given, with_options
from ginref.option_table import (
    AGAIN,
    CONCURRENCY,
    ENTRANT,
    MATCHES,
    REPORT_FORMAT,
    SHOWING,
    TOKEN,
    TOP,
    WEB,
    WORKERS,
)
from ginref.shared import confine
from ginref.tournament_command import play_and_report
from referee.errors import GinRefError

# The ladder's modules are imported by the commands that use them: the season, its service
# and its builds would otherwise cost every ginref command its start-up time.
if TYPE_CHECKING:
    from tournaments.ladder import board
    from tournaments.ladder.season import Season

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


def _fail(exc: GinRefError) -> click.ClickException:
    return click.ClickException(str(exc))


def _season(directory: str) -> Season:
    from tournaments.ladder.season import load_season

    try:
        return load_season(Path(directory))
    except GinRefError as exc:
        raise _fail(exc) from None


@click.group("ladder")
def ladder_group() -> None:
    """A standing competition: entrants submit bots whenever they like, each is built in the
    sandbox and validated, the pool plays around the clock and a leaderboard ranks it
    (docs/ladder.md)."""


@ladder_group.command("new")
@click.argument("directory", type=click.Path(file_okay=False))
def new_command(directory: str) -> None:
    """Start a season in DIRECTORY: its file (season.toml, to edit) and its store."""
    from tournaments.ladder.season import SEASON_TOML, TEMPLATE
    from tournaments.ladder.store import open_season

    where = Path(directory)
    if (where / SEASON_TOML).exists():
        raise click.ClickException(f"{where / SEASON_TOML} exists: a season is already there")
    name = where.resolve().name
    if not _NAME.match(name):
        name = "season"
    where.mkdir(parents=True, exist_ok=True)
    (where / SEASON_TOML).write_text(TEMPLATE.format(name=name), encoding="utf-8")
    try:
        open_season(where, create=True).close()
    except GinRefError as exc:
        raise _fail(exc) from None
    click.echo(
        f"Season {name} in {where}: edit {where / SEASON_TOML}, add entrants with "
        f"'ginref ladder entrant {directory} NAME', then 'ginref ladder run {directory}'."
    )


@ladder_group.command("entrant")
@click.argument("directory", type=click.Path(file_okay=False))
@click.argument("name")
@with_options("ladder entrant", AGAIN)
def entrant_command(directory: str, name: str, given: Given) -> None:
    """Register entrant NAME (or, with --again, re-issue its token) and print its token once:
    the entrant submits with it, and a remote entrant's bot connects with it."""
    from tournaments.ladder.errors import LadderError
    from tournaments.ladder.service import PLAY
    from tournaments.ladder.store import open_season
    from tournaments.tokens import TokenStore

    season = _season(directory)
    if not _NAME.match(name):
        raise click.ClickException(
            f"{name!r}: an entrant's name is 1 to 32 letters, digits, - or _"
        )
    if name in season.house:
        raise click.ClickException(f"{name!r} is a house bot of the season")
    store = open_season(season.directory, create=True)
    try:
        known = {e for e, _ in store.entrants()}
        if name not in known:
            store.add_entrant(name, remote=name in season.remote)
        elif not given[AGAIN]:
            raise LadderError(f"{name} is an entrant already: --again issues a new token")
        (season.directory / PLAY).mkdir(mode=0o700, exist_ok=True)
        tokens = TokenStore(season.directory / PLAY)
        token = tokens.issue(name, again=given[AGAIN])
        tokens.save()
    except GinRefError as exc:
        raise _fail(exc) from None
    finally:
        store.close()
    click.echo(f"Token of {name} (shown once, keep it secret):")
    click.echo(token)


@ladder_group.command("submit")
@click.argument("directory", type=click.Path(file_okay=False))
@click.argument("archive", type=click.Path(dir_okay=False))
@with_options("ladder submit", ENTRANT, TOKEN)
def submit_command(directory: str, archive: str, given: Given) -> None:
    """Submit ARCHIVE (zip or tar.gz with ginref-bot.toml at its root) to the season in
    DIRECTORY; the service builds and validates it, 'ginref ladder status' shows how it went."""
    from tournaments.ladder import inbox
    from tournaments.ladder.store import open_season

    season = _season(directory)
    token = given[TOKEN] or os.environ.get("GINREF_TOKEN")
    if not token:
        raise click.ClickException("no token: give --token or set GINREF_TOKEN")
    try:
        with Path(archive).open("rb") as upload:
            # Read one byte past the cap at most: the inbox refuses it in words.
            data = upload.read(season.caps.upload_bytes + 1)
    except OSError as exc:
        raise click.ClickException(f"cannot read {archive}: {exc.strerror}") from None
    try:
        store = open_season(season.directory)
        try:
            version = inbox.submit(season, store, given[ENTRANT], token, data)
        finally:
            store.close()
    except GinRefError as exc:
        raise _fail(exc) from None
    click.echo(f"Queued as {version.name}: the service builds and validates it next.")


@ladder_group.command("run")
@click.argument("directory", type=click.Path(file_okay=False))
@with_options("ladder run", CONCURRENCY, WORKERS, WEB)
def run_command(directory: str, given: Given) -> None:
    """Run the season in DIRECTORY: build and validate submissions, play the pool, rate every
    match; until Ctrl-C (a match in flight is played again at the next run)."""
    from tournaments.ladder.service import run_service

    season = _season(directory)
    web = None
    address = given[WEB]
    if address:
        from tournaments.ladder.web import LadderWeb

        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            raise click.ClickException(f"--web {address!r}: expected HOST:PORT")
        web = LadderWeb(season.directory, host, int(port))
        try:
            web.start()
        except GinRefError as exc:
            raise _fail(exc) from None
        click.echo(f"Web app of {season.name}: {web.url}")
    lanes = given[CONCURRENCY] or season.config.concurrency or 2
    jobs = "1 job" if lanes == 1 else f"{lanes} jobs"
    click.echo(f"Ladder {season.name}: playing {jobs} at once (Ctrl-C to stop)")
    try:
        tally = run_service(season, lanes=lanes, workers=given[WORKERS], say=click.echo)
    except GinRefError as exc:
        raise _fail(exc) from None
    finally:
        if web is not None:
            web.stop()
    click.echo(
        f"Stopped: {_count(tally.played, 'match', 'matches')} played, "
        f"{_count(len(tally.accepted), 'version')} accepted, {len(tally.failed)} failed this run."
    )


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def _rows(season: Season) -> list[board.BotRow]:
    from tournaments.ladder import board
    from tournaments.ladder.store import open_season

    store = open_season(season.directory)
    try:
        return board.leaderboard(season, store)
    finally:
        store.close()


@ladder_group.command("status")
@click.argument("directory", type=click.Path(file_okay=False))
def status_command(directory: str) -> None:
    """The leaderboard of the season in DIRECTORY, and the submissions not yet decided."""
    from tournaments.ladder import board
    from tournaments.ladder.store import open_season

    season = _season(directory)
    try:
        rows = _rows(season)
        store = open_season(season.directory)
        try:
            pending = [
                v for v in store.versions() if v.status in ("queued", "building", "validating")
            ]
            frozen = store.meta("frozen")
        finally:
            store.close()
    except GinRefError as exc:
        raise _fail(exc) from None
    click.echo(board.board_text(rows))
    for version in pending:
        click.echo(f"{version.name}: {version.status} (submitted {version.submitted})")
    if frozen:
        click.echo(f"Submissions closed at {frozen}.")


@ladder_group.command("export")
@click.argument("directory", type=click.Path(file_okay=False))
@with_options("ladder export", REPORT_FORMAT)
def export_command(directory: str, given: Given) -> None:
    """Print the leaderboard of the season in DIRECTORY as a table, CSV or JSON."""
    from tournaments.ladder import board

    season = _season(directory)
    try:
        rows = _rows(season)
    except GinRefError as exc:
        raise _fail(exc) from None
    kind = given[REPORT_FORMAT]
    text = {"table": board.board_text, "csv": board.board_csv, "json": board.board_json}[kind](rows)
    click.echo(text.rstrip("\n"))


@ladder_group.command("freeze")
@click.argument("directory", type=click.Path(file_okay=False))
def freeze_command(directory: str) -> None:
    """Close submissions to the season in DIRECTORY (the pool plays on; a submission being
    built finishes)."""
    from tournaments.ladder.store import now, open_season

    season = _season(directory)
    try:
        store = open_season(season.directory)
        try:
            when = store.meta("frozen")
            if when is None:
                when = now()
                store.set_meta("frozen", when)
        finally:
            store.close()
    except GinRefError as exc:
        raise _fail(exc) from None
    click.echo(
        f"Submissions to {season.name} closed at {when}; 'ginref ladder final' plays the final."
    )


@ladder_group.command("final")
@click.argument("directory", type=click.Path(file_okay=False))
@with_options("ladder final", TOP, MATCHES, CONCURRENCY, *SHOWING)
def final_command(directory: str, given: Given) -> None:
    """Play the final of the frozen season in DIRECTORY: a round robin of each entrant's last
    accepted version (--top N: the leaderboard's top N), as a tournament in DIRECTORY/final
    with its report and CSV/JSON files; run again, it resumes."""
    from tournaments.ladder.final import final_config

    season = _season(directory)
    try:
        config = final_config(season, _rows(season), top=given[TOP], matches=given[MATCHES])
        if given[CONCURRENCY] is not None:
            config = config.with_changes(concurrency=given[CONCURRENCY] or None)
    except GinRefError as exc:
        raise _fail(exc) from None
    bots = [b.spec() for b in config.local_bots]
    play_and_report(config, confine(config.sandbox, config.protected, bots), given)
