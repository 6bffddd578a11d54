"""What ``ginref serve`` says of its lobby on the console: when play starts and what it waits for.

Pure functions of the lobby's counts and the clock, apart from the executor that prints them
(:mod:`tournaments.executors.hosted`), so that their words are tested on their own.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from tournaments.outputs.console import format_duration


def _moment(when: datetime, now: datetime) -> str:
    """``14:00`` today, ``2026-12-04 14:00`` another day (seconds only when there are some)."""
    clock = when.strftime("%H:%M:%S" if when.second else "%H:%M")
    return clock if when.date() == now.date() else f"{when:%Y-%m-%d} {clock}"


def format_waiting(when: datetime | None, now: datetime, missing: Sequence[str]) -> str:
    """What play waits for: a moment (``when``), or the remote bots still ``missing`` (None:
    every remote bot must be connected)."""
    if when is None:
        return f"Play starts when every remote bot is connected; waiting for {', '.join(missing)}."
    left = format_duration((when - now).total_seconds())
    return f"Play starts at {_moment(when, now)} (in {left}); waiting."
