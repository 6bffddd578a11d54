"""What ``ginref serve`` says of its lobby on the console: a remote bot's stream that comes or
goes, the lobby at a glance, and when play starts or what it waits for.

Pure functions of the lobby's counts and the clock, apart from the executor that prints them
(:mod:`tournaments.executors.hosted`), so that their words are tested on their own.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
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


def _streams(n: int) -> str:
    return "1 stream" if n == 1 else f"{n} streams"


def format_streams(name: str, streams: int, peer: str | None) -> str:
    """A stream of ``name`` came (from ``peer``) or went (None); ``streams``: how many it holds
    now."""
    if peer is not None:
        return f"Lobby: {name} connected from {peer} ({_streams(streams)})"
    left = f"{_streams(streams)} left" if streams else "0 streams: absent"
    return f"Lobby: {name} lost a stream ({left})"


def format_lobby(counts: Mapping[str, int], revoked: Collection[str]) -> str:
    """The lobby at a glance: each remote bot connected with its streams (``counts``, in the
    file's order), then the missing ones (``revoked``: those whose token is revoked)."""
    there = [f"{name} ({_streams(n)})" for name, n in counts.items() if n]
    missing = [
        f"{name} (token revoked)" if name in revoked else name
        for name, n in counts.items()
        if not n
    ]
    connected = f"{', '.join(there)} connected" if there else "no remote bot connected"
    return f"Lobby: {connected}; " + (
        f"missing: {', '.join(missing)}" if missing else "none missing"
    )
