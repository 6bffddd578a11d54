"""What one seat may see (R2.8, R11.3): the only function that builds a seat's view.

The gRPC referee sends exactly this to a bot, so everything a seat must not know is dropped
here: the opponent's concealed cards, the stock order, the card the opponent drew from the stock,
and the face-down knock discard (revealed in the hand result once the hand is over).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from referee.engine.actions import Action
from referee.engine.cards import Card, cards_of
from referee.engine.match import Match
from referee.engine.outcomes import Event, HandResult, KnockInfo, Phase
from referee.engine.rules import Rules

# Event kinds whose card only the acting seat may see.
PRIVATE_CARD_EVENTS = frozenset({"draw_stock", "knock", "gin", "big_gin"})


@dataclass(frozen=True, slots=True)
class Observation:
    """A seat's whole legal view of the match at one moment."""

    seat: int
    rules: Rules
    phase: Phase
    to_act: int | None
    hand: tuple[Card, ...]
    discard_pile: tuple[Card, ...]  # face up, bottom to top
    stock_size: int
    knock_limit: int
    upcard: Card | None  # the hand's initial upcard (it fixes the Oklahoma limit)
    opponent_known: tuple[Card, ...]  # taken from the pile by the opponent, still held
    opponent_hand_size: int
    taken: Card | None  # what this seat took from the pile this turn
    barred: Card | None  # the top discard, if this seat may take it only to knock (R4.3)
    must_knock: bool
    dealer: int
    hand_number: int
    turns: int
    scores: tuple[int, int]
    hands_won: tuple[int, int]
    extra_boxes: tuple[int, int]  # Oklahoma extra boxes (R9.7)
    game_scores: tuple[tuple[int, int], ...]  # Hollywood: each game's hand points
    events: tuple[Event, ...]
    knock: KnockInfo | None
    legal_actions: tuple[Action, ...]
    last_hand: HandResult | None
    cut: tuple[Card, Card] | None


def seen_events(events: Iterable[Event], seat: int) -> tuple[Event, ...]:
    """``events`` as ``seat`` sees them: the card of the opponent's private events hidden.

    :func:`observe` builds a seat's events with it; a replay asks it for one record's events
    alone, without a whole observation.
    """
    return tuple(
        Event(e.seat, e.kind, None) if e.kind in PRIVATE_CARD_EVENTS and e.seat != seat else e
        for e in events
    )


def observe(match: Match, seat: int) -> Observation:
    """Build ``seat``'s observation of ``match``."""
    h = match.hand
    phase = match.phase
    to_act = match.to_act
    if h is None:  # the high cutter has not chosen yet (R2.2): no hand is dealt
        return Observation(
            seat=seat,
            rules=match.rules,
            phase=phase,
            to_act=to_act,
            hand=(),
            discard_pile=(),
            stock_size=0,
            knock_limit=match.rules.knock_limit,
            upcard=None,
            opponent_known=(),
            opponent_hand_size=0,
            taken=None,
            barred=None,
            must_knock=False,
            dealer=-1,
            hand_number=0,
            turns=0,
            scores=match.scores,
            hands_won=(0, 0),
            extra_boxes=(0, 0),
            game_scores=(),
            events=(),
            knock=None,
            legal_actions=tuple(match.legal_actions()) if to_act == seat else (),
            last_hand=None,
            cut=match.cut,
        )
    other = 1 - seat
    events = seen_events(h._events, seat)
    own_turn = to_act == seat
    barred = None
    pile = h._pile
    if h._barred is not None and h._barred[1] == seat and pile and pile[-1] == h._barred[0]:
        barred = h._barred[0]
    board = match.board
    return Observation(
        seat=seat,
        rules=match.rules,
        phase=phase,
        to_act=to_act,
        hand=tuple(cards_of(h._hands[seat])),
        discard_pile=tuple(pile),
        stock_size=h.stock_size,
        knock_limit=h._limit,
        upcard=h._upcard,
        opponent_known=tuple(cards_of(h._known[other])),
        opponent_hand_size=h._hands[other].bit_count(),
        taken=h._taken if own_turn else None,
        barred=barred,
        must_knock=h._must_knock and own_turn,
        dealer=h._dealer,
        hand_number=h._number,
        turns=h._turns,
        scores=board.points,
        hands_won=board.hands_won,
        extra_boxes=board.extra_boxes,
        game_scores=board.game_points,
        events=events,
        knock=h._knock,
        legal_actions=tuple(match.legal_actions()) if own_turn else (),
        last_hand=match.hand_results[-1] if match.hand_results else None,
        cut=match.cut,
    )
