"""Play the tournament whose directory the audit tests falsify, and keep what the audit reads:
``python tests/data/audit/make.py`` (from the project's root) rewrites
``tests/data/audit/tournament/`` with the journal and the replay logs of a new run.

A real run of real bot processes (the test bot, playing, erring once, and forfeiting),
unsandboxed: the sandbox changes nothing the audit reads. Run it again only when the journal's
or the logs' format changes.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from ginref.cli import main  # noqa: E402

TARGET = Path(__file__).resolve().parent / "tournament"
TESTBOT = ROOT / "tests" / "support" / "testbot.py"
# Three bots, two matches a pairing: one plays on after a refused action (a fault with a
# retry), one forfeits every match (an illegal action at its fifth decision).
TOURNAMENT = f"""
name = "audited"
matches = 2
[faults]
retries = 1
exit_grace = 0.5
kill_grace = 0.5
[[bots]]
name = "a"
command = "{{python}} {TESTBOT} play"
[[bots]]
name = "c"
command = "{{python}} {TESTBOT} illegal_once 3"
[[bots]]
name = "d"
command = "{{python}} {TESTBOT} illegal 5"
"""


def make() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        file = Path(scratch) / "t.toml"
        file.write_text(TOURNAMENT)
        out = Path(scratch) / "out"
        argv = ["tournament", str(file), "--out", str(out), "-j", "1", "--sandbox", "none"]
        result = CliRunner().invoke(main, argv)
        if result.exit_code != 0:
            raise SystemExit(result.output)
        shutil.rmtree(TARGET, ignore_errors=True)
        TARGET.mkdir(parents=True)
        shutil.copy(out / "journal.sqlite", TARGET)
        for log in out.glob("logs/**/*.jsonl"):
            (TARGET / log.relative_to(out)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(log, TARGET / log.relative_to(out))


if __name__ == "__main__":
    make()
