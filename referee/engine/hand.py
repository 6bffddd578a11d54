"""One hand's state (R2.4, R2.5, R5.5), read-only outside the engine.

Dealing (R2.4): a hand's deck positions 0..19 go alternately to the non-dealer and the dealer,
non-dealer first; position 20 is the upcard; positions 21..51 are the stock, top first. With
``deal_mode = eleven_card`` (R2.5) positions 0..20 go alternately, so the non-dealer gets 11, and
there is no upcard. With ``deal_order = seat0_first`` positions 0..19 go alternately to seat 0
and seat 1 whoever deals, so each seat's cards depend on the deck alone.

Only the engine changes a hand: :class:`~referee.engine.match.Match` writes its underscored
fields, and the engine's own modules read them directly, since its hot paths (every draw and
discard) cannot afford a property call per access. Everyone else reads the properties, which
return ints, tuples and immutable values, so nothing outside the engine can alter a hand through
them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from referee.engine.cards import CARD_VALUES, Card, cards_of
from referee.engine.errors import EngineError
from referee.engine.outcomes import Event, KnockInfo, Phase
from referee.engine.rules import Rules

if TYPE_CHECKING:
    from referee.engine.legal import DiscardOptions


class Hand:
    """The state of one hand; changed only by :class:`~referee.engine.match.Match`."""

    __slots__ = (
        "_barred",
        "_dealer",
        "_deck",
        "_discard_draws",
        "_events",
        "_hands",
        "_knock",
        "_knock_discard",
        "_known",
        "_limit",
        "_may_knock_taken",
        "_must_knock",
        "_number",
        "_opening",
        "_options",
        "_phase",
        "_pile",
        "_prev_repeat",
        "_seen",
        "_stock_only",
        "_stock_pos",
        "_taken",
        "_taken_upcard",
        "_to_act",
        "_turns",
        "_upcard",
    )

    def __init__(self, rules: Rules, number: int, dealer: int, deck: Sequence[Card]) -> None:
        if sorted(deck) != list(range(52)):
            raise EngineError("a deck must hold each of the 52 cards exactly once")
        self._number = number
        self._dealer = dealer
        self._deck: tuple[Card, ...] = tuple(deck)
        nd = 1 - dealer
        # Who gets positions 0, 2, 4, ...: the non-dealer (R2.4), or seat 0 whoever deals.
        first = 0 if rules.deal_order == "seat0_first" else nd
        self._hands = [0, 0]  # each seat's cards as a 52-bit mask
        self._pile: list[Card] = []
        self._events: list[Event] = [Event(None, "deal")]
        self._known = [0, 0]  # cards each seat took from the pile and still holds (public)
        self._taken: Card | None = None  # card taken from the pile this turn
        self._taken_upcard = False  # ... and it was the initial upcard (nobody discarded it)
        self._barred: tuple[Card, int] | None = None  # allowed_gra: (card, seat barred from it)
        self._must_knock = False
        self._may_knock_taken = False
        self._stock_only = False
        self._opening = False
        self._prev_repeat = False
        self._turns = 0
        self._discard_draws = 0
        self._knock: KnockInfo | None = None
        self._knock_discard: Card | None = None
        self._options: tuple[tuple[int, Card | None, bool], DiscardOptions] | None = None
        # Each seat's view of _events so far (observation.seen_by): a cache, like _options.
        self._seen: tuple[tuple[Event, ...], tuple[Event, ...]] = ((), ())
        if rules.deal_mode == "eleven_card":
            for i in range(21):
                self._hands[nd if i % 2 == 0 else dealer] |= 1 << deck[i]
            self._upcard: Card | None = None
            self._phase = Phase.DISCARD
            self._opening = True
        else:
            for i in range(20):
                self._hands[first if i % 2 == 0 else 1 - first] |= 1 << deck[i]
            self._upcard = deck[20]
            self._pile.append(deck[20])
            self._phase = Phase.UPCARD_OFFER
        self._stock_pos = 21
        self._to_act: int | None = nd
        self._limit = _knock_limit(rules, self._upcard)

    # --- read-only view -------------------------------------------------------------------

    @property
    def number(self) -> int:
        """The hand's 0-based number in the match (redeals included)."""
        return self._number

    @property
    def dealer(self) -> int:
        """The seat that dealt this hand."""
        return self._dealer

    @property
    def deck(self) -> tuple[Card, ...]:
        """The whole deck in dealing order (R2.4)."""
        return self._deck

    @property
    def upcard(self) -> Card | None:
        """The initial upcard (``None`` with the eleven-card deal, R2.5)."""
        return self._upcard

    @property
    def knock_limit(self) -> int:
        """L of R5.5: the most deadwood a knock may leave."""
        return self._limit

    @property
    def phase(self) -> Phase:
        """The hand's phase (``MATCH_OVER`` once the hand has ended)."""
        return self._phase

    @property
    def to_act(self) -> int | None:
        """The seat whose decision the hand awaits (``None`` once it has ended)."""
        return self._to_act

    @property
    def turns(self) -> int:
        """Draws made so far (R4.5)."""
        return self._turns

    @property
    def stock_size(self) -> int:
        """Cards left in the stock."""
        return 52 - self._stock_pos

    @property
    def stock(self) -> tuple[Card, ...]:
        """The cards left in the stock, top first."""
        return self._deck[self._stock_pos :]

    @property
    def pile(self) -> tuple[Card, ...]:
        """The discard pile, bottom to top."""
        return tuple(self._pile)

    @property
    def events(self) -> tuple[Event, ...]:
        """Everything that happened in the hand so far, private cards included."""
        return tuple(self._events)

    def held(self, seat: int) -> int:
        """The cards ``seat`` holds, as a 52-bit mask."""
        return self._hands[seat]

    def cards_of(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` holds, in card order."""
        return tuple(cards_of(self._hands[seat]))

    def known(self, seat: int) -> int:
        """The cards ``seat`` took from the discard pile and still holds (public), as a mask."""
        return self._known[seat]

    @property
    def taken(self) -> Card | None:
        """The card the seat to act took from the discard pile this turn (R4.3), if any."""
        return self._taken

    @property
    def must_knock(self) -> bool:
        """Whether the seat to act took its card on condition of knocking (R4.3, R7.3, R7.4)."""
        return self._must_knock

    @property
    def knock(self) -> KnockInfo | None:
        """Who knocked (or went gin) and the spread, once someone has (R5.2)."""
        return self._knock

    @property
    def knock_discard(self) -> Card | None:
        """The knocker's discard (R5.2), once someone has knocked (face down, or on top of the
        pile under ``knock_discard = face_up``)."""
        return self._knock_discard

    def copy(self) -> Hand:
        """An independent copy."""
        other = Hand.__new__(Hand)
        for name in Hand.__slots__:
            setattr(other, name, getattr(self, name))
        other._hands = list(self._hands)
        other._pile = list(self._pile)
        other._events = list(self._events)
        other._known = list(self._known)
        return other

    def _state(self) -> tuple[object, ...]:
        """Every field but the caches, as a hashable value."""
        return tuple(
            tuple(v) if isinstance(v, list) else v
            for v in (getattr(self, name) for name in Hand.__slots__ if name not in _CACHES)
        )


_CACHES = frozenset({"_options", "_seen"})


def _knock_limit(rules: Rules, upcard: Card | None) -> int:
    """L of R5.5."""
    if rules.knock_limit_mode == "fixed" or upcard is None:
        return rules.knock_limit
    if upcard % 13 == 0:
        return 0 if rules.oklahoma_ace == "gin_only" else 1
    return CARD_VALUES[upcard]
