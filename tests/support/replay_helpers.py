"""Real replay logs for the replay, verify and HTML tests: matches between real bot processes."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from referee.bots.spec import BotSpec
from referee.engine.rules import PROFILES, Rules
from referee.options import RefereeOptions
from referee.series import run_match_async

GREEDY = BotSpec((sys.executable, "-m", "sample_bots.greedy_bot"), "greedy_bot")
# The seed of the random bot's choices goes in its own environment: a sandboxed bot sees none of
# the referee's, so an unseeded bot would play a different match on every run.
RANDOM = BotSpec(
    (sys.executable, "-m", "sample_bots.random_bot"),
    "random_bot",
    env=(("GINREF_BOT_SEED", "3"),),
)
GREEDY_COMMAND = f"{sys.executable} -m sample_bots.greedy_bot"
OPTIONS = RefereeOptions(connect_timeout=20.0, exit_grace=0.5, kill_grace=0.5)

# Every profile, and rules no profile has: the high cutter's choice of dealer, declared
# defences with big gin and the spade double, and Hollywood's three games.
CONFIGS: dict[str, tuple[str, dict[str, Any]]] = {
    **{name: (name, {}) for name in PROFILES},
    "declared": (
        "standard",
        {
            "first_dealer": "cut_high_chooses",
            "defender_play": "declared",
            "big_gin_bonus": 31,
            "spade_double": True,
            "target": 60,
        },
    ),
    "hollywood": ("standard", {"hollywood": True, "target": 40}),
}


def play_logs(
    directory: Path,
    configs: Mapping[str, tuple[str, dict[str, Any]]],
    *,
    seed: int = 5,
    bots: tuple[BotSpec, BotSpec] = (GREEDY, RANDOM),
) -> dict[str, Path]:
    """Play greedy (seat 0) against random under each config, concurrently; name -> log path."""
    async def play_all() -> list[Path]:
        outcomes = await asyncio.gather(
            *(
                run_match_async(
                    bots[0],
                    bots[1],
                    Rules.profile(profile, **overrides),
                    seed + i,
                    directory / name,
                    OPTIONS,
                )
                for i, (name, (profile, overrides)) in enumerate(configs.items())
            )
        )
        return [o.log_path for o in outcomes]

    paths = asyncio.run(play_all())
    return dict(zip(configs, paths, strict=True))


def lines_of(path: Path) -> list[str]:
    """The log's lines, without their newlines."""
    return path.read_text(encoding="utf-8").splitlines()


def records_of(path: Path) -> list[dict[str, Any]]:
    """Every record of a log, in order (index i is line i + 1)."""
    return [json.loads(line) for line in lines_of(path)]


def write_lines(path: Path, lines: list[str]) -> Path:
    """Write ``lines`` as a log file."""
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def write_records(path: Path, records: list[dict[str, Any]]) -> Path:
    """Write records as a log file, one JSON object per line."""
    return write_lines(path, [json.dumps(r, ensure_ascii=False) for r in records])
