"""The decisions a player can make (docs/rules.md R2.2, R3-R7), as small immutable values.

An action is what a player says; whether it is legal is the engine's business
(:meth:`referee.engine.match.Match.legal_actions`). Melds inside actions are plain tuples of
cards, the way a bot sends them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from referee.engine.cards import Card, card_str, parse_card, parse_cards
from referee.engine.errors import CardError, IllegalActionError

MeldCards = tuple[Card, ...]


def _melds_str(melds: tuple[MeldCards, ...]) -> str:
    return " | ".join(" ".join(card_str(c) for c in m) for m in melds)


@dataclass(frozen=True, slots=True)
class DrawStock:
    """R4.1: draw the top card of the stock."""

    kind: ClassVar[str] = "draw_stock"

    def __str__(self) -> str:
        return "draw stock"


@dataclass(frozen=True, slots=True)
class DrawDiscard:
    """R4.1 / R3: take the top card of the discard pile (the upcard during the offer)."""

    kind: ClassVar[str] = "draw_discard"

    def __str__(self) -> str:
        return "draw discard"


@dataclass(frozen=True, slots=True)
class Pass:
    """R3.1/R3.3: pass the upcard offer; R7.3/R7.4: decline the last discard (dead hand)."""

    kind: ClassVar[str] = "pass"

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class DeclareDead:
    """R7.5 (``wall_rule = rlcard``): declare the hand dead at a stock of two cards or fewer."""

    kind: ClassVar[str] = "declare_dead"

    def __str__(self) -> str:
        return "declare dead"


@dataclass(frozen=True, slots=True)
class Discard:
    """R4.2: discard ``card`` face up, ending the turn."""

    card: Card
    kind: ClassVar[str] = "discard"

    def __str__(self) -> str:
        return f"discard {card_str(self.card)}"


@dataclass(frozen=True, slots=True)
class Knock:
    """R5.2: discard ``card`` face down and show ``melds`` (``None``: the referee arranges, R5.4).

    A knock whose arrangement has no deadwood is gin (R5.6).
    """

    card: Card
    melds: tuple[MeldCards, ...] | None = None
    kind: ClassVar[str] = "knock"

    def __str__(self) -> str:
        tail = f": {_melds_str(self.melds)}" if self.melds is not None else ""
        return f"knock {card_str(self.card)}{tail}"


@dataclass(frozen=True, slots=True)
class BigGin:
    """R5.9: show all 11 cards in melds without discarding (``None``: the referee arranges)."""

    melds: tuple[MeldCards, ...] | None = None
    kind: ClassVar[str] = "big_gin"

    def __str__(self) -> str:
        return "big gin" + (f": {_melds_str(self.melds)}" if self.melds is not None else "")


@dataclass(frozen=True, slots=True)
class DefenderPlay:
    """R6.1 (``defender_play = declared``): the defender's own melds and the cards laid off."""

    melds: tuple[MeldCards, ...]
    layoffs: tuple[Card, ...]
    kind: ClassVar[str] = "defender_play"

    def __str__(self) -> str:
        lay = " ".join(card_str(c) for c in self.layoffs) or "none"
        return f"defend: melds {_melds_str(self.melds) or 'none'}; lay off {lay}"


@dataclass(frozen=True, slots=True)
class ChooseDeal:
    """R2.2 (``cut_high_chooses``): the high cutter decides whether to deal first."""

    deal: bool
    kind: ClassVar[str] = "choose_deal"

    def __str__(self) -> str:
        return "choose to deal" if self.deal else "choose not to deal"


Action = (
    DrawStock
    | DrawDiscard
    | Pass
    | DeclareDead
    | Discard
    | Knock
    | BigGin
    | DefenderPlay
    | ChooseDeal
)


def action_to_dict(action: Action) -> dict[str, Any]:
    """JSON form: ``{"kind": ..., fields...}`` with cards in canonical notation."""
    out: dict[str, Any] = {"kind": action.kind}
    if isinstance(action, Discard | Knock):
        out["card"] = card_str(action.card)
    if isinstance(action, Knock | BigGin | DefenderPlay) and action.melds is not None:
        out["melds"] = [[card_str(c) for c in m] for m in action.melds]
    if isinstance(action, DefenderPlay):
        out["layoffs"] = [card_str(c) for c in action.layoffs]
    if isinstance(action, ChooseDeal):
        out["deal"] = action.deal
    return out


def _melds_from(value: Any, where: str) -> tuple[MeldCards, ...]:
    if not isinstance(value, list) or not all(isinstance(m, list) for m in value):
        raise CardError(f"{where}: melds must be a list of lists of cards, got {value!r}")
    return tuple(tuple(parse_cards([str(c) for c in m])) for m in value)


def action_from_dict(data: Any) -> Action:
    """Inverse of :func:`action_to_dict`; raises :class:`CardError` on malformed input."""
    if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
        raise CardError(f"an action must be an object with a 'kind', got {data!r}")
    kind = data["kind"]
    simple: dict[str, Action] = {
        "draw_stock": DrawStock(),
        "draw_discard": DrawDiscard(),
        "pass": Pass(),
        "declare_dead": DeclareDead(),
    }
    if kind in simple:
        return simple[kind]
    if kind in ("discard", "knock"):
        if not isinstance(data.get("card"), str):
            raise CardError(f"{kind}: missing 'card' in {data!r}")
        card = parse_card(data["card"])
        if kind == "discard":
            return Discard(card)
        melds = data.get("melds")
        return Knock(card, None if melds is None else _melds_from(melds, kind))
    if kind == "big_gin":
        melds = data.get("melds")
        return BigGin(None if melds is None else _melds_from(melds, kind))
    if kind == "defender_play":
        layoffs = data.get("layoffs", [])
        if not isinstance(layoffs, list):
            raise CardError(f"defender_play: layoffs must be a list, got {layoffs!r}")
        return DefenderPlay(
            _melds_from(data.get("melds", []), kind), tuple(parse_cards([str(c) for c in layoffs]))
        )
    if kind == "choose_deal":
        if not isinstance(data.get("deal"), bool):
            raise CardError(f"choose_deal: 'deal' must be true or false in {data!r}")
        return ChooseDeal(data["deal"])
    raise CardError(f"unknown action kind {kind!r}")


def check_cards(action: Action) -> None:
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
