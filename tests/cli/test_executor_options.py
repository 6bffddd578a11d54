"""``ginref tournament --executor``/``--address``: the choices and the mistakes (no cluster)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from tests.support.referee_helpers import ROOT, TESTBOT


def tournament(path: Path) -> Path:
    file = path / "t.toml"
    text = 'name = "t"\nmatches = 2\n'
    for name in ("a", "b"):
        text += f'\n[[bots]]\nname = "{name}"\ncommand = "{{python}} {TESTBOT} play"\n'
    file.write_text(text)
    return file


def test_ray_missing_says_how_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails as when not installed
    result = CliRunner().invoke(
        main,
        [
            "tournament",
            str(tournament(tmp_path)),
            "--out",
            str(tmp_path / "out"),
            "--executor",
            "ray",
            "-q",
        ],
    )
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "Error: --executor ray needs Ray, which is not installed: install ginref[ray]"
    ]
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_address_needs_the_ray_executor(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["tournament", str(tournament(tmp_path)), "--address", "127.0.0.1:6379"]
    )
    assert result.exit_code == 2
    assert "--address is for --executor ray" in result.output
    assert not (tmp_path / "out").exists()


def test_workers_are_not_for_the_ray_executor(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["tournament", str(tournament(tmp_path)), "--executor", "ray", "--workers", "2"]
    )
    assert result.exit_code == 2
    assert "--workers is for local matches" in result.output
    assert not (tmp_path / "out").exists()


def test_a_bad_address_form_is_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main,
        [
            "tournament",
            str(tournament(tmp_path)),
            "--out",
            str(tmp_path / "out"),
            "--executor",
            "ray",
            "--address",
            "nowhere",
            "-q",
        ],
    )
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "Error: --address 'nowhere': expected HOST:PORT, 'auto' or ray://HOST:PORT"
    ]


def test_the_command_line_does_not_load_ray() -> None:
    code = "import sys, ginref.cli, tournaments.executors.cluster; print('ray' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert out.stdout.strip() == "False"
