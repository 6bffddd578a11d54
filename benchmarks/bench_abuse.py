"""What an abusive opponent costs an honest bot: its decision times beside floods, a spinner and
a memory thrasher, with the referee's defences and without them, side by side in one run.

The honest bot (benchmarks/working_bot.py) spends ``--work-ms`` of its own CPU on each decision
and plays greedy. Each scenario plays ``--matches`` sandboxed matches (a series, kept
processes) against one opponent, the honest bot in seat 1 of the first; the figures are the
honest bot's decision times as the referee measured them (the replay logs' ``think_ms``, which
count from when its relay had the request to when its reply reached the relay), their median
and 99th percentile, their ratio to the quiet scenario, the referee process's CPU per decision
(``time.process_time``, all its threads), and what the opponent was charged.

Scenarios:

- ``quiet``: the opponent is the greedy sample bot.
- ``spin``, ``thrash``: the opponent answers at once and, all match long, spins a core or
  copies 32 MiB again and again (tests/support/attacker.py ``spin_between``, ``thrash``); with
  ``ponder`` (bots may think on their opponent's time) and without (the default: the opponent
  is frozen between its turns).
- ``flood-KIND``: the opponent plays and, all match long, floods raw HTTP/2 on other
  connections to its seat's socket (tests/support/h2_attacker.py: ``reset``, ``window``,
  ``ping``, ``settings``, ``priority``), with ``ponder`` so that the flood runs while the honest
  bot thinks; ``contained``: the relay does not cut it (its CPU share holds it alone), ``cut``:
  as run by default, the relay gives the seat up and the referee charges a PROTOCOL_ERROR.

Run: ``.venv/bin/python benchmarks/bench_abuse.py [--matches N] [--work-ms MS]
[--only NAME,...]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.bots.spec import BotSpec  # noqa: E402
from referee.engine.rules import Rules  # noqa: E402
from referee.relay_link import SeatRelay  # noqa: E402
from referee.replay_log import load_log  # noqa: E402
from referee.series import run_series_async  # noqa: E402
from referee.settings import RefereeOptions  # noqa: E402

SUPPORT = ROOT / "tests" / "support"
FLOODS = ("reset", "window", "ping", "settings", "priority")


@dataclass(frozen=True)
class Scenario:
    name: str
    opponent: BotSpec
    ponder: bool
    cut: bool = True


def scenarios(work_ms: float) -> list[Scenario]:
    python = sys.executable
    greedy = BotSpec((python, "-m", "sample_bots.greedy_bot"), "greedy")

    def attacker(mode: str) -> BotSpec:
        return BotSpec(
            (python, str(SUPPORT / "attacker.py"), mode), mode, dirs=(str(SUPPORT), str(ROOT))
        )

    def flooder(kind: str) -> BotSpec:
        return BotSpec((python, str(SUPPORT / "h2_attacker.py"), kind), f"flood-{kind}")

    out = [Scenario("quiet", greedy, False)]
    for mode in ("spin_between", "thrash"):
        name = "spin" if mode == "spin_between" else mode
        out.append(Scenario(f"{name} ponder", attacker(mode), True))
        out.append(Scenario(f"{name} frozen", attacker(mode), False))
    for kind in FLOODS:
        out.append(Scenario(f"flood-{kind} contained", flooder(kind), True, cut=False))
        out.append(Scenario(f"flood-{kind} cut", flooder(kind), True))
    return out


@dataclass
class Result:
    thinks: list[float]
    referee_cpu: float
    decisions: int
    wall: float
    charged: str


def play(scenario: Scenario, matches: int, work_ms: float, out: Path) -> Result:
    honest = BotSpec((sys.executable, str(ROOT / "benchmarks" / "working_bot.py"), str(work_ms)),
                     "honest")  # fmt: skip
    options = RefereeOptions(ponder=scenario.ponder, exit_grace=1.0, kill_grace=1.0)
    SeatRelay.cut_floods = scenario.cut
    cpu0, wall0 = time.process_time(), time.perf_counter()
    series = asyncio.run(
        run_series_async(
            (scenario.opponent, honest),
            Rules.profile("standard"),
            [7000 + k for k in range(matches)],
            out,
            replace(options),
        )
    )
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    SeatRelay.cut_floods = True
    thinks: list[float] = []
    decisions = 0
    charged: list[str] = []
    for outcome, order in zip(series.matches, series.seats, strict=True):
        honest_seat = order.index(1)
        for record in load_log(outcome.log_path).of_type("decision"):
            decisions += 1
            if record["seat"] == honest_seat:
                thinks.append(record["think_ms"])
        for fault in outcome.faults:
            who = "opponent" if fault.seat != honest_seat else "HONEST"
            charged.append(f"{who} {fault.kind.value}")
    return Result(thinks, cpu, decisions, wall, ", ".join(sorted(set(charged))) or "-")


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--work-ms", type=float, default=20.0)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    wanted = [w for w in args.only.split(",") if w]
    chosen = [s for s in scenarios(args.work_ms) if not wanted or any(w in s.name for w in wanted)]
    print(f"honest bot: {args.work_ms:g} ms of CPU a decision; {args.matches} matches a scenario")
    header = (
        f"{'scenario':28} {'honest n':>8} {'median ms':>9} {'p99 ms':>8} {'x median':>8} "
        f"{'x p99':>6} {'referee CPU/decision':>20} {'wall s':>7}  charged"
    )
    print(header)
    base: Result | None = None
    for scenario in chosen:
        with tempfile.TemporaryDirectory(prefix="bench-abuse-") as tmp:
            result = play(scenario, args.matches, args.work_ms, Path(tmp))
        if not result.thinks:
            print(f"{scenario.name:28} (no decision of the honest bot)  {result.charged}")
            continue
        median, high = statistics.median(result.thinks), p99(result.thinks)
        if base is None:
            base = result
        bm, bh = statistics.median(base.thinks), p99(base.thinks)
        per = result.referee_cpu / max(1, result.decisions) * 1e6
        print(
            f"{scenario.name:28} {len(result.thinks):8d} {median:9.1f} {high:8.1f} "
            f"{median / bm:8.2f} {high / bh:6.2f} {per:17.0f} µs {result.wall:7.1f}  "
            f"{result.charged}",
            flush=True,
        )


if __name__ == "__main__":
    main()
