"""The strong player: plays for gin and judges every discard a draw ahead.

It judges a hand as the reference player (:mod:`ginref_rl.lookahead`) does, by the deadwood it
expects after its next draw, with two changes, each measured (docs/research.md, "A strong
bot"):

- **It plays for gin.** While the stock holds ``hold_stock`` cards or more, it does not knock
  with deadwood (``1..hold_low``): it discards and plays on, and knocks only for gin. Against
  an opponent that knocks as soon as it may, a hand with little deadwood wins more by waiting:
  the gin bonus if it gets there, the undercut bonus when the opponent knocks first with as much
  deadwood or more. Once the stock is low it knocks as soon as it may; with the default
  ``hold_stock`` of 2 and the dead wall (``wall_rule = dead``: the hand ends with two cards in
  the stock) that never comes, and it knocks only for gin.
- **Every discard is weighed**, not only the greedy player's best few: the exact 11-card
  figure (:func:`referee.engine.melds.min_deadwood_after_discard`) is fast enough for all.

It weighs discards with a model of the opponent's hand (:mod:`ginref_rl.opponent_model`: each
unseen card's chance of being held, from what the opponent took, declined and discarded), in two
ways, each of which the tuning can switch off:

- **A weighted stock** (``weighted_stock``): in weighing discards, a card is as likely to come
  off the stock as it is *not* to be held.
- **Safe discards** (``danger_weight``): each discard costs its expected deadwood plus the
  weight times the chance that the opponent can meld it
  (:func:`~ginref_rl.opponent_model.meld_danger`).

Draws, the wall and the knocks it makes: as the reference player (it takes the top discard
when the best deadwood after taking it is lower than the deadwood it expects from a uniform
stock; it knocks with the discard that leaves the least deadwood, gin first).

Everything is computed from the seat's own view (:class:`StrongView`). A decision is at most
eleven candidates times 41 exact evaluations, a few milliseconds; a ``deadline`` stops weighing
further discards, keeping the best found so far (the greedy player's, at worst).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ginref_rl import lookahead
from ginref_rl.lookahead import View, view_of
from ginref_rl.opponent_model import History, history_of_events, holding_probabilities, meld_danger
from referee.engine.actions import Action, BigGin, Discard, Knock
from referee.engine.cards import CARD_VALUES, Card
from referee.engine.melds import deadwood_by_discard, min_deadwood, min_deadwood_after_discard
from referee.engine.observation import Observation
from referee.engine.outcomes import Phase


@dataclass(frozen=True, slots=True)
class Tuning:
    """The player's weights; the defaults are the measured ones (docs/research.md)."""

    # The opponent model's two uses: together they gained 2-5 points a match in every paired
    # comparison, and 3.4 matches in a hundred against SimpleGinRummyPlayer (none shown against
    # the reference bot); a danger weight of 3 did as well as 2, 4 and more did worse
    # (docs/research.md).
    danger_weight: float = 2.0  # deadwood points a sure meld card given away costs
    weighted_stock: bool = True  # discards weighed with the model's draw chances (else uniform)
    hold_low: int = 10  # it plays on rather than knock with 1..hold_low deadwood (-1: never)
    hold_stock: int = 2  # ... while the stock holds at least this many cards


@dataclass(frozen=True, slots=True)
class StrongView:
    """What the player reads: the reference player's view (its cards, what it has seen, what
    is legal), the opponent's history and the stock."""

    seen: View
    opponent_hand_size: int
    history: History
    stock_size: int


def strong_view_of(obs: Observation) -> StrongView:
    """The view of an engine observation of the seat to act."""
    return StrongView(
        seen=view_of(obs),
        opponent_hand_size=obs.opponent_hand_size,
        history=history_of_events(obs.events, 1 - obs.seat, obs.upcard),
        stock_size=obs.stock_size,
    )


class Beliefs:
    """The opponent model's figures for one decision: each card's chance of being held by the
    opponent (``held``) and of coming off the stock next (``draw``, unnormalised)."""

    def __init__(self, view: StrongView, tuning: Tuning) -> None:
        unseen = view.seen.unseen
        known_mask = view.seen.opponent_known
        concealed = view.opponent_hand_size - known_mask.bit_count()
        held = holding_probabilities(unseen, concealed, view.history)
        # Known cards are held for sure; every card absent from ``held`` is not held.
        known = {c: 1.0 for c in range(52) if known_mask >> c & 1}
        self.held = {**held, **known}
        self.draw = [(u, 1.0 - held[u] if tuning.weighted_stock else 1.0) for u in unseen]
        self.total = sum(w for _, w in self.draw)

    def expected_deadwood(self, hand: int) -> float:
        """The expected least deadwood of ``hand`` plus one card off the stock, after its
        best discard."""
        if self.total <= 0:
            return float(min_deadwood(hand))
        return sum(w * min_deadwood_after_discard(hand | 1 << u) for u, w in self.draw) / self.total


def _best_discard(
    view: StrongView,
    cards: Sequence[Card],
    tuning: Tuning,
    deadline: float | None,
    clock: Callable[[], float],
) -> Card:
    """The card of ``cards`` whose discard costs least: expected deadwood plus danger; ties
    and a passed deadline go to the greedy order."""
    beliefs = Beliefs(view, tuning)
    hand = view.seen.hand
    left = deadwood_by_discard(hand)
    # The greedy bot's order: least deadwood left, then the higher card, then the index.
    ranked = sorted(cards, key=lambda c: (left[c], -CARD_VALUES[c], -c))
    best: tuple[float, int] | None = None
    for order, card in enumerate(ranked):
        if best is not None and deadline is not None and clock() >= deadline:
            break
        cost = beliefs.expected_deadwood(hand & ~(1 << card))
        cost += tuning.danger_weight * meld_danger(card, beliefs.held)
        if best is None or (cost, order) < best:
            best = (cost, order)
    assert best is not None
    return ranked[best[1]]


def _plays_on(knock_deadwood: int, view: StrongView, tuning: Tuning) -> bool:
    """Whether to discard and play for gin rather than knock with ``knock_deadwood``."""
    return 0 < knock_deadwood <= tuning.hold_low and view.stock_size >= tuning.hold_stock


def choose(
    view: StrongView,
    tuning: Tuning = Tuning(),
    deadline: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Action:
    """The player's answer (an entry of ``view.seen.legal``; see the module docstring)."""
    seen = view.seen
    if seen.phase is not Phase.DISCARD or len(seen.legal) == 1:
        return lookahead.choose(seen)  # draws and the wall: the reference player's
    cards = [a.card for a in seen.legal if isinstance(a, Discard)]
    if any(isinstance(a, Knock | BigGin) for a in seen.legal):
        # Big gin, else the knock leaving the least deadwood (gin first), as the reference
        # player. A knock that must follow a take (R4.3, R7.3) comes with no discard.
        answer = lookahead.choose(seen)
        if not isinstance(answer, Knock) or not cards:
            return answer
        if not _plays_on(deadwood_by_discard(seen.hand)[answer.card], view, tuning):
            return answer
    return Discard(_best_discard(view, cards, tuning, deadline, clock))
