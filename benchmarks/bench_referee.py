"""Referee speed: per-decision round trip and CPU against a raw gRPC aio echo, side by side.

Three measurements in one run, on this machine:

1. Referee: a series of ``--matches`` matches (standard profile) between two copies of the
   trivial test bot (tests/bots/testbot.py: draw from the stock, knock when legal, else the
   discard leaving least deadwood), one process per bot for the series. Reported per decision:
   the round trip as the referee measures it (request written -> reply read, the think_ms of the
   replay log), the same minus the bots' own compute time, and the referee process's CPU
   (``time.process_time``, all its threads, grpc's included) divided by the decisions.
   Messages per decision: one DecisionRequest plus the public events to both seats.
2. Echo: a grpc.aio server with one bidirectional method using explicit ``read()``/``write()``,
   and a client process doing write-then-read exchanges; the client sends messages of the
   mean ActionReply size, the server answers with the mean DecisionRequest size seen in (1).
   Reported per exchange: the client's round trip and the server process's CPU.
3. Matches per minute for the trivial bot against itself: one fresh process pair per match
   (``run_match``) and one pair for a whole series (``run_series``).

Then a cProfile of a referee series splits the referee's time between the engine, the
observation, the wire conversion, grpc writes and the log.

Run: ``.venv/bin/python benchmarks/bench_referee.py [--matches N] [--exchanges N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import grpc  # type: ignore[import-untyped]  # noqa: E402

from referee.game import Hand  # noqa: E402
from referee.match_runner import (  # noqa: E402
    BotSpec,
    RefereeOptions,
    run_match_async,
    run_series_async,
)
from referee.replay_log import load_log  # noqa: E402
from referee.rules import Rules  # noqa: E402
from referee.wire import ginrummy_pb2 as pb  # noqa: E402

TESTBOT = ROOT / "tests" / "bots" / "testbot.py"
OPTIONS = RefereeOptions(exit_grace=1.0, kill_grace=1.0)
BOT = BotSpec((sys.executable, str(TESTBOT), "play"), "trivial")


# --- 1. the referee ---------------------------------------------------------------------------


class Sizes:
    """Mean serialized sizes of what the referee sends, by message kind."""

    def __init__(self) -> None:
        self.by_kind: dict[str, list[int]] = {}

    def __call__(self, seat: int, message: pb.RefereeMessage, hand: Hand | None) -> None:
        kind = message.WhichOneof("kind") or "?"
        self.by_kind.setdefault(kind, []).append(message.ByteSize())

    def mean(self, kind: str) -> int:
        return round(statistics.fmean(self.by_kind[kind]))

    def count(self, kind: str) -> int:
        return len(self.by_kind.get(kind, []))


def bot_think_seconds(outputs: list[Path]) -> float:
    total = 0.0
    for path in outputs:
        for line in path.read_text().splitlines():
            if line.startswith("decisions "):
                total += float(line.split()[-1])
    return total


def referee_run(matches: int, out: Path) -> dict[str, Any]:
    # Message sizes come from a separate short run: the hook serializes every message.
    sizes = Sizes()
    asyncio.run(
        run_series_async(
            (BOT, BOT), Rules.profile("standard"), [1000, 1001], out, OPTIONS, on_send=sizes
        )
    )
    seeds = list(range(1000, 1000 + matches))
    cpu0, wall0 = time.process_time(), time.perf_counter()
    series = asyncio.run(
        run_series_async((BOT, BOT), Rules.profile("standard"), seeds, out, OPTIONS)
    )
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    decisions = sum(m.decisions for m in series.matches)
    thinks = [
        r["think_ms"] for m in series.matches for r in load_log(m.log_path).of_type("decision")
    ]
    outputs = [s.output for s in series.matches[0].seats]
    bot_think = bot_think_seconds(outputs)
    assert all(m.forfeit is None for m in series.matches)
    return {
        "decisions": decisions,
        "rt_median_us": statistics.median(thinks) * 1000,
        "rt_mean_us": statistics.fmean(thinks) * 1000,
        "bot_think_us": bot_think / decisions * 1e6,
        "cpu_per_decision_us": cpu / decisions * 1e6,
        "wall_per_decision_us": wall / decisions * 1e6,
        "sizes": sizes,
        "messages_per_decision": (sizes.count("decision_request") + sizes.count("event"))
        / sizes.count("decision_request"),
    }


# --- 2. the echo ------------------------------------------------------------------------------

ECHO_METHOD = "/bench.Echo/Echo"


async def echo_server(
    reply_size: int, extra: int, extra_size: int, ready: asyncio.Future[str], done: asyncio.Event
) -> float:
    """Serve the echo; return the server process CPU seconds spent while the client ran.

    Each answer is ``extra`` messages of ``extra_size`` bytes, then one of ``reply_size``.
    """
    payload = b"x" * reply_size
    small = b"e" * extra_size
    cpu = [0.0]

    async def echo(request_iterator: Any, context: Any) -> None:
        start = time.process_time()
        while True:
            message = await context.read()
            if message is grpc.aio.EOF:
                break
            for _ in range(extra):
                await context.write(small)
            await context.write(payload)
        cpu[0] = time.process_time() - start

    handler = grpc.method_handlers_generic_handler(
        "bench.Echo", {"Echo": grpc.stream_stream_rpc_method_handler(echo)}
    )
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    ready.set_result(f"127.0.0.1:{port}")
    await done.wait()
    await server.stop(0)
    return cpu[0]


async def echo_client(address: str, exchanges: int, size: int, extra: int) -> None:
    payload = b"y" * size
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream(ECHO_METHOD)()
        for _ in range(200):  # warm-up
            await call.write(payload)
            for _ in range(extra + 1):
                await call.read()
        start = time.perf_counter()
        for _ in range(exchanges):
            await call.write(payload)
            for _ in range(extra + 1):
                await call.read()
        elapsed = time.perf_counter() - start
        await call.done_writing()
        await call.read()
    print(f"{elapsed / exchanges * 1e6:.1f}", flush=True)


def echo_run(
    exchanges: int, request_size: int, reply_size: int, extra: int = 0, extra_size: int = 0
) -> dict[str, float]:
    async def main() -> dict[str, float]:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[str] = loop.create_future()
        done = asyncio.Event()
        server = asyncio.create_task(echo_server(request_size, extra, extra_size, ready, done))
        address = await ready
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            __file__,
            "--echo-client",
            address,
            str(exchanges),
            str(reply_size),
            str(extra),
            stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await proc.communicate()
        done.set()
        cpu = await server
        return {"rt_us": float(out.decode().strip()), "cpu_us": cpu / (exchanges + 200) * 1e6}

    return asyncio.run(main())


# --- 3. matches per minute --------------------------------------------------------------------


def matches_per_minute(matches: int, out: Path) -> tuple[float, float]:
    rules = Rules.profile("standard")

    async def fresh() -> float:
        start = time.perf_counter()
        for k in range(matches):
            await run_match_async(BOT, BOT, rules, 2000 + k, out, OPTIONS)
        return time.perf_counter() - start

    async def series() -> float:
        start = time.perf_counter()
        seeds = list(range(3000, 3000 + matches))
        await run_series_async((BOT, BOT), rules, seeds, out, OPTIONS)
        return time.perf_counter() - start

    return matches / asyncio.run(fresh()) * 60, matches / asyncio.run(series()) * 60


# --- where the time goes ----------------------------------------------------------------------

GROUPS = {
    "engine: Match.apply": ("game.py", "apply"),
    "engine: observe()": ("observation.py", "observe"),
    "wire: SeatRequests.request": ("convert.py", "request"),
    "wire: events (EventEncoder.sync)": ("convert.py", "sync"),
    "grpc: BotLink.send (write)": ("transport.py", "send"),
    "grpc: reads (BotLink._read_loop)": ("transport.py", "_read_loop"),
    "log: ReplayLogWriter.write": ("replay_log.py", "write"),
    "wire: action_from_pb": ("convert.py", "action_from_pb"),
}


def profile_run(matches: int, out: Path) -> tuple[float, list[tuple[str, float]]]:
    profiler = cProfile.Profile()
    seeds = list(range(4000, 4000 + matches))
    profiler.enable()
    asyncio.run(run_series_async((BOT, BOT), Rules.profile("standard"), seeds, out, OPTIONS))
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = stats.total_tt  # type: ignore[attr-defined]
    rows = []
    for label, (file, func) in GROUPS.items():
        cum = sum(
            v[3]
            for k, v in stats.stats.items()  # type: ignore[attr-defined]
            if k[0].endswith(file) and k[2] == func
        )
        rows.append((label, cum / total * 100))
    return total, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=30)
    parser.add_argument("--exchanges", type=int, default=5000)
    parser.add_argument("--rate-matches", type=int, default=10)
    parser.add_argument("--echo-client", nargs=4, metavar=("ADDRESS", "N", "SIZE", "EXTRA"))
    args = parser.parse_args()
    if args.echo_client:
        address, n, size, extra = args.echo_client
        asyncio.run(echo_client(address, int(n), int(size), int(extra)))
        return
    print(f"python {sys.version.split()[0]}, grpcio {grpc.__version__}, {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(prefix="bench-referee-") as tmp:
        out = Path(tmp)
        ref = referee_run(args.matches, out / "ref")
        sizes: Sizes = ref["sizes"]
        request_size = sizes.mean("decision_request")
        reply_size = pb.BotMessage(
            action_reply=pb.ActionReply(
                request_id=12345, action=pb.Action(discard=pb.Discard(card="TD"))
            )
        ).ByteSize()
        echo = echo_run(args.exchanges, request_size, reply_size)
        # The same message pattern as a decision: the events to both seats, then the request;
        # a single client reads them all (an upper bound on what one bot reads).
        extra = round(ref["messages_per_decision"] - 1)
        echo_pattern = echo_run(
            args.exchanges, request_size, reply_size, extra, sizes.mean("event")
        )
        fresh, series = matches_per_minute(args.rate_matches, out / "rate")
        total, rows = profile_run(max(3, args.matches // 5), out / "prof")
    decisions = ref["decisions"]
    print()
    print(f"Referee: {args.matches} matches, {decisions} decisions, trivial bot vs itself")
    print(
        f"  messages per decision: {ref['messages_per_decision']:.2f} "
        f"(one request plus public events; mean request {request_size} B, "
        f"event {sizes.mean('event')} B, reply {reply_size} B)"
    )
    print()
    print(f"{'per decision / exchange':<44}{'referee':>10}{'echo':>10}{'ratio':>8}")
    rt_net = ref["rt_median_us"] - ref["bot_think_us"]
    for label, a, b in (
        ("round trip, median (µs)", ref["rt_median_us"], echo["rt_us"]),
        ("round trip minus bot compute (µs)", rt_net, echo["rt_us"]),
        ("server CPU (µs)", ref["cpu_per_decision_us"], echo["cpu_us"]),
    ):
        print(f"{label:<44}{a:>10.0f}{b:>10.0f}{a / b:>8.2f}")
    print(f"Echo with the decision's message pattern ({extra} events + 1 request per exchange):")
    cpu = ref["cpu_per_decision_us"]
    pattern_cpu = echo_pattern["cpu_us"]
    print(f"{'server CPU (µs)':<44}{cpu:>10.0f}{pattern_cpu:>10.0f}{cpu / pattern_cpu:>8.2f}")
    print(f"{'  (bot compute per decision, µs)':<44}{ref['bot_think_us']:>10.0f}")
    print(f"{'  (referee wall time per decision, µs)':<44}{ref['wall_per_decision_us']:>10.0f}")
    print()
    print(f"Matches per minute (standard, trivial bot vs itself, {args.rate_matches} matches):")
    print(f"  fresh processes per match: {fresh:7.1f}")
    print(f"  one process pair per series: {series:5.1f}")
    print()
    print(f"Where the referee's time goes (cProfile, {total:.2f} s profiled, cumulative %):")
    for label, share in rows:
        print(f"  {label:<40}{share:6.1f}%")


if __name__ == "__main__":
    main()
