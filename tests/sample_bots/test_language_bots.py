"""The sample bots in JavaScript, C++, Go and Java: the protocol is language-neutral.

Each language's folder under ``sample_bots/`` has a build script (``sample_bots/<lang>/build``,
run by ``scripts/build-bots`` before the suite) that installs its toolchain when missing,
generates code from ``proto/`` and builds a greedy bot (a port of the greedy v1 specification
in ``sample_bots/greedy_bot.py``) and a random bot. A toolchain that cannot be installed or a
build that fails makes these tests fail, never skip.

- **Parity**: under every profile and two variants, on the same seeds,
  greedy-Python against greedy-X plays move for move the same series as greedy-Python against
  greedy-Python, so the replay logs are equal up to bot names and timings. The seats alternate,
  so each port plays both seats.
- **Reference positions**: greedy matches between greedy bots never reach the wall, a conditional
  take (``must_knock``) or the rlcard ``DeclareDead``; so a fake referee also sends each port a
  fixed set of real requests drawn from engine simulations (one or more of every kind of
  decision) and checks every answer against the Python greedy bot's, message for message.
- **Random bots** complete a match against the greedy bot without a fault; with the same
  ``GINREF_BOT_SEED`` the four (which share the SplitMix64 generator) play the same match.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest

from referee.bots.sandbox import Transport
from referee.bots.spec import BotSpec
from referee.convert import EventEncoder, action_from_pb, rules_pb
from referee.engine.match import Match
from referee.engine.observation import observe
from referee.engine.outcomes import Termination
from referee.engine.rules import PROFILES, Rules
from referee.options import RefereeOptions
from referee.requests import decision_request_pb
from referee.results import MatchOutcome
from referee.series import run_match, run_series
from referee.wire import ginrummy_pb2 as pb
from referee.wire import ginrummy_pb2_grpc as pb_grpc
from sample_bots import greedy_bot, random_bot
from sample_bots.client import action_kind
from tests.support.referee_helpers import assert_log_agrees
from tournaments.config import load_file

pytestmark = pytest.mark.slow  # every language's bots as real processes

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


# --- Launch contract ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["greedy", "random"])
@pytest.mark.parametrize("lang", LANGS)
def test_bot_without_the_launch_environment_exits_2(lang: str, kind: str) -> None:
    bots = built(lang)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GINREF_")}
    command = bots.greedy if kind == "greedy" else bots.random
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "GINREF_ADDRESS" in proc.stderr


# --- Parity: real matches against the Python greedy bot ----------------------------------------

PARITY_RULES: dict[str, Rules] = {name: Rules.profile(name) for name in PROFILES} | {
    # The choice of dealer (greedy rule 1), declared defender plays (rule 2), big gin (rule 3)
    # and the conditional take of allowed_gra (R4.3).
    "variant": Rules.profile(
        "standard",
        first_dealer="cut_high_chooses",
        defender_play="declared",
        discard_taken_card="allowed_gra",
        big_gin_bonus=31,
        wall_rule="fiftieth_card_pagat",
    ),
    # Straight gin: only gin ends a hand, so hands run longer.
    "straight": Rules.profile(
        "standard", knock_limit=0, wall_rule="fiftieth_card_gamecolony", target=50
    ),
}
PARITY_SEEDS = (101, 102, 103, 104, 105, 106)


def comparable(path: Path) -> list[dict[str, Any]]:
    """A replay log's records without what may differ between equal matches.

    That is: the match id and time, the deal's salt and commitment (a fresh salt per match),
    the bots' names, commands and versions, think times and the banks they leave, how their
    processes ended, and the order
    of the two ``connected`` records (whichever bot connects first is logged first); they go
    last, by seat.
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
    """No fault, no forfeit, nothing printed by either bot."""
    assert outcome.faults == (), outcome.faults
    assert outcome.forfeit is None
    for seat in outcome.seats:
        assert seat.output.read_text() == "", f"{seat.label} printed:\n{seat.output.read_text()}"


@pytest.fixture(scope="module")
def reference_series(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """greedy-Python v greedy-Python on the parity seeds, per profile, played once per module."""

    @functools.cache
    def play(profile: str) -> tuple[MatchOutcome, ...]:
        out = tmp_path_factory.mktemp(f"reference-{profile}")
        series = run_series(
            (PY_GREEDY, PY_GREEDY), PARITY_RULES[profile], PARITY_SEEDS, out, OPTIONS
        )
        for match in series.matches:
            assert_clean(match)
        return series.matches

    return play


@pytest.mark.parametrize("profile", list(PARITY_RULES))
@pytest.mark.parametrize("lang", LANGS)
def test_greedy_port_plays_the_same_matches_as_the_python_greedy_bot(
    lang: str, profile: str, reference_series: Any, tmp_path: Path
) -> None:
    bots = built(lang)
    port = BotSpec(bots.greedy, f"greedy-{lang}", transport=bots.transport)
    series = run_series((PY_GREEDY, port), PARITY_RULES[profile], PARITY_SEEDS, tmp_path, OPTIONS)
    reference = reference_series(profile)
    assert len(series.matches) == len(reference) == len(PARITY_SEEDS)
    for number, (expected, match) in enumerate(zip(reference, series.matches, strict=True)):
        port_seat = series.seats[number].index(1)
        assert match.seats[port_seat].name == bots.greedy_name
        assert_clean(match)
        what = f"{lang} {profile} seed {PARITY_SEEDS[number]} (port in seat {port_seat})"
        assert_same_match(expected, match, what)
        assert_log_agrees(match.log_path)


# --- Reference positions through a fake referee ------------------------------------------------

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
PER_CATEGORY = 40  # per variant


def _category(request: pb.DecisionRequest) -> str:
    kinds = sorted({action_kind(a) for a in request.legal_actions})
    must = ":must_knock" if request.observation.must_knock else ""
    return f"{pb.Phase.Name(request.observation.phase)}:{'+'.join(kinds)}{must}"


@functools.cache
def reference_positions() -> tuple[pb.DecisionRequest, ...]:
    """Real requests from engine simulations: per variant, up to PER_CATEGORY of each kind.

    Two pairings: seat 0 greedy, seat 1 random; and seat 0 random until the stock is down to 6
    cards and greedy after that, seat 1 random: that one reaches the walls (§7) and the
    conditional takes, which matches between greedy bots never do.
    """
    by_category: dict[str, list[pb.DecisionRequest]] = {}
    for variant, (profile, overrides) in enumerate(POSITION_VARIANTS):
        rules = Rules.profile(profile, **overrides)
        for pairing in ("greedy-random", "late-greedy"):
            for seed in range(8):
                match = Match(rules, seed)
                rnd = random_bot.make_decide(seed)
                decisions = 0
                while match.result is None and match.hands_dealt <= 4 and decisions < 2000:
                    seat = match.to_act
                    assert seat is not None
                    obs = observe(match, seat)
                    message = decision_request_pb(obs, EventEncoder(seat), 1, 1000, 1000, 0)
                    request = message.decision_request
                    kept = by_category.setdefault(f"{variant} {_category(request)}", [])
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


def test_reference_positions_cover_every_rule_of_the_greedy_spec() -> None:
    categories = {_category(r) for r in reference_positions()}
    answers = {
        f"{pb.Phase.Name(r.observation.phase)}:{action_kind(greedy_bot.decide(r))}"
        for r in reference_positions()
    }
    assert any("choose_deal" in c for c in categories)  # rule 1
    assert any("defender_play" in c for c in categories)  # rule 2
    assert any("big_gin" in c for c in categories)  # rule 3
    assert any(c.endswith(":must_knock") for c in categories)  # rule 4, conditional take
    assert {
        "PHASE_DISCARD:knock",  # rule 4
        "PHASE_DISCARD:discard",  # rule 5
        "PHASE_WALL:draw_discard",  # rule 6
        "PHASE_WALL:pass_offer",  # rule 6
        "PHASE_WALL:declare_dead",  # rule 7 at the rlcard wall
        "PHASE_UPCARD_OFFER:draw_discard",  # rule 7
        "PHASE_UPCARD_OFFER:pass_offer",  # rule 7
        "PHASE_DRAW:draw_discard",  # rule 7
        "PHASE_DRAW:draw_stock",  # rule 7
    } <= answers


@dataclass
class ScriptedReferee(pb_grpc.RefereeServicer):
    """Plays one match made of the given requests, with one retried fault after the second."""

    requests: tuple[pb.DecisionRequest, ...]
    hellos: list[pb.Hello] = field(default_factory=list)
    sent: list[pb.DecisionRequest] = field(default_factory=list)
    replies: list[pb.ActionReply] = field(default_factory=list)

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
        yield pb.RefereeMessage(
            match_start=pb.MatchStart(
                match_id="positions",
                match_number=1,
                series_length=1,
                seat=0,
                rules=rules_pb(Rules.profile("standard")),
                time_control=pb.TimeControl(move_time_ms=10_000, bank_ms=0),
                opponent_name="scripted",
            )
        )
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


@pytest.mark.parametrize("lang", LANGS)
def test_greedy_port_answers_reference_positions_like_the_python_greedy_bot(lang: str) -> None:
    bots = built(lang)
    positions = reference_positions()
    referee = ScriptedReferee(positions)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    pb_grpc.add_RefereeServicer_to_server(referee, server)  # type: ignore[no-untyped-call]
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        env = {**os.environ, "GINREF_ADDRESS": f"127.0.0.1:{port}", "GINREF_TOKEN": "t0k3n"}
        proc = subprocess.run(bots.greedy, env=env, capture_output=True, text=True, timeout=300)
    finally:
        server.stop(grace=None)
    assert proc.returncode == 0, proc.stderr
    assert "pretend fault" in proc.stderr  # faults are reported on stderr
    assert referee.hellos[0].bot_name == bots.greedy_name
    assert referee.hellos[0].protocol_version == 1
    assert [r.request_id for r in referee.replies] == [r.request_id for r in referee.sent]
    mismatches = []
    for request, reply in zip(referee.sent, referee.replies, strict=True):
        expected = greedy_bot.decide(request)
        if reply.action != expected:
            mismatches.append(
                f"{_category(request)} hand {list(request.observation.hand)} pile "
                f"{list(request.observation.discard_pile)[-1:]}: expected "
                f"{expected} got {reply.action}".replace("\n", " ")
            )
    assert not mismatches, f"{len(mismatches)} of {len(referee.sent)} differ:\n" + "\n".join(
        mismatches[:10]
    )


# --- Random bots ----------------------------------------------------------------------------------

RANDOM_SEED = "20240607"


@pytest.fixture(scope="module")
def random_matches(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Each language's random bot (GINREF_BOT_SEED set) against the Python greedy bot, once."""

    @functools.cache
    def play(lang: str) -> MatchOutcome:
        bots = built(lang)
        command = ("env", f"GINREF_BOT_SEED={RANDOM_SEED}", *bots.random)
        out = tmp_path_factory.mktemp(f"random-{lang}")
        rules = Rules.profile("standard")
        spec = BotSpec(command, f"random-{lang}", transport=LANGUAGES[lang].transport)
        return run_match(spec, PY_GREEDY, rules, 17, out, OPTIONS)

    return play


@pytest.mark.parametrize("lang", LANGS)
def test_random_bot_completes_a_match_without_faults(lang: str, random_matches: Any) -> None:
    outcome = random_matches(lang)
    assert_clean(outcome)
    assert outcome.result.termination is Termination.TARGET
    assert outcome.seats[0].name == LANGUAGES[lang].random_name
    assert_log_agrees(outcome.log_path)


def test_random_bots_share_one_generator(random_matches: Any) -> None:
    # SplitMix64 seeded from GINREF_BOT_SEED, choice = next() mod len(legal_actions): the same
    # seed gives the same choices in every language, hence the same match.
    first, *others = LANGS
    for lang in others:
        assert_same_match(random_matches(first), random_matches(lang), f"random {lang} v {first}")


# --- The mixed-language tournament file --------------------------------------------------------


def test_the_languages_tournament_names_every_sample_bot() -> None:
    config = load_file(ROOT / "tournaments" / "languages.toml")
    commands = {bot.name: bot for bot in config.bots}
    for kind in ("greedy", "random"):
        assert commands[f"{kind}-python"].command[1:] == ("-m", f"sample_bots.{kind}_bot")
        for lang in LANGS:
            bots = built(lang)
            entry = commands[f"{kind}-{lang}"]
            assert entry.cwd == str(ROOT)
            expected = bots.greedy if kind == "greedy" else bots.random
            # The file's paths are relative to the repository's root, where the bot starts.
            assert [str(ROOT / a) if "/" in a else a for a in entry.command] == list(expected)
    assert len(config.bots) == 10


# --- The minimal bots of docs/bots-in-any-language.md, as printed ------------------------------

GUIDE = ROOT / "docs" / "bots-in-any-language.md"
GUIDE_SECTIONS = {
    "python": "Python, from scratch",
    "js": "JavaScript (Node.js)",
    "cpp": "C++",
    "go": "Go",
    "java": "Java",
}
GUIDE_FENCES = {"python": "python", "js": "js", "cpp": "cpp", "go": "go", "java": "java"}


def guide_bot(lang: str) -> tuple[str, str, str]:
    """(file name, source, build commands) of the language's minimal bot in the guide."""
    text = GUIDE.read_text(encoding="utf-8")
    section = text.split(f"\n### {GUIDE_SECTIONS[lang]}\n", 1)[1].split("\n### ", 1)[0]
    name = re.search(r"Save it as `([^`]+)`", section)
    assert name is not None, f"no 'Save it as' in the {lang} section"
    source = section.split(f"```{GUIDE_FENCES[lang]}\n", 1)[1].split("\n```", 1)[0]
    build = section.split("```sh\n", 1)[1].split("\n```", 1)[0]
    return name.group(1), source + "\n", build + "\n"


@pytest.mark.parametrize("lang", list(GUIDE_SECTIONS))
def test_the_minimal_bot_of_the_guide_builds_and_plays(lang: str, tmp_path: Path) -> None:
    if lang in LANGUAGES:
        built(lang)  # the toolchain is there
    name, source, build = guide_bot(lang)
    work = tmp_path / "bot"
    shutil.copytree(ROOT / "proto", work / "proto")
    (work / name).write_text(source, encoding="utf-8")
    proc = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", build],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    assert proc.returncode == 0, f"the guide's build failed:\n{proc.stdout}\n{proc.stderr}"
    if lang == "python":  # it must stand alone: grpcio and the generated code, nothing of ginref
        tops = {
            alias.name.split(".")[0]
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Import)
            for alias in node.names
        } | {
            (node.module or "").split(".")[0]
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.ImportFrom)
        }
        assert tops <= {"os", "queue", "sys", "grpc", "ginrummy"}, tops
    command = ("node", str(work / name)) if lang == "js" else (str(work / "minimal_bot"),)
    transport = LANGUAGES[lang].transport if lang in LANGUAGES else "unix"
    spec = BotSpec(command, "minimal", transport=transport)
    outcome = run_match(spec, PY_GREEDY, Rules.profile("standard"), 7, tmp_path, OPTIONS)
    assert_clean(outcome)
    assert outcome.result.termination is Termination.TARGET
    assert outcome.seats[0].name == "minimal-bot"


# --- The deal's commitment, checked in another language ------------------------------------------

CHECK_DEAL = """
const { checkDeal } = require(process.argv[1]);
const m = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const hex = (s) => Buffer.from(s, 'hex');
console.log(JSON.stringify(checkDeal(
  hex(m.commitment), m.seed, hex(m.salt), m.hands, m.seat, false)));
"""


def test_javascript_checks_the_deal_from_the_protos_fields_alone(tmp_path: Path) -> None:
    """What one seat received (MatchStart, its HandStarts, MatchEnd), as protobuf JSON, is all
    sample_bots/js/deal.js needs to check the commitment and every hand it was dealt; a seed,
    salt or card that is not the committed deal's is caught."""
    seen: dict[str, Any] = {"hands": []}

    def keep(seat: int, message: pb.RefereeMessage, hand: object) -> None:
        kind = message.WhichOneof("kind")
        if seat != 1:
            return
        if kind == "match_start":
            seen["commitment"] = message.match_start.deal_commitment.hex()
            seen["seat"] = message.match_start.seat
        elif kind == "hand_start":
            start = message.hand_start
            seen["hands"].append(
                {
                    "hand_number": start.hand_number,
                    "dealer": start.dealer,
                    "hand": list(start.hand),
                    "upcard": start.upcard,
                }
            )
        elif kind == "match_end":
            seen["seed"] = str(message.match_end.deal_seed)
            seen["salt"] = message.match_end.deal_salt.hex()

    bot = BotSpec((sys.executable, "-m", "sample_bots.random_bot"), "random-py")
    rules = Rules.profile("standard")
    outcome = run_match(PY_GREEDY, bot, rules, 99, tmp_path, OPTIONS, on_send=keep)
    assert_clean(outcome)
    assert len(seen["hands"]) >= 2 and seen["seed"] == "99" and len(seen["commitment"]) == 64

    def check(record: dict[str, Any]) -> Any:
        proc = subprocess.run(
            ["node", "-e", CHECK_DEAL, str(BOTS / "js" / "deal.js")],
            input=json.dumps(record),
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        return json.loads(proc.stdout)

    assert check(seen) is None
    assert "do not open" in check({**seen, "seed": "100"})
    assert "do not open" in check({**seen, "salt": "00" * 32})
    forged = json.loads(json.dumps(seen))
    first = forged["hands"][1]["hand"]
    outside = next(c for c in ("AC", "2C", "3C", "4C") if c not in first)
    first[0] = outside
    assert check(forged).startswith("hand 2: dealt")
