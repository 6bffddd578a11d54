"""The sample greedy bots of every language, side by side: start-up and per-decision round trip.

1. Start-up, exec to first action: a scripted referee (a grpc server in this process) answers
   the bot's Hello with a Welcome, a MatchStart and one DecisionRequest (a real upcard offer);
   the time runs from just before the bot's process is started to the arrival of its
   ActionReply. So it covers the runtime's start, loading the gRPC library and the generated
   code, connecting, the handshake and one decision. A fresh process every time.
2. Per-decision round trip against the real referee: a series of ``--matches`` matches
   (standard profile, one process per bot for the series) between the language's greedy bot
   and the Python greedy bot, seats alternating; the figure is the referee's own measure of
   each of the bot's decisions (request written -> reply read, the ``think_ms`` of the replay
   log). Because the ports play move for move like the Python bot
   (tests/sample_bots/test_language_bots.py), every language answers exactly the same decisions.

Languages are measured in rounds, each round visiting every language (in an order that rotates
from round to round) so that the machine's noise hits all alike; each figure is the median over
all samples of all rounds. Build the bots first (``scripts/build-bots``).

Run: ``.venv/bin/python benchmarks/bench_language_bots.py [--rounds N] [--starts N]
[--matches N] [--langs python,js,cpp,go,java]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path

import grpc  # type: ignore[import-untyped]

from referee.bots.spec import BotSpec
from referee.convert import EventEncoder, rules_pb
from referee.engine.match import Match
from referee.engine.observation import observe
from referee.engine.rules import Rules
from referee.requests import decision_request_pb
from referee.series import run_series
from referee.settings import RefereeOptions
from referee.wire import ginrummy_pb2 as pb
from referee.wire import ginrummy_pb2_grpc as pb_grpc

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "sample_bots"
GREEDY: dict[str, tuple[str, ...]] = {
    "python": (sys.executable, "-m", "sample_bots.greedy_bot"),
    "js": ("node", str(BOTS / "js" / "greedy.js")),
    "cpp": (str(BOTS / "cpp" / "out" / "greedy_bot"),),
    "go": (str(BOTS / "go" / "out" / "greedy_bot"),),
    "java": (str(BOTS / "java" / "out" / "greedy_bot"),),
}
OPTIONS = RefereeOptions(connect_timeout=60.0)


# --- 1. start-up ----------------------------------------------------------------------------------


def first_request() -> pb.DecisionRequest:
    """The upcard offer of a real deal (seed 1, standard rules)."""
    match = Match(Rules.profile("standard"), 1)
    seat = match.to_act
    assert seat is not None
    obs = observe(match, seat)
    request = decision_request_pb(obs, EventEncoder(seat), 1, 10_000, 10_000, 0).decision_request
    copy = pb.DecisionRequest()
    copy.CopyFrom(request)
    return copy


class OneDecisionReferee(pb_grpc.RefereeServicer):
    """Welcome, MatchStart, one request; notes when the reply arrives; ends the stream."""

    def __init__(self, request: pb.DecisionRequest) -> None:
        self.request = request
        self.replied = threading.Event()
        self.reply_time = 0.0

    def Play(
        self, request_iterator: Iterator[pb.BotMessage], context: object
    ) -> Iterator[pb.RefereeMessage]:
        hello = next(request_iterator).hello
        yield pb.RefereeMessage(
            welcome=pb.Welcome(protocol_version=1, referee_version="bench", bot_name=hello.bot_name)
        )
        yield pb.RefereeMessage(
            match_start=pb.MatchStart(
                match_id="start-up",
                match_number=1,
                series_length=1,
                seat=self.request.observation.seat,
                rules=rules_pb(Rules.profile("standard")),
                time_control=pb.TimeControl(move_time_ms=10_000, bank_ms=0),
            )
        )
        yield pb.RefereeMessage(decision_request=self.request)
        next(request_iterator)
        self.reply_time = time.perf_counter()
        self.replied.set()
        yield pb.RefereeMessage(match_end=pb.MatchEnd(match_id="start-up"))


def start_up_once(command: tuple[str, ...], request: pb.DecisionRequest) -> float:
    """Seconds from exec to the bot's first ActionReply."""
    referee = OneDecisionReferee(request)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    pb_grpc.add_RefereeServicer_to_server(referee, server)  # type: ignore[no-untyped-call]
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    env = {**os.environ, "GINREF_ADDRESS": f"127.0.0.1:{port}", "GINREF_TOKEN": "bench"}
    try:
        start = time.perf_counter()
        proc = subprocess.Popen(
            command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, cwd=ROOT
        )
        if not referee.replied.wait(60):
            proc.kill()
            raise RuntimeError(f"{command[0]}: no reply within 60 s")
        elapsed = referee.reply_time - start
        if proc.wait(30) != 0:
            raise RuntimeError(f"{' '.join(command)}: exit code {proc.returncode}")
    finally:
        server.stop(grace=None)
    return elapsed


# --- 2. round trip -------------------------------------------------------------------------------


def round_trips(command: tuple[str, ...], matches: int, seed: int, out: Path) -> list[float]:
    """The referee's think_ms of every decision of ``command`` in a series against Python."""
    bot = BotSpec(command, "measured")
    reference = BotSpec(GREEDY["python"], "python")
    seeds = list(range(seed, seed + matches))
    series = run_series((bot, reference), Rules.profile("standard"), seeds, out, OPTIONS)
    times = []
    for number, match in enumerate(series.matches):
        if match.faults:
            raise RuntimeError(f"{command[0]}: faults {match.faults}")
        seat = series.seats[number].index(0)  # the seat bot 0 (the measured bot) played
        for line in match.log_path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record["type"] == "decision" and record["seat"] == seat:
                times.append(float(record["think_ms"]))
    return times


# --- report --------------------------------------------------------------------------------------


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--starts", type=int, default=4, help="start-ups per language and round")
    parser.add_argument("--matches", type=int, default=2, help="matches per language and round")
    parser.add_argument("--langs", default=",".join(GREEDY), help="comma-separated languages")
    args = parser.parse_args()
    langs = [lang.strip() for lang in args.langs.split(",") if lang.strip()]
    unknown = [lang for lang in langs if lang not in GREEDY]
    if unknown:
        parser.error(f"unknown language(s) {unknown}; known: {', '.join(GREEDY)}")
    request = first_request()
    starts: dict[str, list[float]] = {lang: [] for lang in langs}
    trips: dict[str, list[float]] = {lang: [] for lang in langs}
    with tempfile.TemporaryDirectory(prefix="bench-langs-") as tmp:
        for round_number in range(args.rounds):
            shift = round_number % len(langs)
            for lang in langs[shift:] + langs[:shift]:
                for _ in range(args.starts):
                    starts[lang].append(start_up_once(GREEDY[lang], request))
                out = Path(tmp) / f"{lang}-{round_number}"
                seed = 1000 + round_number * args.matches
                trips[lang] += round_trips(GREEDY[lang], args.matches, seed, out)
            print(f"round {round_number + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    print(
        f"greedy bots, {args.rounds} rounds: {args.starts} start-ups and a series of "
        f"{args.matches} matches per language and round\n"
    )
    header = (
        f"{'language':<10} {'start-up ms':>12} {'(min-max)':>15} {'round trip ms':>14} "
        f"{'p90':>7} {'decisions':>10}"
    )
    print(header)
    print("-" * len(header))
    for lang in langs:
        s = [1000 * v for v in starts[lang]]
        t = trips[lang]
        print(
            f"{lang:<10} {statistics.median(s):>12.0f} {f'({min(s):.0f}-{max(s):.0f})':>15} "
            f"{statistics.median(t):>14.3f} {quantile(t, 0.9):>7.3f} {len(t):>10}"
        )


if __name__ == "__main__":
    main()
