"""``ginref serve``: a tournament whose remote bots connect over TLS, and ``ginref tokens``.

``serve`` is ``ginref tournament`` on a hosted referee (:class:`~tournaments.executors.hosted.
HostedExecutor`): the same file, journal, resume and standings, and exit statuses; bots marked
``remote = true`` connect with their tokens to the ``[serve]`` address instead of being started.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import click

from ginref.live_command import live_view
from ginref.options import concurrency_option, confine, progress_options, referee_options
from ginref.tournament_command import play_and_report
from referee.bots.confine import Confinement
from referee.errors import ConfigError, GinRefError
from tournaments.executors.hosted import HostedExecutor
from tournaments.executors.local import Executor
from tournaments.file.config import load_file
from tournaments.runner import TournamentRunner
from tournaments.tokens import TokenCheck, TokenStore

PathOption = click.Path(dir_okay=False, exists=False)


@click.command("serve")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--address",
    metavar="HOST:PORT",
    help="Where remote bots connect (default: the file's [serve] address, else "
    "127.0.0.1:50051; port 0: any free port, printed at start).",
)
@click.option("--cert", type=PathOption, help="The referee's TLS certificate chain (PEM).")
@click.option("--key", type=PathOption, help="The private key of --cert (PEM).")
@click.option(
    "--client-ca",
    type=PathOption,
    help="Mutual TLS: require client certificates signed by this CA (PEM).",
)
@click.option(
    "--absent-wait",
    type=click.FloatRange(0),
    help="Seconds a remote bot may be absent when its match is due before it forfeits that "
    "match (default: the file's, else 300).",
)
@click.option(
    "--live",
    metavar="HOST:PORT",
    help="Address of the live page for spectators ('off': none; default: the file's, else "
    "127.0.0.1:8080).",
)
@concurrency_option
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), help="Master seed.")
@referee_options(tournament=True)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    help="Tournament directory (journal, logs, standings, tokens). Default: the file's out, "
    "else runs/<name>. The same directory resumes the tournament.",
)
@progress_options
def serve_command(
    file: str,
    address: str | None,
    cert: str | None,
    key: str | None,
    client_ca: str | None,
    absent_wait: float | None,
    live: str | None,
    concurrency: int | None,
    seed: int | None,
    move_time: float | None,
    bank: float | None,
    connect_timeout: float | None,
    ponder: bool | None,
    retries: int | None,
    limit_items: tuple[str, ...],
    sandbox: str | None,
    out_dir: str | None,
    progress: bool | None,
    quiet: bool,
) -> None:
    """Run (or resume) the tournament in FILE as a hosted referee.

    Bots with remote = true run on their entrants' machines and connect with the token
    'ginref tokens issue FILE' gave them; they wait in the lobby until their matches are due.
    The other bots are started and sandboxed as by 'ginref tournament'. Exit status as
    'ginref tournament'.
    """
    try:
        config = load_file(file)
        fields = {
            "seed": seed,
            "move_time": move_time,
            "bank": bank,
            "connect_timeout": connect_timeout,
            "ponder": ponder,
            "retries": retries,
            "concurrency": concurrency,
            "out": out_dir,
        }
        config = config.with_options(fields, sandbox=sandbox, limits=limit_items)
        settings = config.serve.with_changes(
            address=address,
            cert=None if cert is None else str(Path(cert).resolve()),
            key=None if key is None else str(Path(key).resolve()),
            client_ca=None if client_ca is None else str(Path(client_ca).resolve()),
            absent_wait=absent_wait,
            live=live,
        )
        warnings = settings.check()
        if settings.tls is not None:
            settings.tls.load()  # a bad file is one line now, not after the bots' check
        remote = {b.name for b in config.bots if b.remote}
        if not remote:
            raise ConfigError(
                f"{file}: no bot has remote = true; 'ginref tournament' runs local bots alone"
            )
        missing = TokenCheck(config.out_dir, remote).missing()
        if missing:
            raise ConfigError(
                f"no token for {', '.join(missing)}: issue one with "
                f"'ginref tokens issue {file}' and give it to the bot's entrant"
            )
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
        return HostedExecutor(config, runner.directory, confinement, settings, listening)

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

    play_and_report(config, confinement, progress, quiet, make_executor, beside)


@click.group("tokens")
def tokens_group() -> None:
    """Remote bots' tokens: issue, re-issue, revoke, list.

    A token is shown once, when it is issued; the tournament directory keeps only its SHA-256
    hash (tokens.json). A running 'ginref serve' sees a change at the bot's next connection.
    """


def _store(file: str, out_dir: str | None) -> tuple[TokenStore, list[str]]:
    config = load_file(file)
    if out_dir is not None:
        config = config.with_changes(out=out_dir)
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


OUT_OPTION = click.option(
    "--out", "out_dir", type=click.Path(file_okay=False), help="The tournament directory."
)


@tokens_group.command("issue")
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("bots", nargs=-1)
@OUT_OPTION
def issue_command(file: str, bots: tuple[str, ...], out_dir: str | None) -> None:
    """Issue a token to each of BOTS (default: every remote bot without one) and print it
    once, as NAME TOKEN lines."""
    try:
        store, remote = _store(file, out_dir)
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
@OUT_OPTION
def reissue_command(file: str, bots: tuple[str, ...], out_dir: str | None) -> None:
    """A new token for each of BOTS; their old ones stop working."""
    try:
        store, remote = _store(file, out_dir)
        tokens = [(name, store.issue(name, again=True)) for name in _pick(bots, remote, file)]
        store.save()
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    for name, token in tokens:
        click.echo(f"{name} {token}")


@tokens_group.command("revoke")
@click.argument("file", type=click.Path(dir_okay=False))
@click.argument("bots", nargs=-1, required=True)
@OUT_OPTION
def revoke_command(file: str, bots: tuple[str, ...], out_dir: str | None) -> None:
    """Revoke the tokens of BOTS: refused from their next connection; idle streams end."""
    try:
        store, remote = _store(file, out_dir)
        for name in _pick(bots, remote, file):
            store.revoke(name)
        store.save()
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"Revoked: {', '.join(bots)}")


@tokens_group.command("list")
@click.argument("file", type=click.Path(dir_okay=False))
@OUT_OPTION
def list_command(file: str, out_dir: str | None) -> None:
    """Each remote bot's token: active, revoked or none, when issued, and its hash's start."""
    try:
        store, remote = _store(file, out_dir)
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
