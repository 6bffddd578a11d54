"""Where the machine cannot build the sandbox, ginref says why in one line and starts no bot,
unless told ``--sandbox none``, which it warns about; a bot's view that would hold the results is
refused; the bots' directories are found from their commands."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from referee.bots import confine, sandbox
from referee.bots.confine import Confinement
from referee.bots.sandbox import SandboxSettings, bot_dirs, check_dirs, probe
from referee.bots.spec import BotSpec
from referee.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine without bubblewrap: ``bwrap`` is not found on PATH."""
    real = sandbox.shutil.which
    monkeypatch.setattr(
        sandbox.shutil, "which", lambda name, *a, **k: None if name == "bwrap" else real(name)
    )
    monkeypatch.setattr(confine, "_probed", {})


def test_a_machine_without_bubblewrap_is_named(no_bwrap: None) -> None:
    assert probe(SandboxSettings()) == "bwrap is not installed (Debian package bubblewrap)"
    with pytest.raises(ConfigError) as caught:
        Confinement.prepare(SandboxSettings())
    assert "cannot sandbox the bots: bwrap is not installed" in str(caught.value)
    assert "--sandbox none" in str(caught.value)


def test_without_the_sandbox_ginref_match_refuses_in_one_line(
    no_bwrap: None, tmp_path: Path
) -> None:
    bot = f"{sys.executable} -m sample_bots.random_bot"
    result = CliRunner().invoke(main, ["match", bot, bot, "--out", str(tmp_path / "logs")])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: cannot sandbox the bots: bwrap")
    assert not (tmp_path / "logs").exists() or not list((tmp_path / "logs").iterdir())


def test_not_root_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 1000)
    reason = probe(SandboxSettings())
    assert reason is not None and "needs root" in reason


def test_sandbox_none_is_allowed_with_a_warning() -> None:
    made = Confinement.prepare(SandboxSettings(mode="none"))
    try:
        assert any("unsandboxed" in w and "trust" in w for w in made.warnings)
        assert made.socket_root is None
    finally:
        made.close()


def test_a_uid_range_that_overlaps_a_user_is_refused(tmp_path: Path) -> None:
    settings = SandboxSettings(uid_base=0, uid_count=10)
    with pytest.raises(ConfigError):
        settings.validate()  # uid 0 is never a bot's
    reason = sandbox._uid_overlap(SandboxSettings(uid_base=1, uid_count=100))
    assert reason is not None and "uid_base" in reason  # daemon, bin, sys... live there


def test_a_bots_own_directory_comes_from_its_command() -> None:
    cpp = BotSpec(("sample_bots/cpp/out/greedy_bot",), cwd=str(ROOT))
    assert bot_dirs(cpp) == [ROOT / "sample_bots" / "cpp" / "out"]
    js = BotSpec(("node", "sample_bots/js/greedy.js"), cwd=str(ROOT))
    assert bot_dirs(js) == [ROOT / "sample_bots" / "js"]
    module = BotSpec((sys.executable, "-m", "sample_bots.greedy_bot"), cwd=str(ROOT))
    assert bot_dirs(module) == [ROOT / "sample_bots"]
    declared = BotSpec(("x",), cwd=str(ROOT), dirs=("sample_bots/go",))
    assert bot_dirs(declared) == [ROOT / "sample_bots" / "go"]


def test_a_view_that_would_hold_the_results_is_refused(tmp_path: Path) -> None:
    results = tmp_path / "runs" / "t"
    with pytest.raises(ConfigError, match=r"it would see .* which holds"):
        check_dirs("sloppy", [tmp_path], [results])
    with pytest.raises(ConfigError, match="all of /"):
        check_dirs("greedy-root", [Path("/")], [])
    check_dirs("fine", [tmp_path / "bots" / "x"], [results])  # a directory of its own


def test_a_tournament_refuses_a_bot_that_would_see_its_directory(tmp_path: Path) -> None:
    file = tmp_path / "t.toml"
    bot = f"{sys.executable} {tmp_path / 'bot.py'}"
    (tmp_path / "bot.py").write_text("")
    file.write_text(
        f'name = "t"\n[[bots]]\nname = "a"\ncommand = "{bot}"\n'
        f'[[bots]]\nname = "b"\ncommand = "{bot}"\n'
    )
    result = CliRunner().invoke(
        main, ["tournament", str(file), "--out", str(tmp_path / "out"), "--no-progress"]
    )
    assert result.exit_code != 0
    assert "it would see" in result.output
    assert "give the bot a directory of its own" in result.output
