"""Connect a Python bot to the ginref referee: launch contract, Play stream, card conversions.

A bot is a function from a :class:`DecisionRequest` to an :class:`Action`; :func:`run_bot` does
the rest::

    from sample_bots.client import bot_main, pb

    def decide(request: pb.DecisionRequest) -> pb.Action:
        return request.legal_actions[0]

    if __name__ == "__main__":
        bot_main(decide, "first-legal-bot")

Launch contract (set by the referee when it starts a bot): ``GINREF_ADDRESS`` (host:port of the
referee's gRPC server), ``GINREF_TOKEN`` (this seat's secret token) and ``GINREF_SEAT`` (0 to 3,
informational; may be absent when a bot is started by hand). The bot opens one ``Referee.Play``
stream, sends ``Hello``, answers every ``DecisionRequest`` with one ``ActionReply`` and returns
when the referee ends the stream (a series of matches may share it).

A bot on its entrant's machine that joins a hosted referee (``ginref serve``) is started by
hand with ``GINREF_ADDRESS`` (the referee's host:port), ``GINREF_TOKEN`` (the bot's token from
the organiser) and ``GINREF_CA_CERT`` (the PEM file of the CA that signed the referee's
certificate: the connection then uses TLS and trusts that CA alone); with mutual TLS also
``GINREF_CLIENT_CERT`` and ``GINREF_CLIENT_KEY`` (the bot's certificate and key, PEM).
``GINREF_SERVER_NAME`` checks the referee's certificate against that name instead of the
address's host, and ``GINREF_MATCHES`` (default 1) plays that many matches at once, one stream
each (``Hello.concurrent_matches``), calling ``decide`` for one request at a time. Over TLS the
bot does not wait for the referee to come up: a refused connection or handshake ends it at once
with UNAVAILABLE and the reason. The JavaScript, C++, Go and Java clients read the same
variables, with the same meaning and the same errors.

The client says on stderr what happens, one line a step (:mod:`sample_bots.progress`: welcomed,
waiting for a match, a match started or ended, the end of the stream). Exit codes of
:func:`run_bot`: 0 the referee ended the stream with OK (no more matches); 1 the connection
failed, the stream ended with an error status, or ``decide`` raised; 2 the launch environment is
missing or malformed; 3 the referee refused the bot (its token unknown or revoked, and the other
refusals of :data:`sample_bots.progress.REFUSALS`): connecting again would not help; 130
interrupted.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import re
import sys
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn, TextIO

import grpc  # type: ignore[import-untyped]

from referee.engine.cards import Card, card_str, mask_of, parse_card
from referee.wire import PROTOCOL_VERSION
from referee.wire import ginrummy_pb2 as pb
from referee.wire import ginrummy_pb2_grpc as pb_grpc
from sample_bots.progress import EXIT_REFUSED, ending, message_lines

__all__ = [
    "EXIT_CONFIG",
    "EXIT_ERROR",
    "EXIT_OK",
    "EXIT_REFUSED",
    "BotConfig",
    "ConfigError",
    "Decide",
    "OnMessage",
    "action_kind",
    "bot_main",
    "card_index",
    "card_indices",
    "config_from_env",
    "discard_action",
    "format_fault",
    "hand_mask",
    "knock_action",
    "message_events",
    "pb",
    "play",
    "play_async",
    "run_bot",
    "top_discard",
    "wire_card",
    "wire_cards",
]

ENV_ADDRESS = "GINREF_ADDRESS"
ENV_TOKEN = "GINREF_TOKEN"
ENV_SEAT = "GINREF_SEAT"
ENV_CA_CERT = "GINREF_CA_CERT"
ENV_CLIENT_CERT = "GINREF_CLIENT_CERT"
ENV_CLIENT_KEY = "GINREF_CLIENT_KEY"
ENV_SERVER_NAME = "GINREF_SERVER_NAME"
ENV_MATCHES = "GINREF_MATCHES"
# More streams than this is surely a typo; a referee caps them anyway.
MAX_STREAMS = 64
PEM_CERTIFICATE = b"-----BEGIN CERTIFICATE-----"
PEM_KEY = b"PRIVATE KEY-----"

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_CONFIG = 2
EXIT_INTERRUPTED = 130

Decide = Callable[[pb.DecisionRequest], pb.Action]
"""A bot's policy: the action to answer a request with (normally an entry of legal_actions)."""

OnMessage = Callable[[pb.RefereeMessage], None]


# --- Launch contract --------------------------------------------------------------------------


class ConfigError(ValueError):
    """The launch environment is missing a variable or holds a malformed one."""


@dataclass(frozen=True, slots=True)
class BotConfig:
    """Where to connect and which seat token to present."""

    address: str
    token: str
    seat: int | None = None  # informational: the seat comes in MatchStart
    # TLS (a hosted referee): the CA to trust, and the bot's own certificate for mutual TLS.
    ca_cert: str | None = None
    client_cert: str | None = None
    client_key: str | None = None
    server_name: str | None = None
    matches: int = 1  # matches at once, one stream each

    def credentials(self) -> Any:
        """gRPC channel credentials for TLS (None: plain text), the files read now."""
        if self.ca_cert is None:
            return None
        ca = _read_pem(ENV_CA_CERT, self.ca_cert, "certificate", PEM_CERTIFICATE)
        cert = key = None
        if self.client_cert is not None and self.client_key is not None:
            cert = _read_pem(ENV_CLIENT_CERT, self.client_cert, "certificate", PEM_CERTIFICATE)
            key = _read_pem(ENV_CLIENT_KEY, self.client_key, "private key", PEM_KEY)
        return grpc.ssl_channel_credentials(
            root_certificates=ca, private_key=key, certificate_chain=cert
        )

    def channel(self, aio: bool = False) -> Any:
        """A channel to the referee: TLS when a CA is given, else plain text; with ``aio`` a
        ``grpc.aio`` channel (made inside the event loop that uses it)."""
        creds = self.credentials()
        api = grpc.aio if aio else grpc
        if creds is None:
            return api.insecure_channel(self.address)
        options = []
        if self.server_name:
            options.append(("grpc.ssl_target_name_override", self.server_name))
        return api.secure_channel(self.address, creds, options=options)


def _read_pem(variable: str, path: str, what: str, mark: bytes) -> bytes:
    """The file that ``variable`` names, checked to hold a PEM block of that kind."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise ConfigError(f'cannot read {variable} "{path}": {exc.strerror or exc}') from None
    if mark not in data:
        raise ConfigError(f'{variable} "{path}" is not a PEM {what}')
    return data


def config_from_env(environ: Mapping[str, str] | None = None) -> BotConfig:
    """Read the launch contract from ``environ`` (default: ``os.environ``)."""
    env = os.environ if environ is None else environ
    missing = [name for name in (ENV_ADDRESS, ENV_TOKEN) if not env.get(name, "").strip()]
    if missing:
        raise ConfigError(
            f"{' and '.join(missing)} not set: a ginref bot is started by the referee, which sets "
            f"{ENV_ADDRESS} (host:port of its gRPC server), {ENV_TOKEN} (this seat's secret "
            f"token) and {ENV_SEAT}; to run it by hand, set them yourself"
        )
    seat_text = env.get(ENV_SEAT, "").strip()
    seat: int | None = None
    if seat_text:
        if seat_text not in ("0", "1", "2", "3"):
            raise ConfigError(f"{ENV_SEAT}={seat_text!r}: expected 0, 1, 2 or 3")
        seat = int(seat_text)

    def path(name: str) -> str | None:
        return env.get(name, "").strip() or None

    ca_cert, client_cert, client_key = (
        path(ENV_CA_CERT),
        path(ENV_CLIENT_CERT),
        path(ENV_CLIENT_KEY),
    )
    if (client_cert is None) != (client_key is None):
        raise ConfigError(
            f"{ENV_CLIENT_CERT} and {ENV_CLIENT_KEY} go together: set both or neither"
        )
    if client_cert is not None and ca_cert is None:
        raise ConfigError(f"{ENV_CLIENT_CERT} needs {ENV_CA_CERT}: a client certificate is for TLS")
    matches_text = env.get(ENV_MATCHES, "").strip() or "1"
    if not re.fullmatch(r"[0-9]{1,3}", matches_text) or not 1 <= int(matches_text) <= MAX_STREAMS:
        raise ConfigError(
            f'{ENV_MATCHES}="{matches_text}": expected a whole number, 1 to {MAX_STREAMS}'
        )
    return BotConfig(
        address=env[ENV_ADDRESS].strip(),
        token=env[ENV_TOKEN].strip(),
        seat=seat,
        ca_cert=ca_cert,
        client_cert=client_cert,
        client_key=client_key,
        server_name=path(ENV_SERVER_NAME),
        matches=int(matches_text),
    )


# --- Cards: wire strings <-> engine ints -------------------------------------------------------


def card_index(text: str) -> Card:
    """The engine card (``suit * 13 + rank``) of a wire card such as ``"TD"``."""
    return parse_card(text)


def card_indices(texts: Iterable[str]) -> list[Card]:
    """Engine cards of wire cards, in the same order."""
    return [parse_card(t) for t in texts]


def hand_mask(texts: Iterable[str]) -> int:
    """The 52-bit engine mask of wire cards (what :mod:`referee.engine.melds` functions take)."""
    return mask_of(parse_card(t) for t in texts)


def wire_card(card: Card) -> str:
    """The canonical wire string of an engine card, e.g. ``"TD"``."""
    return card_str(card)


def wire_cards(cards: Iterable[Card]) -> list[str]:
    """Wire strings of engine cards, in the same order."""
    return [card_str(c) for c in cards]


def top_discard(observation: pb.Observation) -> str | None:
    """The top card of the discard pile (the only one that may be taken), or ``None``."""
    pile = observation.discard_pile
    return pile[-1] if pile else None


# --- Actions ------------------------------------------------------------------------------------


def action_kind(action: pb.Action) -> str:
    """The kind of an action, e.g. ``"discard"``, ``"knock"``, ``"draw_stock"`` (``""``: unset)."""
    return action.WhichOneof("kind") or ""


def discard_action(card: Card | str) -> pb.Action:
    """Discard ``card`` face up."""
    text = card if isinstance(card, str) else card_str(card)
    return pb.Action(discard=pb.Discard(card=text))


def knock_action(
    card: Card | str, melds: Sequence[Iterable[Card | str]] | None = None
) -> pb.Action:
    """Knock with ``card`` face down; ``melds`` omitted: the referee arranges (R5.4)."""
    text = card if isinstance(card, str) else card_str(card)
    knock = pb.Knock(discard=text)
    if melds is not None:
        knock.arrangement.melds.extend(
            pb.Meld(cards=[c if isinstance(c, str) else card_str(c) for c in meld])
            for meld in melds
        )
    return pb.Action(knock=knock)


def message_events(message: pb.RefereeMessage) -> Sequence[pb.GameEvent]:
    """The public events that ``message`` brings, in the order they happened.

    The referee sends each event to each seat exactly once: as an Event message, or in the
    ``new_events`` of the DecisionRequest that follows it (never both). So an Event message
    brings its event, a DecisionRequest its ``new_events``, any other message none; applied to
    every message in stream order (e.g. in ``on_message``), this yields every event once::

        def on_message(message: pb.RefereeMessage) -> None:
            for event in message_events(message):
                history.append(event)
    """
    kind = message.WhichOneof("kind")
    if kind == "event":
        return (message.event,)
    if kind == "decision_request":
        return list(message.decision_request.new_events)
    return ()


def format_fault(fault: pb.Fault) -> str:
    """One line describing a fault the referee reported."""
    kind = pb.FaultKind.Name(fault.kind).removeprefix("FAULT_KIND_") if fault.kind else "FAULT"
    where = f" on request {fault.request_id}" if fault.request_id else ""
    then = "a new request follows" if fault.retry else "the match is forfeited"
    return f"fault {kind} ({fault.rule or 'no rule'}){where}: {fault.message} -- {then}"


# --- The Play stream ----------------------------------------------------------------------------


class _Outbox:
    """The bot's side of the stream: a queue that grpc drains from its own thread."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[pb.BotMessage | None] = queue.SimpleQueue()
        self._closed = False

    def send(self, message: pb.BotMessage) -> None:
        if not self._closed:
            self._queue.put(message)

    def close(self) -> None:
        """Half-close the bot's side (idempotent)."""
        if not self._closed:
            self._closed = True
            self._queue.put(None)

    def __iter__(self) -> Iterator[pb.BotMessage]:
        while (message := self._queue.get()) is not None:
            yield message


def play(
    channel: Any,
    decide: Decide,
    hello: pb.Hello,
    *,
    on_message: OnMessage | None = None,
    max_matches: int | None = None,
    connect_timeout: float | None = 10.0,
    wait_for_ready: bool = True,
    err: TextIO | None = None,
) -> int:
    """Play over an open ``grpc.Channel`` until the referee ends the stream; return an exit code.

    ``on_message`` sees every referee message first (for bots that keep their own state; the
    public events are in Event messages and in each request's ``new_events``: see
    :func:`message_events`).
    ``max_matches``: half-close after that many MatchEnds, i.e. ask for no further match.
    ``connect_timeout``: seconds to wait for the referee's first message (with
    ``wait_for_ready``, the call waits for the server to come up until then); ``None`` waits
    forever. Without ``wait_for_ready`` a connection that fails (no server, a TLS handshake
    refused) ends the call at once with UNAVAILABLE and the reason.
    """
    err = sys.stderr if err is None else err
    name = hello.bot_name or "bot"
    outbox = _Outbox()
    outbox.send(pb.BotMessage(hello=hello))
    # The generated stub is untyped (grpc ships no stubs); Play returns a response iterator.
    stub = pb_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
    call = stub.Play(iter(outbox), wait_for_ready=wait_for_ready)
    # A timer, not grpc.channel_ready_future: the latter leaves a connectivity-polling thread
    # behind that makes closing the channel take 200 ms.
    timed_out = threading.Event()
    timer: threading.Timer | None = None
    if connect_timeout is not None:

        def give_up() -> None:
            timed_out.set()
            call.cancel()

        timer = threading.Timer(connect_timeout, give_up)
        timer.daemon = True
        timer.start()
    matches = 0
    try:
        for message in call:
            if timer is not None:
                timer.cancel()
                timer = None
            _say(name, message, err)
            if on_message is not None:
                on_message(message)
            kind = message.WhichOneof("kind")
            if kind == "decision_request":
                request = message.decision_request
                action = decide(request)
                reply = pb.ActionReply(request_id=request.request_id, action=action)
                outbox.send(pb.BotMessage(action_reply=reply))
            elif kind == "fault":
                print(f"{name}: {format_fault(message.fault)}", file=err, flush=True)
            elif kind == "match_end":
                matches += 1
                if max_matches is not None and matches >= max_matches:
                    outbox.close()
    except grpc.RpcError as exc:
        if timed_out.is_set():
            print(
                f"{name}: no answer from the referee within {connect_timeout:g} s",
                file=err,
                flush=True,
            )
            return EXIT_ERROR
        return _ended(name, exc, err)
    except KeyboardInterrupt:
        call.cancel()
        return EXIT_INTERRUPTED
    except Exception:
        # A bug in the bot: say so and leave; the referee records the disconnection.
        print(f"{name}: the bot raised an exception; leaving the stream", file=err)
        traceback.print_exc(file=err)
        call.cancel()
        return EXIT_ERROR
    finally:
        if timer is not None:
            timer.cancel()
        outbox.close()
    return _ended(name, None, err)


def _say(name: str, message: pb.RefereeMessage, err: TextIO) -> None:
    for line in message_lines(message):
        print(f"{name}: {line}", file=err, flush=True)


def _ended(name: str, exc: grpc.RpcError | None, err: TextIO) -> int:
    """Say how the stream ended (``exc``: with an error status; None: with OK); its exit code."""
    code, details = "OK", ""
    if exc is not None:
        # A call's errors carry a status; grpc's other RpcErrors (rare) only their text.
        status_code = exc.code() if hasattr(exc, "code") else None
        code = status_code.name if status_code is not None else "UNKNOWN"
        details = exc.details() if hasattr(exc, "details") else str(exc)
    line, status = ending(code, details or "")
    print(f"{name}: {line}", file=err, flush=True)
    return status


async def play_async(
    channel: Any,
    decide: Decide,
    hello: pb.Hello,
    *,
    on_message: OnMessage | None = None,
    max_matches: int | None = None,
    connect_timeout: float | None = 10.0,
    wait_for_ready: bool = True,
    err: TextIO | None = None,
) -> int:
    """:func:`play` over a ``grpc.aio.Channel``: the same loop, arguments and exit codes.

    Each message is read and each reply written by the event loop's own ``read()`` and
    ``write()``, so a reply leaves as soon as ``decide`` returns, where :func:`play` hands it
    to a queue that grpc's thread drains (benchmarks/bench_referee.py measured the difference:
    docs/referee.md). ``decide`` runs in the event loop: streams of one loop take turns.
    """
    err = sys.stderr if err is None else err
    name = hello.bot_name or "bot"
    stub = pb_grpc.RefereeStub(channel)  # type: ignore[no-untyped-call]
    call = stub.Play(wait_for_ready=wait_for_ready)
    matches = 0
    try:
        try:
            async with asyncio.timeout(connect_timeout):
                await call.write(pb.BotMessage(hello=hello))
                message = await call.read()
        except TimeoutError:
            call.cancel()
            print(f"{name}: no answer from the referee within {connect_timeout:g} s", file=err)
            return EXIT_ERROR
        while message is not grpc.aio.EOF:
            _say(name, message, err)
            if on_message is not None:
                on_message(message)
            kind = message.WhichOneof("kind")
            if kind == "decision_request":
                request = message.decision_request
                reply = pb.ActionReply(request_id=request.request_id, action=decide(request))
                # If the stream ended meanwhile, the next read says how.
                with contextlib.suppress(grpc.RpcError, asyncio.InvalidStateError):
                    await call.write(pb.BotMessage(action_reply=reply))
            elif kind == "fault":
                print(f"{name}: {format_fault(message.fault)}", file=err, flush=True)
            elif kind == "match_end":
                matches += 1
                if max_matches is not None and matches == max_matches:
                    await call.done_writing()
            message = await call.read()
    except grpc.RpcError as exc:
        return _ended(name, exc, err)
    except Exception:
        # A bug in the bot: say so and leave; the referee records the disconnection.
        print(f"{name}: the bot raised an exception; leaving the stream", file=err)
        traceback.print_exc(file=err)
        call.cancel()
        return EXIT_ERROR
    return _ended(name, None, err)


def run_bot(
    decide: Decide,
    name: str,
    version: str = "0.1.0",
    *,
    config: BotConfig | None = None,
    on_message: OnMessage | None = None,
    max_matches: int | None = None,
    connect_timeout: float | None = 10.0,
) -> int:
    """Connect with the launch environment (or ``config``), play, and return an exit code."""
    if config is None:
        try:
            config = config_from_env()
        except ConfigError as exc:
            print(f"{name}: {exc}", file=sys.stderr)
            return EXIT_CONFIG
    hello = pb.Hello(
        token=config.token,
        bot_name=name,
        bot_version=version,
        protocol_version=PROTOCOL_VERSION,
        concurrent_matches=config.matches if config.matches > 1 else 0,
    )
    # A referee that starts the bot listens before it does, so a plain-text bot waits for the
    # connection; over TLS (a hosted referee, already up) a failed handshake is reported at once.
    wait = config.ca_cert is None

    async def streams(config: BotConfig) -> int:
        # One stream per match at once (GINREF_MATCHES), over one channel in one event loop:
        # ``decide`` and ``on_message`` are called one at a time, as in every language's client,
        # so that a bot's state needs no lock (messages of the streams interleave: a bot that
        # keeps state per match keys it by match_id).
        async with config.channel(aio=True) as channel:
            codes = await asyncio.gather(
                *(
                    play_async(
                        channel,
                        decide,
                        hello,
                        on_message=on_message,
                        max_matches=max_matches,
                        connect_timeout=connect_timeout,
                        wait_for_ready=wait,
                    )
                    for _ in range(config.matches)
                )
            )
        return max(codes)

    try:
        return asyncio.run(streams(config))
    except ConfigError as exc:  # the TLS files are read as the channel is made
        print(f"{name}: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


def bot_main(
    decide: Decide,
    name: str,
    version: str = "0.1.0",
    *,
    on_message: OnMessage | None = None,
    max_matches: int | None = None,
) -> NoReturn:
    """:func:`run_bot` with the launch environment, then exit the process with its code."""
    raise SystemExit(run_bot(decide, name, version, on_message=on_message, max_matches=max_matches))
