"""Every sample bot joins a referee over TLS, as it would a hosted one (docs/writing-a-bot.md,
"Joining a hosted referee").

The clients of the five languages read the same variables: ``GINREF_CA_CERT`` (TLS, trusting
that CA alone), ``GINREF_CLIENT_CERT`` and ``GINREF_CLIENT_KEY`` (mutual TLS),
``GINREF_SERVER_NAME`` and ``GINREF_MATCHES``. Each language's random bot plays a one-hand match
against the Python random bot through a ``RefereeServer`` that speaks TLS only, then the same
under mutual TLS; a bot that cannot trust the referee, or that the referee cannot trust, fails
its handshake at once, exits, and forfeits its match as not connected. With
``GINREF_MATCHES=2`` each bot holds two streams at once with its one token, as a hosted
referee's lobby asks, and says so in ``Hello.concurrent_matches``. Each language's launch
environment mistakes are one line on stderr and exit status 2.

Bots run unsandboxed (a sandboxed bot reaches the referee through its own Unix socket, in
plain text), which is how a bot on an entrant's own machine runs.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from referee.bots.sandbox import SandboxSettings
from referee.bots.spec import BotSpec
from referee.convert import EventEncoder, action_from_pb
from referee.engine.match import Match
from referee.engine.observation import observe_seat
from referee.engine.outcomes import Termination
from referee.engine.rules import Rules
from referee.faults import FaultKind
from referee.requests import decision_request_pb
from referee.results import MatchOutcome
from referee.series import run_series_async
from referee.server import RefereeServer
from referee.settings import RefereeOptions
from referee.tls import TlsFiles
from referee.wire import ginrummy_pb2 as pb
from referee.wire import ginrummy_pb2_grpc as pb_grpc
from tests.support.certs import Certificates
from tests.support.language_bots import LANGS, ScriptedReferee, assert_clean, built
from tests.support.progress_lines import unexpected_lines
from tests.support.referee_helpers import assert_log_agrees

pytestmark = pytest.mark.slow  # real bot processes of every language

ALL_LANGS = ["python", *LANGS]
PY_RANDOM = (sys.executable, "-m", "sample_bots.random_bot")
# One hand: a match between random bots to 100 would take thousands of decisions.
RULES = Rules.profile("standard", scope="single_hand")
# A JVM can be slow to start on a loaded machine; a bot that fails its handshake exits, which
# ends the referee's wait for it, so nothing waits this long unless something is broken.
OPTIONS = RefereeOptions(
    connect_timeout=60.0, exit_grace=5.0, kill_grace=2.0, sandbox=SandboxSettings(mode="none")
)
WAIT = 60.0  # the fake referee's bound on a hang; the streams come within milliseconds


def random_bot(lang: str) -> tuple[str, ...]:
    return PY_RANDOM if lang == "python" else built(lang).random


def random_name(lang: str) -> str:
    return "random-bot" if lang == "python" else built(lang).random_name


def trusting(certs: Certificates, *, client: bool = False, **more: str) -> dict[str, str]:
    """The TLS variables of a bot that trusts the referee's CA (with its own pair: ``client``)."""
    env = {"GINREF_CA_CERT": str(certs.ca)}
    if client:
        env |= {
            "GINREF_CLIENT_CERT": str(certs.client_cert),
            "GINREF_CLIENT_KEY": str(certs.client_key),
        }
    return env | more


def tls_match(
    out: Path, tls: TlsFiles, bot: tuple[str, ...], bot_env: dict[str, str], py_env: dict[str, str]
) -> MatchOutcome:
    """One match, ``bot`` in seat 0 against the Python random bot, on a TLS-only referee."""

    async def main() -> MatchOutcome:
        server = RefereeServer(hello_timeout=OPTIONS.connect_timeout, tls=tls)
        await server.start()
        try:
            lineup = (
                BotSpec(bot, "bot", env=tuple(bot_env.items())),
                BotSpec(PY_RANDOM, "random-py", env=tuple(py_env.items())),
            )
            series = await run_series_async(
                lineup, RULES, [23], out, OPTIONS, swap_seats=False, server=server
            )
        finally:
            await server.stop(0)
        return series.matches[0]

    return asyncio.run(main())


def assert_played(outcome: MatchOutcome, lang: str) -> None:
    assert_clean(outcome)
    assert outcome.result.termination is Termination.SINGLE_HAND
    assert outcome.seats[0].name == random_name(lang)
    assert outcome.seat_decisions[0] > 0
    assert_log_agrees(outcome.log_path)


# --- A match over TLS, and over mutual TLS --------------------------------------------------


@pytest.mark.parametrize("lang", ALL_LANGS)
def test_random_bot_plays_a_match_over_tls(lang: str, certs: Certificates, tmp_path: Path) -> None:
    tls = TlsFiles(certs.server_cert, certs.server_key)
    env = trusting(certs)
    assert_played(tls_match(tmp_path, tls, random_bot(lang), env, env), lang)


@pytest.mark.parametrize("lang", ALL_LANGS)
def test_random_bot_plays_a_match_over_mutual_tls(
    lang: str, certs: Certificates, tmp_path: Path
) -> None:
    # The address is 127.0.0.1; the certificate is checked against the name given instead.
    tls = TlsFiles(certs.server_cert, certs.server_key, client_ca=certs.ca)
    env = trusting(certs, client=True, GINREF_SERVER_NAME="localhost")
    assert_played(
        tls_match(tmp_path, tls, random_bot(lang), env, trusting(certs, client=True)), lang
    )


# --- Handshakes that must fail -----------------------------------------------------------------

REFUSALS = {
    # The bot does not trust the referee: its certificate is signed by another CA...
    "another CA": (False, lambda c: {"GINREF_CA_CERT": str(c.other_ca)}),
    # ... or does not carry the name the bot checks it against.
    "another name": (False, lambda c: trusting(c, GINREF_SERVER_NAME="referee.example.org")),
    # The referee does not trust the bot: it has no client certificate (one from another CA is
    # refused by the referee's own tests, tests/referee/test_tls.py).
    "no client certificate": (True, lambda c: trusting(c)),
}


@pytest.mark.parametrize("case", list(REFUSALS))
@pytest.mark.parametrize("lang", ALL_LANGS)
def test_a_failed_handshake_is_reported_and_forfeits_the_match(
    lang: str, case: str, certs: Certificates, tmp_path: Path
) -> None:
    mutual, bot_env = REFUSALS[case]
    tls = TlsFiles(certs.server_cert, certs.server_key, client_ca=certs.ca if mutual else None)
    outcome = tls_match(
        tmp_path, tls, random_bot(lang), bot_env(certs), trusting(certs, client=mutual)
    )
    assert outcome.forfeit is not None
    assert outcome.forfeit.kind is FaultKind.NOT_CONNECTED
    assert outcome.forfeit.seat == 0
    # It gave up at once, with the reason, rather than waiting for the referee's timeout.
    assert "exited with code 1 without connecting" in outcome.forfeit.reason
    printed = outcome.seats[0].output.read_text()
    # "the referee ended the stream: UNAVAILABLE: ..." (Go: "cannot open the Play stream").
    assert f"{random_name(lang)}: " in printed and ": UNAVAILABLE: " in printed, printed
    assert unexpected_lines(outcome.seats[1].output.read_text()) == []


# --- Several matches at once -------------------------------------------------------------------


@dataclass
class Lobby(ScriptedReferee):
    """A hosted referee's lobby in small: after each Welcome, nothing until ``streams`` streams
    are open at once; then one match of the given requests on each."""

    streams: int = 2
    arrived: threading.Barrier = field(init=False)
    answered: list[tuple[pb.DecisionRequest, pb.ActionReply]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.arrived = threading.Barrier(self.streams, timeout=WAIT)

    def Play(
        self, request_iterator: Iterator[pb.BotMessage], context: grpc.ServicerContext
    ) -> Iterator[pb.RefereeMessage]:
        hello = next(request_iterator).hello
        self.hellos.append(hello)
        yield pb.RefereeMessage(welcome=pb.Welcome(protocol_version=1, bot_name=hello.bot_name))
        self.arrived.wait()  # raises, and so fails the stream, if the others never come
        yield pb.RefereeMessage(match_start=self.match_start())
        for number, template in enumerate(self.requests, start=1):
            request = pb.DecisionRequest()
            request.CopyFrom(template)
            request.request_id = number
            yield pb.RefereeMessage(decision_request=request)
            self.answered.append((request, next(request_iterator).action_reply))
        yield pb.RefereeMessage(match_end=pb.MatchEnd(match_id="positions"))


def first_requests(count: int) -> tuple[pb.DecisionRequest, ...]:
    """The first ``count`` requests of an engine match, each answered with its first entry."""
    match = Match(Rules.profile("standard"), 5)
    requests = []
    while len(requests) < count:
        seat = match.to_act
        assert seat is not None
        obs = observe_seat(match, seat)
        message = decision_request_pb(obs, EventEncoder(obs.seat), 1, 10_000, 0, 0)
        requests.append(message.decision_request)
        match.apply(action_from_pb(message.decision_request.legal_actions[0], obs.hand))
    return tuple(requests)


@pytest.mark.parametrize("lang", ALL_LANGS)
def test_ginref_matches_opens_that_many_streams_at_once_with_one_token(
    lang: str, certs: Certificates
) -> None:
    lobby = Lobby(first_requests(3))
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    pb_grpc.add_RefereeServicer_to_server(lobby, server)  # type: ignore[no-untyped-call]
    credentials = grpc.ssl_server_credentials(
        [(certs.server_key.read_bytes(), certs.server_cert.read_bytes())],
        root_certificates=certs.ca.read_bytes(),
        require_client_auth=True,
    )
    port = server.add_secure_port("127.0.0.1:0", credentials)
    server.start()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GINREF_")},
        "GINREF_ADDRESS": f"127.0.0.1:{port}",
        "GINREF_TOKEN": "entrant-token",
        "GINREF_MATCHES": "2",
        **trusting(certs, client=True),
    }
    try:
        proc = subprocess.run(
            random_bot(lang), env=env, capture_output=True, text=True, timeout=WAIT * 2
        )
    finally:
        server.stop(grace=None)
    assert proc.returncode == 0, proc.stderr
    assert unexpected_lines(proc.stderr) == []
    assert [h.token for h in lobby.hellos] == ["entrant-token"] * 2
    assert [h.concurrent_matches for h in lobby.hellos] == [2, 2]
    assert {h.bot_name for h in lobby.hellos} == {random_name(lang)}
    assert len(lobby.answered) == 2 * len(lobby.requests)
    for request, reply in lobby.answered:
        assert reply.request_id == request.request_id
        assert reply.action in request.legal_actions


# --- Mistakes in the launch environment --------------------------------------------------------

MISTAKES = {
    "a certificate without its key": (
        {"GINREF_CA_CERT": "{ca}", "GINREF_CLIENT_CERT": "{cert}"},
        "GINREF_CLIENT_CERT and GINREF_CLIENT_KEY go together: set both or neither",
    ),
    "a client certificate without the CA": (
        {"GINREF_CLIENT_CERT": "{cert}", "GINREF_CLIENT_KEY": "{key}"},
        "GINREF_CLIENT_CERT needs GINREF_CA_CERT: a client certificate is for TLS",
    ),
    "an unreadable CA file": (
        {"GINREF_CA_CERT": "{missing}"},
        'cannot read GINREF_CA_CERT "{missing}": ',
    ),
    "a key that is not PEM": (
        {"GINREF_CA_CERT": "{ca}", "GINREF_CLIENT_CERT": "{cert}", "GINREF_CLIENT_KEY": "{ca}"},
        'GINREF_CLIENT_KEY "{ca}" is not a PEM private key',
    ),
    "no match at a time": (
        {"GINREF_MATCHES": "0"},
        'GINREF_MATCHES="0": expected a whole number, 1 to 64',
    ),
}


@pytest.mark.parametrize("lang", ALL_LANGS)
def test_launch_environment_mistakes_are_one_line_and_exit_2(
    lang: str, certs: Certificates, tmp_path: Path
) -> None:
    paths = {
        "ca": str(certs.ca),
        "cert": str(certs.client_cert),
        "key": str(certs.client_key),
        "missing": str(tmp_path / "missing.pem"),
    }
    base = {k: v for k, v in os.environ.items() if not k.startswith("GINREF_")}
    base |= {"GINREF_ADDRESS": "127.0.0.1:1", "GINREF_TOKEN": "t"}
    for case, (variables, message) in MISTAKES.items():
        env = base | {name: value.format(**paths) for name, value in variables.items()}
        proc = subprocess.run(random_bot(lang), env=env, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2, f"{case}: {proc.stderr}"
        line = f"{random_name(lang)}: {message.format(**paths)}"
        assert proc.stderr.startswith(line), f"{case}: {proc.stderr!r}"
        assert proc.stderr.count("\n") == 1, f"{case}: {proc.stderr!r}"


def test_java_says_how_to_convert_a_key_it_cannot_read(certs: Certificates, tmp_path: Path) -> None:
    # The JDK reads PKCS#8 keys only; "openssl ec" writes the older SEC1 form.
    sec1 = tmp_path / "bot-sec1.key"
    subprocess.run(
        ["openssl", "ec", "-in", str(certs.client_key), "-out", str(sec1)],
        check=True,
        capture_output=True,
    )
    assert "-----BEGIN EC PRIVATE KEY-----" in sec1.read_text()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GINREF_")}
    env |= {"GINREF_ADDRESS": "127.0.0.1:1", "GINREF_TOKEN": "t"}
    env |= trusting(certs, client=True, GINREF_CLIENT_KEY=str(sec1))
    proc = subprocess.run(random_bot("java"), env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == (
        f'random-bot-java: GINREF_CLIENT_KEY "{sec1}" is not a PKCS#8 key (BEGIN PRIVATE KEY), '
        f"the only form Java reads: convert it with openssl pkcs8 -topk8 -nocrypt -in {sec1} "
        f"-out {sec1}.pk8\n"
    )
