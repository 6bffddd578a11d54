"""Build hands for scenario tests: readable card lists in, a dealt Match out."""

from __future__ import annotations

from collections.abc import Sequence

from referee.engine.actions import Action, DefenderPlay, Discard, DrawStock, Knock, Pass
from referee.engine.cards import Card, parse_cards
from referee.engine.match import Match
from referee.engine.outcomes import HandResult, Phase
from referee.engine.rules import Rules

DEALER, NON_DEALER = 0, 1


def deck(non_dealer: str, dealer: str, upcard: str | None = None, stock: str = "") -> list[Card]:
    """A deck order dealing these hands (R2.4); unnamed cards follow the named stock in index order.

    With ``upcard=None`` the deal is ``eleven_card`` (R2.5): ``non_dealer`` holds 11 cards.
    """
    nd, d = parse_cards(non_dealer), parse_cards(dealer)
    up = [] if upcard is None else parse_cards(upcard)
    top = parse_cards(stock)
    if upcard is None:
        assert len(nd) == 11 and len(d) == 10
        order = [nd[i // 2] if i % 2 == 0 else d[i // 2] for i in range(21)]
    else:
        assert len(nd) == 10 and len(d) == 10
        order = [card for pair in zip(nd, d, strict=True) for card in pair] + up
    order += top
    rest = [c for c in range(52) if c not in order]
    return order + rest


def match(profile: str, order: Sequence[Card], **overrides: object) -> Match:
    """A match whose first hand is dealt from ``order`` by seat 0 (so seat 1 is the non-dealer)."""
    rules = Rules.profile(profile, **overrides)
    if rules.deal_order == "seat0_first" and rules.deal_mode == "upcard":  # seat 0 is dealt first
        order = [order[i ^ 1] for i in range(20)] + list(order[20:])
    return Match(rules, seed=0, decks=[order], first_dealer=DEALER)


def cards(text: str) -> list[Card]:
    """Shorthand for :func:`parse_cards`."""
    return parse_cards(text)


def card(text: str) -> Card:
    """One card."""
    (c,) = parse_cards(text)
    return c


def melds(*groups: str) -> tuple[tuple[Card, ...], ...]:
    """Melds written as strings, one per meld."""
    return tuple(tuple(parse_cards(g)) for g in groups)


def play(m: Match, *actions: Action) -> None:
    """Apply actions in order."""
    for action in actions:
        m.apply(action)


def knock_after_stock_draw(
    profile: str,
    knocker: str,
    defender: str,
    draw: str,
    discard: str,
    *,
    upcard: str = "6D",
    arrangement: tuple[tuple[Card, ...], ...] | None = None,
    defence: DefenderPlay | None = None,
    **overrides: object,
) -> HandResult:
    """Both players pass the upcard; the non-dealer (the knocker) draws ``draw`` and knocks.

    Under ``defender_play = declared`` the defender then declares ``defence``, or by default the
    play the referee proposes (the optimum of R6.6).
    """
    m = match(profile, deck(knocker, defender, upcard, draw), **overrides)
    play(m, Pass(), Pass(), DrawStock(), Knock(card(discard), arrangement))
    if m.phase is Phase.DEFENDER:
        m.apply(defence if defence is not None else m.legal_actions()[0])
    else:
        assert defence is None, "a defence was given but the rules do not ask for one"
    return m.hand_results[-1]


def churn_until_stock(m: Match, size: int) -> None:
    """Pass the offer, then both players draw from the stock and discard what they drew.

    Hands do not change, so the stock shrinks to ``size`` with the deal intact.
    """
    while m.hand.stock_size > size or m.phase is not Phase.DRAW:
        if m.phase is Phase.UPCARD_OFFER:
            m.apply(Pass())
        elif m.phase is Phase.DRAW:
            m.apply(DrawStock())
        else:
            drawn = m.hand.events[-1].card
            assert drawn is not None
            m.apply(Discard(drawn))
