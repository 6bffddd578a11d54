"""``python -m sample_bots.eaai_bridge``: an agent of the EAAI framework's Python port played as
a ginref bot, unchanged.

The port here is a stand-in written from its interface (``tests/support/eaai_port``: its
``Card``, ``Deck`` and ``GinRummyPlayer`` modules, by the port's names), and the agent a simple
one of ours (``tests/support/eaai_agents/melding_player.py``) that logs every call and checks
what it is told against the hand it keeps. Real sandboxed ``neller-eaai`` matches against the
greedy bot must end without a fault, verify, and give the agent exactly the calls the port's
game would make, worked out from each replay log (``tests/support/eaai_calls.py``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from sample_bots.eaai_bridge import PLAYER_METHODS
from tests.support.eaai_calls import expected_calls, logged_calls

SUPPORT = Path(__file__).resolve().parents[1] / "support"
ROOT = SUPPORT.parents[1]
GREEDY = f"{sys.executable} -m sample_bots.greedy_bot"
BRIDGE = f"{sys.executable} -m sample_bots.eaai_bridge"
AGENT = "melding_player:MeldingPlayer"


def ginref(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A temporary directory with the stand-in port in ``port/`` and the agent in ``agents/``."""
    root = tmp_path_factory.mktemp("eaai")
    shutil.copytree(SUPPORT / "eaai_port", root / "port")
    shutil.copytree(SUPPORT / "eaai_agents", root / "agents")
    return root


def records(log: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def bridge_seat(log: Path) -> tuple[int, Path]:
    """The seat the bridge played in the match of ``log``, and its output file."""
    (output,) = log.parent.glob(f"{log.stem}.seat*.eaai_bridge.log")
    return int(output.name.split(".seat")[1][0]), output


def check_match(log: Path) -> list[str]:
    """Assert that the match of ``log`` went as the framework would play it; the agent's calls."""
    lines = records(log)
    assert not [r for r in lines if r["type"] == "fault"]
    assert lines[-1]["type"] == "match_result" and lines[-1]["termination"] == "target"
    code, text = ginref("verify", str(log))
    assert code == 0, text
    seat, output = bridge_seat(log)
    calls = logged_calls(output.read_text())
    assert calls == expected_calls(log, seat)
    return calls


# --- Real matches ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_agent_plays_matches_and_is_called_as_the_framework_calls_it(port: Path) -> None:
    out = port / "series"
    command = f"{BRIDGE} --path {port / 'port'} --path {port / 'agents'} {AGENT}"
    code, text = ginref(
        "match", command, GREEDY, "-p", "neller-eaai", "-n", "2", "--seed", "11", "--out", str(out)
    )
    assert code == 0, text
    assert "2 of 2 matches" in text
    logs = sorted(out.rglob("*.jsonl"))
    assert len(logs) == 2
    assert {bridge_seat(log)[0] for log in logs} == {0, 1}  # the seats alternate
    calls = [call for log in logs for call in check_match(log)]
    # Every kind of call was made, so none of the comparisons above was empty of it.
    made = Counter(call.split()[0] for call in calls)
    assert set(made) == set(PLAYER_METHODS)
    assert any(call.endswith("-> True") for call in calls)
    assert any(call.startswith("reportDraw") and call.endswith("None") for call in calls)


@pytest.mark.slow
def test_an_agent_file_beside_the_port_needs_no_path(port: Path) -> None:
    """As in the port's own directory: the agent's file is there, and its directory, which the
    command names, is all the sandbox shows the bot."""
    alone = port / "alone"
    shutil.copytree(port / "port", alone)
    shutil.copy(port / "agents" / "melding_player.py", alone)
    out = port / "one"
    code, text = ginref(
        "match",
        f"{BRIDGE} {alone / 'melding_player.py'}:MeldingPlayer",
        GREEDY,
        "-p",
        "neller-eaai",
        "--seed",
        "3",
        "--out",
        str(out),
    )
    assert code == 0, text
    (log,) = out.glob("*.jsonl")
    check_match(log)


# --- Mistakes -------------------------------------------------------------------------------------


def run_bridge(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GINREF_")}
    return subprocess.run(
        [sys.executable, "-m", "sample_bots.eaai_bridge", *args],
        cwd=ROOT,
        env={**environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
    )


NO_PORT_CARDS = """
class Lonely:
    def startGame(self, playerNum, startingPlayerNum, cards): pass
    def willDrawFaceUpCard(self, card): return False
    def reportDraw(self, playerNum, drawnCard): pass
    def getDiscard(self): return None
    def reportDiscard(self, playerNum, discardedCard): pass
    def getFinalMelds(self): return None
    def reportFinalMelds(self, playerNum, melds): pass
    def reportScores(self, scores): pass
    def reportLayoff(self, playerNum, layoffCard, opponentMeld): pass
    def reportFinalHand(self, playerNum, hand): pass
"""


@pytest.mark.parametrize(
    ("agent", "paths", "said"),
    [
        ("NoSuchPlayer:NoSuchPlayer", ["port"], "no module 'NoSuchPlayer' in the --path"),
        (AGENT.replace(":", ":Nope"), ["port", "agents"], "has no class 'NopeMeldingPlayer'"),
        ("Card:Card", ["port"], "Card has no startGame, willDrawFaceUpCard,"),
        (AGENT, ["agents"], "cannot import 'melding_player': No module named 'GinRummyPlayer'"),
        ("melding_player", ["agents"], "expected MODULE:CLASS or FILE.py:CLASS"),
        ("agents/missing.py:Player", [], "no file agents/missing.py"),
        (AGENT, ["nowhere"], "nowhere: no such directory"),
        ("lonely.py:Lonely", [], "cannot find the port's cards"),
    ],
)
def test_a_wrong_agent_is_one_line_and_exit_status_2(
    port: Path, agent: str, paths: list[str], said: str, tmp_path: Path
) -> None:
    (tmp_path / "lonely.py").write_text(NO_PORT_CARDS)
    options = [word for p in paths for word in ("--path", str(port / p))]
    target = str(tmp_path / agent) if agent.startswith("lonely") else agent
    if agent.startswith("agents/"):
        target = str(port / agent)
        said = said.replace("agents/", f"{port}/agents/")
    done = run_bridge(*options, target)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and said in lines[0], done.stderr


def test_several_matches_at_once_are_refused(port: Path) -> None:
    env = {"GINREF_ADDRESS": "127.0.0.1:1", "GINREF_TOKEN": "t", "GINREF_MATCHES": "2"}
    done = run_bridge("--path", str(port / "port"), "--path", str(port / "agents"), AGENT, env=env)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "MeldingPlayer: GINREF_MATCHES=2: an EAAI agent plays one match at a time"
    )
