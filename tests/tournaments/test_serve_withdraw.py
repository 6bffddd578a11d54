"""``ginref serve`` resumed without one of its remote bots: one whose token was revoked forfeits
its matches left at once (the resume is not refused), and one the organiser withdrew needs no
token and is never waited for. The real command in a subprocess, over TLS, with remote bots
started by the test; synchronisation on the journal and the command's output, never on sleeps.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from click.testing import CliRunner

from ginref.cli import main
from tests.support.certs import Certificates
from tests.support.serve_helpers import (
    BOUND,
    Serve,
    issue,
    journal_rows,
    records_of,
    remote_bot,
    until,
    write_file,
)
from tournaments.journal.store import JOURNAL_FILE

pytestmark = pytest.mark.slow  # real referees and real bot processes


def stopped_halfway(tmp_path: Path, certs: Certificates) -> tuple[Path, dict[str, str]]:
    """A served tournament of a local bot, alice and bob, killed with matches of bob left, and
    bob's token revoked since; its file and the remote bots' tokens."""
    file = write_file(tmp_path, certs, ["alice", "bob"], extra="absent_wait = 120")
    file.write_text(file.read_text().replace("matches = 2", "matches = 4"))
    tokens = issue(file)
    out = tmp_path / "out"
    serve = Serve(file, tmp_path, 1)
    bots = [remote_bot(serve, tokens[n], certs, tmp_path, f"{n}1") for n in ("alice", "bob")]
    until(lambda: (out / JOURNAL_FILE).exists() and len(journal_rows(out)) >= 2, "two matches")
    serve.process.send_signal(signal.SIGKILL)
    serve.wait()
    for bot in bots:
        bot.wait(BOUND)
    assert bobs(out) < 8  # bob has matches left (8 of the 12)
    ginref("tokens", "revoke", str(file), "bob")
    return file, tokens


def bobs(out: Path) -> int:
    """Bob's matches in the journal."""
    return sum("bob" in key for key, _ in journal_rows(out))


def ginref(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_a_revoked_bot_forfeits_its_matches_left_at_once_on_resume(
    tmp_path: Path, certs: Certificates
) -> None:
    file, tokens = stopped_halfway(tmp_path, certs)
    out = tmp_path / "out"
    serve = Serve(file, tmp_path, 2)
    alice = remote_bot(serve, tokens["alice"], certs, tmp_path, "alice2")
    assert serve.wait() == 3, serve.err.read_text()  # bob never connected: exit status 3
    assert alice.wait(BOUND) == 0
    err = " ".join(serve.err.read_text().split())
    assert "Warning: bob's token is revoked: its matches left are forfeits at once" in err
    rows = journal_rows(out)
    assert len(rows) == 12
    resumed = {key for key, session in rows if session == max(s for _, s in rows)}
    forfeited = [r for r in records_of(out) if r.key in resumed and "bob" in r.seats]
    assert forfeited
    for record in forfeited:
        assert [f.kind for f in record.faults] == ["not_connected"]
        assert "revoked" in record.faults[0].reason


def test_a_withdrawn_remote_bot_needs_no_token_and_is_never_waited_for(
    tmp_path: Path, certs: Certificates
) -> None:
    file, tokens = stopped_halfway(tmp_path, certs)
    out = tmp_path / "out"
    said = ginref("withdraw", str(file), "bob")
    assert "bob withdrew: " in said and "nor asks for its token" in said
    played = bobs(out)
    serve = Serve(file, tmp_path, 2)
    alice = remote_bot(serve, tokens["alice"], certs, tmp_path, "alice2")
    # Exit status 0: no bot was absent, bob's matches were never due.
    assert serve.wait() == 0, serve.err.read_text()
    assert alice.wait(BOUND) == 0
    assert "revoked" not in serve.err.read_text()
    assert bobs(out) == played and len(journal_rows(out)) == 12 - (8 - played)
    text = " ".join(serve.out.read_text().split())
    assert "Tournament complete: 12 of 12 matches" in text
    assert f"Note: bob withdrew: {matches(played)} it played stand" in text
    assert f"{matches(8 - played)} left forfeited to its opponents" in text


def matches(n: int) -> str:
    return "1 match" if n == 1 else f"{n} matches"
