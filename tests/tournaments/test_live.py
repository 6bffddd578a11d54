"""Plain progress lines (a pipe, a log): one per finished match, and a heartbeat while none
finishes; driven by a stand-in runner, synchronised on the lines themselves."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.tournaments.test_config import record
from tournaments.live.progress import _run_with_lines
from tournaments.runner import OnProgress, Progress, RunResult

BOUND = 60.0  # seconds: far above what the stand-in needs


class StandIn:
    """Reports a run in progress, waits for a heartbeat line, then one finished match."""

    def __init__(self, lines: list[str], beat: asyncio.Event) -> None:
        self.lines = lines
        self.beat = beat

    async def run(self, on_progress: OnProgress, **_: Any) -> RunResult:
        now = Progress(done=3, total=10, running=2, played=0, elapsed=12.0, leader=("g", 2, 3))
        on_progress(now)
        await asyncio.wait_for(self.beat.wait(), BOUND)
        last = record("g.r.004", ("g", "r"), 0, (104, 12))
        on_progress(
            Progress(
                done=4,
                total=10,
                running=1,
                played=1,
                elapsed=20.0,
                leader=("g", 3, 4),
                last=last,
                faults=1,
                finished_at=20.0,
            )
        )
        return RunResult("complete", 10, 4, 1, 2, 20.0, 1.0, 1.0, Path("."), 1)


def test_a_heartbeat_line_while_no_match_finishes_then_a_line_per_match() -> None:
    lines: list[str] = []
    beat = asyncio.Event()

    def echo(text: str) -> None:
        lines.append(text)
        if "running" in text:
            beat.set()

    runner: Any = StandIn(lines, beat)
    asyncio.run(_run_with_lines(runner, None, echo, None, heartbeat_s=0.0, tick=0.01))
    heartbeat, match = lines[0], lines[-1]
    assert heartbeat.startswith("[3/10] 2 running, 0 faults, leader g 2/3; ")
    assert " elapsed, ETA -" in heartbeat  # nothing finished in this run yet: no ETA
    assert match == "[4/10] g.r.004: g v r 104-12, g wins; 0:20 elapsed, ETA 2:00, 1 fault"


def test_the_page_shows_the_rating_as_the_terminal_prints_it() -> None:
    # -254.5 rounds to -254 in Python and to -255 with JavaScript's toFixed: the page must not
    # round on its own.
    from tournaments.live.watch import _row
    from tournaments.outputs.console import elo_text
    from tournaments.results.standings import BotStanding

    s = BotStanding("a", elo=-254.5, elo_low=-300.5, elo_high=-211.5)
    assert _row(s)["elo_text"] == elo_text(s) == "-254 [-300, -212]"
    page = (Path(__file__).parents[2] / "tournaments/live/live-page.html").read_text()
    assert "s.elo_text" in page and "num(s.elo" not in page
