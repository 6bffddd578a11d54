"""Real matches of the research bots through ``ginref match`` (the referee, the sandbox), and
``ginref verify`` on their logs: what the slow tests of ginref_rl's bots share."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from referee.replay_log import load_log
from tests.support.referee_helpers import ROOT


def played_match(args: list[str], out: Path, timeout: float = 300) -> tuple[Path, str]:
    """Play ``ginref match ARGS --out OUT`` through the referee: it ends without a fault or a
    forfeit, and its one replay log reads without a problem; the log and the command's
    output."""
    proc = subprocess.run(
        [sys.executable, "-m", "ginref", "match", *args, "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "forfeit" not in proc.stdout, proc.stdout
    (log,) = out.glob("*.jsonl")
    assert load_log(log).problems == []
    return log, proc.stdout


def assert_verified(log: Path) -> None:
    """``ginref verify LOG`` agrees with the log."""
    verify = subprocess.run(
        [sys.executable, "-m", "ginref", "verify", str(log)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
