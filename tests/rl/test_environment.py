"""The two-player PettingZoo environment: PettingZoo's own API and seed tests in every profile,
the observation layout on a scripted deal, the fast view against the engine's one view function,
rewards, seeding and refusals (three players and partnerships: test_players.py)."""

from __future__ import annotations

import random
import warnings
from collections import Counter

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from ginref_rl import actions as A
from ginref_rl import encoding as E
from ginref_rl.environment import GinRummyEnv, env
from referee.engine.actions import Discard, DrawDiscard, DrawStock, Knock, Pass
from referee.engine.errors import RulesError
from referee.engine.match import Match
from referee.engine.observation import observe
from referee.engine.outcomes import HandOutcome, Phase
from referee.engine.rules import PROFILES, Rules
from tests.engine.test_examples import E16_O_CAN_KNOCK, E16_P
from tests.support.scenario import card, cards, deck, match, play

# PettingZoo warns about these for any environment that is not one of its own classic games,
# although its classic games observe the same way ({"observation", "action_mask"}).
EXPECTED_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
}


def api_test_warnings(e: GinRummyEnv) -> set[str]:
    """Run PettingZoo's api_test (it raises on a failure); the other warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(e, num_cycles=400)
    return {str(w.message) for w in caught} - EXPECTED_WARNINGS


@pytest.mark.parametrize("profile", list(PROFILES))
def test_pettingzoo_api_test_passes_in_every_profile(profile: str) -> None:
    assert api_test_warnings(env(profile)) == set()


@pytest.mark.parametrize("profile", ["standard", "openspiel"])
def test_pettingzoo_api_test_passes_with_the_dict_form(profile: str) -> None:
    assert api_test_warnings(env(profile, observation_form="dict", reward="match")) == set()


@pytest.mark.parametrize("profile", ["oklahoma", "rlcard"])
def test_pettingzoo_seed_test_same_seed_same_play(profile: str) -> None:
    seed_test(lambda: env(profile), num_cycles=300)


def test_reset_with_a_seed_deals_as_the_engine_match_with_that_seed() -> None:
    e = env("pagat")
    e.reset(seed=1234)
    match = Match(Rules.profile("pagat"), 1234)
    seat = match.to_act
    assert seat is not None and e.agent_selection == f"player_{seat}"
    hand = np.flatnonzero(e.observe(e.agent_selection)["observation"][E.HAND : E.HAND + 52])
    assert tuple(hand) == observe(match, seat).hand
    first = e.match_seed
    e.reset()
    second = e.match_seed
    e.reset(seed=1234)
    e.reset()
    assert (first, e.match_seed) == (1234, second)  # the unseeded resets follow the seed


def scripted(form: str = "array") -> GinRummyEnv:
    """Seat 0 deals (seat 1 is offered the upcard first) from a deck written out below."""
    e = env("standard", observation_form=form)
    order = deck(
        non_dealer="AC 2C 3C 5D 6D 7D KH KS QH 9S",
        dealer="4H 4S 4D 8C 9C TC JD JS 2H 3S",
        upcard="KD",
        stock="5H 8D",
    )
    e.reset(seed=5, options={"decks": [order], "first_dealer": 0})
    return e


def test_the_array_layout_on_a_scripted_hand() -> None:
    e = scripted()
    assert e.agent_selection == "player_1"
    first = e.observe("player_1")
    a = first["observation"]
    assert a.shape == (E.SIZE,) and a.dtype == np.float32
    assert set(np.flatnonzero(a[E.HAND : E.HAND + 52])) == set(
        cards("AC 2C 3C 5D 6D 7D KH KS QH 9S")
    )
    assert a[E.TOP + card("KD")] == 1.0 and a[E.PILE + card("KD")] == pytest.approx(1 / 52)
    assert a[E.PHASE + E.PHASES.index(Phase.UPCARD_OFFER)] == 1.0
    assert a[E.STOCK] == pytest.approx(31 / 31)
    assert a[E.DEALER] == 0.0 and a[E.KNOCK_LIMIT] == pytest.approx(1.0)
    assert set(np.flatnonzero(first["action_mask"])) == {A.DRAW_DISCARD, A.PASS}
    # The dealer's view: its own cards, its seat dealt; nothing of the other hand.
    dealer = e.observe("player_0")["observation"]
    assert set(np.flatnonzero(dealer[:52])) == set(cards("4H 4S 4D 8C 9C TC JD JS 2H 3S"))
    assert dealer[E.DEALER] == 1.0 and not e.observe("player_0")["action_mask"].any()

    e.step(A.DRAW_DISCARD)  # the non-dealer takes KD: it is known, and it may not go back (R4.3)
    after = e.observe("player_1")
    a = after["observation"]
    assert a[E.TAKEN + card("KD")] == 1.0 and a[E.HAND + card("KD")] == 1.0
    assert not a[E.PILE : E.PILE + 52].any() and not a[E.TOP : E.TOP + 52].any()
    assert not after["action_mask"][A.DISCARD + card("KD")]
    assert after["action_mask"][A.DISCARD + card("9S")]
    seen_by_dealer = e.observe("player_0")["observation"]
    assert seen_by_dealer[E.OPPONENT_KNOWN + card("KD")] == 1.0

    e.step(A.DISCARD + card("9S"))
    e.step(A.PASS if e.observe("player_0")["action_mask"][A.PASS] else A.DRAW_STOCK)
    a = e.observe("player_0")["observation"]
    assert a[E.PILE + card("9S")] > 0  # the pile in order: 9S on top of nothing else
    assert a[E.HAND + card("5H")] == 1.0  # the dealer drew 5H, the first stock card


def test_the_dict_form_holds_the_same_facts() -> None:
    e = scripted("dict")
    e.step(A.DRAW_DISCARD)
    e.step(A.DISCARD + card("9S"))
    d = e.observe("player_0")["observation"]
    assert e.observation_space("player_0")["observation"].contains(d)
    assert d["discard_pile"][0] == card("9S") and d["discard_pile"][1] == -1
    assert d["opponent_known"][card("KD")] == 1 and d["hand"].sum() == 10
    assert d["phase"] == E.PHASES.index(Phase.DRAW) and d["stock_size"] == 31
    assert d["taken"] == -1 and d["dealer"] == 1 and list(d["scores"]) == [0, 0]


def test_a_step_the_mask_forbids_raises_and_changes_nothing() -> None:
    e = scripted()
    before = e._started().fingerprint()
    with pytest.raises(ValueError, match=r"action 104 \(draw stock\) is not legal now"):
        e.step(A.DRAW_STOCK)  # the upcard offer: take it or pass (R3.1)
    with pytest.raises(ValueError, match="not an action"):
        e.step(500)
    assert e._started().fingerprint() == before


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="reward = 'points'"):
        GinRummyEnv("standard", reward="points")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="observation_form"):
        GinRummyEnv("standard", observation_form="tensor")  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="unknown profile"):
        GinRummyEnv("standrd")
    with pytest.raises(RuntimeError, match="reset"):
        GinRummyEnv("standard").observe("player_0")


def play_out(e: GinRummyEnv, seed: int, policy_seed: int = 0) -> dict[str, float]:
    """Play a whole match with random legal actions; each agent's total reward."""
    rng = random.Random(policy_seed)
    e.reset(seed=seed)
    total: Counter[str] = Counter()
    for agent in e.agent_iter():
        observation, reward, terminated, truncated, _ = e.last()
        total[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        knocks = [i for i in legal if A.KNOCK <= i < A.DRAW_STOCK]
        e.step(int(knocks[0]) if knocks else int(rng.choice(list(legal))))
    return dict(total)


def test_hand_rewards_are_each_hands_points_zero_sum() -> None:
    e = env("standard", reward="hand")
    totals = play_out(e, seed=3)
    match = e._started()
    assert match.result is not None
    expected = [0, 0]
    for r in match.hand_results:
        if r.winner is not None:
            expected[r.winner] += r.points
            expected[1 - r.winner] -= r.points
    assert [totals["player_0"], totals["player_1"]] == expected
    assert any(r.outcome is not HandOutcome.DEAD for r in match.hand_results)


def test_match_reward_is_one_to_the_winner_and_payoff_follows_the_profile() -> None:
    e = env("pagat", reward="match")
    totals = play_out(e, seed=4)
    result = e._started().result
    assert result is not None and result.winner is not None
    assert totals[f"player_{result.winner}"] == 1.0
    assert totals[f"player_{1 - result.winner}"] == -1.0
    e = env("openspiel", reward="payoff")
    totals = play_out(e, seed=5)
    (hand,) = e._started().hand_results
    assert [totals["player_0"], totals["player_1"]] == list(hand.payoffs)
    assert totals["player_0"] == -totals["player_1"]  # the openspiel profile is zero-sum


# Variants whose effects the view must follow: a take that binds to knock (R4.3 allowed_gra,
# R7.3, R7.4), force_gin (R5.1), the declared defence, the choice of the first dealer.
VARIANTS: tuple[dict[str, object], ...] = (
    {},
    {"discard_taken_card": "allowed_gra"},
    {"wall_rule": "fiftieth_card_pagat"},
    {"wall_rule": "fiftieth_card_gamecolony", "knock_limit": 10},
    {"defender_play": "declared", "first_dealer": "cut_high_chooses"},
    {"force_gin": "on"},
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


def test_the_fast_view_is_the_engine_view_in_every_position() -> None:
    """What the environment encodes (array_in, legal_mask; seen_in for the dict form) is the
    encoding of the engine's view, seen_of(observe()), for both seats."""
    reached: Counter[str] = Counter()
    for k, rules in enumerate(rule_sets()):
        rng = random.Random(k)
        for seed in (k, k + 100):
            match = Match(rules, seed)
            while match.result is None and len(match.hand_results) < 1:
                legal = match.legal_actions()
                for seat in (0, 1):
                    seen = E.seen_of(observe(match, seat))
                    own = A.indices_of(legal) if match.to_act == seat else ()
                    fast = E.seen_in(match, seat, own)
                    assert fast == seen, (rules, seed, seat)
                    assert np.array_equal(E.array_in(match, seat), E.encode_array(seen))
                    reached["taken"] += fast.taken is not None
                mask = np.frombuffer(A.legal_mask(match), np.int8)
                assert np.array_equal(mask, E.action_mask(A.indices_of(legal)))
                # Seldom a knock, so that hands reach the wall (R7.3) and bind takes to knocks.
                knocks = [a for a in legal if isinstance(a, Knock)]
                others = [a for a in legal if not isinstance(a, Knock)]
                if knocks and (not others or rng.random() < 0.05):
                    match.apply(rng.choice(knocks))
                else:
                    match.apply(rng.choice(others))
    assert reached["taken"] > 50, reached


@pytest.mark.parametrize(
    "overrides",
    [
        {"discard_taken_card": "allowed_gra"},
        {"discard_taken_card": "allowed_gra", "force_gin": "on"},
    ],
)
def test_a_take_bound_to_a_knock_is_seen_as_must_knock(overrides: dict[str, object]) -> None:
    """E16 (R4.3 allowed_gra): the first discarder takes its card back, so it must knock."""
    m = match("standard", deck(E16_O_CAN_KNOCK, E16_P, "2H", "KD"), **overrides)
    play(m, Pass(), Pass(), DrawStock(), Discard(card("6H")), DrawDiscard())
    play(m, Discard(card("6H")), DrawDiscard())
    seat = m.to_act
    assert seat is not None
    fast = E.seen_in(m, seat, A.indices_of(m.legal_actions()))
    assert fast == E.seen_of(observe(m, seat))
    assert fast.must_knock and fast.taken == card("6H")
    assert E.encode_array(fast)[E.MUST_KNOCK] == 1.0


def test_ansi_render_shows_the_agent_to_act_and_its_view() -> None:
    e = env("standard", render_mode="ansi")
    order = deck(
        non_dealer="AC 2C 3C 5D 6D 7D KH KS QH 9S",
        dealer="4H 4S 4D 8C 9C TC JD JS 2H 3S",
        upcard="KD",
    )
    e.reset(seed=1, options={"decks": [order], "first_dealer": 0})
    text = e.render()
    assert text == (
        "player_1 upcard_offer: hand AC 2C 3C 5D 6D 7D QH KH 9S KS; top KD; stock 31; scores 0-0"
    )
    assert env("standard").render() is None
    with pytest.raises(ValueError, match="render_mode"):
        env("standard", render_mode="human")
