"""The reference player: the greedy bot with one card of look-ahead.

The greedy sample bot (``sample_bots/greedy_bot.py``) looks only at its deadwood now: it keeps
the discard that leaves the least, and takes the top discard only if that lowers it at once.
This player asks instead what its deadwood is likely to be after its next draw from the stock:

- **Discard**: among the ``candidates`` (default 4) best discards in the greedy order, the one
  whose ten cards leave the least *expected* deadwood after drawing one unseen card and then
  discarding the best card; ties go to the greedy order. A hand that keeps a pair of
  connected cards (two outs to a meld) is worth more than one with the same deadwood and
  none.
- **Draw** (and the upcard offer): take the top discard if the best deadwood after taking it is
  lower than the expected deadwood after a draw from the stock; else draw (or pass).
- Knocks, gin, big gin, the wall, the choice of dealer and the defence: as the greedy bot (it
  knocks as soon as it may, with the discard that leaves the least deadwood).

"Unseen" is every card the seat has not seen: not in its hand, not in the discard pile, not
among the opponent's known cards (taken from the pile); each is taken as equally likely to come
off the stock. Everything is computed from the seat's own view (:class:`View`).

Its time per decision is a few milliseconds: at most ``candidates`` times 41 exact deadwood
evaluations, one per unseen card (``referee.engine.melds``). A ``deadline`` (a
:func:`time.monotonic` value) stops the evaluation of further discards, keeping the best found
so far, so the player always answers by its deadline plus one candidate's evaluation.

Measured (``benchmarks/bench_reference.py``): against the greedy and random bots, as an Elo
difference in matches and in hand points per hand; figures in the README.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from referee.engine.actions import (
    Action,
    BigGin,
    DeclareDead,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    Pass,
)
from referee.engine.cards import CARD_VALUES, FULL_MASK, Card, mask_of
from referee.engine.melds import deadwood_by_discard, min_deadwood
from referee.engine.observation import Observation
from referee.engine.outcomes import Phase


@dataclass(frozen=True, slots=True)
class View:
    """What the player reads: the seat's own cards and what it has seen, and what is legal."""

    phase: Phase
    hand: int  # the seat's cards, a 52-bit mask
    discard_pile: tuple[Card, ...]  # bottom to top
    opponent_known: int  # the opponent's cards taken from the pile, a mask
    legal: tuple[Action, ...]

    @property
    def unseen(self) -> list[Card]:
        """Every card the seat has not seen anywhere."""
        seen = self.hand | mask_of(self.discard_pile) | self.opponent_known
        free = FULL_MASK & ~seen
        return [c for c in range(52) if free >> c & 1]


def view_of(obs: Observation) -> View:
    """The view of an engine observation of the seat to act."""
    return View(
        phase=obs.phase,
        hand=mask_of(obs.hand),
        discard_pile=obs.discard_pile,
        opponent_known=mask_of(obs.opponent_known),
        legal=obs.legal_actions,
    )


def expected_deadwood(hand: int, unseen: Sequence[Card]) -> float:
    """The mean, over the unseen cards ``u``, of the least deadwood of ``hand + u`` after its
    best discard."""
    if not unseen:
        return float(min_deadwood(hand))
    return sum(min(deadwood_by_discard(hand | 1 << u).values()) for u in unseen) / len(unseen)


def _greedy_key(left: dict[Card, int]) -> Callable[[Card], tuple[int, int, int]]:
    """The greedy bot's order of cards: least deadwood after it, then higher value, index."""
    return lambda c: (left[c], -CARD_VALUES[c], -c)


def choose(
    view: View,
    candidates: int = 4,
    deadline: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Action:
    """The player's answer (an entry of ``view.legal``; see the module docstring)."""
    legal = view.legal
    if len(legal) == 1:
        return legal[0]
    hand = view.hand
    kinds = {type(a) for a in legal}
    if view.phase is Phase.DISCARD:
        big = next((a for a in legal if isinstance(a, BigGin)), None)
        if big is not None:
            return big
        left = deadwood_by_discard(hand)
        key = _greedy_key(left)
        knocks = [a for a in legal if isinstance(a, Knock)]
        if knocks:
            return min(knocks, key=lambda a: key(a.card))
        ranked = sorted((a.card for a in legal if isinstance(a, Discard)), key=key)
        unseen = view.unseen
        best: tuple[float, int] | None = None
        for order, card in enumerate(ranked[:candidates]):
            if best is not None and deadline is not None and clock() >= deadline:
                break
            value = (expected_deadwood(hand & ~(1 << card), unseen), order)
            if best is None or value < best:
                best = value
        assert best is not None
        return Discard(ranked[best[1]])
    if view.phase is Phase.WALL and DeclareDead not in kinds:
        return DrawDiscard() if DrawDiscard in kinds else Pass()
    if DrawDiscard in kinds and view.discard_pile:
        top = view.discard_pile[-1]
        after = deadwood_by_discard(hand | 1 << top)
        taken = min(v for c, v in after.items() if c != top)
        if view.phase is Phase.WALL:  # wall_rule = rlcard: take only what lowers it now
            if taken < min_deadwood(hand):
                return DrawDiscard()
        elif taken < expected_deadwood(hand, view.unseen):
            return DrawDiscard()
    for preferred in (DrawStock(), Pass(), DeclareDead()):
        if preferred in legal:
            return preferred
    return legal[0]
