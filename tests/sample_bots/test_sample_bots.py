"""The sample bots: the greedy bot's decisions, the random bot, and the client helper.

Greedy positions are hand-built DecisionRequests: they double as reference positions for ports
of the greedy spec (``sample_bots/greedy_bot.py``) to other languages. Card indexes in comments
are ``suit * 13 + rank`` (C D H S = 0..3, A..K = 0..12).

The client is tested against a fake referee: a real gRPC server on an ephemeral port that plays
a short script, so no real referee is needed.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest

from referee.bots.spec import BotSpec
from referee.convert import EventEncoder, action_from_pb
from referee.engine.cards import cards_of, parse_cards
from referee.engine.match import Match
from referee.engine.melds import deadwood_by_discard
from referee.engine.observation import observe
from referee.engine.outcomes import Termination
from referee.engine.rules import PROFILES, Rules
from referee.errors import RulesError
from referee.requests import decision_request_pb
from referee.series import run_match
from referee.settings import RefereeOptions
from referee.wire import ginrummy_pb2 as pb
from referee.wire import ginrummy_pb2_grpc as pb_grpc
from sample_bots import greedy_bot, random_bot
from sample_bots.client import (
    EXIT_CONFIG,
    EXIT_ERROR,
    EXIT_OK,
    EXIT_REFUSED,
    BotConfig,
    ConfigError,
    action_kind,
    card_index,
    card_indices,
    config_from_env,
    discard_action,
    format_fault,
    hand_mask,
    knock_action,
    message_events,
    play,
    play_async,
    run_bot,
    top_discard,
    wire_card,
    wire_cards,
)
from tests.support.certs import make_certificates
from tests.support.progress_lines import unexpected_lines

ROOT = Path(__file__).resolve().parents[2]

# --- Building requests ------------------------------------------------------------------------

DRAW_STOCK = pb.Action(draw_stock=pb.DrawStock())
DRAW_DISCARD = pb.Action(draw_discard=pb.DrawDiscard())
PASS = pb.Action(pass_offer=pb.Pass())
DECLARE_DEAD = pb.Action(declare_dead=pb.DeclareDead())
BIG_GIN = pb.Action(big_gin=pb.BigGin())


def wire(text: str) -> list[str]:
    """Readable cards ("7H 10D") as canonical wire strings, in the given order."""
    return wire_cards(parse_cards(text))


def request(
    phase: int,
    hand: str,
    legal: Sequence[pb.Action],
    *,
    pile: str = "",
    must_knock: bool = False,
    barred: str = "",
    params: dict[str, str] | None = None,
) -> pb.DecisionRequest:
    """A DecisionRequest for seat 0 with the fields the sample bots read."""
    obs = pb.Observation(
        seat=0,
        phase=phase,
        to_act=0,
        hand=wire(hand),
        discard_pile=wire(pile),
        stock_size=20,
        knock_limit=10,
        must_knock=must_knock,
        barred_card=barred,
        rules=pb.Rules(profile="standard", params=params or {"discard_taken_card": "forbidden"}),
    )
    return pb.DecisionRequest(
        request_id=7, observation=obs, legal_actions=list(legal), time_left_ms=1000
    )


def discard_phase_legal(
    hand: str, *, limit: int = 10, taken: str = "", big_gin: bool = False, must_knock: bool = False
) -> list[pb.Action]:
    """The legal list of a DISCARD-phase request, in the referee's order (R4.2, R4.3, R5.3).

    Discards in card order (none under must_knock), then one Knock per discard leaving deadwood
    <= limit, then BigGin.
    """
    cards = parse_cards(hand)
    mask = hand_mask(wire_cards(cards))
    barred = set(parse_cards(taken))
    out: list[pb.Action] = []
    if not must_knock:
        out += [discard_action(c) for c in cards_of(mask) if c not in barred]
    left = deadwood_by_discard(mask)
    out += [knock_action(c) for c in sorted(left) if left[c] <= limit and c not in barred]
    if big_gin:
        out.append(BIG_GIN)
    return out


def assert_card_action(action: pb.Action, kind: str, card: str) -> None:
    assert action_kind(action) == kind, action
    got = action.discard.card if kind == "discard" else action.knock.discard
    assert got == card


# --- Greedy: knocking ---------------------------------------------------------------------------


def test_greedy_knocks_as_soon_as_it_can_tie_on_value_broken_by_card_index() -> None:
    # E1: after drawing KS the knocker holds 3S4S5S 7H7D7C 9CTCJC + TD KS. Knocking with TD or
    # with KS both leave 10 deadwood; both are worth 10, so the larger index wins: KS (51) over
    # TD (22). Discarding instead is legal but a knock comes first.
    hand = "3S 4S 5S 7H 7D 7C 9C TC JC TD KS"
    legal = discard_phase_legal(hand)
    assert {a.knock.discard for a in legal if action_kind(a) == "knock"} == {"TD", "KS"}
    action = greedy_bot.decide(request(pb.PHASE_DISCARD, hand, legal))
    assert_card_action(action, "knock", "KS")
    assert not action.knock.HasField("arrangement")  # the referee arranges (R5.4)


def test_greedy_prefers_gin_to_a_knock_with_a_higher_card() -> None:
    # 2C3C4C 5H6H7H 9S9D9C + AD + 8H: shedding AD makes 5H6H7H8H, gin; shedding 8H or 5H is a
    # knock with 1 deadwood (and 2C, 3C, 4C knocks with more). Least deadwood decides before
    # value: AD goes, gin.
    hand = "2C 3C 4C 5H 6H 7H 9S 9D 9C AD 8H"
    legal = discard_phase_legal(hand)
    knocks = {a.knock.discard for a in legal if action_kind(a) == "knock"}
    assert {"AD", "5H", "8H"} <= knocks
    action = greedy_bot.decide(request(pb.PHASE_DISCARD, hand, legal))
    assert_card_action(action, "knock", "AD")


def test_greedy_gin_ties_broken_by_value_then_index() -> None:
    # E6 without big gin: 2D3D4D5D 7C7H7S7D JSQSKS goes gin by shedding 2D, 5D or any 7.
    # Highest value first (7 > 5 > 2), then the highest index among the sevens: 7S (45).
    hand = "2D 3D 4D 5D 7C 7H 7S 7D JS QS KS"
    legal = discard_phase_legal(hand)
    left = deadwood_by_discard(hand_mask(wire(hand)))
    gins = sorted(wire_card(c) for c, dw in left.items() if dw == 0)
    assert gins == ["2D", "5D", "7C", "7D", "7H", "7S"]
    assert_card_action(greedy_bot.decide(request(pb.PHASE_DISCARD, hand, legal)), "knock", "7S")


def test_greedy_declares_big_gin_when_listed() -> None:
    # E6 with big_gin_bonus = 31: all 11 cards meld, so big gin beats every gin knock.
    hand = "2D 3D 4D 5D 7C 7H 7S 7D JS QS KS"
    legal = discard_phase_legal(hand, big_gin=True)
    action = greedy_bot.decide(request(pb.PHASE_DISCARD, hand, legal))
    assert action_kind(action) == "big_gin"
    assert not action.big_gin.HasField("arrangement")


def test_greedy_must_knock_after_a_conditional_take() -> None:
    # Wall (R7.3): the player took 8C and must knock, not discarding 8C. Holding
    # 6C7C8C 2H3H4H QDQSQH + 5S 9D: knocking with 9D leaves 5; with 5S leaves 9.
    hand = "6C 7C 8C 2H 3H 4H QD QS QH 5S 9D"
    legal = discard_phase_legal(hand, taken="8C", must_knock=True)
    assert all(action_kind(a) == "knock" for a in legal)
    req = request(pb.PHASE_DISCARD, hand, legal, must_knock=True)
    assert_card_action(greedy_bot.decide(req), "knock", "9D")


# --- Greedy: the upcard offer and the draw ------------------------------------------------------


def test_greedy_takes_an_upcard_that_lowers_its_deadwood() -> None:
    # E14: upcard 7C completes 7C7H7D; after discarding KC the hand has 5 deadwood, down from
    # 7 + 7 + 5 + 10 = 29.
    hand = "7H 7D 2S 3S 4S 9H TH JH 5D KC"
    req = request(pb.PHASE_UPCARD_OFFER, hand, [DRAW_DISCARD, PASS], pile="7C")
    assert action_kind(greedy_bot.decide(req)) == "draw_discard"


def test_greedy_passes_an_upcard_that_does_not_strictly_help() -> None:
    # QD melds with nothing: kept, the best discard (KC) leaves 7 + 7 + 5 + 10 = 29 = dw(H).
    # Equal is not better, so the bot passes.
    hand = "7H 7D 2S 3S 4S 9H TH JH 5D KC"
    req = request(pb.PHASE_UPCARD_OFFER, hand, [DRAW_DISCARD, PASS], pile="QD")
    assert action_kind(greedy_bot.decide(req)) == "pass_offer"


def test_greedy_takes_a_lower_unmatched_card_in_exchange_for_a_higher_one() -> None:
    # Taking AD and discarding KC lowers the deadwood by 9 without making a meld: that counts.
    hand = "7H 7D 2S 3S 4S 9H TH JH 5D KC"
    req = request(pb.PHASE_DRAW, hand, [DRAW_STOCK, DRAW_DISCARD], pile="7C AD")
    assert action_kind(greedy_bot.decide(req)) == "draw_discard"


def test_greedy_draws_from_the_stock_when_the_discard_does_not_help() -> None:
    hand = "7H 7D 2S 3S 4S 9H TH JH 5D KC"
    for params in ({"discard_taken_card": "forbidden"}, {"discard_taken_card": "allowed"}):
        req = request(pb.PHASE_DRAW, hand, [DRAW_STOCK, DRAW_DISCARD], pile="QD", params=params)
        assert action_kind(greedy_bot.decide(req)) == "draw_stock"


def test_greedy_draws_from_the_stock_when_taking_is_not_listed() -> None:
    # R3.4: after both passed the non-dealer must draw from the stock, even though the upcard
    # (7C) would help.
    hand = "7H 7D 2S 3S 4S 9H TH JH 5D KC"
    req = request(pb.PHASE_DRAW, hand, [DRAW_STOCK], pile="7C")
    assert action_kind(greedy_bot.decide(req)) == "draw_stock"


# --- Greedy: discarding ---------------------------------------------------------------------------


def test_greedy_discards_to_minimise_deadwood_ties_by_card_index() -> None:
    # Straight gin (L = 0) so no knock is listed. 2C3C4C 5D5H5S + KH QS KD 9D 8H: throwing any
    # of KH (38), QS (50), KD (25) leaves 37; all worth 10, so the highest index goes: QS.
    hand = "2C 3C 4C 5D 5H 5S KH QS KD 9D 8H"
    legal = discard_phase_legal(hand, limit=0)
    assert all(action_kind(a) == "discard" for a in legal)
    assert_card_action(greedy_bot.decide(request(pb.PHASE_DISCARD, hand, legal)), "discard", "QS")


def test_greedy_never_discards_the_card_it_may_not() -> None:
    # It took QS this turn (R4.3): QS is not listed, so the next best of the tie goes: KH (38).
    hand = "2C 3C 4C 5D 5H 5S KH QS KD 9D 8H"
    legal = discard_phase_legal(hand, limit=0, taken="QS")
    assert_card_action(greedy_bot.decide(request(pb.PHASE_DISCARD, hand, legal)), "discard", "KH")


def test_greedy_breaks_up_a_meld_only_when_that_pays() -> None:
    # 9C TC JC QC is a 4-run; shedding 9C keeps TC JC QC melded, and costs nothing, but the
    # unmatched KD lowers the deadwood by 10: KD goes.
    hand = "9C TC JC QC 4H 4S 4D 2S 7H 8D KD"
    legal = discard_phase_legal(hand, limit=0)
    assert_card_action(greedy_bot.decide(request(pb.PHASE_DISCARD, hand, legal)), "discard", "KD")


# --- Greedy: the wall, the defender, the deal ----------------------------------------------------


def test_greedy_at_the_wall_takes_when_it_may_and_passes_otherwise() -> None:
    hand = "7H 7D 2S 3S 4S 9H TH JH 5D KC"
    take = request(pb.PHASE_WALL, hand, [DRAW_DISCARD, PASS], pile="QD")
    # Taking is listed only when a knock with the card exists: take even though QD is useless
    # for the deadwood minimum of the current 10 (it is the referee who vouches for the knock).
    assert action_kind(greedy_bot.decide(take)) == "draw_discard"
    only_pass = request(pb.PHASE_WALL, hand, [PASS], pile="QD")
    assert action_kind(greedy_bot.decide(only_pass)) == "pass_offer"


def test_greedy_at_the_rlcard_wall_takes_only_an_improvement() -> None:
    hand = "7H 7D 2S 3S 4S 9H TH JH 5D KC"
    for phase in (pb.PHASE_WALL, pb.PHASE_DRAW):  # the proto and the engine disagree on which
        useless = request(phase, hand, [DRAW_DISCARD, DECLARE_DEAD], pile="QD")
        assert action_kind(greedy_bot.decide(useless)) == "declare_dead"
        useful = request(phase, hand, [DRAW_DISCARD, DECLARE_DEAD], pile="7C")
        assert action_kind(greedy_bot.decide(useful)) == "draw_discard"


def test_greedy_echoes_the_proposed_defender_play() -> None:
    play = pb.DefenderPlay(melds=[pb.Meld(cards=["AH", "2H", "3H"])], layoffs=["2S"])
    proposal = pb.Action(defender_play=play)
    req = request(pb.PHASE_DEFENDER, "AH 2H 3H 2S QC KD 5D 8S 8H 8D", [proposal])
    assert greedy_bot.decide(req) == proposal


def test_greedy_chooses_not_to_deal() -> None:
    deal = pb.Action(choose_deal=pb.ChooseDeal(deal=True))
    no_deal = pb.Action(choose_deal=pb.ChooseDeal(deal=False))
    req = request(pb.PHASE_CHOOSE_DEALER, "", [deal, no_deal])
    assert greedy_bot.decide(req) == no_deal


def test_greedy_falls_back_to_the_first_legal_action() -> None:
    req = request(pb.PHASE_UPCARD_OFFER, "AC 2C", [DRAW_STOCK])
    assert greedy_bot.decide(req) == DRAW_STOCK


# --- Random bot -----------------------------------------------------------------------------------


def test_random_bot_stays_in_the_legal_set_and_is_reproducible() -> None:
    hand = "3S 4S 5S 7H 7D 7C 9C TC JC TD KS"
    legal = discard_phase_legal(hand)
    req = request(pb.PHASE_DISCARD, hand, legal)
    first = random_bot.make_decide(42)
    picks = [first(req) for _ in range(200)]
    assert all(p in legal for p in picks)
    assert len({p.SerializeToString() for p in picks}) > 5  # it does not always pick one entry
    second = random_bot.make_decide(42)
    assert [second(req) for _ in range(200)] == picks


def test_random_bot_seed_from_env() -> None:
    assert random_bot.seed_from_env({}) is None
    assert random_bot.seed_from_env({"GINREF_BOT_SEED": " 17 "}) == 17
    assert random_bot.seed_from_env({"GINREF_BOT_SEED": "0x10"}) == 16
    with pytest.raises(ValueError, match="GINREF_BOT_SEED='abc'"):
        random_bot.seed_from_env({"GINREF_BOT_SEED": "abc"})


# --- Client helpers -------------------------------------------------------------------------------


def test_card_conversions_round_trip() -> None:
    assert card_index("AC") == 0
    assert card_index("TD") == 22
    assert card_index("KS") == 51
    assert wire_card(22) == "TD"
    every = [wire_card(c) for c in range(52)]
    assert card_indices(every) == list(range(52))
    assert wire_cards(card_indices(every)) == every
    assert hand_mask(["AC", "KS"]) == 1 | 1 << 51
    assert top_discard(pb.Observation(discard_pile=["AC", "7H"])) == "7H"
    assert top_discard(pb.Observation()) is None


def test_action_builders() -> None:
    assert discard_action("TD") == pb.Action(discard=pb.Discard(card="TD"))
    assert discard_action(22) == discard_action("TD")
    knock = knock_action(51, [[0, 1, 2], ["7H", "7D", "7S"]])
    assert knock.knock.discard == "KS"
    assert [list(m.cards) for m in knock.knock.arrangement.melds] == [
        ["AC", "2C", "3C"],
        ["7H", "7D", "7S"],
    ]
    assert not knock_action("KS").knock.HasField("arrangement")


def test_format_fault() -> None:
    fault = pb.Fault(
        rule="R4.3",
        message="7C was just taken",
        kind=pb.FAULT_KIND_ILLEGAL_ACTION,
        request_id=12,
        retry=True,
    )
    assert format_fault(fault) == (
        "fault ILLEGAL_ACTION (R4.3) on request 12: 7C was just taken -- a new request follows"
    )
    assert format_fault(pb.Fault(kind=pb.FAULT_KIND_DEADLINE_MISSED)).endswith(
        "the match is forfeited"
    )


def test_config_from_env() -> None:
    cfg = config_from_env(
        {"GINREF_ADDRESS": "127.0.0.1:5000", "GINREF_TOKEN": "t", "GINREF_SEAT": "1"}
    )
    assert cfg == BotConfig("127.0.0.1:5000", "t", 1)
    assert config_from_env({"GINREF_ADDRESS": "h:1", "GINREF_TOKEN": "t"}).seat is None
    with pytest.raises(ConfigError, match="GINREF_ADDRESS and GINREF_TOKEN not set"):
        config_from_env({})
    with pytest.raises(ConfigError, match="GINREF_TOKEN not set"):
        config_from_env({"GINREF_ADDRESS": "h:1", "GINREF_TOKEN": "  "})
    env = {"GINREF_ADDRESS": "h:1", "GINREF_TOKEN": "t"}
    assert config_from_env({**env, "GINREF_SEAT": "3"}).seat == 3  # four players (§10)
    with pytest.raises(ConfigError, match="GINREF_SEAT='4'"):
        config_from_env({**env, "GINREF_SEAT": "4"})


PEM_CA = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
PEM_KEY = "-----BEGIN PRIVATE KEY-----\nMIGH\n-----END PRIVATE KEY-----\n"
HOSTED = {"GINREF_ADDRESS": "referee.example.org:50051", "GINREF_TOKEN": "entry-token"}


def test_config_from_env_tls_and_streams() -> None:
    plain = config_from_env(HOSTED)
    assert plain == BotConfig("referee.example.org:50051", "entry-token")
    assert (plain.ca_cert, plain.client_cert, plain.server_name, plain.matches) == (
        None,
        None,
        None,
        1,
    )
    assert plain.credentials() is None  # plain text, as the referee's own launches use
    full = config_from_env(
        {
            **HOSTED,
            "GINREF_CA_CERT": " ca.pem ",
            "GINREF_CLIENT_CERT": "bot.pem",
            "GINREF_CLIENT_KEY": "bot.key",
            "GINREF_SERVER_NAME": "referee",
            "GINREF_MATCHES": "3",
        }
    )
    assert full == BotConfig(
        "referee.example.org:50051",
        "entry-token",
        None,
        "ca.pem",
        "bot.pem",
        "bot.key",
        "referee",
        3,
    )
    assert config_from_env({**HOSTED, "GINREF_MATCHES": "64"}).matches == 64
    assert config_from_env({**HOSTED, "GINREF_MATCHES": " "}).matches == 1
    assert config_from_env({**HOSTED, "GINREF_CA_CERT": ""}).ca_cert is None


PAIR = "GINREF_CLIENT_CERT and GINREF_CLIENT_KEY go together: set both or neither"


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({"GINREF_CA_CERT": "ca.pem", "GINREF_CLIENT_CERT": "bot.pem"}, PAIR),
        ({"GINREF_CA_CERT": "ca.pem", "GINREF_CLIENT_KEY": "bot.key"}, PAIR),
        (
            {"GINREF_CLIENT_CERT": "bot.pem", "GINREF_CLIENT_KEY": "bot.key"},
            "GINREF_CLIENT_CERT needs GINREF_CA_CERT: a client certificate is for TLS",
        ),
        *(
            ({"GINREF_MATCHES": text}, f'GINREF_MATCHES="{text}": expected a whole number, 1 to 64')
            for text in ("0", "65", "two", "-1", "+2", "1.5", "\u00b2")
        ),
    ],
)
def test_config_from_env_refuses_a_malformed_hosted_environment(
    variables: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_env({**HOSTED, **variables})
    assert str(caught.value) == message


def test_tls_files_are_read_when_the_channel_is_made_and_must_be_pem(tmp_path: Path) -> None:
    ca, key, text = tmp_path / "ca.pem", tmp_path / "bot.key", tmp_path / "notes.txt"
    ca.write_text(PEM_CA)
    key.write_text(PEM_KEY)
    text.write_text("not a certificate\n")
    missing = tmp_path / "missing.pem"
    good = {"GINREF_CA_CERT": str(ca), "GINREF_CLIENT_CERT": str(ca), "GINREF_CLIENT_KEY": str(key)}
    assert isinstance(config_from_env({**HOSTED, **good}).credentials(), grpc.ChannelCredentials)
    cases = [
        (
            {"GINREF_CA_CERT": str(missing)},
            f'cannot read GINREF_CA_CERT "{missing}": No such file or directory',
        ),
        ({"GINREF_CA_CERT": str(text)}, f'GINREF_CA_CERT "{text}" is not a PEM certificate'),
        (
            {**good, "GINREF_CLIENT_CERT": str(key)},
            f'GINREF_CLIENT_CERT "{key}" is not a PEM certificate',
        ),
        (
            {**good, "GINREF_CLIENT_KEY": str(ca)},
            f'GINREF_CLIENT_KEY "{ca}" is not a PEM private key',
        ),
    ]
    for variables, message in cases:
        config = config_from_env({**HOSTED, **variables})  # only paths are checked here
        with pytest.raises(ConfigError) as caught:
            config.credentials()
        assert str(caught.value) == message


def test_run_bot_says_which_tls_file_is_wrong_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for name, value in HOSTED.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("GINREF_CA_CERT", str(tmp_path / "ca.pem"))
    assert run_bot(greedy_bot.decide, "g") == EXIT_CONFIG
    err = capsys.readouterr().err
    assert (
        err == f'g: cannot read GINREF_CA_CERT "{tmp_path / "ca.pem"}": No such file or directory\n'
    )


def test_run_bot_over_tls_reports_a_failed_connection_at_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # A plain-text bot waits for the referee that started it to listen (connect_timeout); over
    # TLS the referee is a hosted one, already up, so a refused connection or handshake is
    # reported at once, with its status, not after the wait. Nothing listens on port 1.
    certs = make_certificates(tmp_path)
    config = BotConfig("127.0.0.1:1", TOKEN, ca_cert=str(certs.ca))
    code = run_bot(greedy_bot.decide, "g", config=config, connect_timeout=60.0)
    assert code == EXIT_ERROR
    assert "g: the referee ended the stream: UNAVAILABLE: " in capsys.readouterr().err


def test_run_bot_without_environment_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("GINREF_ADDRESS", "GINREF_TOKEN", "GINREF_SEAT"):
        monkeypatch.delenv(name, raising=False)
    assert run_bot(greedy_bot.decide, "greedy-bot") == EXIT_CONFIG
    err = capsys.readouterr().err
    assert err.startswith("greedy-bot: GINREF_ADDRESS and GINREF_TOKEN not set")


@pytest.mark.slow
@pytest.mark.parametrize("module", ["sample_bots.random_bot", "sample_bots.greedy_bot"])
def test_bot_process_without_environment_exits_2(module: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GINREF_")}
    proc = subprocess.run(
        [sys.executable, "-m", module], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == EXIT_CONFIG
    assert "GINREF_ADDRESS and GINREF_TOKEN not set" in proc.stderr


# --- Client against a fake referee -------------------------------------------------------------

TOKEN = "seat-0-secret"


@dataclass
class FakeReferee(pb_grpc.RefereeServicer):
    """Plays a fixed script: Welcome, then per match MatchStart, requests, MatchEnd."""

    requests: list[pb.DecisionRequest]
    matches: int = 1
    fault_first: bool = False  # answer the first reply with a retryable Fault and ask again
    hellos: list[pb.Hello] = field(default_factory=list)
    replies: list[pb.ActionReply] = field(default_factory=list)
    half_closed: bool = False
    expect_half_close_after: int = 0  # the match after which the bot should half-close
    events: bool = False  # before request k, an Event (discard of card k+2 of clubs); in it, a pass

    def Play(self, request_iterator: Iterator[pb.BotMessage], context: Any) -> Iterator[Any]:
        first = next(request_iterator)
        self.hellos.append(first.hello)
        if first.hello.token != TOKEN:
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown token")
        yield pb.RefereeMessage(welcome=pb.Welcome(protocol_version=1, bot_name="x"))
        next_id = 1
        for number in range(1, self.matches + 1):
            yield pb.RefereeMessage(
                match_start=pb.MatchStart(match_id=f"m{number}", match_number=number, seat=0)
            )
            for index, template in enumerate(self.requests):
                req = pb.DecisionRequest()
                req.CopyFrom(template)
                req.request_id = next_id
                next_id += 1
                if self.events:
                    discard = pb.DiscardEvent(card=f"{index + 2}C")
                    yield pb.RefereeMessage(event=pb.GameEvent(seat=1, discard=discard))
                    req.new_events.append(pb.GameEvent(seat=1, pass_offer=pb.PassEvent()))
                yield pb.RefereeMessage(decision_request=req)
                self.replies.append(next(request_iterator).action_reply)
                if self.fault_first and number == 1 and index == 0:
                    yield pb.RefereeMessage(
                        fault=pb.Fault(
                            rule="R4.1",
                            message="pretend fault",
                            kind=pb.FAULT_KIND_ILLEGAL_ACTION,
                            request_id=req.request_id,
                            retry=True,
                        )
                    )
                    req.request_id = next_id
                    next_id += 1
                    yield pb.RefereeMessage(decision_request=req)
                    self.replies.append(next(request_iterator).action_reply)
            yield pb.RefereeMessage(match_end=pb.MatchEnd(match_id=f"m{number}"))
            if number == self.expect_half_close_after:
                # A bot that wants no further match half-closes after a MatchEnd.
                self.half_closed = next(request_iterator, None) is None
                return


@pytest.fixture
def fake_referee() -> Iterator[tuple[FakeReferee, str]]:
    hand = "7H 7D 2S 3S 4S 9H TH JH 5D KC"
    referee = FakeReferee(
        requests=[
            request(pb.PHASE_UPCARD_OFFER, hand, [DRAW_DISCARD, PASS], pile="7C"),
            request(pb.PHASE_DRAW, hand, [DRAW_STOCK, DRAW_DISCARD], pile="QD"),
        ]
    )
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    pb_grpc.add_RefereeServicer_to_server(referee, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield referee, f"127.0.0.1:{port}"
    finally:
        server.stop(grace=None)


def test_run_bot_plays_the_stream_and_reports_faults(
    fake_referee: tuple[FakeReferee, str], capsys: pytest.CaptureFixture[str]
) -> None:
    referee, address = fake_referee
    referee.fault_first = True
    code = run_bot(greedy_bot.decide, "greedy-bot", "9.9", config=BotConfig(address, TOKEN))
    assert code == EXIT_OK
    assert referee.hellos == [
        pb.Hello(token=TOKEN, bot_name="greedy-bot", bot_version="9.9", protocol_version=1)
    ]
    assert [r.request_id for r in referee.replies] == [1, 2, 3]
    assert [action_kind(r.action) for r in referee.replies] == [
        "draw_discard",
        "draw_discard",
        "draw_stock",
    ]
    err = capsys.readouterr().err
    assert "greedy-bot: fault ILLEGAL_ACTION (R4.1) on request 1: pretend fault" in err


def test_play_and_play_async_answer_alike_over_their_own_channels(
    fake_referee: tuple[FakeReferee, str], capsys: pytest.CaptureFixture[str]
) -> None:
    # run_bot plays over a grpc.aio channel (play_async); play, for a grpc.Channel a bot opened
    # itself, is the same loop with grpc's own threads.
    referee, address = fake_referee
    referee.fault_first = True
    hello = pb.Hello(token=TOKEN, bot_name="g", protocol_version=1)
    with grpc.insecure_channel(address) as channel:
        assert play(channel, greedy_bot.decide, hello) == EXIT_OK
    by_play = list(referee.replies)

    async def aio() -> int:
        async with grpc.aio.insecure_channel(address) as channel:
            return await play_async(channel, greedy_bot.decide, hello)

    assert asyncio.run(aio()) == EXIT_OK
    assert referee.hellos == [hello, hello]
    assert len(by_play) == 3
    assert referee.replies == by_play + by_play
    err = capsys.readouterr().err
    assert err.count("g: fault ILLEGAL_ACTION (R4.1) on request 1: pretend fault") == 2


def test_run_bot_sees_every_message_and_stays_for_a_series(
    fake_referee: tuple[FakeReferee, str],
) -> None:
    referee, address = fake_referee
    referee.matches = 3
    seen: list[str] = []
    code = run_bot(
        greedy_bot.decide,
        "greedy-bot",
        config=BotConfig(address, TOKEN),
        on_message=lambda m: seen.append(m.WhichOneof("kind") or ""),
    )
    assert code == EXIT_OK
    assert seen.count("match_end") == 3
    assert seen[:2] == ["welcome", "match_start"]
    assert len(referee.replies) == 6


def test_message_events_yields_each_event_once_whichever_way_it_came(
    fake_referee: tuple[FakeReferee, str],
) -> None:
    referee, address = fake_referee
    referee.events = True
    events: list[pb.GameEvent] = []
    code = run_bot(
        greedy_bot.decide,
        "greedy-bot",
        config=BotConfig(address, TOKEN),
        on_message=lambda m: events.extend(message_events(m)),
    )
    assert code == EXIT_OK
    assert [(e.WhichOneof("kind"), e.discard.card) for e in events] == [
        ("discard", "2C"),
        ("pass_offer", ""),
        ("discard", "3C"),
        ("pass_offer", ""),
    ]
    assert message_events(pb.RefereeMessage(hand_end=pb.HandEnd())) == ()


def test_run_bot_half_closes_after_max_matches(fake_referee: tuple[FakeReferee, str]) -> None:
    referee, address = fake_referee
    referee.matches = 3
    referee.expect_half_close_after = 1
    code = run_bot(greedy_bot.decide, "g", config=BotConfig(address, TOKEN), max_matches=1)
    assert code == EXIT_OK
    assert referee.half_closed
    assert len(referee.replies) == 2


def test_run_bot_reports_a_refused_token(
    fake_referee: tuple[FakeReferee, str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, address = fake_referee
    code = run_bot(greedy_bot.decide, "g", config=BotConfig(address, "wrong"))
    assert code == EXIT_REFUSED  # not 1: connecting again would be refused again
    assert capsys.readouterr().err == "g: refused by the referee: UNAUTHENTICATED: unknown token\n"


def test_run_bot_reports_an_unreachable_referee(capsys: pytest.CaptureFixture[str]) -> None:
    code = run_bot(
        greedy_bot.decide, "g", config=BotConfig("127.0.0.1:1", TOKEN), connect_timeout=0.5
    )
    assert code == EXIT_ERROR
    assert "g: no answer from the referee within 0.5 s" in capsys.readouterr().err


def test_run_bot_leaves_when_decide_raises(
    fake_referee: tuple[FakeReferee, str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, address = fake_referee

    def broken(request: pb.DecisionRequest) -> pb.Action:
        raise RuntimeError("boom")

    assert run_bot(broken, "b", config=BotConfig(address, TOKEN)) == EXIT_ERROR
    err = capsys.readouterr().err
    assert "b: the bot raised an exception" in err
    assert "RuntimeError: boom" in err


@pytest.mark.slow
@pytest.mark.parametrize("module", ["sample_bots.random_bot", "sample_bots.greedy_bot"])
def test_bot_process_plays_against_the_fake_referee(
    fake_referee: tuple[FakeReferee, str], module: str
) -> None:
    referee, address = fake_referee
    env = {
        **os.environ,
        "GINREF_ADDRESS": address,
        "GINREF_TOKEN": TOKEN,
        "GINREF_SEAT": "0",
        "GINREF_BOT_SEED": "5",
    }
    proc = subprocess.run(
        [sys.executable, "-m", module],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == EXIT_OK, proc.stderr
    assert unexpected_lines(proc.stderr) == []
    assert len(referee.replies) == 2
    for reply, req in zip(referee.replies, referee.requests, strict=True):
        assert reply.action in req.legal_actions


@pytest.mark.slow
def test_the_minimal_bot_of_the_guide_plays(
    fake_referee: tuple[FakeReferee, str], tmp_path: Path
) -> None:
    # docs/writing-a-bot.md shows a complete bot; it must run as printed.
    guide = (ROOT / "docs" / "writing-a-bot.md").read_text(encoding="utf-8")
    code = guide.split("```python\n", 1)[1].split("```", 1)[0]
    script = tmp_path / "minimal_bot.py"
    script.write_text(code, encoding="utf-8")
    referee, address = fake_referee
    env = {**os.environ, "GINREF_ADDRESS": address, "GINREF_TOKEN": TOKEN}
    proc = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == EXIT_OK, proc.stderr
    assert referee.hellos[0].bot_name == "minimal-bot"
    assert [action_kind(r.action) for r in referee.replies] == ["pass_offer", "draw_stock"]


# --- The sample bots on real positions: engine -> wire request -> bot -> engine -----------------

SIM_VARIANTS: tuple[dict[str, object], ...] = (
    {},
    {"discard_taken_card": "allowed_gra", "wall_rule": "fiftieth_card_pagat"},
    {"wall_rule": "fiftieth_card_gamecolony", "knock_limit": 0},
    {"defender_play": "declared", "first_dealer": "cut_high_chooses"},
    {"big_gin_bonus": 31, "knock_limit": 0},
)


def _sim_rules() -> list[tuple[str, Rules]]:
    out = []
    for profile in PROFILES:
        for variant in SIM_VARIANTS:
            try:
                rules = Rules.profile(profile, **variant)
            except RulesError:
                continue  # e.g. a wall variant on a profile that cannot have it
            out.append((f"{profile}{variant or ''}", rules))
    # The rlcard wall (R7.5) is reached only in long hands: straight gin makes them long.
    out.append(("rlcard{knock_limit: 0}", Rules.profile("rlcard", knock_limit=0)))
    return out


@pytest.mark.slow
def test_bots_answer_every_real_request_legally() -> None:
    # Greedy against a seeded random bot and against itself, under every profile and the
    # variants that open the less common phases; every answer must be an entry of the request's
    # legal list and accepted by the engine. Greedy ends hands long before the stock runs low,
    # so in a third pairing seat 0 plays randomly until the stock is down to 6 cards and
    # greedily after that: that is how the greedy bot reaches the wall (§7). The phases and kinds
    # of the greedy bot's answers are collected, so the test fails if it stops reaching one.
    seen: set[str] = set()
    for label, rules in _sim_rules():
        for pairing in ("greedy-random", "greedy-greedy", "late-greedy"):
            for seed in range(3):
                match = Match(rules, seed)
                rnd = random_bot.make_decide(seed)
                decisions = 0
                while match.result is None and match.hands_dealt <= 4 and decisions < 2000:
                    seat = match.to_act
                    assert seat is not None
                    obs = observe(match, seat)
                    req = decision_request_pb(
                        obs, EventEncoder(seat), decisions + 1, 1000, 1000, 0
                    ).decision_request
                    if pairing == "late-greedy":
                        greedy = seat == 0 and obs.stock_size <= 6
                    else:
                        greedy = seat == 0 or pairing == "greedy-greedy"
                    action = (greedy_bot.decide if greedy else rnd)(req)
                    assert action in req.legal_actions, (label, seed, req, action)
                    if greedy:
                        seen.add(f"{pb.Phase.Name(req.observation.phase)}:{action_kind(action)}")
                        if req.observation.must_knock:
                            seen.add("must_knock")
                    match.apply(action_from_pb(action, obs.hand))
                    decisions += 1
    expected = {
        "PHASE_CHOOSE_DEALER:choose_deal",
        "PHASE_UPCARD_OFFER:draw_discard",
        "PHASE_UPCARD_OFFER:pass_offer",
        "PHASE_DRAW:draw_stock",
        "PHASE_DRAW:draw_discard",
        "PHASE_DISCARD:discard",
        "PHASE_DISCARD:knock",
        "PHASE_DISCARD:big_gin",
        "PHASE_WALL:draw_discard",
        "PHASE_WALL:pass_offer",
        "PHASE_WALL:declare_dead",
        "PHASE_DEFENDER:defender_play",
        "must_knock",
    }
    assert expected <= seen, expected - seen


@pytest.mark.slow
def test_greedy_beats_random_in_a_real_match(tmp_path: Path) -> None:
    # End to end: the referee launches both bots as processes (python -m ...), referees a full
    # match over gRPC, and the match ends at the target with no fault.
    python = sys.executable
    greedy = BotSpec((python, "-m", "sample_bots.greedy_bot"), "greedy")
    rnd = BotSpec(("env", "GINREF_BOT_SEED=3", python, "-m", "sample_bots.random_bot"), "random")
    options = RefereeOptions(connect_timeout=30.0, exit_grace=2.0, kill_grace=1.0)
    outcome = run_match(greedy, rnd, Rules.profile("standard"), 5, tmp_path, options)
    assert outcome.faults == ()
    assert outcome.forfeit is None
    assert outcome.result.termination is Termination.TARGET
    assert outcome.result.winner == 0  # greedy, seat 0
    assert [s.name for s in outcome.seats] == ["greedy-bot", "random-bot"]
    for seat in outcome.seats:
        # No fault or error printed by either bot: its progress lines alone.
        assert unexpected_lines(seat.output.read_text()) == []
