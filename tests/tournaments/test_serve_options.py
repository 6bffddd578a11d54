"""``ginref serve`` takes the rule and schedule options of ``ginref tournament``: ``--profile``,
``--set NAME=VALUE`` and ``-n/--matches`` override the file, and the matches played show it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.certs import Certificates
from tests.support.serve_helpers import Serve, issue, records_of, remote_bot, write_file

pytestmark = pytest.mark.slow  # a real referee and real bot processes


def test_profile_set_and_matches_override_the_file(tmp_path: Path, certs: Certificates) -> None:
    file = write_file(tmp_path, certs, ["alice"])  # the file: matches = 2, target = 30
    tokens = issue(file)
    args = ("--profile", "oklahoma", "--set", "target=25", "-n", "3")
    serve = Serve(file, tmp_path, 1, *args)
    alice = remote_bot(serve, tokens["alice"], certs, tmp_path, "alice")
    assert serve.wait() == 0, serve.err.read_text()
    assert alice.wait(120) == 0
    out = tmp_path / "out"
    assert len(records_of(out)) == 3
    logs = sorted((out / "logs").rglob("*.jsonl"))
    assert len(logs) == 3
    for log in logs:
        rules = json.loads(log.read_text().splitlines()[0])["rules"]
        assert rules["profile_name"] == "oklahoma" and rules["target"] == 25
