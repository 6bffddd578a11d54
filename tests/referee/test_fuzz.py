"""Fuzzing the referee's message handling (hypothesis) against a live server.

A real series runs on a background event loop: seat A is the test bot, seat B's process only
sleeps, and this test plays seat B itself over a raw gRPC stream (bytes in, RefereeMessage out)
with its token. Every example sends one message: random bytes, a random ``BotMessage`` (any
kind, any field, card strings valid or not, request ids current or not), or a valid answer to
the pending request mutated (a byte flipped, cut short, bytes inserted). The referee must answer
each mistake with a well-formed Fault (a fault kind, a rule, a message) and go on with the next
match of the series; it must never end the stream with an error status, and its health check
must say SERVING after every example. A second test sends random first messages on fresh
streams: each must be refused with a clean gRPC status and a message. A third draws a fixed
sequence of examples the way the first does, and checks that they reach every kind of mistake.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc  # type: ignore[import-untyped]
import pytest
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2, health_pb2_grpc  # type: ignore[import-untyped]
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.bots.spec import BotSpec
from referee.convert import CARD_STRINGS
from referee.engine.rules import Rules
from referee.results import SeriesOutcome
from referee.series import run_series_async
from referee.server import SERVICE_NAME, RefereeServer, SeatTicket
from referee.settings import RefereeOptions
from referee.wire import ginrummy_pb2 as pb
from tests.support.referee_helpers import UNSANDBOXED, bot

# A live server fuzzed over real connections, one for the module (scripts/test's pytest-xdist
# runs a file's tests in one worker, so it is started once); each test needs only the fixture.
pytestmark = pytest.mark.slow

T = TypeVar("T")
PLAY = f"/{SERVICE_NAME}/Play"
# Far from what the work needs: a busy machine must not turn a slow answer into a failure.
READ_TIMEOUT = 120.0
RULE = re.compile(r"^R\d+\.\d+[a-z]?$")
# The series' matches: a fault ends one, and the tests send some 500 messages in all, most of
# them mistakes; the stream must outlast them.
MATCHES = 1000
# What a message can earn: a mistake. (A late reply to a request the referee gave up on is
# ignored; with a move time this long no request is given up on, so every message is answered.
# A missed deadline stays allowed: it is a well-formed answer, should the machine stall.)
ANSWERS = {
    pb.FAULT_KIND_OUT_OF_TURN,
    pb.FAULT_KIND_PROTOCOL_ERROR,
    pb.FAULT_KIND_ILLEGAL_ACTION,
    pb.FAULT_KIND_MALFORMED_ACTION,
    pb.FAULT_KIND_DEADLINE_MISSED,
}


def raw(message: bytes | pb.BotMessage) -> bytes:
    return message if isinstance(message, bytes) else message.SerializeToString()


@dataclass
class Live:
    """The background loop, the server, the series, and seat B's stream."""

    loop: asyncio.AbstractEventLoop
    server: RefereeServer
    series: asyncio.Future[SeriesOutcome]
    call: Any
    channel: Any
    pending: pb.DecisionRequest | None = None  # the request seat B must answer, if any
    late_replies: int = 0  # replies to earlier requests sent
    seen: set[int] = field(default_factory=set)  # the ids of seat B's requests so far

    def run(self, make: Callable[[], Coroutine[Any, Any, T]], timeout: float = 600.0) -> T:
        """Run a coroutine on the background loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(make(), self.loop).result(timeout)

    async def exchange(self, payload: bytes | pb.BotMessage) -> list[pb.RefereeMessage]:
        """Send one message while a request of seat B is pending, so that the referee judges it
        against that request; read everything up to seat B's next request (the same match if
        the message was a legal action, the next match after a Fault and a MatchEnd).

        A reply to an earlier request may be one the referee gave up on (cut short by a fault),
        which it ignores without a word: then a legal answer to the pending request follows it,
        so that there is always something to read, whatever the machine's speed.
        """
        pending = self.pending
        assert pending is not None
        await self.call.write(payload)
        if self.late(payload, pending):
            self.late_replies += 1
            reply = pb.ActionReply(request_id=pending.request_id, action=pending.legal_actions[0])
            await self.call.write(pb.BotMessage(action_reply=reply))
        self.pending = None
        got: list[pb.RefereeMessage] = []
        while self.pending is None:
            message = await asyncio.wait_for(self.call.read(), READ_TIMEOUT)
            assert message is not grpc.aio.EOF, "the referee ended the stream"
            assert message.WhichOneof("kind") is not None, message
            got.append(message)
            if message.WhichOneof("kind") == "decision_request":
                self.pending = message.decision_request
                self.seen.add(self.pending.request_id)
        return got

    def late(self, payload: bytes | pb.BotMessage, pending: pb.DecisionRequest) -> bool:
        """Whether ``payload`` reads as a reply to one of seat B's earlier requests."""
        try:
            message = pb.BotMessage.FromString(raw(payload))
        except DecodeError:
            return False
        rid = message.action_reply.request_id
        return (
            message.WhichOneof("kind") == "action_reply"
            and rid != pending.request_id
            and rid in self.seen
        )

    async def first_request(self) -> None:
        """Read up to seat B's first DecisionRequest."""
        while self.pending is None:
            message = await asyncio.wait_for(self.call.read(), READ_TIMEOUT)
            if message.WhichOneof("kind") == "decision_request":
                self.pending = message.decision_request
                self.seen.add(self.pending.request_id)

    async def serving(self) -> int:
        stub = health_pb2_grpc.HealthStub(self.channel)
        reply = await stub.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME), timeout=120)
        return int(reply.status)


def _start_loop() -> tuple[asyncio.AbstractEventLoop, threading.Thread]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="fuzz-referee", daemon=True)
    thread.start()
    return loop, thread


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    loop, thread = _start_loop()
    out = tmp_path_factory.mktemp("fuzz")
    puppet = BotSpec(("sleep", "3600"), "puppet")  # seat B's process; this test plays for it
    # Unsandboxed: the fuzzing client connects to the seat over TCP with its token.
    # The fuzzing client is never timed out: its think time depends on the machine's load.
    options = RefereeOptions(
        move_time=3600, bank=0, connect_timeout=300, exit_grace=0.2, sandbox=UNSANDBOXED
    )

    async def setup() -> Live:
        server = RefereeServer(hello_timeout=300)
        await server.start()
        tickets: list[SeatTicket] = []
        issued = asyncio.Event()
        issue = server.issue_ticket

        def capture(label: str) -> SeatTicket:
            ticket = issue(label)
            tickets.append(ticket)
            if len(tickets) == 2:
                issued.set()
            return ticket

        server.issue_ticket = capture  # type: ignore[method-assign]
        series = asyncio.ensure_future(
            run_series_async(
                (bot(), puppet),
                Rules.profile("standard"),
                list(range(1, MATCHES + 1)),
                out,
                options,
                server=server,
            )
        )
        await asyncio.wait_for(issued.wait(), 300)
        channel = grpc.aio.insecure_channel(server.address)
        call = channel.stream_stream(
            PLAY, request_serializer=raw, response_deserializer=pb.RefereeMessage.FromString
        )()
        hello = pb.Hello(token=tickets[1].token, bot_name="fuzzer", protocol_version=1)
        await call.write(pb.BotMessage(hello=hello))
        welcome = await call.read()
        assert welcome.WhichOneof("kind") == "welcome"
        return Live(loop, server, series, call, channel)

    state = asyncio.run_coroutine_threadsafe(setup(), loop).result(600)
    state.run(state.first_request)  # so that the first example has a request to answer
    yield state

    async def teardown() -> None:
        state.series.cancel()
        await asyncio.gather(state.series, return_exceptions=True)
        state.call.cancel()
        await state.channel.close()
        await state.server.stop(0)

    state.run(teardown)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)
    loop.close()


# --- strategies ---------------------------------------------------------------------------------

cards = st.one_of(st.sampled_from(CARD_STRINGS), st.text(max_size=4))
melds = st.lists(st.lists(cards, max_size=5).map(lambda cs: pb.Meld(cards=cs)), max_size=4)
arrangements = st.one_of(
    st.none(),
    st.builds(lambda m, d: pb.Arrangement(melds=m, deadwood=d), melds, st.lists(cards, max_size=4)),
)
actions = st.one_of(
    st.just(pb.Action()),
    st.just(pb.Action(draw_stock=pb.DrawStock())),
    st.just(pb.Action(draw_discard=pb.DrawDiscard())),
    st.just(pb.Action(pass_offer=pb.Pass())),
    st.just(pb.Action(declare_dead=pb.DeclareDead())),
    cards.map(lambda c: pb.Action(discard=pb.Discard(card=c))),
    st.builds(
        lambda c, a: pb.Action(knock=pb.Knock(discard=c, arrangement=a)), cards, arrangements
    ),
    arrangements.map(lambda a: pb.Action(big_gin=pb.BigGin(arrangement=a))),
    st.builds(
        lambda m, lay: pb.Action(defender_play=pb.DefenderPlay(melds=m, layoffs=lay)),
        melds,
        st.lists(cards, max_size=4),
    ),
    st.booleans().map(lambda d: pb.Action(choose_deal=pb.ChooseDeal(deal=d))),
)
request_ids = st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1))  # None: the pending one
hellos = st.builds(
    lambda t, n, v, p: pb.BotMessage(
        hello=pb.Hello(token=t, bot_name=n, bot_version=v, protocol_version=p)
    ),
    st.text(max_size=40),
    st.text(max_size=20),
    st.text(max_size=10),
    st.integers(-(2**31), 2**31 - 1),
)


def build_message(data: st.DataObject, live: Live) -> bytes | pb.BotMessage:
    """One message to send: random bytes, a random BotMessage, or a valid answer mutated.

    What is drawn never depends on the stream's state (hypothesis replays draws); the state
    only picks among what was drawn, e.g. the legal action at ``index % len(legal)``.
    """
    how = data.draw(st.sampled_from(["bytes", "message", "message", "mutated"]), label="how")
    if how == "bytes":
        return data.draw(st.binary(max_size=300), label="bytes")
    pending = live.pending
    if how == "mutated":
        index = data.draw(st.integers(0, 63), label="legal action")
        at = data.draw(st.integers(0, 1023), label="position")
        change = data.draw(st.sampled_from(["flip", "cut", "insert"]), label="change")
        mask = data.draw(st.integers(1, 255), label="mask")
        inserted = data.draw(st.binary(min_size=1, max_size=8), label="inserted")
        if pending is not None and pending.legal_actions:
            legal = pending.legal_actions
            reply = pb.ActionReply(request_id=pending.request_id, action=legal[index % len(legal)])
        else:
            reply = pb.ActionReply(request_id=1, action=pb.Action(draw_stock=pb.DrawStock()))
        valid = bytearray(pb.BotMessage(action_reply=reply).SerializeToString())
        at %= len(valid)
        if change == "flip":
            valid[at] ^= mask
        elif change == "cut":
            del valid[at:]
        else:
            valid[at:at] = inserted
        return bytes(valid)
    kind = data.draw(st.sampled_from(["empty", "hello", "reply", "reply"]), label="kind")
    if kind == "empty":
        return pb.BotMessage()
    if kind == "hello":
        return data.draw(hellos, label="hello")
    rid = data.draw(request_ids, label="request_id")
    if rid is None:
        rid = pending.request_id if pending is not None else 1
    reply = pb.ActionReply(request_id=rid, action=data.draw(actions, label="action"))
    return pb.BotMessage(action_reply=reply)


# --- the tests ----------------------------------------------------------------------------------


def judge(live: Live, data: st.DataObject) -> list[str]:
    """Send one message drawn from ``data`` and check what the referee makes of it: each answer
    well formed, the server serving, the series going on. The kinds of the faults it earned
    (none: it was a legal action, and the match went on)."""
    payload = build_message(data, live)
    answers = live.run(lambda: live.exchange(payload))
    kinds: list[str] = []
    for message in answers:
        if message.WhichOneof("kind") == "fault":
            fault = message.fault
            assert fault.kind in ANSWERS, fault
            assert RULE.match(fault.rule), fault
            assert fault.message.strip() and not fault.retry, fault
            kinds.append(pb.FaultKind.Name(fault.kind))
    assert live.run(live.serving) == health_pb2.HealthCheckResponse.SERVING
    assert not live.series.done(), live.series
    return kinds


@settings(
    max_examples=400,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_any_message_gets_a_well_formed_answer_and_the_referee_goes_on(
    live: Live, data: st.DataObject
) -> None:
    judge(live, data)


firsts = st.one_of(
    st.binary(max_size=300),
    st.just(pb.BotMessage()),
    hellos,
    st.builds(
        lambda rid, a: pb.BotMessage(action_reply=pb.ActionReply(request_id=rid, action=a)),
        st.integers(-(2**63), 2**63 - 1),
        actions,
    ),
)
REFUSALS = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.FAILED_PRECONDITION,
}


@settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(first=firsts)
def test_any_first_message_is_refused_with_a_clean_status(
    live: Live, first: bytes | pb.BotMessage
) -> None:
    async def attempt() -> tuple[Any, str]:
        call = live.channel.stream_stream(
            PLAY, request_serializer=raw, response_deserializer=pb.RefereeMessage.FromString
        )()
        await call.write(first)
        try:
            answer = await asyncio.wait_for(call.read(), READ_TIMEOUT)
        except grpc.aio.AioRpcError as exc:
            return exc.code(), exc.details() or ""
        call.cancel()
        return answer, ""

    code, details = live.run(attempt)
    assert code in REFUSALS, (code, details)
    assert "R11.5" in details or "protocol version" in details, details
    assert live.run(live.serving) == health_pb2.HealthCheckResponse.SERVING


def test_a_late_reply_to_a_request_cut_short_is_ignored(live: Live) -> None:
    """A fault cuts the pending request short; a reply to it afterwards earns nothing, and the
    legal answer that follows it is taken as usual."""
    cut = live.pending
    assert cut is not None
    answers = live.run(lambda: live.exchange(pb.BotMessage()))  # a fault: the match is lost
    assert [m.fault.kind for m in answers if m.HasField("fault")] == [pb.FAULT_KIND_PROTOCOL_ERROR]
    late = pb.ActionReply(request_id=cut.request_id, action=cut.legal_actions[0])
    before = live.late_replies
    answers = live.run(lambda: live.exchange(pb.BotMessage(action_reply=late)))
    assert live.late_replies == before + 1  # followed by a legal answer to the pending request
    assert not [m for m in answers if m.HasField("fault")], answers


# Examples the coverage test draws: far more than it takes to reach every kind (15 did).
COVERAGE_EXAMPLES = 100


def test_the_fuzzing_reached_every_kind_of_mistake(live: Live) -> None:
    """The fuzz test's messages reach each kind of mistake. Drawn here as it draws them, by the
    same strategy and checks, but a fixed sequence of examples (derandomized), so that this
    test stands alone and gives the same answer every run."""
    kinds: dict[str, int] = {}
    legal = 0

    @settings(
        max_examples=COVERAGE_EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(data=st.data())
    def fuzz(data: st.DataObject) -> None:
        nonlocal legal
        earned = judge(live, data)
        for name in earned:
            kinds[name] = kinds.get(name, 0) + 1
        legal += not earned

    fuzz()
    assert {"FAULT_KIND_PROTOCOL_ERROR", "FAULT_KIND_OUT_OF_TURN"} <= set(kinds), kinds
    assert {"FAULT_KIND_ILLEGAL_ACTION", "FAULT_KIND_MALFORMED_ACTION"} & set(kinds), kinds
    print(f"faults by kind: {kinds}; legal answers: {legal}")
