"""A small bot for the referee's tests: plays sensibly, or commits one chosen fault.

Usage: ``python tests/bots/testbot.py MODE [ARG]`` with the referee's launch environment
(GINREF_ADDRESS, GINREF_TOKEN). It speaks gRPC with the generated stubs in ``referee.wire``,
using the aio API's explicit read()/write() like the referee.

Play: take nothing face up, draw from the stock, knock (or go gin) as soon as a knock is
legal, else discard the card that leaves the least deadwood; any other decision: the first
legal action. That ends hands quickly, so matches to 100 finish in a few hands.

Modes (ARG: the 1-based decision at which the fault happens, default 3; seconds for slow):
  play         play the whole series
  first        always echo the first legal action
  illegal      discard during the draw (R4.1) at decision ARG
  illegal_once like illegal, once, then play on (for the retry policy)
  malformed    discard the non-canonical card "10D" at decision ARG
  nokind       send an Action with no kind at decision ARG
  double       answer decision ARG twice (out of turn)
  badid        answer decision ARG with an unknown request_id
  slow         sleep ARG seconds before every answer
  crash        exit with code 3 at decision ARG
  disconnect   cancel the stream at decision ARG and stay alive
  halfclose    close its sending side at decision ARG and stay alive
  never        never connect (sleep until killed)
  exit         exit with code 4 at once, without connecting
  wrong_token  first try a wrong token (expect UNAUTHENTICATED), then play
  twice        after the Welcome, open a second stream with the same token (expect
               ALREADY_EXISTS), then play on the first
  spawn        start a child process that sleeps (its pid goes to stdout), then play
  stubborn     play, then ignore SIGTERM and sleep when the stream ends
Env TESTBOT_PIDFILE: write this process's pid to "$TESTBOT_PIDFILE.<seat>".
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time

import grpc  # type: ignore[import-untyped]

from referee.cards import parse_card
from referee.melds import deadwood_by_discard
from referee.wire import ginrummy_pb2 as pb
from referee.wire import ginrummy_pb2_grpc as pb_grpc


def choose(request: pb.DecisionRequest) -> pb.Action:
    """Knock when legal, else the discard leaving the least deadwood, else the first action."""
    legal = list(request.legal_actions)
    kinds = [a.WhichOneof("kind") for a in legal]
    for wanted in ("big_gin", "knock"):
        if wanted in kinds:
            return legal[kinds.index(wanted)]
    if "draw_stock" in kinds:
        return legal[kinds.index("draw_stock")]
    if "pass_offer" in kinds and request.observation.phase == pb.PHASE_UPCARD_OFFER:
        return legal[kinds.index("pass_offer")]
    discards = [a for a in legal if a.WhichOneof("kind") == "discard"]
    if discards:
        hand = [parse_card(c) for c in request.observation.hand]
        dw = deadwood_by_discard(hand)
        return min(discards, key=lambda a: (dw.get(parse_card(a.discard.card), 99), a.discard.card))
    return legal[0]


async def sleep_forever() -> None:
    while True:
        await asyncio.sleep(3600)


async def hello(call: object, token: str, name: str) -> None:
    await call.write(  # type: ignore[attr-defined]
        pb.BotMessage(
            hello=pb.Hello(token=token, bot_name=name, bot_version="1.0", protocol_version=1)
        )
    )


async def expect_refused(channel: object, token: str, code: object) -> None:
    stub = pb_grpc.RefereeStub(channel)
    call = stub.Play()
    await hello(call, token, "intruder")
    try:
        message = await call.read()
    except grpc.aio.AioRpcError as exc:
        assert exc.code() == code, exc.code()
        print(f"refused as expected: {exc.code().name}: {exc.details()}", flush=True)
        return
    raise SystemExit(f"expected {code}, got {message}")


async def main(mode: str, arg: float) -> int:
    if mode == "exit":
        return 4
    if mode == "never":
        await sleep_forever()
    pidfile = os.environ.get("TESTBOT_PIDFILE")
    if pidfile:
        with open(f"{pidfile}.{os.environ.get('GINREF_SEAT', 'x')}", "w") as fh:
            fh.write(str(os.getpid()))
    if mode == "spawn":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"])
        print(f"child pid {child.pid}", flush=True)
    address = os.environ["GINREF_ADDRESS"]
    token = os.environ["GINREF_TOKEN"]
    at = int(arg)
    async with grpc.aio.insecure_channel(address) as channel:
        if mode == "wrong_token":
            await expect_refused(channel, token + "x", grpc.StatusCode.UNAUTHENTICATED)
        stub = pb_grpc.RefereeStub(channel)
        call = stub.Play()
        await hello(call, token, f"testbot-{mode}")
        welcome = await call.read()
        assert welcome.WhichOneof("kind") == "welcome", welcome
        if mode == "twice":
            await expect_refused(channel, token, grpc.StatusCode.ALREADY_EXISTS)
        decisions = 0
        think = 0.0
        faulted_once = False
        while True:
            message = await call.read()
            if message is grpc.aio.EOF:
                break
            kind = message.WhichOneof("kind")
            if kind == "fault":
                print(f"fault: {message.fault}", flush=True)
                continue
            if kind != "decision_request":
                continue
            request = message.decision_request
            decisions += 1
            began = time.perf_counter()
            action = request.legal_actions[0] if mode == "first" else choose(request)
            think += time.perf_counter() - began
            rid = request.request_id
            if decisions == at or (mode == "illegal_once" and decisions > at and not faulted_once):
                if mode == "crash":
                    os._exit(3)
                if mode == "disconnect":
                    call.cancel()
                    await sleep_forever()
                if mode == "halfclose":
                    await call.done_writing()
                    await sleep_forever()
                if mode == "malformed":
                    action = pb.Action(discard=pb.Discard(card="10D"))
                if mode == "nokind":
                    action = pb.Action()
                if mode == "badid":
                    rid += 1000
            if (
                mode in ("illegal", "illegal_once")
                and decisions >= at
                and not faulted_once
                and request.observation.phase == pb.PHASE_DRAW
            ):
                action = pb.Action(discard=pb.Discard(card=request.observation.hand[0]))
                faulted_once = mode == "illegal_once"
            if mode == "slow":
                await asyncio.sleep(arg)
            reply = pb.BotMessage(action_reply=pb.ActionReply(request_id=rid, action=action))
            await call.write(reply)
            if mode == "double" and decisions == at:
                await call.write(reply)
    print(f"decisions {decisions} think_seconds {think:.6f}", flush=True)
    if mode == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        await sleep_forever()
    return 0


if __name__ == "__main__":
    MODE = sys.argv[1] if len(sys.argv) > 1 else "play"
    ARG = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
    sys.exit(asyncio.run(main(MODE, ARG)))
