"""The ``neller-eaai`` profile against Neller's EAAI framework's game, hand for hand.

:class:`Framework` below is a model of the framework's ``GinRummyGame.play`` written from what its
documentation and the game's described steps say it does (tneller/gin-rummy-eaai: the
``GinRummyPlayer`` javadoc and docs/rules.md §12.6), not from its code:

- ten cards each, dealt one at a time from the top of the deck, player 0 first whoever starts;
  the next card is the face-up card;
- the starting player is offered the face-up card, then the other player; if both decline, the
  starting player must draw face down; after that each turn draws face up or face down;
- after each discard (a card just drawn face up may not be discarded) the player is asked for its
  final melds; melds mean a knock, scored on the cards those melds leave; the opponent is then
  asked for its own melds, and, unless the knocker has no deadwood (gin), its other cards are laid
  off one at a time: the first of them, in the framework's card order (clubs, hearts, spades,
  diamonds; ace to king), that extends one of the knocker's melds, on the first such meld in the
  order the knocker gave them, then again from the first card, until none fits;
- gin scores 25 plus the opponent's deadwood, a knock the difference, and anything else is an
  undercut, 25 plus the difference to the opponent;
- a turn is played only while the draw pile holds more than two cards; a round that ends
  without a knock is cancelled and the same player starts again; after a scored round the other
  player starts; the game ends when a player reaches 100.

Deterministic agents play it and, through its actions, the engine on the same decks; every hand
must come out alike (who starts, gin, knock or undercut, who wins, the points and both deadwood
counts). The agents differ in the order they show their melds in when they knock and in the melds
they declare as defender, so that both orders of the framework's layoffs are exercised.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass

from referee.engine import melds as M
from referee.engine.actions import (
    Action,
    DefenderPlay,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    Pass,
)
from referee.engine.cards import CARD_VALUES, Card, mask_of, parse_cards
from referee.engine.match import Match
from referee.engine.outcomes import HandOutcome, Phase
from referee.engine.rules import Rules

Melds = tuple[tuple[Card, ...], ...]
HANDS = 3000  # at least this many hands are compared

# --- the framework's game ------------------------------------------------------------------------

_FRAMEWORK_SUITS = (0, 3, 1, 2)  # our suits (clubs, diamonds, hearts, spades) in its numbering


def framework_number(card: Card) -> int:
    """The framework's number for a card: suits clubs, hearts, spades, diamonds; ranks A to K."""
    return _FRAMEWORK_SUITS[card // 13] * 13 + card % 13


def framework_is_meld(cards: Sequence[Card]) -> bool:
    """Three or four of a rank, or three or more of a suit in consecutive ranks (ace low)."""
    ranks = sorted(c % 13 for c in cards)
    if len(cards) < 3 or len(set(cards)) != len(cards):
        return False
    if len(set(ranks)) == 1:
        return len(cards) <= 4
    same_suit = len({c // 13 for c in cards}) == 1
    return same_suit and ranks == list(range(ranks[0], ranks[0] + len(ranks)))


def framework_deadwood(cards: object) -> int:
    return sum(min(c % 13 + 1, 10) for c in cards)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Outcome:
    """One hand as both sides score it."""

    starter: int
    kind: str  # gin, knock, undercut, dead
    winner: int | None
    points: int
    knocker_deadwood: int | None
    defender_deadwood: int | None


class Agent:
    """A deterministic player: every decision is a function of its own cards and the card shown.

    It draws face up only to lower its best deadwood (so a hand always ends), discards the card
    that leaves the least deadwood (the highest on a tie), and knocks as soon as it may.
    """

    def __init__(self, runs_first: bool, defence: str, knock_at: int = 10) -> None:
        self.runs_first = runs_first  # the order its melds are shown in when it knocks
        self.defence = defence  # "best", "sets" (its best melds' sets only) or "none"
        self.knock_at = knock_at

    # Both games ask the same questions of the same cards: each answer is worked out once.
    @functools.cache  # noqa: B019 (the agents live as long as the module anyway)
    def take_face_up(self, hand: frozenset[Card], card: Card) -> bool:
        after = M.deadwood_by_discard(mask_of(hand) | 1 << card)
        return min(v for c, v in after.items() if c != card) < M.min_deadwood(mask_of(hand))

    @functools.cache  # noqa: B019
    def discard(self, hand: frozenset[Card], taken: Card | None) -> Card:
        after = M.deadwood_by_discard(mask_of(hand))
        choices = [c for c in hand if c != taken]
        return min(choices, key=lambda c: (after[c], -CARD_VALUES[c], -c))

    @functools.cache  # noqa: B019
    def knock(self, hand: frozenset[Card]) -> Melds | None:
        if M.min_deadwood(mask_of(hand)) > self.knock_at:
            return None
        arrangement = M.best_arrangement(mask_of(hand))
        shown = [m.cards for m in arrangement.melds]  # sets before runs
        if self.runs_first:
            shown = [m for m in shown if m[0] % 13 != m[1] % 13] + [
                m for m in shown if m[0] % 13 == m[1] % 13
            ]
        return tuple(shown)

    def defend(self, hand: frozenset[Card]) -> Melds:
        melds = tuple(m.cards for m in M.best_arrangement(mask_of(hand)).melds)
        if self.defence == "sets":
            return tuple(m for m in melds if m[0] % 13 == m[1] % 13)
        return () if self.defence == "none" else melds


def framework_showdown(
    knocker_melds: Melds, knocker_hand: set[Card], defender_melds: Melds, defender: set[Card]
) -> tuple[int, int]:
    """The knocker's and the defender's deadwood, the defender's after the framework's layoffs."""
    melded = {c for m in knocker_melds for c in m}
    k = framework_deadwood(knocker_hand - melded)
    unmelded = sorted(defender - {c for m in defender_melds for c in m}, key=framework_number)
    targets = [list(m) for m in knocker_melds]
    while k > 0:
        fit = next(
            ((c, t) for c in unmelded for t in targets if framework_is_meld([*t, c])),
            None,
        )
        if fit is None:
            break
        card, target = fit
        target.append(card)
        unmelded.remove(card)
    return k, framework_deadwood(unmelded)


def framework_hand(deck: Sequence[Card], starter: int, agents: Sequence[Agent]) -> Outcome:
    """One round of the framework's game, dealt from ``deck`` (its first card dealt first)."""
    pile = list(reversed(deck))  # the top of the framework's deck is the end of this list
    hands: list[set[Card]] = [set(), set()]
    for i in range(20):
        hands[i % 2].add(pile.pop())
    discards = [pile.pop()]
    first_face_up = discards[-1]
    current, turns = starter, 0
    while len(pile) > 2:
        face_up = discards[-1]
        offer = not (turns == 2 and face_up == first_face_up)
        take = offer and agents[current].take_face_up(frozenset(hands[current]), face_up)
        if take or not (turns < 2 and face_up == first_face_up):
            drawn = discards.pop() if take else pile.pop()
            hands[current].add(drawn)
            card = agents[current].discard(frozenset(hands[current]), drawn if take else None)
            assert card in hands[current] and not (take and card == drawn)
            hands[current].remove(card)
            discards.append(card)
            shown = agents[current].knock(frozenset(hands[current]))
            if shown is not None:
                other = 1 - current
                declared = agents[other].defend(frozenset(hands[other]))
                k, d = framework_showdown(shown, hands[current], declared, hands[other])
                if k == 0:
                    return Outcome(starter, "gin", current, 25 + d, k, d)
                if k < d:
                    return Outcome(starter, "knock", current, d - k, k, d)
                return Outcome(starter, "undercut", other, 25 + k - d, k, d)
        turns += 1
        current = 1 - current
    return Outcome(starter, "dead", None, 0, None, None)


def framework_game(
    decks: Sequence[Sequence[Card]], starter: int, agents: Sequence[Agent]
) -> list[Outcome]:
    scores = [0, 0]
    out: list[Outcome] = []
    for deck in decks:
        hand = framework_hand(deck, starter, agents)
        out.append(hand)
        if hand.winner is not None:
            scores[hand.winner] += hand.points
            starter = 1 - starter
            if max(scores) >= 100:
                return out
    raise AssertionError("the game needs more decks")


# --- the same agents through the engine ----------------------------------------------------------


def engine_game(
    rules: Rules, decks: Sequence[Sequence[Card]], starter: int, agents: Sequence[Agent]
) -> list[Outcome]:
    m = Match(rules, 0, decks=decks, first_dealer=1 - starter)
    taken: Card | None = None
    while m.result is None:
        h = m.hand
        assert h is not None
        seat = m.to_act
        assert seat is not None
        agent, held = agents[seat], frozenset(h.cards_of(seat))
        action: Action
        if m.phase in (Phase.UPCARD_OFFER, Phase.DRAW):
            offered = DrawDiscard() in m.legal_actions()
            take = offered and agent.take_face_up(held, h.pile[-1])
            taken = h.pile[-1] if take else None
            action = DrawDiscard() if take else (DrawStock() if m.phase is Phase.DRAW else Pass())
        elif m.phase is Phase.DISCARD:
            card = agent.discard(held, taken)
            shown = agent.knock(held - {card})
            action = Discard(card) if shown is None else Knock(card, shown)
        else:
            assert m.phase is Phase.DEFENDER
            action = DefenderPlay(agent.defend(held), ())
        m.apply(action)
    assert m.result.forfeit_seat is None
    kinds = {HandOutcome.GIN: "gin", HandOutcome.KNOCK: "knock", HandOutcome.UNDERCUT: "undercut"}
    return [
        Outcome(
            1 - r.dealer,
            kinds.get(r.outcome, "dead"),
            r.winner,
            r.points,
            r.knocker_deadwood,
            r.defender_deadwood,
        )
        for r in m.hand_results
    ]


AGENTS = (
    Agent(runs_first=True, defence="best"),
    Agent(runs_first=False, defence="sets"),
    Agent(runs_first=True, defence="none", knock_at=6),
    Agent(runs_first=False, defence="best", knock_at=0),  # gin only: hands run to the wall
)
PAIRS = ((0, 1), (1, 2), (2, 0), (1, 0), (3, 3), (3, 1))


Difference = tuple[int, int, Outcome | None, Outcome | None]  # game, hand, framework, engine


def compare(rules: Rules, until: int) -> tuple[int, list[Difference]]:
    """Games on seeded decks until ``until`` hands are compared: (hands, the hands that differ).

    A hand one game played and the other did not (the game ended earlier) differs too.
    """
    hands, game = 0, 0
    differ: list[Difference] = []
    while hands < until:
        rng = random.Random(game)
        decks = [rng.sample(range(52), 52) for _ in range(30)]
        agents = [AGENTS[i] for i in PAIRS[game % len(PAIRS)]]
        starter = rng.randrange(2)
        expected = framework_game(decks, starter, agents)
        got = engine_game(rules, decks, starter, agents)
        for i in range(max(len(expected), len(got))):
            e = expected[i] if i < len(expected) else None
            g = got[i] if i < len(got) else None
            if e != g:
                differ.append((game, i, e, g))
        hands += len(expected)
        game += 1
    return hands, differ


def test_the_engine_scores_every_hand_as_the_framework_does() -> None:
    hands, differ = compare(Rules.profile("neller-eaai"), HANDS)
    assert hands >= HANDS
    assert differ == [], f"{len(differ)} of {hands} hands differ; first: {differ[0]}"


def test_the_comparison_sees_the_defenders_melds_and_the_layoff_order() -> None:
    """With the referee choosing the defender's melds and laying off sets first (``auto_greedy``,
    neller-eaai before ``declared_melds``), some hands come out otherwise."""
    before = Rules.profile("neller-eaai", defender_play="auto_greedy")
    _, differ = compare(before, 300)
    assert differ


def test_e13_as_declared_scores_22_in_both() -> None:
    knocker = set(parse_cards("7C 7D 7S 8H 9H TH 2C 3C 4C 5S"))
    defender = set(parse_cards("7H 6H KC KD KH 9S 4D 3H JD AS"))
    kings = (tuple(parse_cards("KC KD KH")),)

    def shown(*melds: str) -> Melds:
        return tuple(tuple(parse_cards(m)) for m in melds)

    declared = shown("2C 3C 4C", "8H 9H TH", "7C 7D 7S")
    k, d = framework_showdown(declared, knocker, kings, defender)
    assert (k, d, d - k) == (5, 27, 22)
    sets_first = shown("7C 7D 7S", "2C 3C 4C", "8H 9H TH")
    k, d = framework_showdown(sets_first, knocker, kings, defender)
    assert (k, d, d - k) == (5, 33, 28)
