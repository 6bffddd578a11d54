"""The sample bots in JavaScript, C++, Go and Java: the protocol is language-neutral.

Each language's folder under ``sample_bots/`` has a build script (``sample_bots/<lang>/build``,
run by ``scripts/build-bots`` before the suite) that installs its toolchain when missing,
generates code from ``proto/`` and builds a greedy bot (a port of the greedy v1 specification
in ``sample_bots/greedy_bot.py``) and a random bot. A toolchain that cannot be installed or a
build that fails makes these tests fail, never skip.

- **Parity**: under every profile and two variants, on the same seeds,
  greedy-Python against greedy-X plays move for move the same series as greedy-Python against
  greedy-Python, so the replay logs are equal up to bot names and timings. The seats rotate,
  so each port plays every seat. The same with three players and partnerships (§10), where
  each port plays hand seats that are not its match seat, sits out, and plays at both tables.
- **Reference positions**: greedy matches between greedy bots never reach the wall, a conditional
  take (``must_knock``) or the rlcard ``DeclareDead``; so a fake referee also sends each port a
  fixed set of real requests drawn from engine simulations (one or more of every kind of
  decision), of two, three and four players, and checks every answer against the Python greedy
  bot's, message for message.
- **Random bots** complete a match against greedy bots without a fault, of two, three and four
  players; with the same ``GINREF_BOT_SEED`` the four (which share the SplitMix64 generator)
  play the same match.
"""

from __future__ import annotations

import ast
import asyncio
import functools
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest

from referee.bots.spec import BotSpec
from referee.engine.outcomes import Termination
from referee.engine.rules import PROFILES, Rules
from referee.results import MatchOutcome
from referee.series import run_match, run_series, run_series_async
from referee.wire import ginrummy_pb2 as pb
from referee.wire import ginrummy_pb2_grpc as pb_grpc
from sample_bots import greedy_bot
from sample_bots.client import action_kind
from tests.support.language_bots import (
    BOTS,
    LANGS,
    LANGUAGES,
    OPTIONS,
    PY_GREEDY,
    ROOT,
    ScriptedReferee,
    assert_clean,
    assert_same_match,
    built,
    category,
    reference_positions,
)
from tests.support.referee_helpers import assert_log_agrees
from tournaments.file.config import load_file

pytestmark = pytest.mark.slow  # every language's bots as real processes


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
    # Three players (R10.1) and partnerships (R10.2), under pagat: the loser deals, cut for the
    # first deal. The greedy bot reads only its hand, so another profile's scoring adds nothing.
    "pagat-3": Rules.profile("pagat", players=3),
    "pagat-4": Rules.profile("pagat", players=4),
}
PARITY_SEEDS = (101, 102, 103, 104, 105, 106)


def parity_seeds(rules: Rules) -> tuple[int, ...]:
    """Six matches of two players; with 3 or 4, one per seat (the series moves the port on)."""
    return PARITY_SEEDS if rules.players == 2 else PARITY_SEEDS[: rules.players]


def greedy_players(port: BotSpec, players: int) -> tuple[BotSpec, ...]:
    """The port as bot 1 among Python greedy bots."""
    return (PY_GREEDY, port) + (PY_GREEDY,) * (players - 2)


@pytest.fixture(scope="module")
def reference_series(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """greedy-Python v greedy-Python on the parity seeds, per profile, played once per module."""

    @functools.cache
    def play(profile: str) -> tuple[MatchOutcome, ...]:
        out = tmp_path_factory.mktemp(f"reference-{profile}")
        rules = PARITY_RULES[profile]
        series = run_series(
            greedy_players(PY_GREEDY, rules.players), rules, parity_seeds(rules), out, OPTIONS
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
    rules = PARITY_RULES[profile]
    seeds = parity_seeds(rules)
    series = run_series(greedy_players(port, rules.players), rules, seeds, tmp_path, OPTIONS)
    reference = reference_series(profile)
    assert len(series.matches) == len(reference) == len(seeds)
    port_seats = set()
    for number, (expected, match) in enumerate(zip(reference, series.matches, strict=True)):
        port_seat = series.seats[number].index(1)
        port_seats.add(port_seat)
        assert match.seats[port_seat].name == bots.greedy_name
        assert_clean(match)
        what = f"{lang} {profile} seed {seeds[number]} (port in seat {port_seat})"
        assert_same_match(expected, match, what)
        assert_log_agrees(match.log_path)
    assert port_seats == set(range(rules.players))


# --- Reference positions through a fake referee ------------------------------------------------


def test_reference_positions_cover_every_rule_of_the_greedy_spec() -> None:
    categories = {category(r) for r in reference_positions()}
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


@pytest.mark.parametrize("players", [3, 4])
def test_group_reference_positions_are_asked_in_hand_seats(players: int) -> None:
    # What the group positions add: requests whose hand seat is not the match seat, at either
    # table, with the scores of every seat (three players) or team (partnerships).
    positions = reference_positions(players)
    seen = {(r.observation.player, r.observation.seat, r.observation.table) for r in positions}
    assert {player for player, _, _ in seen} == set(range(players))
    assert {seat for _, seat, _ in seen} == {0, 1}
    assert any(player != seat for player, seat, _ in seen)
    if players == 4:
        assert {table for _, _, table in seen} == {0, 1}
        assert all(len(r.observation.team_scores) == 2 for r in positions)
    else:
        assert {r.observation.sitting_out for r in positions} == {0, 1, 2}
        assert all(len(r.observation.player_scores) == 3 for r in positions)
    assert all(r.observation.players == players for r in positions)
    answers = {action_kind(greedy_bot.decide(r)) for r in positions}
    assert {"draw_discard", "draw_stock", "pass_offer", "discard", "knock"} <= answers


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("lang", LANGS)
def test_greedy_port_answers_reference_positions_like_the_python_greedy_bot(
    lang: str, players: int
) -> None:
    bots = built(lang)
    positions = reference_positions(players)
    referee = ScriptedReferee(positions, players)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    pb_grpc.add_RefereeServicer_to_server(referee, server)  # type: ignore[no-untyped-call]
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        env = {
            **os.environ,
            "GINREF_ADDRESS": f"127.0.0.1:{port}",
            "GINREF_TOKEN": "t0k3n",
            "GINREF_SEAT": str(players - 1),
        }
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
                f"{category(request)} hand {list(request.observation.hand)} pile "
                f"{list(request.observation.discard_pile)[-1:]}: expected "
                f"{expected} got {reply.action}".replace("\n", " ")
            )
    assert not mismatches, f"{len(mismatches)} of {len(referee.sent)} differ:\n" + "\n".join(
        mismatches[:10]
    )


# --- Random bots ----------------------------------------------------------------------------------

RANDOM_SEED = "20240607"
# (players, profile): each language's random bot in seat 0, Python greedy bots in the others.
RANDOM_MATCHES = [(2, "standard"), (3, "pagat"), (4, "pagat")]


@pytest.fixture(scope="module")
def random_matches(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Each language's random bot (GINREF_BOT_SEED set) against Python greedy bots, once."""

    @functools.cache
    def play(lang: str, players: int = 2, profile: str = "standard") -> MatchOutcome:
        bots = built(lang)
        command = ("env", f"GINREF_BOT_SEED={RANDOM_SEED}", *bots.random)
        out = tmp_path_factory.mktemp(f"random-{lang}-{players}-{profile}")
        rules = Rules.profile(profile, players=players)
        spec = BotSpec(command, f"random-{lang}", transport=LANGUAGES[lang].transport)
        lineup = (spec,) + (PY_GREEDY,) * (players - 1)
        return run_series(lineup, rules, [17], out, OPTIONS).matches[0]

    return play


@pytest.mark.parametrize(("players", "profile"), RANDOM_MATCHES)
@pytest.mark.parametrize("lang", LANGS)
def test_random_bot_completes_a_match_without_faults(
    lang: str, players: int, profile: str, random_matches: Any
) -> None:
    outcome = random_matches(lang, players, profile)
    assert_clean(outcome)
    assert outcome.result.termination is Termination.TARGET
    assert outcome.seats[0].name == LANGUAGES[lang].random_name
    assert outcome.seat_decisions[0] > 0
    assert_log_agrees(outcome.log_path)


@pytest.mark.parametrize(("players", "profile"), RANDOM_MATCHES)
def test_random_bots_share_one_generator(players: int, profile: str, random_matches: Any) -> None:
    # SplitMix64 seeded from GINREF_BOT_SEED, choice = next() mod len(legal_actions): the same
    # seed gives the same choices in every language, hence the same match.
    first, *others = LANGS
    for lang in others:
        assert_same_match(
            random_matches(first, players, profile),
            random_matches(lang, players, profile),
            f"random {lang} v {first}, {players} players, {profile}",
        )


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
    # Written for two players, it plays partnerships unchanged: every hand is a two-player hand.
    rules = Rules.profile("standard", players=4)
    lineup = (spec, PY_GREEDY, PY_GREEDY, PY_GREEDY)
    four = run_series(lineup, rules, [7], tmp_path / "four", OPTIONS).matches[0]
    assert_clean(four)
    assert four.result.termination is Termination.TARGET
    assert four.seat_decisions[0] > 0
    assert_log_agrees(four.log_path)


# --- The deal's commitment, checked in another language ------------------------------------------

CHECK_DEAL = """
const { checkDeal } = require(process.argv[1]);
const m = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const hex = (s) => Buffer.from(s, 'hex');
console.log(JSON.stringify(checkDeal(
  hex(m.commitment), m.seed, hex(m.salt), m.hands, m.seat, false, m.players, m.seatFirst)));
"""


@pytest.mark.parametrize(
    ("players", "profile", "order"),
    [
        (2, "standard", "non_dealer_first"),
        (3, "standard", "non_dealer_first"),
        (4, "standard", "non_dealer_first"),
        (2, "pagat", "seat0_first"),  # the loser deals: both seats deal some hands
    ],
)
def test_javascript_checks_the_deal_from_the_protos_fields_alone(
    players: int, profile: str, order: str, tmp_path: Path
) -> None:
    """What one seat received (MatchStart, its HandStarts, MatchEnd), as protobuf JSON, is all
    sample_bots/js/deal.js needs to check the commitment and every hand it was dealt; a seed,
    salt or card that is not the committed deal's is caught. With three or four players the
    seat's hand seat changes from hand to hand, and with three it sits out some hands. Under
    deal_order = seat0_first the check deals by seat, and the usual check would not agree."""
    seen: dict[str, Any] = {"hands": []}
    watched = players - 1

    def keep(seat: int, message: pb.RefereeMessage, hand: object) -> None:
        kind = message.WhichOneof("kind")
        if seat != watched:
            return
        if kind == "match_start":
            seen["seatFirst"] = message.match_start.rules.params["deal_order"] == "seat0_first"
            seen["commitment"] = message.match_start.deal_commitment.hex()
            seen["seat"] = message.match_start.seat
            seen["players"] = message.match_start.players
        elif kind == "hand_start":
            start = message.hand_start
            seen["hands"].append(
                {
                    "hand_number": start.hand_number,
                    "dealer": start.dealer,
                    "hand": list(start.hand),
                    "upcard": start.upcard,
                    "hand_seat": start.hand_seat,
                }
            )
        elif kind == "match_end":
            seen["seed"] = str(message.match_end.deal_seed)
            seen["salt"] = message.match_end.deal_salt.hex()

    bot = BotSpec((sys.executable, "-m", "sample_bots.random_bot"), "random-py")
    rules = Rules.profile(profile, players=players, deal_order=order)
    lineup = (PY_GREEDY,) * (players - 1) + (bot,)
    if order == "seat0_first":
        # Two seeded random bots: each loses hands, so each deals some (the loser deals).
        lineup = tuple(
            BotSpec(bot.command, f"random-{k}", env=(("GINREF_BOT_SEED", str(k)),)) for k in (1, 2)
        )
        # Random bots rarely knock: to 100 their match here is 110 hands; to 25 it is 43, and
        # the dealer changes at hand 17 (the assertion below holds it to both seats dealing).
        rules = Rules.profile(profile, players=players, deal_order=order, target=25)
    series = asyncio.run(run_series_async(lineup, rules, [99], tmp_path, OPTIONS, on_send=keep))
    assert_clean(series.matches[0])
    assert_log_agrees(series.matches[0].log_path)
    assert len(seen["hands"]) >= 2 and seen["seed"] == "99" and len(seen["commitment"]) == 64
    hand_seats = {h["hand_seat"] for h in seen["hands"]}
    if players == 3:
        assert -1 in hand_seats  # it sat out a hand
    if players > 2:
        assert hand_seats - {-1} != {watched}  # its hand seats are not its match seat

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
    dealt = [h for h in forged["hands"] if h["hand"]][-1]
    outside = next(c for c in ("AC", "2C", "3C", "4C") if c not in dealt["hand"])
    dealt["hand"][0] = outside
    assert check(forged).startswith(f"hand {dealt['hand_number']}: dealt")
    if players > 2:  # the match seat taken for the hand seat: the hands do not check out
        assert check({**seen, "players": 2}).startswith("hand ")
    if order == "seat0_first":
        assert seen["seatFirst"] and {h["dealer"] for h in seen["hands"]} == {0, 1}
        assert check({**seen, "seatFirst": False}).startswith("hand ")
