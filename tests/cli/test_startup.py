"""Every ``ginref`` command starts without the heavy libraries it does not use.

Declaring the commands is what every run does first (``ginref --help`` too), so what the
command modules import at their top is paid by every command; the statistics, the live page's
server, the referee's series and the report's formatting are imported by the commands that use
them (ginref/cli.py). Each check runs in a fresh interpreter: what this test process has
imported already says nothing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# Loaded only by the commands that use them: the statistics (standings, ratings, SPRT), the
# live page's web server, the referee's series and server (a match played), the runner, the
# terminal's progress display (rich), the logs' schema checks (jsonschema), the journal
# (sqlite3).
HEAVY = (
    "statsmodels",
    "scipy",
    "numpy",
    "tournaments.live.server",
    "uvicorn",
    "referee.series",
    "referee.server",
    "tournaments.runner",
    "tournaments.outputs.console",
    "rich",
    "jsonschema",
    "sqlite3",
)

# Imports the command line, builds every command (the group's help lists them all) and asks
# each command, group and subcommand for its --help; prints which of HEAVY got loaded.
WALK = """
import json, sys
import click
from click.testing import CliRunner
from ginref.cli import main

def paths(group, prefix):
    context = click.Context(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        yield [*prefix, name]
        if isinstance(command, click.Group):
            yield from paths(command, [*prefix, name])

helped = []
for path in [[], *paths(main, [])]:
    result = CliRunner().invoke(main, [*path, "--help"])
    assert result.exit_code == 0, (path, result.output)
    helped.append(" ".join(path))
print(json.dumps({"helped": helped, "loaded": [m for m in HEAVY if m in sys.modules]}))
"""


def loaded_by(code: str, *argv: str) -> dict[str, list[str]]:
    """What ``code`` (given HEAVY, and ``argv``) reports, run in a fresh interpreter."""
    script = f"HEAVY = {HEAVY!r}\n{code}"
    done = subprocess.run(
        [sys.executable, "-c", script, *argv], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, list[str]] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_importing_the_command_line_loads_nothing_heavy() -> None:
    found = loaded_by(
        "import sys, json, ginref.cli\n"
        "print(json.dumps({'loaded': [m for m in HEAVY if m in sys.modules]}))"
    )
    assert found["loaded"] == []


def test_every_commands_help_loads_nothing_heavy() -> None:
    found = loaded_by(WALK)
    # The walk reached every command and subcommand, not just the group.
    assert {"", "match", "tournament", "deals make", "ladder run", "tokens issue"} <= set(
        found["helped"]
    )
    assert found["loaded"] == []


# A log of the golden corpus (tests/replays/test_golden_outputs.py).
LOG = Path(__file__).resolve().parents[1] / "data" / "golden" / "logs" / "standard.jsonl"

# Reads LOG with the command in argv, prints which of HEAVY got loaded.
READ = """
import json, sys
from click.testing import CliRunner
from ginref.cli import main

result = CliRunner().invoke(main, sys.argv[1:])
assert result.exit_code == 0, result.output
print(json.dumps({"loaded": [m for m in HEAVY if m in sys.modules]}))
"""


@pytest.mark.parametrize(
    ("command", "needs"),
    [
        ("replay", set()),
        ("verify", {"jsonschema", "sqlite3"}),  # the schema check; a tournament's journal
    ],
)
def test_reading_a_log_loads_only_what_reading_needs(command: str, needs: set[str]) -> None:
    found = loaded_by(READ, command, str(LOG))
    assert set(found["loaded"]) == needs
