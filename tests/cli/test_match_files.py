"""A bot's files in the sandbox, through ``ginref match``: a policy whose weights lie in a
sibling ``data/`` is told what it sees and how to show it more; ``--bind data``, ``--path data``
and ``--path ./data`` each show it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main

pytestmark = pytest.mark.slow  # the command line playing real matches in their sandboxes

AGENT = """
from pathlib import Path
WEIGHTS = Path("data/w.txt").read_text()

def policy(observation, action_mask):
    return int(action_mask.nonzero()[0][0])
"""
GREEDY = f"{sys.executable} -m sample_bots.greedy_bot"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A policy in ``agents/`` that reads ``data/w.txt``, run from the project's directory."""
    root = tmp_path / "project"
    (root / "agents").mkdir(parents=True)
    (root / "data").mkdir()
    (root / "agents" / "ppo.py").write_text(AGENT)
    (root / "data" / "w.txt").write_text("0.5")
    monkeypatch.chdir(root)
    return root


def play(tmp_path: Path, policy_args: str = "", *options: str) -> tuple[int, str]:
    """One single-hand match of the policy against the greedy bot; exit code and output."""
    policy = f"{sys.executable} -m ginref_rl.policy_bot agents/ppo.py:policy {policy_args}"
    args = ["match", policy, GREEDY, "-p", "openspiel", "--seed", "3", *options]
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "out")])
    return result.exit_code, result.output


def test_a_hidden_data_directory_is_named_with_the_way_to_show_it(
    project: Path, tmp_path: Path
) -> None:
    code, out = play(tmp_path)
    assert code == 3, out
    # The bot's output is quoted from its end: the advice is last, whatever the paths' length.
    assert f"read-only, not {project / 'data'}: show it with ginref match --bind" in out


@pytest.mark.parametrize(
    ("policy_args", "options"),
    [("", ("--bind", "data")), ("--path data", ()), ("--path ./data", ())],
)
def test_a_data_directory_shown_by_bind_or_named_by_path_is_read(
    project: Path, tmp_path: Path, policy_args: str, options: tuple[str, ...]
) -> None:
    code, out = play(tmp_path, policy_args, *options)
    assert code == 0, out
    assert "Forfeit" not in out and "(single hand)" in out


def test_a_bind_that_would_show_the_logs_is_refused(project: Path, tmp_path: Path) -> None:
    code, out = play(tmp_path, "", "--bind", str(tmp_path))
    assert code == 1
    assert out == (
        f"Error: --bind {tmp_path} would show every bot {tmp_path / 'out'} (--out); bind a "
        "directory that does not hold it\n"
    )
