"""ginref's rules engine: pure, deterministic Gin Rummy rules (rules R1 to R11), no I/O.

Standard library only: no grpc, asyncio, subprocess, sqlite3, click, and no file or process
I/O (tests/engine/test_purity.py imports and plays it in a fresh interpreter under an audit
hook). Everything else in ginref is an adapter around it. The public names are re-exported
here and by :mod:`referee`::

    from referee.engine import new_game, Rules, parse_cards, min_deadwood

They are loaded on first use, so that importing one module (``referee.engine.cards`` for a bot,
say) does not pay for the whole engine.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
        action_from_dict,
        action_to_dict,
    )
    from referee.engine.cards import Card, card_str, cards_of, mask_of, parse_card, parse_cards
    from referee.engine.errors import (
        CardError,
        EngineError,
        GinRefError,
        IllegalActionError,
        RulesError,
    )
    from referee.engine.game import Game, Table, new_game
    from referee.engine.group import GroupMatch
    from referee.engine.match import Match
    from referee.engine.melds import (
        Arrangement,
        Meld,
        MeldKind,
        best_arrangement,
        deadwood_by_discard,
        min_deadwood,
        min_deadwood_after_discard,
    )
    from referee.engine.outcomes import HandOutcome, HandResult, MatchResult, Phase, Termination
    from referee.engine.rules import PROFILES, Rules

_EXPORTS: dict[str, str] = {
    "Action": "referee.engine.actions",
    "BigGin": "referee.engine.actions",
    "ChooseDeal": "referee.engine.actions",
    "DeclareDead": "referee.engine.actions",
    "DefenderPlay": "referee.engine.actions",
    "Discard": "referee.engine.actions",
    "DrawDiscard": "referee.engine.actions",
    "DrawStock": "referee.engine.actions",
    "Knock": "referee.engine.actions",
    "Pass": "referee.engine.actions",
    "action_from_dict": "referee.engine.actions",
    "action_to_dict": "referee.engine.actions",
    "Card": "referee.engine.cards",
    "card_str": "referee.engine.cards",
    "cards_of": "referee.engine.cards",
    "mask_of": "referee.engine.cards",
    "parse_card": "referee.engine.cards",
    "parse_cards": "referee.engine.cards",
    "CardError": "referee.engine.errors",
    "EngineError": "referee.engine.errors",
    "GinRefError": "referee.engine.errors",
    "IllegalActionError": "referee.engine.errors",
    "RulesError": "referee.engine.errors",
    "Game": "referee.engine.game",
    "Table": "referee.engine.game",
    "new_game": "referee.engine.game",
    "GroupMatch": "referee.engine.group",
    "Match": "referee.engine.match",
    "Arrangement": "referee.engine.melds",
    "Meld": "referee.engine.melds",
    "MeldKind": "referee.engine.melds",
    "best_arrangement": "referee.engine.melds",
    "deadwood_by_discard": "referee.engine.melds",
    "min_deadwood": "referee.engine.melds",
    "min_deadwood_after_discard": "referee.engine.melds",
    "HandOutcome": "referee.engine.outcomes",
    "HandResult": "referee.engine.outcomes",
    "MatchResult": "referee.engine.outcomes",
    "Phase": "referee.engine.outcomes",
    "Termination": "referee.engine.outcomes",
    "PROFILES": "referee.engine.rules",
    "Rules": "referee.engine.rules",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'referee.engine' has no attribute {name!r}")
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
    "Game",
    "GinRefError",
    "GroupMatch",
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
    "Table",
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
    "new_game",
    "parse_card",
    "parse_cards",
]
