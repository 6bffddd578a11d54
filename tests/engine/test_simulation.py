"""Random simulation: thousands of complete hands, invariants checked at every step.

Every profile of docs/rules.md §12.2 is played alone and with each variant override below. Two
policies share the work: ``uniform`` picks a legal action uniformly (most such hands run into the
wall of §7), and ``eager`` knocks whenever it may and otherwise usually draws and discards to
lower its deadwood (so hands are scored and matches reach their target). Every match has its own
fixed-seed RNG, seeded like the match, so a reported failure replays exactly. A broken invariant
is recorded with the seed and the step, the match is abandoned, and the run goes on, so one bug
does not hide another.

Three players (R10.1) and partnerships (R10.2) are simulated the same way under every profile
that plays a match: each hand is checked as a two-player hand, and each deal against §10 (who
sits out, who deals at each table), each score against the hand or round just ended, and the
end of the game against A.4 with the shutout counted once per shut-out seat.
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
from referee.engine.group import GroupMatch, Table
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
    if h.knock_discard is not None and rules.knock_discard == "face_down":  # else on the pile
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
    rules: Rules,
    winner: int,
    points: tuple[int, ...],
    won: tuple[int, ...],
    extra: tuple[int, ...] | None = None,
) -> tuple[int, ...]:
    """A.4 final scores of two seats, three (R10.1) or two teams (R10.2).

    The shutout applies once for each other seat with no hand points (R10.1).
    """
    extra = extra or (0,) * len(points)
    shut = sum(1 for seat, p in enumerate(points) if seat != winner and p == 0)
    out = []
    for seat, p in enumerate(points):
        boxes = (
            0 if rules.boxes_count_toward_target else rules.box_bonus * (won[seat] + extra[seat])
        )
        if seat != winner:
            out.append(p + boxes)
            continue
        hand_points = p * (1 + shut) if rules.shutout == "hand_points_doubled" else p
        bonus = rules.game_bonus * (1 + shut if rules.shutout == "game_bonus_doubled" else 1)
        total = hand_points + bonus + boxes
        out.append(total * (1 + shut) if rules.shutout == "total_doubled" else total)
    return tuple(out)


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


# --- Three players and partnerships (§10) ------------------------------------------------------

GROUP_HANDS = 400  # per match profile and number of players: 5 x 2 x 400 = 4,000 hands
MAX_GROUP_HANDS = 40  # a partnership game to 125 takes many rounds of small differences
GROUP_VARIANTS: tuple[dict[str, object], ...] = (
    {},
    {"discard_taken_card": "allowed_gra"},
    {"wall_rule": "fiftieth_card_pagat"},
    {"wall_rule": "fiftieth_card_gamecolony"},
    {"defender_play": "declared"},
    {"big_gin_bonus": 31},
    {"undercut_on_tie": "off"},
    {"dealer_rotation": "winner_deals"},
    {"boxes_count_toward_target": "on", "box_bonus": 10},
    {"oklahoma_extra_boxes": "on"},
    {"shutout": "total_doubled", "game_bonus": 100, "target": 50},
)
MATCH_PROFILES = [p for p in PROFILES if Rules.profile(p).scope == "match"]


def check_group_hand(g: GroupMatch, table: Table, result: HandResult, hand: Hand) -> None:
    """A hand of a group match is a two-player hand; its result says who played it where."""
    check_result(result, hand, g.rules)
    check(result.seats == table.seats and result.table == table.number, "hand's seats, table")
    check(result.number == hand.number, "hand number")


def check_next_deal(g: GroupMatch, before: list[Table], rules: Rules) -> None:
    """Who plays and deals next: R10.1 (the loser deals), R10.2 (per table, R2.6, R2.7)."""
    if g.result is not None:
        return
    if g.teams:
        r = g.round
        away = (1, 3) if r % 2 == 0 else (3, 1)
        check([t.seats for t in g.tables] == [(0, away[0]), (2, away[1])], "table pairs")
        for old, new in zip(before, g.tables, strict=True):
            assert old.result is not None
            want = expected_dealer(rules, old.result.dealer, old.result.winner)
            check(
                new.hand.dealer == want, f"table {old.number}: dealer {new.hand.dealer} != {want}"
            )
        return
    (old,) = before
    assert old.result is not None
    winner = old.result.match_seat(old.result.winner)
    dealer = 3 - sum(old.seats)
    if winner is not None:  # the loser deals, to the winner and the previous dealer
        dealer = old.seats[1 - old.seats.index(winner)]
    check(g.sitting_out == dealer, f"seat {g.sitting_out} deals, not {dealer}")
    check(g.tables[0].seats == ((dealer + 1) % 3, (dealer + 2) % 3), "hand seats")


def check_group_end(g: GroupMatch, rules: Rules) -> None:
    result = g.result
    assert result is not None
    check(result.termination is Termination.TARGET, f"termination {result.termination}")
    assert result.winner is not None
    scores = g.scores
    check(scores[result.winner] >= rules.target, f"winner has {scores} < {rules.target}")
    check(sum(p >= rules.target for p in scores) == 1, f"two reached the target: {scores}")
    want = settlement(rules, result.winner, scores, g.hands_won, g.extra_boxes)
    check(result.final == want, f"final {result.final}, A.4 gives {want}")


def play_group(rules: Rules, seed: int, rng: random.Random, policy: Policy, run: Run) -> None:
    """Play one group match (or its first MAX_GROUP_HANDS hands), checking every step."""
    g = GroupMatch(rules, seed)
    step = 0
    cap = MAX_HANDS_PER_MATCH if policy is uniform else MAX_GROUP_HANDS
    try:
        while g.result is None and len(g.hand_results) < cap:
            table = g.table
            check_step(table.play, rules)
            check(g.to_act in table.seats, f"seat {g.to_act} acts at table {table.seats}")
            before = list(g.tables)
            hands = [t.hand for t in before]
            scores = g.scores
            rounds = len(g.round_results)
            g.apply(policy(table.play, g.legal_actions(), rng))
            step += 1
            check(all(b >= a for a, b in zip(scores, g.scores, strict=True)), "scores fell")
            dealt = any(a is not b for a, b in zip(before, g.tables, strict=True))
            if not dealt and g.result is None:
                continue
            # A hand (three players) or a round (partnerships) just ended.
            for t, hand in zip(before, hands, strict=True):
                assert t.result is not None
                run.hands += 1
                outcome = t.result.outcome.value
                run.outcomes[outcome] = run.outcomes.get(outcome, 0) + 1
                check_group_hand(g, t, t.result, hand)
            gained = [b - a for a, b in zip(scores, g.scores, strict=True)]
            box = rules.box_bonus if rules.boxes_count_toward_target else 0
            if g.teams:
                (r,) = g.round_results[rounds:]
                expected = [r.points + box if t == r.winner else 0 for t in (0, 1)]
            else:
                last = g.hand_results[-1]
                w = last.match_seat(last.winner)
                credit = last.points + box * (1 + last.extra_boxes)
                expected = [credit if s == w else 0 for s in range(3)]
            check(gained == expected, f"scores grew by {gained}, not {expected}")
            check_next_deal(g, before, rules)
        run.matches += 1
        if g.result is not None:
            check_group_end(g, rules)
            run.finished += 1
    except Exception as exc:  # a broken invariant, or an engine error on a legal action
        where = f"{rules.profile_name} {_overrides(rules)}"
        run.problems.append(f"{where} {policy.__name__} seed={seed} step={step}: {exc!r}")


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("profile", MATCH_PROFILES)
def test_group_random_play(profile: str, players: int) -> None:
    configs = []
    for overrides in GROUP_VARIANTS:
        try:
            configs.append(Rules.profile(profile, players=players, **overrides))
        except RulesError:
            continue
    rng = random.Random(zlib.crc32(f"{profile}/{players}".encode()))
    run = Run()
    i = 0
    while run.hands < GROUP_HANDS:
        rules = configs[i // len(POLICIES) % len(configs)]
        policy = POLICIES[i % len(POLICIES)]
        seed = rng.getrandbits(64)
        play_group(rules, seed, random.Random(seed), policy, run)
        i += 1
    if run.problems:
        pytest.fail(f"{len(run.problems)} broken invariants:\n" + "\n".join(run.problems[:10]))
    assert run.outcomes.get("knock", 0) + run.outcomes.get("gin", 0) > 0, run.outcomes
    assert run.finished > 0


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
