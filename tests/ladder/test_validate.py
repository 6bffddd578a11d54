"""A built submission's validation match: a bot that plays without a fault passes, whatever
the score; a crash, a silent bot or an illegal move fails it, with the fault and its output."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from referee.bots.confine import sandbox_problem
from referee.bots.spec import BotSpec
from tests.support.sandbox_helpers import SANDBOX
from tournaments.file.config import TournamentConfig, load_default
from tournaments.ladder.errors import SubmissionError
from tournaments.ladder.validate import validate

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sandbox_problem(SANDBOX) is not None, reason="no sandbox here"),
]

# A bot that says Hello, then dies at its first decision.
CRASHER = """
import sys
from sample_bots.client import run_bot

def decide(request):
    print("no idea what to do", file=sys.stderr)
    sys.exit(3)

sys.exit(run_bot(decide, "crasher", "1"))
"""
# A bot that declares big gin whatever its hand.
CHEATER = """
import sys
from sample_bots.client import pb, run_bot

def decide(request):
    return pb.Action(big_gin=pb.BigGin())

sys.exit(run_bot(decide, "cheater", "1"))
"""


def config() -> TournamentConfig:
    return dataclasses.replace(
        load_default(), sandbox=SANDBOX, connect_timeout=20.0, retries=0, exit_grace=1.0
    )


def bot(tmp_path: Path, source: str) -> BotSpec:
    home = tmp_path / "bot"
    home.mkdir()
    (home / "bot.py").write_text(source)
    return BotSpec((sys.executable, "bot.py"), "entrant@1", str(home), dirs=(".",))


def test_the_greedy_bot_passes_and_its_log_is_kept(tmp_path: Path) -> None:
    source = Path(__file__).resolve().parents[2] / "sample_bots" / "greedy_bot.py"
    spec = bot(tmp_path, source.read_text())
    result = validate(spec, config(), tmp_path / "validation")
    assert result.outcome.faults == ()
    assert result.outcome.log_path.parent == tmp_path / "validation"
    assert [s.label for s in result.outcome.seats] == ["entrant@1", "greedy"]
    assert result.output.parent == tmp_path / "validation"
    assert result.output.name.endswith(".seat0.entrant@1.log")
    assert result.summary.split()[0] in ("won", "lost", "drew")


def test_a_crash_fails_with_its_stderr(tmp_path: Path) -> None:
    with pytest.raises(SubmissionError) as caught:
        validate(bot(tmp_path, CRASHER), config(), tmp_path / "validation")
    error = caught.value
    assert error.step == "validate"
    assert error.status == "crashed"
    assert error.message.startswith("crashed: ")
    assert "no idea what to do" in error.tail


def test_an_illegal_action_fails(tmp_path: Path) -> None:
    with pytest.raises(SubmissionError) as caught:
        validate(bot(tmp_path, CHEATER), config(), tmp_path / "validation")
    assert caught.value.status == "illegal_action"


def test_no_hello_fails(tmp_path: Path) -> None:
    silent = bot(tmp_path, "import time\nprint('thinking', flush=True)\ntime.sleep(60)\n")
    short = dataclasses.replace(config(), connect_timeout=2.0)
    with pytest.raises(SubmissionError) as caught:
        validate(silent, short, tmp_path / "validation")
    assert caught.value.status == "not_connected"
    assert caught.value.tail == "thinking"
