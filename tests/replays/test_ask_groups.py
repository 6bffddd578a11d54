"""ginref replay --ask on logs of three players (R10.1) and partnerships (R10.2).

What the ask sends a bot must be what the referee sent that seat: each message of a real
match, caught as the referee wrote it, against the ones rebuilt from its log. And the corpus
logs (tests/data/golden/logs/) were played by the greedy bot against the random bot, so the
greedy bot, put back into each position where it was asked, must take the action it took.
"""

from __future__ import annotations

import asyncio
import re
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from referee.engine.hand import Hand
from referee.engine.rules import Rules
from referee.series import run_series_async
from referee.timeline import Step, Timeline, load_replay
from referee.wire import ginrummy_pb2 as pb
from replays.ask import ask, position_at, recorded_messages
from tests.support.referee_helpers import FAST, bot
from tests.support.replay_helpers import GREEDY, GREEDY_COMMAND

pytestmark = pytest.mark.slow  # live bots asked about recorded positions

LOGS = Path(__file__).resolve().parents[1] / "data" / "golden" / "logs"
GROUPS = ["three-players", "partners"]


def greedy_positions(timeline: Timeline) -> list[Step]:
    """The greedy bot's decisions: one for each hand seat, table and phase it was asked in,
    and its knocks."""
    greedy = {r["seat"] for r in timeline.log.of_type("connected") if r["name"] == "greedy-bot"}
    chosen: dict[tuple[object, ...], Step] = {}
    for step in timeline.steps:
        seat = step.seat
        if step.kind != "decision" or seat not in greedy:
            continue
        kind = step.record["action"]["kind"]
        what = kind if kind in ("knock", "gin", "big_gin") else step.record["phase"]
        chosen.setdefault((step.hand_seat(seat), step.table, what), step)
    return sorted(chosen.values(), key=lambda s: s.line)


@pytest.mark.parametrize("name", GROUPS)
def test_the_greedy_bot_takes_the_action_it_took(name: str) -> None:
    timeline = load_replay(LOGS / f"{name}.jsonl")
    positions = greedy_positions(timeline)
    # Both hand seats with three players (the seats move round the table), both tables with
    # partnerships, and a hand after the first.
    assert {(s.hand_seat(s.seat or 0), s.table) for s in positions} >= (
        {(0, 0), (1, 0)} if timeline.players == 3 else {(0, 0), (0, 1)}
    )
    assert max(s.hand for s in positions) > 1
    for step in positions:
        assert position_at(timeline, step.line) is step
        answer = ask(timeline, step, GREEDY)
        assert answer.legal and answer.action == step.action, (step.line, answer)
        assert answer.bot.startswith("greedy-bot")


@pytest.mark.parametrize("name", GROUPS)
def test_ask_from_the_command_line(name: str) -> None:
    timeline = load_replay(LOGS / f"{name}.jsonl")
    step = greedy_positions(timeline)[-1]
    args = ["replay", str(LOGS / f"{name}.jsonl"), "--at", str(step.line), "--ask", GREEDY_COMMAND]
    result = CliRunner().invoke(main, args)
    out = result.output
    assert result.exit_code == 0, out
    assert f"Position at line {step.line} (hand {step.hand}" in out
    assert f"seat {step.seat} (" in out and "Recorded:" in out
    assert re.search(r"Answer: +.* in \d+\.\d ms: legal; the same as recorded", out), out


@pytest.mark.parametrize("players", [3, 4])
def test_the_ask_sends_what_the_referee_sent(tmp_path: Path, players: int) -> None:
    sent: dict[int, list[pb.RefereeMessage]] = defaultdict(list)

    def keep(seat: int, message: pb.RefereeMessage, hand: Hand | None) -> None:
        copy = pb.RefereeMessage()
        copy.CopyFrom(message)
        sent[seat].append(copy)

    rules = Rules.profile("pagat", players=players)
    lineup = [bot(), bot("first"), bot(), bot("first")][:players]
    series = asyncio.run(run_series_async(lineup, rules, [31], tmp_path, FAST, on_send=keep))
    timeline = load_replay(series.matches[0].log_path)
    asked = [s for s in timeline.steps if s.kind == "decision"]
    assert len(asked) > 20 and {s.seat for s in asked} == set(range(players))
    for step in asked:
        assert step.seat is not None
        messages, request = recorded_messages(timeline, step)
        told = sent[step.seat]
        assert messages[0] == next(m for m in told if m.HasField("match_start"))
        hand_start = next(
            m for m in told if m.HasField("hand_start") and m.hand_start.hand_number == step.hand
        )
        assert messages[1:] == [hand_start]
        ours = request.decision_request
        theirs = next(
            m.decision_request
            for m in told
            if m.HasField("decision_request") and m.decision_request.request_id == ours.request_id
        )
        # The same position, the same choices; the clock and the events not yet told differ
        # (the seat was told the hand's earlier events as they happened).
        assert ours.observation == theirs.observation, step.line
        assert list(ours.legal_actions) == list(theirs.legal_actions)
        assert ours.move_time_ms == theirs.move_time_ms
