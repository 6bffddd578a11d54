"""The referee over TLS: only TLS, only to clients that trust its CA, and with mutual TLS only
to clients whose certificate its client CA signed. Certificates are made by openssl per run."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped]
import pytest

from referee.errors import ConfigError
from referee.server import RefereeServer
from referee.tls import TlsFiles, is_loopback
from referee.wire import ginrummy_pb2 as pb
from referee.wire import ginrummy_pb2_grpc as pb_grpc
from tests.support.certs import Certificates

# A handshake or a refused connection takes milliseconds; this only bounds a hang.
CALL_TIMEOUT = 60.0


def credentials(ca: Path, cert: Path | None = None, key: Path | None = None) -> Any:
    return grpc.ssl_channel_credentials(
        root_certificates=ca.read_bytes(),
        private_key=None if key is None else key.read_bytes(),
        certificate_chain=None if cert is None else cert.read_bytes(),
    )


def serve(tls: TlsFiles, test: Callable[[RefereeServer, str], Awaitable[None]]) -> None:
    async def main() -> None:
        server = RefereeServer(hello_timeout=CALL_TIMEOUT, tls=tls)
        address = await server.start()
        try:
            await test(server, address)
        finally:
            await server.stop(0)

    asyncio.run(main())


async def welcomed(channel: Any, token: str) -> pb.RefereeMessage:
    call = pb_grpc.RefereeStub(channel).Play(timeout=CALL_TIMEOUT)
    await call.write(pb.BotMessage(hello=pb.Hello(token=token, bot_name="t", protocol_version=1)))
    reply = await call.read()
    call.cancel()
    return reply


async def handshake_fails(channel: Any) -> grpc.StatusCode:
    call = pb_grpc.RefereeStub(channel).Play(timeout=CALL_TIMEOUT)
    try:
        await call.write(pb.BotMessage(hello=pb.Hello(token="x", protocol_version=1)))
        await call.read()
    except grpc.aio.AioRpcError as exc:
        return exc.code()
    raise AssertionError("the connection was not refused")


def test_a_bot_that_trusts_the_ca_is_welcomed_over_tls(certs: Certificates) -> None:
    async def test(server: RefereeServer, address: str) -> None:
        ticket = server.issue_ticket("seat 0")
        async with grpc.aio.secure_channel(address, credentials(certs.ca)) as channel:
            reply = await welcomed(channel, ticket.token)
        assert reply.WhichOneof("kind") == "welcome"

    serve(TlsFiles(certs.server_cert, certs.server_key), test)


def test_there_is_no_plain_text_fallback(certs: Certificates) -> None:
    async def test(server: RefereeServer, address: str) -> None:
        ticket = server.issue_ticket("seat 0")
        async with grpc.aio.insecure_channel(address) as channel:
            code = await handshake_fails(channel)
        assert code == grpc.StatusCode.UNAVAILABLE
        assert ticket.link is None

    serve(TlsFiles(certs.server_cert, certs.server_key), test)


def test_a_bot_does_not_trust_a_referee_with_another_ca_certificate(
    certs: Certificates,
) -> None:
    async def test(server: RefereeServer, address: str) -> None:
        ticket = server.issue_ticket("seat 0")
        async with grpc.aio.secure_channel(address, credentials(certs.ca)) as channel:
            code = await handshake_fails(channel)
        assert code == grpc.StatusCode.UNAVAILABLE
        assert ticket.link is None

    serve(TlsFiles(certs.other_server_cert, certs.other_server_key), test)


def test_mutual_tls_requires_a_client_certificate_from_the_client_ca(
    certs: Certificates,
) -> None:
    async def test(server: RefereeServer, address: str) -> None:
        ticket = server.issue_ticket("seat 0")
        for cert, key in ((None, None), (certs.other_client_cert, certs.other_client_key)):
            async with grpc.aio.secure_channel(
                address, credentials(certs.ca, cert, key)
            ) as channel:
                assert await handshake_fails(channel) == grpc.StatusCode.UNAVAILABLE
        assert ticket.link is None
        good = credentials(certs.ca, certs.client_cert, certs.client_key)
        async with grpc.aio.secure_channel(address, good) as channel:
            reply = await welcomed(channel, ticket.token)
        assert reply.WhichOneof("kind") == "welcome"

    serve(TlsFiles(certs.server_cert, certs.server_key, certs.ca), test)


def test_bad_tls_files_are_one_line_naming_the_file(certs: Certificates, tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a certificate\n")
    cases = [
        (TlsFiles(tmp_path / "missing.pem", certs.server_key), "cannot read the certificate"),
        (TlsFiles(text, certs.server_key), "is not a PEM certificate"),
        (TlsFiles(certs.server_cert, certs.server_cert), "is not a PEM private key"),
        (TlsFiles(certs.server_cert, certs.server_key, text), "not a PEM client CA"),
    ]
    for files, message in cases:
        with pytest.raises(ConfigError, match=message) as caught:
            files.load()
        assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.0.1", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("192.168.1.4", False),
        ("::", False),
        ("referee.example.org", False),
    ],
)
def test_only_loopback_addresses_count_as_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback
