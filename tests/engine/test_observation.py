"""Every field of a seat's observation (referee/engine/observation.py), at every step of whole
matches: what R2.8 and R11.3 let the seat see, read from the match through its public state,
and nothing more (the other seat's turn-only fields stay empty)."""

from __future__ import annotations

import random

import pytest

from referee.engine.actions import Action, BigGin, Discard, Knock
from referee.engine.cards import cards_of
from referee.engine.group import GroupMatch
from referee.engine.match import Match
from referee.engine.observation import PRIVATE_CARD_EVENTS, Observation, observe, observe_seat
from referee.engine.outcomes import Event
from referee.engine.rules import Rules

STEPS = 4000


def pick(actions: list[Action], rng: random.Random) -> Action:
    """Knock or go gin when possible (so that matches reach showdowns and end), else at random."""
    outs = [a for a in actions if isinstance(a, Knock | BigGin)]
    if outs and rng.random() < 0.7:
        return rng.choice(outs)
    discards = [a for a in actions if isinstance(a, Discard)]
    return rng.choice(discards or actions) if rng.random() < 0.9 else rng.choice(actions)


def hidden(events: tuple[Event, ...], seat: int) -> tuple[Event, ...]:
    """The hand's events with the card of the other seat's private events (a stock draw, the
    face-down knock discard) taken out."""
    return tuple(
        Event(e.seat, e.kind, None) if e.kind in PRIVATE_CARD_EVENTS and e.seat != seat else e
        for e in events
    )


def check_two(match: Match, seat: int, obs: Observation) -> None:
    h = match.hand
    turn = match.to_act == seat
    assert (obs.seat, obs.player, obs.players, obs.hand_seats) == (seat, seat, 2, (0, 1))
    assert (obs.rules, obs.phase, obs.to_act, obs.cut) == (
        match.rules,
        match.phase,
        match.to_act,
        match.cut,
    )
    assert obs.scores == match.scores
    assert obs.legal_actions == (tuple(match.legal_actions()) if turn else ())
    assert obs.last_hand == (match.hand_results[-1] if match.hand_results else None)
    if h is None:  # before the first deal: no card, no hand, nothing won yet
        assert match.cut is not None and obs.cut == match.cut
        assert (obs.hand, obs.discard_pile, obs.events, obs.upcard) == ((), (), (), None)
        assert (obs.stock_size, obs.opponent_known, obs.opponent_hand_size) == (0, (), 0)
        assert (obs.dealer, obs.hand_number, obs.turns) == (-1, 0, 0)
        assert (obs.hands_won, obs.extra_boxes, obs.game_scores) == ((0, 0), (0, 0), ())
        assert (obs.knock_limit, obs.knock, obs.taken, obs.barred) == (
            match.rules.knock_limit,
            None,
            None,
            None,
        )
        assert obs.must_knock is False
        return
    other = 1 - seat
    assert obs.hand == h.cards_of(seat)
    assert obs.discard_pile == h.pile and obs.stock_size == h.stock_size
    assert (obs.knock_limit, obs.upcard, obs.knock) == (h.knock_limit, h.upcard, h.knock)
    assert (obs.dealer, obs.hand_number, obs.turns) == (h.dealer, h.number, h.turns)
    assert obs.opponent_known == tuple(cards_of(h.known(other)))
    assert obs.opponent_hand_size == len(h.cards_of(other))
    assert obs.events == hidden(h.events, seat)
    board = match.board
    assert (obs.hands_won, obs.extra_boxes, obs.game_scores) == (
        board.hands_won,
        board.extra_boxes,
        board.game_points,
    )
    if not turn:  # what the seat took, its barred card, a forced knock: only on its own turn
        assert (obs.taken, obs.barred, obs.must_knock) == (None, None, False)
    if obs.barred is not None:
        assert obs.discard_pile[-1] == obs.barred


CONFIGS = {
    "standard": Rules.profile("standard"),
    "oklahoma": Rules.profile("oklahoma"),
    "hollywood": Rules.profile("standard", hollywood=True),
    "pagat": Rules.profile("pagat"),
    # The high cutter chooses who deals (R2.2): a first decision before any card is dealt.
    "cut_high_chooses": Rules.profile("standard", first_dealer="cut_high_chooses"),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_a_seat_sees_its_share_of_the_match_at_every_step(name: str) -> None:
    rng = random.Random(name)
    undealt = 0
    for seed in range(3):
        match = Match(CONFIGS[name], seed)
        for _ in range(STEPS):
            undealt += match.hand is None
            for seat in (0, 1):
                obs = observe(match, seat)
                check_two(match, seat, obs)
                assert observe_seat(match, seat) == obs
            if match.result is not None:
                break
            match.apply(pick(match.legal_actions(), rng))
        assert len(match.hand_results) >= 3  # the walk saw showdowns and new deals
    assert (undealt > 0) == (name == "cut_high_chooses")


def check_group(match: GroupMatch, seat: int, obs: Observation) -> None:
    assert (obs.player, obs.players, obs.rules, obs.cut) == (
        seat,
        match.players,
        match.rules,
        match.cut,
    )
    assert obs.sitting_out == match.sitting_out
    totals = tuple(zip(match.scores, match.hands_won, match.extra_boxes, strict=True))
    assert (obs.team_scores if match.teams else obs.player_scores) == totals
    assert (obs.player_scores if match.teams else obs.team_scores) == ()
    table = match.table_of(seat)
    # Every seat sees the scores, hands won and extra boxes of the hand's seats (a team's, with
    # partnerships), in hand seat order.
    shown = table if table is not None else match.tables[0]

    def by_hand_seat(values: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(values[s % 2] if match.teams else values[s] for s in shown.seats)

    assert obs.hand_seats == shown.seats
    assert obs.scores == by_hand_seat(match.scores)
    assert obs.hands_won == by_hand_seat(match.hands_won)
    assert obs.extra_boxes == by_hand_seat(match.extra_boxes)
    if table is None:  # sitting out: not one card of the hand in play
        h = match.tables[0].hand
        assert obs.seat == -1 and obs.to_act is None and obs.legal_actions == ()
        assert (obs.hand, obs.discard_pile, obs.events, obs.upcard, obs.knock) == (
            (),
            (),
            (),
            None,
            None,
        )
        assert (obs.opponent_known, obs.opponent_hand_size, obs.taken, obs.barred) == (
            (),
            0,
            None,
            None,
        )
        assert (obs.stock_size, obs.knock_limit) == (h.stock_size, h.knock_limit)
        assert (obs.dealer, obs.hand_number, obs.turns, obs.game_scores) == (
            h.dealer,
            h.number,
            0,
            (),
        )
        assert obs.must_knock is False and obs.phase == match.phase
        assert obs.last_hand == (match.hand_results[-1] if match.hand_results else None)
        return
    hand_seat = table.hand_seat(seat)
    assert hand_seat is not None and obs.seat == hand_seat
    assert obs.table == table.number
    h = table.hand
    assert obs.hand == h.cards_of(hand_seat)
    assert obs.events == hidden(h.events, hand_seat)
    assert obs.opponent_known == tuple(cards_of(h.known(1 - hand_seat)))
    # The last hand this seat played: with partnerships seats 1 and 3 change tables.
    played = [r for r in match.hand_results if not match.teams or seat in r.seats]
    assert obs.last_hand == (played[-1] if played else None)
    assert obs.legal_actions == (tuple(match.legal_actions()) if match.to_act == seat else ())
    # Not one card the opponent at the table holds, beyond those it took from the pile.
    opponent = set(h.cards_of(1 - hand_seat))
    assert not set(obs.hand) & opponent
    assert set(obs.opponent_known) <= opponent


@pytest.mark.parametrize("players", [3, 4])
def test_a_group_seat_sees_its_table_and_the_scores_at_every_step(players: int) -> None:
    rng = random.Random(players)
    for seed in range(2):
        match = GroupMatch(Rules.profile("standard", players=players), seed)
        for _ in range(STEPS):
            for seat in range(players):
                check_group(match, seat, observe_seat(match, seat))
            if match.result is not None:
                break
            match.apply(pick(match.legal_actions(), rng))
        assert len(match.hand_results) >= 3
