"""``ginref serve``'s console stays clean: no Python traceback when it is stopped (after a remote
bot's token was revoked, too), and no raw gRPC line for a failed TLS handshake, but one line that
names the peer and the reason. The real command in a subprocess; synchronisation is on what it
prints, never on sleeps."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from tests.support.certs import Certificates, make_certificates
from tests.support.serve_helpers import Serve, issue, remote_bot, write_file

pytestmark = pytest.mark.slow  # real referees and real bot processes


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certificates:
    return make_certificates(tmp_path_factory.mktemp("certs"))


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
