"""A bot with ``transport = "tcp"`` starts only once its forwarder listens (bots/forwarder.py).

A bot started beside its forwarder found the port refused when the forwarder was slow, and
grpc-java's reconnect backoff then outlasted the connect timeout on a busy machine. These tests
run the real sandbox with a forwarder stand-in (tests/bots/tcp_standins.py): a slow one, before
which the bot must not start; a broken one and a silent one, after which the bot must never
start and the fault must say why."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from referee.bots import sandbox
from referee.bots.forwarder import FORWARDER_FAILED, forwarder_fault, listening
from referee.bots.sandbox import TCP_PORT_IN_SANDBOX
from referee.bots.spec import BotSpec
from referee.engine.rules import Rules
from referee.faults import FaultKind
from referee.results import MatchOutcome
from referee.series import run_match
from tests.support.hostile_helpers import told
from tests.support.referee_helpers import TESTBOT, assert_log_agrees
from tests.support.sandbox_helpers import OPTIONS, opponent

STANDINS = Path(__file__).with_name("tcp_standins.py")
PROBE = "PROBE: the port"


def tcp_match(out: Path, monkeypatch: pytest.MonkeyPatch, forwarder_mode: str) -> MatchOutcome:
    """A sandboxed match: in seat 0 the probe (then the test bot) over TCP, its forwarder the
    stand-in in ``forwarder_mode``; in seat 1 the ordinary test bot."""
    monkeypatch.setattr(sandbox, "FORWARDER", (sys.executable, str(STANDINS), forwarder_mode))
    command = (sys.executable, str(STANDINS), "probe", sys.executable, str(TESTBOT), "play")
    probe = BotSpec(command, "tcp-probe", transport="tcp")
    return run_match(probe, opponent(), Rules.profile("standard"), 5, out, OPTIONS)


@pytest.mark.slow  # real sandboxes
@pytest.mark.usefixtures("sandbox_uids_free")
def test_the_bot_starts_only_once_a_slow_forwarder_listens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outcome = tcp_match(tmp_path, monkeypatch, "slow")
    said = told(outcome, 0)
    assert f"{PROBE} accepted at the bot's start" in said, said[-2000:]
    assert outcome.faults == () and outcome.forfeit is None, outcome.faults
    assert_log_agrees(outcome.log_path)


@pytest.mark.slow
@pytest.mark.usefixtures("sandbox_uids_free")
def test_a_forwarder_that_exits_is_a_fault_that_quotes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outcome = tcp_match(tmp_path, monkeypatch, "broken")
    fault = outcome.forfeit
    assert fault is not None and fault.seat == 0 and fault.kind is FaultKind.NOT_CONNECTED
    assert f"exited with code {FORWARDER_FAILED} (the TCP forwarder" in fault.reason, fault.reason
    assert "exited with code 3 before it listened on 127.0.0.1:50051" in fault.reason
    assert "its output ends: socat[2] E bind(" in fault.reason
    assert "stand-in refusal" in fault.reason
    assert PROBE not in told(outcome, 0)  # the bot never started


@pytest.mark.slow
@pytest.mark.usefixtures("sandbox_uids_free")  # the silent forwarder is gone too
def test_a_forwarder_that_never_listens_is_given_up_on_within_its_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox, "FORWARDER_WAIT", 0.5)
    outcome = tcp_match(tmp_path, monkeypatch, "silent")
    fault = outcome.forfeit
    assert fault is not None and fault.seat == 0 and fault.kind is FaultKind.NOT_CONNECTED
    assert "did not listen on 127.0.0.1:50051 within 0.5 s" in fault.reason, fault.reason
    assert "the bot was not started" in fault.reason
    assert PROBE not in told(outcome, 0)


def test_a_listening_socket_is_read_from_the_kernels_table(tmp_path: Path) -> None:
    """/proc/net/tcp's rows: a socket in state 0A (listen) on the port, not one connected from
    it or listening on another."""
    table = tmp_path / "tcp"
    header = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid\n"
    port = f"{TCP_PORT_IN_SANDBOX:04X}"
    other = f"{TCP_PORT_IN_SANDBOX + 1:04X}"
    table.write_text(
        header
        + f"   0: 0100007F:{other} 00000000:0000 0A 00000000:00000000 00:00000000 00000000 0\n"
        + f"   1: 0100007F:{port} 0100007F:9C40 01 00000000:00000000 00:00000000 00000000 0\n"
    )
    assert not listening(TCP_PORT_IN_SANDBOX, [str(table), str(tmp_path / "absent")])
    with table.open("a") as rows:
        rows.write(f"   2: 0100007F:{port} 00000000:0000 0A 00000000:00000000 00:00000000 0 0\n")
    assert listening(TCP_PORT_IN_SANDBOX, [str(table), str(tmp_path / "absent")])


def test_the_fault_reads_the_launchers_note_and_the_forwarders_last_lines(tmp_path: Path) -> None:
    output = tmp_path / "bot.log"
    assert forwarder_fault(output) is None  # no output at all
    output.write_text("warming up\n")
    assert forwarder_fault(output) is None  # no note: the bot's own exit
    output.write_text(
        "one\ntwo\x1b[31m\nthree\nfour\n"
        "ginref: the TCP forwarder (socat) exited with code 1 before it listened on "
        "127.0.0.1:50051; the bot was not started\n"
    )
    assert forwarder_fault(output) == (
        "the TCP forwarder (socat) exited with code 1 before it listened on 127.0.0.1:50051; "
        "the bot was not started; its output ends: two?[31m | three | four"
    )
