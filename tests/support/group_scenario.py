"""Scripted hands for three-player and partnership scenarios (docs/rules.md §10).

Every hand of a group match is an ordinary two-player hand, so a scenario names each hand by its
roles (the non-dealer and the dealer, R2.4) and says who wins it and by how much; the seating
is the engine's business and the test asserts which match seats that turned out to be.

The winner of a scripted hand knocks with three runs (``RUNS``) and 5♦ of deadwood (K = 5); the
loser holds two sets (``SETS``) and four ``LOOSE`` cards worth D = points + 5. ``LOOSE`` cards
make no meld together and none of them lays off on ``RUNS``, so D is exactly their value.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from referee.engine.actions import Action, Discard, DrawDiscard, DrawStock, Knock, Pass
from referee.engine.cards import CARD_VALUES, parse_cards
from referee.engine.group import GroupMatch
from referee.engine.match import Match
from referee.engine.outcomes import Phase
from tests.support.scenario import card, deck

Role = Literal["non_dealer", "dealer"]
Policy = Callable[[Match], Action]

RUNS = "AS 2S 3S 4H 5H 6H 7C 8C 9C"  # three runs, nine cards
SETS = "KC KD KH QC QD QH"  # two sets
LOOSE = "TS TD JS 9H 8D 8H 7S 5S 4C 3D 2H 2C AC AH"
KNOCKER_DEADWOOD = 5  # 5♦


def loose(total: int, count: int) -> str:
    """``count`` cards of ``LOOSE`` worth ``total`` together (the first such choice)."""
    pool = LOOSE.split()
    for combo in itertools.combinations(pool, count):
        if sum(CARD_VALUES[c] for c in parse_cards(" ".join(combo))) == total:
            return " ".join(combo)
    raise ValueError(f"no {count} loose cards are worth {total}")


@dataclass(frozen=True)
class Deal:
    """One hand's deck order and how it is played: a script of actions or a policy."""

    deck: list[int]
    play: Sequence[Action] | Policy


def knock(winner: Role, points: int) -> Deal:
    """The ``winner`` knocks with K = 5 against D = points + 5 and wins by ``points`` (R8.1).

    A non-dealer knocker lets the upcard go, draws J♥ and knocks it face down; a dealer knocker
    takes the upcard 5♦ when the non-dealer passes it and knocks J♥ face down (R3.3).
    """
    defender = f"{SETS} {loose(points + KNOCKER_DEADWOOD, 4)}"
    if winner == "non_dealer":
        order = deck(f"{RUNS} 5D", defender, "JD", "JH")
        return Deal(order, [Pass(), Pass(), DrawStock(), Knock(card("JH"))])
    order = deck(defender, f"{RUNS} JH", "5D")
    return Deal(order, [Pass(), DrawDiscard(), Knock(card("JH"))])


def gin(winner: Role, deadwood: int) -> Deal:
    """The ``winner`` goes gin (R5.6) against two sets and four loose cards worth ``deadwood``."""
    defender = f"{SETS} {loose(deadwood, 4)}"
    if winner == "non_dealer":
        order = deck(f"{RUNS} TC", defender, "JD", "JH")
        return Deal(order, [Pass(), Pass(), DrawStock(), Knock(card("JH"))])
    order = deck(defender, f"{RUNS} JH", "TC")
    return Deal(order, [Pass(), DrawDiscard(), Knock(card("JH"))])


def tie(knocker: Role) -> Deal:
    """``knocker`` knocks with K = 5 against D = 5: an undercut, or a push (R8.3)."""
    defender = f"{SETS} 8D 9D TD 5S"
    if knocker == "non_dealer":
        order = deck(f"{RUNS} 5D", defender, "JD", "JH")
        return Deal(order, [Pass(), Pass(), DrawStock(), Knock(card("JH"))])
    order = deck(defender, f"{RUNS} JH", "5D")
    return Deal(order, [Pass(), DrawDiscard(), Knock(card("JH"))])


def churn(play: Match) -> Action:
    """Pass the upcard, then draw from the stock and throw the drawn card back: a dead hand."""
    if play.phase is Phase.UPCARD_OFFER:
        return Pass()
    if play.phase is Phase.DRAW:
        return DrawStock()
    drawn = play.hand.events[-1].card
    assert drawn is not None
    return Discard(drawn)


def dead() -> Deal:
    """A hand nobody knocks in: it ends dead at the wall (R7.2)."""
    return Deal(knock("non_dealer", 10).deck, churn)


def decks(deals: Sequence[Deal]) -> list[list[int]]:
    """The deck orders of ``deals``, in dealing order, for ``GroupMatch(decks=...)``."""
    return [d.deck for d in deals]


def play_hands(g: GroupMatch, *deals: Deal) -> None:
    """Play the hand at each table (one deal per table, table 0 first) to its end.

    The match asks for each decision in turn (R10.2: the tables alternate); each table's deal
    answers with its next scripted action or its policy.
    """
    tables = list(g.tables)
    assert len(deals) == len(tables), "one deal per table"
    scripts: list[Iterator[Action] | Policy] = [
        d.play if callable(d.play) else iter(d.play) for d in deals
    ]
    while g.result is None and all(a is b for a, b in zip(g.tables, tables, strict=True)):
        t = g.table.number
        source = scripts[t]
        g.apply(source(g.table.play) if callable(source) else next(source))
