"""A policy's files in the sandbox: a policy whose module reads a file the sandbox does not show
says so, with what the bot sees and how to show it more; outside a sandbox, or for a file that
is simply missing, the error is the plain one."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from ginref_rl import policy_bot
from ginref_rl.policy_bot import load_policy, main, sandbox_note
from referee.bots import sandbox
from sample_bots.client import EXIT_CONFIG

AGENT = """
from pathlib import Path
WEIGHTS = Path("data/w.txt").read_text()

def policy(observation, action_mask):
    return 0
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``agents/files_agent.py`` reads ``data/w.txt`` from the working directory, ``tmp_path``,
    which holds no ``data`` yet."""
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "files_agent.py").write_text(AGENT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # load_policy puts the file's dir first
    return tmp_path


def shows(monkeypatch: pytest.MonkeyPatch, *dirs: Path) -> None:
    """Run as a sandboxed bot that sees ``dirs``."""
    monkeypatch.setenv(sandbox.ENV_SANDBOX_DIRS, os.pathsep.join(map(str, dirs)))


def test_the_policy_bot_reads_the_variable_the_sandbox_sets() -> None:
    assert policy_bot.ENV_SANDBOX_DIRS == sandbox.ENV_SANDBOX_DIRS


def test_a_file_the_sandbox_hides_is_named_with_what_the_bot_sees(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shows(monkeypatch, project / "agents", Path("/opt/jdk"))
    spec = "agents/files_agent.py:policy"
    assert main([spec]) == EXIT_CONFIG
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "FileNotFoundError" in err and "'data/w.txt'" in err
    assert f"the sandbox shows this bot {project / 'agents'}, /opt/jdk, the system" in err
    assert f"not {project / 'data'}: show it with ginref match --bind {project / 'data'}" in err
    assert "[sandbox] binds" in err


def test_outside_a_sandbox_or_for_a_file_of_a_shown_directory_the_error_is_plain(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(sandbox.ENV_SANDBOX_DIRS, raising=False)
    with pytest.raises(ValueError, match=r"No such file or directory: 'data/w.txt'$"):
        load_policy("agents/files_agent.py:policy")
    (project / "data").mkdir()
    shows(monkeypatch, project / "agents", project / "data")
    with pytest.raises(ValueError, match=r"No such file or directory: 'data/w.txt'$"):
        load_policy("agents/files_agent.py:policy")


def test_the_policys_own_file_hidden_and_a_file_it_may_not_read_are_told(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shows(monkeypatch)
    with pytest.raises(
        ValueError, match=r"no file 'elsewhere/p.py'; the sandbox shows this bot the"
    ):
        load_policy("elsewhere/p.py:policy")
    note = sandbox_note("w.txt", denied=True)
    assert note is not None and note.endswith(f"make {project / 'w.txt'} readable by all")
    monkeypatch.delenv(sandbox.ENV_SANDBOX_DIRS)
    assert sandbox_note("w.txt", denied=True) is None
