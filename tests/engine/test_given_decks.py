"""A match given decks (a deal file's): hand k, dead hands counted, is dealt from deck k and the
first hand by the given dealer; past the given decks the match deals from its seed."""

from __future__ import annotations

from referee.engine.actions import Action, Discard, DrawStock, Pass
from referee.engine.deal import hand_deck
from referee.engine.game import new_game
from referee.engine.outcomes import Phase
from referee.engine.rules import Rules


def test_a_dead_hand_is_redealt_from_the_next_given_deck_then_from_the_seed() -> None:
    """Neither seat takes the upcard nor ever knocks, each drawing from the stock, so the stock
    runs down to the wall and the hand is dead (R8): the redeal is the next deck's."""
    rules = Rules.profile("standard")
    seed = 42
    decks = [hand_deck(900, 0), hand_deck(901, 0)]
    seed_dealer = new_game(rules, seed).hand
    assert seed_dealer is not None
    given_dealer = 1 - seed_dealer.dealer  # not the seed's: the given one must win
    match = new_game(rules, seed, decks=decks, first_dealer=given_dealer)
    seen: list[tuple[int, list[int]]] = []
    while match.hands_dealt <= 3 and match.result is None:
        hand = match.hand
        assert hand is not None
        if not seen or seen[-1][0] != hand.number:
            seen.append((hand.number, list(hand.deck)))
            if hand.number == 0:
                assert hand.dealer == given_dealer
        legal = match.legal_actions()
        discards = [a for a in legal if isinstance(a, Discard)]
        if match.phase is Phase.DISCARD and discards:
            action: Action = discards[0]
        elif Pass() in legal:
            action = Pass()
        elif DrawStock() in legal:
            action = DrawStock()
        else:
            action = legal[0]
        match.apply(action)
    assert [number for number, _ in seen[:3]] == [0, 1, 2]
    assert seen[0][1] == decks[0] and seen[1][1] == decks[1]
    assert seen[2][1] == hand_deck(seed, 2)  # past the given decks: the seed's third
