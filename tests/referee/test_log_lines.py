"""The decision records written as ready-made lines (replay_log.decision_line) are the bytes the
JSON encoder writes for the same records: one by one, and in the whole log of a match."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest

from referee.engine.actions import (
    Action,
    BigGin,
    ChooseDeal,
    DefenderPlay,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    Pass,
    action_to_dict,
)
from referee.engine.rules import Rules
from referee.replay_log import ReplayLogWriter, decision_line
from tests.referee.fakes import knock_or_random
from tests.referee.test_session import make_bots, play

ACTIONS: list[Action] = [
    DrawStock(),
    DrawDiscard(),
    Pass(),
    Discard(0),
    Discard(51),
    Knock(17),
    Knock(3, ((0, 1, 2), (13, 26, 39))),
    BigGin(),
    BigGin(((0, 1, 2, 3), (4, 5, 6), (7, 8, 9, 10))),
    DefenderPlay(((20, 21, 22),), (40,)),
    DefenderPlay((), ()),
    ChooseDeal(True),
    ChooseDeal(False),
]


def test_a_decision_line_is_what_the_json_encoder_writes(tmp_path: Path) -> None:
    rng = random.Random(5)
    slow = ReplayLogWriter(tmp_path / "dict.jsonl")
    fast = ReplayLogWriter(tmp_path / "line.jsonl")
    for k in range(2000):
        action = ACTIONS[k % len(ACTIONS)]
        think = round(rng.choice([0.0, 1e-7, 0.5, 12.25, 1e6, rng.random() * 3000]), 3)
        bank = round(rng.choice([0.0, 2000.0, rng.random() * 1e5, 1e17]), 3)
        hand, seat, rid = rng.randrange(0, 40), rng.randrange(0, 4), rng.randrange(1, 10**9)
        phase = rng.choice(["draw", "discard", "upcard_offer", "choose_dealer", "defender"])
        slow.write(
            "decision",
            hand=hand,
            seat=seat,
            phase=phase,
            request_id=rid,
            action=action_to_dict(action),
            think_ms=think,
            bank_ms=bank,
        )
        fast.write_line(decision_line(hand, seat, phase, rid, action, think, bank))
    slow.close()
    fast.close()
    assert (tmp_path / "line.jsonl").read_bytes() == (tmp_path / "dict.jsonl").read_bytes()
    assert fast.sha256 == slow.sha256 and fast.size == slow.size


@pytest.mark.parametrize("profile", ["standard", "oklahoma"])
def test_a_whole_match_log_is_what_the_json_encoder_writes(tmp_path: Path, profile: str) -> None:
    # Every line of a fixed-seed match's log, decisions included, is byte for byte the JSON
    # encoder's line for the record it holds: the log is the one the generic writer would write.
    encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode

    async def run() -> Path:
        bots = make_bots(tmp_path)
        rng = random.Random(3)
        for index in (0, 1):
            bots.script(index, knock_or_random(rng), think=0.0123)
        outcome = await play(tmp_path, bots, rules=Rules.profile(profile), seed=3)
        return outcome.log_path

    lines = asyncio.run(run()).read_text(encoding="utf-8").splitlines()
    decisions = [line for line in lines if line.startswith('{"type":"decision"')]
    assert len(decisions) > 50
    for line in lines:
        assert encode(json.loads(line)) == line
