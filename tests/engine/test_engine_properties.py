"""Property tests of the rules engine: invariants that hold in every reachable state.

Each walk draws a rule set (every profile of §12.2, alone or with one variant override), a match
seed and a list of choice indices; the indices pick legal actions one after the other, so a walk
is a random but exactly reproducible path through a match (STYLE.md lessons 2, 4, 5, 14).

The meld and layoff properties compare ``referee.engine.melds`` with brute forces written here from
docs/rules.md R1.4-R1.8 and R6.2-R6.6 alone; they use no referee code.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Iterator, Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import Phase as HypothesisPhase
from hypothesis import strategies as st

from referee.engine.actions import (
    Action,
    BigGin,
    ChooseDeal,
    DeclareDead,
    DefenderPlay,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    Pass,
)
from referee.engine.cards import cards_of, mask_of
from referee.engine.layoffs import check_defender_play, defender_optimum
from referee.engine.match import Match
from referee.engine.melds import (
    Meld,
    best_arrangement,
    deadwood_by_discard,
    min_deadwood,
    min_deadwood_after_discard,
)
from referee.engine.observation import observe
from referee.engine.outcomes import HandOutcome, Phase
from referee.engine.rules import PROFILES, Rules
from referee.errors import CardError, GinRefError, IllegalActionError, RulesError

FULL = (1 << 52) - 1

# The variant overrides the walks combine with every profile (combinations that Rules rejects,
# such as Hollywood scoring with scope = single_hand, are left out).
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
    {"deal_order": "seat0_first"},
)


def _configs() -> list[Rules]:
    out = []
    for name in PROFILES:
        for overrides in VARIANTS:
            try:
                out.append(Rules.profile(name, **overrides))
            except RulesError:
                continue
    return out


CONFIGS = _configs()
MAX_STEPS = 250  # a hand takes 20-100 actions: a walk covers a few hands

# A walk's cost varies a lot with the rule set and its length, so a per-example deadline would
# only make the suite flaky on a loaded machine: max_examples bounds the time instead. Shrinking
# a failing walk replays hundreds of long walks (minutes); the failing example that hypothesis
# prints replays exactly without it.
WALK = settings(
    max_examples=60,
    deadline=None,
    phases=[HypothesisPhase.explicit, HypothesisPhase.reuse, HypothesisPhase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# --- Independent brute force (docs/rules.md R1.3-R1.8, R6.2-R6.6; no referee code) --------------


def value(card: int) -> int:
    """R1.3: A = 1, 2..10 = pips, J Q K = 10."""
    return min(card % 13 + 1, 10)


def is_meld(cards: Sequence[int]) -> bool:
    """R1.4 (3 or 4 of a rank) or R1.5 (3+ consecutive ranks of one suit, ace low)."""
    if len(cards) < 3 or len(set(cards)) != len(cards) or any(not 0 <= c < 52 for c in cards):
        return False
    ranks = sorted(c % 13 for c in cards)
    if len(set(ranks)) == 1:
        return len(cards) <= 4
    suits = {c // 13 for c in cards}
    return len(suits) == 1 and ranks == list(range(ranks[0], ranks[0] + len(cards)))


def every_meld(cards: Sequence[int]) -> list[int]:
    """Every meld inside ``cards``, as masks: each 3-set, the 4-set, every run of 3 or more."""
    present = set(cards)
    out: list[int] = []
    for rank in range(13):
        group = [c for c in sorted(present) if c % 13 == rank]
        for size in (3, 4):
            out += [sum(1 << c for c in combo) for combo in itertools.combinations(group, size)]
    for suit in range(4):
        for lo in range(13):
            for hi in range(lo + 2, 13):
                run = [13 * suit + r for r in range(lo, hi + 1)]
                if not present.issuperset(run):
                    break
                out.append(sum(1 << c for c in run))
    return out


def mask_value(mask: int) -> int:
    return sum(value(c) for c in range(52) if mask >> c & 1)


def brute_min_deadwood(mask: int) -> int:
    """dw* (R1.8) by depth-first search: the lowest card is deadwood or in some meld with it."""
    melds = every_meld([c for c in range(52) if mask >> c & 1])

    @functools.cache
    def best(rest: int) -> int:
        if not rest:
            return 0
        low = rest & -rest
        card = low.bit_length() - 1
        out = value(card) + best(rest ^ low)
        for m in melds:
            if m & low and m & rest == m:
                out = min(out, best(rest ^ m))
        return out

    return best(mask)


def arrangements(mask: int) -> Iterator[list[int]]:
    """Every set of pairwise-disjoint melds inside ``mask`` (R1.7), as lists of meld masks."""
    melds = every_meld([c for c in range(52) if mask >> c & 1])

    def rec(start: int, used: int, chosen: list[int]) -> Iterator[list[int]]:
        yield list(chosen)
        for i in range(start, len(melds)):
            if not melds[i] & used:
                chosen.append(melds[i])
                yield from rec(i + 1, used | melds[i], chosen)
                chosen.pop()

    return rec(0, 0, [])


def layoffs_feasible(knocker: Sequence[Sequence[int]], cards: Sequence[int]) -> bool:
    """R6.5: each card goes to one knocker meld; a 3-set takes at most its fourth card, a 4-set
    nothing, and each run with its cards must form a single run."""
    targets: list[list[int]] = []
    for card in cards:
        fits = []
        for i, meld in enumerate(knocker):
            ranks = {c % 13 for c in meld}
            if len(ranks) == 1:
                if len(meld) == 3 and card % 13 in ranks and card not in meld:
                    fits.append(i)
            elif card // 13 == meld[0] // 13 and card not in meld:
                fits.append(i)
        if not fits:
            return False
        targets.append(fits)
    assigned: list[list[int]] = [[] for _ in knocker]

    def rec(k: int) -> bool:
        if k == len(cards):
            pairs = zip(knocker, assigned, strict=True)
            return all(not extra or is_meld([*m, *extra]) for m, extra in pairs)
        for i in targets[k]:
            assigned[i].append(cards[k])
            if rec(k + 1):
                return True
            assigned[i].pop()
        return False

    return rec(0)


def brute_defender_deadwood(defender: int, knocker: Sequence[Sequence[int]]) -> int:
    """R6.6: the minimum over every feasible layoff subset X of dw*(hand - X)."""
    cards = [c for c in range(52) if defender >> c & 1]
    best = brute_min_deadwood(defender)
    if not knocker:
        return best
    for size in range(1, len(cards) + 1):
        for x in itertools.combinations(cards, size):
            rest = defender & ~sum(1 << c for c in x)
            v = brute_min_deadwood(rest)
            if v < best and layoffs_feasible(knocker, x):
                best = v
    return best


# --- Strategies ---------------------------------------------------------------------------------


def _hand_of(size: int, lo_rank: int, width: int) -> st.SearchStrategy[int]:
    pool = [13 * s + r for s in range(4) for r in range(lo_rank, lo_rank + width)]
    return st.permutations(pool).map(lambda p: mask_of(p[:size]))


@st.composite
def hands(draw: st.DrawFn, min_size: int = 0, max_size: int = 11) -> int:
    """A hand of min_size..max_size cards: uniform over the deck, or from a narrow band of ranks
    (many sets, runs and ties between them)."""
    size = draw(st.integers(min_size, max_size))
    if draw(st.booleans()):
        return draw(_hand_of(size, 0, 13))
    width = draw(st.integers(3, 7))
    return draw(_hand_of(size, draw(st.integers(0, 13 - width)), width))


def walks(
    configs: Sequence[Rules] = (), greedy: bool | None = None
) -> st.SearchStrategy[tuple[Rules, int, bool, list[int]]]:
    """A rule set, a seed, a policy flag and the choice indices of a walk."""
    steps = st.integers(1, MAX_STEPS)
    return st.tuples(
        st.sampled_from(configs or CONFIGS),
        st.integers(0, 2**64 - 1),
        st.booleans() if greedy is None else st.just(greedy),
        steps.flatmap(lambda n: st.lists(st.integers(0, 1 << 16), min_size=n, max_size=n)),
    )


# Walks aimed at the rarer phases: the defender's declaration (greedy players knock early) and
# the wall of §7 (players who draw at random usually reach it).
TARGETED = st.one_of(
    walks([r for r in CONFIGS if r.defender_play in ("declared", "declared_melds")], greedy=True),
    walks([r for r in CONFIGS if r.wall_rule != "dead"], greedy=False),
)
ANY_WALK = st.one_of(walks(), TARGETED)


def choose(match: Match, choice: int, greedy: bool) -> Action:
    """The legal action that ``choice`` picks.

    The greedy policy knocks when it can and otherwise discards to its lowest deadwood, so that
    walks reach knocks, showdowns and match ends; the other policy picks uniformly.
    """
    actions = match.legal_actions()
    if greedy and match.phase is Phase.DISCARD:
        outs = [a for a in actions if isinstance(a, Knock | BigGin)]
        discards = [a for a in actions if isinstance(a, Discard)]
        if outs:
            actions = outs
        elif discards:
            seat = match.to_act
            assert seat is not None
            dw = {a.card: min_deadwood(match.hand.held(seat) & ~(1 << a.card)) for a in discards}
            low = min(dw.values())
            actions = [a for a in discards if dw[a.card] == low]
    if match.phase is Phase.DEFENDER and choice % 3 == 0:
        # Any valid declaration is legal (R6.6 declared): play the own best melds, no layoffs.
        seat = match.to_act
        assert seat is not None
        own = best_arrangement(match.hand.held(seat))
        return DefenderPlay(tuple(m.cards for m in own.melds), ())
    return actions[choice % len(actions)]


def walk(rules: Rules, seed: int, greedy: bool, choices: Sequence[int]) -> Iterator[Match]:
    """Yield the match before every step of the walk, then once more at its end."""
    match = Match(rules, seed)
    for choice in choices:
        yield match
        if match.result is not None:
            return
        assert match.legal_actions(), f"no legal action in {match.phase}, match not over"
        match.apply(choose(match, choice, greedy))
    yield match


# --- State invariants ---------------------------------------------------------------------------


def check_cards_accounted(match: Match) -> None:
    """Both hands + face-up pile + undrawn stock + face-down knock discard = the 52 cards once.

    (A face-up knock discard, R5.2 ``knock_discard = face_up``, is on the pile.)
    """
    h = match.hand
    if h is None:  # cut_high_chooses: nothing is dealt before the choice (R2.2)
        assert match.phase is Phase.CHOOSE_DEALER
        return
    assert sorted(h.deck) == list(range(52))
    parts = [*(1 << c for c in h.pile), *(1 << c for c in h.stock)]
    if h.knock_discard is not None and match.rules.knock_discard == "face_down":
        parts.append(1 << h.knock_discard)
    parts += [h.held(0), h.held(1)]
    total = sum(p.bit_count() for p in parts)
    union = 0
    for p in parts:
        union |= p
    assert total == 52 and union == FULL, (
        f"{total} cards counted, missing {cards_of(FULL & ~union)}"
    )
    assert h.stock_size == len(h.stock) >= 2


def check_hand_sizes(match: Match) -> None:
    """R11.2.1: 10 cards between turns, 11 for the player who has drawn (and a big-gin knocker)."""
    h = match.hand
    phase = match.phase
    if phase in (Phase.CHOOSE_DEALER, Phase.MATCH_OVER):
        return
    sizes = [h.held(s).bit_count() for s in (0, 1)]
    seat = match.to_act
    assert seat is not None
    if phase is Phase.DISCARD:
        assert sizes[seat] == 11 and sizes[1 - seat] == 10, sizes
    elif phase is Phase.DEFENDER:
        assert h.knock is not None
        knocker = h.knock.knocker
        assert knocker == 1 - seat
        assert sizes[seat] == 10
        assert sizes[knocker] == (11 if h.knock.kind is HandOutcome.BIG_GIN else 10)
    else:
        assert sizes == [10, 10], (phase, sizes)


def check_state(match: Match) -> None:
    check_cards_accounted(match)
    check_hand_sizes(match)
    assert bool(match.legal_actions()) == (match.result is None)
    assert (match.phase is Phase.MATCH_OVER) == (match.result is not None)


@WALK
@given(ANY_WALK)
def test_walk_invariants(case: tuple[Rules, int, bool, list[int]]) -> None:
    """Cards accounted for, hand sizes, and every legal action applies (on a copy) cleanly."""
    for match in walk(*case):
        check_state(match)
        before = match.fingerprint()
        for action in match.legal_actions():
            assert match.is_legal(action), action
            other = match.copy()
            assert other.fingerprint() == before
            other.apply(action)
            check_cards_accounted(other)
            if isinstance(action, Knock):
                check_default_knock(match, action, other)
        # Queries never change the state, and copies are independent of the original.
        observe(match, 0)
        observe(match, 1)
        assert match.fingerprint() == before


def direct_layoffs(melds: Sequence[int]) -> int:
    """Cards that could be laid off directly on these melds (R6.2, one step)."""
    out = 0
    for m in melds:
        cards = [c for c in range(52) if m >> c & 1]
        if len({c % 13 for c in cards}) == 1:
            if len(cards) == 3:
                out |= sum(1 << (13 * s + cards[0] % 13) for s in range(4)) & ~m
        else:
            lo, hi = cards[0], cards[-1]
            out |= (1 << (lo - 1) if lo % 13 else 0) | (1 << (hi + 1) if hi % 13 != 12 else 0)
    return out


def check_default_knock(match: Match, action: Knock, after: Match) -> None:
    """R5.4 default arrangement, R5.6 gin, and (auto_optimal) R6.6 defender deadwood."""
    h = match.hand
    seat = match.to_act
    assert seat is not None
    rest = h.held(seat) & ~(1 << action.card)
    if len(after.hand_results) > len(match.hand_results):
        result = after.hand_results[-1]
        spread, kind = result.knocker_arrangement, result.outcome
        defence = result.defender_deadwood
    else:  # defender_play = declared: the showdown waits for the defender
        knock = after.hand.knock
        assert knock is not None
        spread, kind, defence = knock.arrangement, knock.kind, None
    assert spread is not None
    k = spread.deadwood_count
    assert k == brute_min_deadwood(rest) <= h.knock_limit
    assert (k == 0) == (kind is HandOutcome.GIN)
    if match.rules.knocker_arrangement == "free":
        # Ties go to the arrangement exposing the fewest unseen direct layoffs.
        seen = h.held(seat) | sum(1 << c for c in h.pile)
        exposure = [
            (direct_layoffs(chosen) & ~seen).bit_count()
            for chosen in arrangements(rest)
            if mask_value(rest & ~sum(chosen)) == k
        ]
        shown = [sum(1 << c for c in m.cards) for m in spread.melds]
        assert (direct_layoffs(shown) & ~seen).bit_count() == min(exposure)
    if defence is not None and match.rules.defender_play == "auto_optimal":
        gin = kind in (HandOutcome.GIN, HandOutcome.BIG_GIN)
        melds = [] if gin else [m.cards for m in spread.melds]
        assert defence == brute_defender_deadwood(h.held(1 - seat), melds)


# --- Illegal actions ------------------------------------------------------------------------------


def _non_meld(cards: Sequence[int]) -> tuple[int, ...] | None:
    for trio in itertools.combinations(cards, 3):
        if not is_meld(trio):
            return trio
    return None


def knock_declarations(match: Match, card: int) -> tuple[list[tuple], list[tuple]]:
    """Explicit arrangements for a knock discarding ``card``: (valid ones, invalid ones)."""
    h = match.hand
    seat = match.to_act
    assert seat is not None
    rest = h.held(seat) & ~(1 << card)
    rest_cards = cards_of(rest)
    valid: list[tuple] = []
    invalid: list[tuple] = [()]  # no melds: 10 cards are worth at least 18 > any limit
    for chosen in itertools.islice(arrangements(rest), 400):
        melded = 0
        for m in chosen:
            melded |= m
        melds = tuple(tuple(cards_of(m)) for m in chosen)
        if mask_value(rest & ~melded) <= h.knock_limit:
            valid.append(melds)
        else:
            invalid.append(melds)
    if valid and valid[0]:
        good = valid[0]
        invalid.append((*good, good[0]))  # the same meld twice: not disjoint (R1.7)
        invalid.append(((*good[0], card), *good[1:]))  # the knock discard inside a meld
        invalid.append((good[0][:2], *good[1:]))  # a two-card "meld"
    trio = _non_meld(rest_cards)
    if trio is not None:
        invalid.append((trio,))
    outsider = [c for c in range(52) if not h.held(seat) >> c & 1][:3]
    invalid.append((tuple(outsider),))
    return valid, invalid


def illegal_candidates(match: Match) -> list[Action]:
    """Actions not in the legal list that the engine must refuse (explicit knocks excepted)."""
    legal = set(match.legal_actions())
    simple: list[Action] = [
        DrawStock(),
        DrawDiscard(),
        Pass(),
        DeclareDead(),
        ChooseDeal(True),
        ChooseDeal(False),
        BigGin(),
    ]
    for c in range(52):
        simple += [Discard(c), Knock(c)]
    out = [a for a in simple if a not in legal]
    if match.phase is not Phase.DEFENDER:
        out.append(DefenderPlay((), ()))
    else:
        h = match.hand
        seat = match.to_act
        assert seat is not None
        own = cards_of(h.held(seat))
        knocker = h.held(1 - seat)
        out.append(DefenderPlay((), (cards_of(knocker)[0],)))  # lays off a card it lacks
        trio = _non_meld(own)
        if trio is not None:
            out.append(DefenderPlay((trio,), ()))
        assert h.knock is not None
        if h.knock.kind is not HandOutcome.KNOCK:
            out.append(DefenderPlay((), (own[0],)))  # no layoffs against gin (R6.3a)
        for meld in every_meld(own):
            card = cards_of(meld)[0]
            out.append(DefenderPlay((tuple(cards_of(meld)),), (card,)))  # melded and laid off
            break
        spread = h.knock.arrangement
        if spread.melds:  # the knocker's meld as the defender's own (R6.3b)
            out.append(DefenderPlay((spread.melds[0].cards,), ()))
    return out


def defender_declarations(
    defender: int, knocker: Sequence[Sequence[int]], layoffs_allowed: bool, limit: int = 60
) -> Iterator[tuple[tuple[tuple[int, ...], ...], tuple[int, ...], bool]]:
    """Declarations (own melds, layoffs) with whether R6.2-R6.5 make them valid."""
    count = 0
    for chosen in arrangements(defender):
        melded = 0
        for m in chosen:
            melded |= m
        free = cards_of(defender & ~melded)
        melds = tuple(tuple(cards_of(m)) for m in chosen)
        for size in range(len(free) + 1):
            for x in itertools.combinations(free, size):
                ok = not x or (layoffs_allowed and layoffs_feasible(knocker, x))
                yield melds, x, ok
                count += 1
                if count >= limit:
                    return


def assert_rejected(match: Match, action: Action) -> None:
    before = match.fingerprint()
    assert not match.is_legal(action), action
    try:
        match.apply(action)
    except IllegalActionError as exc:
        assert exc.rule.startswith("R"), (action, exc.rule)
    else:
        raise AssertionError(f"{action} was accepted in phase {match.phase}")
    assert match.fingerprint() == before, action


@pytest.mark.slow
@WALK
@given(ANY_WALK)
def test_illegal_actions_rejected(case: tuple[Rules, int, bool, list[int]]) -> None:
    """R11.1: anything outside the legal set is refused, names a rule, and changes nothing."""
    for match in walk(*case):
        for action in illegal_candidates(match):
            assert_rejected(match, action)
        if match.phase is Phase.DEFENDER:
            # R6.6 declared: every valid declaration is legal, every invalid one refused; under
            # declared_melds the referee lays off, so a declaration with layoffs is invalid.
            h = match.hand
            assert h.knock is not None and match.to_act is not None
            spread = h.knock.arrangement
            knocker = [m.cards for m in spread.melds] if h.knock.kind is HandOutcome.KNOCK else []
            gin = h.knock.kind is not HandOutcome.KNOCK
            layoffs = not gin and match.rules.defender_play == "declared"
            for melds, x, ok in defender_declarations(h.held(match.to_act), knocker, layoffs):
                if ok:
                    assert match.is_legal(DefenderPlay(melds, x)), (melds, x)
                else:
                    assert_rejected(match, DefenderPlay(melds, x))
        if match.phase is not Phase.DISCARD:
            continue
        # Knocks with an explicit arrangement (R5.3, R5.4): legal iff the arrangement is valid
        # and within the limit, for a discard that may knock, under knocker_arrangement = free.
        free = match.rules.knocker_arrangement == "free"
        for action in match.legal_actions():
            if not isinstance(action, Knock):
                continue
            valid, invalid = knock_declarations(match, action.card)
            assert valid, f"{action} is listed but no arrangement is within the limit"
            for melds in invalid:
                assert_rejected(match, Knock(action.card, melds))
            for melds in valid[:20]:
                explicit = Knock(action.card, melds)
                if not free:
                    assert_rejected(match, explicit)  # knocker_arrangement = auto (R5.4)
                elif not match.rules.force_gin:
                    assert match.is_legal(explicit), explicit
                    other = match.copy()
                    other.apply(explicit)
                    if len(other.hand_results) > len(match.hand_results):
                        declared = other.hand_results[-1].knocker_arrangement
                    else:  # defender_play = declared: the showdown waits for the defender
                        declared = other.hand.knock.arrangement
                    assert declared is not None
                    assert {m.cards for m in declared.melds} == {
                        tuple(sorted(m, key=lambda c: (c % 13, c // 13))) for m in melds
                    }
        # Explicit arrangements with a discard that may not knock are refused as well.
        seat = match.to_act
        assert seat is not None
        listed = {a.card for a in match.legal_actions() if isinstance(a, Knock)}
        for card in cards_of(match.hand.held(seat)):
            if card not in listed:
                best = best_arrangement(match.hand.held(seat) & ~(1 << card))
                assert_rejected(match, Knock(card, tuple(m.cards for m in best.melds)))
        # Big gin with an explicit arrangement (R5.9): all 11 cards melded, and only when listed.
        hand = match.hand.held(seat)
        for chosen in itertools.islice(arrangements(hand), 200):
            melded = 0
            for m in chosen:
                melded |= m
            declared = BigGin(tuple(tuple(cards_of(m)) for m in chosen))
            if melded == hand and BigGin() in match.legal_actions():
                assert match.is_legal(declared), declared
            else:
                assert_rejected(match, declared)


def _states_of_every_phase() -> Iterator[Match]:
    """One match in each phase where a card could be named (offer, draw, discard, defender)."""
    rules = Rules.profile("standard", defender_play="declared")
    for greedy in (False, True):
        for match in walk(rules, 7, greedy, [0] * MAX_STEPS):
            if match.result is None:
                yield match


def test_out_of_range_cards_are_refused() -> None:
    """A card index outside 0..51 is malformed input: a GinRefError, and nothing changes.

    (``Discard(-1)`` once raised a bare ``ValueError("negative shift count")`` from a bit shift.)
    """
    seen = set()
    failures = []
    for match in _states_of_every_phase():
        if match.phase in seen:
            continue
        seen.add(match.phase)
        for action in (Discard(52), Discard(-1), Knock(52), Knock(-1), Knock(-1, ((0, 1, 2),))):
            before = match.fingerprint()
            try:
                match.apply(action)
            except GinRefError:
                pass
            except Exception as exc:
                failures.append(f"{match.phase.value}: {action!r} raised {exc!r}")
            else:
                failures.append(f"{match.phase.value}: {action!r} was accepted")
            assert match.fingerprint() == before
    assert {Phase.UPCARD_OFFER, Phase.DRAW, Phase.DISCARD, Phase.DEFENDER} <= seen
    assert not failures, "\n".join(failures)


# --- Determinism (R11.4) -------------------------------------------------------------------------


@WALK
@given(ANY_WALK)
def test_seed_and_actions_replay(case: tuple[Rules, int, bool, list[int]]) -> None:
    """Seed plus recorded actions reproduce the state exactly (STYLE.md lesson 4)."""
    rules, seed, greedy, choices = case
    match = Match(rules, seed)
    log: list[Action] = []
    prints = []
    for choice in choices:
        if match.result is not None:
            break
        prints.append(match.fingerprint())
        action = choose(match, choice, greedy)
        log.append(action)
        match.apply(action)
    replay = Match(rules, seed)
    for action, expected in zip(log, prints, strict=True):
        assert replay.fingerprint() == expected
        replay.apply(action)
    assert replay.fingerprint() == match.fingerprint()
    assert replay.hand_results == match.hand_results
    assert replay.result == match.result


# --- Minimum deadwood (A.1) ------------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(hands())
def test_min_deadwood_matches_brute_force(hand: int) -> None:
    assert min_deadwood(hand) == brute_min_deadwood(hand)
    assert min_deadwood(cards_of(hand)) == min_deadwood(hand)


@settings(max_examples=150, deadline=None)
@given(hands(min_size=1))
def test_deadwood_after_discard_matches_brute_force(hand: int) -> None:
    expected = {c: brute_min_deadwood(hand & ~(1 << c)) for c in cards_of(hand)}
    assert deadwood_by_discard(hand) == expected
    assert min_deadwood_after_discard(hand) == min(expected.values())


@settings(max_examples=300, deadline=None)
@given(hands())
def test_best_arrangement_is_optimal_and_valid(hand: int) -> None:
    arrangement = best_arrangement(hand)
    assert arrangement.deadwood_count == min_deadwood(hand)
    used = 0
    for meld in arrangement.melds:
        assert is_meld(meld.cards), meld
        m = mask_of(meld.cards)
        assert m & hand == m, "meld outside the hand"
        assert not m & used, "melds overlap"
        used |= m
    assert mask_of(arrangement.deadwood) == hand & ~used
    assert arrangement.deadwood_count == mask_value(hand & ~used)


# --- Observation hiding (R2.8, R11.3; STYLE.md lesson 5) -------------------------------------
# These build a twin state that differs only in hidden cards. No public API can change a hand, so
# the twins are made by writing the copy's private fields, which only the engine does otherwise.


def _hidden_swap(match: Match, seat: int, pick: int) -> Match | None:
    """A copy in which one of the opponent's concealed cards is exchanged with a stock card."""
    h = match.hand
    other = 1 - seat
    if h.knock is not None and h.knock.knocker == other:
        return None  # the knocker's cards are spread face up (R5.2)
    concealed = cards_of(h.held(other) & ~h.known(other))
    stock = list(h.stock)
    if not concealed or not stock:
        return None
    x = concealed[pick % len(concealed)]
    y = stock[(pick // 7) % len(stock)]
    b = match.copy()
    hb = b.hand
    deck = list(hb.deck)
    i, j = deck.index(x), deck.index(y)
    deck[i], deck[j] = deck[j], deck[i]
    hb._deck = tuple(deck)
    hb._hands[other] ^= (1 << x) | (1 << y)
    # The opponent may have drawn x from the stock: its private event changes with it.
    hb._events = [
        type(e)(e.seat, e.kind, y) if e.seat == other and e.card == x else e for e in hb.events
    ]
    return b


def _interesting_states(case: tuple[Rules, int, bool, list[int]]) -> Iterator[Match]:
    for match in walk(*case):
        if match.hand is not None and match.result is None:
            yield match


@settings(WALK, max_examples=40)
@given(ANY_WALK, st.integers(0, 1 << 16))
def test_observation_hides_opponent_hand(
    case: tuple[Rules, int, bool, list[int]], pick: int
) -> None:
    checked = 0
    for match in _interesting_states(case):
        for seat in (0, 1):
            b = _hidden_swap(match, seat, pick + checked)
            if b is None:
                continue
            checked += 1
            assert b.fingerprint() != match.fingerprint()
            check_cards_accounted(b)
            assert observe(match, seat) == observe(b, seat)
            # Converse: the opponent sees its own hand change.
            assert observe(match, 1 - seat) != observe(b, 1 - seat)
            if match.phase is Phase.DISCARD and match.to_act == seat:
                # R5.4: the referee's arrangement for a knock without melds uses only what the
                # knocker knows, so it cannot depend on the opponent's concealed cards either.
                for action in match.legal_actions():
                    if isinstance(action, Knock):
                        assert _spread_after(match, action) == _spread_after(b, action)
                        break


def _spread_after(match: Match, action: Knock) -> object:
    other = match.copy()
    other.apply(action)
    if len(other.hand_results) > len(match.hand_results):
        return other.hand_results[-1].knocker_arrangement
    return other.hand.knock.arrangement


@settings(WALK, max_examples=40)
@given(ANY_WALK, st.randoms(use_true_random=False))
def test_observation_hides_stock_order(
    case: tuple[Rules, int, bool, list[int]], rnd: random.Random
) -> None:
    for match in _interesting_states(case):
        h = match.hand
        stock = list(h.stock)
        shuffled = stock[:]
        rnd.shuffle(shuffled)
        b = match.copy()
        b.hand._deck = h.deck[: 52 - h.stock_size] + tuple(shuffled)
        check_cards_accounted(b)
        for seat in (0, 1):
            assert observe(match, seat) == observe(b, seat)


@settings(WALK, max_examples=40)
# A face-up knock discard (knock_discard = face_up) is on the pile for the defender to see.
@given(
    walks(
        [r for r in CONFIGS if r.defender_play == "declared" and r.knock_discard == "face_down"],
        greedy=True,
    )
)
def test_observation_hides_knock_discard_from_defender(
    case: tuple[Rules, int, bool, list[int]],
) -> None:
    """R5.2: the knock discard is face down; the defender's view does not depend on it."""
    for match in _interesting_states(case):
        h = match.hand
        if match.phase is not Phase.DEFENDER or h.knock_discard is None:
            continue
        defender = match.to_act
        assert defender is not None
        x, y = h.knock_discard, h.stock[0]
        if any(e.card == x and e.kind not in ("draw_stock", "knock", "gin") for e in h.events):
            continue  # x was seen face up (taken from the pile): the defender knows of it
        b = match.copy()
        hb = b.hand
        deck = list(hb.deck)
        i, j = deck.index(x), deck.index(y)
        deck[i], deck[j] = deck[j], deck[i]
        hb._deck = tuple(deck)
        hb._knock_discard = y
        hb._events = [type(e)(e.seat, e.kind, y) if e.card == x else e for e in hb.events]
        check_cards_accounted(b)
        assert observe(match, defender) == observe(b, defender)


# --- Defender optimum (R6.6, A.3) ------------------------------------------------------------


@st.composite
def showdowns(draw: st.DrawFn) -> tuple[list[tuple[int, ...]], int]:
    """Disjoint knocker melds and a defender hand of 10 other cards, both from a narrow band of
    ranks so that layoffs (chained ones included) are common."""
    width = draw(st.integers(5, 9))
    lo = draw(st.integers(0, 13 - width))
    pool = [13 * s + r for s in range(4) for r in range(lo, lo + width)]
    knocker_cards = draw(st.permutations(pool))[:10]
    order = draw(st.permutations(every_meld(knocker_cards)))
    chosen: list[int] = []
    used = 0
    limit = draw(st.integers(0, 3))
    for m in order:
        if len(chosen) < limit and not m & used:
            chosen.append(m)
            used |= m
    rest = [c for c in pool if not (mask_of(knocker_cards) >> c & 1)]
    if len(rest) < 10:
        rest += [c for c in range(52) if c not in pool]
    defender = draw(st.permutations(rest))[:10]
    return [tuple(cards_of(m)) for m in chosen], mask_of(defender)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(showdowns())
def test_defender_optimum_matches_brute_force(case: tuple[list[tuple[int, ...]], int]) -> None:
    melds, defender = case
    knocker = [Meld.of(m) for m in melds]
    play = defender_optimum(defender, knocker)
    expected = brute_defender_deadwood(defender, melds)
    assert play.deadwood_count == expected
    assert play.deadwood_count <= min_deadwood(defender)
    # The play itself is a valid partition of the defender's hand (R6.1).
    used = 0
    for meld in play.melds:
        assert is_meld(meld.cards)
        m = mask_of(meld.cards)
        assert m & defender == m and not m & used
        used |= m
    laid = [c for c, _ in play.layoffs]
    assert not mask_of(laid) & used and mask_of(laid) & defender == mask_of(laid)
    assert layoffs_feasible(melds, laid)
    assert mask_of(play.deadwood) == defender & ~used & ~mask_of(laid)
    # Against gin (no knocker melds) there are no layoffs (R6.3a).
    gin = defender_optimum(defender, ())
    assert gin.layoffs == () and gin.deadwood_count == brute_min_deadwood(defender)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(showdowns(), st.integers(0, 1 << 16))
def test_defender_declarations_validated(
    case: tuple[list[tuple[int, ...]], int], start: int
) -> None:
    """R6.6 declared: a declaration is accepted iff R6.2-R6.5 allow it, and scored as made."""
    melds, defender = case
    knocker = [Meld.of(m) for m in melds]
    for own, x, ok in itertools.islice(
        defender_declarations(defender, melds, True, limit=start % 200 + 60), start % 200, None
    ):
        try:
            play = check_defender_play(defender, knocker, own, x, True)
        except CardError:
            assert not ok, (own, x)
            continue
        assert ok, (own, x)
        assert sorted(c for c, _ in play.layoffs) == sorted(x)
        rest = defender & ~mask_of(x)
        for m in own:
            rest &= ~mask_of(m)
        assert play.deadwood_count == mask_value(rest)


# --- Regressions: engine bugs these properties found -------------------------------------------


def test_rlcard_wall_retake_of_barred_card_leaves_a_legal_action() -> None:
    """R4.3 allowed_gra with R7.5 (wall_rule = rlcard): the match must never stall.

    At a 2-card stock, P takes the discard and discards it again (legal under allowed_gra), which
    bars O from taking it except to knock. The rlcard wall still offers O the take, and after it
    O must knock but cannot: no legal action, and the match is not over.
    """
    match = Match(Rules.profile("rlcard", discard_taken_card="allowed_gra"), 0)
    h = match.hand
    while match.phase is not Phase.WALL:  # everyone draws and throws the drawn card back
        assert match.result is None and not match.hand_results
        seat = match.to_act
        assert seat is not None
        if match.phase is Phase.DRAW:
            match.apply(DrawStock())
        else:
            last = h.events[-1]
            drawn = last.card if last.kind == "draw_stock" else cards_of(h.held(seat))[0]
            assert drawn is not None
            match.apply(Discard(drawn))
    top = h.pile[-1]
    match.apply(DrawDiscard())
    match.apply(Discard(top))  # the card just taken: the opponent may retake it only to knock
    assert match.phase is Phase.WALL
    for action in match.legal_actions():
        after = match.copy()
        after.apply(action)
        assert after.result is not None or after.legal_actions(), (
            f"after {action} at the wall the match has no legal action"
        )


def _gin_deck() -> list[int]:
    """Non-dealer (seat 0) holds a 10-card gin; the dealer holds 98 points of deadwood."""
    from referee.engine.cards import parse_cards

    non_dealer = parse_cards("AC 2C 3C 4C AD 2D 3D AH 2H 3H")
    dealer = parse_cards("KC QD JH TS 9C KD QH JS TC 9D")
    order = [c for pair in zip(non_dealer, dealer, strict=True) for c in pair]
    order += parse_cards("KS")  # the upcard
    return order + [c for c in range(52) if c not in order]


def test_single_hand_scope_ends_as_single_hand_even_past_the_target() -> None:
    """R9.9: a single-hand match has no game, so no target, game bonus or shutout applies.

    Engine bug at the time of writing: a single hand worth >= target (gin 25 + D 98 = 123 here)
    ends with Termination.TARGET and a settled game, and a game_bonus override is added to it.
    """
    for overrides in ({}, {"game_bonus": 100}):
        rules = Rules.profile("openspiel", **overrides)
        match = Match(rules, 0, decks=[_gin_deck()], first_dealer=1)
        match.apply(DrawDiscard())  # seat 0 takes the upcard K♠ ...
        match.apply(Knock(51))  # ... and turns it face down: gin
        match.apply(match.legal_actions()[0])  # the defender declares its melds (R6.6)
        (hand,) = match.hand_results
        assert hand.outcome is HandOutcome.GIN and hand.points == 123
        assert match.result is not None
        assert match.result.termination.value == "single_hand", match.result
        assert match.result.final == (123, 0), match.result
