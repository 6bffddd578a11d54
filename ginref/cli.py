"""The ``ginref`` command line: the only module that imports click.

Each command parses its arguments, calls the library, formats the result with the pure
functions of :mod:`tournaments.report` and prints it. Errors raised on purpose by ginref
(:class:`referee.errors.GinRefError`) and usage errors are printed plainly with a non-zero exit
status, never as a traceback.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ginref.confine import confine
from ginref.replay_commands import replay_command, verify_command
from ginref.report_command import report_command, write_report
from ginref.rules_command import rules_command
from referee.bots.limits import LIMIT_KEYS, Limits
from referee.bots.sandbox import SANDBOX_MODES, SandboxSettings
from referee.bots.spec import BotSpec
from referee.engine.rules import PROFILES, Rules, parse_assignments
from referee.errors import GinRefError
from referee.options import (
    DEFAULT_BANK,
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MOVE_TIME,
    DEFAULT_RETRIES,
    RefereeOptions,
)
from referee.series import run_match
from tournaments.config import FORMATS, PROCESSES, load_default, load_file
from tournaments.live import run_live
from tournaments.report import (
    format_match_outcome,
    format_run_result,
    format_standings,
)
from tournaments.runner import TournamentRunner
from tournaments.standings import (
    journal_standings,
    load_standings,
    standings_csv,
    standings_json,
    write_standings,
)

_MAX_SEED = 2**64 - 1
F = TypeVar("F", bound=Callable[..., Any])


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option("0.1.0", prog_name="ginref")
def main() -> None:
    """Referee and tournament runner for two-player Gin Rummy bots."""


def _referee_options(tournament: bool) -> Callable[[F], F]:
    """The clock, fault, limit and sandbox options of ``match`` and ``tournament``; for a
    tournament each defaults to the file's value."""

    def default(value: object) -> dict[str, Any]:
        return {"default": None} if tournament else {"default": value, "show_default": True}

    but = " (default: the file's)" if tournament else ""
    options = [
        click.option(
            "--move-time",
            type=float,
            help=f"Seconds each decision may take without touching the bank{but}.",
            **default(DEFAULT_MOVE_TIME),
        ),
        click.option(
            "--bank",
            type=float,
            help=f"Time bank per seat and match, in seconds (0: none){but}.",
            **default(DEFAULT_BANK),
        ),
        click.option(
            "--connect-timeout",
            type=float,
            help=f"Seconds a bot has to start and connect{but}.",
            **default(DEFAULT_CONNECT_TIMEOUT),
        ),
        click.option(
            "--retries",
            type=click.IntRange(0),
            help=f"Illegal or malformed actions forgiven per seat and match (0: forfeit at "
            f"once){but}.",
            **default(DEFAULT_RETRIES),
        ),
        click.option(
            "--limit",
            "limit_items",
            multiple=True,
            metavar="NAME=VALUE",
            help="A resource limit of each bot (repeatable; 0: none"
            + ("; on top of the file's [limits]" if tournament else "")
            + f"): {', '.join(LIMIT_KEYS)}.",
        ),
        click.option(
            "--sandbox",
            type=click.Choice(SANDBOX_MODES),
            default=None,
            help="bwrap (the default): each bot in a sandbox of its own (docs/security.md); "
            "none: unsandboxed, only for bots you trust.",
        ),
    ]

    def apply(command: F) -> F:
        for option in reversed(options):
            command = option(command)
        return command

    return apply


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
    "--tcp",
    "tcp_bots",
    multiple=True,
    type=click.Choice(["a", "b"]),
    help="Bot A or B reaches the referee over TCP, through a forwarder in its sandbox: for a "
    "gRPC library that cannot dial a Unix socket (Debian's grpc-java). Repeatable.",
)
@_referee_options(tournament=False)
def match_command(
    bot_a: str,
    bot_b: str,
    profile: str,
    assignments: tuple[str, ...],
    seed: int | None,
    out_dir: str,
    tcp_bots: tuple[str, ...],
    move_time: float,
    bank: float,
    connect_timeout: float,
    retries: int,
    limit_items: tuple[str, ...],
    sandbox: str | None,
) -> None:
    """Play one match between two bots and print the result.

    BOT_A (seat 0) and BOT_B (seat 1) are command lines, split like a shell would, e.g.
    "python -m sample_bots.random_bot". Each bot finds the referee's address and its secret
    token in GINREF_ADDRESS and GINREF_TOKEN (docs/referee.md).
    """
    try:
        rules = Rules.profile(profile, **parse_assignments(assignments))
        bots = tuple(
            dataclasses.replace(BotSpec.parse(text), transport="tcp" if key in tcp_bots else "unix")
            for key, text in (("a", bot_a), ("b", bot_b))
        )
        options = RefereeOptions(
            move_time=move_time,
            bank=bank,
            connect_timeout=connect_timeout,
            retries=retries,
            limits=Limits().with_keys(parse_assignments(limit_items)),
            sandbox=SandboxSettings(mode="none" if sandbox == "none" else "bwrap"),
        ).validate()
        if seed is None:
            seed = secrets.randbelow(2**31)
        confinement = confine(options.sandbox, [Path(out_dir)], bots)
        try:
            outcome = run_match(
                bots[0], bots[1], rules, seed, out_dir, options, confinement=confinement
            )
        finally:
            confinement.close()
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
@_referee_options(tournament=True)
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
    limit_items: tuple[str, ...],
    out_dir: str | None,
    sandbox: str | None,
    progress: bool | None,
    quiet: bool,
) -> None:
    """Run (or resume) a tournament and print the standings.

    FILE is a tournament file (TOML, docs/tournaments.md); without it, the embedded default: a
    round robin of the sample bots. Options override the file. Every finished match is
    committed to DIR/journal.sqlite at once: Ctrl-C stops cleanly, and running the same command
    again resumes where it stopped. Standings go to DIR/standings.csv, crosstable.csv and
    standings.json, and a web page of it all to DIR/report.html (with a replay page of each
    match in DIR/replays/).
    """
    try:
        config = load_file(file) if file else load_default()
        fields = {
            "format": fmt,
            "matches": matches,
            "rounds": rounds,
            "duplicate": duplicate,
            "challengers": challengers,
            "seed": seed,
            "profile": profile,
            "processes": processes,
            "recover": recover,
            "move_time": move_time,
            "bank": bank,
            "connect_timeout": connect_timeout,
            "retries": retries,
            "concurrency": concurrency,
            "out": out_dir,
        }
        config = config.with_options(
            fields, sandbox=sandbox, limits=limit_items, assignments=assignments
        )
        bots = [b.spec() for b in config.bots]
        confinement = confine(config.sandbox, [config.out_dir, Path(config.source)], bots)
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        runner = TournamentRunner(config)
    except GinRefError as exc:
        confinement.close()
        raise click.ClickException(str(exc)) from None
    tty = sys.stdout.isatty()
    show_bar = (tty if progress is None else progress) and not quiet
    show_lines = not show_bar and not quiet and progress is None
    try:
        result = asyncio.run(
            run_live(runner, confinement, bar=show_bar, lines=show_lines, echo=click.echo)
        )
        standings = journal_standings(runner.journal)
        written = write_standings(runner.directory, standings)
        written.append(write_report(runner.directory)[0])
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        runner.close()
        confinement.close()
    written_text = "Written: " + ", ".join(str(p) for p in written)
    click.echo("\n\n".join([format_run_result(result), format_standings(standings), written_text]))
    if result.status != "complete":
        sys.exit(130)


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
    raw = {"csv": standings_csv, "json": standings_json}.get(fmt)
    click.echo(raw(standings) if raw else format_standings(standings), nl=raw is None)


main.add_command(replay_command)
main.add_command(verify_command)
main.add_command(report_command)


main.add_command(rules_command)

if __name__ == "__main__":  # pragma: no cover
    main()
