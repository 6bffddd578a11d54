"""What the ``ginref`` commands share besides their options (:mod:`ginref.option_table`): the
bots' confinement, its warnings printed, and the width a report may use."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import click

from referee.bots.confine import Confinement
from referee.bots.sandbox import SandboxSettings
from referee.bots.spec import BotSpec


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
