"""Replay logs for the replay, verify and HTML tests: matches between real bot processes, and a
long one between fake players through the real session; and what a replay page holds."""

from __future__ import annotations

import asyncio
import base64
import json
import random
import re
import sys
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from referee.bots.spec import BotSpec
from referee.engine.cards import card_str
from referee.engine.rules import PROFILES, Rules
from referee.results import MatchPlan
from referee.series import run_match_async
from referee.session import Session
from referee.settings import RefereeOptions
from tests.referee.fakes import FakeClock, ScriptedBot, fake_player, knock_or_random, run_on

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
    # Each seat's cards from the deck alone, under a rotation where the loser deals.
    "seat0_first": ("pagat", {"deal_order": "seat0_first"}),
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


def fake_match_log(folder: Path, *, seed: int = 2, target: int = 100) -> Path:
    """A long match's log (some 1,700 records with the defaults) in about a second: two fake
    players that knock whenever they may and otherwise choose at random, through the real
    session on fake links and a fake clock (no process, no real time)."""

    async def play() -> Path:
        clock = FakeClock()
        made = [fake_player(i, clock, folder) for i in (0, 1)]
        rng = random.Random(seed)  # one generator, drawn from in the session's order
        for _, link, _ in made:
            ScriptedBot(link, knock_or_random(rng), think=0.001)
        players = [player for player, _, _ in made]
        plan = MatchPlan("long", 1, seed, (0, 1), folder / "long.jsonl")
        rules = Rules.profile("standard", target=target)
        session = Session(plan, rules, players, RefereeOptions(), 1, clock=clock)
        session.write_header()
        for player in players:
            session.log_connected(player)
        return (await run_on(clock, session.run())).log_path

    return asyncio.run(play())


# --- what a replay page holds (replays/html.py) -------------------------------------------------

CARD_ORDER = {card_str(card): card for card in range(52)}


def page_data(page: str) -> dict[str, Any]:
    """The JSON of the page's ``replay-data`` element."""
    found = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page)
    assert found is not None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def unpacked(packed: dict[str, Any]) -> Any:
    """What the page's script reads from ``frames``: base64 without padding, raw deflate, JSON."""
    text = packed["deflate"]
    raw = zlib.decompress(base64.b64decode(text + "=" * (-len(text) % 4)), -15)
    assert len(raw) == packed["size"]
    return json.loads(raw)


def changed(cards: list[str], diff: str, ordered: bool) -> list[str]:
    """``-XX`` takes a card out, ``+XX`` puts it in; a hand is kept in the cards' order."""
    out = list(cards)
    for i in range(0, len(diff), 3):
        code = diff[i + 1 : i + 3]
        if diff[i] == "+":
            out.append(code)
        else:
            out.remove(code)
    return sorted(out, key=CARD_ORDER.__getitem__) if ordered else out


def table_changed(table: dict[str, Any], diff: dict[str, Any] | None) -> dict[str, Any]:
    """A table of the frame before, changed as the page's script changes it."""
    if diff is None:
        return table
    if "set" in diff:
        new: dict[str, Any] = diff["set"]
        return new
    out = dict(table)
    for key, value in diff.items():
        if key == "handsDiff":
            out["hands"] = [changed(table["hands"][s], value[s], True) for s in (0, 1)]
        elif key == "pileDiff":
            out["pile"] = changed(table["pile"], value, False)
        else:
            out[key] = value
    return out


def rebuilt(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The frames, as the page's script rebuilds them from the changes."""
    frames: list[dict[str, Any]] = []
    before: dict[str, Any] = {}
    for change in changes:
        frame = dict(before)
        for key, value in change.items():
            if key == "tablesDiff":
                frame["tables"] = [
                    table_changed(t, d) for t, d in zip(before["tables"], value, strict=True)
                ]
            else:
                frame[key] = value
        if "line" not in change:
            frame["line"] = before["line"] + 1
        frames.append(frame)
        before = frame
    return frames


def page_frames(page: str) -> list[dict[str, Any]]:
    """The frames of a replay page's text, as its script rebuilds them."""
    changes: list[dict[str, Any]] = unpacked(page_data(page)["frames"])
    return rebuilt(changes)
