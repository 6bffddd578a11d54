"""A small bot for the referee's tests: plays sensibly, or commits one chosen fault.

Usage: ``python tests/support/testbot.py MODE [ARG]`` with the referee's launch environment
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
  wait         at decision ARG, answer nothing and read on until the match ends (its
               opponent's fault, or its own deadline, ends it)
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
  hang_once    play, but at the start of this process's match ARG, if the file named by
               TESTBOT_MARKER does not exist yet, create it (holding this pid) and hang there
               without answering; so one match, the first to get there, is known to be in flight
Hostile modes (tests/bots/test_hostile_bots.py), at decision ARG unless said otherwise:
  early        answer request 0 (never sent) as soon as the match starts (out of turn)
  empty        send a BotMessage with no kind
  garbage      send bytes that are not a BotMessage
  oversized    send an ActionReply of about ARG2 bytes (default 200 KB)
  flood        send 20000 replies at once, as soon as the match starts
  reconnect    drop the stream, then connect again with the same token (refused), and stay
  notinhand    discard a card it does not hold (R4.2)
  retake       take the top discard when it may, then discard that very card (R4.3)
  wall         never knock; at the wall (2 stock cards, a fiftieth-card wall rule) draw from
               the stock (R7.3)
  overlimit    knock when no knock is legal (R5.3)
  falseknock   when a knock is legal, knock with a declared meld that is not one (R5.3)
  layoff       as the defender (defender_play = declared) against a knock, lay off a card that
               fits no meld of the knocker (R6.2)
  layoffgin    as the defender against gin, lay off a card (R6.3)
  spin         spin the CPU without answering
  hog          allocate memory without bound (16 MiB at a time) without answering
  fork         start 12 sleeping children, without answering
  chatter      write to stdout without end, without answering
  escape       start a grandchild in a session of its own that ignores SIGTERM (its pid goes
               to stdout), then play
Env TESTBOT_PIDFILE: write this process's pid to "$TESTBOT_PIDFILE.<seat>". Env GINREF_CA_CERT
(and GINREF_CLIENT_CERT, GINREF_CLIENT_KEY): connect over TLS, as the sample clients do.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable

import grpc  # type: ignore[import-untyped]

from referee.engine.cards import card_str, parse_card
from referee.engine.melds import deadwood_by_discard
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
    return best_discard(request) or legal[0]


def best_discard(request: pb.DecisionRequest) -> pb.Action | None:
    """The legal discard that leaves the least deadwood, if any."""
    discards = [a for a in request.legal_actions if a.WhichOneof("kind") == "discard"]
    if not discards:
        return None
    hand = [parse_card(c) for c in request.observation.hand]
    dw = deadwood_by_discard(hand)
    return min(discards, key=lambda a: (dw.get(parse_card(a.discard.card), 99), a.discard.card))


def raw(message: object) -> bytes:
    """The stream's serializer: a message, or bytes sent as they are (for the garbage modes)."""
    return message if isinstance(message, bytes) else message.SerializeToString()  # type: ignore[attr-defined]


def channel_to(address: str) -> grpc.aio.Channel:
    """Plain text, or TLS trusting the CA in GINREF_CA_CERT (with GINREF_CLIENT_CERT and
    GINREF_CLIENT_KEY: mutual TLS), as the sample clients do."""
    ca = os.environ.get("GINREF_CA_CERT")
    if not ca:
        return grpc.aio.insecure_channel(address)
    cert, key = os.environ.get("GINREF_CLIENT_CERT"), os.environ.get("GINREF_CLIENT_KEY")

    def read(path: str | None) -> bytes | None:
        if not path:
            return None
        with open(path, "rb") as handle:
            return handle.read()

    credentials = grpc.ssl_channel_credentials(read(ca), read(key), read(cert))
    return grpc.aio.secure_channel(address, credentials)


def open_stream(channel: object) -> object:
    return channel.stream_stream(  # type: ignore[attr-defined]
        "/ginrummy.v1.Referee/Play",
        request_serializer=raw,
        response_deserializer=pb.RefereeMessage.FromString,
    )()


def fits(card: int, meld: list[int]) -> bool:
    """Whether ``card`` extends ``meld`` (a set of one rank, or a run of one suit)."""
    ranks = {c % 13 for c in meld}
    if len(ranks) == 1:
        return card % 13 in ranks and len(meld) < 4
    suit = meld[0] // 13
    return card // 13 == suit and card % 13 in (min(ranks) - 1, max(ranks) + 1)


def knock_event(observation: pb.Observation) -> pb.KnockEvent | None:
    for event in observation.events:
        if event.WhichOneof("kind") == "knock":
            return event.knock
    return None


def false_meld(hand: list[str]) -> list[str] | None:
    """Three cards of ``hand`` of three ranks and not all of one suit: never a meld."""
    cards = [parse_card(c) for c in hand]
    for i, a in enumerate(cards):
        for j, b in enumerate(cards[i + 1 :], i + 1):
            for c in cards[j + 1 :]:
                if len({a % 13, b % 13, c % 13}) == 3 and len({a // 13, b // 13, c // 13}) > 1:
                    return [card_str(a), card_str(b), card_str(c)]
    return None


def daemon(run: Callable[[], object]) -> int:
    """Fork a child that forks a grandchild in a new session, where ``run()`` runs (and then
    the grandchild exits); the child exits at once. Returns the grandchild's pid."""
    read, write = os.pipe()
    if os.fork() == 0:
        os.setsid()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            os.close(write)
            run()
            os._exit(0)
        os.write(write, str(pid).encode())
        os._exit(0)
    os.close(write)
    pid = int(os.read(read, 32) or 0)
    os.close(read)
    return pid


def ignore_sigterm_and_sleep() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(1000)


def grandchild_escape() -> None:
    """A daemon that ignores SIGTERM and sleeps."""
    print(f"escaped pid {daemon(ignore_sigterm_and_sleep)}", flush=True)


async def hostile(mode: str, call: object, request: pb.DecisionRequest, arg2: float) -> bool:
    """The hostile modes that act at the chosen decision; True if it sent the message itself."""
    if mode == "empty":
        await call.write(pb.BotMessage())  # type: ignore[attr-defined]
    elif mode == "garbage":
        await call.write(b"\xff\xff\xff\x7f not a protobuf message")  # type: ignore[attr-defined]
    elif mode == "oversized":
        huge = pb.Action(discard=pb.Discard(card="X" * int(arg2)))
        reply = pb.ActionReply(request_id=request.request_id, action=huge)
        await call.write(pb.BotMessage(action_reply=reply))  # type: ignore[attr-defined]
    elif mode == "spin":
        until = time.monotonic() + 60
        while time.monotonic() < until:
            pass
    elif mode == "hog":
        hoard = []
        for _ in range(256):  # 4 GiB at most, should the referee not stop it
            hoard.append(bytearray(b"\1") * (16 << 20))
        await sleep_forever()
    elif mode == "chatter":
        line = b"chatter " * 8191 + b"\n"
        for _ in range(16384):  # 1 GiB at most
            sys.stdout.buffer.write(line)
        await sleep_forever()
    elif mode == "fork":
        for _ in range(12):
            subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"])
        await sleep_forever()
    else:
        return False
    return True


def rule_breaking(
    mode: str, request: pb.DecisionRequest, state: dict[str, str]
) -> pb.Action | None:
    """The action of an illegal-action mode for this request, or None to play normally."""
    obs = request.observation
    legal = list(request.legal_actions)
    kinds = [a.WhichOneof("kind") for a in legal]
    phase = obs.phase
    if mode == "notinhand" and phase == pb.PHASE_DISCARD:
        held = set(obs.hand)
        card = next(card_str(c) for c in range(52) if card_str(c) not in held)
        return pb.Action(discard=pb.Discard(card=card))
    if mode == "retake":
        if phase == pb.PHASE_DRAW and "draw_discard" in kinds and obs.discard_pile:
            state["taken"] = obs.discard_pile[-1]
            return legal[kinds.index("draw_discard")]
        if phase == pb.PHASE_DISCARD and state.get("taken") in obs.hand:
            return pb.Action(discard=pb.Discard(card=state["taken"]))
        state.pop("taken", None)
    if mode == "wall":
        if phase == pb.PHASE_WALL:
            return pb.Action(draw_stock=pb.DrawStock())
        if phase == pb.PHASE_DISCARD:
            return best_discard(request)
    if mode == "overlimit" and phase == pb.PHASE_DISCARD and "knock" not in kinds:
        return pb.Action(knock=pb.Knock(discard=obs.hand[0]))
    if mode == "falseknock" and "knock" in kinds:
        knock = legal[kinds.index("knock")].knock
        meld = false_meld([c for c in obs.hand if c != knock.discard])
        if meld is not None:
            arrangement = pb.Arrangement(melds=[pb.Meld(cards=meld)])
            return pb.Action(knock=pb.Knock(discard=knock.discard, arrangement=arrangement))
    if mode in ("layoff", "layoffgin") and phase == pb.PHASE_DEFENDER:
        event = knock_event(obs)
        if event is None:
            return None
        gin = event.kind != pb.KNOCK_KIND_KNOCK
        melds = [[parse_card(c) for c in m.cards] for m in event.arrangement.melds]
        if mode == "layoffgin" and gin:
            return pb.Action(defender_play=pb.DefenderPlay(layoffs=[obs.hand[0]]))
        if mode == "layoff" and not gin:
            for card in obs.hand:
                if not any(fits(parse_card(card), m) for m in melds):
                    return pb.Action(defender_play=pb.DefenderPlay(layoffs=[card]))
    return None


RULE_MODES = ("notinhand", "retake", "wall", "overlimit", "falseknock", "layoff", "layoffgin")
HOSTILE_AT = ("empty", "garbage", "oversized", "spin", "hog", "chatter", "fork")


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


def claim_marker() -> bool:
    """Create TESTBOT_MARKER holding this pid; False if it exists already."""
    try:
        fd = os.open(os.environ["TESTBOT_MARKER"], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w") as fh:
        fh.write(str(os.getpid()))
    return True


def hold_if_first(directory: str) -> None:
    """TESTBOT_HOLD=DIR: write the referee's pid (this process's parent) to DIR/parent.<pid>;
    the first bot to start also writes it to DIR/held and waits, before connecting, until
    DIR/release exists (so that a test knows a match is in flight and can act on it)."""
    parent = str(os.getppid())
    with open(os.path.join(directory, f"parent.{os.getpid()}"), "w") as fh:
        fh.write(parent)
    try:
        os.close(os.open(os.path.join(directory, "claim"), os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return
    with open(os.path.join(directory, "held.tmp"), "w") as fh:
        fh.write(parent)
    os.rename(os.path.join(directory, "held.tmp"), os.path.join(directory, "held"))
    while not os.path.exists(os.path.join(directory, "release")):
        time.sleep(0.01)  # a bot's own wait for the test's file


async def main(mode: str, arg: float, arg2: float = 200_000) -> int:
    if mode == "exit":
        return 4
    if mode == "never":
        await sleep_forever()
    pidfile = os.environ.get("TESTBOT_PIDFILE")
    if pidfile:
        with open(f"{pidfile}.{os.environ.get('GINREF_SEAT', 'x')}", "w") as fh:
            fh.write(str(os.getpid()))
    hold = os.environ.get("TESTBOT_HOLD")
    if hold:
        hold_if_first(hold)
    if mode == "spawn":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"])
        print(f"child pid {child.pid}", flush=True)
    if mode == "escape":
        grandchild_escape()
    address = os.environ["GINREF_ADDRESS"]
    token = os.environ["GINREF_TOKEN"]
    at = int(arg)
    async with channel_to(address) as channel:
        if mode == "wrong_token":
            await expect_refused(channel, token + "x", grpc.StatusCode.UNAUTHENTICATED)
        call = open_stream(channel)
        await hello(call, token, f"testbot-{mode}")
        welcome = await call.read()
        assert welcome.WhichOneof("kind") == "welcome", welcome
        if mode == "twice":
            await expect_refused(channel, token, grpc.StatusCode.ALREADY_EXISTS)
        decisions = 0
        matches = 0
        think = 0.0
        faulted_once = False
        state: dict[str, str] = {}
        while True:
            message = await call.read()
            if message is grpc.aio.EOF:
                break
            kind = message.WhichOneof("kind")
            if kind == "match_start" and mode == "hang_once":
                matches += 1
                if matches == at and claim_marker():
                    await sleep_forever()
            if kind == "match_start" and mode == "leave":
                matches += 1
                if matches == at:
                    os._exit(3)  # gone for good, its stream broken at its at-th match's start
            if kind == "fault":
                print(f"fault: {message.fault}", flush=True)
                continue
            if kind == "match_start" and mode in ("early", "flood"):
                late = pb.ActionReply(request_id=0, action=pb.Action(draw_stock=pb.DrawStock()))
                for _ in range(1 if mode == "early" else 20000):
                    await call.write(pb.BotMessage(action_reply=late))
            if kind != "decision_request":
                continue
            request = message.decision_request
            decisions += 1
            began = time.perf_counter()
            action = request.legal_actions[0] if mode == "first" else choose(request)
            think += time.perf_counter() - began
            rid = request.request_id
            if mode in RULE_MODES and decisions >= at:
                action = rule_breaking(mode, request, state) or action
            if mode in HOSTILE_AT and decisions == at and await hostile(mode, call, request, arg2):
                continue
            if mode == "reconnect" and decisions == at:
                call.cancel()
                again = open_stream(channel)
                await hello(again, token, "testbot-again")
                try:
                    answer = await again.read()  # type: ignore[attr-defined]
                    print(f"reconnected?! {answer}", flush=True)
                except grpc.aio.AioRpcError as exc:
                    print(f"refused as expected: {exc.code().name}: {exc.details()}", flush=True)
                await sleep_forever()
            if mode == "wait" and decisions == at:
                continue  # no answer: read on until the referee ends the match
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
            try:
                await call.write(reply)
            except grpc.aio.AioRpcError:
                # The referee ended the stream while we answered: the other seat's fault ended
                # the match between its request and our reply. That is the end, not a crash.
                break
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
    ARG2 = float(sys.argv[3]) if len(sys.argv) > 3 else 200_000
    sys.exit(asyncio.run(main(MODE, ARG, ARG2)))
