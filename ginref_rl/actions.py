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

from collections.abc import Sequence

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
from referee.engine.game import Game
from referee.engine.legal import discard_phase_choices
from referee.engine.outcomes import Phase

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


def indices_of(legal: Sequence[Action]) -> tuple[int, ...]:
    """The indices of the engine's legal actions, in their order."""
    # Discards and knocks are most of every list: their index without index_of's dispatch.
    return tuple(
        a.card if type(a) is Discard else KNOCK + a.card if type(a) is Knock else index_of(a)
        for a in legal
    )


def _suit_bytes(mask: int) -> bytes:
    return bytes(mask >> r & 1 for r in range(13))


# A legal mask is written as bytes (one per index) and handed to numpy once.
_SUIT_BYTES = [_suit_bytes(m) for m in range(1 << 13)]
_NO_KNOCK = bytes(52)
_NO_BIG_GIN = bytes(NUM_ACTIONS - DRAW_STOCK)
_BIG_GIN = bytes(BIG_GIN - DRAW_STOCK) + b"\1" + bytes(NUM_ACTIONS - BIG_GIN - 1)
_NO_KNOCK_NOR_BIG_GIN = _NO_KNOCK + _NO_BIG_GIN
_OTHER_MASKS: dict[tuple[type, ...], bytes] = {}


def legal_mask(game: Game) -> bytes:
    """One byte per index, 1 for each legal index of the seat to act in ``game``.

    The discard phase's mask is made from the engine's legal sets as masks
    (:func:`~referee.engine.legal.discard_phase_choices`), without an action object per card;
    the other phases have a handful of actions and a handful of masks.
    """
    if game.phase is Phase.DISCARD:
        d, k, big_gin = discard_phase_choices(game.rules, game.hand)  # type: ignore[arg-type]
        t = _SUIT_BYTES
        rest = _NO_KNOCK_NOR_BIG_GIN  # most positions: no knock and no big gin
        if k or big_gin:
            knocks = (t[k & 0x1FFF], t[k >> 13 & 0x1FFF], t[k >> 26 & 0x1FFF], t[k >> 39 & 0x1FFF])
            rest = b"".join((*knocks, _BIG_GIN if big_gin else _NO_BIG_GIN))
        return b"".join(
            (t[d & 0x1FFF], t[d >> 13 & 0x1FFF], t[d >> 26 & 0x1FFF], t[d >> 39 & 0x1FFF], rest)
        )
    legal = game.legal_actions()
    # Each of these actions' kinds is one index, but for the two choices of the first dealer.
    kinds = tuple(map(type, legal))
    mask = _OTHER_MASKS.get(kinds)
    if mask is None:
        out = bytearray(NUM_ACTIONS)
        for i in indices_of(legal):
            out[i] = 1
        mask = bytes(out)
        if ChooseDeal not in kinds:
            _OTHER_MASKS[kinds] = mask
    return mask


_BY_INDEX: list[Action | None] = [
    *(Discard(c) for c in range(52)),
    *(Knock(c) for c in range(52)),
    DrawStock(),
    DrawDiscard(),
    Pass(),
    DeclareDead(),
    BigGin(),
    None,  # the defender's play: the referee's proposal of the moment
    ChooseDeal(True),
    ChooseDeal(False),
]


def action_at(game: Game, index: int) -> Action:
    """The engine action of a legal ``index`` of the seat to act (checked by the engine when
    applied)."""
    action = _BY_INDEX[index]
    if action is None:
        (action,) = game.legal_actions()  # the defender phase lists its one proposal
    return action
