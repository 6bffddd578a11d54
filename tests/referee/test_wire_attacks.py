"""Attacks below gRPC, by a bot on its own seat's socket (tests/support/h2_attacker.py): HTTP/2
floods while its opponent thinks, and a stream it never reads.

A sandboxed seat's socket is its relay's (referee/relay.py), in the bot's CPU group: a flood
costs the bot that sends it, and the relay gives the seat up and names the flood, which the
referee charges as a PROTOCOL_ERROR. A bot is frozen between its turns unless bots may ponder:
so the flood comes in its own turn, or, with pondering, while its opponent thinks through the
whole flood (it answers nothing until the match ends, with a minute to do it in). Either way
the opponent must not be charged for anything. Judged from the referee's outcome and log.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from referee.bots.sandbox import SandboxSettings
from referee.bots.spec import BotSpec
from referee.engine.rules import Rules
from referee.faults import FaultKind
from referee.results import MatchOutcome
from referee.series import run_match
from referee.settings import RefereeOptions
from tests.support.referee_helpers import ROOT, bot, of_type
from tests.support.sandbox_helpers import OPTIONS

pytestmark = pytest.mark.slow  # sandboxed matches of real bot processes

ATTACKER = ROOT / "tests" / "support" / "h2_attacker.py"
# Far more than the flood needs to be found (a fraction of a second of the relay's CPU).
THINKING = replace(OPTIONS, move_time=60.0, bank=0.0)


def attacker(mode: str, when: str = "start") -> BotSpec:
    return BotSpec((sys.executable, str(ATTACKER), mode, when), f"h2-{mode}")


def outputs(folder: Path) -> dict[int, str]:
    return {int(p.name.split(".seat")[1][0]): p.read_text() for p in folder.glob("*.seat*.log")}


@pytest.mark.parametrize("ponder", [False, True], ids=["own-turn", "pondering"])
@pytest.mark.parametrize("mode", ["reset", "window", "ping", "settings", "priority"])
def test_a_flood_on_the_seats_socket_is_charged_to_its_sender_alone(
    tmp_path: Path, mode: str, ponder: bool
) -> None:
    if ponder:
        # The opponent's second decision is the one it thinks through until the match ends.
        flooder, opponent = attacker(mode), bot("wait", 2)
    else:
        flooder, opponent = attacker(mode, "turn"), bot()
    options = replace(THINKING, ponder=ponder)
    outcome = run_match(flooder, opponent, Rules.profile("standard"), 5, tmp_path, options)
    forfeit = outcome.forfeit
    assert forfeit is not None and forfeit.seat == 0, outcome.faults
    assert forfeit.kind is FaultKind.PROTOCOL_ERROR, forfeit
    assert "HTTP/2 flood" in forfeit.reason, forfeit.reason
    assert [f.seat for f in outcome.faults] == [0]
    assert outcome.result.winner == 1
    assert "decisions " in outputs(tmp_path)[1]  # it read on to the end of its stream


def staller(tmp_path: Path, options: RefereeOptions) -> MatchOutcome:
    quick = replace(options, move_time=1.0, bank=0.0)
    return run_match(attacker("stall"), bot(), Rules.profile("standard"), 5, tmp_path, quick)


@pytest.mark.parametrize("sandboxed", [True, False], ids=["relay", "unsandboxed"])
def test_a_bot_that_never_reads_is_charged_its_own_time(tmp_path: Path, sandboxed: bool) -> None:
    """It says Hello with a receive window of 64 bytes and never opens it further: the
    referee's writes to it wait at its end, never in the referee, and its clock runs from when
    its side had its request, so it misses its deadline like any bot that does not answer."""
    options = OPTIONS if sandboxed else replace(OPTIONS, sandbox=SandboxSettings(mode="none"))
    outcome = staller(tmp_path, options)
    forfeit = outcome.forfeit
    assert forfeit is not None and forfeit.seat == 0, outcome.faults
    assert forfeit.kind is FaultKind.DEADLINE_MISSED, forfeit
    assert forfeit.think_ms is not None and forfeit.think_ms >= 1000.0
    assert [f.seat for f in outcome.faults] == [0]
    # The match went on to its end: the other bot was told it won.
    assert of_type(outcome.log_path, "match_result")[0]["winner"] == 1
