"""The ``ginref`` command line: the only module that imports click.

Each command parses its arguments, calls the library, formats the result with the pure
functions of :mod:`tournaments.report` and prints it. Errors raised on purpose by ginref
(:class:`referee.errors.GinRefError`) and usage errors are printed plainly with a non-zero exit
status, never as a traceback.
"""

from __future__ import annotations

import asyncio
import secrets
import signal
import sys
from pathlib import Path

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
from tournaments.config import FORMATS, PROCESSES, load_default, load_file
from tournaments.report import (
    format_match_line,
    format_match_outcome,
    format_progress,
    format_run_result,
    format_standings,
)
from tournaments.runner import Progress, RunResult, TournamentRunner
from tournaments.standings import (
    journal_standings,
    load_standings,
    standings_csv,
    standings_json,
    write_standings,
)

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


# --- tournaments ------------------------------------------------------------------------------


@main.command("tournament")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option(
    "-j",
    "--concurrency",
    type=click.IntRange(1),
    default=None,
    help="Matches played at once. Default: the file's, else the number of cores.",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), help="Tournament format.")
@click.option(
    "-n",
    "--matches",
    type=click.IntRange(1),
    help="Matches per pairing and round (even with --duplicate).",
)
@click.option("--rounds", type=click.IntRange(1), help="Cycles through the pairings.")
@click.option(
    "--duplicate/--no-duplicate",
    default=None,
    help="Play every deal twice with the seats swapped and report paired totals.",
)
@click.option(
    "--challenger",
    "challengers",
    multiple=True,
    metavar="NAME",
    help="A gauntlet challenger (repeatable); replaces the file's list.",
)
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    help="Master seed (every match seed derives from it).",
)
@click.option("--profile", "-p", help=f"Rule profile: {', '.join(PROFILES)}.")
@click.option(
    "--set",
    "assignments",
    multiple=True,
    metavar="NAME=VALUE",
    help="Override a rule parameter (repeatable), on top of the file's [rules.set].",
)
@click.option(
    "--processes",
    type=click.Choice(PROCESSES),
    help="fresh: new bot processes for every match; keep: one pair per pairing series.",
)
@click.option(
    "--recover/--no-recover",
    default=None,
    help="With kept processes, restart the bots after one crashes instead of forfeiting the "
    "rest of the series.",
)
@click.option("--move-time", type=float, help="Seconds per decision before the bank is used.")
@click.option("--bank", type=float, help="Time bank per seat and match, in seconds.")
@click.option("--connect-timeout", type=float, help="Seconds a bot has to start and connect.")
@click.option("--retries", type=click.IntRange(0), help="Illegal actions forgiven per match.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    help="Tournament directory (journal, logs, standings). Default: the file's out, else "
    "runs/<name>. The same directory resumes the tournament.",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Live progress bar. Default: on when stdout is a terminal; otherwise one line per match.",
)
@click.option("-q", "--quiet", is_flag=True, help="Print only the final report.")
def tournament_command(
    file: str | None,
    concurrency: int | None,
    fmt: str | None,
    matches: int | None,
    rounds: int | None,
    duplicate: bool | None,
    challengers: tuple[str, ...],
    seed: int | None,
    profile: str | None,
    assignments: tuple[str, ...],
    processes: str | None,
    recover: bool | None,
    move_time: float | None,
    bank: float | None,
    connect_timeout: float | None,
    retries: int | None,
    out_dir: str | None,
    progress: bool | None,
    quiet: bool,
) -> None:
    """Run (or resume) a tournament and print the standings.

    FILE is a tournament file (TOML, docs/tournaments.md); without it, the embedded default: a
    round robin of the sample bots. Options override the file. Every finished match is
    committed to DIR/journal.sqlite at once: Ctrl-C stops cleanly, and running the same command
    again resumes where it stopped. Standings go to DIR/standings.csv, crosstable.csv and
    standings.json.
    """
    try:
        config = load_file(file) if file else load_default()
        changes: dict[str, object] = {
            key: value
            for key, value in (
                ("format", fmt),
                ("matches", matches),
                ("rounds", rounds),
                ("duplicate", duplicate),
                ("seed", seed),
                ("profile", profile),
                ("processes", processes),
                ("recover", recover),
                ("move_time", move_time),
                ("bank", bank),
                ("connect_timeout", connect_timeout),
                ("retries", retries),
                ("concurrency", concurrency),
                ("out", out_dir),
            )
            if value is not None
        }
        if challengers:
            changes["challengers"] = challengers
        if assignments:
            merged = dict(config.rule_overrides)
            merged.update(parse_assignments(assignments))
            changes["rule_overrides"] = tuple(merged.items())
        config = config.with_changes(**changes)
        runner = TournamentRunner(config)
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    tty = sys.stdout.isatty()
    show_bar = (tty if progress is None else progress) and not quiet
    show_lines = not show_bar and not quiet and progress is None
    try:
        result = asyncio.run(_run_tournament(runner, show_bar, show_lines))
        standings = journal_standings(runner.journal)
        written = write_standings(runner.directory, standings)
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        runner.close()
    click.echo(format_run_result(result))
    click.echo("")
    click.echo(format_standings(standings))
    click.echo("")
    click.echo("Written: " + ", ".join(str(p) for p in written))
    if result.status != "complete":
        sys.exit(130)


async def _run_tournament(runner: TournamentRunner, bar: bool, lines: bool) -> RunResult:
    """Run with Ctrl-C (and SIGTERM) wired to a clean stop, printing progress."""
    loop = asyncio.get_running_loop()
    shown = [0]

    def on_progress(p: Progress) -> None:
        if bar:
            text = format_progress(p)
            pad = max(0, shown[0] - len(text))
            shown[0] = len(text)
            click.echo("\r" + text + " " * pad, nl=False)
        elif lines and p.last is not None:
            click.echo(format_match_line(p))

    def on_signal() -> None:
        stopping = runner.stop()
        if bar:
            click.echo("")
            shown[0] = 0
        if stopping:
            click.echo(
                "Stopping: the matches in flight are abandoned, their bots stopped...", err=True
            )
        else:
            click.echo("Still stopping the bots; please wait.", err=True)

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, on_signal)
    try:
        return await runner.run(on_progress=on_progress)
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        if bar and shown[0]:
            click.echo("")


@main.command("standings")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "csv", "json"]),
    default="table",
    show_default=True,
    help="table: the report ginref tournament prints; csv or json: the files' contents.",
)
def standings_command(directory: str, fmt: str) -> None:
    """Print the standings of the tournament in DIRECTORY from its journal.

    Works while the tournament is running, too (the journal is read, never written).
    """
    try:
        standings = load_standings(Path(directory))
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    if fmt == "csv":
        click.echo(standings_csv(standings), nl=False)
    elif fmt == "json":
        click.echo(standings_json(standings), nl=False)
    else:
        click.echo(format_standings(standings))


if __name__ == "__main__":  # pragma: no cover
    main()
