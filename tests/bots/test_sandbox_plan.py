"""The sandbox's command line (referee/bots/sandbox.py)."""

from __future__ import annotations

from pathlib import Path

from referee.bots.sandbox import TCP_PORT_IN_SANDBOX, SandboxPlan, SandboxSettings


def test_the_tcp_forwarder_listens_on_loopback_and_sends_at_once(tmp_path: Path) -> None:
    """socat forwards a bot's TCP connection to its socket. Without TCP_NODELAY, Nagle's
    algorithm holds back each small message until the previous one is acknowledged, and a
    bot that answers every request pays a delayed acknowledgement per decision."""
    plan = SandboxPlan(SandboxSettings(), 71000, tmp_path / "s.sock", str(tmp_path), [], {}, "tcp")
    argv = plan.argv(["bot"])
    script = argv[argv.index("-c") + 1]
    listen = script.split()[1]
    assert listen.startswith(f"TCP-LISTEN:{TCP_PORT_IN_SANDBOX},")
    assert {"bind=127.0.0.1", "nodelay"} <= set(listen.split(",")[1:])
    assert argv[-1] == "bot"
