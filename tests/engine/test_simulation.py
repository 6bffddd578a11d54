"""Random simulation: thousands of complete hands, invariants checked at every step.

Every profile of docs/rules.md §12.2 is played alone and with each variant override below. Two
policies share the work: ``uniform`` picks a legal action uniformly (most such hands run into the
wall of §7), and ``eager`` knocks whenever it may and otherwise usually draws and discards to
lower its deadwood (so hands are scored and matches reach their target). Every match has its own
fixed-seed RNG, seeded like the match, so a reported failure replays exactly. A broken invariant
is recorded with the seed and the step, the match is abandoned, and the run goes on, so one bug
does not hide another.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from referee.engine.actions import (
    Action,
    BigGin,
    DefenderPlay,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
)
from referee.engine.cards import cards_of, mask_of
from referee.engine.hand import Hand
from referee.engine.match import Match
from referee.engine.melds import (
    best_arrangement,
    deadwood_by_discard,
    min_deadwood,
    min_deadwood_after_discard,
)
from referee.engine.outcomes import HandOutcome, HandResult, Phase, Termination
from referee.engine.rules import PROFILES, Rules
from referee.errors import RulesError

pytestmark = pytest.mark.slow  # thousands of random hands under every profile

FULL = (1 << 52) - 1
HANDS_PER_PROFILE = 1500  # x 7 profiles: 10,500 complete hands
MAX_HANDS_PER_MATCH = 15  # uniform players rarely reach a target: cut their matches short
VARIANTS: tuple[dict[str, object], ...] = (
    {},
    {"discard_taken_card": "allowed_gra"},
    {"wall_rule": "fiftieth_card_pagat"},
    {"wall_rule": "fiftieth_card_gamecolony"},
    {"defender_play": "declared"},
    {"big_gin_bonus": 31},
    {"hollywood": "on"},
    {"first_dealer": "cut_high_chooses"},
    {"knock_limit": 0},
)


def is_meld(cards: tuple[int, ...]) -> bool:
    """R1.4 set or R1.5 run (ace low)."""
    ranks = sorted(c % 13 for c in cards)
    if len(cards) < 3 or len(set(cards)) != len(cards):
        return False
    if len(set(ranks)) == 1:
        return len(cards) <= 4
    return len({c // 13 for c in cards}) == 1 and ranks == list(range(ranks[0], ranks[-1] + 1))


class Broken(AssertionError):
    """An invariant failed."""


def check(condition: bool, message: str) -> None:
    if not condition:
        raise Broken(message)


@dataclass
class Run:
    """Counters and failures of one profile's simulation."""

    hands: int = 0
    matches: int = 0
    finished: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


# --- Policies -----------------------------------------------------------------------------------

Policy = Callable[[Match, list[Action], random.Random], Action]


def uniform(match: Match, actions: list[Action], rng: random.Random) -> Action:
    return rng.choice(actions)


def eager(match: Match, actions: list[Action], rng: random.Random) -> Action:
    seat = match.to_act
    h = match.hand
    if match.phase is Phase.DRAW and DrawDiscard() in actions and seat is not None:
        # Take the discard when it lowers the best deadwood reachable this turn.
        hand = h.held(seat)
        if min_deadwood_after_discard(hand | 1 << h.pile[-1]) < min_deadwood(hand):
            return DrawDiscard()
    if match.phase is Phase.DISCARD and seat is not None:
        gins = [a for a in actions if isinstance(a, BigGin)]
        dw = deadwood_by_discard(h.held(seat))
        knocks = [a for a in actions if isinstance(a, Knock)]
        gins += [a for a in knocks if dw[a.card] == 0]
        if gins:
            return rng.choice(gins)
        if knocks and rng.random() < 0.7:
            return rng.choice(knocks)
        discards = [a for a in actions if isinstance(a, Discard)]
        if discards and rng.random() < 0.8:
            low = min(dw[a.card] for a in discards)
            return rng.choice([a for a in discards if dw[a.card] == low])
    if match.phase is Phase.DEFENDER and rng.random() < 0.5 and seat is not None:
        # defender_play = declared: any valid declaration is legal; this one lays nothing off.
        own = best_arrangement(h.held(seat))
        return DefenderPlay(tuple(m.cards for m in own.melds), ())
    return rng.choice(actions)


POLICIES: tuple[Policy, ...] = (uniform, eager)


# --- Invariants ---------------------------------------------------------------------------------


def check_step(match: Match, rules: Rules) -> None:
    """Invariants of every state: cards, phase, legal actions, hand sizes, stock."""
    actions = match.legal_actions()
    check(bool(actions) == (match.result is None), f"legal actions {actions} in {match.phase}")
    h = match.hand
    if h is None:
        check(match.phase is Phase.CHOOSE_DEALER, "no hand dealt outside the dealer choice")
        return
    parts = [h.held(0), h.held(1), *(1 << c for c in h.pile), *(1 << c for c in h.stock)]
    if h.knock_discard is not None:
        parts.append(1 << h.knock_discard)
    union = 0
    for p in parts:
        union |= p
    count = sum(p.bit_count() for p in parts)
    check(count == 52 and union == FULL, f"{count} cards, missing {cards_of(FULL & ~union)}")
    check(h.stock_size >= 2, f"stock of {h.stock_size} (R7.2)")
    if h.stock_size <= 2:
        check(DrawStock() not in actions, "a draw is offered from a 2-card stock (R4.4)")
    if match.result is not None or match.phase is Phase.CHOOSE_DEALER:
        return
    seat = match.to_act
    assert seat is not None
    size = h.held(seat).bit_count()
    if match.phase is Phase.DISCARD:
        check(size == 11, f"{size} cards in hand in the discard phase")
    else:
        check(size == 10, f"{size} cards in hand in phase {match.phase}")
    check(h.held(1 - seat).bit_count() in (10, 11), "opponent holds neither 10 nor 11 cards")


def check_result(r: HandResult, hand: Hand, rules: Rules) -> None:
    """R8: the hand's outcome, winner and points agree with K, D and the parameters."""
    k, d = r.knocker_deadwood, r.defender_deadwood
    mult = 2 if r.doubled else 1
    spade_up = hand.upcard is not None and hand.upcard // 13 == 3
    check(r.doubled == (rules.spade_double and spade_up and r.winner is not None), "doubling")
    if r.outcome in (HandOutcome.DEAD, HandOutcome.PUSH):
        check(r.points == 0 and r.winner is None, f"{r.outcome}: {r.points} points to {r.winner}")
        if r.outcome is HandOutcome.PUSH:
            check(not rules.undercut_on_tie and k == d and k is not None, "push without a tie")
        return
    check(r.knocker is not None and k is not None and d is not None, "showdown data missing")
    assert r.knocker is not None and k is not None and d is not None
    defender = 1 - r.knocker
    arrangement = r.knocker_arrangement
    assert arrangement is not None and r.defender is not None
    check(all(is_meld(m.cards) for m in arrangement.melds), "knocker shows an invalid meld")
    check(arrangement.deadwood_count == k, "K is not the shown deadwood")
    check(k <= hand.knock_limit, f"K = {k} over the knock limit {hand.knock_limit}")
    check(r.defender.deadwood_count == d, "D is not the defender's deadwood")
    final_defender = mask_of(r.final_hands[defender])
    if rules.defender_play == "auto_optimal":
        check(d <= min_deadwood(final_defender), "optimal defence worse than no layoffs")
    if r.outcome in (HandOutcome.GIN, HandOutcome.BIG_GIN):
        check(k == 0 and r.winner == r.knocker, "gin: K > 0 or wrong winner")
        check(not r.defender.layoffs, "layoffs against gin (R6.3a)")
        if rules.defender_play != "declared":
            check(d == min_deadwood(final_defender), "gin: D is not the defender's dw*")
        bonus = rules.gin_bonus if r.outcome is HandOutcome.GIN else rules.big_gin_bonus
        assert bonus is not None
        check(r.points == (bonus + d) * mult, f"gin: {r.points} != ({bonus} + {d}) x {mult}")
        size = 11 if r.outcome is HandOutcome.BIG_GIN else 10
        check(len(r.final_hands[r.knocker]) == size, "gin: knocker's hand size")
    elif r.outcome is HandOutcome.KNOCK:
        check(0 < k < d and r.winner == r.knocker, f"knock: K = {k}, D = {d}")
        check(r.points == (d - k) * mult and r.points > 0, f"knock: {r.points} != {d} - {k}")
    elif r.outcome is HandOutcome.UNDERCUT:
        check(k > 0 and r.winner == defender, "undercut: K = 0 or wrong winner")
        check(d < k or (d == k and rules.undercut_on_tie), f"undercut with K = {k}, D = {d}")
        check(
            r.points == (rules.undercut_bonus + k - d) * mult,
            f"undercut: {r.points} != ({rules.undercut_bonus} + {k} - {d}) x {mult}",
        )
    if rules.payoff == "points":
        check(r.payoffs[r.winner] == r.points and r.payoffs[1 - r.winner] == 0, "payoffs")
    elif rules.payoff == "zero_sum":
        check(r.payoffs[r.winner] == r.points == -r.payoffs[1 - r.winner], "zero-sum payoffs")


def expected_dealer(rules: Rules, dealer: int, winner: int | None) -> int:
    """R2.6, R2.7 (a push rotates like a dead hand)."""
    if winner is None:
        return dealer if rules.dead_hand_dealer == "same_dealer" else 1 - dealer
    if rules.dealer_rotation == "alternate":
        return 1 - dealer
    return 1 - winner if rules.dealer_rotation == "loser_deals" else winner


def check_match_end(match: Match, rules: Rules) -> None:
    result = match.result
    assert result is not None
    if rules.scope == "single_hand":
        check(len(match.hand_results) == 1, "single_hand scope played more than one hand")
        check(result.termination is Termination.SINGLE_HAND, "single hand: termination")
        check(result.winner == match.hand_results[0].winner, "single hand: winner")
        return
    if rules.hollywood:
        check(result.termination is Termination.HOLLYWOOD, "Hollywood: termination")
        check(len(result.games) == 3, "Hollywood: three games settled")
        for game in result.games:
            points = game.hand_points
            check(points[game.winner] >= rules.target, "Hollywood game won below target")
            check(points[1 - game.winner] < rules.target, "Hollywood game: both over target")
        return
    check(result.termination is Termination.TARGET, f"termination {result.termination}")
    assert result.winner is not None
    scores = match.scores
    check(scores[result.winner] >= rules.target, f"winner has {scores} < {rules.target}")
    check(scores[1 - result.winner] < rules.target, f"loser also reached the target: {scores}")
    (game,) = result.games
    won = tuple(sum(1 for r in match.hand_results if r.winner == s) for s in (0, 1))
    points = tuple(sum(r.points for r in match.hand_results if r.winner == s) for s in (0, 1))
    check(game.hands_won == won and game.hand_points == points == scores, "game tally")
    check(game.final == settlement(rules, game.winner, points, won), "A.4 settlement")
    check(result.final == game.final and result.winner == game.winner, "match result")


def settlement(
    rules: Rules, winner: int, points: tuple[int, ...], won: tuple[int, ...]
) -> tuple[int, int]:
    """A.4 final scores (no extra boxes: none of the simulated rule sets has them)."""
    loser = 1 - winner
    shutout = points[loser] == 0
    hand_points = points[winner] * (2 if shutout and rules.shutout == "hand_points_doubled" else 1)
    bonus = rules.game_bonus * (2 if shutout and rules.shutout == "game_bonus_doubled" else 1)
    final_w = hand_points + bonus + rules.box_bonus * won[winner]
    if shutout and rules.shutout == "total_doubled":
        final_w *= 2
    final_l = points[loser] + rules.box_bonus * won[loser]
    return (final_w, final_l) if winner == 0 else (final_l, final_w)


# --- The simulation ---------------------------------------------------------------------------


def play_match(rules: Rules, seed: int, rng: random.Random, policy: Policy, run: Run) -> None:
    """Play one match (or its first MAX_HANDS_PER_MATCH hands), checking every step."""
    match = Match(rules, seed)
    step = 0
    try:
        while match.result is None and len(match.hand_results) < MAX_HANDS_PER_MATCH:
            check_step(match, rules)
            hand = match.hand
            scores = match.scores
            game1_open = match.board.settled[0] is None
            action = policy(match, match.legal_actions(), rng)
            stock_before = None if hand is None else hand.stock_size
            if isinstance(action, DrawStock):
                check(stock_before is not None and stock_before > 2, "draw from a 2-card stock")
            done = len(match.hand_results)
            match.apply(action)
            step += 1
            new_scores = match.scores
            check(all(b >= a for a, b in zip(scores, new_scores, strict=True)), "scores fell")
            if rules.wall_rule == "dead" and isinstance(action, Discard) and hand.stock_size == 2:
                ended = len(match.hand_results) > done
                check(
                    ended and match.hand_results[-1].outcome is HandOutcome.DEAD,
                    "a discard at a 2-card stock did not end the hand dead (R7.2)",
                )
            if len(match.hand_results) == done:
                continue
            # The hand just ended.
            result = match.hand_results[-1]
            run.hands += 1
            run.outcomes[result.outcome.value] = run.outcomes.get(result.outcome.value, 0) + 1
            check_result(result, hand, rules)
            if result.dead_reason == "stock_exhausted":
                check(hand.stock_size == 2, "dead hand with a stock other than 2 (R7.2)")
            gained = [b - a for a, b in zip(scores, new_scores, strict=True)]
            if result.winner is None:
                check(gained == [0, 0], "points scored in a hand without a winner")
            else:
                expected = result.points if game1_open else 0
                if rules.boxes_count_toward_target and game1_open:
                    expected += rules.box_bonus * (1 + result.extra_boxes)
                check(gained[result.winner] == expected, f"score grew by {gained}, not {expected}")
                check(gained[1 - result.winner] == 0, "the loser of the hand scored")
            if match.result is None:
                want = expected_dealer(rules, hand.dealer, result.winner)
                check(match.hand.dealer == want, f"dealer {match.hand.dealer}, expected {want}")
        run.matches += 1
        if match.result is not None:
            check_step(match, rules)
            check_match_end(match, rules)
            run.finished += 1
    except Exception as exc:  # a broken invariant, or an engine error on a legal action
        where = f"{rules.profile_name} {_overrides(rules)} {policy.__name__} seed={seed}"
        run.problems.append(f"{where} step={step}: {type(exc).__name__}: {exc}")


def _overrides(rules: Rules) -> dict[str, object]:
    base = Rules.profile(rules.profile_name)
    return {k: v for k, v in rules.to_dict().items() if getattr(base, k) != v}


def simulate(profile: str) -> Run:
    configs = []
    for overrides in VARIANTS:
        try:
            configs.append(Rules.profile(profile, **overrides))
        except RulesError:
            continue
    rng = random.Random(zlib.crc32(profile.encode()))
    run = Run()
    i = 0
    while run.hands < HANDS_PER_PROFILE:
        rules = configs[i % len(configs)]
        policy = POLICIES[i // len(configs) % len(POLICIES)]
        seed = rng.getrandbits(64)
        # Each match has its own policy RNG, so a reported seed replays that match alone.
        play_match(rules, seed, random.Random(seed), policy, run)
        i += 1
    return run


def test_enough_hands() -> None:
    assert HANDS_PER_PROFILE * len(PROFILES) >= 10_000


@pytest.mark.parametrize("profile", list(PROFILES))
def test_random_play(profile: str) -> None:
    run = simulate(profile)
    assert run.hands >= HANDS_PER_PROFILE
    if run.problems:
        pytest.fail(f"{len(run.problems)} broken invariants:\n" + "\n".join(run.problems[:10]))
    # The eager policy must actually exercise scoring and match ends.
    assert run.outcomes.get("knock", 0) + run.outcomes.get("gin", 0) > 0, run.outcomes
    assert run.finished > 0
