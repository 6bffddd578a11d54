"""An executor whose matches end at once, their winners scripted: for tests of what the runner
does with results (stopping, resuming, rating) without bot processes."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

from referee.bot_check import BotCheck
from tests.tournaments.test_config import record
from tournaments.schedule import Job, MatchSpec


class Scripted:
    """An executor whose matches end at once: ``winner(spec)`` names each one's winner."""

    def __init__(self, winner: Callable[[MatchSpec], str]) -> None:
        self.winner = winner
        self.played: list[str] = []

    async def start(self) -> None:
        pass

    async def close(self, complete: bool = False) -> None:
        pass

    async def check(self, bots: Sequence[str], directory: Path, concurrency: int) -> list[BotCheck]:
        return []

    async def run(
        self, job: Job, directory: Path, on_match: Callable[..., bool]
    ) -> None:  # the Executor protocol
        for spec in job.matches:
            await asyncio.sleep(0)  # let the other lane run, as real matches would
            self.played.append(spec.key)
            seat = spec.seats.index(self.winner(spec))
            final = (100, 20) if seat == 0 else (20, 100)
            finished = record(spec.key, (spec.seats[0], spec.seats[1]), seat, final)
            if not on_match(finished):
                return
