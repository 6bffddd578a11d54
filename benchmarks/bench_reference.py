"""The reference bot's strength: a gauntlet against the greedy and random sample bots, rated.

Runs ``ginref tournament`` (real bot processes in their sandboxes, the referee's clock) on a
gauntlet whose challenger is ``python -m ginref_rl.reference_bot --budget-ms B`` against
``sample_bots.greedy_bot`` and ``sample_bots.random_bot``, with duplicate deals (each deal
played twice, seats swapped), then rates each pairing on its own with
:func:`tournaments.results.ratings.fit_ratings` (Bradley–Terry, one virtual draw per pairing): the
Elo of the reference bot over each opponent with its 95% interval, and its hand points won minus
lost per hand (``standings.json``). Also the reference bot's think
time per decision (as the referee measured it, network included), from the replay logs. The
run resumes if stopped (the same ``--out``).

Run: ``.venv/bin/python benchmarks/bench_reference.py [--matches N] [--random-matches N]
[--budget-ms B] [-j J] [--seed S] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from tournaments.results.ratings import fit_ratings

CHALLENGER = "reference"


def tournament_file(name: str, budget_ms: float, opponent: str, matches: int, seed: int) -> str:
    module = {"greedy": "sample_bots.greedy_bot", "random": "sample_bots.random_bot"}[opponent]
    return f"""
name = "{name}"
format = "gauntlet"
challengers = ["{CHALLENGER}"]
matches = {matches}
duplicate = true
seed = {seed}

[rules]
profile = "standard"

[[bots]]
name = "{CHALLENGER}"
command = "{{python}} -m ginref_rl.reference_bot --budget-ms {budget_ms:g}"

[[bots]]
name = "{opponent}"
command = "{{python}} -m {module}"
env = {{ GINREF_BOT_SEED = "{seed}" }}
"""


def head_to_head(out: Path, opponent: str) -> tuple[int, int, int]:
    """The challenger's wins, draws and losses against ``opponent`` (crosstable.csv)."""
    with (out / "crosstable.csv").open(newline="") as handle:
        rows = {row[""] if "" in row else row["bot"]: row for row in csv.DictReader(handle)}
    cell = rows[CHALLENGER][opponent]
    won, drawn, lost = (int(x) for x in cell.split("-"))
    return won, drawn, lost


def think_times(out: Path) -> list[float]:
    """The challenger's think time of every decision, in ms, as the referee measured it
    (network included), from the matches' replay logs."""
    times: list[float] = []
    for log in sorted((out / "logs").rglob("*.jsonl")):
        with log.open() as handle:
            header = json.loads(next(handle))
            seats = {b["seat"] for b in header["bots"] if b["label"] == CHALLENGER}
            for line in handle:
                record = json.loads(line)
                if record["type"] == "decision" and record["seat"] in seats:
                    times.append(float(record["think_ms"]))
    return times


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="The reference bot against the sample bots.")
    parser.add_argument("--matches", type=int, default=300, help="against greedy (even)")
    parser.add_argument("--random-matches", type=int, default=40, help="against random (even)")
    parser.add_argument("--budget-ms", type=float, default=100.0)
    parser.add_argument("-j", "--concurrency", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("runs/bench-reference"))
    args = parser.parse_args(argv)
    print(
        f"reference bot, --budget-ms {args.budget_ms:g}, standard profile, duplicate deals, "
        f"master seed {args.seed}"
    )
    for opponent, matches in (("greedy", args.matches), ("random", args.random_matches)):
        out: Path = args.out / opponent
        out.mkdir(parents=True, exist_ok=True)
        spec = out / "tournament.toml"
        spec.write_text(
            tournament_file(
                f"reference-vs-{opponent}", args.budget_ms, opponent, matches, args.seed
            )
        )
        command = [
            sys.executable,
            "-m",
            "ginref",
            "tournament",
            str(spec),
            "--out",
            str(out),
            "-j",
            str(args.concurrency),
            "--quiet",
        ]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        won, drawn, lost = head_to_head(out, opponent)
        games = [(CHALLENGER, opponent, 1.0)] * won + [(CHALLENGER, opponent, 0.5)] * drawn
        games += [(CHALLENGER, opponent, 0.0)] * lost
        ratings = fit_ratings([CHALLENGER, opponent], games)
        elo, low, high = ratings.elo[CHALLENGER]
        # Two bots centred on their mean: the challenger is half the difference above it.
        standings = json.loads((out / "standings.json").read_text())
        row = next(b for b in standings["bots"] if b["name"] == CHALLENGER)
        per_hand = (row["hand_points_for"] - row["hand_points_against"]) / row["hands"]
        times = sorted(think_times(out))
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
        print(
            f"vs {opponent:<6}: {won}-{drawn}-{lost} (W-D-L) in {won + drawn + lost} matches; "
            f"Elo {2 * elo:+.0f} [{2 * low:+.0f}, {2 * high:+.0f}] (95%); "
            f"hand points {per_hand:+.1f} per hand over {row['hands']} hands; "
            f"{len(times)} decisions: think time median {statistics.median(times):.0f} ms, "
            f"mean {statistics.fmean(times):.0f}, 99th percentile {p99:.0f}, max {times[-1]:.0f}"
        )
        for note in ratings.notes:
            print(f"  note: {note}")


if __name__ == "__main__":
    main()
