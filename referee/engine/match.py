"""The match as a state machine (RULES.md §2-§9): one place where state changes.

:class:`Match` holds the whole truth: every hand's deck, both hands, the stock, the scores. Its
:meth:`Match.legal_actions` and :meth:`Match.apply` are built from the same per-phase option sets,
so they cannot disagree; :meth:`Match.apply` validates completely before it changes anything, so
an :class:`~referee.errors.IllegalActionError` (which names the rule) leaves the state unchanged.
What a seat may see is built by :func:`referee.engine.observation.observe` alone.

Dealing (R2.4): a hand's deck positions 0..19 go alternately to the non-dealer and the dealer,
non-dealer first; position 20 is the upcard; positions 21..51 are the stock, top first. With
``deal_mode = eleven_card`` (R2.5) positions 0..20 go alternately, so the non-dealer gets 11, and
there is no upcard.

Two places take an action in two steps where RULES.md speaks of one atomic "take and knock"
(R4.3 ``allowed_gra``, R7.3, R7.4): taking the card is legal only when a legal knock with it exists,
and once it is taken the same player's only legal actions are knocks, so the pair can never be
split and the outcome is the same.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from referee.engine import melds as M
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
from referee.engine.cards import CARD_VALUES, Card, LazyTable, card_str, cards_of, mask_of
from referee.engine.deal import cut_cards, dealer_stream, hand_deck
from referee.engine.errors import CardError, EngineError, IllegalActionError
from referee.engine.rules import Rules

_Plan = Callable[[], None]


class Phase(enum.Enum):
    """Whose decision, of which kind, the match is waiting for."""

    CHOOSE_DEALER = "choose_dealer"  # R2.2 cut_high_chooses
    UPCARD_OFFER = "upcard_offer"  # R3
    DRAW = "draw"  # R4.1
    DISCARD = "discard"  # R4.2, R5 (holding 11 cards)
    WALL = "wall"  # R7.3-R7.5
    DEFENDER = "defender"  # R6 with defender_play = declared
    MATCH_OVER = "match_over"


class HandOutcome(enum.Enum):
    """How a hand ended (R8, §7)."""

    KNOCK = "knock"  # R8.1
    GIN = "gin"  # R8.2
    BIG_GIN = "big_gin"  # R8.2
    UNDERCUT = "undercut"  # R8.3
    PUSH = "push"  # R8.3, undercut_on_tie = off
    DEAD = "dead"  # §7, R4.5


class Termination(enum.Enum):
    """Why a match ended."""

    TARGET = "target"  # R9.1
    SINGLE_HAND = "single_hand"  # R9.9
    HOLLYWOOD = "hollywood"  # R9.8: all three games settled
    FORFEIT = "forfeit"  # R11.5


class Event(NamedTuple):
    """One public or private happening of a hand; ``card`` may be hidden from the other seat.

    A named tuple rather than a dataclass: the engine makes two per turn, and tuples are
    several times cheaper to build.
    """

    seat: int | None
    # deal, take_upcard, pass, draw_stock, draw_discard, discard, knock, gin, big_gin,
    # declare_dead, defender_play, hand_over
    kind: str
    card: Card | None = None


@dataclass(frozen=True, slots=True)
class HandResult:
    """Everything about a finished hand: the showdown, the score and what it did to the match."""

    number: int
    dealer: int
    outcome: HandOutcome
    winner: int | None
    points: int
    knocker: int | None = None
    knock_discard: Card | None = None
    knocker_arrangement: M.Arrangement | None = None
    defender: M.DefenderPlay | None = None
    knocker_deadwood: int | None = None
    defender_deadwood: int | None = None
    doubled: bool = False
    extra_boxes: int = 0
    dead_reason: str | None = None
    payoffs: tuple[float, float] = (0.0, 0.0)
    final_hands: tuple[tuple[Card, ...], tuple[Card, ...]] = ((), ())
    scores_after: tuple[int, int] = (0, 0)


@dataclass(frozen=True, slots=True)
class GameScore:
    """One game's settlement (A.4): the match, or each of Hollywood's three games."""

    winner: int
    hand_points: tuple[int, int]
    hands_won: tuple[int, int]
    extra_boxes: tuple[int, int]
    final: tuple[int, int]
    shutout: bool

    @property
    def margin(self) -> int:
        """Winner's final score minus the loser's (R9.6)."""
        return self.final[self.winner] - self.final[1 - self.winner]


@dataclass(frozen=True, slots=True)
class MatchResult:
    """How the match ended and the final scores (R9.6, A.4)."""

    termination: Termination
    winner: int | None
    final: tuple[int, int]
    games: tuple[GameScore, ...] = ()
    forfeit_seat: int | None = None  # None in a forfeit: both seats were at fault
    forfeit_rule: str | None = None
    forfeit_reason: str | None = None

    @property
    def margin(self) -> int:
        """Winner's final score minus the loser's (0 without a winner)."""
        if self.winner is None:
            return 0
        return self.final[self.winner] - self.final[1 - self.winner]


@dataclass(slots=True)
class _Tally:
    """Running score of one game (a Hollywood game or the whole match)."""

    points: list[int] = field(default_factory=lambda: [0, 0])
    hands_won: list[int] = field(default_factory=lambda: [0, 0])
    extra_boxes: list[int] = field(default_factory=lambda: [0, 0])
    settled: GameScore | None = None


_DISCARD = [Discard(c) for c in range(52)]
_KNOCK = [Knock(c) for c in range(52)]
# The Discard actions of each suit's 13-bit mask, so a hand's list is four look-ups.


def _suit_discards(suit: int) -> LazyTable[tuple[Discard, ...]]:
    return LazyTable(lambda m: tuple(_DISCARD[13 * suit + r] for r in range(13) if m >> r & 1))


_SUIT_DISCARDS = tuple(_suit_discards(s) for s in range(4))
_DISCARD_PHASE = Phase.DISCARD
_DRAW_STOCK = DrawStock()
_DRAW_DISCARD = DrawDiscard()
_PASS = Pass()
_DECLARE_DEAD = DeclareDead()


class Hand:
    """The state of one hand; owned and changed only by :class:`Match`."""

    __slots__ = (
        "barred",
        "dealer",
        "deck",
        "discard_draws",
        "events",
        "hands",
        "knock_arrangement",
        "knock_discard",
        "knock_kind",
        "knocker",
        "known",
        "limit",
        "may_knock_taken",
        "must_knock",
        "number",
        "opening",
        "options",
        "phase",
        "pile",
        "prev_repeat",
        "stock_only",
        "stock_pos",
        "taken",
        "taken_upcard",
        "to_act",
        "turns",
        "upcard",
    )

    def __init__(self, rules: Rules, number: int, dealer: int, deck: Sequence[Card]) -> None:
        if sorted(deck) != list(range(52)):
            raise EngineError("a deck must hold each of the 52 cards exactly once")
        self.number = number
        self.dealer = dealer
        self.deck: tuple[Card, ...] = tuple(deck)
        nd = 1 - dealer
        self.hands = [0, 0]
        self.pile: list[Card] = []
        self.events: list[Event] = [Event(None, "deal")]
        self.known = [0, 0]  # cards each seat took from the pile and still holds (public)
        self.taken: Card | None = None  # card taken from the pile this turn
        self.taken_upcard = False  # ... and it was the initial upcard (nobody discarded it)
        self.barred: tuple[Card, int] | None = None  # allowed_gra: (card, seat barred from it)
        self.must_knock = False
        self.may_knock_taken = False
        self.stock_only = False
        self.opening = False
        self.prev_repeat = False
        self.turns = 0
        self.discard_draws = 0
        self.knocker: int | None = None
        self.knock_discard: Card | None = None
        self.knock_kind: HandOutcome | None = None
        self.knock_arrangement: M.Arrangement | None = None
        self.options: tuple[tuple[int, Card | None, bool], _DiscardOptions] | None = None
        if rules.deal_mode == "eleven_card":
            for i in range(21):
                self.hands[nd if i % 2 == 0 else dealer] |= 1 << deck[i]
            self.upcard: Card | None = None
            self.phase = Phase.DISCARD
            self.opening = True
        else:
            for i in range(20):
                self.hands[nd if i % 2 == 0 else dealer] |= 1 << deck[i]
            self.upcard = deck[20]
            self.pile.append(deck[20])
            self.phase = Phase.UPCARD_OFFER
        self.stock_pos = 21
        self.to_act: int | None = nd
        self.limit = _knock_limit(rules, self.upcard)

    @property
    def stock_size(self) -> int:
        """Cards left in the stock."""
        return 52 - self.stock_pos

    def copy(self) -> Hand:
        """An independent copy."""
        other = Hand.__new__(Hand)
        for name in Hand.__slots__:
            setattr(other, name, getattr(self, name))
        other.hands = list(self.hands)
        other.pile = list(self.pile)
        other.events = list(self.events)
        other.known = list(self.known)
        return other


def _knock_limit(rules: Rules, upcard: Card | None) -> int:
    """L of R5.5."""
    if rules.knock_limit_mode == "fixed" or upcard is None:
        return rules.knock_limit
    if upcard % 13 == 0:
        return 0 if rules.oklahoma_ace == "gin_only" else 1
    return CARD_VALUES[upcard]


@dataclass(slots=True)
class _DiscardOptions:
    """What the player holding 11 cards may do (R4.2, R4.3, R5): computed once, used twice."""

    discards: int  # mask of cards that may be discarded face up
    knocks: dict[Card, int]  # knock discard -> dw* of the other 10 cards (only those <= L)
    knock_allowed: int  # mask of cards allowed as the face-down knock discard
    big_gin: bool
    forced_gin: bool  # force_gin is on and some gin exists: only gins are legal


class Match:
    """A match between seats 0 and 1 under ``rules``, every chance event derived from ``seed``.

    ``decks`` (tests, replays) gives explicit deck orders for the first hands; later hands come
    from the seed. ``first_dealer`` fixes the first dealer, bypassing R2.2.
    """

    def __init__(
        self,
        rules: Rules,
        seed: int,
        *,
        decks: Sequence[Sequence[Card]] = (),
        first_dealer: int | None = None,
    ) -> None:
        self.rules = rules
        self.seed = seed
        self._decks = [tuple(d) for d in decks]
        self.tally = _Tally()
        self.games: list[_Tally] = [_Tally(), _Tally(), _Tally()] if rules.hollywood else []
        self.hand_results: list[HandResult] = []
        self.result: MatchResult | None = None
        self.hands_dealt = 0
        self.cut: tuple[Card, Card] | None = None
        self.chooser: int | None = None
        self.hand: Hand = None  # type: ignore[assignment]  # set by _deal below
        if first_dealer is None:
            if rules.first_dealer == "random":
                first_dealer = dealer_stream(seed).uniform(2)
            elif rules.first_dealer in ("seat0", "seat1"):
                first_dealer = int(rules.first_dealer[-1])
            else:
                self.cut = cut_cards(seed)
                low = 0 if self.cut[0] % 13 < self.cut[1] % 13 else 1
                if rules.first_dealer == "cut_low_deals":
                    first_dealer = low
                else:
                    self.chooser = 1 - low
        if first_dealer is not None:
            self._deal(first_dealer)

    # --- public API ---------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """The phase of the match."""
        if self.result is not None:
            return Phase.MATCH_OVER
        if self.chooser is not None:
            return Phase.CHOOSE_DEALER
        return self.hand.phase

    @property
    def to_act(self) -> int | None:
        """The seat whose decision is awaited (``None`` once the match is over)."""
        if self.result is not None:
            return None
        if self.chooser is not None:
            return self.chooser
        return self.hand.to_act

    @property
    def scores(self) -> tuple[int, int]:
        """Cumulative hand points (R9.1; with Hollywood, those of game 1)."""
        tally = self.games[0] if self.games else self.tally
        return tally.points[0], tally.points[1]

    def copy(self) -> Match:
        """An independent deep copy (results and rules are immutable and shared)."""
        other = Match.__new__(Match)
        other.rules = self.rules
        other.seed = self.seed
        other._decks = self._decks
        other.tally = _copy_tally(self.tally)
        other.games = [_copy_tally(t) for t in self.games]
        other.hand_results = list(self.hand_results)
        other.result = self.result
        other.hands_dealt = self.hands_dealt
        other.cut = self.cut
        other.chooser = self.chooser
        other.hand = self.hand.copy() if self.hand is not None else self.hand
        return other

    def fingerprint(self) -> tuple[object, ...]:
        """The whole state as a hashable value: equal fingerprints mean equal states."""
        h = self.hand
        hand_state = (
            None
            if h is None
            else tuple(
                tuple(v) if isinstance(v, list) else v
                for v in (getattr(h, name) for name in Hand.__slots__ if name != "options")
            )
        )
        return (
            self.seed,
            self.hands_dealt,
            self.chooser,
            self.result,
            tuple(self.hand_results),
            _tally_key(self.tally),
            tuple(_tally_key(t) for t in self.games),
            hand_state,
        )

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act, in a fixed order.

        Knocks and big gin are listed with ``melds=None`` (the referee arranges, R5.4); the same
        knock with any valid arrangement of deadwood <= L is legal too. In the defender phase the
        optimal declaration is listed; any valid declaration is legal.
        """
        if self.result is not None:
            return []
        if self.chooser is not None:
            return [ChooseDeal(True), ChooseDeal(False)]
        h = self.hand
        phase = h.phase
        if phase is _DISCARD_PHASE:
            return self._discard_phase_actions()
        if phase is Phase.DRAW:
            # The common case needs no look-ahead: a top discard nobody is barred from.
            if h.barred is None and not h.stock_only and h.pile:
                return [_DRAW_STOCK, _DRAW_DISCARD]
            return [_DRAW_STOCK, _DRAW_DISCARD] if self._may_take_discard() else [_DRAW_STOCK]
        if phase is Phase.UPCARD_OFFER:
            return [_DRAW_DISCARD, _PASS]
        if phase is Phase.WALL:
            if self.rules.wall_rule == "rlcard":
                if self._may_take_discard():
                    return [_DRAW_DISCARD, _DECLARE_DEAD]
                return [_DECLARE_DEAD]
            return [_DRAW_DISCARD, _PASS] if self._may_take_discard() else [_PASS]
        if phase is Phase.DEFENDER:
            assert h.knocker is not None
            play = self._optimal_defense()
            return [
                DefenderPlay(tuple(m.cards for m in play.melds), tuple(c for c, _ in play.layoffs))
            ]
        raise EngineError(f"no legal actions defined for phase {phase}")

    def _discard_phase_actions(self) -> list[Action]:
        opts = self._discard_options()
        acts: list[Action] = []
        if not opts.forced_gin:
            m = opts.discards
            acts = [
                *_SUIT_DISCARDS[0][m & 0x1FFF],
                *_SUIT_DISCARDS[1][m >> 13 & 0x1FFF],
                *_SUIT_DISCARDS[2][m >> 26 & 0x1FFF],
                *_SUIT_DISCARDS[3][m >> 39 & 0x1FFF],
            ]
        if opts.knocks:
            acts += self._knock_actions(opts)
        if opts.big_gin:
            acts.append(BigGin())
        return acts

    @staticmethod
    def _knock_actions(opts: _DiscardOptions) -> list[Action]:
        return [
            _KNOCK[card]
            for card in sorted(opts.knocks)
            if not opts.forced_gin or opts.knocks[card] == 0
        ]

    def is_legal(self, action: Action) -> bool:
        """Whether :meth:`apply` would accept ``action``."""
        try:
            self._check(action)
        except IllegalActionError:
            return False
        return True

    def apply(self, action: Action) -> None:
        """Carry out ``action`` for the seat to act, or raise :class:`IllegalActionError`.

        Nothing changes when the action is illegal.
        """
        # Fast paths for the two commonest moves; each accepts only what _check would accept,
        # and anything else falls through to the full check (and its error message).
        if self.result is None and self.chooser is None:
            h = self.hand
            kind = type(action)
            if h.phase is Phase.DRAW:
                if kind is DrawStock:
                    self._do_draw_stock()
                    return
                if kind is DrawDiscard and h.barred is None and not h.stock_only and h.pile:
                    self._do_take()
                    return
            if kind is Discard and h.phase is Phase.DISCARD:
                opts = self._discard_options()
                card = action.card  # type: ignore[union-attr]
                if not opts.forced_gin and card >= 0 and opts.discards >> card & 1:
                    self._do_discard(card)
                    return
        plan = self._check(action)
        plan()

    def forfeit(self, seat: int | None, rule: str, reason: str) -> None:
        """End the match: ``seat`` forfeits (R11.5) and the other seat wins.

        ``seat=None`` means both seats are at fault (neither bot connected, say): no winner.
        """
        if self.result is not None:
            raise EngineError("the match is already over")
        self.result = MatchResult(
            Termination.FORFEIT,
            None if seat is None else 1 - seat,
            self.scores,
            forfeit_seat=seat,
            forfeit_rule=rule,
            forfeit_reason=reason,
        )

    # --- validation: one function per phase, returning the mutation to perform ---------------

    def _check(self, action: Action) -> _Plan:
        _check_cards(action)
        phase = self.phase
        if phase is Phase.MATCH_OVER:
            raise IllegalActionError("R9.1", "the match is over")
        if phase is Phase.CHOOSE_DEALER:
            if not isinstance(action, ChooseDeal):
                raise IllegalActionError(
                    "R2.2", f"{action} : the high cutter must choose to deal or not"
                )
            return lambda: self._choose_dealer(action.deal)
        if isinstance(action, ChooseDeal):
            raise IllegalActionError("R2.2", "the first dealer is already decided")
        h = self.hand
        if phase is Phase.UPCARD_OFFER:
            if isinstance(action, DrawDiscard):
                return self._do_take
            if isinstance(action, Pass):
                return self._do_pass_offer
            raise IllegalActionError(
                "R3.1",
                f"{action}: during the upcard offer you may only take the upcard or pass",
            )
        if phase is Phase.DRAW:
            if isinstance(action, DrawStock):
                return self._do_draw_stock
            if isinstance(action, DrawDiscard):
                if h.stock_only:
                    raise IllegalActionError(
                        "R3.4",
                        "both players passed the upcard: the non-dealer must draw from the stock",
                    )
                if not self._may_take_discard():
                    raise IllegalActionError(
                        "R4.3",
                        f"{card_str(h.pile[-1])} was discarded just after being taken; its first "
                        "discarder may take it back only to knock, and no knock with it is legal",
                    )
                return self._do_take
            raise IllegalActionError(
                "R4.1", f"{action}: you must draw from the stock or the discard pile"
            )
        if phase is Phase.WALL:
            return self._check_wall(action)
        if phase is Phase.DISCARD:
            return self._check_discard(action)
        if phase is Phase.DEFENDER:
            return self._check_defender(action)
        raise EngineError(f"unknown phase {phase}")

    def _may_take_discard(self) -> bool:
        """Whether the seat to act may take the top discard now (R4.1, R4.3, R7.3, R7.4)."""
        h = self.hand
        if not h.pile or h.stock_only:
            return False
        top = h.pile[-1]
        seat = h.to_act
        assert seat is not None
        barred = h.barred is not None and h.barred == (top, seat)
        if h.phase is Phase.WALL and self.rules.wall_rule != "rlcard":
            return self._knock_exists(seat, top, self.rules.wall_rule == "fiftieth_card_gamecolony")
        if barred:
            return self._knock_exists(seat, top, False)
        return True

    def _knock_exists(self, seat: int, card: Card, may_discard_it: bool) -> bool:
        """Whether ``seat``, after taking ``card``, could knock (R5.3)."""
        hand = self.hand.hands[seat] | 1 << card
        dws = M.deadwood_by_discard(hand)
        return any(v <= self.hand.limit for d, v in dws.items() if may_discard_it or d != card)

    def _discard_options(self) -> _DiscardOptions:
        h = self.hand
        seat = h.to_act
        assert seat is not None
        hand = h.hands[seat]
        # legal_actions and apply both need these; everything they depend on is in the key.
        # (may_knock_taken and opening only change together with must_knock and the hand.)
        key = (hand, h.taken, h.must_knock)
        cached = h.options
        if cached is not None and cached[0] == key:
            return cached[1]
        opts = self._compute_discard_options(hand)
        h.options = (key, opts)
        return opts

    def _compute_discard_options(self, hand: int) -> _DiscardOptions:
        h = self.hand
        rules = self.rules
        taken_bit = 0 if h.taken is None else 1 << h.taken
        if rules.discard_taken_card == "forbidden" or h.must_knock:
            discards = hand & ~taken_bit
        else:
            discards = hand
        knock_allowed = hand if h.may_knock_taken else discards
        knocks: dict[Card, int] = {}
        # Most hands cannot knock at all: one cheap minimum settles that before the per-card work.
        if M.min_deadwood_after_discard(hand) <= h.limit:
            knocks = {
                c: v
                for c, v in M.deadwood_by_discard(hand).items()
                if v <= h.limit and knock_allowed >> c & 1
            }
        big = rules.big_gin_bonus is not None and not h.opening and M.min_deadwood(hand) == 0
        forced = rules.force_gin and (big or any(v == 0 for v in knocks.values()))
        if h.must_knock:
            discards = 0
        return _DiscardOptions(discards, knocks, knock_allowed, big, forced)

    def _check_discard(self, action: Action) -> _Plan:
        h = self.hand
        seat = h.to_act
        assert seat is not None
        opts = self._discard_options()
        if isinstance(action, Discard):
            card = action.card
            if not h.hands[seat] >> card & 1:
                raise IllegalActionError("R4.2", f"{card_str(card)} is not in your hand")
            if h.must_knock:
                raise IllegalActionError(
                    "R7.3" if h.stock_size <= 2 else "R4.3",
                    "you took this card on condition of knocking: you must knock now",
                )
            if opts.forced_gin:
                raise IllegalActionError("R5.1", "force_gin: you can go gin, so you must")
            if not opts.discards >> card & 1:
                raise IllegalActionError(
                    "R4.3",
                    f"{card_str(card)} was just taken from the discard pile: "
                    "it may not be discarded this turn",
                )
            return lambda: self._do_discard(card)
        if isinstance(action, Knock):
            arrangement = self._check_knock(action, opts)
            return lambda: self._do_knock(action.card, arrangement)
        if isinstance(action, BigGin):
            if not opts.big_gin:
                if self.rules.big_gin_bonus is None:
                    raise IllegalActionError("R5.9", "big gin is not enabled in these rules")
                raise IllegalActionError("R5.9", "big gin needs all 11 cards melded after drawing")
            arrangement = self._arrangement_for(h.hands[seat], action.melds, "R5.9")
            if arrangement.deadwood:
                raise IllegalActionError(
                    "R5.9", "big gin: every one of the 11 cards must be in a meld"
                )
            return lambda: self._do_big_gin(arrangement)
        raise IllegalActionError(
            "R4.2", f"{action}: you hold 11 cards and must discard, knock or go gin"
        )

    def _check_knock(self, action: Knock, opts: _DiscardOptions) -> M.Arrangement:
        h = self.hand
        seat = h.to_act
        assert seat is not None
        card = action.card
        hand = h.hands[seat]
        if not hand >> card & 1:
            raise IllegalActionError(
                "R5.3", f"the knock discard {card_str(card)} is not in your hand"
            )
        if not opts.knock_allowed >> card & 1:
            raise IllegalActionError(
                "R4.3",
                f"{card_str(card)} was just taken from the discard pile: "
                "it may not be the knock discard",
            )
        if card not in opts.knocks:
            raise IllegalActionError(
                "R5.3",
                f"after discarding {card_str(card)} your best deadwood is "
                f"{M.min_deadwood(hand & ~(1 << card))}, over the knock limit {h.limit}",
            )
        if opts.forced_gin and opts.knocks[card] != 0:
            raise IllegalActionError("R5.1", "force_gin: you can go gin, so you must")
        rest = hand & ~(1 << card)
        if action.melds is None:
            if self.rules.knocker_arrangement == "auto":
                return M.best_arrangement(rest)
            seen = hand | mask_of(h.pile)
            return M.default_knock_arrangement(rest, seen)
        if self.rules.knocker_arrangement == "auto":
            raise IllegalActionError(
                "R5.4", "knocker_arrangement = auto: the referee arranges the knocker's cards"
            )
        arrangement = self._arrangement_for(rest, action.melds, "R5.3")
        if arrangement.deadwood_count > h.limit:
            raise IllegalActionError(
                "R5.3",
                f"the declared arrangement leaves {arrangement.deadwood_count} deadwood, over the "
                f"knock limit {h.limit}",
            )
        if opts.forced_gin and arrangement.deadwood_count != 0:
            raise IllegalActionError("R5.1", "force_gin: you can go gin, so you must")
        return arrangement

    @staticmethod
    def _arrangement_for(
        hand: int, melds: tuple[tuple[Card, ...], ...] | None, rule: str
    ) -> M.Arrangement:
        if melds is None:
            return M.best_arrangement(hand)
        try:
            return M.Arrangement.of(hand, melds)
        except CardError as exc:
            raise IllegalActionError(rule, str(exc)) from None

    def _check_wall(self, action: Action) -> _Plan:
        rules = self.rules
        if rules.wall_rule == "rlcard":
            if isinstance(action, DeclareDead):
                return lambda: self._end_dead("declared_dead")
            if isinstance(action, DrawDiscard):
                if not self._may_take_discard():
                    raise IllegalActionError(
                        "R4.3",
                        "the top discard was discarded just after being taken; its first "
                        "discarder may take it back only to knock, and no knock with it is legal",
                    )
                return self._do_take
            raise IllegalActionError(
                "R7.5",
                f"{action}: with two stock cards left, take the discard or declare the hand dead",
            )
        if isinstance(action, Pass):
            return lambda: self._end_dead("wall_pass")
        if isinstance(action, DrawDiscard):
            if not self._may_take_discard():
                rule = "R7.4" if rules.wall_rule == "fiftieth_card_gamecolony" else "R7.3"
                raise IllegalActionError(
                    rule,
                    "the last discard may be taken only to knock, and no knock with it is legal",
                )
            return self._do_take
        raise IllegalActionError(
            "R7.3", f"{action}: the stock is down to two cards: take the discard to knock, or pass"
        )

    def _check_defender(self, action: Action) -> _Plan:
        h = self.hand
        if not isinstance(action, DefenderPlay):
            raise IllegalActionError(
                "R6.1", f"{action}: the defender must declare melds and layoffs"
            )
        assert h.knocker is not None and h.knock_arrangement is not None
        defender = 1 - h.knocker
        gin = h.knock_kind is not HandOutcome.KNOCK
        try:
            play = M.check_defender_play(
                h.hands[defender], h.knock_arrangement.melds, action.melds, action.layoffs, not gin
            )
        except CardError as exc:
            rule = "R6.3" if gin and action.layoffs else "R6.2"
            raise IllegalActionError(rule, str(exc)) from None
        return lambda: self._score(play)

    # --- mutations (only ever called after a successful check) --------------------------------

    def _choose_dealer(self, deal: bool) -> None:
        chooser = self.chooser
        assert chooser is not None
        self.chooser = None
        self._deal(chooser if deal else 1 - chooser)

    def _deal(self, dealer: int) -> None:
        index = self.hands_dealt
        deck = self._decks[index] if index < len(self._decks) else hand_deck(self.seed, index)
        self.hand = Hand(self.rules, index, dealer, deck)
        self.hands_dealt += 1

    def _do_pass_offer(self) -> None:
        h = self.hand
        h.events.append(Event(h.to_act, "pass"))
        if h.to_act != h.dealer:
            h.to_act = h.dealer
        else:
            h.to_act = 1 - h.dealer
            h.phase = Phase.DRAW
            h.stock_only = True

    def _do_draw_stock(self) -> None:
        h = self.hand
        seat = h.to_act
        assert seat is not None
        card = h.deck[h.stock_pos]
        h.stock_pos += 1
        h.hands[seat] |= 1 << card
        h.taken = None
        h.stock_only = False
        h.turns += 1
        h.events.append(Event(seat, "draw_stock", card))
        h.phase = Phase.DISCARD

    def _do_take(self) -> None:
        h = self.hand
        seat = h.to_act
        assert seat is not None
        rules = self.rules
        card = h.pile.pop()
        was_phase = h.phase
        conditional = h.barred is not None and h.barred == (card, seat)
        h.barred = None
        h.hands[seat] |= 1 << card
        h.known[seat] |= 1 << card
        h.taken = card
        h.taken_upcard = was_phase is Phase.UPCARD_OFFER
        h.turns += 1
        h.events.append(Event(seat, "take_upcard" if h.taken_upcard else "draw_discard", card))
        h.phase = Phase.DISCARD
        if was_phase is Phase.WALL and rules.wall_rule != "rlcard":
            h.must_knock = True
            h.may_knock_taken = rules.wall_rule == "fiftieth_card_gamecolony"
        elif conditional:
            h.must_knock = True
        if was_phase is Phase.DRAW:
            h.discard_draws += 1
            if rules.max_discard_draws is not None and h.discard_draws >= rules.max_discard_draws:
                self._end_dead("discard_draw_cap")

    def _do_discard(self, card: Card) -> None:
        h = self.hand
        rules = self.rules
        seat = h.to_act
        assert seat is not None
        h.hands[seat] &= ~(1 << card)
        h.known[seat] &= ~(1 << card)
        h.pile.append(card)
        h.events.append(Event(seat, "discard", card))
        repeat = h.taken == card
        # R4.3 allowed_gra: the card's first discarder may take it back on their next turn only
        # to knock; the upcard was nobody's discard, and any other discard lifts the bar.
        barring = repeat and rules.discard_taken_card == "allowed_gra" and not h.taken_upcard
        h.barred = (card, 1 - seat) if barring else None
        h.taken = None
        h.taken_upcard = False
        h.opening = False
        h.to_act = 1 - seat
        if rules.repeated_discard_dead:
            if repeat and h.prev_repeat:
                self._end_dead("repeated_move")
                return
            h.prev_repeat = repeat
        if rules.max_turns is not None and h.turns >= rules.max_turns:
            self._end_dead("move_cap")
            return
        if h.stock_pos >= 50:  # two stock cards or fewer
            if rules.wall_rule == "dead":
                self._end_dead("stock_exhausted")
                return
            h.phase = Phase.WALL
            return
        h.phase = Phase.DRAW

    def _do_knock(self, card: Card, arrangement: M.Arrangement) -> None:
        h = self.hand
        seat = h.to_act
        assert seat is not None
        h.hands[seat] &= ~(1 << card)
        h.known[seat] &= ~(1 << card)
        h.knock_discard = card
        self._begin_showdown(
            seat,
            arrangement,
            HandOutcome.GIN if arrangement.deadwood_count == 0 else HandOutcome.KNOCK,
        )

    def _do_big_gin(self, arrangement: M.Arrangement) -> None:
        seat = self.hand.to_act
        assert seat is not None
        self._begin_showdown(seat, arrangement, HandOutcome.BIG_GIN)

    def _begin_showdown(self, seat: int, arrangement: M.Arrangement, kind: HandOutcome) -> None:
        h = self.hand
        h.knocker = seat
        h.knock_kind = kind
        h.knock_arrangement = arrangement
        h.taken = None
        h.must_knock = False
        h.events.append(Event(seat, kind.value, h.knock_discard))
        if self.rules.defender_play == "declared":
            h.phase = Phase.DEFENDER
            h.to_act = 1 - seat
            return
        if self.rules.defender_play == "auto_greedy":
            target = arrangement.melds if kind is HandOutcome.KNOCK else ()
            self._score(M.defender_greedy(h.hands[1 - seat], target))
        else:
            self._score(self._optimal_defense())

    def _optimal_defense(self) -> M.DefenderPlay:
        h = self.hand
        assert h.knocker is not None and h.knock_arrangement is not None
        target = h.knock_arrangement.melds if h.knock_kind is HandOutcome.KNOCK else ()
        return M.defender_optimum(h.hands[1 - h.knocker], target)

    def _score(self, play: M.DefenderPlay) -> None:
        """R8: score the showdown, then move the match on."""
        h = self.hand
        rules = self.rules
        knocker = h.knocker
        kind = h.knock_kind
        arrangement = h.knock_arrangement
        assert knocker is not None and kind is not None and arrangement is not None
        defender = 1 - knocker
        if rules.defender_play == "declared":
            h.events.append(Event(defender, "defender_play"))
        k = arrangement.deadwood_count
        d = play.deadwood_count
        winner: int | None
        if kind is HandOutcome.GIN:
            winner, points, outcome = knocker, rules.gin_bonus + d, HandOutcome.GIN
        elif kind is HandOutcome.BIG_GIN:
            assert rules.big_gin_bonus is not None
            winner, points, outcome = knocker, rules.big_gin_bonus + d, HandOutcome.BIG_GIN
        elif k < d:
            winner, points, outcome = knocker, d - k, HandOutcome.KNOCK
        elif d < k or rules.undercut_on_tie:
            winner, points, outcome = defender, rules.undercut_bonus + k - d, HandOutcome.UNDERCUT
        else:
            winner, points, outcome = None, 0, HandOutcome.PUSH
        doubled = (
            rules.spade_double
            and h.upcard is not None
            and h.upcard // 13 == 3
            and winner is not None
        )
        if doubled:
            points *= 2
        extra = 0
        if rules.oklahoma_extra_boxes and outcome is not HandOutcome.KNOCK and winner is not None:
            extra = 1 if outcome is HandOutcome.UNDERCUT else 2
            if doubled:
                extra *= 2
        payoffs = self._payoffs(outcome, winner, points, knocker)
        self._finish_hand(
            outcome,
            winner,
            points,
            extra=extra,
            doubled=doubled,
            knocker=knocker,
            arrangement=arrangement,
            play=play,
            k=k,
            d=d,
            payoffs=payoffs,
        )

    def _payoffs(
        self, outcome: HandOutcome, winner: int | None, points: int, knocker: int | None
    ) -> tuple[float, float]:
        """The hand's return to each seat under ``payoff`` (R8.7, §12.6)."""
        h = self.hand
        mode = self.rules.payoff
        if mode == "rlcard_shaped":
            values = [-M.min_deadwood(h.hands[s]) / 100 for s in (0, 1)]
            if knocker is not None:
                values[knocker] = 1.0 if outcome in (HandOutcome.GIN, HandOutcome.BIG_GIN) else 0.2
            return values[0], values[1]
        if winner is None:
            return 0.0, 0.0
        other = 0.0 if mode == "points" else float(-points)
        return (float(points), other) if winner == 0 else (other, float(points))

    def _end_dead(self, reason: str) -> None:
        self._finish_hand(
            HandOutcome.DEAD,
            None,
            0,
            dead_reason=reason,
            payoffs=self._payoffs(HandOutcome.DEAD, None, 0, None),
        )

    def _finish_hand(
        self,
        outcome: HandOutcome,
        winner: int | None,
        points: int,
        *,
        extra: int = 0,
        doubled: bool = False,
        knocker: int | None = None,
        arrangement: M.Arrangement | None = None,
        play: M.DefenderPlay | None = None,
        k: int | None = None,
        d: int | None = None,
        dead_reason: str | None = None,
        payoffs: tuple[float, float] = (0.0, 0.0),
    ) -> None:
        h = self.hand
        rules = self.rules
        h.events.append(Event(None, "hand_over"))
        if winner is not None:
            for tally in self._tallies_for(winner):
                tally.points[winner] += points
                tally.hands_won[winner] += 1
                tally.extra_boxes[winner] += extra
                if rules.boxes_count_toward_target:
                    tally.points[winner] += rules.box_bonus * (1 + extra)
        result = HandResult(
            number=h.number,
            dealer=h.dealer,
            outcome=outcome,
            winner=winner,
            points=points,
            knocker=knocker,
            knock_discard=h.knock_discard,
            knocker_arrangement=arrangement,
            defender=play,
            knocker_deadwood=k,
            defender_deadwood=d,
            doubled=doubled,
            extra_boxes=extra,
            dead_reason=dead_reason,
            payoffs=payoffs,
            final_hands=(tuple(cards_of(h.hands[0])), tuple(cards_of(h.hands[1]))),
            scores_after=self.scores,
        )
        self.hand_results.append(result)
        h.phase = Phase.MATCH_OVER
        h.to_act = None
        if rules.scope == "single_hand":  # R9.9: one hand, no game to settle
            self.result = MatchResult(Termination.SINGLE_HAND, winner, self.scores)
            return
        if self._settle_games():
            return
        self._deal(self._next_dealer(h.dealer, winner))

    def _tallies_for(self, winner: int) -> list[_Tally]:
        """The games a hand win is entered in: one, or Hollywood's rule (R9.8)."""
        if not self.games:
            return [self.tally]
        out: list[_Tally] = []
        first_open = True
        previous: _Tally | None = None
        for tally in self.games:
            if tally.settled is None:
                # A game takes the score if it is the first one still open, or if this player
                # has already scored in the game before it (RG's rule, shutouts included).
                if first_open or (previous is not None and previous.points[winner] > 0):
                    out.append(tally)
                first_open = False
            previous = tally
        return out

    def _settle_games(self) -> bool:
        """Settle every game whose target is reached; set the match result when all are done."""
        rules = self.rules
        tallies = self.games or [self.tally]
        for tally in tallies:
            if tally.settled is None:
                for seat in (0, 1):
                    if tally.points[seat] >= rules.target:
                        tally.settled = settle_game(
                            rules, tally.points, tally.hands_won, tally.extra_boxes, seat
                        )
        if any(t.settled is None for t in tallies):
            return False
        games = tuple(t.settled for t in tallies if t.settled is not None)
        final = (sum(g.final[0] for g in games), sum(g.final[1] for g in games))
        if self.games:
            winner = None if final[0] == final[1] else (0 if final[0] > final[1] else 1)
            self.result = MatchResult(Termination.HOLLYWOOD, winner, final, games)
        else:
            self.result = MatchResult(Termination.TARGET, games[0].winner, final, games)
        return True

    def _next_dealer(self, dealer: int, winner: int | None) -> int:
        """R2.6, R2.7."""
        rules = self.rules
        if winner is None:
            return dealer if rules.dead_hand_dealer == "same_dealer" else 1 - dealer
        if rules.dealer_rotation == "alternate":
            return 1 - dealer
        if rules.dealer_rotation == "loser_deals":
            return 1 - winner
        return winner


def settle_game(
    rules: Rules,
    points: Sequence[int],
    hands_won: Sequence[int],
    extra_boxes: Sequence[int],
    winner: int,
) -> GameScore:
    """Final scores of a game won by ``winner`` (R9.3-R9.6, A.4)."""
    loser = 1 - winner
    shutout = points[loser] == 0
    box = 0 if rules.boxes_count_toward_target else rules.box_bonus
    hw = points[winner] * (2 if shutout and rules.shutout == "hand_points_doubled" else 1)
    game = rules.game_bonus * (2 if shutout and rules.shutout == "game_bonus_doubled" else 1)
    fw = hw + game + box * (hands_won[winner] + extra_boxes[winner])
    if shutout and rules.shutout == "total_doubled":
        fw *= 2
    fl = points[loser] + box * (hands_won[loser] + extra_boxes[loser])
    final = (fw, fl) if winner == 0 else (fl, fw)
    return GameScore(
        winner,
        (points[0], points[1]),
        (hands_won[0], hands_won[1]),
        (extra_boxes[0], extra_boxes[1]),
        final,
        shutout,
    )


def _check_cards(action: Action) -> None:
    """R1.1: every card an action names is one of the 52 (ints 0..51)."""
    named: list[object] = []
    if isinstance(action, Discard | Knock):
        named.append(action.card)
    if isinstance(action, Knock | BigGin | DefenderPlay) and action.melds is not None:
        for meld in action.melds:
            named.extend(meld)
    if isinstance(action, DefenderPlay):
        named.extend(action.layoffs)
    for card in named:
        if type(card) is not int or not 0 <= card < 52:
            raise IllegalActionError("R1.1", f"{card!r} is not a card (expected 0..51)")


def _tally_key(t: _Tally) -> tuple[object, ...]:
    return (tuple(t.points), tuple(t.hands_won), tuple(t.extra_boxes), t.settled)


def _copy_tally(t: _Tally) -> _Tally:
    return _Tally(list(t.points), list(t.hands_won), list(t.extra_boxes), t.settled)
