"""``sample_bots/java/out/eaai_bridge``: an agent of Neller's EAAI Java framework played as a
ginref bot, unchanged, the framework and the agent loaded from the user's classpath.

The framework here is a stand-in written from its interface (``tests/sample_bots/java/eaai/
ginrummy``: ``GinRummyPlayer`` and ``Card``, the suits numbered as the framework numbers them)
and the agent a simple one of ours (``agents/MeldingAgent.java``) that logs every call and
checks what it is told against the hand it keeps, both compiled here into a temporary directory
that ``ginref match --bind`` shows the bridge. Real sandboxed ``neller-eaai`` matches against
the Python greedy bot must end without a fault, verify, and give the agent exactly the calls
the framework's game would make, worked out from each replay log
(``tests/support/eaai_calls.py``, shared with the Python port's bridge).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from sample_bots.eaai_bridge import PLAYER_METHODS
from tests.support.eaai_calls import expected_calls, logged_calls
from tests.support.language_bots import BOTS, built

SOURCES = Path(__file__).resolve().parent / "java" / "eaai"
OUT = BOTS / "java" / "out"
GREEDY = f"{sys.executable} -m sample_bots.greedy_bot"
AGENT = "agents.MeldingAgent"


def ginref(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def eaai(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A temporary directory with the stand-in framework in ``framework.jar`` and the agent's
    classes in ``agent/``, compiled as a user would compile theirs."""
    built("java")
    root = tmp_path_factory.mktemp("java-eaai") / "eaai"
    classes, agent = root / "framework", root / "agent"

    def javac(*args: str) -> None:
        subprocess.run(["javac", "-nowarn", *args], check=True, capture_output=True, timeout=300)

    javac("-d", str(classes), *(str(p) for p in (SOURCES / "ginrummy").glob("*.java")))
    subprocess.run(
        ["jar", "--create", "--file", str(root / "framework.jar"), "-C", str(classes), "."],
        check=True,
        timeout=120,
    )
    shutil.rmtree(classes)
    agents = [str(p) for p in (SOURCES / "agents").glob("*.java")]
    javac("-d", str(agent), "-cp", str(root / "framework.jar"), *agents)
    return root


def check_match(log: Path, label: str) -> list[str]:
    """Assert that the match of ``log`` went as the framework would play it; the agent's calls."""
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r for r in records if r["type"] == "fault"] == []
    assert records[-1]["type"] == "match_result"
    assert records[-1]["termination"] == "target"
    code, text = ginref("verify", str(log))
    assert code == 0, text
    (output,) = log.parent.glob(f"{log.stem}.seat*.{label}.log")
    seat = int(output.name.split(".seat")[1][0])
    calls = logged_calls(output.read_text())
    assert calls == expected_calls(log, seat)
    return calls


@pytest.mark.slow
def test_the_agent_plays_matches_and_is_called_as_the_framework_calls_it(eaai: Path) -> None:
    out = eaai.parent / "series"
    classpath = f"{eaai / 'framework.jar'}:{eaai / 'agent'}"
    command = f"{OUT / 'eaai_bridge'} --classpath {classpath} {AGENT}"
    code, text = ginref(
        "match", command, GREEDY, "-p", "neller-eaai", "-n", "2", "--seed", "11",
        "--tcp", "a", "--bind", str(eaai), "--out", str(out),
    )  # fmt: skip
    assert code == 0, text
    assert "2 of 2 matches" in text
    logs = sorted(out.rglob("*.jsonl"))
    assert len(logs) == 2
    calls = [call for log in logs for call in check_match(log, "eaai_bridge")]
    # Every kind of call was made, so none of the comparisons above was empty of it.
    assert {call.split()[0] for call in calls} == set(PLAYER_METHODS)
    assert any(call.endswith("-> True") for call in calls)
    assert any(call.startswith("reportDraw") and call.endswith("None") for call in calls)
    outputs = [p.read_text() for p in out.rglob("*.eaai_bridge.log")]
    assert {o.splitlines()[0] for o in outputs} == {
        "MeldingAgent: connected to ginref 0.1.0 as MeldingAgent"
    }


@pytest.mark.slow
def test_the_bridge_runs_from_a_plain_java_classpath(eaai: Path) -> None:
    """The framework and the agent on java's own classpath, beside the bridge's jar."""
    out = eaai.parent / "plain"
    classpath = f"{OUT / 'ginref-bots.jar'}:{eaai / 'framework.jar'}:{eaai / 'agent'}"
    java = shutil.which("java")
    assert java is not None
    command = (
        f"{java} -Dio.netty.machineId=02:00:00:00:00:01 -cp {classpath} "
        f"org.ginref.bots.EaaiBridge {AGENT}"
    )
    code, text = ginref(
        "match", GREEDY, command, "-p", "neller-eaai", "--seed", "5", "--tcp", "b",
        "--bind", str(eaai), "--bind", str(OUT), "--out", str(out),
    )  # fmt: skip
    assert code == 0, text
    (log,) = out.glob("*.jsonl")
    check_match(log, "java")


@pytest.mark.slow
def test_a_card_the_agent_does_not_hold_is_refused_as_the_framework_forfeits_it(
    eaai: Path,
) -> None:
    out = eaai.parent / "stray"
    classpath = f"{eaai / 'framework.jar'}:{eaai / 'agent'}"
    command = f"{OUT / 'eaai_bridge'} --classpath {classpath} agents.StrayAgent"
    code, text = ginref(
        "match", command, GREEDY, "-p", "neller-eaai", "--seed", "4", "--tcp", "a",
        "--bind", str(eaai), "--out", str(out),
    )  # fmt: skip
    assert code == 0, text
    (log,) = out.glob("*.jsonl")
    records = [json.loads(line) for line in log.read_text().splitlines()]
    (fault,) = [r for r in records if r["type"] == "fault"]
    assert (fault["seat"], fault["kind"], fault["rule"]) == (0, "illegal_action", "R4.2"), fault
    assert records[-1]["termination"] == "forfeit"
    assert records[-1]["winner"] == 1


# --- Mistakes -------------------------------------------------------------------------------------


def run_bridge(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GINREF_")}
    return subprocess.run(
        [str(OUT / "eaai_bridge"), *args],
        env={**environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("classpath", "agent", "said"),
    [
        ("framework.jar:agent", "agents.NoSuchAgent", "no class agents.NoSuchAgent on the"),
        ("agent", AGENT, "no ginrummy.GinRummyPlayer on the classpath"),
        ("framework.jar:agent", "ginrummy.Card", "ginrummy.Card does not implement ginrummy."),
        ("framework.jar:nowhere", AGENT, "nowhere: no such file or directory"),
    ],
)
def test_a_wrong_agent_is_one_line_and_exit_status_2(
    eaai: Path, classpath: str, agent: str, said: str
) -> None:
    entries = ":".join(str(eaai / entry) for entry in classpath.split(":"))
    done = run_bridge("--classpath", entries, agent)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and said in lines[0], done.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "said"),
    [
        ((), "eaai-bridge: which agent? usage: eaai_bridge"),
        (("--bogus", AGENT), "eaai-bridge: unknown option or missing value: --bogus"),
    ],
)
def test_a_wrong_command_line_is_one_line_and_exit_status_2(
    args: tuple[str, ...], said: str
) -> None:
    built("java")
    done = run_bridge(*args)
    assert done.returncode == 2
    assert done.stderr.startswith(said) and len(done.stderr.splitlines()) == 1, done.stderr


@pytest.mark.slow
def test_several_matches_at_once_are_refused(eaai: Path) -> None:
    env = {"GINREF_ADDRESS": "127.0.0.1:1", "GINREF_TOKEN": "t", "GINREF_MATCHES": "2"}
    classpath = f"{eaai / 'framework.jar'}:{eaai / 'agent'}"
    done = run_bridge("--classpath", classpath, AGENT, env=env)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "MeldingAgent: GINREF_MATCHES=2: an EAAI agent plays one match at a time"
    )
