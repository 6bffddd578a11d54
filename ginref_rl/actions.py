"""The fixed action space: every decision of a two-player hand as one of 112 integers.

==========  =====================================================================
Index       Action
==========  =====================================================================
0 .. 51     discard card ``i`` face up (R4.2); cards as in :mod:`referee.engine.cards`:
            ``suit * 13 + rank``, suits C D H S, ranks A 2 .. T J Q K
52 .. 103   knock with card ``i - 52`` as the face-down discard (R5.2); the referee
            arranges the melds (R5.4), and a knock with no deadwood is gin
104         draw from the stock (R4.1)
105         take the top discard: the upcard in the offer (R3.1), the top of the pile
            otherwise (R4.1, R7.3)
106         pass: the upcard offer (R3.1), or the last discard at the wall (R7.3)
107         declare the hand dead (R7.5, ``wall_rule = rlcard``)
108         big gin (R5.9), the referee arranging the 11 cards
109         the defender's play the referee proposes (R6.6, ``defender_play = declared``)
110         choose to deal first (R2.2, ``cut_high_chooses``)
111         choose not to deal first
==========  =====================================================================

An index stands for the engine action :meth:`Match.legal_actions
<referee.engine.match.Match.legal_actions>` lists, which is why knocks and big gin carry no
arrangement and the defender has one index: the legal list holds at most one action per index.
"""

from __future__ import annotations

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
from referee.engine.cards import card_str

DISCARD = 0
KNOCK = 52
DRAW_STOCK = 104
DRAW_DISCARD = 105
PASS = 106
DECLARE_DEAD = 107
BIG_GIN = 108
DEFEND = 109
CHOOSE_DEAL = 110
CHOOSE_NOT_DEAL = 111
NUM_ACTIONS = 112

_SIMPLE: dict[type, int] = {
    DrawStock: DRAW_STOCK,
    DrawDiscard: DRAW_DISCARD,
    Pass: PASS,
    DeclareDead: DECLARE_DEAD,
    BigGin: BIG_GIN,
    DefenderPlay: DEFEND,
}


def index_of(action: Action) -> int:
    """The index of an engine action (a knock or big gin whatever its melds)."""
    kind = type(action)
    if kind is Discard:
        return DISCARD + action.card  # type: ignore[union-attr]
    if kind is Knock:
        return KNOCK + action.card  # type: ignore[union-attr]
    if kind is ChooseDeal:
        return CHOOSE_DEAL if action.deal else CHOOSE_NOT_DEAL  # type: ignore[union-attr]
    return _SIMPLE[kind]


def action_name(index: int) -> str:
    """A short text for an index, e.g. ``discard TD``, ``knock 3C``, ``draw stock``."""
    if not 0 <= index < NUM_ACTIONS:
        raise ValueError(f"action {index} is not in the action space (0 to {NUM_ACTIONS - 1})")
    if index < KNOCK:
        return f"discard {card_str(index)}"
    if index < DRAW_STOCK:
        return f"knock {card_str(index - KNOCK)}"
    return _NAMES[index - DRAW_STOCK]


_NAMES = (
    "draw stock",
    "take discard",
    "pass",
    "declare dead",
    "big gin",
    "defend",
    "choose to deal",
    "choose not to deal",
)
