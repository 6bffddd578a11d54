"""``ginref tournament`` and ``ginref standings``.

Exit status of ``ginref tournament`` (docs/tournaments.md): 0 when the tournament is complete
and every bot connected to every match; 1 when nothing could start (a bad file, option or
journal, or a bot that failed its check); 3 when matches were forfeited because a bot never
connected; 130 when the run was stopped (Ctrl-C, SIGTERM) before the end. A sequential test
(``format = "sprt"``, as ``ginref sprt`` runs) that ends otherwise exits with its verdict: 0
H1 accepted, 10 H0 accepted, 11 undecided at its maximum.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ginref.option_spec import Given, with_options
from ginref.option_table import (
    CHALLENGER,
    CHECK_BOTS,
    CONCURRENCY,
    DEALS,
    DUPLICATE,
    EXECUTOR,
    FORMAT,
    MATCHES,
    OUT,
    PROCESSES,
    PROFILE,
    PROGRESS,
    QUIET,
    RAY_ADDRESS,
    RECOVER,
    REFEREE,
    REPORT_FORMAT,
    ROUNDS,
    SEED,
    SET,
    SHOWING,
    WORKERS,
)
from ginref.shared import confine, report_width
from referee.errors import GinRefError
from tournaments.file.config import TournamentConfig, load_default, load_file

# The runner, its executors, the standings and their formatting are imported by the functions
# that run or report: declaring the commands (every ginref command does, even --help) would
# otherwise pay their start-up time.
if TYPE_CHECKING:
    from referee.bots.confine import Confinement
    from tournaments.executors.local import Executor
    from tournaments.results.standings import Standings
    from tournaments.runner import RunResult, TournamentRunner

    # Makes the executor of a run (None: local processes), given the runner and the confinement.
    MakeExecutor = Callable[[TournamentRunner, Confinement], Executor]
    # Runs beside the tournament (a live page, say): started before the first match, stopped
    # after.
    Beside = Callable[[TournamentRunner, Executor | None], AbstractAsyncContextManager[None]]

EXIT_NOT_CONNECTED = 3
EXIT_INTERRUPTED = 130
# A sequential test's verdict, so that a script need not read sprt.json: 0 when the new bot is
# stronger, as a check that passes.
EXIT_H1 = 0
EXIT_H0 = 10
EXIT_INCONCLUSIVE = 11
EXIT_BY_DECISION = {"H1": EXIT_H1, "H0": EXIT_H0}


@click.command("tournament")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@with_options(
    "tournament",
    CONCURRENCY,
    WORKERS,
    FORMAT,
    MATCHES,
    ROUNDS,
    DUPLICATE,
    CHALLENGER,
    SEED,
    DEALS,
    PROFILE,
    SET,
    PROCESSES,
    RECOVER,
    *REFEREE,
    CHECK_BOTS,
    OUT,
    EXECUTOR,
    RAY_ADDRESS,
    *SHOWING,
)
def tournament_command(file: str | None, given: Given) -> None:
    """Run (or resume) a tournament and print the standings.

    FILE is a tournament file (TOML, docs/tournaments.md); without it, the embedded default: a
    round robin of the sample bots. Options override the file. Every bot is started once
    first and must say Hello. Every finished match is committed to DIR/journal.sqlite at once:
    Ctrl-C stops cleanly (a second Ctrl-C cuts the running matches), and running the same
    command again resumes where it stopped. Standings go to DIR/standings.csv, crosstable.csv
    and standings.json. Exit status: 0 complete, 1 nothing could start, 3 bots never
    connected, 130 stopped; a sequential test (format = "sprt") otherwise its verdict: 0 H1,
    10 H0, 11 undecided.
    """
    from referee.bots.confine import Confinement

    executor, address = given[EXECUTOR], given[RAY_ADDRESS]
    check_executor(executor, address, given[WORKERS])
    try:
        config = given.apply(load_file(file) if file else load_default())
        bots = [b.spec() for b in config.local_bots]
        if executor == "ray":
            # The bots are confined on the nodes that play them, each node checking its own.
            confinement = Confinement(config.sandbox.validate(), None)
        else:
            confinement = confine(config.sandbox, config.protected, bots)
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    play_and_report(config, confinement, given, ray_executor(executor, address))


def check_executor(executor: str, address: str | None, workers: int | None) -> None:
    """Refuse an ``--address`` or ``--workers`` that the executor would not use."""
    if address is not None and executor != "ray":
        raise click.UsageError("--address is for --executor ray")
    if workers is not None and executor == "ray":
        raise click.UsageError(
            "--workers is for local matches: with --executor ray, -j jobs "
            "run over the cluster's CPUs"
        )


def ray_executor(executor: str, address: str | None) -> MakeExecutor | None:
    """What makes the run's executor: None for local processes."""
    if executor != "ray":
        return None

    from tournaments.executors.cluster import RayExecutor

    def lost(line: str) -> None:
        click.echo(f"Warning: {line}", err=True)

    return lambda runner, _: RayExecutor(runner.config, runner.directory, address, lost)


def not_connected(standings: Standings, width: int | None) -> str | None:
    """The closing warning of bots that never connected (None: none), as the console words it."""
    from tournaments.outputs.console import format_not_connected

    return format_not_connected(standings, width)


def play_and_report(
    config: TournamentConfig,
    confinement: Confinement,
    given: Given,
    make_executor: MakeExecutor | None = None,
    beside: Beside | None = None,
    warn: Callable[[Standings, int | None], str | None] = not_connected,
) -> None:
    """Run (or resume) the tournament, print and write its standings, exit as documented;
    ``given`` says how to show the run (``--progress``, ``-q``), ``warn`` the closing warning
    of bots that never connected (None: none)."""
    import asyncio
    import contextlib

    from rich.console import Console

    from tournaments.live.progress import Interrupts, run_live
    from tournaments.outputs.console import format_run_result, format_standings
    from tournaments.outputs.report import write_report
    from tournaments.results.standings import journal_standings, write_standings
    from tournaments.runner import BotCheckError, RunStopped, TournamentRunner
    from tournaments.sprt_run import format_report as format_sprt
    from tournaments.sprt_run import journal_report
    from tournaments.sprt_run import write_report as write_sprt

    try:
        runner = TournamentRunner(config)
    except GinRefError as exc:
        confinement.close()
        raise click.ClickException(str(exc)) from None
    progress, quiet = given[PROGRESS], given[QUIET]
    live = (sys.stdout.isatty() if progress is None else progress) and not quiet
    mode = "live" if live else ("lines" if not quiet and progress is None else "quiet")
    width = report_width()

    async def run(interrupts: Interrupts) -> RunResult:
        executor = None if make_executor is None else make_executor(runner, confinement)
        with_it = beside(runner, executor) if beside else contextlib.nullcontext()
        async with with_it:
            return await run_live(
                runner,
                confinement,
                interrupts=interrupts,
                mode=mode,
                console=Console(),
                executor=executor,
            )

    try:
        with Interrupts() as interrupts:
            try:
                result = asyncio.run(run(interrupts))
            except BotCheckError as exc:
                for line in str(exc).splitlines():
                    click.echo(f"Error: {line}", err=True)
                click.echo(
                    f"No match was played: {len(exc.failed)} of {exc.checked} bots could not "
                    f"start (their output is in {runner.directory / 'checks'}). Fix them and "
                    "run again, or skip this check with --no-check-bots (check_bots = false).",
                    err=True,
                )
                sys.exit(1)
            except RunStopped as exc:
                click.echo(f"Stopped: {exc}; nothing was played.", err=True)
                sys.exit(EXIT_INTERRUPTED)
            # Ctrl-C from here on only says the standings are on their way (Interrupts).
            standings = journal_standings(runner.journal)
            written = write_standings(runner.directory, standings)
            written.append(write_report(runner.directory)[0])
            test = journal_report(runner.journal)
            if test is not None:
                written.append(write_sprt(runner.directory, test))
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        runner.close()
        confinement.close()
    names = ", ".join(p.name for p in written)
    parts = [
        format_run_result(result, width),
        format_standings(standings, width),
        *([] if test is None else [format_sprt(test)]),
        f"Written: {names}",
    ]
    click.echo("\n\n".join(parts))
    warning = warn(standings, width)
    if warning is not None:
        click.echo(warning, err=True)
    if result.status != "complete":
        sys.exit(EXIT_INTERRUPTED)
    if warning is not None:
        sys.exit(EXIT_NOT_CONNECTED)
    if config.format == "sprt":
        decision = "inconclusive" if test is None else test.decision
        sys.exit(EXIT_BY_DECISION.get(decision, EXIT_INCONCLUSIVE))


@click.command("standings")
@click.argument("directory", type=click.Path(file_okay=False))
@with_options("standings", REPORT_FORMAT)
def standings_command(directory: str, given: Given) -> None:
    """Print the standings of the tournament in DIRECTORY from its journal.

    Works while the tournament is running, too (the journal is read, never written).
    """
    from tournaments.outputs.console import format_standings
    from tournaments.results.standings import load_standings, standings_csv, standings_json
    from tournaments.sprt_run import format_report as format_sprt
    from tournaments.sprt_run import load_sprt

    fmt = given[REPORT_FORMAT]
    try:
        standings = load_standings(Path(directory))
        test = load_sprt(Path(directory)) if fmt == "table" else None
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    raw = {"csv": standings_csv, "json": standings_json}.get(fmt)
    text = raw(standings) if raw else format_standings(standings, report_width())
    if test is not None:
        text += "\n\n" + format_sprt(test)
    click.echo(text, nl=raw is None)
