"""Referee speed: per-decision round trip and CPU against a raw gRPC aio echo, side by side.

Measured in rounds that interleave the two (the referee first in even rounds, the echo first in
odd ones), so that the machine's noise hits both alike; each figure is the median over the
rounds, and each ratio the median of the rounds' ratios.

1. Referee: a series of ``--matches`` matches (standard profile) between two copies of the
   trivial test bot (tests/support/testbot.py: draw from the stock, knock when legal, else the
   discard leaving least deadwood), one process per bot for the series, refereed by a fresh
   Python process (with ``--baseline DIR``, the same again with the referee of the checkout in
   DIR, e.g. the previous commit, in the same rounds). Reported per decision:
   the round trip as the referee measures it (request written -> reply read: the decision's
   think_ms in the replay log; median), the same minus the bots' own compute time, and the
   referee process's CPU (``time.process_time``, all its threads, grpc's included) divided by
   the decisions. Messages per decision: one DecisionRequest plus the Event messages (public
   events that no request carries; proto, "Events").
2. Echo: a grpc.aio server with one bidirectional method using explicit ``read()``/``write()``,
   and a client process doing ``--exchanges`` write-then-read exchanges; the client sends
   messages of the ActionReply's size, the server answers with the mean DecisionRequest size
   seen in a sizing run of the referee. Reported per exchange: the client's round trip
   (median) and the server process's CPU. A second echo, once per run, sends the decision's
   message pattern (the Event messages, then the request) for comparison.
   Each ratio is printed beside its target: the round trip at most 1.2 times the echo's, the
   server CPU at most 1.5 times (``<=`` met, ``>`` not met).
3. Matches per minute for the trivial bot against itself: one fresh process pair per match
   (``run_match``) and one pair for a whole series (``run_series``).

Then a cProfile of a referee series splits the referee's time between the engine, the
observation, the wire conversion, grpc writes and the log.

Run: ``.venv/bin/python benchmarks/bench_referee.py [--rounds N] [--matches N] [--exchanges N]
[--baseline DIR]``; e.g. against the previous commit::

    mkdir /tmp/base && git archive HEAD~1 | tar -x -C /tmp/base
    .venv/bin/python benchmarks/bench_referee.py --baseline /tmp/base
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# The referee measured: this checkout's, or with ``--code DIR`` (how --baseline runs its child
# processes) another one's; it must come first on the path, before anything imports referee.
CODE = Path(sys.argv[sys.argv.index("--code") + 1]) if "--code" in sys.argv else ROOT
sys.path.insert(0, str(CODE))

import grpc  # type: ignore[import-untyped]  # noqa: E402

from referee.bots.spec import BotSpec  # noqa: E402
from referee.engine.hand import Hand  # noqa: E402
from referee.engine.rules import Rules  # noqa: E402
from referee.replay_log import load_log  # noqa: E402
from referee.series import run_match_async, run_series_async  # noqa: E402
from referee.settings import RefereeOptions  # noqa: E402
from referee.wire import ginrummy_pb2 as pb  # noqa: E402

TESTBOT = ROOT / "tests" / "support" / "testbot.py"
OPTIONS = RefereeOptions(exit_grace=1.0, kill_grace=1.0)
# The bot imports the engine through this checkout's editable install, which maps ``referee`` to
# ROOT/referee: a sandbox set up by another checkout's referee (--code) must show it that one.
BOT = BotSpec(
    (sys.executable, str(TESTBOT), "play"),
    "trivial",
    dirs=(str(TESTBOT.parent), str(ROOT / "referee")),
)


# --- 1. the referee ---------------------------------------------------------------------------


class Sizes:
    """Mean serialized sizes of what the referee sends, by message kind; events in requests."""

    def __init__(self) -> None:
        self.by_kind: dict[str, list[int]] = {}
        self.carried = 0  # events that came in a request's new_events

    def __call__(self, seat: int, message: pb.RefereeMessage, hand: Hand | None) -> None:
        kind = message.WhichOneof("kind") or "?"
        self.by_kind.setdefault(kind, []).append(message.ByteSize())
        if kind == "decision_request":
            self.carried += len(message.decision_request.new_events)

    def mean(self, kind: str) -> int:
        return round(statistics.fmean(self.by_kind[kind])) if kind in self.by_kind else 0

    def count(self, kind: str) -> int:
        return len(self.by_kind.get(kind, []))

    def per_request(self, count: int) -> float:
        return count / self.count("decision_request")


def sizing_run(out: Path) -> Sizes:
    """Message sizes and counts of a short series (the hook serializes every message)."""
    sizes = Sizes()
    asyncio.run(
        run_series_async(
            (BOT, BOT), Rules.profile("standard"), [1000, 1001], out, OPTIONS, on_send=sizes
        )
    )
    return sizes


def bot_think_seconds(outputs: list[Path]) -> float:
    total = 0.0
    for path in outputs:
        for line in path.read_text().splitlines():
            if line.startswith("decisions "):
                total += float(line.split()[-1])
    return total


def referee_run(
    matches: int,
    first_seed: int,
    out: Path,
    *,
    options: RefereeOptions = OPTIONS,
    bots: tuple[BotSpec, BotSpec] = (BOT, BOT),
    make_server: Callable[[], Any] | None = None,
) -> dict[str, float]:
    """One series in this process (see referee_child); figures per decision.

    ``make_server``: a ``RefereeServer`` to play on, made and started inside the series' event
    loop (bench_tls.py gives one that speaks TLS); by default the series makes its own.
    """
    seeds = list(range(first_seed, first_seed + matches))

    async def play() -> Any:
        server = None
        if make_server is not None:
            server = make_server()
            await server.start()
        try:
            return await run_series_async(
                bots, Rules.profile("standard"), seeds, out, options, server=server
            )
        finally:
            if server is not None:
                await server.stop(0)

    cpu0, wall0 = time.process_time(), time.perf_counter()
    series = asyncio.run(play())
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    decisions = sum(m.decisions for m in series.matches)
    thinks = [
        r["think_ms"] for m in series.matches for r in load_log(m.log_path).of_type("decision")
    ]
    outputs = [s.output for s in series.matches[0].seats]
    bot_think = bot_think_seconds(outputs)
    assert all(m.forfeit is None for m in series.matches)
    rt = statistics.median(thinks) * 1000
    think = bot_think / decisions * 1e6
    return {
        "decisions": decisions,
        "rt_us": rt,
        "rt_net_us": rt - think,
        "bot_think_us": think,
        "cpu_us": cpu / decisions * 1e6,
        "wall_us": wall / decisions * 1e6,
    }


def referee_child(code: Path, matches: int, first_seed: int, out: Path) -> dict[str, float]:
    """:func:`referee_run` in a fresh process, with the referee of the checkout ``code``."""
    argv = [sys.executable, __file__, "--referee-child", str(matches), str(first_seed), str(out)]
    proc = subprocess.run([*argv, "--code", str(code)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"the referee run with {code} failed:\n{proc.stderr}")
    result: dict[str, float] = json.loads(proc.stdout.splitlines()[-1])
    return result


# --- 2. the echo ------------------------------------------------------------------------------

ECHO_METHOD = "/bench.Echo/Echo"
WARM_UP = 200


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
    """Print the median round trip of ``exchanges`` exchanges, in µs."""
    payload = b"y" * size
    clock = time.perf_counter
    times: list[float] = []
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream(ECHO_METHOD)()
        for k in range(WARM_UP + exchanges):
            start = clock()
            await call.write(payload)
            for _ in range(extra + 1):
                await call.read()
            if k >= WARM_UP:
                times.append(clock() - start)
        await call.done_writing()
        await call.read()
    print(f"{statistics.median(times) * 1e6:.1f}", flush=True)


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
        return {"rt_us": float(out.decode().strip()), "cpu_us": cpu / (exchanges + WARM_UP) * 1e6}

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
    "engine: Match.apply": ("match.py", "apply"),
    "engine: observe()": ("observation.py", "observe"),
    "wire: SeatRequests.encode": ("requests.py", "encode"),
    "wire: events (EventEncoder.sync)": ("convert.py", "sync"),
    "grpc: BotLink.send (write)": ("transport.py", "send"),
    "grpc: reads (BotLink._read_loop)": ("transport.py", "_read_loop"),
    "log: ReplayLogWriter.write_line": ("replay_log.py", "write_line"),
    "wire: action_from_pb": ("convert.py", "action_from_pb"),
}
# What the referee should cost at most, as multiples of the echo's (median ratios).
TARGETS = {"rt_us": 1.2, "cpu_us": 1.5}


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


def median_of(rounds: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in rounds)


def median_ratio(
    a: list[dict[str, float]], b: list[dict[str, float]], key: str, bkey: str
) -> float:
    return statistics.median(x[key] / y[bkey] for x, y in zip(a, b, strict=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--matches", type=int, default=10, help="referee matches per round")
    parser.add_argument("--exchanges", type=int, default=3000, help="echo exchanges per round")
    parser.add_argument("--rate-matches", type=int, default=10)
    parser.add_argument("--baseline", type=Path, help="also measure the referee of this checkout")
    parser.add_argument("--no-extras", action="store_true", help="skip (3) and the profile")
    parser.add_argument("--echo-client", nargs=4, metavar=("ADDRESS", "N", "SIZE", "EXTRA"))
    parser.add_argument("--referee-child", nargs=3, metavar=("MATCHES", "SEED", "OUT"))
    parser.add_argument("--code", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_client:
        address, n, size, extra = args.echo_client
        asyncio.run(echo_client(address, int(n), int(size), int(extra)))
        return
    if args.referee_child:
        matches, seed, out_dir = args.referee_child
        print(json.dumps(referee_run(int(matches), int(seed), Path(out_dir))))
        return
    print(f"python {sys.version.split()[0]}, grpcio {grpc.__version__}, {os.cpu_count()} CPUs")
    codes = {"referee": ROOT}
    if args.baseline is not None:
        codes["baseline"] = args.baseline.resolve()
    with tempfile.TemporaryDirectory(prefix="bench-referee-") as tmp:
        out = Path(tmp)
        sizes = sizing_run(out / "sizes")
        request_size = sizes.mean("decision_request")
        reply_size = pb.BotMessage(
            action_reply=pb.ActionReply(
                request_id=12345, action=pb.Action(discard=pb.Discard(card="TD"))
            )
        ).ByteSize()
        rounds: dict[str, list[dict[str, float]]] = {name: [] for name in [*codes, "echo"]}
        order = list(rounds)
        for k in range(args.rounds):
            # Each round runs everything once, in an order that rotates from round to round;
            # every referee run of a round plays the same fresh seeds.
            seed = 1000 + k * args.matches
            for name in order[k % len(order) :] + order[: k % len(order)]:
                if name == "echo":
                    rounds[name].append(echo_run(args.exchanges, request_size, reply_size))
                else:
                    run_out = out / f"{name}{k}"
                    rounds[name].append(referee_child(codes[name], args.matches, seed, run_out))
            print(
                f"  round {k + 1}: "
                + "; ".join(
                    f"{name} {r[-1]['rt_us']:.0f} µs round trip, {r[-1]['cpu_us']:.0f} µs CPU"
                    for name, r in rounds.items()
                ),
                flush=True,
            )
        # The same message pattern as a decision: Event messages, then the request; a single
        # client reads them all (an upper bound on what one bot reads).
        events_per_decision = sizes.per_request(sizes.count("event"))
        extra = round(events_per_decision)
        echo_pattern = echo_run(
            args.exchanges, request_size, reply_size, extra, sizes.mean("event")
        )
        if not args.no_extras:
            fresh, series = matches_per_minute(args.rate_matches, out / "rate")
            total, rows = profile_run(max(3, args.matches // 2), out / "prof")
    ref, echo = rounds["referee"], rounds["echo"]
    decisions = sum(int(r["decisions"]) for r in ref)
    print()
    print(
        f"Referee: {args.rounds} rounds of {args.matches} matches, {decisions} decisions, "
        f"trivial bot vs itself; echo: {args.rounds} rounds of {args.exchanges} exchanges"
    )
    print(
        f"  messages per decision: {1 + events_per_decision:.2f} (one request plus "
        f"{events_per_decision:.2f} Event messages; {sizes.per_request(sizes.carried):.2f} events "
        f"per request in new_events; mean request {request_size} B, "
        f"event {sizes.mean('event')} B, reply {reply_size} B)"
    )
    print()
    header = (
        f"{'per decision / exchange (median of rounds)':<44}{'referee':>9}{'echo':>7}{'ratio':>7}"
        f"{'target':>8}"
    )
    if "baseline" in rounds:
        header += f"{'baseline':>10}{'ratio':>7}"
    print(header)
    for label, key in (
        ("round trip, median (µs)", "rt_us"),
        ("round trip minus bot compute (µs)", "rt_net_us"),
        ("server CPU (µs)", "cpu_us"),
    ):
        echo_key = "cpu_us" if key == "cpu_us" else "rt_us"
        row = f"{label:<44}{median_of(ref, key):>9.0f}{median_of(echo, echo_key):>7.0f}"
        ratio = median_ratio(ref, echo, key, echo_key)
        row += f"{ratio:>7.2f}"
        target = TARGETS.get(key)
        verdict = "" if target is None else f"{'<=' if ratio <= target else '>'}{target:.1f}"
        row += f"{verdict:>8}"
        if "baseline" in rounds:
            base = rounds["baseline"]
            row += f"{median_of(base, key):>10.0f}{median_ratio(base, echo, key, echo_key):>7.2f}"
        print(row)
    print("(ratio: the median over the rounds of referee / echo, measured in the same round)")
    print(f"Echo with the decision's message pattern ({extra} events + 1 request per exchange):")
    cpu = median_of(ref, "cpu_us")
    pattern_cpu = echo_pattern["cpu_us"]
    print(f"{'server CPU (µs)':<44}{cpu:>9.0f}{pattern_cpu:>7.0f}{cpu / pattern_cpu:>7.2f}")
    think, wall = median_of(ref, "bot_think_us"), median_of(ref, "wall_us")
    print(f"{'  (bot compute per decision, µs)':<44}{think:>9.0f}")
    print(f"{'  (referee wall time per decision, µs)':<44}{wall:>9.0f}")
    if args.no_extras:
        return
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
