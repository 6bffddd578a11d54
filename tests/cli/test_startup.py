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


def loaded_by(code: str) -> dict[str, list[str]]:
    """What ``code`` (given HEAVY) reports, run in a fresh interpreter."""
    script = f"HEAVY = {HEAVY!r}\n{code}"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
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
