"""`ginref live DIR`: a wrong directory or a port in use is one line and exit status 1 (serving
itself is tested end to end in tests/tournaments/test_live_e2e.py)."""

from __future__ import annotations

import socket
from pathlib import Path

from click.testing import CliRunner

from ginref.cli import main
from tournaments.journal.store import open_journal


def one_error_line(*args: str) -> str:
    """Run ``ginref live`` where it must fail on a user mistake: exit 1, one line, no
    traceback."""
    result = CliRunner().invoke(main, ["live", *args])
    lines = result.output.strip().splitlines()
    assert result.exit_code == 1 and len(lines) == 1, result.output
    assert lines[0].startswith("Error: ") and "Traceback" not in result.output
    return lines[0]


def test_a_directory_that_is_not_there(tmp_path: Path) -> None:
    line = one_error_line(str(tmp_path / "runs" / "spring"))
    assert line == f"Error: {tmp_path / 'runs' / 'spring'}: no such directory"


def test_a_directory_without_a_journal(tmp_path: Path) -> None:
    line = one_error_line(str(tmp_path))
    assert line == f"Error: {tmp_path}: not a tournament directory (no journal.sqlite)"


def test_a_file_that_is_no_journal(tmp_path: Path) -> None:
    (tmp_path / "journal.sqlite").write_text("not a database, just text " * 200)
    line = one_error_line(str(tmp_path), "--port", "0")
    assert "journal.sqlite" in line and "not a ginref journal" in line


def test_a_port_in_use(tmp_path: Path) -> None:
    open_journal(tmp_path).close()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = one_error_line(str(tmp_path), "--port", str(port))
    assert line.startswith(f"Error: cannot serve the live page on 127.0.0.1:{port}: ")
    assert "in use" in line


def test_a_port_out_of_range_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["live", str(tmp_path), "--port", "70000"])
    assert result.exit_code == 2 and "70000 is not in the range 0<=x<=65535" in result.output


def test_the_command_is_listed() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0 and "live" in result.output
