"""What an action does in each phase of a match, checked before anything changes (R2-R7).

:func:`plan_action` validates an action completely against the match and returns the mutation
that carries it out: :meth:`~referee.engine.match.Match.apply` calls it and only then the plan,
so an illegal action (an :class:`~referee.engine.errors.IllegalActionError` naming the rule)
changes nothing. One function per phase.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from referee.engine import layoffs as L
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
    check_cards,
)
from referee.engine.cards import card_str
from referee.engine.errors import CardError, EngineError, IllegalActionError
from referee.engine.legal import (
    declared_arrangement,
    declared_order,
    discard_options,
    knock_arrangement,
    may_take_discard,
)
from referee.engine.outcomes import HandOutcome, Phase

if TYPE_CHECKING:
    from referee.engine.match import Match

Plan = Callable[[], None]


def plan_action(m: Match, action: Action) -> Plan:
    """The mutation that carries out ``action`` in ``m``, or IllegalActionError (naming the
    rule) with nothing changed."""
    check_cards(action)
    phase = m.phase
    if phase is Phase.MATCH_OVER:
        raise IllegalActionError("R9.1", "the match is over")
    if phase is Phase.CHOOSE_DEALER:
        if not isinstance(action, ChooseDeal):
            raise IllegalActionError("R2.2", "the high cutter must choose to deal or not")
        return lambda: m._choose_dealer(action.deal)
    if isinstance(action, ChooseDeal):
        raise IllegalActionError("R2.2", "the first dealer is already decided")
    h = m._hand
    if phase is Phase.UPCARD_OFFER:
        if isinstance(action, DrawDiscard):
            return m._do_take
        if isinstance(action, Pass):
            return m._do_pass_offer
        raise IllegalActionError(
            "R3.1",
            "during the upcard offer you may only take the upcard or pass",
        )
    if phase is Phase.DRAW:
        if isinstance(action, DrawStock):
            return m._do_draw_stock
        if isinstance(action, DrawDiscard):
            if h._stock_only:
                raise IllegalActionError(
                    "R3.4",
                    "both players passed the upcard: the non-dealer must draw from the stock",
                )
            if not may_take_discard(m.rules, h):
                raise IllegalActionError(
                    "R4.3",
                    f"{card_str(h._pile[-1])} was discarded just after being taken; its first "
                    "discarder may take it back only to knock, and no knock with it is legal",
                )
            return m._do_take
        raise IllegalActionError("R4.1", "you must draw from the stock or the discard pile")
    if phase is Phase.WALL:
        return _wall(m, action)
    if phase is Phase.DISCARD:
        return _discard(m, action)
    if phase is Phase.DEFENDER:
        return _defender(m, action)
    raise EngineError(f"unknown phase {phase}")


def _discard(m: Match, action: Action) -> Plan:
    h = m._hand
    seat = h._to_act
    assert seat is not None
    opts = discard_options(m.rules, h)
    if isinstance(action, Discard):
        card = action.card
        if not h._hands[seat] >> card & 1:
            raise IllegalActionError("R4.2", f"{card_str(card)} is not in your hand")
        if h._must_knock:
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
        return lambda: m._do_discard(card)
    if isinstance(action, Knock):
        arrangement = knock_arrangement(m.rules, h, action, opts)
        order = declared_order(arrangement, action.melds)
        return lambda: m._do_knock(action.card, arrangement, order)
    if isinstance(action, BigGin):
        if not opts.big_gin:
            if m.rules.big_gin_bonus is None:
                raise IllegalActionError("R5.9", "big gin is not enabled in these rules")
            raise IllegalActionError("R5.9", "big gin needs all 11 cards melded after drawing")
        arrangement = declared_arrangement(h._hands[seat], action.melds, "R5.9")
        if arrangement.deadwood:
            raise IllegalActionError("R5.9", "big gin: every one of the 11 cards must be in a meld")
        return lambda: m._do_big_gin(arrangement)
    raise IllegalActionError("R4.2", "you hold 11 cards and must discard, knock or go gin")


def _wall(m: Match, action: Action) -> Plan:
    rules = m.rules
    if rules.wall_rule == "rlcard":
        if isinstance(action, DeclareDead):
            return lambda: m._end_dead("declared_dead")
        if isinstance(action, DrawDiscard):
            if not may_take_discard(rules, m._hand):
                raise IllegalActionError(
                    "R4.3",
                    "the top discard was discarded just after being taken; its first "
                    "discarder may take it back only to knock, and no knock with it is legal",
                )
            return m._do_take
        raise IllegalActionError(
            "R7.5",
            "with two stock cards left, take the discard or declare the hand dead",
        )
    if isinstance(action, Pass):
        return lambda: m._end_dead("wall_pass")
    if isinstance(action, DrawDiscard):
        if not may_take_discard(rules, m._hand):
            rule = "R7.4" if rules.wall_rule == "fiftieth_card_gamecolony" else "R7.3"
            raise IllegalActionError(
                rule,
                "the last discard may be taken only to knock, and no knock with it is legal",
            )
        return m._do_take
    raise IllegalActionError(
        "R7.3", "the stock is down to two cards: take the discard to knock, or pass"
    )


def _defender(m: Match, action: Action) -> Plan:
    h = m._hand
    if not isinstance(action, DefenderPlay):
        raise IllegalActionError("R6.1", "the defender must declare melds and layoffs")
    knock = h._knock
    assert knock is not None
    defender = 1 - knock.knocker
    gin = knock.kind is not HandOutcome.KNOCK
    if m.rules.defender_play == "declared_melds":
        if action.layoffs:
            raise IllegalActionError(
                "R6.6",
                "defender_play = declared_melds: declare your own melds only; the referee lays "
                "off the rest of your cards",
            )
        target = () if gin else knock.arrangement.melds
        try:
            play = L.declared_melds_play(
                h._hands[defender], target, knock.melds_as_declared, action.melds
            )
        except CardError as exc:
            raise IllegalActionError("R6.1", str(exc)) from None
        return lambda: m._score(play)
    try:
        play = L.check_defender_play(
            h._hands[defender], knock.arrangement.melds, action.melds, action.layoffs, not gin
        )
    except CardError as exc:
        rule = "R6.3" if gin and action.layoffs else "R6.2"
        raise IllegalActionError(rule, str(exc)) from None
    return lambda: m._score(play)
