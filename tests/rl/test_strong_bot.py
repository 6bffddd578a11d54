"""The strong bot: its opponent model on small constructed situations, its answers legal on
random positions of every profile, the view it reads from the referee's request, its deadline
(a fake clock), and whole matches through the referee under ``standard`` and ``neller-eaai``."""

from __future__ import annotations

import functools
import random
import sys
from pathlib import Path

import pytest

from ginref_rl.lookahead import View
from ginref_rl.opponent_model import (
    History,
    history_of_events,
    holding_probabilities,
    meld_danger,
    meld_partners,
)
from ginref_rl.reference_bot import PLAYED
from ginref_rl.strong_bot import _parser, make_decide, tuning_of, view_of_request
from ginref_rl.strong_player import StrongView, Tuning, choose, strong_view_of
from referee.convert import EventEncoder
from referee.engine.actions import Action, Discard, DrawDiscard, DrawStock, Knock
from referee.engine.cards import mask_of
from referee.engine.errors import RulesError
from referee.engine.match import Match
from referee.engine.observation import Observation, observe
from referee.engine.outcomes import Phase
from referee.engine.rules import PROFILES, Rules
from referee.requests import SeatRequests, decision_request_pb
from sample_bots import greedy_bot
from tests.support.match_runs import assert_verified, played_match
from tests.support.scenario import cards

ROOT = Path(__file__).resolve().parents[2]


def card(text: str) -> int:
    (c,) = cards(text)
    return c


def test_history_reads_what_the_opponent_took_declined_and_discarded() -> None:
    # Upcard 7H. Seat 1 (the opponent) passes it, seat 0 takes it and throws 2C; seat 1 takes
    # 2C and throws KS; seat 0 draws blind and throws 9D; seat 1 draws blind over 9D.
    events = [
        (1, "pass", None),
        (0, "take_upcard", card("7H")),
        (0, "discard", card("2C")),
        (1, "draw_discard", card("2C")),
        (1, "discard", card("KS")),
        (0, "draw_stock", None),
        (0, "discard", card("9D")),
        (1, "draw_stock", None),
    ]
    history = history_of_events(events, opponent=1, upcard=card("7H"))
    assert history == History(
        taken=(card("2C"),), declined=(card("7H"), card("9D")), discarded=(card("KS"),)
    )
    # The seat's own moves say nothing about the opponent.
    assert history_of_events(events, opponent=0, upcard=card("7H")).taken == (card("7H"),)


def test_a_taken_card_makes_its_meld_partners_likely_and_a_declined_one_unlikely() -> None:
    unseen = cards("5H 7H 8H 9H 8C 8S 2D 3D JS QS KC AC")
    prior = holding_probabilities(unseen, 4, History())
    assert sum(prior.values()) == pytest.approx(4)
    assert len({round(p, 9) for p in prior.values()}) == 1  # nothing known: all alike
    took = holding_probabilities(unseen, 4, History(taken=(card("8D"),)))
    # 8D taken: the other eights (a set) are likelier than an unrelated card.
    assert took[card("8C")] > prior[card("8C")] > took[card("2D")]
    declined = holding_probabilities(unseen, 4, History(declined=(card("8D"),)))
    assert declined[card("8C")] < prior[card("8C")] < declined[card("2D")]
    # Run neighbours: one apart count more than two apart.
    near = holding_probabilities(unseen, 4, History(taken=(card("6H"),)))
    assert near[card("7H")] > near[card("8H")] > near[card("JS")]
    assert sum(near.values()) == pytest.approx(4)
    assert max(near.values()) <= 0.95


def test_meld_danger_needs_two_partners_held() -> None:
    assert len(meld_partners(card("7H"))) == 6  # three pairs of sevens, three runs
    assert len(meld_partners(card("AH"))) == 4  # sets, and only A23
    held = {card("8H"): 1.0, card("9H"): 1.0}
    assert meld_danger(card("7H"), held) == pytest.approx(1.0)
    assert meld_danger(card("7H"), {card("8H"): 1.0}) == 0.0
    assert meld_danger(card("6H"), held) == 0.0
    half = {card("7C"): 0.5, card("7D"): 0.5}
    assert meld_danger(card("7H"), half) == pytest.approx(0.25)


def test_with_the_model_it_keeps_the_card_the_opponent_would_meld() -> None:
    # Two melds and five loose cards: 9S, 9D, KC, QD, 4D. KC and QD leave the same deadwood,
    # and without the model it throws QD, as greedy does. The opponent took QH and QS from the
    # pile: QD would give it a set of queens, so with the model's danger weighed (the default
    # tuning) it throws KC instead.
    hand = cards("AC 2C 3C 5H 6H 7H 9S 9D KC QD 4D")
    legal: tuple[Action, ...] = tuple(Discard(c) for c in hand)
    known = cards("QH QS")
    seen = View(Phase.DISCARD, mask_of(hand), (), mask_of(known), legal)
    view = StrongView(seen, 10, History(taken=known), 20)
    unmodelled = Tuning(danger_weight=0.0, weighted_stock=False)
    assert choose(view, unmodelled) == Discard(card("QD"))
    assert choose(view) == Discard(card("KC"))
    assert choose(view, Tuning(danger_weight=6.0, weighted_stock=False)) == Discard(card("KC"))


def test_it_takes_the_upcard_that_melds_and_leaves_one_that_does_not() -> None:
    hand = mask_of(cards("AC 2C 5H 6H 9S TS KD QC 4D 8C"))
    for top, wanted in (("7H", DrawDiscard()), ("JH", DrawStock())):
        legal: tuple[Action, ...] = (DrawStock(), DrawDiscard())
        view = StrongView(View(Phase.DRAW, hand, cards(top), 0, legal), 10, History(), 20)
        assert choose(view) == wanted


def test_it_plays_for_gin_until_the_stock_runs_low() -> None:
    # Three melds and 4D 2D: discarding 4D (a knock) leaves 2 deadwood. With 20 cards in the
    # stock it plays on (it discards 4D); with one it knocks; gin it takes at once.
    hand = cards("AC 2C 3C 5H 6H 7H 9S TS JS 4D 2D")
    legal: tuple[Action, ...] = tuple(Discard(c) for c in hand) + tuple(Knock(c) for c in hand)
    legal = tuple(a for a in legal if not isinstance(a, Knock) or a.card in cards("4D 2D"))

    def view(stock: int) -> StrongView:
        return StrongView(View(Phase.DISCARD, mask_of(hand), (), 0, legal), 10, History(), stock)

    assert choose(view(20)) == Discard(card("4D"))
    assert choose(view(1)) == Knock(card("4D"))
    assert choose(view(20), Tuning(hold_low=-1)) == Knock(card("4D"))
    gin = cards("AC 2C 3C 5H 6H 7H 9S TS JS 8S 2D")
    gin_legal: tuple[Action, ...] = (Discard(card("2D")), Knock(card("2D")))
    at_gin = StrongView(View(Phase.DISCARD, mask_of(gin), (), 0, gin_legal), 10, History(), 20)
    assert choose(at_gin) == Knock(card("2D"))


@functools.cache
def positions() -> list[Observation]:
    """Decisions with a choice in the first two hands of random matches of every profile (half
    random moves, half the greedy bot's)."""
    out = []
    for k, name in enumerate(PROFILES):
        try:
            rules = Rules.profile(name)
        except RulesError:
            continue
        for seed in range(3):
            rng = random.Random(seed)
            m = Match(rules, 10 * k + seed)
            while m.to_act is not None and len(m.hand_results) < 2:
                obs = observe(m, m.to_act)
                if m.phase in PLAYED and len(obs.legal_actions) > 1:
                    out.append(obs)
                m.apply(rng.choice(obs.legal_actions) if rng.random() < 0.5 else choose_obs(obs))
    return out


def choose_obs(obs: Observation) -> Action:
    if obs.phase in PLAYED:
        return choose(strong_view_of(obs))
    return obs.legal_actions[0]


def test_answers_are_legal_on_random_positions_of_every_profile() -> None:
    for obs in positions():
        assert choose(strong_view_of(obs)) in obs.legal_actions, obs
    assert len(positions()) > 500


def test_the_request_gives_the_engines_view() -> None:
    for obs in positions()[::3]:
        message = SeatRequests(obs.seat, obs.rules).request(obs, 1, 1000, 1000, 0)
        assert view_of_request(message.decision_request) == strong_view_of(obs)


class FakeClock:
    """A clock that moves ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_past_its_deadline_it_answers_the_first_discard_it_weighed() -> None:
    """With the deadline passed at once it weighs one discard, the greedy bot's."""
    checked = 0
    for obs in positions():
        kinds = {a.kind for a in obs.legal_actions}
        if obs.phase is not Phase.DISCARD or kinds & {"knock", "big_gin"}:
            continue
        late = choose(strong_view_of(obs), deadline=0.0, clock=FakeClock(1.0))
        request = decision_request_pb(obs, EventEncoder(obs.seat), 1, 1000, 1000, 0)
        greedy = greedy_bot.decide(request.decision_request)
        assert late == Discard(cards(greedy.discard.card)[0])
        checked += 1
    assert checked > 100


def test_the_bot_answers_within_a_quarter_of_the_move_time() -> None:
    # The clock moves 4 ms a read: with 8 ms of move time the budget (2 ms) is spent at the
    # first read, so the bot answers after weighing one discard, the greedy bot's.
    obs = next(
        o
        for o in positions()
        if o.phase is Phase.DISCARD and not {a.kind for a in o.legal_actions} & {"knock"}
    )
    request = decision_request_pb(obs, EventEncoder(obs.seat), 1, 1000, 8, 0).decision_request
    assert make_decide(budget_ms=1e6, clock=FakeClock(0.004))(request) == greedy_bot.decide(request)
    for o in positions()[::11]:
        r = decision_request_pb(o, EventEncoder(o.seat), 1, 1000, 1000, 0).decision_request
        assert make_decide(clock=FakeClock(0.001))(r) in r.legal_actions


def test_the_command_line_gives_the_tuning() -> None:
    assert tuning_of(_parser().parse_args([])) == Tuning()
    switched = tuning_of(_parser().parse_args(["--danger-weight", "0", "--no-model-stock"]))
    assert switched == Tuning(danger_weight=0.0, weighted_stock=False)
    assert tuning_of(_parser().parse_args(["--danger-weight", "6"])).danger_weight == 6.0
    assert tuning_of(_parser().parse_args(["--always-knock"])).hold_low == -1


@pytest.mark.slow
@pytest.mark.parametrize("profile", ["standard", "neller-eaai"])
def test_the_strong_bot_plays_whole_matches_through_the_referee(
    tmp_path: Path, profile: str
) -> None:
    strong = f"{sys.executable} -m ginref_rl.strong_bot"
    reference = f"{sys.executable} -m ginref_rl.reference_bot"
    args = [strong, reference, "-p", profile, "--seed", "5"]
    log, said = played_match(args, tmp_path, timeout=600)
    assert "target reached" in said, said
    assert_verified(log)
