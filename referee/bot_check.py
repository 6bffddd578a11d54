"""A bot's check before play: start it once, the way its matches will start it, and wait for
its Hello.

A tournament checks each of its bots before its first match (``ginref tournament``; docs/
tournaments.md), so that a bot that was never built, crashes at start or never connects stops
the run at once with one line that says why, instead of forfeiting every match. The check
launches the bot exactly as :func:`referee.lineup.launch` does for a match (sandboxed when the
sandbox is on, with its limits, its transport and its own socket), waits for the Welcome, then
ends the stream and stops the bot (its exit grace, SIGTERM, SIGKILL). Bots are checked
concurrently, at most ``concurrency`` at once.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.bots.confine import Confinement
from referee.bots.process import BotProcess
from referee.bots.spec import BotSpec
from referee.lineup import CONNECT_TIMEOUT_OPTION, launch
from referee.server import RefereeServer
from referee.settings import RefereeOptions
from referee.text import safe_text

TAIL_LINES = 3  # of the bot's output, quoted in a failed check
TAIL_CHARS = 300
_ERROR = re.compile(r"error|exception|fatal|panic", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class BotCheck:
    """How one bot's check went."""

    name: str
    problem: str | None  # why it cannot play, in one line; None: it said Hello
    seconds: float  # from the launch to the Welcome (or to the failure)
    output: Path  # its stdout and stderr during the check

    @property
    def ok(self) -> bool:
        """Whether it started and said Hello."""
        return self.problem is None


def output_tail(path: Path, lines: int = TAIL_LINES) -> str:
    """The last non-empty lines of a bot's output, safe to print, on one line (``|`` between
    them): a traceback's last line is usually the one that says what went wrong."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    kept = [safe_text(line.strip(), None) for line in text.splitlines() if line.strip()]
    # The referee's own note of a launch that failed repeats what the problem says.
    kept = [line for line in kept if not line.startswith("ginref: ")]
    shown = kept[-lines:]
    # A runtime's report often ends with lines that say little (a stack's last frames, its
    # version): the last line that names an error goes first when it is not among them.
    named = next((line for line in reversed(kept) if _ERROR.search(line)), None)
    if named is not None and named not in shown:
        shown = [named, "…", kept[-1]]
    tail = " | ".join(shown)
    return tail if len(tail) <= TAIL_CHARS else "…" + tail[-(TAIL_CHARS - 1) :]


async def check_bot(
    spec: BotSpec,
    output: Path,
    server: RefereeServer,
    options: RefereeOptions,
    confinement: Confinement | None = None,
) -> BotCheck:
    """Start ``spec`` as a match would, wait for its Hello, stop it; its output to ``output``."""
    ticket = server.issue_ticket(f"the check of {spec.name}")
    process = BotProcess(spec, output, options.limits, confinement)
    began = time.monotonic()
    problem: str | None = None
    try:
        await launch(process, ticket, server, 0)
        if process.start_error is not None:
            problem = process.start_error
        else:
            waiting: set[asyncio.Future[Any]] = {ticket.connected, process.exited}
            await asyncio.wait(
                waiting, timeout=options.connect_timeout, return_when=asyncio.FIRST_COMPLETED
            )
            if ticket.connected.done():
                ticket.connected.result().close()
            elif process.exited.done():
                problem = f"it {process.exit_text(process.exited.result())} before its Hello"
            else:
                problem = (
                    f"no Hello within {options.connect_timeout:g} s "
                    f"(raise it with {CONNECT_TIMEOUT_OPTION})"
                )
        seconds = time.monotonic() - began
    finally:
        server.revoke(ticket)
        late = f"it did not connect within {options.connect_timeout:g} s"
        await process.stop(
            0.0 if problem else options.exit_grace, options.kill_grace, late if problem else None
        )
        await server.close_seat(ticket)
    if problem is not None:
        problem = re.sub(r"\s+", " ", problem)
        tail = output_tail(output)
        if tail:
            problem += f"; its output ends: {tail}"
    return BotCheck(spec.name, problem, seconds, output)


async def check_bots(
    specs: Sequence[BotSpec],
    directory: Path,
    server: RefereeServer,
    options: RefereeOptions,
    confinement: Confinement | None = None,
    concurrency: int = 1,
) -> list[BotCheck]:
    """Check every bot, ``concurrency`` at once; each one's output goes to
    ``directory/<name>.log``. The checks, in the order of ``specs``."""
    directory.mkdir(parents=True, exist_ok=True)
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(spec: BotSpec) -> BotCheck:
        async with gate:
            return await check_bot(
                spec, directory / f"{spec.name}.log", server, options, confinement
            )

    return list(await asyncio.gather(*(one(spec) for spec in specs)))
