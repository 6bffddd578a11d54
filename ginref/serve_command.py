"""``ginref serve``: a tournament whose remote bots connect over TLS, and ``ginref tokens``.

``serve`` is ``ginref tournament`` on a hosted referee (:class:`~tournaments.executors.hosted.
HostedExecutor`): the same file, journal, resume and standings, and exit statuses; bots marked
``remote = true`` connect with their tokens to the ``[serve]`` address instead of being started.
"""

from __future__ import annotations

import contextlib
import textwrap
from collections.abc import AsyncIterator, Collection
from typing import TYPE_CHECKING

import click

from ginref.live_command import live_view
from ginref.option_spec import Given, with_options
from ginref.option_table import (
    ABSENT_WAIT,
    CERT,
    CLIENT_CA,
    CONCURRENCY,
    KEY,
    LIVE,
    MATCHES,
    OUT,
    PROFILE,
    REFEREE,
    SEED,
    SERVE_ADDRESS,
    SET,
    SHOWING,
    START,
)
from ginref.shared import confine
from ginref.tournament_command import play_and_report
from referee.errors import ConfigError, GinRefError
from tournaments.file.config import load_file

# The hosted executor, the journal and the tokens are imported by the commands that use them:
# every ginref command would otherwise pay for them at its start.
if TYPE_CHECKING:
    from referee.bots.confine import Confinement
    from tournaments.executors.local import Executor
    from tournaments.results.standings import BotStanding, Standings
    from tournaments.runner import TournamentRunner
    from tournaments.tokens import TokenStore


@click.command("serve")
@click.argument("file", type=click.Path(dir_okay=False))
@with_options(
    "serve",
    SERVE_ADDRESS,
    CERT,
    KEY,
    CLIENT_CA,
    START,
    ABSENT_WAIT,
    LIVE,
    CONCURRENCY,
    MATCHES,
    SEED,
    PROFILE,
    SET,
    *REFEREE,
    OUT,
    *SHOWING,
)
def serve_command(file: str, given: Given) -> None:
    """Run (or resume) the tournament in FILE as a hosted referee.

    Bots with remote = true run on their entrants' machines and connect with the token
    'ginref tokens issue FILE' gave them; they wait in the lobby until their matches are due.
    The other bots are started and sandboxed as by 'ginref tournament'. Exit status as
    'ginref tournament'.
    """
    from tournaments.executors.hosted import HostedExecutor
    from tournaments.journal.store import out_of_play
    from tournaments.tokens import TokenCheck, token_gaps

    try:
        config = given.apply(load_file(file))
        settings = config.serve
        warnings = settings.check()
        if settings.tls is not None:
            settings.tls.load()  # a bad file is one line now, not after the bots' check
        remote = {b.name for b in config.bots if b.remote}
        if not remote:
            raise ConfigError(
                f"{file}: no bot has remote = true; 'ginref tournament' runs local bots alone"
            )
        # A withdrawn bot needs no token; a revoked one's matches are forfeits at once.
        missing, revoked = token_gaps(config.out_dir, remote - out_of_play(config.out_dir))
        if missing:
            raise ConfigError(
                f"no token for {', '.join(missing)}: issue one with "
                f"'ginref tokens issue {file}' and give it to the bot's entrant"
            )
        warnings += [
            f"{bot}'s token is revoked: its matches left are forfeits at once (it cannot "
            f"connect); 'ginref tokens reissue {file} {bot}' lets it play again, 'ginref "
            f"withdraw {file} {bot}' takes it out of play"
            for bot in revoked
        ]
        bots = [b.spec() for b in config.local_bots]
        confinement = confine(config.sandbox, config.protected, bots)
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    for warning in warnings:
        click.echo(f"Warning: {warning}", err=True)

    secure = "plain text" if settings.tls is None else "TLS"
    mutual = ", client certificates required" if settings.client_ca else ""

    def listening(address: str) -> None:
        # A line of its own, flushed: scripts (and tests) read the port from it.
        click.echo(f"Remote bots connect to {address} ({secure}{mutual})", err=True)

    def make_executor(runner: TournamentRunner, confinement: Confinement) -> Executor:
        return HostedExecutor(
            config,
            runner.directory,
            confinement,
            settings,
            listening,
            say=lambda line: click.echo(line, err=True),
            halting=lambda: runner.halting,
        )

    @contextlib.asynccontextmanager
    async def beside(runner: TournamentRunner, executor: Executor | None) -> AsyncIterator[None]:
        """The spectators' live page, for as long as the tournament runs."""
        where = settings.live_address
        if where is None:
            yield
            return
        view = live_view(runner.directory, where[0], where[1])
        view.start()
        click.echo(f"Live page: {view.url}", err=True)
        try:
            yield
        finally:
            view.stop()

    def absence(standings: Standings, width: int | None) -> str | None:
        revoked = TokenCheck(config.out_dir, remote).missing()
        return format_absent(standings, remote, set(revoked), width)

    play_and_report(config, confinement, given, make_executor, beside, absence)


def _matches(n: int) -> str:
    return "1 match" if n == 1 else f"{n} matches"


def _became(s: BotStanding, remote: Collection[str], revoked: Collection[str]) -> str:
    """What became of a bot that forfeited matches by its absence, in words."""
    played = max(0, s.matches - s.faults["not_connected"])
    if s.name in revoked:
        when = f"after {_matches(played)}" if played else "before it played"
        return f"{s.name}'s token was revoked {when}"
    if s.name not in remote:
        return f"{s.name} never connected"  # a local bot that could not be started
    return f"{s.name} left after {_matches(played)}" if played else f"{s.name} never came"


def format_absent(
    standings: Standings,
    remote: Collection[str],
    revoked: Collection[str],
    width: int | None = None,
) -> str | None:
    """The warning of a hosted tournament whose bots forfeited matches by being absent: each
    bot, whether it left (after how many matches), was revoked or never came; None if none."""
    absent = [s for s in standings.bots if s.faults.get("not_connected")]
    if not absent:
        return None
    total = sum(s.faults["not_connected"] for s in absent)
    who = ", ".join(
        f"{_became(s, remote, revoked)} ({s.faults['not_connected']} forfeited)" for s in absent
    )
    text = (
        f"Warning: {_matches(total)} forfeited because bots were absent: {who}. Their "
        "output files (beside each match's log) say why."
    )
    if width is None:
        return text
    return "\n".join(textwrap.wrap(text, width, subsequent_indent="  ", break_on_hyphens=False))


@click.group("tokens")
def tokens_group() -> None:
    """Remote bots' tokens: issue, re-issue, revoke, list.

    A token is shown once, when it is issued; the tournament directory keeps only its SHA-256
    hash (tokens.json). A running 'ginref serve' sees a change at the bot's next connection.
    """


def _store(file: str, given: Given) -> tuple[TokenStore, list[str]]:
    from tournaments.tokens import TokenStore

    config = given.apply(load_file(file))
    remote = [b.name for b in config.bots if b.remote]
    return TokenStore(config.out_dir), remote


def _pick(names: tuple[str, ...], remote: list[str], file: str) -> list[str]:
    for name in names:
        if name not in remote:
            raise ConfigError(
                f"{name!r} is not a remote bot of {file} (remote bots: "
                f"{', '.join(remote) or 'none; mark one with remote = true'})"
            )
    return list(names)


@tokens_group.command("issue")
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("bots", nargs=-1)
@with_options("tokens", OUT)
def issue_command(file: str, bots: tuple[str, ...], given: Given) -> None:
    """Issue a token to each of BOTS (default: every remote bot without one) and print it
    once, as NAME TOKEN lines."""
    try:
        store, remote = _store(file, given)
        names = _pick(bots, remote, file) or [
            n for n in remote if n not in store.entries or not store.entries[n].active
        ]
        tokens = [(name, store.issue(name)) for name in names]
        store.save()
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    if not tokens:
        click.echo("Every remote bot already has a token (see 'ginref tokens list').", err=True)
    for name, token in tokens:
        click.echo(f"{name} {token}")
    if tokens:
        click.echo(
            "Give each entrant its token now: it is not shown again (only its hash is kept).",
            err=True,
        )


@tokens_group.command("reissue")
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("bots", nargs=-1, required=True)
@with_options("tokens", OUT)
def reissue_command(file: str, bots: tuple[str, ...], given: Given) -> None:
    """A new token for each of BOTS; their old ones stop working."""
    try:
        store, remote = _store(file, given)
        tokens = [(name, store.issue(name, again=True)) for name in _pick(bots, remote, file)]
        store.save()
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    for name, token in tokens:
        click.echo(f"{name} {token}")


@tokens_group.command("revoke")
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("bots", nargs=-1, required=True)
@with_options("tokens", OUT)
def revoke_command(file: str, bots: tuple[str, ...], given: Given) -> None:
    """Revoke the tokens of BOTS: refused from their next connection; idle streams end."""
    try:
        store, remote = _store(file, given)
        for name in _pick(bots, remote, file):
            store.revoke(name)
        store.save()
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"Revoked: {', '.join(bots)}")


@tokens_group.command("list")
@click.argument("file", type=click.Path(dir_okay=False))
@with_options("tokens", OUT)
def list_command(file: str, given: Given) -> None:
    """Each remote bot's token: active, revoked or none, when issued, and its hash's start."""
    try:
        store, remote = _store(file, given)
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    for name in remote:
        entry = store.entries.get(name)
        if entry is None:
            click.echo(f"{name}  none")
        elif entry.active:
            click.echo(f"{name}  active   issued {entry.issued}  sha256 {entry.fingerprint}…")
        else:
            click.echo(
                f"{name}  revoked  {entry.revoked}  (issued {entry.issued})  "
                f"sha256 {entry.fingerprint}…"
            )
