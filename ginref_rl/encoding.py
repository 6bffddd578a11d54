"""What a seat sees, as fixed-shape numpy arrays: the one encoding of the environment and the
policy bot.

Both build a :class:`Seen` (the environment from the engine's
:func:`~referee.engine.observation.observe`, the policy bot from the referee's DecisionRequest)
and encode it here, so a policy gets the same arrays in training and in a tournament.

The array form is a ``float32`` vector of :data:`SIZE` = 273, everything from the point of view
of the seat observing ("own", then "opponent"); cards are indices ``suit * 13 + rank``:

=============  ======  ==================================================================
Slice          Length  Contents
=============  ======  ==================================================================
0 .. 51        52      own hand: 1 for each card held
52 .. 103      52      the opponent's known cards: taken from the discard pile, still held
104 .. 155     52      the discard pile in order: card at position ``p`` from the bottom
                       (0-based) holds ``(p + 1) / 52``, a card not in the pile 0; the top
                       card has the largest value
156 .. 207     52      the top discard (the one that may be taken): 1 for that card
208 .. 259     52      the card this seat took from the pile this turn (R4.3): 1 for it
260 .. 266     7       the phase, one-hot: choose dealer, upcard offer, draw, discard, wall,
                       defender, match over
267            1       stock size / 31
268            1       knock limit / 10 (Oklahoma: fixed by the upcard, R5.5)
269            1       own score / target (R9.1; may pass 1 when the match ends)
270            1       opponent's score / target
271            1       1 if this seat dealt the hand
272            1       1 if this seat must knock now (it took a card on that condition)
=============  ======  ==================================================================

The dict form holds the same facts as raw values (:func:`encode_dict`). The action mask is an
``int8`` vector over :data:`~ginref_rl.actions.NUM_ACTIONS`, 1 for each legal index.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ginref_rl.actions import KNOCK, NUM_ACTIONS, index_of
from referee.engine.actions import Action
from referee.engine.cards import Card, cards_of
from referee.engine.match import Match
from referee.engine.observation import Observation, observe
from referee.engine.outcomes import Phase

HAND = 0
OPPONENT_KNOWN = 52
PILE = 104
TOP = 156
TAKEN = 208
PHASE = 260
STOCK = 267
KNOCK_LIMIT = 268
OWN_SCORE = 269
OPPONENT_SCORE = 270
DEALER = 271
MUST_KNOCK = 272
SIZE = 273

PHASES: tuple[Phase, ...] = (
    Phase.CHOOSE_DEALER,
    Phase.UPCARD_OFFER,
    Phase.DRAW,
    Phase.DISCARD,
    Phase.WALL,
    Phase.DEFENDER,
    Phase.MATCH_OVER,
)
PHASE_INDEX = {phase: i for i, phase in enumerate(PHASES)}
# The stock after a deal (R2.4, R2.5): 52 - 21 either way.
FULL_STOCK = 31

FloatArray = npt.NDArray[np.float32]
Int8Array = npt.NDArray[np.int8]


@dataclass(frozen=True, slots=True)
class Seen:
    """Everything the encoding reads: one seat's view at one moment, own seat first."""

    phase: Phase
    hand: tuple[Card, ...]
    opponent_known: tuple[Card, ...]
    discard_pile: tuple[Card, ...]  # bottom to top
    stock_size: int
    knock_limit: int
    taken: Card | None
    must_knock: bool
    dealer: bool  # this seat dealt the hand
    scores: tuple[int, int]  # own, opponent's
    target: int
    legal: tuple[int, ...]  # action indices, empty unless this seat is to act


def seen_of(obs: Observation) -> Seen:
    """The :class:`Seen` of an engine observation (a two-player match's seat)."""
    seat = obs.seat
    return Seen(
        phase=obs.phase,
        hand=obs.hand,
        opponent_known=obs.opponent_known,
        discard_pile=obs.discard_pile,
        stock_size=obs.stock_size,
        knock_limit=obs.knock_limit,
        taken=obs.taken,
        must_knock=obs.must_knock,
        dealer=obs.dealer == seat,
        scores=(obs.scores[seat], obs.scores[1 - seat]),
        target=obs.rules.target,
        legal=tuple(index_of(a) for a in obs.legal_actions),
    )


_TAKES = frozenset({"draw_discard", "take_upcard"})


def seen_in(match: Match, seat: int, legal: Sequence[Action] = ()) -> Seen:
    """``seen_of(observe(match, seat))``, read from the match's public properties.

    :func:`~referee.engine.observation.observe` copies the hand's whole event history on every
    call, which the encoding never reads: that copy was most of an environment step. Tests hold
    the two equal in every profile. ``legal``: the match's legal actions, when the caller has
    them (read only when ``seat`` is to act).
    """
    h = match.hand
    rules = match.rules
    if h is None:
        return seen_of(observe(match, seat))
    own = match.to_act == seat
    phase = match.phase
    actions = (legal or match.legal_actions()) if own else ()
    indices = tuple(index_of(a) for a in actions)
    taken = None
    must_knock = False
    if own and phase is Phase.DISCARD:
        last = h.events[-1]
        if last.seat == seat and last.kind in _TAKES:
            # Just after a take the seat also sees the card it took (R4.3) and whether it took
            # it on condition of knocking (R4.3 allowed_gra, R7.3, R7.4): then no discard is
            # legal, which without force_gin (R5.1) happens for no other reason.
            if rules.force_gin:
                return seen_of(observe(match, seat))
            taken = last.card
            must_knock = min(indices) >= KNOCK
    points = match.scores
    return Seen(
        phase=phase,
        hand=h.cards_of(seat),
        opponent_known=tuple(cards_of(h.known(1 - seat))),
        discard_pile=h.pile,
        stock_size=h.stock_size,
        knock_limit=h.knock_limit,
        taken=taken,
        must_knock=must_knock,
        dealer=h.dealer == seat,
        scores=(points[seat], points[1 - seat]),
        target=rules.target,
        legal=indices,
    )


def encode_array(seen: Seen) -> FloatArray:
    """The array form (the layout is in the module docstring)."""
    # Every non-zero entry gathered first and written in one numpy call: a dozen small numpy
    # writes, or a whole Python list converted, cost several times more.
    index = [*seen.hand, *[OPPONENT_KNOWN + c for c in seen.opponent_known]]
    value = [1.0] * len(index)
    pile = seen.discard_pile
    if pile:
        index += [PILE + c for c in pile]
        value += [p / 52.0 for p in range(1, len(pile) + 1)]
        index.append(TOP + pile[-1])
        value.append(1.0)
    if seen.taken is not None:
        index.append(TAKEN + seen.taken)
        value.append(1.0)
    index += [PHASE + PHASE_INDEX[seen.phase], STOCK, KNOCK_LIMIT, OWN_SCORE, OPPONENT_SCORE]
    value += [
        1.0,
        seen.stock_size / FULL_STOCK,
        seen.knock_limit / 10.0,
        seen.scores[0] / seen.target,
        seen.scores[1] / seen.target,
    ]
    index += [DEALER, MUST_KNOCK]
    value += [float(seen.dealer), float(seen.must_knock)]
    a = np.zeros(SIZE, dtype=np.float32)
    a[index] = value
    return a


def encode_dict(seen: Seen) -> dict[str, Any]:
    """The dict form: the same facts as raw values.

    ``hand``, ``opponent_known``: ``int8[52]``, 1 for each card; ``discard_pile``: ``int8[52]``,
    the cards bottom to top, then -1; ``taken``: the card taken this turn, -1 for none;
    ``phase``: an index into :data:`PHASES`; ``stock_size``, ``knock_limit``; ``dealer`` and
    ``must_knock``: 0 or 1; ``scores``: ``int64[2]``, own then the opponent's points.
    """
    hand = np.zeros(52, dtype=np.int8)
    if seen.hand:
        hand[list(seen.hand)] = 1
    known = np.zeros(52, dtype=np.int8)
    if seen.opponent_known:
        known[list(seen.opponent_known)] = 1
    pile = np.full(52, -1, dtype=np.int8)
    pile[: len(seen.discard_pile)] = seen.discard_pile
    return {
        "hand": hand,
        "opponent_known": known,
        "discard_pile": pile,
        "taken": np.int64(-1 if seen.taken is None else seen.taken),
        "phase": np.int64(PHASE_INDEX[seen.phase]),
        "stock_size": np.int64(seen.stock_size),
        "knock_limit": np.int64(seen.knock_limit),
        "dealer": np.int64(seen.dealer),
        "must_knock": np.int64(seen.must_knock),
        "scores": np.array(seen.scores, dtype=np.int64),
    }


def action_mask(legal: tuple[int, ...]) -> Int8Array:
    """The mask over the action space: 1 for each legal index."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if legal:
        mask[list(legal)] = 1
    return mask
