"""A remote entrant: its bot runs on its entrant's machine and connects over TLS with the token
``ginref ladder entrant`` issued, as to ``ginref serve``; the service pairs it only while it is
connected, and rates it like any other."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from tests.support.certs import Certificates
from tests.support.referee_helpers import ROOT
from tests.support.serve_helpers import GREEDY
from tournaments.journal.store import open_journal
from tournaments.ladder.service import PLAY

pytestmark = pytest.mark.slow  # a service process, a remote bot over TLS

BOUND = 300.0  # seconds: far above what the work needs


def test_a_remote_entrant_plays_while_connected(tmp_path: Path, certs: Certificates) -> None:
    season = tmp_path / "season"
    season.mkdir()
    (season / "season.toml").write_text(f"""name = "remote"
[rules.set]
target = 30
[serve]
address = "127.0.0.1:0"
cert = "{certs.server_cert}"
key = "{certs.server_key}"
[[bots]]
name = "greedy"
command = "{{python}} -m sample_bots.greedy_bot"
[[bots]]
name = "random"
command = "{{python}} -m sample_bots.random_bot"
[[bots]]
name = "alice"
remote = true
""")
    result = CliRunner().invoke(main, ["ladder", "entrant", str(season), "alice"])
    assert result.exit_code == 0, result.output
    token = result.output.splitlines()[-1]
    out = (tmp_path / "service.out").open("w")
    service = subprocess.Popen(
        [sys.executable, "-m", "ginref", "ladder", "run", str(season), "-j", "2"],
        cwd=ROOT,
        stdout=out,
        stderr=subprocess.STDOUT,
    )
    bot = None
    try:
        deadline = time.monotonic() + BOUND
        while not (found := re.search(r"connect to (\S+)", (tmp_path / "service.out").read_text())):
            assert service.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        env = {
            **os.environ,
            "GINREF_ADDRESS": found.group(1),
            "GINREF_TOKEN": token,
            "GINREF_CA_CERT": str(certs.ca),
        }
        log = (tmp_path / "alice.out").open("w")
        bot = subprocess.Popen(GREEDY, cwd=ROOT, env=env, stdout=log, stderr=log)

        def alice_matches() -> list[tuple[str, ...]]:
            journal = open_journal(season / PLAY, create=False, read_only=True)
            try:
                return [r.seats for r in journal.records() if "alice" in r.seats]
            finally:
                journal.close()

        while len(alice_matches()) < 2:
            assert service.poll() is None and bot.poll() is None
            assert time.monotonic() < deadline, "alice played no match"
            time.sleep(0.1)
    finally:
        service.send_signal(signal.SIGINT)
        assert service.wait(BOUND) == 0, (tmp_path / "service.out").read_text()
        if bot is not None:
            bot.wait(BOUND)
    journal = open_journal(season / PLAY, create=False, read_only=True)
    try:
        mine = [r for r in journal.records() if "alice" in r.seats]
    finally:
        journal.close()
    assert mine and not [f for r in mine for f in r.faults]
    result = CliRunner().invoke(main, ["ladder", "export", str(season), "--format", "json"])
    rows = {r["bot"]: r for r in json.loads(result.output)}
    assert rows["alice"]["kind"] == "remote" and rows["alice"]["matches"] >= 2
