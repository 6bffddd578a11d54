"""The match as a state machine (docs/rules.md §2-§9): one place where state changes.

:class:`Match` holds the whole truth: every hand's deck, both hands, the stock, the scores. Its
:meth:`Match.legal_actions` and :meth:`Match.apply` are built from the same per-phase option sets
(:mod:`referee.engine.legal`), so they cannot disagree; :meth:`Match.apply` validates
completely before it changes anything, so an :class:`~referee.errors.IllegalActionError` (which
names the rule) leaves the state unchanged. What a seat may see is built by
:func:`referee.engine.observation.observe` alone; how a hand is dealt is in
:mod:`referee.engine.hand`, how each action is checked in :mod:`referee.engine.plans`, and how
it scores in :mod:`referee.engine.scoring`.

Two places take an action in two steps where docs/rules.md speaks of one atomic "take and knock"
(R4.3 ``allowed_gra``, R7.3, R7.4): taking the card is legal only when a legal knock with it exists,
and once it is taken the same player's only legal actions are knocks, so the pair can never be
split and the outcome is the same.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from referee.engine import layoffs as L
from referee.engine import melds as M
from referee.engine.actions import (
    Action,
    ChooseDeal,
    DeclareDead,
    DefenderPlay,
    Discard,
    DrawDiscard,
    DrawStock,
    Pass,
)
from referee.engine.cards import Card
from referee.engine.deal import cut_cards, dealer_stream, hand_deck
from referee.engine.errors import EngineError, IllegalActionError
from referee.engine.game import Table
from referee.engine.hand import Hand
from referee.engine.legal import (
    discard_options,
    discard_phase_actions,
    may_take_discard,
)
from referee.engine.outcomes import (
    Event,
    HandOutcome,
    HandResult,
    KnockInfo,
    MatchResult,
    Phase,
    RoundResult,
    Termination,
)
from referee.engine.plans import plan_action
from referee.engine.rules import Rules
from referee.engine.scoring import (
    HandScore,
    Scoreboard,
    hand_result,
    next_dealer,
    score_dead,
    score_showdown,
)

_DISCARD_PHASE = Phase.DISCARD
_DRAW_STOCK = DrawStock()
_DRAW_DISCARD = DrawDiscard()
_PASS = Pass()
_DECLARE_DEAD = DeclareDead()
# The events of draws and discards built directly: a NamedTuple's own __new__ is a Python call.
_new_event = tuple.__new__
# The defender_play values under which the defender declares its play (phase DEFENDER, R6.6).
_DECLARING = frozenset({"declared", "declared_melds"})


class Match:
    """A match between seats 0 and 1 under ``rules``, every chance event derived from ``seed``.

    A :class:`~referee.engine.game.Game` of one table. ``decks`` (tests, replays) gives
    explicit deck orders for the first hands; later hands come from the seed.
    ``first_dealer`` fixes the first dealer, bypassing R2.2.
    """

    players = 2
    teams = False
    sitting_out = None
    round_results: tuple[RoundResult, ...] = ()

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
        self._board = Scoreboard(rules.hollywood)
        self.hand_results: list[HandResult] = []
        self.result: MatchResult | None = None
        self.hands_dealt = 0
        self.cut: tuple[Card, Card] | None = None
        self._chooser: int | None = None
        # None only until the high cutter chooses (R2.2); typed as set for the hot paths.
        self._hand: Hand = None  # type: ignore[assignment]
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
                    self._chooser = 1 - low
        if first_dealer is not None:
            self._deal(first_dealer)

    # --- public API ---------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """The phase of the match."""
        if self.result is not None:
            return Phase.MATCH_OVER
        if self._chooser is not None:
            return Phase.CHOOSE_DEALER
        return self._hand._phase

    @property
    def to_act(self) -> int | None:
        """The seat whose decision is awaited (``None`` once the match is over)."""
        if self.result is not None:
            return None
        if self._chooser is not None:
            return self._chooser
        return self._hand._to_act

    @property
    def hand(self) -> Hand | None:
        """The hand being played (the last one, once the match is over).

        ``None`` until the high cutter has chosen who deals first (R2.2).
        """
        return self._hand

    @property
    def chooser(self) -> int | None:
        """The high cutter who is to choose whether to deal first (R2.2), until they have."""
        return self._chooser

    @property
    def scores(self) -> tuple[int, int]:
        """Cumulative hand points (R9.1; with Hollywood, those of game 1)."""
        return self._board.points

    @property
    def hands_won(self) -> tuple[int, int]:
        """Hands won by each seat (R9.1; with Hollywood, in game 1)."""
        return self._board.hands_won

    @property
    def extra_boxes(self) -> tuple[int, int]:
        """Oklahoma extra boxes of each seat (R9.7)."""
        return self._board.extra_boxes

    @property
    def board(self) -> Scoreboard:
        """The games' running scores and settlements (read-only)."""
        return self._board

    @property
    def tables(self) -> tuple[Table, ...]:
        """The one table, seats 0 and 1 at hand seats 0 and 1; none before the first deal."""
        h = self._hand
        if h is None:
            return ()
        last = self.hand_results[-1] if self.hand_results else None
        return (Table(0, (0, 1), self, last if last and last.number == h.number else None),)

    def table_of(self, seat: int) -> Table | None:
        """The table ``seat`` plays at: the one table, once dealt."""
        tables = self.tables
        return tables[0] if tables and seat in (0, 1) else None

    def team_of(self, seat: int) -> int:
        """Each seat is its own side."""
        return seat

    def copy(self) -> Match:
        """An independent deep copy (results and rules are immutable and shared)."""
        return self._copy_with(self._hand)

    def with_hand(self, hand: Hand) -> Match:
        """A copy of this match whose current hand is a copy of ``hand``, one of its hands.

        A replay shows a finished hand as it ended (its last events and result) although the
        match has dealt the next one: this is that match, with the scores it has now.
        """
        if not 0 <= hand.number < self.hands_dealt:
            raise EngineError(f"hand {hand.number} has not been dealt in this match")
        return self._copy_with(hand)

    def _copy_with(self, hand: Hand | None) -> Match:
        other = Match.__new__(Match)
        other.rules = self.rules
        other.seed = self.seed
        other._decks = self._decks
        other._board = self._board.copy()
        other.hand_results = list(self.hand_results)
        other.result = self.result
        other.hands_dealt = self.hands_dealt
        other.cut = self.cut
        other._chooser = self._chooser
        other._hand = hand.copy() if hand is not None else hand  # type: ignore[assignment]
        return other

    def fingerprint(self) -> tuple[object, ...]:
        """The whole state as a hashable value: equal fingerprints mean equal states."""
        h = self._hand
        return (
            self.seed,
            self.hands_dealt,
            self._chooser,
            self.result,
            tuple(self.hand_results),
            self._board.key(),
            None if h is None else h._state(),
        )

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act, in a fixed order.

        Knocks and big gin are listed with ``melds=None`` (the referee arranges, R5.4); the same
        knock with any valid arrangement of deadwood <= L is legal too. In the defender phase the
        referee's proposal is listed (the optimum; under ``declared_melds`` the own melds that do
        best under the framework's layoffs); any valid declaration is legal.
        """
        if self.result is not None:
            return []
        if self._chooser is not None:
            return [ChooseDeal(True), ChooseDeal(False)]
        h = self._hand
        phase = h._phase
        if phase is _DISCARD_PHASE:
            return discard_phase_actions(self.rules, h)
        if phase is Phase.DRAW:
            # The common case needs no look-ahead: a top discard nobody is barred from.
            if h._barred is None and not h._stock_only and h._pile:
                return [_DRAW_STOCK, _DRAW_DISCARD]
            may_take = may_take_discard(self.rules, h)
            return [_DRAW_STOCK, _DRAW_DISCARD] if may_take else [_DRAW_STOCK]
        if phase is Phase.UPCARD_OFFER:
            return [_DRAW_DISCARD, _PASS]
        if phase is Phase.WALL:
            if self.rules.wall_rule == "rlcard":
                if may_take_discard(self.rules, h):
                    return [_DRAW_DISCARD, _DECLARE_DEAD]
                return [_DECLARE_DEAD]
            return [_DRAW_DISCARD, _PASS] if may_take_discard(self.rules, h) else [_PASS]
        if phase is Phase.DEFENDER:
            play = self._optimal_defense()
            # Under declared_melds the referee lays off: the proposal is the own melds alone.
            laid = () if self.rules.defender_play == "declared_melds" else play.layoffs
            return [DefenderPlay(tuple(m.cards for m in play.melds), tuple(c for c, _ in laid))]
        raise EngineError(f"no legal actions defined for phase {phase}")

    def is_legal(self, action: Action) -> bool:
        """Whether :meth:`apply` would accept ``action``."""
        try:
            plan_action(self, action)
        except IllegalActionError:
            return False
        return True

    def apply(self, action: Action) -> None:
        """Carry out ``action`` for the seat to act, or raise :class:`IllegalActionError`.

        Nothing changes when the action is illegal.
        """
        # Fast paths for the two commonest moves; each accepts only what plan_action would accept,
        # and anything else falls through to the full check (and its error message).
        if self.result is None and self._chooser is None:
            h = self._hand
            kind = type(action)
            if h._phase is Phase.DRAW:
                if kind is DrawStock:
                    self._do_draw_stock()
                    return
                if kind is DrawDiscard and h._barred is None and not h._stock_only and h._pile:
                    self._do_take()
                    return
            if kind is Discard and h._phase is Phase.DISCARD:
                opts = discard_options(self.rules, h)
                card = action.card  # type: ignore[union-attr]
                if not opts.forced_gin and card >= 0 and opts.discards >> card & 1:
                    self._do_discard(card)
                    return
        plan = plan_action(self, action)
        plan()

    def forfeit(self, seats: Collection[int], rule: str, reason: str) -> None:
        """End the match: ``seats`` forfeit (R11.5); when one does, the other seat wins.

        Both seats at fault (neither bot connected, say): no winner.
        """
        if self.result is not None:
            raise EngineError("the match is already over")
        named = set(seats)
        if not named or not named <= {0, 1}:
            raise EngineError(f"a forfeit names seat 0, seat 1 or both, not {sorted(named)}")
        seat = None if len(named) == 2 else min(named)
        self.result = MatchResult(
            Termination.FORFEIT,
            None if seat is None else 1 - seat,
            self.scores,
            forfeit_seat=seat,
            forfeit_rule=rule,
            forfeit_reason=reason,
            forfeit_seats=tuple(sorted(named)),
        )

    # --- mutations (only ever called after a successful check) --------------------------------

    def _choose_dealer(self, deal: bool) -> None:
        chooser = self._chooser
        assert chooser is not None
        self._chooser = None
        self._deal(chooser if deal else 1 - chooser)

    def _deal(self, dealer: int) -> None:
        index = self.hands_dealt
        deck = self._decks[index] if index < len(self._decks) else hand_deck(self.seed, index)
        self._hand = Hand(self.rules, index, dealer, deck)
        self.hands_dealt += 1

    def _do_pass_offer(self) -> None:
        h = self._hand
        h._events.append(Event(h._to_act, "pass"))
        if h._to_act != h._dealer:
            h._to_act = h._dealer
        else:
            h._to_act = 1 - h._dealer
            h._phase = Phase.DRAW
            h._stock_only = True

    def _do_draw_stock(self) -> None:
        h = self._hand
        seat = h._to_act
        assert seat is not None
        card = h._deck[h._stock_pos]
        h._stock_pos += 1
        h._hands[seat] |= 1 << card
        h._taken = None
        h._stock_only = False
        h._turns += 1
        h._events.append(_new_event(Event, (seat, "draw_stock", card)))
        h._phase = Phase.DISCARD

    def _do_take(self) -> None:
        h = self._hand
        seat = h._to_act
        assert seat is not None
        rules = self.rules
        card = h._pile.pop()
        was_phase = h._phase
        conditional = h._barred is not None and h._barred == (card, seat)
        h._barred = None
        h._hands[seat] |= 1 << card
        h._known[seat] |= 1 << card
        h._taken = card
        h._taken_upcard = was_phase is Phase.UPCARD_OFFER
        h._turns += 1
        kind = "take_upcard" if h._taken_upcard else "draw_discard"
        h._events.append(_new_event(Event, (seat, kind, card)))
        h._phase = Phase.DISCARD
        if was_phase is Phase.WALL and rules.wall_rule != "rlcard":
            h._must_knock = True
            h._may_knock_taken = rules.wall_rule == "fiftieth_card_gamecolony"
        elif conditional:
            h._must_knock = True
        if was_phase is Phase.DRAW:
            h._discard_draws += 1
            if rules.max_discard_draws is not None and h._discard_draws >= rules.max_discard_draws:
                self._end_dead("discard_draw_cap")

    def _do_discard(self, card: Card) -> None:
        h = self._hand
        rules = self.rules
        seat = h._to_act
        assert seat is not None
        h._hands[seat] &= ~(1 << card)
        h._known[seat] &= ~(1 << card)
        h._pile.append(card)
        h._events.append(_new_event(Event, (seat, "discard", card)))
        repeat = h._taken == card
        # R4.3 allowed_gra: the card's first discarder may take it back on their next turn only
        # to knock; the upcard was nobody's discard, and any other discard lifts the bar.
        barring = repeat and rules.discard_taken_card == "allowed_gra" and not h._taken_upcard
        h._barred = (card, 1 - seat) if barring else None
        h._taken = None
        h._taken_upcard = False
        h._opening = False
        h._to_act = 1 - seat
        if rules.repeated_discard_dead:
            if repeat and h._prev_repeat:
                self._end_dead("repeated_move")
                return
            h._prev_repeat = repeat
        if rules.max_turns is not None and h._turns >= rules.max_turns:
            self._end_dead("move_cap")
            return
        if h._stock_pos >= 50:  # two stock cards or fewer
            if rules.wall_rule == "dead":
                self._end_dead("stock_exhausted")
                return
            h._phase = Phase.WALL
            return
        h._phase = Phase.DRAW

    def _do_knock(
        self, card: Card, arrangement: M.Arrangement, order: tuple[M.Meld, ...] = ()
    ) -> None:
        h = self._hand
        seat = h._to_act
        assert seat is not None
        h._hands[seat] &= ~(1 << card)
        h._known[seat] &= ~(1 << card)
        h._knock_discard = card
        if self.rules.knock_discard == "face_up":  # R5.2: where the defender sees it
            h._pile.append(card)
        self._begin_showdown(
            seat,
            arrangement,
            HandOutcome.GIN if arrangement.deadwood_count == 0 else HandOutcome.KNOCK,
            order,
        )

    def _do_big_gin(self, arrangement: M.Arrangement) -> None:
        seat = self._hand._to_act
        assert seat is not None
        self._begin_showdown(seat, arrangement, HandOutcome.BIG_GIN)

    def _begin_showdown(
        self,
        seat: int,
        arrangement: M.Arrangement,
        kind: HandOutcome,
        order: tuple[M.Meld, ...] = (),
    ) -> None:
        h = self._hand
        h._knock = KnockInfo(seat, kind, arrangement, order)
        h._taken = None
        h._must_knock = False
        h._events.append(Event(seat, kind.value, h._knock_discard))
        if self.rules.defender_play in _DECLARING:
            h._phase = Phase.DEFENDER
            h._to_act = 1 - seat
            return
        if self.rules.defender_play == "auto_greedy":
            target = arrangement.melds if kind is HandOutcome.KNOCK else ()
            self._score(L.defender_greedy(h._hands[1 - seat], target))
        else:
            self._score(self._optimal_defense())

    def _optimal_defense(self) -> L.DefenderPlay:
        """The defender's play the referee proposes: the optimum (R6.6), or under
        ``declared_melds`` the own melds that do best under the framework's layoffs."""
        h = self._hand
        knock = h._knock
        assert knock is not None
        target = knock.arrangement.melds if knock.kind is HandOutcome.KNOCK else ()
        defender = h._hands[1 - knock.knocker]
        if self.rules.defender_play == "declared_melds":
            order = knock.melds_as_declared if target else ()
            return L.defender_greedy(defender, target, order)
        return L.defender_optimum(defender, target)

    def _score(self, play: L.DefenderPlay) -> None:
        """R8: score the showdown, then move the match on."""
        h = self._hand
        if self.rules.defender_play in _DECLARING:
            knock = h._knock
            assert knock is not None
            h._events.append(Event(1 - knock.knocker, "defender_play"))
        self._finish_hand(score_showdown(self.rules, h, play))

    def _end_dead(self, reason: str) -> None:
        self._finish_hand(score_dead(self.rules, self._hand, reason))

    def _finish_hand(self, score: HandScore) -> None:
        """Record the hand's result, then settle games, end the match or deal the next hand."""
        h = self._hand
        rules = self.rules
        h._events.append(Event(None, "hand_over"))
        self._board._enter(rules, score)
        self.hand_results.append(hand_result(h, score, self._board.points))
        h._phase = Phase.MATCH_OVER
        h._to_act = None
        if rules.scope == "single_hand":  # R9.9: one hand, no game to settle
            self.result = MatchResult(Termination.SINGLE_HAND, score.winner, self.scores)
            return
        result = self._board._settle(rules)
        if result is not None:
            self.result = result
            return
        self._deal(next_dealer(rules, h._dealer, score.winner))
