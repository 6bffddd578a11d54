"""What a seat sees, as fixed-shape numpy arrays: the one encoding of the environment and the
policy bot.

The policy bot builds a :class:`Seen` from the referee's DecisionRequest and the environment
reads the game directly (:func:`array_in`); both end in the same writer, so a policy gets the
same arrays in training and in a tournament.

The array form is a ``float32`` vector of :func:`size` (``players``) entries: 273 with two
players, everything from the point of view of the seat observing ("own", then "opponent", the
seat it plays the hand against); cards are indices ``suit * 13 + rank``:

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
271            1       1 if this seat dealt the hand (plays the dealer's part of it)
272            1       1 if this seat must knock now (it took a card on that condition)
=============  ======  ==================================================================

With three players or partnerships (§10) every seat sees its own table's two-player hand in
those 273 entries (scores by team with partnerships), then three entries for each seat of the
match, the observing seat first and the others in seat order after it (``seat + k`` modulo the
number of players: with partnerships ``k = 2`` is the partner):

=================  ==================================================================
Entry              Contents
=================  ==================================================================
273 + 3k           that seat's score / target (its team's, with partnerships)
274 + 3k           1 if that seat is the one this seat plays the hand in play against
275 + 3k           1 if that seat sits out the hand in play (three players, R10.1)
=================  ==================================================================

A seat that sits out sees the hand in play's phase, stock size and knock limit, and its own
score at 269; no card, no opponent, no dealer flag.

The dict form holds the same facts as raw values (:func:`encode_dict`). The action mask is an
``int8`` vector over :data:`~ginref_rl.actions.NUM_ACTIONS`, 1 for each legal index.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from ginref_rl.actions import NUM_ACTIONS, index_of
from referee.engine.cards import Card, cards_of, mask_of
from referee.engine.game import Game
from referee.engine.match import Match
from referee.engine.observation import Observation, SeatView, seat_view
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
SIZE = 273  # two players; size(players) in general
# The block of each seat of a three- or four-player match, from GROUP on: 3 entries a seat.
GROUP = 273
SEAT_SCORE = 0
SEAT_OPPONENT = 1
SEAT_SITS_OUT = 2
PER_SEAT = 3

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


def size(players: int = 2) -> int:
    """The length of the array form for a match of ``players`` seats."""
    return SIZE if players == 2 else GROUP + PER_SEAT * players


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
    # Three players or partnerships: each seat's (score, my opponent now, sits out), own first.
    seats: tuple[tuple[int, bool, bool], ...] = ()


def seen_of(obs: Observation) -> Seen:
    """The :class:`Seen` of an engine observation (any number of players)."""
    seat = obs.seat
    seats: tuple[tuple[int, bool, bool], ...] = ()
    if obs.players == 2:
        dealer = obs.dealer == seat
        scores = (obs.scores[seat], obs.scores[1 - seat])
    else:
        me, players = obs.player, obs.players
        totals = obs.team_scores or obs.player_scores
        teams = bool(obs.team_scores)
        opponent = None if seat == -1 else obs.hand_seats[1 - seat]  # -1: sitting out
        seats = tuple(
            (totals[s % 2 if teams else s][0], s == opponent, s == obs.sitting_out)
            for s in ((me + k) % players for k in range(players))
        )
        dealer = opponent is not None and obs.dealer == seat
        scores = (seats[0][0], 0 if opponent is None else obs.scores[1 - seat])
    return Seen(
        phase=obs.phase,
        hand=obs.hand,
        opponent_known=obs.opponent_known,
        discard_pile=obs.discard_pile,
        stock_size=obs.stock_size,
        knock_limit=obs.knock_limit,
        taken=obs.taken,
        must_knock=obs.must_knock,
        dealer=dealer,
        scores=scores,
        target=obs.rules.target,
        legal=tuple(index_of(a) for a in obs.legal_actions),
        seats=seats,
    )


Seats = tuple[tuple[int, bool, bool], ...]


class Reading(NamedTuple):
    """A seat's view read straight from a game: what :class:`Seen` holds, cards as masks."""

    view: SeatView  # the hand, from this seat
    own: int  # this seat's score (its team's with partnerships)
    other: int  # the score of the seat it plays the hand against (its team's)
    target: int
    seats: Seats  # three players or partnerships: as Seen.seats


_new_reading = tuple.__new__


def _no_hand(phase: Phase, stock_size: int, knock_limit: int) -> SeatView:
    """The view of a seat with no cards: before the first deal (R2.2), or sitting out (R10.1)."""
    return SeatView(phase, 0, 0, (), stock_size, knock_limit, None, False, False)


def read(game: Game, seat: int) -> Reading:
    """``seat``'s view of ``game``, as the engine's
    :func:`~referee.engine.observation.observe_seat` builds it.

    ``observe_seat`` builds a whole observation (the seat's events, the last hand, every score)
    that the encoding does not read: most of an environment step. Tests hold the two equal in
    every position of random matches of every profile and number of players.
    """
    rules = game.rules
    scores = game.scores
    if isinstance(game, Match):  # two players: the one table, hand seats are match seats
        view = seat_view(game, seat) or _no_hand(game.phase, 0, rules.knock_limit)
        # The tuple built directly: the NamedTuple's own __new__ is a Python call, every step.
        return _new_reading(Reading, (view, scores[seat], scores[1 - seat], rules.target, ()))
    table = game.table_of(seat)
    if table is None:  # sitting out (R10.1): nothing of the hand but its size and limit
        live = game.tables[0].hand
        view = _no_hand(game.phase, live.stock_size, live.knock_limit)
        return Reading(view, scores[game.team_of(seat)], 0, rules.target, _seats(game, seat, None))
    play = table.play
    hand_seat = table.seats.index(seat)
    opponent = table.seats[1 - hand_seat]
    view = seat_view(play, hand_seat) or _no_hand(play.phase, 0, rules.knock_limit)
    return Reading(
        view,
        scores[game.team_of(seat)],
        scores[game.team_of(opponent)],
        rules.target,
        _seats(game, seat, opponent),
    )


def _seats(game: Game, seat: int, opponent: int | None) -> Seats:
    scores, players, out = game.scores, game.players, game.sitting_out
    return tuple(
        (scores[game.team_of(s)], s == opponent, s == out)
        for s in ((seat + k) % players for k in range(players))
    )


def seen_in(game: Game, seat: int, legal: tuple[int, ...] = ()) -> Seen:
    """:func:`read` as a :class:`Seen`; ``legal``: the seat's legal indices, if it is to act."""
    view, own, other, target, seats = read(game, seat)
    return Seen(
        phase=view.phase,
        hand=tuple(cards_of(view.hand)),
        opponent_known=tuple(cards_of(view.opponent_known)),
        discard_pile=view.pile,
        stock_size=view.stock_size,
        knock_limit=view.knock_limit,
        taken=view.taken,
        must_knock=view.must_knock,
        dealer=view.dealer,
        scores=(own, other),
        target=target,
        legal=legal,
        seats=seats,
    )


# The array form is written as float32 bytes and handed to numpy once: a dozen numpy writes
# per observation cost several times more. Each 13-bit suit mask's 13 entries, 0.0 or 1.0:
_SUIT = [
    row.tobytes()
    for row in np.unpackbits(
        np.arange(1 << 13, dtype="<u2").view(np.uint8).reshape(-1, 2), axis=1, bitorder="little"
    )[:, :13].astype("<f4")
]
_NO_CARDS = bytes(4 * 52)


def _one_hot(i: int, n: int) -> bytes:
    return bytes(4 * i) + struct.pack("<f", 1.0) + bytes(4 * (n - 1 - i))


_ONE_HOT = [_one_hot(c, 52) for c in range(52)]
# By the phase's value: an Enum member's own hash is a Python call.
_PHASE_HOT = {p._value_: _one_hot(i, len(PHASES)) for p, i in PHASE_INDEX.items()}
_PILE_VALUE = [(p + 1) / 52.0 for p in range(52)]
_SCALARS = struct.Struct("<6f")
_FLOAT = struct.Struct("<f")
_FLOAT32 = np.dtype(np.float32)  # an instance: frombuffer parses a type each call
_SEAT = struct.Struct("<3f")
JOIN = bytearray().join  # a bytearray's join makes a new bytearray


# The pile's codes by pile: a pile is seen again and again (each seat, each phase of a turn)
# and most piles are the one before with a card on top. Kept small; any reader may clear it.
_PILES: dict[tuple[Card, ...], bytes] = {}
_PILES_KEPT = 4096


def _pile(pile: tuple[Card, ...]) -> bytes:
    """The pile's code, not yet kept (a reader looks in _PILES first)."""
    below = _PILES.get(pile[:-1])
    if below is None:
        out = bytearray(_NO_CARDS)
        values = memoryview(out).cast("f")
        for p, card in enumerate(pile):
            values[card] = _PILE_VALUE[p]
        code = bytes(out)
    else:  # the pile below with one more card on top
        at = 4 * pile[-1]
        code = below[:at] + _FLOAT.pack(_PILE_VALUE[len(pile) - 1]) + below[at + 4 :]
    if len(_PILES) >= _PILES_KEPT:
        _PILES.clear()
    _PILES[pile] = code
    return code


def encode_parts(r: Reading) -> list[bytes]:
    """The array form of a reading as pieces of float32 bytes, in order (the layout is in the
    module docstring): joined, one observation; the pieces of many, joined at once, a batch."""
    view, own, other, target, seats = r
    phase, hand, known, pile, stock_size, knock_limit, taken, must_knock, dealer = view
    s = _SUIT
    parts = [
        s[hand & 0x1FFF],
        s[hand >> 13 & 0x1FFF],
        s[hand >> 26 & 0x1FFF],
        s[hand >> 39 & 0x1FFF],
        s[known & 0x1FFF]
        + s[known >> 13 & 0x1FFF]
        + s[known >> 26 & 0x1FFF]
        + s[known >> 39 & 0x1FFF]
        if known
        else _NO_CARDS,
        (_PILES.get(pile) or _pile(pile)) if pile else _NO_CARDS,
        _ONE_HOT[pile[-1]] if pile else _NO_CARDS,
        _NO_CARDS if taken is None else _ONE_HOT[taken],
        _PHASE_HOT[phase._value_],
        _SCALARS.pack(
            stock_size / FULL_STOCK,
            knock_limit / 10.0,
            own / target,
            other / target,
            dealer,
            must_knock,
        ),
    ]
    if seats:
        parts += [_SEAT.pack(score / target, opponent, out) for score, opponent, out in seats]
    return parts


def encode_bytes(r: Reading) -> bytearray:
    """The array form of a reading as float32 bytes, in a new buffer: ``np.frombuffer`` makes
    it an array without copying it again."""
    return JOIN(encode_parts(r))


_PHASE_NUMBER = {p._value_: i for p, i in PHASE_INDEX.items()}


def encode_rows(readings: Sequence[Reading], players: int = 2) -> FloatArray:
    """The array forms of many readings as one ``(len(readings), size(players))`` array: what
    :func:`encode_bytes` writes row by row, written column by column with numpy, so that the
    work of each column is shared by every row (worth it for some dozens of rows or more)."""
    n = len(readings)
    out = np.zeros((n, size(players)), np.float32)
    views, own, other, target, seats = zip(*readings, strict=True)
    phase, hand, known, pile, stock, limit, taken, must_knock, dealer = zip(*views, strict=True)
    rows = np.arange(n)
    for at, masks in ((HAND, hand), (OPPONENT_KNOWN, known)):
        octets = np.array(masks, dtype="<u8").view(np.uint8).reshape(n, 8)
        out[:, at : at + 52] = np.unpackbits(octets, axis=1, bitorder="little")[:, :52]
    codes = [(_PILES.get(p) or _pile(p)) if p else _NO_CARDS for p in pile]
    out[:, PILE : PILE + 52] = np.frombuffer(b"".join(codes), _FLOAT32).reshape(n, 52)
    for at, one in ((TOP, [p[-1] if p else -1 for p in pile]), (TAKEN, taken)):
        card = np.array([-1 if c is None else c for c in one], dtype=np.int64)
        some = card >= 0
        out[rows[some], at + card[some]] = 1.0
    out[rows, PHASE + np.array([_PHASE_NUMBER[p._value_] for p in phase])] = 1.0
    goal = np.array(target, dtype=np.float64)
    out[:, STOCK] = np.array(stock, dtype=np.float64) / FULL_STOCK
    out[:, KNOCK_LIMIT] = np.array(limit, dtype=np.float64) / 10.0
    out[:, OWN_SCORE] = np.array(own, dtype=np.float64) / goal
    out[:, OPPONENT_SCORE] = np.array(other, dtype=np.float64) / goal
    out[:, DEALER] = dealer
    out[:, MUST_KNOCK] = must_knock
    if players > 2:
        block = np.array(seats, dtype=np.float64).reshape(n, players, PER_SEAT)
        block[:, :, SEAT_SCORE] /= goal[:, None]
        out[:, GROUP:] = block.reshape(n, PER_SEAT * players)
    return out


def array_in(game: Game, seat: int) -> FloatArray:
    """``seat``'s array form in ``game``: ``encode_array(seen_of(observe_seat(game, seat)))``."""
    return np.frombuffer(encode_bytes(read(game, seat)), _FLOAT32)


def encode_array(seen: Seen) -> FloatArray:
    """The array form of a :class:`Seen` (the layout is in the module docstring)."""
    view = SeatView(
        seen.phase,
        mask_of(seen.hand),
        mask_of(seen.opponent_known),
        seen.discard_pile,
        seen.stock_size,
        seen.knock_limit,
        seen.taken,
        seen.must_knock,
        seen.dealer,
    )
    own, other = seen.scores
    return np.frombuffer(encode_bytes(Reading(view, own, other, seen.target, seen.seats)), _FLOAT32)


def encode_dict(seen: Seen) -> dict[str, Any]:
    """The dict form: the same facts as raw values.

    ``hand``, ``opponent_known``: ``int8[52]``, 1 for each card; ``discard_pile``: ``int8[52]``,
    the cards bottom to top, then -1; ``taken``: the card taken this turn, -1 for none;
    ``phase``: an index into :data:`PHASES`; ``stock_size``, ``knock_limit``; ``dealer`` and
    ``must_knock``: 0 or 1; ``scores``: ``int64[2]``, own then the opponent's points. With
    three players or partnerships also ``seat_scores`` (``int64[players]``: each seat's or its
    team's points, own first, then in seat order), ``opponent`` (the seat played against, as
    an offset from own: 1 to ``players - 1``; 0 when sitting out) and ``sits_out``
    (``int8[players]``, the same order).
    """
    hand = np.zeros(52, dtype=np.int8)
    if seen.hand:
        hand[list(seen.hand)] = 1
    known = np.zeros(52, dtype=np.int8)
    if seen.opponent_known:
        known[list(seen.opponent_known)] = 1
    pile = np.full(52, -1, dtype=np.int8)
    pile[: len(seen.discard_pile)] = seen.discard_pile
    out: dict[str, Any] = {
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
    if seen.seats:
        out["seat_scores"] = np.array([s[0] for s in seen.seats], dtype=np.int64)
        out["opponent"] = np.int64(next((k for k, s in enumerate(seen.seats) if s[1]), 0))
        out["sits_out"] = np.array([s[2] for s in seen.seats], dtype=np.int8)
    return out


def action_mask(legal: Sequence[int]) -> Int8Array:
    """The mask over the action space: 1 for each legal index."""
    mask = bytearray(NUM_ACTIONS)
    for i in legal:
        mask[i] = 1
    return np.frombuffer(mask, np.int8)
