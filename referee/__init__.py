"""ginref's rules engine: pure, deterministic Gin Rummy rules (RULES.md), no I/O.

The parts a bot author needs are re-exported here::

    from referee import Match, Rules, parse_cards, min_deadwood
"""

from __future__ import annotations

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
