"""A tournament run live in a terminal: progress as it goes, Ctrl-C (or SIGTERM) for a clean stop.

Printing goes through ``echo`` (``click.echo`` from the command line), so that this module
needs no terminal library of its own.
"""

from __future__ import annotations

import asyncio
import signal
from typing import Protocol

from referee.bots.confine import Confinement
from tournaments.report import format_match_line, format_progress
from tournaments.runner import Progress, RunResult, TournamentRunner


class Echo(Protocol):
    """``click.echo``'s shape."""

    def __call__(self, message: str = "", *, nl: bool = True, err: bool = False) -> None: ...


async def run_live(
    runner: TournamentRunner, confinement: Confinement, *, bar: bool, lines: bool, echo: Echo
) -> RunResult:
    """Run the tournament: a progress bar on one line, or a line per match; a first Ctrl-C stops
    it cleanly (matches in flight abandoned, their bots stopped)."""
    loop = asyncio.get_running_loop()
    shown = [0]

    def on_progress(p: Progress) -> None:
        if bar:
            text = format_progress(p)
            pad = max(0, shown[0] - len(text))
            shown[0] = len(text)
            echo("\r" + text + " " * pad, nl=False)
        elif lines and p.last is not None:
            echo(format_match_line(p))

    def on_signal() -> None:
        stopping = runner.stop()
        if bar:
            echo("")
            shown[0] = 0
        if stopping:
            echo("Stopping: the matches in flight are abandoned, their bots stopped...", err=True)
        else:
            echo("Still stopping the bots; please wait.", err=True)

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, on_signal)
    try:
        return await runner.run(on_progress=on_progress, confinement=confinement)
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        if bar and shown[0]:
            echo("")
