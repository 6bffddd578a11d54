"""A Java bot sees the whole stream through sample_bots/java's client, as a Python bot's
``on_message`` does: MatchStart, each HandStart, every event once and before the decision that
follows it, each HandEnd and the MatchEnd, in that order.

The bot is ``tests/sample_bots/java/StreamLogBot.java``, compiled here against the sample
client's jar: it plays as the greedy bot, logs each callback on stderr, and checks its own
hand and discard pile, kept from the callbacks alone, against every observation.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from referee.bots.spec import BotSpec
from referee.engine.rules import Rules
from referee.series import run_match
from tests.support.language_bots import BOTS, OPTIONS, PY_GREEDY, built

pytestmark = pytest.mark.slow  # a JVM and a real match

HERE = Path(__file__).resolve().parent
JAR = BOTS / "java" / "out" / "ginref-bots.jar"

# One letter a callback: M match start, H hand start, E event, D decide, X hand end, Z match end.
LETTERS = {
    "match_start": "M",
    "hand_start": "H",
    "event": "E",
    "decide": "D",
    "hand_end": "X",
    "match_end": "Z",
}


def compile_stream_bot(where: Path) -> Path:
    """StreamLogBot compiled into ``where``, and a launcher beside it."""
    built("java")
    classes = where / "classes"
    source = HERE / "java" / "StreamLogBot.java"
    subprocess.run(
        ["javac", "-nowarn", "-d", str(classes), "-cp", str(JAR), str(source)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    launcher = where / "stream_log_bot"
    java = shutil.which("java")
    assert java is not None
    launcher.write_text(
        f"#!/bin/sh\nexec {java} -XX:TieredStopAtLevel=1 -Dio.netty.machineId=02:00:00:00:00:01"
        f' -cp "{classes}:{JAR}" StreamLogBot\n'
    )
    launcher.chmod(0o755)
    return launcher


def test_a_java_bot_sees_hand_start_events_hand_end_and_match_end_in_order(
    tmp_path: Path,
) -> None:
    # The bot's own directory apart from the logs, which no bot may see.
    launcher = compile_stream_bot(tmp_path / "bot")
    bot = BotSpec(
        (str(launcher),),
        "stream-java",
        dirs=(str(launcher.parent), str(JAR.parent)),
        transport="tcp",
    )
    outcome = run_match(bot, PY_GREEDY, Rules.profile("standard"), 7, tmp_path / "logs", OPTIONS)
    assert outcome.faults == ()
    assert outcome.forfeit is None
    lines = [
        line.removeprefix("stream: ").split()
        for line in outcome.seats[0].output.read_text().splitlines()
        if line.startswith("stream: ")
    ]
    assert [line for line in lines if line[0] == "mismatch"] == []
    story = "".join(LETTERS[line[0]] for line in lines)
    assert re.fullmatch(r"M(H[ED]*X)+Z", story), story
    records = [json.loads(line) for line in outcome.log_path.read_text().splitlines()]
    hands = [r["hand"] for r in records if r["type"] == "hand_result"]
    assert len(hands) > 1  # more than one hand: HandStart and HandEnd come again
    assert [int(line[1]) for line in lines if line[0] == "hand_start"] == hands
    assert [int(line[1]) for line in lines if line[0] == "hand_end"] == hands
    decisions = [r for r in records if r["type"] == "decision" and r["seat"] == 0]
    assert story.count("D") == len(decisions)
    # Both seats' moves come as events: more events than this bot's own decisions.
    assert story.count("E") > len(decisions)
