"""The policy bot: the arrays and mask it builds from the referee's DecisionRequest are the
environment's for the same position; what the policy answers reaches the referee; a policy
that cannot be loaded is one line and exit 2; and a real match through the referee."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ginref_rl import encoding as E
from ginref_rl.actions import NUM_ACTIONS, index_of
from ginref_rl.environment import GinRummyEnv
from ginref_rl.policy_bot import (
    action_of_index,
    index_of_pb,
    load_policy,
    main,
    policy_decide,
    seen_of_request,
)
from referee.convert import action_from_pb
from referee.engine.actions import Knock
from referee.engine.errors import RulesError
from referee.engine.observation import observe, observe_seat
from referee.engine.rules import PROFILES, Rules
from referee.requests import SeatRequests
from sample_bots.client import EXIT_CONFIG, pb
from sample_bots.greedy_bot import decide as greedy_decide
from tests.support.match_runs import assert_verified, played_match

ROOT = Path(__file__).resolve().parents[2]
VARIANTS: tuple[dict[str, object], ...] = (
    {},
    {"discard_taken_card": "allowed_gra", "wall_rule": "fiftieth_card_pagat"},
    {"defender_play": "declared", "first_dealer": "cut_high_chooses"},
    {"big_gin_bonus": 31, "knock_limit": 0},
)


def rule_sets(players: int = 2) -> list[Rules]:
    out = []
    for name in PROFILES:
        for overrides in VARIANTS:
            try:
                out.append(Rules.profile(name, players=players, **overrides))
            except RulesError:
                continue
    return out


@pytest.mark.parametrize(("players", "hands", "least"), [(2, 2, 1000), (3, 2, 1000), (4, 3, 1000)])
def test_the_request_gives_the_environments_arrays_and_mask_in_every_position(
    players: int, hands: int, least: int
) -> None:
    """Matches played through the environment; at every decision the request the referee would
    send (its SeatRequests, as a session builds them) goes through the policy bot's path. With
    three players or partnerships the arrays are the environment's of that format (282 or 285
    floats: every seat's score, who is played against, who sits out), over several hands so
    that the scores are not all 0."""
    compared = 0
    scored = False
    for k, rules in enumerate(rule_sets(players)):
        rng = random.Random(k)
        e = GinRummyEnv(rules)
        e.reset(seed=k)
        match = e._started()
        requests = [SeatRequests(seat, rules) for seat in range(players)]
        hand_of: dict[int, tuple[int, int]] = {}
        request_id = 0
        while match.result is None and len(match.hand_results) < hands:
            seat = match.to_act
            assert seat is not None
            obs = observe_seat(match, seat)
            if hand_of.get(seat) != (obs.hand_number, obs.table):  # as the session tells it
                hand_of[seat] = (obs.hand_number, obs.table)
                requests[seat].new_hand(obs.seat if players > 2 else None)
            request_id += 1
            request = requests[seat].request(obs, request_id, 1000, 1000, 0).decision_request
            expected = e.observe(f"player_{seat}")
            seen = seen_of_request(request)
            array = E.encode_array(seen)
            assert array.shape == (E.size(players),)
            assert np.array_equal(array, expected["observation"]), rules
            assert np.array_equal(E.action_mask(seen.legal), expected["action_mask"]), rules
            scored = scored or bool(array[E.OWN_SCORE : E.OWN_SCORE + 2].any())
            compared += 1
            legal = e.legal_actions()
            # Every legal index goes back to the engine's own action through the wire.
            for index, action in legal.items():
                wire = action_of_index(index, request)
                back = action_from_pb(wire, obs.hand)
                assert back == action or (isinstance(back, Knock) and back.card == index - 52)
            # Mostly the greedy bot's answer to the same request, so that hands are won and
            # the scores move; a random legal action otherwise, for positions greedy avoids.
            if rng.random() < 0.7:
                e.step(index_of_pb(greedy_decide(request)))
            else:
                e.step(rng.choice(list(legal)))
    assert compared > least
    assert scored


def test_the_dict_form_and_the_answer() -> None:
    e = GinRummyEnv("standard", observation_form="dict")
    e.reset(seed=3)
    match = e._started()
    seat = match.to_act
    assert seat is not None
    request = (
        SeatRequests(seat, match.rules)
        .request(observe(match, seat), 1, 1000, 1000, 0)
        .decision_request
    )
    seen: list[object] = []

    def policy(observation: object, mask: np.ndarray) -> int:
        seen.append(observation)
        return int(np.flatnonzero(mask)[-1])

    answer = policy_decide(policy, "dict")(request)
    expected = e.observe(f"player_{seat}")["observation"]
    (got,) = seen
    assert isinstance(got, dict) and got.keys() == expected.keys()
    assert all(np.array_equal(got[key], expected[key]) for key in expected)
    assert answer == request.legal_actions[-1]


def test_an_index_not_listed_is_sent_as_that_action() -> None:
    request = pb.DecisionRequest(legal_actions=[pb.Action(draw_stock=pb.DrawStock())])
    assert index_of_pb(action_of_index(104, request)) == 104
    for index in (5, 60, 105, 106, 107, 108, 110, 111):
        assert index_of_pb(action_of_index(index, request)) == index
    with pytest.raises(ValueError, match="not an action"):
        action_of_index(NUM_ACTIONS, request)
    assert index_of(Knock(3)) == 55


def test_a_policy_file_loads_with_its_neighbours() -> None:
    policy = load_policy(f"{ROOT}/tests/support/policies.py:from_dict")
    assert policy.__name__ == "from_dict"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("tests.support.policies", "expected MODULE:CALLABLE"),
        ("tests.support.no_such_module:policy", "cannot import 'tests.support.no_such_module'"),
        ("tests.support.policies:missing", "has no attribute 'missing'"),
        ("tests.support.policies:NOT_CALLABLE", "'NOT_CALLABLE' is not callable"),
        ("tests/support/nothing.py:policy", "no file 'tests/support/nothing.py'"),
    ],
)
def test_a_policy_that_cannot_be_loaded_is_one_line_and_exit_2(
    spec: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ValueError, match=message):
        load_policy(spec)
    assert main([spec]) == EXIT_CONFIG
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.parametrize(
    "policy",
    [
        f"{ROOT}/tests/support/policies.py:knock_first",
        f"policies:from_dict --form dict --path {ROOT}/tests/support",
    ],
)
def test_a_policy_plays_a_whole_match_through_the_referee(policy: str, tmp_path: Path) -> None:
    """In the sandbox, as a tournament would run it: by file, and by module with --path."""
    bot = f"{sys.executable} -m ginref_rl.policy_bot {policy}"
    greedy = f"{sys.executable} -m sample_bots.greedy_bot"
    log, _ = played_match([bot, greedy, "--seed", "11", "--set", "target=40"], tmp_path)
    assert_verified(log)


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4])
def test_a_policy_plays_three_players_and_partnerships_with_their_arrays(
    players: int, tmp_path: Path
) -> None:
    """A policy that refuses any array but its format's (282 or 285 floats) plays a whole
    match through the referee, against greedy bots, without a fault."""
    (tmp_path / "policy").mkdir()  # the bot sees its policy's folder, not the logs
    policy = tmp_path / "policy" / "sized.py"
    policy.write_text(
        "import numpy as np\n"
        "def policy(observation, mask):\n"
        f"    assert observation.shape == ({E.size(players)},), observation.shape\n"
        "    legal = np.flatnonzero(mask)\n"
        "    knocks = legal[(legal >= 52) & (legal < 104)]\n"
        "    return int(knocks[0] if len(knocks) else legal[-1])\n"
    )
    bot = f"{sys.executable} -m ginref_rl.policy_bot {policy}:policy"
    greedy = f"{sys.executable} -m sample_bots.greedy_bot"
    bots = [bot, *[greedy] * (players - 1)]
    played_match([*bots, "--seed", "5", "--set", "target=30"], tmp_path / "out")


def test_the_bots_need_neither_pettingzoo_nor_gymnasium() -> None:
    """A trained policy plays with the plain install: the bots import numpy and ginref only."""
    code = (
        "import sys, ginref_rl.policy_bot, ginref_rl.reference_bot; "
        "print(sorted(m for m in ('pettingzoo', 'gymnasium') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout
    assert out.strip() == "[]"
