"""Helpers of the tests of ``ginref serve`` as an organiser runs it: a tournament file with remote
bots, their tokens, the command in a subprocess and remote bots started by the test."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from ginref.cli import main
from tests.support.certs import Certificates
from tests.support.referee_helpers import ROOT
from tournaments.journal.store import JOURNAL_FILE, open_journal

BOUND = 120.0  # seconds: far above what any step here needs
GREEDY = [sys.executable, "-m", "sample_bots.greedy_bot"]


def write_file(tmp_path: Path, certs: Certificates, remote: list[str], extra: str = "") -> Path:
    text = f"""name = "hosted"
matches = 2
seed = 7
out = "{tmp_path / "out"}"
concurrency = 2
[rules.set]
target = 30
[serve]
address = "127.0.0.1:0"
cert = "{certs.server_cert}"
key = "{certs.server_key}"
live = "off"
{extra}
[[bots]]
name = "local"
command = "{{python}} -m sample_bots.greedy_bot"
"""
    for name in remote:
        text += f'\n[[bots]]\nname = "{name}"\nremote = true\n'
    file = tmp_path / "t.toml"
    file.write_text(text)
    return file


def issue(file: Path) -> dict[str, str]:
    result = CliRunner().invoke(main, ["tokens", "issue", str(file)])
    assert result.exit_code == 0, result.output
    tokens = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert all(t.startswith("ginref_") for t in tokens.values())
    return tokens


def until(condition: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + BOUND
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"not within {BOUND:g} s: {what}")


class Serve:
    """``ginref serve FILE`` in a subprocess; its address once it listens."""

    def __init__(self, file: Path, tmp_path: Path, run: int = 1, *args: str) -> None:
        self.err = tmp_path / f"serve{run}.err"
        self.out = tmp_path / f"serve{run}.out"
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ginref", "serve", str(file), "--no-progress", *args],
            cwd=ROOT,
            stdout=self.out.open("w"),
            stderr=self.err.open("w"),
        )
        found = until(self._address, "ginref serve says where it listens")
        self.address: str = found

    def _address(self) -> str | None:
        match = re.search(r"Remote bots connect to (\S+) \(TLS\)", self.err.read_text())
        if match is None and self.process.poll() is not None:
            raise AssertionError(f"ginref serve exited: {self.err.read_text()}")
        return match.group(1) if match else None

    def wait(self) -> int:
        return self.process.wait(BOUND)

    def said(self, pattern: str, times: int = 1) -> re.Match[str]:
        """Wait until the command has printed ``times`` lines matching ``pattern`` (on
        stderr); the last of them."""

        def seen() -> re.Match[str] | None:
            exited = self.process.poll() is not None
            found = list(re.finditer(pattern, self.err.read_text(), re.MULTILINE))[times - 1 :]
            if found:
                return found[0]
            if exited:
                raise AssertionError(f"ginref serve exited without {pattern!r}: {self.err}")
            return None

        said: re.Match[str] = until(seen, f"{pattern!r} said")
        return said


def remote_bot(
    serve: Serve,
    token: str,
    certs: Certificates,
    tmp_path: Path,
    label: str,
    command: list[str] = GREEDY,
    **extra: str,
) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "GINREF_ADDRESS": serve.address,
        "GINREF_TOKEN": token,
        "GINREF_CA_CERT": str(certs.ca),
        **extra,
    }
    output = (tmp_path / f"{label}.out").open("w")
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=output, stderr=output)


def journal_rows(out: Path) -> list[tuple[str, int]]:
    """(key, session) of each journaled match."""
    with sqlite3.connect(f"file:{out / JOURNAL_FILE}?mode=ro", uri=True) as db:
        return list(db.execute("SELECT key, session FROM matches ORDER BY key"))


def records_of(out: Path) -> list[Any]:
    journal = open_journal(out)
    try:
        return sorted(journal.records(), key=lambda r: r.key)
    finally:
        journal.close()
