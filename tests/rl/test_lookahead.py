"""The reference player: its expectation checked against a brute force, its answers legal and
the greedy bot's where it claims to play as greedy, its deadline (a fake clock), the view it
reads from the referee's request, and whole matches through the referee."""

from __future__ import annotations

import functools
import random
import sys
from itertools import combinations
from pathlib import Path

import pytest

from ginref_rl.lookahead import View, choose, expected_deadwood, view_of
from ginref_rl.reference_bot import PLAYED, make_decide, view_of_request
from referee.convert import EventEncoder, action_from_pb
from referee.engine.actions import Action, Discard, Knock
from referee.engine.cards import cards_of, mask_of
from referee.engine.errors import RulesError
from referee.engine.match import Match
from referee.engine.melds import min_deadwood
from referee.engine.observation import Observation, observe
from referee.engine.outcomes import Phase
from referee.engine.rules import PROFILES, Rules
from referee.requests import SeatRequests, decision_request_pb
from sample_bots import greedy_bot
from sample_bots.client import pb
from tests.support.match_runs import assert_verified, played_match
from tests.support.scenario import cards

ROOT = Path(__file__).resolve().parents[2]
VARIANTS: tuple[dict[str, object], ...] = (
    {},
    {"discard_taken_card": "allowed_gra", "wall_rule": "fiftieth_card_pagat"},
    {"discard_taken_card": "allowed", "wall_rule": "fiftieth_card_gamecolony"},
    {"knock_limit": 0, "big_gin_bonus": 31},
)


def greedy_answer(obs: Observation) -> Action:
    request = decision_request_pb(obs, EventEncoder(obs.seat), 1, 1000, 1000, 0)
    action = action_from_pb(greedy_bot.decide(request.decision_request), obs.hand)
    return Knock(action.card) if isinstance(action, Knock) else action


@functools.cache
def positions() -> list[Observation]:
    """Decisions with a choice in the first hand of random matches of every profile (half
    random moves, half the greedy bot's)."""
    out = []
    for k, (name, variant) in enumerate((n, v) for n in PROFILES for v in VARIANTS):
        try:
            rules = Rules.profile(name, **variant)
        except RulesError:
            continue
        rng = random.Random(k)
        m = Match(rules, k)
        while m.result is None and not m.hand_results:
            seat = m.to_act
            assert seat is not None
            obs = observe(m, seat)
            if m.phase in PLAYED and len(obs.legal_actions) > 1:
                out.append(obs)
            m.apply(rng.choice(obs.legal_actions) if rng.random() < 0.5 else greedy_answer(obs))
    return out


def test_the_expectation_is_the_mean_over_unseen_draws_of_the_best_discard() -> None:
    """Against a brute force over every 10-card subset (no deadwood_by_discard)."""
    hand = mask_of(cards("AC 2C 5H 6H 9S TS JS KD 3D 7C"))
    unseen = cards("3C 4H 7H 8S QS KS QD 2D 7S AD")
    total = 0
    for u in unseen:
        eleven = cards_of(hand | 1 << u)
        total += min(min_deadwood(mask_of(ten)) for ten in combinations(eleven, 10))
    assert expected_deadwood(hand, unseen) == pytest.approx(total / len(unseen))
    assert expected_deadwood(hand, []) == min_deadwood(hand)


def test_it_keeps_a_card_one_short_of_a_run_that_greedy_throws() -> None:
    # Two melds, then 9S TS (one card from a run), KD, QC and 4D. Throwing TS, KD or QC all
    # leave 33 deadwood; greedy breaks the tie by card index and throws TS. One card of
    # look-ahead sees that 8S or JS would meld 9S TS at once, and throws a picture card.
    hand = mask_of(cards("AC 2C 3C 5H 6H 7H 9S TS KD QC 4D"))
    legal: tuple[Action, ...] = tuple(Discard(c) for c in cards_of(hand))
    view = View(Phase.DISCARD, hand, (), 0, legal)
    (ts,) = cards("TS")
    assert greedy_bot.best_card(hand, cards_of(hand)) == ts
    assert choose(view) in (Discard(c) for c in cards("KD QC"))
    assert expected_deadwood(hand & ~(1 << ts), view.unseen) > expected_deadwood(
        hand & ~mask_of(cards("KD")), view.unseen
    )


def test_answers_are_legal_and_greedy_where_it_plays_as_greedy() -> None:
    differs = 0
    for obs in positions():
        chosen = choose(view_of(obs))
        assert chosen in obs.legal_actions, obs
        greedy = greedy_answer(obs)
        kinds = {a.kind for a in obs.legal_actions}
        if kinds & {"knock", "big_gin"} or (
            obs.phase is Phase.WALL and "declare_dead" not in kinds
        ):
            assert chosen == greedy, obs
        else:
            differs += chosen != greedy
    assert len(positions()) > 400 and differs > 10  # it is not the greedy bot


class FakeClock:
    """A clock that moves ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_past_its_deadline_it_keeps_the_best_discard_weighed_so_far() -> None:
    """With the deadline already passed it weighs only the greedy bot's discard."""
    checked = 0
    for obs in positions():
        kinds = {a.kind for a in obs.legal_actions}
        if obs.phase is not Phase.DISCARD or kinds & {"knock", "big_gin"}:
            continue
        late = choose(view_of(obs), deadline=0.0, clock=FakeClock(1.0))
        assert late == greedy_answer(obs)
        checked += 1
    assert checked > 100


def test_the_request_gives_the_engines_view() -> None:
    for obs in positions()[::3]:
        message = SeatRequests(obs.seat, obs.rules).request(obs, 1, 1000, 1000, 0)
        assert view_of_request(message.decision_request) == view_of(obs)


def test_the_bot_answers_each_request_with_a_listed_action_within_its_budget() -> None:
    decide = make_decide(budget_ms=100, clock=FakeClock(0.001))
    for obs in positions()[::7]:
        request = decision_request_pb(obs, EventEncoder(obs.seat), 1, 1000, 1000, 0)
        answer = decide(request.decision_request)
        assert answer in request.decision_request.legal_actions
        assert action_from_pb(answer, obs.hand) in obs.legal_actions or answer.knock.discard
    # A request whose move time is short caps the budget at a quarter of it: with the clock
    # past that at once, the answer is the greedy bot's discard.
    obs = next(o for o in positions() if o.phase is Phase.DISCARD and not _knocks(o))
    request = decision_request_pb(obs, EventEncoder(obs.seat), 1, 1000, 8, 0).decision_request
    late = make_decide(budget_ms=1e6, clock=FakeClock(0.004))(request)
    assert late == greedy_bot.decide(request)
    assert request.move_time_ms == 8 and isinstance(request, pb.DecisionRequest)


def _knocks(obs: Observation) -> bool:
    return any(a.kind in ("knock", "big_gin") for a in obs.legal_actions)


@pytest.mark.slow
def test_the_reference_bot_plays_whole_matches_through_the_referee(tmp_path: Path) -> None:
    reference = f"{sys.executable} -m ginref_rl.reference_bot"
    for opponent, profile in (("greedy_bot", "standard"), ("random_bot", "oklahoma")):
        out = tmp_path / opponent
        other = f"{sys.executable} -m sample_bots.{opponent}"
        args = [reference, other, "-p", profile, "--seed", "21"]
        log, said = played_match(args, out, timeout=600)
        assert "target reached" in said, said
        assert_verified(log)


def test_the_training_example_of_the_guide_runs() -> None:
    # docs/research.md shows the reference player as an in-process opponent: it must run.
    guide = (ROOT / "docs" / "research.md").read_text(encoding="utf-8")
    section = guide.split("To train against it without a referee", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, object] = {}
    exec(compile(code, "research.md", "exec"), namespace)
    e = namespace["e"]
    assert e.match.result is not None and e.agents == []  # type: ignore[attr-defined]
