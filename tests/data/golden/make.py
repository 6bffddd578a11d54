"""Rebuild the golden corpus: real replay logs for tests/replays/test_golden_outputs.py.

    .venv/bin/python tests/data/golden/make.py

Each log in ``logs/`` is a match the referee really played (``ginref match --sandbox none``)
between the sample bots, or the test bot of ``tests/support/testbot.py`` where a fault is
wanted, kept short (low targets, single-hand profiles) so that the corpus stays small and the
test fast. A few more are copies of those, damaged as logs get damaged: cut in the middle of a
line, stopped before the match result, a result altered by hand.

The moves are deterministic (the greedy bot is, and the random bot is seeded through
``GINREF_BOT_SEED``, which an unsandboxed bot inherits), but think times, match ids and
creation times are not: a rebuilt corpus differs from the committed one, so after rebuilding,
this script records the outputs again (``GINREF_GOLDEN_UPDATE=1``, see the test module) and
both are committed together. Rebuild only on purpose, e.g. when the log format changes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
LOGS = HERE / "logs"

# Bot commands as a user would type them: "python" is found on the PATH given below (the
# virtualenv's), so the logs' headers hold no path of this machine.
GREEDY = "python -m sample_bots.greedy_bot"
RANDOM = "python -m sample_bots.random_bot"
TESTBOT = "python tests/support/testbot.py"


@dataclass(frozen=True)
class Game:
    """One ``ginref match``: its log's name in the corpus, bots, rules and referee options."""

    name: str
    bots: tuple[str, ...]
    profile: str = "standard"
    sets: tuple[str, ...] = ()
    seed: int = 1
    options: tuple[str, ...] = ()


GAMES = (
    # Every profile of the engine, two players; match-scope profiles to a low target so a
    # match is two or three hands, and still ends with its game bonus, boxes and shutouts.
    Game("standard", (GREEDY, RANDOM), "standard", ("target=40",), seed=11),
    Game("pagat", (GREEDY, RANDOM), "pagat", ("target=100",), seed=12),
    Game("oklahoma", (GREEDY, RANDOM), "oklahoma", ("target=80",), seed=13),
    Game("oklahoma-std", (RANDOM, GREEDY), "oklahoma-std", ("target=80",), seed=14),
    Game("openspiel", (GREEDY, RANDOM), "openspiel", seed=15),
    Game("rlcard", (RANDOM, GREEDY), "rlcard", seed=16),
    Game("neller-eaai", (GREEDY, RANDOM), "neller-eaai", ("target=40",), seed=17),
    Game("hollywood", (GREEDY, GREEDY), "standard", ("hollywood=true", "target=20"), seed=18),
    # Three players (R10.1) and two partnerships at two tables (R10.2).
    Game("three-players", (GREEDY, RANDOM, GREEDY), "standard", ("target=100",), seed=21),
    Game("partners", (GREEDY, RANDOM, GREEDY, RANDOM), "standard", ("target=100",), seed=22),
    # Faults: an illegal action that forfeits, one forgiven by the retry policy, a timeout
    # with no time bank, and a crash among three players.
    Game("forfeit-illegal", (GREEDY, f"{TESTBOT} illegal 4"), seed=31),
    Game(
        "retry-illegal",
        (f"{TESTBOT} illegal_once 2", GREEDY),
        "standard",
        ("target=20",),
        seed=32,
        options=("--retries", "1"),
    ),
    Game(
        "forfeit-timeout",
        (GREEDY, f"{TESTBOT} wait 3"),
        seed=33,
        options=("--move-time", "0.3", "--bank", "0"),
    ),
    Game("forfeit-crash-3p", (GREEDY, RANDOM, f"{TESTBOT} crash 5"), seed=34),
)


def play(game: Game, scratch: Path) -> Path:
    """Play ``game`` with the project's CLI and return its log, moved into the corpus."""
    out = scratch / game.name
    command = [sys.executable, "-m", "ginref", "match", *game.bots, "--profile", game.profile]
    for assignment in game.sets:
        command += ["--set", assignment]
    command += ["--seed", str(game.seed), "--out", str(out), "--sandbox", "none", *game.options]
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "GINREF_BOT_SEED": "3",
    }
    # A forfeit is not an error of the match command; only a bot that never connected is.
    subprocess.run(command, cwd=REPO, env=env, check=True, capture_output=True)
    (log,) = out.glob("*.jsonl")
    target = LOGS / f"{game.name}.jsonl"
    shutil.copyfile(log, target)
    return target


def cut_mid_line(source: Path, target: Path, line: int) -> None:
    """A copy of ``source`` that ends halfway through its ``line`` (1-based), no newline: what
    a referee killed while writing leaves behind."""
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = "".join(lines[: line - 1]) + lines[line - 1][: len(lines[line - 1]) // 2]
    target.write_text(kept, encoding="utf-8")


def without_result(source: Path, target: Path) -> None:
    """A copy of ``source`` without its last line, the match result: a referee killed
    between two records."""
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    target.write_text("".join(lines[:-1]), encoding="utf-8")


def altered_points(source: Path, target: Path) -> None:
    """A copy of ``source`` whose first hand result claims 5 points more than were won."""
    out = []
    changed = False
    for line in source.read_text(encoding="utf-8").splitlines(keepends=True):
        record = json.loads(line)
        if record["type"] == "hand_result" and not changed:
            record["points"] += 5
            line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
            changed = True
        out.append(line)
    target.write_text("".join(out), encoding="utf-8")


def main() -> None:
    if LOGS.exists():
        shutil.rmtree(LOGS)
    LOGS.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as scratch:
        played = {game.name: play(game, Path(scratch)) for game in GAMES}
    cut_mid_line(played["standard"], LOGS / "cut-mid-line.jsonl", line=20)
    cut_mid_line(played["three-players"], LOGS / "cut-mid-line-3p.jsonl", line=30)
    without_result(played["standard"], LOGS / "no-result.jsonl")
    altered_points(played["standard"], LOGS / "altered-points.jsonl")
    for path in sorted(LOGS.iterdir()):
        print(f"{path.stat().st_size:>8}  {path.relative_to(REPO)}")
    # The outputs belong to these logs: record them again with the test's own code.
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:xdist",
            "tests/replays/test_golden_outputs.py",
        ],
        cwd=REPO,
        env={**os.environ, "GINREF_GOLDEN_UPDATE": "1"},
        check=True,
    )


if __name__ == "__main__":
    main()
