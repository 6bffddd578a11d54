"""Property tests of three-player and partnership matches (docs/rules.md §10).

The walks of test_engine_properties.py, played by :class:`GroupMatch` under every profile
that plays a match, with 3 and 4 players, alone or with one variant. At every state: the cards
of each table, hand sizes, seating, hand numbering and the scores against the results; every
legal action applies (on a copy) and anything else is refused without a change; copies are
independent; a seed and the actions replay the match; and no seat's view shows a card it may
not see (R2.8, R11.3): its opponent's concealed cards, anything of the other table (its
partner's cards included), or, sitting out, any card of the hand in play.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.engine.actions import Action, DrawStock, Pass
from referee.engine.cards import cards_of
from referee.engine.group import GroupMatch
from referee.engine.match import Match
from referee.engine.observation import observe_seat
from referee.engine.outcomes import Phase, Termination
from referee.engine.rules import PROFILES, Rules
from referee.errors import RulesError
from tests.engine.test_engine_properties import (
    WALK,
    _hidden_swap,
    assert_rejected,
    check_cards_accounted,
    check_hand_sizes,
    choose,
    illegal_candidates,
)

MATCH_PROFILES = [p for p in PROFILES if Rules.profile(p).scope == "match"]
# Every variant that changes a hand (as the two-player walks) or how hands add up; a low
# target so that walks reach the end of the game.
GROUP_VARIANTS: tuple[dict[str, object], ...] = (
    {},
    {"target": 40},
    {"discard_taken_card": "allowed_gra"},
    {"wall_rule": "fiftieth_card_pagat"},
    {"wall_rule": "fiftieth_card_gamecolony"},
    {"defender_play": "declared"},
    {"big_gin_bonus": 31, "target": 60},
    {"knock_limit": 0},
    {"undercut_on_tie": "off", "target": 60},
    {"dealer_rotation": "winner_deals", "target": 60},
    {"dealer_rotation": "alternate", "dead_hand_dealer": "rotate"},
    {"boxes_count_toward_target": "on", "box_bonus": 10, "target": 60},
    {"oklahoma_extra_boxes": "on", "target": 60},  # refused with 4 players
    {"shutout": "total_doubled", "target": 40},
    {"shutout": "hand_points_doubled", "target": 40, "game_bonus": 100},
)


def group_configs(players: Sequence[int] = (3, 4)) -> list[Rules]:
    out = []
    for name in MATCH_PROFILES:
        for n in players:
            for overrides in GROUP_VARIANTS:
                try:
                    out.append(Rules.profile(name, players=n, **overrides))
                except RulesError:
                    continue
    return out


GROUP_CONFIGS = group_configs()
MAX_STEPS = 400  # two to eight hands


def group_walks(
    configs: Sequence[Rules] = GROUP_CONFIGS,
) -> st.SearchStrategy[tuple[Rules, int, bool, list[int]]]:
    steps = st.integers(1, MAX_STEPS)
    return st.tuples(
        st.sampled_from(configs),
        st.integers(0, 2**64 - 1),
        st.booleans(),
        steps.flatmap(lambda n: st.lists(st.integers(0, 1 << 16), min_size=n, max_size=n)),
    )


def group_walk(
    rules: Rules, seed: int, greedy: bool, choices: Sequence[int]
) -> Iterator[GroupMatch]:
    """Yield the match before every step of the walk, then once more at its end."""
    g = GroupMatch(rules, seed)
    for choice in choices:
        yield g
        if g.result is not None:
            return
        g.apply(choose(g.table.play, choice, greedy))
    yield g


# --- Invariants -----------------------------------------------------------------------------------


def check_seating(g: GroupMatch) -> None:
    """R10.1: the dealer sits out, the seat after it is hand seat 0; R10.2: the table pairs."""
    over = g.result is not None
    if g.teams:
        assert g.sitting_out is None and len(g.tables) == 2
        r = g.round - 1 if over else g.round
        away = (1, 3) if r % 2 == 0 else (3, 1)
        assert [t.seats for t in g.tables] == [(0, away[0]), (2, away[1])]
        for t in g.tables:
            assert {g.team_of(s) for s in t.seats} == {0, 1}
            assert g.team_of(t.seats[0]) == 0  # hand seat 0 is team 0 at both tables
    else:
        dealer = g.sitting_out
        assert dealer is not None and len(g.tables) == 1
        assert g.tables[0].seats == ((dealer + 1) % 3, (dealer + 2) % 3)
        assert g.tables[0].hand.dealer == 1 and g.table_of(dealer) is None
    if not over:
        assert g.table.play.result is None
        assert g.to_act in g.table.seats
        assert g.table_of(g.to_act) is g.table
        assert g.hand is g.table.hand


def check_numbering(g: GroupMatch) -> None:
    """Hands are numbered 0, 1, ... in dealing order; each result says where it was played."""
    numbers = [h.number for h in g.hand_results]
    assert numbers == list(range(len(numbers)))
    dealt = [t.hand.number for t in g.tables]
    if g.result is None:
        assert dealt == list(range(len(numbers), len(numbers) + len(dealt)))
    else:
        assert dealt == numbers[-len(dealt) :]
    assert g.hands_dealt == max(dealt) + 1
    for h in g.hand_results:
        if g.teams:
            assert h.table == h.number % 2
        else:
            assert h.table == 0 and len(set(h.seats)) == 2


def check_scores(g: GroupMatch) -> None:
    """The scores are the sums of the hand results (R10.1) or of the round results (R10.2)."""
    rules = g.rules
    size = 2 if g.teams else 3
    points, won, extra = [0] * size, [0] * size, [0] * size

    def enter(who: int, amount: int, boxes: int) -> None:
        points[who] += amount
        won[who] += 1
        extra[who] += boxes
        if rules.boxes_count_toward_target:
            points[who] += rules.box_bonus * (1 + boxes)

    if g.teams:
        assert len(g.hand_results) == 2 * len(g.round_results)
        for i, r in enumerate(g.round_results):
            pair = g.hand_results[2 * i : 2 * i + 2]
            assert r.number == i and r.hands == (2 * i, 2 * i + 1)
            by_team = [0, 0]
            for h in pair:
                if h.winner is not None:
                    by_team[g.team_of(h.match_seat(h.winner) or 0)] += h.points
                else:
                    assert h.points == 0
            assert r.won == tuple(by_team)
            assert r.points == abs(by_team[0] - by_team[1])
            assert r.winner == (None if by_team[0] == by_team[1] else by_team.index(max(by_team)))
            if r.winner is not None:
                enter(r.winner, r.points, 0)
            assert r.scores_after == tuple(points)
            assert [h.scores_after for h in pair] == [r.scores_after] * 2
    else:
        for h in g.hand_results:
            w = h.match_seat(h.winner)
            if w is not None:
                enter(w, h.points, h.extra_boxes)
            assert h.scores_after == tuple(points)
    assert g.scores == tuple(points)
    assert g.hands_won == tuple(won)
    assert g.extra_boxes == tuple(extra)


def settlement(rules: Rules, points: Sequence[int], won: Sequence[int], extra: Sequence[int],
               winner: int) -> tuple[int, ...]:  # fmt: skip
    """A.4 for n seats or teams, the shutout once for each other one with no points (R10.1)."""
    shut = sum(1 for s, p in enumerate(points) if s != winner and p == 0)
    out = []
    for s, p in enumerate(points):
        boxes = 0 if rules.boxes_count_toward_target else rules.box_bonus * (won[s] + extra[s])
        if s != winner:
            out.append(p + boxes)
            continue
        hand = p * (1 + shut) if rules.shutout == "hand_points_doubled" else p
        bonus = rules.game_bonus * (1 + shut if rules.shutout == "game_bonus_doubled" else 1)
        total = hand + bonus + boxes
        out.append(total * (1 + shut) if rules.shutout == "total_doubled" else total)
    return tuple(out)


def check_end(g: GroupMatch) -> None:
    result = g.result
    if result is None:
        return
    assert result.termination is Termination.TARGET and result.teams == g.teams
    assert result.winner is not None
    scores = g.scores
    assert scores[result.winner] >= g.rules.target
    assert all(p < g.rules.target for s, p in enumerate(scores) if s != result.winner)
    (game,) = result.games
    assert game.hand_points == scores and game.hands_won == g.hands_won
    assert (
        result.final
        == game.final
        == settlement(g.rules, scores, g.hands_won, g.extra_boxes, result.winner)
    )
    places = result.placings(g.players)
    assert all(places[s] == 1 for s in range(g.players) if g.team_of(s) == result.winner)
    assert all(places[s] > 1 for s in range(g.players) if g.team_of(s) != result.winner)


def check_group(g: GroupMatch) -> None:
    for t in g.tables:
        check_cards_accounted(t.play)
        check_hand_sizes(t.play)
        assert (t.result is None) == (t.play.result is None)
    over = g.result is not None
    assert bool(g.legal_actions()) == (not over)
    assert (g.phase is Phase.MATCH_OVER) == over
    check_seating(g)
    check_numbering(g)
    check_scores(g)
    check_end(g)


@settings(WALK, max_examples=40)
@given(group_walks())
def test_group_walk_invariants(case: tuple[Rules, int, bool, list[int]]) -> None:
    """Every state is sound; every legal action applies on a copy, and a sample of illegal ones
    is refused without a change (all of them: the slow test below); copies are independent."""
    previous: tuple[GroupMatch, tuple[object, ...]] | None = None
    last_table: int | None = None
    rounds_before = 0
    for step, g in enumerate(group_walk(*case)):
        check_group(g)
        before = g.fingerprint()
        if g.result is None and step % 5 == 0:
            for action in illegal_candidates(g.table.play)[step % 13 :: 13]:
                assert_rejected(g, action)  # type: ignore[arg-type]
        if previous is not None:  # the copy taken a step ago did not move with the original
            twin, printed = previous
            assert twin.fingerprint() == printed != before
        if g.teams and g.result is None and last_table is not None:
            # The tables take turns while both hands are open (R10.2).
            both_open = all(t.play.result is None for t in g.tables)
            if both_open and len(g.round_results) == rounds_before:
                assert g.table.number != last_table
        for action in g.legal_actions():
            assert g.is_legal(action), action
            other = g.copy()
            assert other.fingerprint() == before
            other.apply(action)
            for t in other.tables:
                check_cards_accounted(t.play)
        for seat in range(g.players):
            observe_seat(g, seat)
        assert g.fingerprint() == before  # queries change nothing
        previous = (g.copy(), before)
        last_table = g.table.number
        rounds_before = len(g.round_results)


@pytest.mark.slow
@settings(WALK, max_examples=15)
@given(group_walks())
def test_group_illegal_actions_rejected(case: tuple[Rules, int, bool, list[int]]) -> None:
    """R11.1: anything outside the legal set is refused, names a rule, and changes nothing."""
    for g in group_walk(*case):
        if g.result is not None:
            for action in (DrawStock(), Pass()):
                assert_rejected(g, action)  # type: ignore[arg-type]
            continue
        for action in illegal_candidates(g.table.play):
            assert_rejected(g, action)  # type: ignore[arg-type]


@settings(WALK, max_examples=40)
@given(group_walks())
def test_group_seed_and_actions_replay(case: tuple[Rules, int, bool, list[int]]) -> None:
    """R11.4: the seed and the actions reproduce every state and result exactly."""
    rules, seed, greedy, choices = case
    log: list[Action] = []
    prints = []
    g = GroupMatch(rules, seed)
    for choice in choices:
        if g.result is not None:
            break
        prints.append(g.fingerprint())
        action = choose(g.table.play, choice, greedy)
        log.append(action)
        g.apply(action)
    replay = GroupMatch(rules, seed)
    for action, expected in zip(log, prints, strict=True):
        assert replay.fingerprint() == expected
        replay.apply(action)
    assert replay.fingerprint() == g.fingerprint()
    assert replay.hand_results == g.hand_results
    assert replay.round_results == g.round_results
    assert replay.result == g.result


# --- What a seat may see (R2.8, R11.3) ---------------------------------------------------------


def transposed(play: Match, x: int, y: int) -> Match:
    """A copy of ``play`` whose hand has cards ``x`` and ``y`` exchanged everywhere.

    Written through the hand's private fields, as only the engine does otherwise. The knock
    limit stays what the deal fixed (R5.5: it is public), and the caller keeps both cards out
    of a knocker's spread, which is public too.
    """
    other = play.copy()
    h = other.hand
    assert h is not None

    def swap(c: int | None) -> int | None:
        return y if c == x else x if c == y else c

    def swap_bits(mask: int) -> int:
        bx, by = mask >> x & 1, mask >> y & 1
        return mask & ~((1 << x) | (1 << y)) | (bx << y) | (by << x)

    h._deck = tuple(swap(c) for c in h._deck)  # type: ignore[misc]
    h._hands = [swap_bits(m) for m in h._hands]
    h._known = [swap_bits(m) for m in h._known]
    h._pile = [swap(c) for c in h._pile]  # type: ignore[misc]
    h._events = [type(e)(e.seat, e.kind, swap(e.card)) for e in h._events]
    h._taken = swap(h._taken)
    h._upcard = swap(h._upcard)
    h._knock_discard = swap(h._knock_discard)
    if h._barred is not None:
        h._barred = (swap(h._barred[0]), h._barred[1])  # type: ignore[assignment]
    h._options = None
    return other


def spread_cards(play: Match) -> set[int]:
    h = play.hand
    assert h is not None
    knock = h.knock
    if knock is None:
        return set()
    return {c for m in knock.arrangement.melds for c in m.cards} | set(knock.arrangement.deadwood)


def with_table(g: GroupMatch, number: int, play: Match) -> GroupMatch:
    twin = g.copy()
    twin.tables[number].play = play
    return twin


def _states(case: tuple[Rules, int, bool, list[int]], pick: int) -> Iterator[GroupMatch]:
    """Every fourth state of the walk (which ones depends on ``pick``) while it is open."""
    for step, g in enumerate(group_walk(*case)):
        if g.result is None and (step + pick) % 4 == 0:
            yield g


@settings(WALK, max_examples=40)
@given(group_walks(), st.integers(0, 1 << 16))
def test_a_seat_never_sees_its_opponents_concealed_cards(
    case: tuple[Rules, int, bool, list[int]], pick: int
) -> None:
    checked = 0
    for g in _states(case, pick):
        for seat in range(g.players):
            table = g.table_of(seat)
            if table is None:
                continue
            hand_seat = table.hand_seat(seat)
            assert hand_seat is not None
            swapped = _hidden_swap(table.play, hand_seat, pick + checked)
            if swapped is None:
                continue
            checked += 1
            twin = with_table(g, table.number, swapped)
            assert twin.fingerprint() != g.fingerprint()
            assert observe_seat(twin, seat) == observe_seat(g, seat)
            opponent = table.seats[1 - hand_seat]
            assert observe_seat(twin, opponent) != observe_seat(g, opponent)


@settings(WALK, max_examples=40)
@given(group_walks(group_configs([4])), st.integers(0, 1 << 16))
def test_a_seat_never_sees_anything_of_the_other_table(
    case: tuple[Rules, int, bool, list[int]], pick: int
) -> None:
    """Partnerships: the partner's cards and the other table's whole hand and progress."""
    for step, g in enumerate(_states(case, pick)):
        for other in g.tables:
            free = sorted(set(range(52)) - spread_cards(other.play))
            x = free[(pick + step) % len(free)]
            y = free[(pick // 52 + 7 * step + 1) % len(free)]
            twins = [with_table(g, other.number, transposed(other.play, x, y))] if x != y else []
            if other.play.result is None and other is not g.table:
                moved = other.play.copy()
                moved.apply(moved.legal_actions()[(pick + step) % len(moved.legal_actions())])
                twins.append(with_table(g, other.number, moved))
            for twin in twins:
                assert twin.fingerprint() != g.fingerprint()
                for seat in g.tables[1 - other.number].seats:
                    assert observe_seat(twin, seat) == observe_seat(g, seat)


@settings(WALK, max_examples=40)
@given(group_walks(group_configs([3])), st.integers(0, 1 << 16))
def test_the_seat_sitting_out_sees_no_card_of_the_hand(
    case: tuple[Rules, int, bool, list[int]], pick: int
) -> None:
    for step, g in enumerate(_states(case, pick)):
        out = g.sitting_out
        assert out is not None
        play = g.tables[0].play
        h = play.hand
        assert h is not None
        seen_by_players = [*cards_of(h.held(0) | h.held(1)), *h.pile]
        if h.upcard is not None:
            seen_by_players.append(h.upcard)
        free = sorted(set(range(52)) - spread_cards(play))
        candidates = sorted(set(seen_by_players) & set(free))
        x = candidates[(pick + step) % len(candidates)]
        y = free[(pick // 52 + step) % len(free)]
        if x == y:
            continue
        twin = with_table(g, 0, transposed(play, x, y))
        assert twin.fingerprint() != g.fingerprint()
        view = observe_seat(g, out)
        assert observe_seat(twin, out) == view
        assert view.hand == () and view.events == () and view.upcard is None
