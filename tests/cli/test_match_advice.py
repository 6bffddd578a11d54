"""``ginref match`` refusing a bot that would see the logs, or a bind that would, says so in the
command line's words (--out, --bind), not a tournament file's (``dir = "..."``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main


@pytest.fixture
def bot_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A bot's own folder, the working directory: ``cd mybot && ginref match ...``."""
    folder = tmp_path / "mybot"
    folder.mkdir()
    (folder / "greedy_bot.py").write_text("")
    monkeypatch.chdir(folder)
    return folder


def refused(*args: str) -> str:
    """The one line of ``ginref match``'s refusal."""
    result = CliRunner().invoke(main, ["match", *args])
    assert result.exit_code == 1, result.output
    assert result.output.count("\n") == 1 and "Traceback" not in result.output
    return result.output.strip()


@pytest.mark.parametrize("n", ["1", "3"])
def test_a_match_run_from_the_bots_folder_is_told_to_put_the_logs_elsewhere(
    bot_dir: Path, n: str
) -> None:
    bot = f"{sys.executable} greedy_bot.py"
    out = "ginref-logs" if n == "1" else "runs"
    line = refused(bot, f"{sys.executable} -m sample_bots.random_bot", "-n", n, "--out", out)
    assert line == (
        f"Error: bot greedy_bot would see its folder {bot_dir}, which holds the logs "
        f"({bot_dir / out}, --out): give --out a directory outside it, e.g. --out "
        f"{os.path.join('..', 'ginref-logs')}"
    )
    assert 'dir = "' not in line


def test_the_default_out_inside_the_bots_folder_is_refused_in_the_same_words(
    bot_dir: Path,
) -> None:
    line = refused(f"{sys.executable} greedy_bot.py", f"{sys.executable} greedy_bot.py")
    assert f"which holds the logs ({bot_dir / 'ginref-logs'}, --out)" in line
    assert "--out ../ginref-logs" in line


def test_a_bot_in_a_home_is_told_to_have_a_folder_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bot.py").write_text("")
    line = refused("python3 bot.py", "python3 bot.py", "--out", "/tmp/elsewhere-logs")
    assert line == (
        f"Error: bot bot would see all of {tmp_path}: put its files in a folder of their own "
        "and name them from there (cd into the folder, or python3 folder/bot.py)"
    )
