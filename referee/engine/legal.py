"""What the seat to act may do with the cards it holds (R4.1, R4.3, R5, R7.3, R7.4).

:meth:`Match.legal_actions <referee.engine.match.Match.legal_actions>` lists these option sets
and :meth:`Match.apply <referee.engine.match.Match.apply>` validates against the very same ones,
so the two cannot disagree. Pure queries over a :class:`~referee.engine.hand.Hand`; the only
thing written is the hand's cache of its discard options.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.engine import melds as M
from referee.engine.actions import Action, BigGin, Discard, Knock
from referee.engine.cards import Card, LazyTable, card_str, cards_of, mask_of
from referee.engine.errors import CardError, IllegalActionError
from referee.engine.hand import Hand
from referee.engine.outcomes import Phase
from referee.engine.rules import Rules


@dataclass(slots=True)
class DiscardOptions:
    """What the player holding 11 cards may do (R4.2, R4.3, R5): computed once, used twice."""

    discards: int  # mask of cards that may be discarded face up
    knocks: dict[Card, int]  # knock discard -> dw* of the other 10 cards (only those <= L)
    knock_allowed: int  # mask of cards allowed as the face-down knock discard
    big_gin: bool
    forced_gin: bool  # force_gin is on and some gin exists: only gins are legal


_DISCARD = [Discard(c) for c in range(52)]
_KNOCK = [Knock(c) for c in range(52)]
# The Discard actions of each suit's 13-bit mask, so a hand's list is four look-ups.


def _suit_discards(suit: int) -> LazyTable[tuple[Discard, ...]]:
    return LazyTable(lambda m: tuple(_DISCARD[13 * suit + r] for r in range(13) if m >> r & 1))


_SUIT_DISCARDS = tuple(_suit_discards(s) for s in range(4))


def discard_options(rules: Rules, h: Hand) -> DiscardOptions:
    """The options of the seat to act, which holds 11 cards (cached on the hand)."""
    seat = h._to_act
    assert seat is not None
    hand = h._hands[seat]
    # legal_actions and apply both need these; everything they depend on is in the key.
    # (may_knock_taken and opening only change together with must_knock and the hand.)
    key = (hand, h._taken, h._must_knock)
    cached = h._options
    if cached is not None and cached[0] == key:
        return cached[1]
    opts = _compute_discard_options(rules, h, hand)
    h._options = (key, opts)
    return opts


def _compute_discard_options(rules: Rules, h: Hand, hand: int) -> DiscardOptions:
    taken_bit = 0 if h._taken is None else 1 << h._taken
    if rules.discard_taken_card == "forbidden" or h._must_knock:
        discards = hand & ~taken_bit
    else:
        discards = hand
    knock_allowed = hand if h._may_knock_taken else discards
    knocks: dict[Card, int] = {}
    limit = h._limit
    # Most hands cannot knock at all: one cheap minimum settles that before the per-card work.
    if M.min_deadwood_after_discard(hand) <= limit:
        knocks = {
            c: v
            for c, v in M.deadwood_by_discard(hand).items()
            if v <= limit and knock_allowed >> c & 1
        }
    big = rules.big_gin_bonus is not None and not h._opening and M.min_deadwood(hand) == 0
    forced = rules.force_gin and (big or any(v == 0 for v in knocks.values()))
    if h._must_knock:
        discards = 0
    return DiscardOptions(discards, knocks, knock_allowed, big, forced)


def discard_phase_choices(rules: Rules, h: Hand) -> tuple[int, int, bool]:
    """The legal choices of the seat holding 11 cards, as masks: the cards it may discard face
    up, the cards it may knock with, and whether it may declare big gin."""
    opts = discard_options(rules, h)
    forced = opts.forced_gin
    knocks = 0
    for card, deadwood in opts.knocks.items():
        if not forced or deadwood == 0:
            knocks |= 1 << card
    return 0 if forced else opts.discards, knocks, opts.big_gin


def discard_phase_actions(rules: Rules, h: Hand) -> list[Action]:
    """Every legal action of the seat holding 11 cards, discards first, in card order."""
    m, knocks, big_gin = discard_phase_choices(rules, h)
    acts: list[Action] = [
        *_SUIT_DISCARDS[0][m & 0x1FFF],
        *_SUIT_DISCARDS[1][m >> 13 & 0x1FFF],
        *_SUIT_DISCARDS[2][m >> 26 & 0x1FFF],
        *_SUIT_DISCARDS[3][m >> 39 & 0x1FFF],
    ]
    if knocks:
        acts += [_KNOCK[card] for card in cards_of(knocks)]
    if big_gin:
        acts.append(BigGin())
    return acts


def may_take_discard(rules: Rules, h: Hand) -> bool:
    """Whether the seat to act may take the top discard now (R4.1, R4.3, R7.3, R7.4)."""
    if not h._pile or h._stock_only:
        return False
    top = h._pile[-1]
    seat = h._to_act
    assert seat is not None
    barred = h._barred is not None and h._barred == (top, seat)
    if h._phase is Phase.WALL and rules.wall_rule != "rlcard":
        return _knock_exists(h, seat, top, rules.wall_rule == "fiftieth_card_gamecolony")
    if barred:
        return _knock_exists(h, seat, top, False)
    return True


def _knock_exists(h: Hand, seat: int, card: Card, may_discard_it: bool) -> bool:
    """Whether ``seat``, after taking ``card``, could knock (R5.3)."""
    hand = h._hands[seat] | 1 << card
    dws = M.deadwood_by_discard(hand)
    return any(v <= h._limit for d, v in dws.items() if may_discard_it or d != card)


def knock_arrangement(rules: Rules, h: Hand, action: Knock, opts: DiscardOptions) -> M.Arrangement:
    """The arrangement the knock ``action`` is scored with (R5.3, R5.4).

    Raises :class:`IllegalActionError`, naming the rule, if the knock is not legal here.
    """
    seat = h._to_act
    assert seat is not None
    card = action.card
    hand = h._hands[seat]
    if not hand >> card & 1:
        raise IllegalActionError("R5.3", f"the knock discard {card_str(card)} is not in your hand")
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
            f"{M.min_deadwood(hand & ~(1 << card))}, over the knock limit {h._limit}",
        )
    if opts.forced_gin and opts.knocks[card] != 0:
        raise IllegalActionError("R5.1", "force_gin: you can go gin, so you must")
    rest = hand & ~(1 << card)
    if action.melds is None:
        if rules.knocker_arrangement == "auto":
            return M.best_arrangement(rest)
        seen = hand | mask_of(h._pile)
        return M.default_knock_arrangement(rest, seen)
    if rules.knocker_arrangement == "auto":
        raise IllegalActionError(
            "R5.4", "knocker_arrangement = auto: the referee arranges the knocker's cards"
        )
    arrangement = declared_arrangement(rest, action.melds, "R5.3")
    if arrangement.deadwood_count > h._limit:
        raise IllegalActionError(
            "R5.3",
            f"the declared arrangement leaves {arrangement.deadwood_count} deadwood, over the "
            f"knock limit {h._limit}",
        )
    if opts.forced_gin and arrangement.deadwood_count != 0:
        raise IllegalActionError("R5.1", "force_gin: you can go gin, so you must")
    return arrangement


def declared_order(
    arrangement: M.Arrangement, melds: tuple[tuple[Card, ...], ...] | None
) -> tuple[M.Meld, ...]:
    """The knocker's valid ``melds`` in the order declared; ``()`` when that is the order of
    ``arrangement`` (always so when the referee arranged them)."""
    if melds is None:
        return ()
    order = tuple(M.Meld.of(m) for m in melds)
    return () if order == arrangement.melds else order


def declared_arrangement(
    hand: int, melds: tuple[tuple[Card, ...], ...] | None, rule: str
) -> M.Arrangement:
    """``hand`` arranged as ``melds`` declares (the best arrangement for ``None``)."""
    if melds is None:
        return M.best_arrangement(hand)
    try:
        return M.Arrangement.of(hand, melds)
    except CardError as exc:
        raise IllegalActionError(rule, str(exc)) from None
