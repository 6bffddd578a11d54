"""The hostile-bot suite: bots that misbehave on purpose, each a real process.

Every case plays one match between a hostile test bot (tests/support/testbot.py, one mode per
misbehaviour) and the well-behaved one, and checks, with the helpers of
tests/hostile_helpers.py: the outcome the fault policy says, the log naming the fault and the
rule, the opponent unharmed, and that no process, file descriptor or thread is left behind.
The faults that tests/referee/test_faults.py already covers one by one (a wrong token, a second
connection, a second answer, an unknown request id, a malformed card, an action without kind,
an illegal draw, a missed deadline, an exhausted bank, a crash, an exit at once, a bot that
never connects, children left behind, a bot ignoring SIGTERM) are not repeated here; they play,
with the new ones, in :func:`test_a_tournament_of_hostile_bots_goes_on`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ginref.cli import main
from referee.bots.limits import KIB, MIB, Limits
from referee.engine.rules import Rules
from referee.faults import FaultKind
from referee.series import run_match
from tests.support.hostile_helpers import (
    PIDFILE_ENV,
    Resources,
    Sent,
    assert_forfeit_by_policy,
    assert_nothing_left,
    assert_opponent_untouched,
    told,
)
from tests.support.referee_helpers import FAST, TESTBOT, alive, assert_log_agrees, bot, of_type
from tests.support.uids import HOSTILE_TESTS, own_uids
from tournaments.journal.store import open_journal
from tournaments.results.standings import load_standings

pytestmark = pytest.mark.slow  # hostile bots as real processes

# The uids of the sandboxed tournament's bots: a range no other test or ginref run leases, so
# that none of its bots may be left is checked without seeing theirs.
SANDBOX = own_uids(HOSTILE_TESTS)

ILLEGAL = FaultKind.ILLEGAL_ACTION
PROTOCOL = FaultKind.PROTOCOL_ERROR
CRASHED = FaultKind.CRASHED


@dataclass(frozen=True)
class Case:
    """One hostile behaviour: the mode, where it sits, and what the policy makes of it."""

    mode: str
    kind: FaultKind | None  # None: not a fault of the seat (the match is played out)
    rule: str = "R11.5"
    reason: str = ""  # part of the recorded reason
    seat: int = 0
    arg: float | None = None
    rules: dict[str, Any] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)

    @property
    def id(self) -> str:
        """The test id."""
        return self.mode


CASES = [
    # Connection: a token reused after dropping the stream is refused; the seat has left.
    Case("reconnect", FaultKind.DISCONNECTED, arg=4),
    # Messages.
    Case("early", FaultKind.OUT_OF_TURN, reason="a reply to request 0"),
    Case("empty", PROTOCOL, reason="an empty message (no kind set)", seat=1),
    Case("garbage", PROTOCOL, reason="that is not a ginrummy.v1.BotMessage"),
    Case("oversized", PROTOCOL, reason="over the maximum message size of 65536 bytes", seat=1),
    Case("flood", FaultKind.OUT_OF_TURN, reason="a reply to request 0"),
    # Every kind of illegal action, each naming the engine's rule.
    Case("notinhand", ILLEGAL, "R4.2", "is not in your hand"),
    Case("retake", ILLEGAL, "R4.3", "was just taken from the discard pile", seat=1),
    Case(
        "wall",
        ILLEGAL,
        "R7.3",
        "the stock is down to two cards",
        rules={
            "wall_rule": "fiftieth_card_pagat",
            "knock_limit": 0,
            "dead_hand_dealer": "rotate",
        },
    ),
    Case("overlimit", ILLEGAL, "R5.3", "over the knock limit 10"),
    Case("falseknock", ILLEGAL, "R5.3", "not a meld"),
    Case(
        "layoff",
        ILLEGAL,
        "R6.2",
        "cannot all be laid off",
        rules={"defender_play": "declared"},
        arg=1,
    ),
    Case(
        "layoffgin",
        ILLEGAL,
        "R6.3",
        "no layoffs against gin",
        rules={"defender_play": "declared", "knock_limit": 0},
        arg=1,
        seat=1,
    ),
    # Resource limits: the bot is killed and the crash names the limit.
    Case("spin", CRASHED, reason="CPU time limit", limits=Limits(cpu_seconds=1.5)),
    Case("hog", CRASHED, reason="the memory limit", limits=Limits(memory_bytes=256 * MIB)),
    # Threads count: the test bot and gRPC's threads fit in 10, its twelve children do not.
    Case("fork", CRASHED, reason="the process limit", limits=Limits(processes=10), seat=1),
    Case("chatter", CRASHED, reason="output limit", limits=Limits(output_bytes=256 * KIB)),
    # A grandchild that left the bot's session and ignores SIGTERM: no fault, but it must go.
    Case("escape", None),
]


@pytest.fixture(scope="module")
def warmed_up(tmp_path_factory: pytest.TempPathFactory) -> None:
    """One ordinary match first: gRPC's first use opens descriptors and threads for good."""
    run_match(bot(), bot(), Rules.profile("standard"), 1, tmp_path_factory.mktemp("warm"), FAST)


@pytest.fixture
def clean(warmed_up: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """Mark every bot process of the test (TESTBOT_PIDFILE), and check afterwards that none is
    left and that the referee's descriptors and threads are back to what they were."""
    marker = tmp_path / "pid"
    monkeypatch.setenv(PIDFILE_ENV, str(marker))
    before = Resources.now()
    yield marker
    assert_nothing_left(before, str(marker), SANDBOX)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_a_hostile_bot_forfeits_by_policy_and_leaves_nothing(
    case: Case, tmp_path: Path, clean: Path
) -> None:
    hostile = bot(case.mode, case.arg)
    bots = (hostile, bot()) if case.seat == 0 else (bot(), hostile)
    options = replace(FAST, limits=case.limits)
    rules = Rules.profile("standard", **case.rules)
    sent = Sent()
    outcome = run_match(*bots, rules, 11, tmp_path, options, on_send=sent)
    seat = case.seat
    if case.kind is None:
        assert outcome.forfeit is None and outcome.faults == ()
        assert_log_agrees(outcome.log_path)
    else:
        assert_forfeit_by_policy(outcome, seat, case.kind, case.rule, case.reason, sent)
    assert_opponent_untouched(outcome, seat)
    text = told(outcome, seat)
    if case.mode == "reconnect":
        (rejected,) = of_type(outcome.log_path, "connection_rejected")
        assert (rejected["seat"], rejected["code"]) == (seat, "ALREADY_EXISTS")
        assert "refused as expected: ALREADY_EXISTS" in text
    if case.mode == "escape":
        line = next(x for x in text.splitlines() if x.startswith("escaped pid"))
        assert not alive(int(line.split()[-1]))  # found by its environment and killed


def test_a_message_over_the_limit_that_is_set_is_refused(tmp_path: Path, clean: Path) -> None:
    """The organiser's maximum message size holds, here 1 KiB: a 2 KB reply is refused."""
    options = replace(FAST, limits=Limits(message_bytes=1 * KIB))
    hostile = bot("oversized", 3)
    hostile = replace(hostile, command=(*hostile.command, "2000"))
    outcome = run_match(hostile, bot(), Rules.profile("standard"), 11, tmp_path, options)
    reason = "over the maximum message size of 1024 bytes"
    assert_forfeit_by_policy(outcome, 0, PROTOCOL, "R11.5", reason)
    assert_opponent_untouched(outcome, 0)


# --- a whole tournament ---------------------------------------------------------------------------

# Every hostile mode that needs no special rules or clock, and the faults each is charged with.
TOURNAMENT: dict[str, str | None] = {
    "never": "not_connected",
    "exit": "not_connected",
    "wrong_token": None,
    "twice": None,
    "reconnect": "disconnected",
    "early": "out_of_turn",
    "double": "out_of_turn",
    "badid": "out_of_turn",
    "empty": "protocol_error",
    "garbage": "protocol_error",
    "oversized": "protocol_error",
    "flood": "out_of_turn",
    "malformed": "malformed_action",
    "nokind": "malformed_action",
    "illegal": "illegal_action",
    "notinhand": "illegal_action",
    "retake": "illegal_action",
    "overlimit": "illegal_action",
    "falseknock": "illegal_action",
    "layoff": "illegal_action",
    "crash": "crashed",
    "spin": "crashed",
    "hog": "crashed",
    "fork": "crashed",
    "chatter": "crashed",
    "spawn": None,
    "escape": None,
    "stubborn": None,
}
ARGS = {"reconnect": "4", "layoff": "1"}


@pytest.fixture
def standings_loaded() -> None:
    """Import what the standings use first: numpy's and scipy's BLAS start a thread each on
    import, which are theirs, not the referee's (requested before ``clean``)."""
    import statsmodels.genmod.generalized_linear_model  # type: ignore[import-untyped]  # noqa: F401


def test_a_tournament_of_hostile_bots_goes_on(
    standings_loaded: None, tmp_path: Path, clean: Path
) -> None:
    """A gauntlet: the well-behaved bot against every hostile one, sandboxed, with the limits set
    in the file. Each hostile bot is charged with its fault, the good bot with none and wins every
    match, the journal holds every match once with intact logs, and nothing is left."""
    text = f"""
name = "hostile"
format = "gauntlet"
challengers = ["good"]
matches = 1
seed = 5
processes = "fresh"
check_bots = false  # bots that never connect are part of this field: they forfeit, play goes on
[rules.set]
defender_play = "declared"
[time]
move_time = 10.0
bank = 0.0
connect_timeout = 20.0   # far above a sandboxed bot's start on a busy machine
[faults]
exit_grace = 0.5
kill_grace = 0.5
[limits]
cpu_seconds = 1.5
memory_mb = 256
processes = 16   # bots run sandboxed: threads and bwrap count; twelve children do not fit
output_mb = 0.25
message_kb = 64

[sandbox]
uid_base = {SANDBOX.uid_base}
uid_count = {SANDBOX.uid_count}

[[bots]]
name = "good"
command = "{{python}} {TESTBOT} play"
"""
    for mode in TOURNAMENT:
        text += f'\n[[bots]]\nname = "{mode}"\n'
        text += f'command = "{{python}} {TESTBOT} {mode} {ARGS.get(mode, "")}"\n'
    file = tmp_path / "hostile.toml"
    file.write_text(text)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["tournament", str(file), "--out", str(out), "-j", "2"])
    # Complete, but two bots never connected: the run says so and exits 3.
    assert result.exit_code == 3, result.output
    assert f"Tournament complete: {len(TOURNAMENT)} of {len(TOURNAMENT)} matches" in result.output
    assert "2 matches forfeited because a bot never connected: never (1), exit (1)" in result.stderr
    journal = open_journal(out, create=False)
    try:
        records = journal.records()
        schedule = journal.schedule()
    finally:
        journal.close()
    assert sorted(r.key for r in records) == sorted(s.key for s in schedule)
    for record in records:
        log = out / record.log_path
        assert hashlib.sha256(log.read_bytes()).hexdigest() == record.log_sha256
        assert_log_agrees(log)
        hostile = next(name for name in record.seats if name != "good")
        expected = TOURNAMENT[hostile]
        seat = record.seat_of(hostile)
        if expected is None:
            assert record.forfeit is None and not record.faults, (hostile, record.faults)
        else:
            assert record.forfeit is not None, hostile
            assert (record.forfeit.seat, record.forfeit.kind) == (seat, expected), hostile
            assert [f.seat for f in record.faults] == [seat], (hostile, record.faults)
        if expected is not None:
            assert record.winner_bot == "good", hostile
    by = {s.name: s for s in load_standings(out).bots}
    good = by["good"]
    assert good.fault_total == 0 and good.forfeits == 0
    charged = [kind for kind in TOURNAMENT.values() if kind is not None]
    assert sum(s.fault_total for s in by.values()) == len(charged)
    assert good.wins >= len(charged)
