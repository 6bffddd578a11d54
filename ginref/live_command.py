"""``ginref live DIR``: a read-only web page of a tournament as it is played.

A thin command over :class:`tournaments.live.server.LiveView`: it serves the page until Ctrl-C
(or SIGTERM). The tournament may be run by another process (``ginref tournament``), before,
during or after this one.
"""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

import click

from ginref.option_spec import Given, with_options
from ginref.option_table import HOST, INTERVAL, PORT
from referee.errors import GinRefError
from tournaments.live import DEFAULT_PORT

if TYPE_CHECKING:
    from tournaments.live.server import LiveView


def live_view(
    directory: Path, host: str = "127.0.0.1", port: int = DEFAULT_PORT, interval: float = 1.0
) -> LiveView:
    """The live page of the tournament in ``directory``, its tables drawn by the replays'
    spectator view: for ``ginref live`` and ``ginref serve``."""
    # Imported here, for the commands that serve the page: the server (uvicorn, the watch, the
    # report's formatting) would cost every ginref command its start-up time.
    from tournaments.live.server import LiveView

    return LiveView(directory, host, port, interval=interval)


@click.command("live")
@click.argument("directory", type=click.Path(file_okay=False))
@with_options("live", HOST, PORT, INTERVAL)
def live_command(directory: str, given: Given) -> None:
    """Serve a live page of the tournament in DIRECTORY: standings as they change, the matches
    in progress with their tables, and the latest results, from public information only (a
    hand's concealed cards appear once it is over). Read only; stop with Ctrl-C.
    """
    view = live_view(Path(directory), given[HOST], given[PORT], given[INTERVAL])
    try:
        view.start()
    except GinRefError as exc:
        raise click.ClickException(str(exc)) from None
    stop = threading.Event()

    def stopping(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, stopping) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        # A line of its own, flushed: scripts (and tests) read the address from it.
        click.echo(f"Live page of {os.fspath(directory)}: {view.url} (Ctrl-C to stop)")
        while not stop.wait(3600):
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        view.stop()
    click.echo("Stopped.")
