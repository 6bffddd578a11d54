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
from referee.engine.observation import observe
from referee.engine.rules import PROFILES, Rules
from referee.replay_log import load_log
from referee.requests import SeatRequests
from sample_bots.client import EXIT_CONFIG, pb

ROOT = Path(__file__).resolve().parents[2]
VARIANTS: tuple[dict[str, object], ...] = (
    {},
    {"discard_taken_card": "allowed_gra", "wall_rule": "fiftieth_card_pagat"},
    {"defender_play": "declared", "first_dealer": "cut_high_chooses"},
    {"big_gin_bonus": 31, "knock_limit": 0},
)


def rule_sets() -> list[Rules]:
    out = []
    for name in PROFILES:
        for overrides in VARIANTS:
            try:
                out.append(Rules.profile(name, **overrides))
            except RulesError:
                continue
    return out


def test_the_request_gives_the_environments_arrays_and_mask_in_every_position() -> None:
    """A match played through the environment; at every decision the request the referee would
    send (its SeatRequests, as a session builds them) goes through the policy bot's path."""
    compared = 0
    for k, rules in enumerate(rule_sets()):
        rng = random.Random(k)
        e = GinRummyEnv(rules)
        e.reset(seed=k)
        match = e._started()
        requests = [SeatRequests(seat, rules) for seat in (0, 1)]
        hands = 0
        request_id = 0
        while match.result is None and not match.hand_results:
            seat = match.to_act
            assert seat is not None
            if match.hands_dealt != hands:
                hands = match.hands_dealt
                for r in requests:
                    r.new_hand()
            request_id += 1
            message = requests[seat].request(observe(match, seat), request_id, 1000, 1000, 0)
            request = message.decision_request
            expected = e.observe(f"player_{seat}")
            seen = seen_of_request(request)
            assert np.array_equal(E.encode_array(seen), expected["observation"]), rules
            assert np.array_equal(E.action_mask(seen.legal), expected["action_mask"]), rules
            compared += 1
            legal = e.legal_actions()
            # Every legal index goes back to the engine's own action through the wire.
            for index, action in legal.items():
                wire = action_of_index(index, request)
                back = action_from_pb(wire, observe(match, seat).hand)
                assert back == action or (isinstance(back, Knock) and back.card == index - 52)
            knocks = [i for i in legal if 52 <= i < 104]
            e.step(knocks[0] if knocks and rng.random() < 0.5 else rng.choice(list(legal)))
    assert compared > 250


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
    args = ["match", bot, greedy, "--seed", "11", "--set", "target=40", "--out", str(tmp_path)]
    proc = subprocess.run(
        [sys.executable, "-m", "ginref", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "forfeit" not in proc.stdout, proc.stdout
    (log,) = tmp_path.glob("*.jsonl")
    assert load_log(log).problems == []
    verify = subprocess.run(
        [sys.executable, "-m", "ginref", "verify", str(log)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr


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
