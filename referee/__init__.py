"""ginref's rules engine: pure, deterministic Gin Rummy rules (RULES.md), no I/O.

The parts a bot author needs are re-exported here::

    from referee import Match, Rules, parse_cards, min_deadwood

The names are loaded on first use, so that importing a submodule (``referee.wire`` for a bot,
say) does not pay for the whole engine.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from referee.actions import (
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
        action_from_dict,
        action_to_dict,
    )
    from referee.cards import Card, card_str, cards_of, mask_of, parse_card, parse_cards
    from referee.errors import CardError, EngineError, GinRefError, IllegalActionError, RulesError
    from referee.game import HandOutcome, HandResult, Match, MatchResult, Phase, Termination
    from referee.melds import (
        Arrangement,
        Meld,
        MeldKind,
        best_arrangement,
        deadwood_by_discard,
        min_deadwood,
        min_deadwood_after_discard,
    )
    from referee.rules import PROFILES, Rules

_EXPORTS: dict[str, str] = {
    "Action": "referee.actions",
    "BigGin": "referee.actions",
    "ChooseDeal": "referee.actions",
    "DeclareDead": "referee.actions",
    "DefenderPlay": "referee.actions",
    "Discard": "referee.actions",
    "DrawDiscard": "referee.actions",
    "DrawStock": "referee.actions",
    "Knock": "referee.actions",
    "Pass": "referee.actions",
    "action_from_dict": "referee.actions",
    "action_to_dict": "referee.actions",
    "Card": "referee.cards",
    "card_str": "referee.cards",
    "cards_of": "referee.cards",
    "mask_of": "referee.cards",
    "parse_card": "referee.cards",
    "parse_cards": "referee.cards",
    "CardError": "referee.errors",
    "EngineError": "referee.errors",
    "GinRefError": "referee.errors",
    "IllegalActionError": "referee.errors",
    "RulesError": "referee.errors",
    "HandOutcome": "referee.game",
    "HandResult": "referee.game",
    "Match": "referee.game",
    "MatchResult": "referee.game",
    "Phase": "referee.game",
    "Termination": "referee.game",
    "Arrangement": "referee.melds",
    "Meld": "referee.melds",
    "MeldKind": "referee.melds",
    "best_arrangement": "referee.melds",
    "deadwood_by_discard": "referee.melds",
    "min_deadwood": "referee.melds",
    "min_deadwood_after_discard": "referee.melds",
    "PROFILES": "referee.rules",
    "Rules": "referee.rules",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'referee' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "PROFILES",
    "Action",
    "Arrangement",
    "BigGin",
    "Card",
    "CardError",
    "ChooseDeal",
    "DeclareDead",
    "DefenderPlay",
    "Discard",
    "DrawDiscard",
    "DrawStock",
    "EngineError",
    "GinRefError",
    "HandOutcome",
    "HandResult",
    "IllegalActionError",
    "Knock",
    "Match",
    "MatchResult",
    "Meld",
    "MeldKind",
    "Pass",
    "Phase",
    "Rules",
    "RulesError",
    "Termination",
    "action_from_dict",
    "action_to_dict",
    "best_arrangement",
    "card_str",
    "cards_of",
    "deadwood_by_discard",
    "mask_of",
    "min_deadwood",
    "min_deadwood_after_discard",
    "parse_card",
    "parse_cards",
]
