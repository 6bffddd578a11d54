"""The referee's per-decision cost piece by piece: a skeleton referee, then each piece added back.

The skeleton is the referee's own transport with none of the referee's work: the same
``RefereeServer``, the same two sandboxed processes of the trivial test bot
(tests/support/testbot.py) on their own Unix sockets, the same bytes in the same order (every
message a real series sent each seat, recorded once through the ``on_send`` hook with the seats
fixed): one message after another to its seat, and after each DecisionRequest one reply read
from that seat. Then, cumulatively:

- ``bare``: the skeleton; the reply read by a direct ``await read()`` on the stream, no task
  reading it;
- ``hop``: the reply read by a task of its own, awaited by the skeleton (the task switch that
  reading in another task costs, and nothing else);
- ``reader``: the link's reader task (``BotLink.serve``) and the inbox (``read_message``
  resolving the session's future), as the referee reads;
- ``timer``: each reply awaited under the per-decision deadline (``transport.wait_reply``);
- ``log``: each decision's record written to a replay log (``ReplayLogWriter``, the recorded
  lines);
- ``engine``: each reply read as an action (``action_from_pb``) and applied to the match
  (``Match.apply``), the engine kept in step with the recorded messages;
- ``referee``: the real referee (``run_series_async``, bench_referee.py's figure: observation,
  the request built, events, the clock, the faults checks and all).

A level named ``LEVEL-tcp`` (e.g. ``--levels bare,bare-tcp``) is that level with the bots
unsandboxed, connected over TCP on 127.0.0.1 as the echo is; ``LEVEL-requests`` writes the
requests alone (the bot needs nothing else), one message per decision as the echo writes;
``bare-onebot`` sends every message, both seats', to the bot of seat 0 (one stream, as the
echo), the other bot idle.

Each level runs in a fresh process, and is measured as bench_referee.py measures the referee:
the process's CPU over the whole run (grpc's threads included) divided by the decisions, and
the round trip from just before the request is written to the reply's arrival (median), also
less the bot's own compute. The rounds interleave the levels and the raw grpc.aio echo of
bench_referee.py (their order rotates), every level playing the same seeds; figures are medians
over the rounds, and each level's "adds" is the difference to the level before.

Run: ``.venv/bin/python benchmarks/bench_structure.py [--rounds N] [--matches N]``.

``--deadlines`` measures only what a deadline on an awaited reply costs, by mechanism: none,
the referee's timer (``loop.call_at``, cancelled when the reply comes), ``asyncio.timeout`` and
``asyncio.wait_for``.

``--clients DIR`` measures the Python bots' client instead (``sample_bots/client.py``): one
match per round between two sample random bots (next to no compute of their own) with this
checkout's client, and one with the client of the checkout in DIR, the same referee and seed,
alternating which goes first; the referee's round trip (median think_ms) of each.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import bench_referee as br

from referee.bots.confine import Confinement
from referee.bots.process import BotProcess
from referee.bots.sandbox import SandboxSettings
from referee.bots.spec import BotSpec
from referee.convert import action_from_pb
from referee.engine.match import Match
from referee.engine.rules import Rules
from referee.inbox import Waiter, read_message
from referee.lineup import launch
from referee.link import Player
from referee.replay_log import ReplayLogWriter, load_log
from referee.series import run_series_async
from referee.server import RefereeServer
from referee.transport import BotLink, wait_reply
from referee.wire import ginrummy_pb2 as pb

LEVELS = ("bare", "hop", "reader", "timer", "log", "engine")
ADDS = {
    "bare": "the skeleton: server, streams, bytes, direct read",
    "hop": "+ the reply read in a task of its own",
    "reader": "+ reader task and inbox (future per decision)",
    "timer": "+ deadline timer per decision",
    "log": "+ decision record written to the log",
    "engine": "+ action read and applied (engine)",
    "referee": "+ the rest: the real referee",
}
ADDS.update({f"{name}-tcp": f"{name}, bots unsandboxed over TCP" for name in LEVELS})
ADDS.update({f"{name}-requests": f"{name}, the requests alone" for name in LEVELS})
ADDS["bare-onebot"] = "bare, every message to one bot"
ADDS["bare-requests-onebot"] = "bare, the requests alone, to one bot"


@dataclass
class Recorded:
    """One match as the referee sent it: (seat, bytes, request id or 0) in order, the seed and
    the log's decision lines."""

    seed: int
    messages: list[tuple[int, bytes, int]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)


def record(seeds: list[int], out: Path) -> list[Recorded]:
    """A real series' messages, seats fixed (bot A always in seat 0)."""
    matches: list[Recorded] = []

    def on_send(seat: int, message: pb.RefereeMessage, hand: object) -> None:
        if message.WhichOneof("kind") == "match_start" and seat == 0:
            matches.append(Recorded(seeds[len(matches)]))
        rid = message.decision_request.request_id if message.HasField("decision_request") else 0
        matches[-1].messages.append((seat, message.SerializeToString(), rid))

    series = asyncio.run(
        run_series_async(
            (br.BOT, br.BOT),
            Rules.profile("standard"),
            seeds,
            out,
            br.OPTIONS,
            swap_seats=False,
            on_send=on_send,
        )
    )
    for played, outcome in zip(matches, series.matches, strict=True):
        played.lines = [
            line
            for line in outcome.log_path.read_text().splitlines(keepends=True)
            if line.startswith('{"type":"decision"')
        ]
    return matches


class _Inbox:
    """The session's side of the reader: the awaited answer, or a fault (as ``Session``)."""

    def __init__(self) -> None:
        self.waiter: Waiter | None = None

    def on_message(self, conn: Player, message: pb.BotMessage, arrived: float) -> None:
        fault = read_message(conn.index, message, arrived, self.waiter, None, conn)
        if fault is not None:
            raise SystemExit(f"the skeleton saw a fault: {fault}")

    def on_lost(self, conn: Player, reason: str, half_closed: bool) -> None:
        return None

    def on_exit(self, conn: Player, code: int) -> None:
        return None

    def seat_of(self, conn: Player) -> int:
        return conn.index

    def raise_fault(self, fault: object) -> None:
        raise SystemExit(f"the skeleton saw a fault: {fault}")


async def _bare_serve(self: BotLink) -> None:
    await self._closed  # no reader task: the skeleton reads the stream itself


async def skeleton(level: str, matches: list[Recorded], out: Path) -> dict[str, float]:
    # ``LEVEL-tcp``: the bots unsandboxed, over TCP on 127.0.0.1; ``LEVEL-requests``: the
    # requests alone written, one message per decision as in the echo.
    name, *variants = level.split("-")
    sandbox = SandboxSettings(mode="none") if "tcp" in variants else br.OPTIONS.sandbox
    requests_only = "requests" in variants
    one_bot = "onebot" in variants  # every message to seat 0's bot (the bare level only)
    depth = LEVELS.index(name)
    assert not one_bot or depth == 0, "onebot is a variant of the bare level"
    if depth <= 1:
        BotLink.serve = _bare_serve  # type: ignore[method-assign]
    loop = asyncio.get_running_loop()
    confinement = Confinement.prepare(sandbox, protected=[out])
    server = RefereeServer(tcp=not confinement.settings.enabled)
    await server.start()
    tickets, procs = [], []
    for seat in range(2):
        ticket = server.issue_ticket(f"seat {seat}")
        proc = BotProcess(br.BOT, out / f"seat{seat}.log", br.OPTIONS.limits, confinement)
        await launch(proc, ticket, server, seat)
        tickets.append(ticket)
        procs.append(proc)
    links = [await t.connected for t in tickets]
    inbox = _Inbox()
    players = [Player(seat, "trivial", (), proc) for seat, proc in enumerate(procs)]
    for player, link in zip(players, links, strict=True):
        player.attach(link)
        player.session = inbox
    rules = Rules.profile("standard")
    round_trips: list[float] = []
    cpu0, main0 = time.process_time(), time.thread_time()
    for k, played in enumerate(matches):
        m = Match(rules, played.seed) if depth >= 5 else None
        log = ReplayLogWriter(out / f"m{k}.jsonl") if depth >= 4 else None
        lines = iter(played.lines)
        for seat, data, rid in played.messages:
            link = links[0 if one_bot else seat]
            if not rid:
                if not requests_only:
                    await link.send(data)
                continue
            start = loop.time()
            if depth <= 1:
                await link.send(data)
                read = link._context.read()
                message = await (read if depth == 0 else loop.create_task(read))
                arrived = loop.time()
                reply = message.action_reply
            else:
                future: asyncio.Future[tuple[pb.ActionReply, float]] = loop.create_future()
                inbox.waiter = Waiter(seat, rid, future)
                await link.send(data)
                if depth == 2:
                    reply, arrived = await future
                else:
                    reply, arrived = await wait_reply(future, start + 70.0, loop)
                inbox.waiter = None
            round_trips.append(arrived - start)
            if m is not None:
                hand = m.hand.cards_of(seat) if m.hand is not None else ()
                m.apply(action_from_pb(reply.action, hand))
            if log is not None:
                log.write_line(next(lines))
        if log is not None:
            log.close()
        if m is not None:
            assert m.result is not None, "the engine fell out of step with the recording"
    cpu, main = time.process_time() - cpu0, time.thread_time() - main0
    for link in links:
        link.close()
    await asyncio.gather(*(p.stop(1.0, 1.0) for p in procs))
    for ticket in tickets:
        await server.close_seat(ticket)
    await server.stop(0)
    confinement.close()
    return {
        "decisions": len(round_trips),
        "rt": statistics.median(round_trips),
        "play_cpu": cpu,
        "main_cpu": main,
    }


def skeleton_child(level: str, recording: Path, out: Path) -> dict[str, float]:
    """One level in a fresh process: per-decision figures as bench_referee.referee_run's."""
    if level == "referee":
        seeds = [m.seed for m in pickle.loads(recording.read_bytes())]
        return br.referee_child(br.ROOT, len(seeds), seeds[0], out)
    argv = [sys.executable, __file__, "--child", level, str(recording), str(out)]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"the {level} skeleton failed:\n{proc.stderr}")
    result: dict[str, float] = json.loads(proc.stdout.splitlines()[-1])
    return result


def child(level: str, recording: Path, out: Path) -> None:
    matches: list[Recorded] = pickle.loads(recording.read_bytes())
    out.mkdir(parents=True, exist_ok=True)
    cpu0, wall0 = time.process_time(), time.perf_counter()
    got = asyncio.run(skeleton(level, matches, out))
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    decisions = got["decisions"]
    think = br.bot_think_seconds([out / "seat0.log", out / "seat1.log"]) / decisions * 1e6
    rt = got["rt"] * 1e6
    print(
        json.dumps(
            {
                "decisions": decisions,
                "rt_us": rt,
                "rt_net_us": rt - think,
                "bot_think_us": think,
                "cpu_us": cpu / decisions * 1e6,
                "wall_us": wall / decisions * 1e6,
                "play_cpu_us": got["play_cpu"] / decisions * 1e6,
                "main_cpu_us": got["main_cpu"] / decisions * 1e6,
            }
        )
    )


def client_run(code: Path, seed: int, out: Path) -> dict[str, float]:
    """One match between two sample random bots whose client is the checkout ``code``'s: the
    referee's round trip (median think_ms, in µs) and its CPU per decision."""
    # The editable install maps sample_bots to this checkout whatever the path says: the
    # package is loaded from ``code`` by hand before the bot's module is run.
    launcher = (
        "import importlib.util, runpy, sys\n"
        f"where = {str(code / 'sample_bots')!r}\n"
        "spec = importlib.util.spec_from_file_location('sample_bots', where + '/__init__.py', "
        "submodule_search_locations=[where])\n"
        "sys.modules['sample_bots'] = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(sys.modules['sample_bots'])\n"
        "runpy.run_module('sample_bots.random_bot', run_name='__main__')\n"
    )
    bot = BotSpec(
        (sys.executable, "-c", launcher),
        "random",
        dirs=(str(code / "sample_bots"), str(br.ROOT / "referee")),
        env={"GINREF_BOT_SEED": str(seed)},
    )
    cpu0 = time.process_time()
    series = asyncio.run(
        run_series_async((bot, bot), Rules.profile("standard"), [seed], out, br.OPTIONS)
    )
    cpu = time.process_time() - cpu0
    match = series.matches[0]
    assert match.forfeit is None
    thinks = [r["think_ms"] for r in load_log(match.log_path).of_type("decision")]
    return {"rt_us": statistics.median(thinks) * 1000, "cpu_us": cpu / match.decisions * 1e6}


def clients(baseline: Path, rounds: int) -> None:
    """The Python client's share of the round trip: this checkout's against ``baseline``'s."""
    codes = {"client": br.ROOT, "baseline": baseline.resolve()}
    got: dict[str, list[dict[str, float]]] = {name: [] for name in codes}
    with tempfile.TemporaryDirectory(prefix="bench-clients-") as tmp:
        for k in range(rounds):
            order = list(codes) if k % 2 == 0 else list(reversed(codes))
            for name in order:
                got[name].append(client_run(codes[name], 1000 + k, Path(tmp) / f"{name}{k}"))
            print(
                f"  round {k + 1}: "
                + "; ".join(f"{n} {r[-1]['rt_us']:.0f} µs" for n, r in got.items()),
                flush=True,
            )
    print("sample random bot vs itself, round trip as the referee measures it (median):")
    for name in codes:
        print(
            f"  {name:<10}{br.median_of(got[name], 'rt_us'):>6.0f} µs round trip, "
            f"{br.median_of(got[name], 'cpu_us'):>4.0f} µs referee CPU per decision"
        )
    ratio = br.median_ratio(got["client"], got["baseline"], "rt_us", "rt_us")
    print(f"  ratio of round trips (median of per-round ratios): {ratio:.2f}")


def _expire(future: asyncio.Future[int]) -> None:
    if not future.done():
        future.set_exception(TimeoutError())


async def _await_replies(kind: str, count: int) -> float:
    """CPU µs per reply awaited under a deadline of the kind ``kind`` (the reply comes from
    another callback, as the reader delivers it)."""
    loop = asyncio.get_running_loop()
    start = time.process_time()
    for _ in range(count):
        future: asyncio.Future[int] = loop.create_future()
        loop.call_soon(future.set_result, 1)
        if kind == "none":
            await future
        elif kind == "call_at":  # transport.wait_reply's
            handle = loop.call_at(loop.time() + 70.0, _expire, future)
            try:
                await future
            finally:
                handle.cancel()
        elif kind == "timeout":
            async with asyncio.timeout(70.0):
                await future
        else:
            await asyncio.wait_for(future, 70.0)
    return (time.process_time() - start) / count * 1e6


def deadlines(rounds: int, count: int = 50_000) -> None:
    """The per-decision deadline's own cost, by mechanism (median of ``rounds`` runs)."""
    kinds = ("none", "call_at", "timeout", "wait_for")
    got: dict[str, list[float]] = {kind: [] for kind in kinds}
    for _ in range(rounds):
        for kind in kinds:
            got[kind].append(asyncio.run(_await_replies(kind, count)))
    print("CPU per reply awaited, by deadline mechanism (µs):")
    for kind in kinds:
        print(f"  {kind:<10}{statistics.median(got[kind]):6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--matches", type=int, default=10, help="matches per level and round")
    parser.add_argument("--exchanges", type=int, default=3000, help="echo exchanges per round")
    parser.add_argument("--levels", default=",".join([*LEVELS, "referee"]))
    parser.add_argument(
        "--clients", type=Path, metavar="DIR", help="the Python client against DIR's instead"
    )
    parser.add_argument("--deadlines", action="store_true", help="the deadline mechanisms only")
    parser.add_argument("--child", nargs=3, metavar=("LEVEL", "RECORDING", "OUT"))
    args = parser.parse_args()
    if args.child:
        level, recording, out_dir = args.child
        child(level, Path(recording), Path(out_dir))
        return
    if args.deadlines:
        deadlines(args.rounds)
        return
    if args.clients:
        clients(args.clients, args.rounds)
        return
    levels = args.levels.split(",")
    with tempfile.TemporaryDirectory(prefix="bench-structure-") as tmp:
        out = Path(tmp)
        matches = record(list(range(1000, 1000 + args.matches)), out / "recording")
        recording = out / "recording.pickle"
        recording.write_bytes(pickle.dumps(matches))
        requests = [len(d) for m in matches for _s, d, rid in m.messages if rid]
        reply_size = pb.BotMessage(
            action_reply=pb.ActionReply(
                request_id=12345, action=pb.Action(discard=pb.Discard(card="TD"))
            )
        ).ByteSize()
        request_size = round(statistics.fmean(requests))
        rounds: dict[str, list[dict[str, float]]] = {name: [] for name in [*levels, "echo"]}
        order = list(rounds)
        for k in range(args.rounds):
            for name in order[k % len(order) :] + order[: k % len(order)]:
                if name == "echo":
                    rounds[name].append(br.echo_run(args.exchanges, request_size, reply_size))
                else:
                    rounds[name].append(skeleton_child(name, recording, out / f"{name}{k}"))
            print(
                f"  round {k + 1}: "
                + "; ".join(f"{n} {r[-1]['cpu_us']:.0f}" for n, r in rounds.items())
                + " (µs CPU per decision)",
                flush=True,
            )
    echo = rounds["echo"]
    decisions = int(rounds[levels[0]][0]["decisions"])
    print()
    print(
        f"{args.rounds} rounds of {args.matches} matches ({decisions} decisions) per level, "
        f"and of {args.exchanges} echo exchanges; medians over the rounds"
    )
    width = max(8, *(len(name) + 1 for name in levels))
    header = (
        f"{'level':<{width}}{'what it adds':<50}{'CPU µs':>8}{'adds':>6}{'× echo':>8}"
        f"{'RT µs':>7}{'RT-bot':>8}{'adds':>6}{'× echo':>8}"
    )
    print(header)
    echo_cpu = br.median_of(echo, "cpu_us")
    echo_rt = br.median_of(echo, "rt_us")
    before: tuple[float, float] | None = None
    for name in levels:
        r = rounds[name]
        cpu, net = br.median_of(r, "cpu_us"), br.median_of(r, "rt_net_us")
        cpu_ratio = br.median_ratio(r, echo, "cpu_us", "cpu_us")
        rt_ratio = br.median_ratio(r, echo, "rt_net_us", "rt_us")
        adds_cpu = f"{cpu - before[0]:+.0f}" if before else ""
        adds_rt = f"{net - before[1]:+.0f}" if before else ""
        print(
            f"{name:<{width}}{ADDS[name]:<50}{cpu:>8.0f}{adds_cpu:>6}{cpu_ratio:>8.2f}"
            f"{br.median_of(r, 'rt_us'):>7.0f}{net:>8.0f}{adds_rt:>6}{rt_ratio:>8.2f}"
        )
        before = (cpu, net)
    print(
        f"{'echo':<{width}}{'raw grpc.aio echo, TCP (bench_referee.py)':<50}{echo_cpu:>8.0f}"
        f"{'':>6}{1:>8.2f}{echo_rt:>7.0f}{echo_rt:>8.0f}{'':>6}{1:>8.2f}"
    )
    print("(RT-bot: the round trip less the bot's own compute; × echo: median of per-round ratios)")
    print()
    print("CPU while the matches are played (no launch, no set-up), all threads and the main one:")
    for name in levels:
        r = rounds[name]
        if "play_cpu_us" in r[0]:
            play, main = br.median_of(r, "play_cpu_us"), br.median_of(r, "main_cpu_us")
            print(f"  {name:<{width}}{play:>6.0f} µs, of which the main thread {main:>4.0f} µs")


if __name__ == "__main__":
    main()
