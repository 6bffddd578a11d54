"""Mutation testing of the modules that carry ginref's promises, with mutmut (``scripts/mutation``).

Each group mutates a few modules in a scratch copy of the tracked files (``.mutation/<group>``)
and runs, against every mutant, the tests that guard them (mutmut runs only those tests that
reach the mutated function, fastest first, and stops at the first failure). A mutant is
*killed* when a test fails, *survives* when every test passes, has *no tests* when none reaches
it; the score is the share of mutants killed (a timeout counts as killed: the change hung a
test). Survivors are what to read: ``cd .mutation/<group> && ../../.venv/bin/mutmut results``
lists them, ``mutmut show <name>`` shows each change.

The selections are the fast tests of each module, not the end-to-end ones: a mutant is run
hundreds of times, so a group is chosen to finish in minutes on two cores.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("referee", "replays", "tournaments", "ginref", "ginref_rl", "sample_bots")


@dataclass(frozen=True, slots=True)
class Group:
    modules: tuple[str, ...]
    tests: tuple[str, ...]
    deselect: tuple[str, ...] = ()


GROUPS: dict[str, Group] = {
    "scoring": Group(
        ("referee/engine/scoring.py", "referee/engine/layoffs.py"),
        (
            "tests/engine/test_examples.py",
            "tests/engine/test_match_scoring.py",
            "tests/engine/test_cards_melds.py",
            "tests/engine/test_hand.py",
            "tests/test_rules_reference.py",
        ),
    ),
    "observation": Group(
        ("referee/engine/observation.py",),
        (
            "tests/engine/test_observation.py",
            "tests/engine/test_hand.py",
            "tests/engine/test_seen_cache.py",
            "tests/engine/test_group.py",
            "tests/referee/test_convert.py",
            "tests/referee/test_leak.py",
        ),
    ),
    "clock": Group(
        ("referee/inbox.py", "referee/session.py", "referee/turn.py"),
        # The session's tests with scripted bots: the faults of real bot processes are timed
        # against deadlines that code slowed down by mutmut's bookkeeping would miss.
        ("tests/referee/test_session.py", "tests/referee/test_leak.py"),
    ),
    "sandbox": Group(("referee/bots/sandbox.py",), ("tests/bots/test_sandbox_plan.py",)),
    "statistics": Group(
        (
            "tournaments/results/sprt.py",
            "tournaments/results/sprt_settings.py",
            "tournaments/results/ratings.py",
        ),
        ("tests/tournaments/test_sprt.py", "tests/tournaments/test_standings.py"),
    ),
    "spectator": Group(
        ("replays/spectate.py", "tournaments/live/watch.py"),
        ("tests/replays/test_spectate.py", "tests/tournaments/test_spectators.py"),
    ),
    "journal": Group(
        ("tournaments/journal/store.py", "tournaments/journal/audit.py"),
        (
            "tests/tournaments/test_journal_damage.py",
            "tests/tournaments/test_audit.py",
            "tests/tournaments/test_group_standings.py",
        ),
    ),
}
# mutmut's own code runs inside the mutated functions (it reads its configuration): the test
# that the engine does no I/O would fail for every mutant of the engine.
ALWAYS_DESELECT = ("tests/engine/test_purity.py",)
ALSO_COPY = ("docs", "proto", "README.md")
STATUSES = ("killed", "timeout", "survived", "no tests", "suspicious", "skipped", "segfault")


def copy_tree(target: Path) -> None:
    """The tracked files of the project (with the generated gRPC modules) into ``target``."""
    if target.exists():
        shutil.rmtree(target)
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        source = ROOT / name.decode()
        if source.is_file():
            (target / name.decode()).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name.decode())


def write_config(target: Path, group: Group) -> None:
    deselect = [f"--ignore={path}" for path in ALWAYS_DESELECT + group.deselect]
    lines = [
        "[mutmut]",
        "source_paths=" + "\n    ".join(PACKAGES),
        "only_mutate=" + "\n    ".join(group.modules),
        # Beside the packages and tests/, what the tests read (the rules text, the proto).
        "also_copy=" + "\n    ".join(ALSO_COPY),
        "pytest_add_cli_args_test_selection=" + "\n    ".join(group.tests),
        # The fast tests only: a real bot process, timed against a deadline, fails when the
        # code is slowed by mutmut's bookkeeping, mutated or not.
        "pytest_add_cli_args="
        + "\n    ".join(["-p", "no:xdist", "-p", "no:cacheprovider", "-m", "not slow"]),
    ]
    if deselect:
        lines[-1] += "\n    " + "\n    ".join(deselect)
    (target / "setup.cfg").write_text("\n".join(lines) + "\n")


def results(target: Path) -> dict[str, Counter[str]]:
    """Per module (dotted), how many mutants ended in each status."""
    listed = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        cwd=target,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    counts: dict[str, Counter[str]] = {}
    for line in listed.splitlines():
        found = re.match(r"\s*([\w.]+?)\.x[\w]*__mutmut_\d+: (.+)$", line.strip())
        if found:
            counts.setdefault(found.group(1), Counter())[found.group(2).strip()] += 1
    return counts


def run_group(name: str, group: Group, children: int) -> dict[str, Counter[str]]:
    target = ROOT / ".mutation" / name
    copy_tree(target)
    write_config(target, group)
    started = time.monotonic()
    log = target / "mutmut.log"
    with log.open("w") as out:
        done = subprocess.run(
            [sys.executable, "-m", "mutmut", "run", "--max-children", str(children)],
            cwd=target,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    if done.returncode != 0:
        tail = log.read_text(errors="replace").splitlines()[-15:]
        raise SystemExit(f"mutmut failed in {target} (exit {done.returncode}):\n" + "\n".join(tail))
    counts = results(target)
    print(f"{name}: {time.monotonic() - started:.0f} s", file=sys.stderr)
    return counts


def table(rows: dict[str, Counter[str]]) -> str:
    head = f"{'module':<34} {'mutants':>7} {'killed':>7} {'survived':>8} {'no tests':>8}"
    head += f" {'score':>6}"
    out = [head, "-" * len(head)]
    for module, counts in rows.items():
        total = sum(counts.values())
        killed = counts["killed"] + counts["timeout"]
        score = 100.0 * killed / total if total else 0.0
        out.append(
            f"{module:<34} {total:>7} {killed:>7} {counts['survived']:>8} "
            f"{counts['no tests']:>8} {score:>5.1f}%"
        )
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("groups", nargs="*", help=f"of: {', '.join(GROUPS)} (default: all)")
    parser.add_argument("--list", action="store_true", help="show the groups and exit")
    parser.add_argument("--children", type=int, default=2, help="mutants run at once")
    args = parser.parse_args()
    if args.list:
        for name, group in GROUPS.items():
            print(f"{name}: {', '.join(group.modules)}\n    tests: {', '.join(group.tests)}")
        return
    unknown = [g for g in args.groups if g not in GROUPS]
    if unknown:
        raise SystemExit(f"unknown group {unknown[0]!r}: the groups are {', '.join(GROUPS)}")
    rows: dict[str, Counter[str]] = {}
    for name in args.groups or list(GROUPS):
        rows.update(run_group(name, GROUPS[name], args.children))
    print(table(rows))


if __name__ == "__main__":
    main()
