"""The sandbox settings of a command that starts bots, with its warnings on stderr."""

from __future__ import annotations

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
