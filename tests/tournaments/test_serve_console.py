"""``ginref serve``'s console stays clean: no Python traceback when it is stopped (after a remote
bot's token was revoked, too), and no raw gRPC line for a failed TLS handshake, but one line that
names the peer and the reason. The real command in a subprocess; synchronisation is on what it
prints, never on sleeps."""

from __future__ import annotations

import re
import signal
import socket
import ssl
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from tests.support.certs import Certificates
from tests.support.serve_helpers import Serve, issue, remote_bot, write_file

pytestmark = pytest.mark.slow  # real referees and real bot processes


def revoke(file: Path, bot: str) -> None:
    result = CliRunner().invoke(main, ["tokens", "revoke", str(file), bot])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("start", ["all", "now"])
def test_ctrl_c_after_a_connected_bot_is_revoked_prints_no_traceback(
    tmp_path: Path, certs: Certificates, start: str
) -> None:
    # Bob never comes: with start = "all" play waits for him, with "now" a lane waits for him
    # (for longer than the test), so the run is still on when it is stopped. Alice holds four
    # streams, three of them idle in the lobby when the referee stops: their calls are what
    # the stop used to leave behind, each printing a traceback as the event loop closed.
    extra = f'start = "{start}"\nabsent_wait = 600'
    file = write_file(tmp_path, certs, ["alice", "bob"], extra=extra)
    file.write_text(file.read_text().replace("matches = 2", "matches = 20"))
    tokens = issue(file)
    serve = Serve(file, tmp_path)
    alice = remote_bot(serve, tokens["alice"], certs, tmp_path, "alice", GINREF_MATCHES="4")
    serve.said(r"^Lobby: alice connected from .* \(4 streams\)$")
    serve.said(r"^Play starts " + ("now" if start == "now" else "when"))
    revoke(file, "alice")
    serve.process.send_signal(signal.SIGINT)
    if start == "now":
        # The first Ctrl-C lets the running matches finish, the one waiting for bob too: a
        # second one cuts them.
        serve.said(r"^Stopping: no new match starts")
        serve.process.send_signal(signal.SIGINT)
    assert serve.wait() == 130, serve.err.read_text()
    err = serve.err.read_text()
    assert "Traceback" not in err and "Error" not in err, err
    assert alice.wait(120) != 0  # her streams were ended: she is told to come back


def plaintext_client(address: str) -> int:
    """A client that speaks HTTP/2 without TLS (a bot without GINREF_CA_CERT's TLS, say);
    its local port."""
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=60) as sock:
        sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes(9))
        while sock.recv(4096):  # until the referee closes it
            pass
        local: int = sock.getsockname()[1]
        return local


def untrusting_client(address: str, ca: Path) -> int:
    """A TLS client that trusts another CA than the referee's: its handshake fails on the
    referee's certificate, and it closes the connection; its local port."""
    host, port = address.rsplit(":", 1)
    context = ssl.create_default_context(cafile=str(ca))
    context.set_alpn_protocols(["h2"])
    with socket.create_connection((host, int(port)), timeout=60) as sock:
        local: int = sock.getsockname()[1]
        with pytest.raises(ssl.SSLCertVerificationError):
            context.wrap_socket(sock, server_hostname=host)
        return local


# What grpc's C-core logs look like (absl: severity, date, time, thread, file:line).
CORE_LINE = re.compile(r"^[EWI]\d{4} \d\d:\d\d:\d\d|ssl_transport_security|handshake.*failed", re.M)


def test_each_failed_tls_handshake_is_one_line_naming_the_peer_and_why(
    tmp_path: Path, certs: Certificates
) -> None:
    file = write_file(tmp_path, certs, ["alice"], extra='start = "all"')
    issue(file)
    serve = Serve(file, tmp_path)
    serve.said(r"^Play starts when every remote bot is connected")
    plain = plaintext_client(serve.address)
    serve.said(rf"^TLS handshake with 127\.0\.0\.1:{plain} failed: the client spoke plaintext$")
    untrusting = untrusting_client(serve.address, certs.other_ca)
    serve.said(
        rf"^TLS handshake with 127\.0\.0\.1:{untrusting} failed: the client closed the "
        r"connection during the handshake \(does it trust the referee's certificate\?\)$"
    )
    serve.process.send_signal(signal.SIGINT)
    assert serve.wait() == 130, serve.err.read_text()
    err = serve.err.read_text()
    # Those two lines only: nothing of grpc's own, no traceback.
    assert err.count("TLS handshake with") == 2, err
    assert CORE_LINE.search(err.replace("TLS handshake with", "")) is None, err
    assert "Traceback" not in err
