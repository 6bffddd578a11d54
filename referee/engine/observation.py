"""What one seat may see (R2.8, R11.3): the only function that builds a seat's view.

The gRPC referee sends exactly this to a bot, so everything a seat must not know is dropped
here: the opponent's concealed cards, the stock order, the card the opponent drew from the stock,
and the face-down knock discard (revealed in the hand result once the hand is over; under
``knock_discard = face_up`` it lies on the discard pile instead, where every seat sees it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import NamedTuple

from referee.engine.actions import Action
from referee.engine.cards import Card, cards_of
from referee.engine.errors import EngineError
from referee.engine.game import Game
from referee.engine.hand import Hand
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
    cut: tuple[Card, ...] | None
    # With 3 or 4 players (§10) ``seat`` above, and every seat of the hand (to_act, dealer,
    # events, knock, last_hand, scores), is a hand seat: 0 or 1 within the two-player hand, -1
    # for a seat that sits out. These say where the hand sits in the match.
    player: int = 0  # this seat in the match: 0 .. players - 1
    players: int = 2
    hand_seats: tuple[int, int] = (0, 1)  # the match seats at hand seats 0 and 1
    sitting_out: int | None = None  # three players: the seat that dealt and sits out (R10.1)
    table: int = 0  # partnerships: the table this seat plays at (R10.2)
    # Every seat's (three players) or team's (partnerships) points, hands won, extra boxes.
    player_scores: tuple[tuple[int, int, int], ...] = ()
    team_scores: tuple[tuple[int, int, int], ...] = ()


def seen_events(events: Iterable[Event], seat: int) -> tuple[Event, ...]:
    """``events`` as ``seat`` sees them: the card of the opponent's private events hidden.

    :func:`observe` builds a seat's events with it; a replay asks it for one record's events
    alone, without a whole observation.
    """
    return tuple(
        Event(e.seat, e.kind, None) if e.kind in PRIVATE_CARD_EVENTS and e.seat != seat else e
        for e in events
    )


def seen_by(hand: Hand, seat: int) -> tuple[Event, ...]:
    """:func:`seen_events` of ``hand``'s events so far for ``seat`` (0 or 1).

    A hand's events are only ever appended to, and each is seen on its own, so the view is kept
    on the hand and only the events added since the last call are filtered.
    """
    events = hand._events
    cached = hand._seen
    seen = cached[seat]
    if len(seen) != len(events):
        if len(seen) > len(events):  # never for one hand; recomputed rather than trusted
            seen = ()
        seen += seen_events(events[len(seen) :], seat)
        hand._seen = (seen, cached[1]) if seat == 0 else (cached[0], seen)
    return seen


class SeatView(NamedTuple):
    """What a seat of a dealt hand sees of it that changes from turn to turn, cards as masks:
    the fields of :func:`observe`'s :class:`Observation` that a learning environment encodes."""

    phase: Phase
    hand: int  # the seat's cards
    opponent_known: int  # the opponent's cards taken from the pile, still held
    pile: tuple[Card, ...]  # bottom to top
    stock_size: int
    knock_limit: int
    taken: Card | None  # what this seat took from the pile this turn (its own turn only)
    must_knock: bool  # this seat took its card on condition of knocking (its own turn only)
    dealer: bool  # this seat dealt the hand


_new_view = tuple.__new__


def seat_view(match: Match, seat: int) -> SeatView | None:
    """``seat``'s (0 or 1) :class:`SeatView` of ``match``'s hand; None before the first deal.

    :func:`observe` reads the same fields, with much else: this is the one call an environment
    makes every step, reading the hand's fields directly, without a property call apiece.
    """
    h = match.hand
    if h is None:
        return None
    if match.result is None:
        phase, to_act = h._phase, h._to_act
    else:  # a forfeit ends the match without ending the hand in play
        phase, to_act = Phase.MATCH_OVER, None
    own_turn = to_act == seat
    # The tuple built directly: the NamedTuple's own __new__ is a Python call, every step.
    return _new_view(
        SeatView,
        (
            phase,
            h._hands[seat],
            h._known[1 - seat],
            tuple(h._pile),
            52 - h._stock_pos,
            h._limit,
            h._taken if own_turn else None,
            own_turn and h._must_knock,
            h._dealer == seat,
        ),
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
            player=seat,
        )
    other = 1 - seat
    events = seen_by(h, seat)
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
        player=seat,
    )


def observe_seat(match: Game, seat: int) -> Observation:
    """Match seat ``seat``'s observation of a match of any size (§10).

    In a group match a seat sees its own table's hand as a two-player hand, from its hand seat,
    and nothing of the other table's hand. A seat that sits out (R10.1) sees no card of the hand
    in play, not even the upcard: only its number, who plays it, the stock size and the knock
    limit. Everyone sees the scores, and the match's rules (a table plays its hand as a one-hand
    two-player match, whose rules are not the ones the seat plays under).
    """
    if isinstance(match, Match):
        return observe(match, seat)
    if not 0 <= seat < match.players:
        # Any other number would read as a seat sitting out (or at no table) and be answered.
        raise EngineError(f"seat {seat} is not a seat of this {match.players}-player match")
    points, won, extra = match.scores, match.hands_won, match.extra_boxes
    totals = tuple(zip(points, won, extra, strict=True))
    group = {
        "player": seat,
        "players": match.players,
        "sitting_out": match.sitting_out,
        "player_scores": () if match.teams else totals,
        "team_scores": totals if match.teams else (),
    }
    last = match.hand_results[-1] if match.hand_results else None
    table = match.table_of(seat)
    if table is None:  # sitting out (R10.1): the hand in play is none of this seat's business
        h = match.tables[0].hand
        return Observation(
            seat=-1,
            rules=match.rules,
            phase=match.phase,
            to_act=None,
            hand=(),
            discard_pile=(),
            stock_size=h.stock_size,
            knock_limit=h.knock_limit,
            upcard=None,
            opponent_known=(),
            opponent_hand_size=0,
            taken=None,
            barred=None,
            must_knock=False,
            dealer=h.dealer,
            hand_number=h.number,
            turns=0,
            scores=_by_hand_seat(points, match.tables[0].seats, match.teams),
            hands_won=_by_hand_seat(won, match.tables[0].seats, match.teams),
            extra_boxes=_by_hand_seat(extra, match.tables[0].seats, match.teams),
            game_scores=(),
            events=(),
            knock=None,
            legal_actions=(),
            last_hand=last,
            cut=match.cut,
            hand_seats=match.tables[0].seats,
            **group,  # type: ignore[arg-type]
        )
    hand_seat = table.hand_seat(seat)
    assert hand_seat is not None
    own = observe(table.play, hand_seat)
    if match.teams:  # the last hand this seat played (seats 1 and 3 change tables every round)
        last = next((r for r in reversed(match.hand_results) if seat in r.seats), None)
    return replace(
        own,
        rules=match.rules,
        legal_actions=own.legal_actions if match.to_act == seat else (),
        scores=_by_hand_seat(points, table.seats, match.teams),
        hands_won=_by_hand_seat(won, table.seats, match.teams),
        extra_boxes=_by_hand_seat(extra, table.seats, match.teams),
        last_hand=last,
        cut=match.cut,
        hand_seats=table.seats,
        table=table.number,
        **group,  # type: ignore[arg-type]
    )


def _by_hand_seat(values: tuple[int, ...], seats: tuple[int, int], teams: bool) -> tuple[int, int]:
    """A seat's (or, with partnerships, its team's) value for each hand seat."""
    if teams:
        return values[seats[0] % 2], values[seats[1] % 2]
    return values[seats[0]], values[seats[1]]
