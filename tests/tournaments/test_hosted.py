"""The hosted referee's public listener and lobby, in process, over a real TLS server on
127.0.0.1 with certificates made by openssl: who is let in (tokens, revocation, certificates,
streams per bot), how the lobby hands streams to matches (absence, busy bots, request ids),
and what garbage from a waiting bot or a stranger costs. The bots are raw gRPC clients of the
test; ``tests/tournaments/test_serve.py`` plays whole tournaments with real bot processes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped]
import pytest

from referee.convert import action_from_pb
from referee.engine.actions import action_to_dict
from referee.engine.rules import Rules
from referee.lobby import Lobby, RemoteSeat
from referee.series import run_series_async
from referee.settings import RefereeOptions
from referee.transport import InvalidMessage, parse_bot_message
from referee.wire import ginrummy_pb2 as pb
from referee.wire import ginrummy_pb2_grpc as pb_grpc
from tests.support.certs import Certificates
from tests.support.referee_helpers import UNSANDBOXED, assert_log_agrees, of_type
from tournaments.executors.hosted import HostedExecutor
from tournaments.file.config import parse_text
from tournaments.file.serve import ServeSettings
from tournaments.tokens import TokenStore

BOUND = 60.0  # seconds: far above what any step here needs

FILE = """
name = "hosted"
[sandbox]
mode = "none"
[[bots]]
name = "alice"
remote = true
[[bots]]
name = "bob"
remote = true
[[bots]]
name = "local"
command = "{python} -m sample_bots.random_bot"
"""


class Hosted:
    """A started hosted executor, its tokens, and TLS channels to it."""

    def __init__(self, executor: HostedExecutor, tokens: dict[str, str], certs: Certificates):
        self.executor = executor
        self.tokens = tokens
        self.certs = certs
        self.store = TokenStore(executor.root)

    @property
    def address(self) -> str:
        return self.executor.address

    def channel(
        self, ca: Path | None = None, cert: Path | None = None, key: Path | None = None
    ) -> Any:
        creds = grpc.ssl_channel_credentials(
            (ca or self.certs.ca).read_bytes(),
            None if key is None else key.read_bytes(),
            None if cert is None else cert.read_bytes(),
        )
        return grpc.aio.secure_channel(self.address, creds)

    @property
    def lobby(self) -> Lobby:
        assert self.executor.lobby is not None
        return self.executor.lobby


def hosted(
    tmp_path: Path,
    certs: Certificates,
    test: Callable[[Hosted], Awaitable[None]],
    *,
    client_ca: bool = False,
    complete: bool = False,
    hello_timeout: float | None = None,
) -> None:
    config = parse_text(FILE, "t.toml", tmp_path)
    if hello_timeout is not None:
        config = config.with_changes(connect_timeout=hello_timeout)
    store = TokenStore(tmp_path / "out")
    tokens = {name: store.issue(name) for name in ("alice", "bob")}
    store.save()
    settings = ServeSettings(
        address="127.0.0.1:0",
        cert=str(certs.server_cert),
        key=str(certs.server_key),
        client_ca=str(certs.ca) if client_ca else None,
        absent_wait=BOUND,
    )

    async def main() -> None:
        executor = HostedExecutor(config, tmp_path / "out", None, settings)
        await executor.start()
        try:
            await test(Hosted(executor, tokens, certs))
        finally:
            await executor.close(complete)

    asyncio.run(main())


def hello(token: str, matches: int = 0) -> pb.BotMessage:
    return pb.BotMessage(
        hello=pb.Hello(
            token=token, bot_name="remote", protocol_version=1, concurrent_matches=matches
        )
    )


async def join(channel: Any, token: str, matches: int = 0) -> Any:
    """Open a stream, say Hello, and return the call once welcomed."""
    call = pb_grpc.RefereeStub(channel).Play(timeout=BOUND)
    await call.write(hello(token, matches))
    reply = await call.read()
    assert reply.WhichOneof("kind") == "welcome", reply
    return call


async def refused(channel: Any, token: str, matches: int = 0) -> tuple[Any, str]:
    call = pb_grpc.RefereeStub(channel).Play(timeout=BOUND)
    try:
        await call.write(hello(token, matches))
        await call.read()
    except grpc.aio.AioRpcError as exc:
        return exc.code(), exc.details() or ""
    raise AssertionError("the stream was not refused")


async def until(condition: Callable[[], bool]) -> None:
    """Wait for ``condition`` (checked on every loop turn), at most :data:`BOUND` seconds."""
    async with asyncio.timeout(BOUND):
        while not condition():
            await asyncio.sleep(0.01)


def test_a_remote_bot_with_its_token_waits_in_the_lobby(
    tmp_path: Path, certs: Certificates
) -> None:
    async def test(h: Hosted) -> None:
        async with h.channel() as channel:
            call = await join(channel, h.tokens["alice"])
            await until(lambda: h.lobby.connected("alice") == 1)
            assert h.lobby.connected("bob") == 0
            call.cancel()
            await until(lambda: h.lobby.connected("alice") == 0)

    hosted(tmp_path, certs, test)


def test_bad_tokens_are_refused_and_take_nothing(tmp_path: Path, certs: Certificates) -> None:
    async def test(h: Hosted) -> None:
        for token in ("", "ginref_not-a-token", h.tokens["alice"] + "x", "local"):
            # A connection of its own each: one refused three times is closed (referee.front).
            async with h.channel() as channel:
                code, details = await refused(channel, token)
                assert code == grpc.StatusCode.UNAUTHENTICATED
                assert "unknown or revoked token" in details
        assert h.lobby.connected("alice") == 0 and h.lobby.connected("bob") == 0
        # The hash is all that is kept: the token itself is in no file of the directory.
        for path in h.executor.root.rglob("*"):
            if path.is_file():
                assert h.tokens["alice"].encode() not in path.read_bytes()

    hosted(tmp_path, certs, test)


def test_a_revoked_token_is_refused_and_its_idle_stream_ends(
    tmp_path: Path, certs: Certificates
) -> None:
    async def test(h: Hosted) -> None:
        async with h.channel() as channel:
            idle = await join(channel, h.tokens["alice"])
            await until(lambda: h.lobby.connected("alice") == 1)
            h.store.revoke("alice")
            h.store.save()  # as 'ginref tokens revoke' does, while the referee runs
            with pytest.raises(grpc.aio.AioRpcError) as ended:
                async with asyncio.timeout(BOUND):
                    await idle.read()
            assert ended.value.code() == grpc.StatusCode.PERMISSION_DENIED
            code, _ = await refused(channel, h.tokens["alice"])
            assert code == grpc.StatusCode.UNAUTHENTICATED
            new = h.store.issue("alice", again=True)
            h.store.save()
            call = await join(channel, new)
            await until(lambda: h.lobby.connected("alice") == 1)
            call.cancel()

    hosted(tmp_path, certs, test)


def test_a_reissued_token_replaces_the_old_one(tmp_path: Path, certs: Certificates) -> None:
    async def test(h: Hosted) -> None:
        new = h.store.issue("bob", again=True)
        h.store.save()
        async with h.channel() as channel:
            code, _ = await refused(channel, h.tokens["bob"])
            assert code == grpc.StatusCode.UNAUTHENTICATED
            call = await join(channel, new)
            call.cancel()

    hosted(tmp_path, certs, test)


def test_no_plain_text_and_no_other_ca(tmp_path: Path, certs: Certificates) -> None:
    async def test(h: Hosted) -> None:
        async with grpc.aio.insecure_channel(h.address) as plain:
            code, _ = await refused(plain, h.tokens["alice"])
            assert code == grpc.StatusCode.UNAVAILABLE
        async with h.channel(ca=certs.other_ca) as wrong:
            code, _ = await refused(wrong, h.tokens["alice"])
            assert code == grpc.StatusCode.UNAVAILABLE
        assert h.lobby.connected("alice") == 0

    hosted(tmp_path, certs, test)


def test_mutual_tls_needs_a_client_certificate_of_the_client_ca(
    tmp_path: Path, certs: Certificates
) -> None:
    async def test(h: Hosted) -> None:
        for cert, key in ((None, None), (certs.other_client_cert, certs.other_client_key)):
            async with h.channel(cert=cert, key=key) as channel:
                code, _ = await refused(channel, h.tokens["alice"])
                assert code == grpc.StatusCode.UNAVAILABLE
        async with h.channel(cert=certs.client_cert, key=certs.client_key) as channel:
            call = await join(channel, h.tokens["alice"])
            call.cancel()

    hosted(tmp_path, certs, test, client_ca=True)


def test_a_bot_holds_as_many_streams_as_it_declares(tmp_path: Path, certs: Certificates) -> None:
    async def test(h: Hosted) -> None:
        async with h.channel() as channel:
            first = await join(channel, h.tokens["alice"])
            code, details = await refused(channel, h.tokens["alice"])
            assert code == grpc.StatusCode.ALREADY_EXISTS and "concurrent_matches" in details
            second = await join(channel, h.tokens["alice"], matches=2)
            code, _ = await refused(channel, h.tokens["alice"], matches=2)
            assert code == grpc.StatusCode.ALREADY_EXISTS
            await until(lambda: h.lobby.connected("alice") == 2)
            # Two matches at once: two different streams.
            one = await h.lobby.acquire("alice", 0.0)
            two = await h.lobby.acquire("alice", 0.0)
            assert one is not None and two is not None and one[0] is not two[0]
            for call in (first, second):
                call.cancel()

    hosted(tmp_path, certs, test)


def test_absence_is_counted_only_while_the_bot_has_no_stream(
    tmp_path: Path, certs: Certificates
) -> None:
    async def test(h: Hosted) -> None:
        # Never connected: given up after the wait (a short one: nothing races it).
        assert await h.lobby.acquire("bob", 0.05) is None
        async with h.channel() as channel:
            call = await join(channel, h.tokens["alice"])
            await until(lambda: h.lobby.connected("alice") == 1)
            taken = await h.lobby.acquire("alice", 0.0)
            assert taken is not None
            link, next_id, abandoned = taken
            # Connected but busy: the next match waits for the stream, however long the
            # wait, and gets the same stream back with its request ids going on.
            waiting = asyncio.ensure_future(h.lobby.acquire("alice", 0.0))
            await asyncio.sleep(0.2)  # lets the wait run past its 0 s: it must not give up
            assert not waiting.done()
            h.lobby.release("alice", link, next_id + 5, abandoned | {next_id + 4})
            again = await asyncio.wait_for(waiting, BOUND)
            assert again is not None and again[0] is link
            assert again[1] == next_id + 5 and next_id + 4 in again[2]
            call.cancel()
            # Its only stream gone: absent again, so a wait ends.
            await until(lambda: h.lobby.connected("alice") == 0)
            assert await h.lobby.acquire("alice", 0.05) is None

    hosted(tmp_path, certs, test)


def test_a_bot_whose_wait_ran_out_is_not_waited_for_again_until_it_connects(
    tmp_path: Path, certs: Certificates
) -> None:
    async def test(h: Hosted) -> None:
        loop = asyncio.get_running_loop()
        began = loop.time()
        assert await h.lobby.acquire("bob", 0.05) is None
        assert loop.time() - began >= 0.05  # waited for, once
        # Its next matches: given up at once, however long the wait would be.
        for _ in range(3):
            async with asyncio.timeout(BOUND / 2):
                assert await h.lobby.acquire("bob", BOUND) is None
        async with h.channel() as channel:
            call = await join(channel, h.tokens["bob"])
            await until(lambda: h.lobby.connected("bob") == 1)
            # Back: its next match is played.
            taken = await h.lobby.acquire("bob", BOUND)
            assert taken is not None
            h.lobby.release("bob", *taken)
            call.cancel()
            await until(lambda: h.lobby.connected("bob") == 0)
            # Gone again: waited for again, once.
            began = loop.time()
            assert await h.lobby.acquire("bob", 0.05) is None
            assert loop.time() - began >= 0.05
            async with asyncio.timeout(BOUND / 2):
                assert await h.lobby.acquire("bob", BOUND) is None

    hosted(tmp_path, certs, test)


def test_a_revoked_bot_is_not_waited_for(tmp_path: Path, certs: Certificates) -> None:
    async def test(h: Hosted) -> None:
        waiting = asyncio.ensure_future(h.lobby.acquire("bob", BOUND))
        for name in ("alice", "bob"):
            h.store.revoke(name)
        h.store.save()  # as 'ginref tokens revoke' does, while the referee runs
        async with asyncio.timeout(BOUND / 2):
            assert await waiting is None  # a match waiting for it gives up
            assert await h.lobby.acquire("alice", BOUND) is None  # and the next ones at once
        assert h.lobby.barred("alice") and h.lobby.barred("bob")
        # A new token: it may come back and play.
        new = h.store.issue("alice", again=True)
        h.store.save()
        await until(lambda: not h.lobby.barred("alice"))
        async with h.channel() as channel:
            call = await join(channel, new)
            taken = await h.lobby.acquire("alice", BOUND)
            assert taken is not None
            call.cancel()

    hosted(tmp_path, certs, test)


@pytest.mark.parametrize("complete", [True, False])
def test_waiting_bots_learn_whether_the_tournament_is_over_or_stopped(
    tmp_path: Path, certs: Certificates, complete: bool
) -> None:
    """Over: their streams end with status OK. Stopped (Ctrl-C, a failure): UNAVAILABLE, so
    that a bot knows to come back when the tournament is resumed."""
    ended: list[Any] = []

    async def test(h: Hosted) -> None:
        async with h.channel() as channel:
            call = await join(channel, h.tokens["alice"])
            await until(lambda: h.lobby.connected("alice") == 1)
            await h.executor.close(complete)
            try:
                async with asyncio.timeout(BOUND):
                    ended.append(await call.read())
                    ended.append(await call.code())
            except grpc.aio.AioRpcError as exc:
                ended.append(exc.code())

    hosted(tmp_path, certs, test, complete=complete)
    if complete:
        assert ended == [grpc.aio.EOF, grpc.StatusCode.OK]
    else:
        assert ended == [grpc.StatusCode.UNAVAILABLE]


def test_what_a_waiting_bot_sends_is_ignored_and_costs_it_nothing(
    tmp_path: Path, certs: Certificates
) -> None:
    async def test(h: Hosted) -> None:
        async with h.channel() as channel:
            call = await join(channel, h.tokens["alice"])
            await until(lambda: h.lobby.connected("alice") == 1)
            junk = [
                pb.BotMessage(),
                pb.BotMessage(hello=pb.Hello(token=h.tokens["bob"], protocol_version=1)),
                pb.BotMessage(action_reply=pb.ActionReply(request_id=999)),
            ]
            for message in junk * 50:
                await call.write(message)
            # Still one waiting stream, alive, and bob was not let in by a Hello mid-stream.
            taken = await h.lobby.acquire("alice", 0.0)
            assert taken is not None and taken[0].lost is None and taken[1] == 1
            assert h.lobby.connected("alice") == 1 and h.lobby.connected("bob") == 0
            call.cancel()

    hosted(tmp_path, certs, test)


def test_a_connection_that_never_says_hello_is_ended(tmp_path: Path, certs: Certificates) -> None:
    async def test(h: Hosted) -> None:
        assert h.executor.public is not None
        h.executor.public._hello_timeout = 0.2  # silence takes no speed: a short wait is fine
        async with h.channel() as channel:
            call = pb_grpc.RefereeStub(channel).Play(timeout=BOUND)
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await call.read()
            assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED

    hosted(tmp_path, certs, test)


# --- garbage: from a waiting bot, and from other connections ------------------------------------

PLAY = "/ginrummy.v1.Referee/Play"
UNPARSEABLE = b"\xff\xff\xff\x7f not a protobuf message"
# The waiting bot's last message: unparseable too, and told apart from every other one.
LAST = b"\xff\xff\xff\x7f the last of them"


def raw_stream(channel: Any) -> Any:
    """A Play stream that writes bytes as they are (and messages serialized). No deadline:
    every wait on it is bounded where it is made."""
    return channel.stream_stream(
        PLAY,
        request_serializer=lambda m: m if isinstance(m, bytes) else m.SerializeToString(),
        response_deserializer=pb.RefereeMessage.FromString,
    )()


async def join_raw(channel: Any, token: str) -> Any:
    """:func:`join` on a :func:`raw_stream`."""
    call = raw_stream(channel)
    await call.write(hello(token))
    async with asyncio.timeout(BOUND):
        reply = await call.read()
    assert reply.WhichOneof("kind") == "welcome", reply
    return call


async def refused_raw(channel: Any, first: bytes) -> tuple[Any, str]:
    """The status of a stream whose first message is ``first``."""
    call = raw_stream(channel)
    try:
        await call.write(first)
        async with asyncio.timeout(BOUND):
            await call.read()
    except grpc.aio.AioRpcError as exc:
        return exc.code(), exc.details() or ""
    raise AssertionError("the stream was not refused")


async def send_all(call: Any, messages: list[bytes | pb.BotMessage]) -> int:
    """Write ``messages`` on ``call``: how many were written before the stream ended."""
    for sent, message in enumerate(messages):
        try:
            await call.write(message)
        except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
            return sent
    return len(messages)


def waiting_garbage(other_token: str, own_token: str) -> list[bytes | pb.BotMessage]:
    """What a waiting bot sends though nothing was asked: bytes that are no BotMessage, a
    valid one cut short, one over the size limit (64 KiB), messages of no kind or of the wrong
    kind, and replies to the requests it will be sent first (ids 1, 2, 3: they run on per
    stream, so a bot can guess them) with actions a bot may play; each many times."""
    guessed = [
        pb.BotMessage(action_reply=pb.ActionReply(request_id=rid, action=action))
        for rid in (1, 2, 3)
        for action in (
            pb.Action(draw_stock=pb.DrawStock()),
            pb.Action(draw_discard=pb.DrawDiscard()),
            pb.Action(pass_offer=pb.Pass()),
            pb.Action(discard=pb.Discard(card="QS")),
            pb.Action(knock=pb.Knock(discard="QS")),
        )
    ]
    cut = guessed[0].SerializeToString()[:-1]
    kinds: list[bytes | pb.BotMessage] = [
        UNPARSEABLE,
        cut,
        pb.BotMessage(),
        hello(other_token),
        hello(own_token),
        *guessed,
    ]
    return [*kinds * 100, *[b"\xff" * (70 << 10)] * 5, LAST]


def choose(request: pb.DecisionRequest) -> pb.Action:
    """A knock or gin when one is legal (so the hand ends soon), else the first legal action."""
    legal = request.legal_actions
    action: pb.Action = next(
        (a for a in legal if a.WhichOneof("kind") in ("knock", "big_gin")), legal[0]
    )
    return action


async def play_out(call: Any, answers: dict[int, pb.Action]) -> pb.MatchEnd:
    """Play the bot of ``call`` through one match: each request answered at once by
    :func:`choose`; ``answers`` keeps each answer by its request id. The lobby told it
    nothing: the match's MatchStart is the first message since its Welcome."""
    message = await call.read()
    assert message.HasField("match_start"), message
    while True:
        message = await call.read()
        assert message is not grpc.aio.EOF, "the stream ended during the match"
        if message.HasField("decision_request"):
            request = message.decision_request
            answers[request.request_id] = choose(request)
            reply = pb.ActionReply(request_id=request.request_id, action=choose(request))
            await call.write(pb.BotMessage(action_reply=reply))
        elif message.HasField("match_end"):
            end: pb.MatchEnd = message.match_end
            return end


def test_garbage_in_the_lobby_drops_no_waiting_bot(
    tmp_path: Path, certs: Certificates, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing is asked in the lobby, so what a waiting stream sends is read and ignored
    (referee/lobby.py), whatever it is and however often: its bot stays in the lobby, is not
    told anything, and plays its next match as if it had sent nothing, request ids from 1 (a
    remote bot's mistakes are faults in its own matches only: docs/hosting.md). Other
    connections' garbage is refused with its own status (INVALID_ARGUMENT for a first message
    that is no Hello, ALREADY_EXISTS for a waiting bot's token again) and drops nobody."""
    read: list[bytes] = []

    def reading(data: bytes, max_bytes: int) -> pb.BotMessage | InvalidMessage:
        # The server's deserializer: it runs in the event loop, inside the read of alice's link,
        # which hands each message on before it reads the next. So once LAST is read, every
        # message alice sent before it has been handled.
        if data == LAST:
            read.append(data)
        return parse_bot_message(data, max_bytes)

    monkeypatch.setattr("referee.server.parse_bot_message", reading)

    async def test(h: Hosted) -> None:
        async with h.channel() as one, h.channel() as two:
            alice = await join_raw(one, h.tokens["alice"])
            bob = await join_raw(two, h.tokens["bob"])  # the honest one: it sends nothing
            await until(lambda: h.lobby.connected("alice") == h.lobby.connected("bob") == 1)
            garbage = waiting_garbage(h.tokens["bob"], h.tokens["alice"])
            sent, total = await send_all(alice, garbage), len(garbage)
            assert sent == total, f"alice's stream ended after {sent} of {total} messages"
            # Strangers: garbage for a Hello, twice on each connection (a third refusal
            # closes it: referee/front.py); and bob's token again, from elsewhere.
            for _ in range(3):
                async with h.channel() as stranger:
                    for first in (UNPARSEABLE, b""):
                        code, details = await refused_raw(stranger, first)
                        assert code == grpc.StatusCode.INVALID_ARGUMENT, (code, details)
                        assert "must be a Hello" in details, details
            async with h.channel() as impostor:
                for _ in range(5):
                    code, _ = await refused(impostor, h.tokens["bob"])
                    assert code == grpc.StatusCode.ALREADY_EXISTS
            # Everything alice sent has been read (or her stream is gone).
            await until(lambda: bool(read) or h.lobby.connected("alice") == 0)
            assert h.lobby.connected("alice") == 1, "the lobby dropped a bot that sent garbage"
            assert h.lobby.connected("bob") == 1, "another connection's garbage dropped bob"
            assert not alice.done() and not bob.done()

            # Their next match takes the two waiting streams; the garbage counts for nothing.
            answers: tuple[dict[int, pb.Action], dict[int, pb.Action]] = ({}, {})
            options = RefereeOptions(move_time=BOUND, bank=0.0, sandbox=UNSANDBOXED)
            rules = Rules.profile("standard", scope="single_hand")
            seats = (RemoteSeat("alice", BOUND), RemoteSeat("bob", BOUND))
            match = run_series_async(
                seats, rules, [3], tmp_path, options, server=h.executor.public, lobby=h.lobby
            )
            async with asyncio.timeout(BOUND):
                series, *_ = await asyncio.gather(
                    match, play_out(alice, answers[0]), play_out(bob, answers[1])
                )
            (outcome,) = series.matches
            assert outcome.faults == () and outcome.forfeit is None, outcome.faults
            assert min(answers[0]) == min(answers[1]) == 1
            decisions = of_type(outcome.log_path, "decision")
            assert len(decisions) == len(answers[0]) + len(answers[1])
            for record in decisions:
                # Alice plays seat 0: each decision is her answer to a request she was sent.
                answer = answers[record["seat"]][record["request_id"]]
                assert record["action"] == action_to_dict(action_from_pb(answer)), record
            assert_log_agrees(outcome.log_path)
            for call in (alice, bob):
                call.cancel()

    hosted(tmp_path, certs, test)
