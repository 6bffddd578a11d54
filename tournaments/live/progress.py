"""A tournament run live: progress as it goes, and Ctrl-C (or SIGTERM) for a clean stop.

On a terminal the progress is a ``rich`` live display that redraws in place and fits the
terminal's width: a bar with the matches done of all, the time elapsed and a steady ETA, then
the matches running, the faults so far and the leader, then the last result. Elsewhere (a pipe,
a log file, CI) it is plain lines: one per finished match, and one every
:data:`HEARTBEAT` seconds while none finishes, so that a log shows the run is alive.

Signals (:class:`Interrupts`): the first Ctrl-C starts no more matches and lets the running ones
finish; a second one (or SIGTERM) cuts them at once and kills their bots. Either way the
command then writes the standings of what finished; Ctrl-C while it does only says so.
"""

from __future__ import annotations

import asyncio
import dataclasses
import signal
import sys
import time
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import TextIO

from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from referee.bots.confine import Confinement
from tournaments.executors.local import Executor
from tournaments.outputs.console import format_duration, format_match_line, format_progress_line
from tournaments.runner import Progress, RunResult, TournamentRunner

HEARTBEAT = 30.0  # seconds without a finished match before a plain progress line says so
REFRESH = 4  # redraws of the live display per second

Say = Callable[[str], None]


def _say_to(stream: TextIO) -> Say:
    def say(text: str) -> None:
        print(text, file=stream, flush=True)

    return say


class Interrupts:
    """SIGINT and SIGTERM for the whole command, installed with ``with``.

    While a run is attached (:meth:`attach`), the first SIGINT drains the run and the next one,
    or a SIGTERM, cuts it; the runner is told on its event loop. Before and after, a signal only
    says that the standings are on their way: the matches that finished are in the journal and
    their standings are written before the command exits.
    """

    def __init__(self, say: Say | None = None) -> None:
        self.say = say or _say_to(sys.stderr)
        self.count = 0
        self._runner: TournamentRunner | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._saved: dict[int, object] = {}

    def __enter__(self) -> Interrupts:
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._saved[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for sig, handler in self._saved.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]

    def attach(self, runner: TournamentRunner, loop: asyncio.AbstractEventLoop) -> None:
        """Send the signals to ``runner`` (its loop: the running one)."""
        self._runner, self._loop = runner, loop

    def detach(self) -> None:
        """The run is over: signals only say that the standings follow."""
        self._runner = self._loop = None

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.count += 1
        loop = self._loop
        if loop is not None and not loop.is_closed():
            # A signal handler runs between two bytecodes of the main thread: hand the work to
            # the event loop instead of doing it here.
            loop.call_soon_threadsafe(self._stop, signum)
        else:
            self.say("Writing the standings of the matches that finished; please wait.")

    def _stop(self, signum: int) -> None:
        runner = self._runner
        if runner is None:
            return
        what = runner.stop(drain=signum == signal.SIGINT)
        self.say(
            {
                "draining": "Stopping: no new match starts, the running ones finish; press "
                "Ctrl-C again to cut them now.",
                "cutting": "Cutting the running matches now; their bots are killed. The "
                "standings of the matches that finished follow.",
                "already": "Still stopping; the standings follow.",
            }[what]
        )


class _Display:
    """The live display's state: the last progress, and the ETA from the mean time per match."""

    def __init__(self, starting: str = "Starting...") -> None:
        self.starting = starting  # shown until the first progress
        self.state: tuple[Progress, float] | None = None  # the last progress, and when
        self.last_line = ""

    def update(self, p: Progress) -> None:
        # One assignment of a (progress, time) pair: rich redraws from a thread of its own.
        self.state = (p, time.monotonic())
        if p.last is not None:
            self.last_line = format_match_line(p, with_progress=False)

    def now(self) -> Progress | None:
        """A copy of the last progress with its clock moved on to now."""
        if self.state is None:
            return None
        p, at = self.state
        return dataclasses.replace(p, elapsed=p.elapsed + time.monotonic() - at)

    def render(self) -> RenderableType:
        p = self.now()
        if p is None:
            return _line(self.starting)
        top = Table.grid(expand=True, padding=(0, 1))
        top.add_column(ratio=1)
        top.add_column(no_wrap=True)
        top.add_row(
            ProgressBar(total=max(p.total, 1), completed=p.done),
            Text(
                f"{p.done}/{p.total}  {format_duration(p.elapsed)} elapsed  "
                f"ETA {format_duration(p.eta)}",
                no_wrap=True,
                overflow="ellipsis",
            ),
        )
        lines: list[RenderableType] = [top, _line(format_progress_line(p))]
        if self.last_line:
            lines.append(_line(f"last: {self.last_line}"))
        return Group(*lines)


def _line(text: str) -> Text:
    return Text(text, no_wrap=True, overflow="ellipsis")


async def run_live(
    runner: TournamentRunner,
    confinement: Confinement,
    *,
    interrupts: Interrupts,
    mode: str,
    console: Console | None = None,
    echo: Say | None = None,
    check: bool | None = None,
    executor: Executor | None = None,
) -> RunResult:
    """Run the tournament with a progress display: ``mode`` ``live`` (a terminal; rich on
    ``console``), ``lines`` (plain lines through ``echo``) or ``quiet``; on ``executor``
    (default: local processes)."""
    echo = echo or _say_to(sys.stdout)
    interrupts.attach(runner, asyncio.get_running_loop())
    try:
        if mode == "live":
            return await _run_with_display(
                runner, confinement, console or Console(), check, executor
            )
        if mode == "lines":
            return await _run_with_lines(runner, confinement, echo, check, executor)
        return await runner.run(confinement=confinement, check=check, executor=executor)
    finally:
        interrupts.detach()


async def _run_with_display(
    runner: TournamentRunner,
    confinement: Confinement,
    console: Console,
    check: bool | None,
    executor: Executor | None,
) -> RunResult:
    checking = runner.to_check() if (runner.config.check_bots if check is None else check) else []
    display = _Display(
        f"Checking {len(checking)} bots: each must start and say Hello..." if checking else ""
    )
    with Live(
        get_renderable=display.render,
        console=console,
        refresh_per_second=REFRESH,
        redirect_stderr=True,
        redirect_stdout=True,
    ):
        return await runner.run(
            on_progress=display.update, confinement=confinement, check=check, executor=executor
        )


async def _run_with_lines(
    runner: TournamentRunner,
    confinement: Confinement | None,
    echo: Say,
    check: bool | None,
    executor: Executor | None = None,
    *,
    heartbeat_s: float = HEARTBEAT,
    tick: float = 1.0,
) -> RunResult:
    state = _Display()
    said = [time.monotonic()]

    def on_progress(p: Progress) -> None:
        state.update(p)
        if p.last is not None:
            echo(format_match_line(p))
            said[0] = time.monotonic()

    async def heartbeat() -> None:
        while True:
            await asyncio.sleep(tick)
            p = state.now()
            if p is not None and time.monotonic() - said[0] >= heartbeat_s:
                echo(
                    f"[{p.done}/{p.total}] {format_progress_line(p)}; "
                    f"{format_duration(p.elapsed)} elapsed, ETA {format_duration(p.eta)}"
                )
                said[0] = time.monotonic()

    beat = asyncio.ensure_future(heartbeat())
    try:
        return await runner.run(
            on_progress=on_progress, confinement=confinement, check=check, executor=executor
        )
    finally:
        beat.cancel()
