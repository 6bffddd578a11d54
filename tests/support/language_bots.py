"""The sample bots of JavaScript, C++, Go and Java as their tests start them, and what those
tests share: building them, comparing two replay logs move for move, a scripted referee, and
the reference positions of the greedy specification."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest

from referee.bots.sandbox import Transport
from referee.bots.spec import BotSpec
from referee.convert import EventEncoder, action_from_pb, rules_pb
from referee.engine.group import GroupMatch
from referee.engine.match import Match
from referee.engine.observation import observe_seat
from referee.engine.rules import Rules
from referee.requests import decision_request_pb
from referee.results import MatchOutcome
from referee.settings import RefereeOptions
from referee.wire import ginrummy_pb2 as pb
from referee.wire import ginrummy_pb2_grpc as pb_grpc
from sample_bots import greedy_bot, random_bot
from sample_bots.client import action_kind
from tests.support.progress_lines import unexpected_lines

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "sample_bots"


@dataclass(frozen=True)
class Language:
    """One language's sample bots: how to start them and the names they give in their Hello."""

    key: str
    greedy: tuple[str, ...]
    random: tuple[str, ...]
    # Debian's grpc-java cannot dial a Unix socket: it reaches the referee through the
    # sandbox's TCP forwarder.
    transport: Transport = "unix"

    @property
    def greedy_name(self) -> str:
        return f"greedy-bot-{self.key}"

    @property
    def random_name(self) -> str:
        return f"random-bot-{self.key}"


LANGUAGES: dict[str, Language] = {
    "js": Language(
        "js", ("node", str(BOTS / "js" / "greedy.js")), ("node", str(BOTS / "js" / "random.js"))
    ),
    "cpp": Language(
        "cpp", (str(BOTS / "cpp" / "out" / "greedy_bot"),), (str(BOTS / "cpp/out/random_bot"),)
    ),
    "go": Language(
        "go", (str(BOTS / "go" / "out" / "greedy_bot"),), (str(BOTS / "go/out/random_bot"),)
    ),
    "java": Language(
        "java",
        (str(BOTS / "java/out/greedy_bot"),),
        (str(BOTS / "java/out/random_bot"),),
        "tcp",
    ),
}
LANGS = list(LANGUAGES)

PY_GREEDY = BotSpec((sys.executable, "-m", "sample_bots.greedy_bot"), "greedy-py")
# A JVM can be slow to start on a loaded CI machine; nothing here is timed.
OPTIONS = RefereeOptions(connect_timeout=60.0, exit_grace=5.0, kill_grace=2.0)


@functools.cache
def _build(lang: str) -> tuple[int, str]:
    proc = subprocess.run(
        [str(BOTS / lang / "build")],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    return proc.returncode, proc.stdout + proc.stderr


def built(lang: str) -> Language:
    """The language's bots, built (a no-op when up to date); fails the test if that fails."""
    code, output = _build(lang)
    if code != 0:
        pytest.fail(f"sample_bots/{lang}/build failed with exit code {code}:\n{output}")
    return LANGUAGES[lang]


# --- Two logs of the same match -----------------------------------------------------------------


def comparable(path: Path) -> list[dict[str, Any]]:
    """A replay log's records without what may differ between equal matches.

    That is: the match id and time, the deal's salt and commitment (a fresh salt per match),
    the bots' names, commands and versions, think times and the banks they leave, how their
    processes ended, and the order of the ``connected`` records (whichever bot connects first
    is logged first); they go last, by seat.
    """
    records = []
    connected = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        kind = record["type"]
        if kind == "header":
            for key in ("match_id", "created", "bots", "deal_commitment"):
                record.pop(key, None)
        elif kind == "match_result":
            record.pop("deal_salt", None)
            record.pop("exits", None)
        elif kind == "connected":
            connected.append({"type": kind, "seat": record["seat"]})
            continue
        elif kind in ("decision", "fault"):
            record.pop("think_ms", None)
            record.pop("bank_ms", None)
        records.append(record)
    return records + sorted(connected, key=lambda r: r["seat"])


def assert_same_match(reference: MatchOutcome, port: MatchOutcome, what: str) -> None:
    """The two logs record the same match, move for move; name the first difference."""
    expected, got = comparable(reference.log_path), comparable(port.log_path)
    for index, (a, b) in enumerate(zip(expected, got, strict=False)):
        if a != b:
            pytest.fail(
                f"{what}: line {index + 1} of {port.log_path.name} differs from the reference "
                f"{reference.log_path.name}:\n  reference: {json.dumps(a)}\n  port:      "
                f"{json.dumps(b)}"
            )
    assert len(expected) == len(got), f"{what}: {len(got)} records, expected {len(expected)}"


def assert_clean(outcome: MatchOutcome) -> None:
    """No fault, no forfeit, nothing printed by any bot but its progress lines."""
    assert outcome.faults == (), outcome.faults
    assert outcome.forfeit is None
    for seat in outcome.seats:
        text = seat.output.read_text()
        assert unexpected_lines(text) == [], f"{seat.label} printed:\n{text}"


# --- Reference positions ------------------------------------------------------------------------

POSITION_VARIANTS: tuple[tuple[str, dict[str, object]], ...] = (
    ("standard", {}),
    ("standard", {"discard_taken_card": "allowed_gra", "wall_rule": "fiftieth_card_pagat"}),
    ("standard", {"wall_rule": "fiftieth_card_gamecolony", "knock_limit": 0}),
    ("standard", {"defender_play": "declared", "first_dealer": "cut_high_chooses"}),
    ("standard", {"big_gin_bonus": 31, "knock_limit": 0}),
    ("oklahoma", {}),
    ("openspiel", {}),
    ("rlcard", {"knock_limit": 0}),
    ("rlcard", {}),
)
# Three players and partnerships (§10): the same decisions, asked in hand seats that are not
# the match seats (a sitting-out dealer, a partner's table), with every seat's or team's scores.
GROUP_POSITION_VARIANTS: tuple[tuple[str, dict[str, object]], ...] = (
    ("standard", {}),
    ("pagat", {}),
    ("oklahoma", {"discard_taken_card": "allowed_gra", "wall_rule": "fiftieth_card_pagat"}),
    ("standard", {"defender_play": "declared", "knock_limit": 0}),
)
PER_CATEGORY = 40  # per variant


def category(request: pb.DecisionRequest) -> str:
    """The phase, the kinds listed and a conditional take: what a position tests."""
    kinds = sorted({action_kind(a) for a in request.legal_actions})
    must = ":must_knock" if request.observation.must_knock else ""
    return f"{pb.Phase.Name(request.observation.phase)}:{'+'.join(kinds)}{must}"


def _collect(
    variants: tuple[tuple[str, dict[str, object]], ...],
    players: int,
    new_match: Callable[[Rules, int], Match | GroupMatch],
) -> tuple[pb.DecisionRequest, ...]:
    by_category: dict[str, list[pb.DecisionRequest]] = {}
    for variant, (profile, overrides) in enumerate(variants):
        rules = Rules.profile(profile, players=players, **overrides)
        for pairing in ("greedy-random", "late-greedy"):
            for seed in range(8):
                match = new_match(rules, seed)
                rnd = random_bot.make_decide(seed)
                decisions = 0
                while match.result is None and match.hands_dealt <= 4 and decisions < 2000:
                    seat = match.to_act
                    assert seat is not None
                    obs = observe_seat(match, seat)
                    message = decision_request_pb(obs, EventEncoder(obs.seat), 1, 1000, 1000, 0)
                    request = message.decision_request
                    kept = by_category.setdefault(f"{variant} {category(request)}", [])
                    if len(kept) < PER_CATEGORY:
                        copy = pb.DecisionRequest()
                        copy.CopyFrom(request)
                        kept.append(copy)
                    if pairing == "late-greedy":
                        greedy = seat == 0 and obs.stock_size <= 6
                    else:
                        greedy = seat == 0
                    action = (greedy_bot.decide if greedy else rnd)(request)
                    match.apply(action_from_pb(action, obs.hand))
                    decisions += 1
    return tuple(r for kept in by_category.values() for r in kept)


@functools.cache
def reference_positions(players: int = 2) -> tuple[pb.DecisionRequest, ...]:
    """Real requests from engine simulations: per variant, up to PER_CATEGORY of each kind.

    Two pairings: seat 0 greedy, the others random; and seat 0 random until the stock is down
    to 6 cards and greedy after that, the others random: that one reaches the walls (§7) and
    the conditional takes, which matches between greedy bots never do. ``players`` 3 or 4: the
    same from matches of three players or partnerships.
    """
    if players == 2:
        return _collect(POSITION_VARIANTS, 2, lambda rules, seed: Match(rules, seed))
    return _collect(GROUP_POSITION_VARIANTS, players, lambda rules, seed: GroupMatch(rules, seed))


@dataclass
class ScriptedReferee(pb_grpc.RefereeServicer):
    """Plays one match made of the given requests, with one retried fault after the second.

    The MatchStart is that of the last seat of a match of ``players``: with three or four
    players that seat (2 or 3) is never a hand seat, so a bot that took it for one would fail.
    """

    requests: tuple[pb.DecisionRequest, ...]
    players: int = 2
    hellos: list[pb.Hello] = field(default_factory=list)
    sent: list[pb.DecisionRequest] = field(default_factory=list)
    replies: list[pb.ActionReply] = field(default_factory=list)

    def match_start(self) -> pb.MatchStart:
        """The MatchStart this referee sends."""
        seat = self.players - 1
        start = pb.MatchStart(
            match_id="positions",
            match_number=1,
            series_length=1,
            seat=seat,
            rules=rules_pb(Rules.profile("standard", players=self.players)),
            time_control=pb.TimeControl(move_time_ms=10_000, bank_ms=0),
            opponent_name="scripted",
        )
        if self.players > 2:
            start.players = self.players
            start.partner = -1
            start.player_names.extend(["scripted"] * (self.players - 1) + ["you"])
        if self.players == 4:
            start.team = seat % 2
            start.partner = (seat + 2) % 4
        return start

    def Play(
        self, request_iterator: Iterator[pb.BotMessage], context: grpc.ServicerContext
    ) -> Iterator[pb.RefereeMessage]:
        hello = next(request_iterator).hello
        self.hellos.append(hello)
        yield pb.RefereeMessage(
            welcome=pb.Welcome(
                protocol_version=1, referee_version="scripted", bot_name=hello.bot_name
            )
        )
        yield pb.RefereeMessage(match_start=self.match_start())
        next_id = 1
        for index, template in enumerate(self.requests):
            for attempt in range(2 if index == 1 else 1):
                if attempt:
                    yield pb.RefereeMessage(
                        fault=pb.Fault(
                            rule="R4.1",
                            message="pretend fault",
                            kind=pb.FAULT_KIND_ILLEGAL_ACTION,
                            request_id=next_id - 1,
                            retry=True,
                        )
                    )
                request = pb.DecisionRequest()
                request.CopyFrom(template)
                request.request_id = next_id
                next_id += 1
                self.sent.append(request)
                yield pb.RefereeMessage(decision_request=request)
                self.replies.append(next(request_iterator).action_reply)
        yield pb.RefereeMessage(match_end=pb.MatchEnd(match_id="positions"))
