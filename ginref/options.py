"""What the ``ginref`` commands share: the referee's options, the bots' confinement, and the
width of the report."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from referee.bots.confine import Confinement
from referee.bots.limits import LIMIT_KEYS
from referee.bots.sandbox import SANDBOX_MODES, SandboxSettings
from referee.bots.spec import BotSpec
from referee.settings import (
    DEFAULT_BANK,
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_MOVE_TIME,
    DEFAULT_RETRIES,
)

F = TypeVar("F", bound=Callable[..., Any])

# What ``tournament`` and ``serve`` share besides the referee's options.
concurrency_option = click.option(
    "-j",
    "--concurrency",
    type=click.IntRange(0),
    default=None,
    help="Matches played at once (0: the number of cores). Default: the file's, else the "
    "number of cores.",
)

# ``tournament`` and ``sprt``: how many referee processes play the matches (not ``serve``,
# whose remote bots' lobby lives in its one process).
workers_option = click.option(
    "--workers",
    type=click.IntRange(0),
    default=None,
    help="Referee processes the matches are spread over (0: every match refereed in this "
    "process). Default: the file's, else the number of cores, never more than -j.",
)


def progress_options(command: F) -> F:
    """``--progress/--no-progress`` and ``-q``: how a run shows itself."""
    command = click.option("-q", "--quiet", is_flag=True, help="Print only the final report.")(
        command
    )
    return click.option(
        "--progress/--no-progress",
        default=None,
        help="Live progress display. Default: on when stdout is a terminal; otherwise one line "
        "per match.",
    )(command)


def referee_options(tournament: bool) -> Callable[[F], F]:
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
            "--ponder/--no-ponder",
            default=None if tournament else False,
            help="Let bots think on their opponents' time; by default each bot is frozen "
            f"between its turns, so that it takes no CPU from the one to act{but}.",
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


def confine(
    settings: SandboxSettings, protected: list[Path], bots: Sequence[BotSpec] = ()
) -> Confinement:
    """The run's confinement; its warnings (no sandbox, no cgroups) go to stderr."""
    confinement = Confinement.prepare(settings, protected, bots)
    for warning in confinement.warnings:
        click.echo(f"Warning: {warning}", err=True)
    return confinement


def report_width() -> int | None:
    """The columns a report may use: ``COLUMNS`` when set, else the terminal's width when the
    output is a terminal, else None (a pipe or a file: no limit)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if sys.stdout.isatty():
        return shutil.get_terminal_size().columns
    return None


EXECUTORS = ("local", "ray")


def executor_options(command: F) -> F:
    """``--executor`` and ``--address``: where a tournament's matches are played."""
    command = click.option(
        "--address",
        metavar="ADDR",
        help="With --executor ray: the cluster, as ray.init takes it (HOST:PORT of its head, "
        "or auto). Default: RAY_ADDRESS, else a cluster running on this "
        "machine, else a local one started for the run (docs/ray.md).",
    )(command)
    return click.option(
        "--executor",
        type=click.Choice(EXECUTORS),
        default="local",
        show_default=True,
        help="local: every match refereed by this process; ray: each job a task on a Ray "
        "cluster's nodes (pip install 'ginref[ray]', docs/ray.md).",
    )(command)


def check_executor(executor: str, address: str | None, workers: int | None = None) -> None:
    """Refuse an ``--address`` or ``--workers`` that the executor would not use."""
    if address is not None and executor != "ray":
        raise click.UsageError("--address is for --executor ray")
    if workers is not None and executor == "ray":
        raise click.UsageError(
            "--workers is for local matches: with --executor ray, -j jobs "
            "run over the cluster's CPUs"
        )
