r"""What users see of a replay log, held byte for byte: the golden outputs of the log readers.

The corpus, ``tests/data/golden/logs/``, is real referee logs (every profile, a Hollywood
match, three players, partnerships, faults, and damaged copies: cut mid-line, without its
result, a result altered), made by ``tests/data/golden/make.py``. For each log this test runs
``ginref verify -v``, ``ginref replay`` and its text views (``--seat``, ``--hand``, ``--ascii``,
``--color``, ``--at``), plus a few error cases and ``--step``, in-process through click's
CliRunner with a fixed environment, and compares stdout, stderr and the exit status with the
files in ``tests/data/golden/expected/``; a difference fails with a unified diff.

The outputs are whatever the commands print today, mistakes included: the test guards against
unintended change, not for correctness (other tests do that).

When a change to an output is intended, record the outputs again and review the diff:

    GINREF_GOLDEN_UPDATE=1 .venv/bin/python -m pytest -q -p no:xdist \
        tests/replays/test_golden_outputs.py
    git diff tests/data/golden/expected

Rebuilding the logs themselves (``.venv/bin/python tests/data/golden/make.py``) records the
outputs again as well.

Only what differs from run to run is masked (:func:`normalise`): paths of this checkout.
The logs are fixed files, so their think times, match ids and creation times print the same on
every run and are compared like the rest.
"""

from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ginref.cli import main

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
LOGS = GOLDEN / "logs"
EXPECTED = GOLDEN / "expected"
REPO = GOLDEN.parents[2]
UPDATE = os.environ.get("GINREF_GOLDEN_UPDATE", "") not in ("", "0")

# The same environment for recording and comparing, whatever the shell running pytest has:
# a width and terminal type in case a view ever asks for them, and no colour switches (the
# views colour only on a terminal or with --color; CliRunner's output is never a terminal).
ENVIRONMENT: dict[str, str | None] = {
    "COLUMNS": "100",
    "LINES": "40",
    "TERM": "dumb",
    "NO_COLOR": None,
    "FORCE_COLOR": None,
    "CLICOLOR": None,
    "CLICOLOR_FORCE": None,
}


# The logs also shown with letters for suits and in colour: one of each view (two players,
# three, partnerships, a fault forgiven); the other logs would repeat the same styling.
STYLED = {"standard", "three-players", "partners", "retry-illegal"}


@dataclass(frozen=True)
class Case:
    """One command on one log, and the file its recorded output lives in."""

    name: str  # the expected file's path under EXPECTED, without ".txt"
    args: tuple[str, ...]  # after "ginref"; log paths relative to LOGS, the working directory
    stdin: str | None = None

    @property
    def expected(self) -> Path:
        return EXPECTED / f"{self.name}.txt"


def at_line(log: Path) -> int | None:
    """The event ``--at`` is shown for: the first fault made while deciding, else the decision
    halfway through the log; read from the log's complete lines, so a cut log has one too."""
    decisions, faults = [], []
    for number, line in enumerate(log.read_text(encoding="utf-8").splitlines(), start=1):
        try:
            record = json.loads(line)
        except ValueError:
            break
        if record["type"] == "decision":
            decisions.append(number)
        elif record["type"] == "fault" and record.get("request_id"):
            faults.append(number)
    if faults:
        return faults[0]
    return decisions[len(decisions) // 2] if decisions else None


def cases() -> list[Case]:
    """Every log with every command, then the single cases: errors and interaction."""
    out: list[Case] = []
    for log in sorted(LOGS.glob("*.jsonl")):
        name, stem = log.name, log.stem
        views: list[tuple[str, tuple[str, ...]]] = [
            ("verify_-v", ("verify", "-v", name)),
            ("replay", ("replay", name)),
            ("replay_--seat_0", ("replay", name, "--seat", "0")),
            ("replay_--seat_1", ("replay", name, "--seat", "1")),
            ("replay_--hand_1", ("replay", name, "--hand", "1")),
            ("replay_--hand_2", ("replay", name, "--hand", "2")),
        ]
        if stem in STYLED:
            views += [
                ("replay_--ascii", ("replay", name, "--ascii")),
                ("replay_--color", ("replay", name, "--color")),
            ]
        line = at_line(log)
        if line is not None:
            views.append(("replay_--at", ("replay", name, "--at", str(line))))
        out += [Case(f"{stem}/{label}", args) for label, args in views]
    # --ask on a partnership log, with a bot command refused before any bot runs (what a run
    # would print depends on the machine's sandbox and cgroups).
    ask = (
        "--at",
        str(at_line(LOGS / "partners.jsonl")),
        "--ask",
        "",
        "--sandbox",
        "none",
    )
    out += [
        Case("all/verify", ("verify", ".")),
        Case("all/verify_missing", ("verify", "missing.jsonl")),
        Case("all/replay_missing", ("replay", "missing.jsonl")),
        Case("three-players/replay_--seat_2", ("replay", "three-players.jsonl", "--seat", "2")),
        Case("three-players/replay_--seat_3", ("replay", "three-players.jsonl", "--seat", "3")),
        Case("partners/replay_--seat_3", ("replay", "partners.jsonl", "--seat", "3")),
        Case("partners/replay_--at_--ask", ("replay", "partners.jsonl", *ask)),
        Case("standard/replay_--seat_2", ("replay", "standard.jsonl", "--seat", "2")),
        Case("standard/replay_--hand_9", ("replay", "standard.jsonl", "--hand", "9")),
        Case("standard/replay_--at_1", ("replay", "standard.jsonl", "--at", "1")),
        # --step from a pipe reads a line per event: two lines go on, then q quits.
        Case("standard/replay_--step", ("replay", "standard.jsonl", "--step"), stdin="\n\nq\n"),
        Case("partners/replay_--step", ("replay", "partners.jsonl", "--step"), stdin="\n\n\nq\n"),
    ]
    return out


CASES = cases()


def normalise(text: str) -> str:
    """Mask what depends on where the checkout is, and nothing else: the absolute paths of the
    logs and of the repository (the commands are given relative paths, but an error might
    resolve one)."""
    return text.replace(str(LOGS), "<logs>").replace(str(REPO), "<repo>")


def section(title: str, text: str) -> str:
    """A titled block; a missing final newline is marked, as diff does, so that the file
    keeps every byte of the output apart from the next title."""
    if text and not text.endswith("\n"):
        text += "\n\\ no newline at end\n"
    return f"--- {title} ---\n{text}"


def render(case: Case, result: Result) -> str:
    """The recorded form of one run: the command, its exit status, stdout and stderr."""
    parts = [f"$ ginref {' '.join(case.args)}\n"]
    if case.stdin is not None:
        parts.append(f"stdin: {case.stdin!r}\n")
    parts.append(f"exit status: {result.exit_code}\n")
    parts.append(section("stdout", result.stdout))
    parts.append(section("stderr", result.stderr))
    # A crash would print a traceback and exit 1; its type and message are what a user would
    # report, and unlike the traceback they do not move with every edit of the code.
    crash = result.exception
    if crash is not None and not isinstance(crash, SystemExit):
        parts.append(section("exception", f"{type(crash).__name__}: {crash}\n"))
    return normalise("".join(parts))


def run(case: Case) -> str:
    """Run ``case`` in-process from the logs' directory, so paths print as a user types them."""
    runner = CliRunner(env=ENVIRONMENT)
    cwd = Path.cwd()
    os.chdir(LOGS)
    try:
        # prog_name: click would name the program after the function ("Usage: main ...").
        result = runner.invoke(main, list(case.args), input=case.stdin, prog_name="ginref")
    finally:
        os.chdir(cwd)
    return render(case, result)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_output_is_the_recorded_one(case: Case) -> None:
    actual = run(case)
    if UPDATE:
        case.expected.parent.mkdir(parents=True, exist_ok=True)
        case.expected.write_bytes(actual.encode("utf-8"))
        return
    assert case.expected.exists(), (
        f"no recorded output for {case.name}: record it with GINREF_GOLDEN_UPDATE=1"
    )
    # Bytes, not text: reading text would turn "\r\n" or "\r" into "\n" unseen.
    expected = case.expected.read_bytes().decode("utf-8")
    if actual != expected:
        diff = difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            fromfile=str(case.expected.relative_to(REPO)),
            tofile=f"ginref {' '.join(case.args)}",
        )
        pytest.fail("the output changed:\n" + "".join(diff), pytrace=False)


def test_every_recorded_output_has_its_case() -> None:
    # A recorded file without a case would go unchecked and hide that a case was lost.
    wanted = {case.expected for case in CASES}
    stray = sorted(set(EXPECTED.rglob("*.txt")) - wanted)
    if UPDATE:
        for path in stray:
            path.unlink()
        return
    assert not stray, f"recorded outputs no case produces: {[str(p) for p in stray]}"


def test_the_corpus_is_what_it_says() -> None:
    # The cases above name these logs; a rebuilt corpus must still hold them all.
    names = {log.stem for log in LOGS.glob("*.jsonl")}
    assert {"standard", "three-players", "partners", "cut-mid-line"} <= names
    assert sum(log.stat().st_size for log in LOGS.iterdir()) < 400_000
