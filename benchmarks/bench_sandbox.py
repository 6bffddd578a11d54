"""What the sandbox costs: a bot's start-up, and a tournament's matches per minute.

Part 1, start-up: the time from launching a bot process to its first action (the launcher,
bwrap and setpriv, the bot's own start, its connection and Hello, then its answer to one
DecisionRequest), sandboxed and with ``--sandbox none``, for the Python random bot and the C++
random bot (sample_bots/cpp/out/random_bot; build it with scripts/build-bots). The two modes
alternate within each round, so that a machine busy with other work slows both alike; medians.

Part 2, throughput: a tournament of the Python greedy bot against the C++ random bot, the
same schedule (``--matches`` matches, one lane) played sandboxed and unsandboxed, with the
processes kept for the series (``processes = "keep"``) and fresh for every match; the four
runs alternate within each round; median matches per minute.

The sandbox needs root (as ginref does: a uid per bot). Run:
``.venv/bin/python benchmarks/bench_sandbox.py [--rounds N] [--matches N] [--series-rounds N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.bots.confine import Confinement  # noqa: E402
from referee.bots.limits import Limits  # noqa: E402
from referee.bots.process import BotProcess  # noqa: E402
from referee.bots.sandbox import SandboxMode, SandboxSettings  # noqa: E402
from referee.bots.spec import BotSpec  # noqa: E402
from referee.lineup import launch  # noqa: E402
from referee.server import RefereeServer  # noqa: E402
from referee.wire import ginrummy_pb2 as pb  # noqa: E402
from tournaments.file.config import parse_text  # noqa: E402
from tournaments.runner import TournamentRunner  # noqa: E402

MODES: tuple[SandboxMode, ...] = ("none", "bwrap")
CPP_RANDOM = ROOT / "sample_bots" / "cpp" / "out" / "random_bot"
BOTS = {
    "python random": BotSpec((sys.executable, "-m", "sample_bots.random_bot"), cwd=str(ROOT)),
    "C++ random": BotSpec((str(CPP_RANDOM),), cwd=str(ROOT)),
}
# One legal action is all a random bot needs to answer.
REQUEST = pb.RefereeMessage(
    decision_request=pb.DecisionRequest(
        request_id=1, legal_actions=[pb.Action(draw_stock=pb.DrawStock())]
    )
)


async def first_action(spec: BotSpec, confinement: Confinement, work: Path) -> float:
    """Seconds from launching ``spec`` to its reply to one DecisionRequest."""
    server = RefereeServer(tcp=not confinement.settings.enabled)
    await server.start()
    ticket = server.issue_ticket("bench")
    process = BotProcess(spec, work / "bot.log", Limits(), confinement)
    try:
        began = time.perf_counter()
        await launch(process, ticket, server, 0)
        if process.start_error is not None:
            raise SystemExit(process.start_error)
        link = await asyncio.wait_for(ticket.connected, 60)
        replied: asyncio.Future[float] = asyncio.get_running_loop().create_future()

        def on_message(message: pb.BotMessage, arrived: float) -> None:
            if not replied.done():
                replied.set_result(time.perf_counter())

        link.on_message = on_message
        await link.send(REQUEST)
        elapsed = await asyncio.wait_for(replied, 60) - began
        link.close()
        return elapsed
    finally:
        server.revoke(ticket)
        await process.stop(1.0, 1.0)
        await server.close_seat(ticket)
        await server.stop(0)


def part1(rounds: int) -> None:
    print(f"Part 1: launch to first action, median of {rounds} rounds (milliseconds)")
    times: dict[tuple[str, SandboxMode], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        confinements = {m: Confinement.prepare(SandboxSettings(mode=m), [work]) for m in MODES}
        try:
            for _ in range(rounds):
                for name, spec in BOTS.items():
                    for mode in MODES:
                        seconds = asyncio.run(first_action(spec, confinements[mode], work))
                        times.setdefault((name, mode), []).append(seconds)
        finally:
            for confinement in confinements.values():
                confinement.close()
    print(f"{'bot':<16}{'none':>9}{'sandboxed':>11}{'extra':>9}")
    for name in BOTS:
        none, boxed = (statistics.median(times[name, m]) * 1000 for m in MODES)
        print(f"{name:<16}{none:>9.0f}{boxed:>11.0f}{boxed - none:>+9.0f}")
    print()


def tournament_text(matches: int, processes: str, mode: SandboxMode) -> str:
    return f"""
name = "bench-sandbox"
format = "round-robin"
seed = 11
matches = {matches}
processes = "{processes}"
[faults]
exit_grace = 2.0
[sandbox]
mode = "{mode}"

[[bots]]
name = "greedy-python"
command = "{{python}} -m sample_bots.greedy_bot"
cwd = "{ROOT}"

[[bots]]
name = "random-cpp"
command = "{CPP_RANDOM}"
cwd = "{ROOT}"
env = {{ GINREF_BOT_SEED = "3" }}
"""


def matches_per_minute(text: str, work: Path) -> float:
    runner = TournamentRunner(parse_text(text, "<bench>", ROOT), work)
    try:
        result = asyncio.run(runner.run(concurrency=1))
    finally:
        runner.close()
    assert result.status == "complete" and not result.errors, result
    return 60.0 * result.played / result.wall


def part2(matches: int, rounds: int) -> None:
    print(
        f"Part 2: {matches} matches (python greedy v C++ random, one lane), median matches/min "
        f"of {rounds} rounds"
    )
    rates: dict[tuple[str, SandboxMode], list[float]] = {}
    for _ in range(rounds):
        for processes in ("keep", "fresh"):
            for mode in MODES:
                with tempfile.TemporaryDirectory() as tmp:
                    text = tournament_text(matches, processes, mode)
                    rate = matches_per_minute(text, Path(tmp))
                rates.setdefault((processes, mode), []).append(rate)
    print(f"{'processes':<11}{'none':>8}{'sandboxed':>11}{'change':>9}   rounds (none/sandboxed)")
    for processes in ("keep", "fresh"):
        none, boxed = (statistics.median(rates[processes, m]) for m in MODES)
        rounds_text = " ".join(
            f"{a:.0f}/{b:.0f}"
            for a, b in zip(rates[processes, "none"], rates[processes, "bwrap"], strict=True)
        )
        change = 100 * (boxed / none - 1)
        print(f"{processes:<11}{none:>8.1f}{boxed:>11.1f}{change:>+8.1f}%   {rounds_text}")
    print()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="start-up rounds (part 1)")
    parser.add_argument("--matches", type=int, default=30, help="matches per tournament run")
    parser.add_argument("--series-rounds", type=int, default=5, help="tournament rounds (part 2)")
    args = parser.parse_args(argv)
    if not CPP_RANDOM.exists():
        raise SystemExit(f"{CPP_RANDOM} is missing: run scripts/build-bots cpp")
    part1(args.rounds)
    part2(args.matches, args.series_rounds)


if __name__ == "__main__":
    main()
