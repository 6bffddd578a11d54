"""Engine values <-> wire messages (``ginrummy.v1``): with :mod:`referee.requests`, the only
module that builds or reads them.

Everything a seat receives about the game is converted from what the engine lets it see: an
:class:`~referee.engine.observation.Observation` (built by
:func:`referee.engine.observation.observe`; its messages are :mod:`referee.requests`'), the
public events of a hand filtered by the engine's own rule of which event cards are private, and
the results of finished hands and matches, which are public. Cards on the wire are canonical
two-character strings ("TD"); reading a bot's action accepts nothing else (R11.5).

Conversions that run once per decision are cached where the engine's values are immutable
(actions, rules, hand results); cached messages are shared, so callers copy them into their
own messages (``CopyFrom``, ``extend``) and never mutate them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence

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
from referee.engine.cards import Card, card_str
from referee.engine.melds import Arrangement, Meld
from referee.engine.observation import PRIVATE_CARD_EVENTS
from referee.engine.outcomes import (
    Event,
    GameScore,
    HandOutcome,
    HandResult,
    KnockInfo,
    MatchResult,
    Phase,
    Termination,
)
from referee.engine.rules import Rules
from referee.errors import MalformedActionError
from referee.faults import Fault, FaultKind
from referee.wire import ginrummy_pb2 as pb

CARD_STRINGS: tuple[str, ...] = tuple(card_str(c) for c in range(52))
_CARD_INDEX: dict[str, Card] = {s: c for c, s in enumerate(CARD_STRINGS)}

_PHASES = {
    Phase.CHOOSE_DEALER: pb.PHASE_CHOOSE_DEALER,
    Phase.UPCARD_OFFER: pb.PHASE_UPCARD_OFFER,
    Phase.DRAW: pb.PHASE_DRAW,
    Phase.DISCARD: pb.PHASE_DISCARD,
    Phase.WALL: pb.PHASE_WALL,
    Phase.DEFENDER: pb.PHASE_DEFENDER,
    Phase.MATCH_OVER: pb.PHASE_MATCH_OVER,
}
_OUTCOMES = {
    HandOutcome.KNOCK: pb.HAND_OUTCOME_KNOCK,
    HandOutcome.GIN: pb.HAND_OUTCOME_GIN,
    HandOutcome.BIG_GIN: pb.HAND_OUTCOME_BIG_GIN,
    HandOutcome.UNDERCUT: pb.HAND_OUTCOME_UNDERCUT,
    HandOutcome.DEAD: pb.HAND_OUTCOME_DEAD,
    HandOutcome.PUSH: pb.HAND_OUTCOME_PUSH,
}
_DEAD_REASONS = {
    "stock_exhausted": pb.DEAD_REASON_STOCK_EXHAUSTED,
    "move_cap": pb.DEAD_REASON_MOVE_CAP,
    "wall_pass": pb.DEAD_REASON_WALL_PASS,
    "repeated_move": pb.DEAD_REASON_REPEATED_MOVE,
    "declared_dead": pb.DEAD_REASON_DECLARED_DEAD,
    "discard_draw_cap": pb.DEAD_REASON_DISCARD_DRAW_CAP,
}
_TERMINATIONS = {
    Termination.TARGET: pb.TERMINATION_TARGET_REACHED,
    Termination.SINGLE_HAND: pb.TERMINATION_SINGLE_HAND,
    Termination.FORFEIT: pb.TERMINATION_FORFEIT,
    Termination.HOLLYWOOD: pb.TERMINATION_HOLLYWOOD,
}
_KNOCK_KINDS = {
    "knock": pb.KNOCK_KIND_KNOCK,
    "gin": pb.KNOCK_KIND_GIN,
    "big_gin": pb.KNOCK_KIND_BIG_GIN,
}
_OUTCOME_KNOCK_KIND = {
    HandOutcome.KNOCK: pb.KNOCK_KIND_KNOCK,
    HandOutcome.UNDERCUT: pb.KNOCK_KIND_KNOCK,
    HandOutcome.PUSH: pb.KNOCK_KIND_KNOCK,
    HandOutcome.GIN: pb.KNOCK_KIND_GIN,
    HandOutcome.BIG_GIN: pb.KNOCK_KIND_BIG_GIN,
}
# The wire has fewer fault kinds than the log: a crash and a bot that never connected are both
# "the bot is not on the stream" to the opponent.
_FAULT_KINDS = {
    FaultKind.ILLEGAL_ACTION: pb.FAULT_KIND_ILLEGAL_ACTION,
    FaultKind.MALFORMED_ACTION: pb.FAULT_KIND_MALFORMED_ACTION,
    FaultKind.OUT_OF_TURN: pb.FAULT_KIND_OUT_OF_TURN,
    FaultKind.PROTOCOL_ERROR: pb.FAULT_KIND_PROTOCOL_ERROR,
    FaultKind.DEADLINE_MISSED: pb.FAULT_KIND_DEADLINE_MISSED,
    FaultKind.TIME_BANK_EXHAUSTED: pb.FAULT_KIND_TIME_BANK_EXHAUSTED,
    FaultKind.DISCONNECTED: pb.FAULT_KIND_DISCONNECTED,
    FaultKind.CRASHED: pb.FAULT_KIND_DISCONNECTED,
    FaultKind.NOT_CONNECTED: pb.FAULT_KIND_DISCONNECTED,
}


def cards_pb(cards: Iterable[Card]) -> list[str]:
    """Canonical wire strings of ``cards``."""
    return [CARD_STRINGS[c] for c in cards]


def card_pb(card: Card | None) -> str:
    """A card's wire string; no card is the empty string."""
    return "" if card is None else CARD_STRINGS[card]


def phase_pb(phase: Phase) -> pb.Phase:
    """The wire enum value of an engine phase."""
    return _PHASES[phase]


def param_text(value: object) -> str:
    """A rule parameter spelled as docs/rules.md §12.1 does: words, on/off, none, integers."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "none"
    return str(value)


@functools.lru_cache(maxsize=64)
def rules_pb(rules: Rules) -> pb.Rules:
    """Profile name and every parameter (shared message: copy it)."""
    params = {k: param_text(v) for k, v in rules.to_dict().items() if k != "profile_name"}
    return pb.Rules(profile=rules.profile_name, params=params)


# --- actions ----------------------------------------------------------------------------------


def _meld_pb(cards: Sequence[Card]) -> pb.Meld:
    return pb.Meld(cards=cards_pb(cards))


def arrangement_pb(arrangement: Arrangement) -> pb.Arrangement:
    """Melds (in the engine's order, which layoff indices refer to) and deadwood."""
    return pb.Arrangement(
        melds=[_meld_pb(m.cards) for m in arrangement.melds],
        deadwood=cards_pb(arrangement.deadwood),
    )


def _melds_only_pb(melds: Sequence[Sequence[Card]]) -> pb.Arrangement:
    return pb.Arrangement(melds=[_meld_pb(m) for m in melds])


@functools.lru_cache(maxsize=1024)
def action_pb(action: Action) -> pb.Action:
    """The wire form of an engine action (shared message: copy it)."""
    if isinstance(action, DrawStock):
        return pb.Action(draw_stock=pb.DrawStock())
    if isinstance(action, DrawDiscard):
        return pb.Action(draw_discard=pb.DrawDiscard())
    if isinstance(action, Pass):
        return pb.Action(pass_offer=pb.Pass())
    if isinstance(action, DeclareDead):
        return pb.Action(declare_dead=pb.DeclareDead())
    if isinstance(action, Discard):
        return pb.Action(discard=pb.Discard(card=CARD_STRINGS[action.card]))
    if isinstance(action, Knock):
        knock = pb.Knock(discard=CARD_STRINGS[action.card])
        if action.melds is not None:
            knock.arrangement.CopyFrom(_melds_only_pb(action.melds))
        return pb.Action(knock=knock)
    if isinstance(action, BigGin):
        big = pb.BigGin()
        if action.melds is not None:
            big.arrangement.CopyFrom(_melds_only_pb(action.melds))
        return pb.Action(big_gin=big)
    if isinstance(action, DefenderPlay):
        return pb.Action(
            defender_play=pb.DefenderPlay(
                melds=[_meld_pb(m) for m in action.melds], layoffs=cards_pb(action.layoffs)
            )
        )
    return pb.Action(choose_deal=pb.ChooseDeal(deal=action.deal))


_SIMPLE: dict[str, Action] = {
    "draw_stock": DrawStock(),
    "draw_discard": DrawDiscard(),
    "pass_offer": Pass(),
    "declare_dead": DeclareDead(),
}


def _card(text: str, where: str) -> Card:
    card = _CARD_INDEX.get(text)
    if card is None:
        raise MalformedActionError(
            f"{where}: {text!r} is not a card; cards are two characters, rank then suit, "
            "e.g. 'TD', 'AC', 'KS' (R11.5)"
        )
    return card


def _cards(texts: Iterable[str], where: str) -> tuple[Card, ...]:
    return tuple(_card(t, where) for t in texts)


def _no_duplicates(cards: Sequence[Card], where: str) -> None:
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise MalformedActionError(f"{where}: {CARD_STRINGS[card]} appears twice (R11.5)")
        seen.add(card)


def _arrangement(
    arr: pb.Arrangement, hand: Sequence[Card], discard: Card | None, where: str
) -> tuple[tuple[Card, ...], ...]:
    """The melds of a bot's arrangement, after checking what can be checked without the rules.

    Duplicates anywhere are malformed. A deadwood list is optional, but if given it must be
    exactly the cards outside the melds (when the melds are in the hand at all: melds with
    foreign cards are the engine's business, an illegal knock).
    """
    melds = tuple(_cards(m.cards, f"{where} meld") for m in arr.melds)
    deadwood = _cards(arr.deadwood, f"{where} deadwood")
    used = [c for m in melds for c in m]
    _no_duplicates(used + list(deadwood) + ([] if discard is None else [discard]), where)
    if deadwood:
        rest = set(hand) - {discard}
        if set(used) <= rest and set(deadwood) != rest - set(used):
            expected = " ".join(CARD_STRINGS[c] for c in sorted(rest - set(used))) or "none"
            raise MalformedActionError(
                f"{where}: the deadwood {' '.join(arr.deadwood)} is not the cards outside "
                f"the melds ({expected}); leave it empty to let the referee fill it in (R11.5)"
            )
    return melds


def action_from_pb(msg: pb.Action, hand: Sequence[Card] = ()) -> Action:
    """Read a bot's action, or raise :class:`MalformedActionError` naming what is wrong.

    ``hand`` is the acting seat's cards, used only to check a declared deadwood list. Whether
    the action is legal is the engine's business (:meth:`Match.apply`).
    """
    kind = msg.WhichOneof("kind")
    if kind is None:
        raise MalformedActionError("the action has no kind set (R11.5)")
    simple = _SIMPLE.get(kind)
    if simple is not None:
        return simple
    if kind == "discard":
        return Discard(_card(msg.discard.card, "discard"))
    if kind == "knock":
        card = _card(msg.knock.discard, "knock discard")
        if not msg.knock.HasField("arrangement"):
            return Knock(card)
        return Knock(card, _arrangement(msg.knock.arrangement, hand, card, "knock arrangement"))
    if kind == "big_gin":
        if not msg.big_gin.HasField("arrangement"):
            return BigGin()
        return BigGin(_arrangement(msg.big_gin.arrangement, hand, None, "big gin arrangement"))
    if kind == "defender_play":
        play = msg.defender_play
        melds = tuple(_cards(m.cards, "defender meld") for m in play.melds)
        layoffs = _cards(play.layoffs, "defender layoff")
        _no_duplicates([c for m in melds for c in m] + list(layoffs), "defender play")
        return DefenderPlay(melds, layoffs)
    return ChooseDeal(msg.choose_deal.deal)


# --- events -----------------------------------------------------------------------------------


class EventEncoder:
    """One seat's wire events of the current hand, converted once and kept for the observation.

    Engine events go in as the hand's whole list (the engine only appends); the private cards of
    the opponent's events are dropped by the engine's own rule
    (``observation.PRIVATE_CARD_EVENTS``), so feeding it an observation's already filtered
    events or the hand's raw ones gives the same.

    It also knows which events have reached the seat: ``events[:delivered]`` were sent (as Event
    messages or in a request's ``new_events``); :meth:`take_undelivered` hands out the rest, so
    that each event is sent exactly once whichever way it goes.
    """

    __slots__ = ("consumed", "delivered", "encoded", "events", "seat")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.events: list[pb.GameEvent] = []
        # Each event serialized, in step with ``events``: a request joins them as they are.
        self.encoded: list[bytes] = []
        self.consumed = 0
        self.delivered = 0

    def reset(self) -> None:
        """Start a new hand."""
        self.events = []
        self.encoded = []
        self.consumed = 0
        self.delivered = 0

    def take_undelivered_encoded(self) -> list[bytes]:
        """:meth:`take_undelivered`, serialized."""
        encoded = self.encoded
        if self.delivered == len(encoded):
            return []
        new = encoded[self.delivered :]
        self.delivered = len(encoded)
        return new

    def take_undelivered(self) -> list[pb.GameEvent]:
        """The converted events not sent to the seat yet, oldest first; from now on they are."""
        events = self.events
        if self.delivered == len(events):
            return []
        new = events[self.delivered :]
        self.delivered = len(events)
        return new

    def sync(self, events: Sequence[Event], knock: KnockInfo | None) -> list[pb.GameEvent]:
        """Convert the events not seen yet; return the new wire events."""
        new: list[pb.GameEvent] = []
        for event in events[self.consumed :]:
            msg = self._convert(event, knock)
            if msg is not None:
                new.append(msg)
        self.consumed = len(events)
        if new:
            self.events.extend(new)
            self.encoded.extend([e.SerializeToString() for e in new])
        return new

    def _convert(self, event: Event, knock: KnockInfo | None) -> pb.GameEvent | None:
        kind = event.kind
        seat = event.seat if event.seat is not None else -1
        card = event.card
        if kind in PRIVATE_CARD_EVENTS and event.seat != self.seat:
            card = None
        if kind == "take_upcard":
            return pb.GameEvent(seat=seat, take_upcard=pb.TakeUpcardEvent(card=card_pb(card)))
        if kind == "draw_discard":
            return pb.GameEvent(seat=seat, draw_discard=pb.DrawDiscardEvent(card=card_pb(card)))
        if kind == "draw_stock":
            return pb.GameEvent(seat=seat, draw_stock=pb.DrawStockEvent(card=card_pb(card)))
        if kind == "discard":
            return pb.GameEvent(seat=seat, discard=pb.DiscardEvent(card=card_pb(card)))
        if kind == "pass":
            return pb.GameEvent(seat=seat, pass_offer=pb.PassEvent())
        if kind == "declare_dead":
            return pb.GameEvent(seat=seat, declare_dead=pb.DeclareDeadEvent())
        if kind in _KNOCK_KINDS:
            # The face-down discard is never part of the event (R5.2); the spread is public.
            arrangement = arrangement_pb(knock.arrangement) if knock is not None else None
            return pb.GameEvent(
                seat=seat, knock=pb.KnockEvent(kind=_KNOCK_KINDS[kind], arrangement=arrangement)
            )
        # deal, hand_over, defender_play: carried by HandStart, HandEnd and the showdown.
        return None


def choose_deal_event_pb(seat: int, deal: bool) -> pb.GameEvent:
    """The high cutter's public choice (R2.2)."""
    return pb.GameEvent(seat=seat, choose_deal=pb.ChooseDealEvent(deal=deal))


def showdown_pb(result: HandResult) -> pb.Showdown | None:
    """Both hands as shown at the end of a knocked hand (public, R11.3); None otherwise."""
    if result.knocker is None or result.knocker_arrangement is None:
        return None
    show = pb.Showdown(
        knocker=result.knocker,
        kind=_OUTCOME_KNOCK_KIND[result.outcome],
        knock_discard=card_pb(result.knock_discard),
        knocker_arrangement=arrangement_pb(result.knocker_arrangement),
        knocker_deadwood=result.knocker_deadwood or 0,
        defender_deadwood=result.defender_deadwood or 0,
    )
    if result.defender is not None:
        show.defender_melds.extend(_meld_pb(m.cards) for m in result.defender.melds)
        show.layoffs.extend(
            pb.Layoff(card=CARD_STRINGS[c], meld_index=i) for c, i in result.defender.layoffs
        )
        show.defender_deadwood_cards.extend(cards_pb(result.defender.deadwood))
    return show


def showdown_event_pb(result: HandResult) -> pb.GameEvent | None:
    """The showdown as a public event (seat = the knocker), or None for a hand without one."""
    show = showdown_pb(result)
    if show is None or result.knocker is None:
        return None
    return pb.GameEvent(seat=result.knocker, showdown=show)


# --- results ----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=16)
def hand_result_pb(result: HandResult) -> pb.HandResult:
    """The wire form of a finished hand (shared message: copy it)."""
    msg = pb.HandResult(
        hand_number=result.number + 1,
        dealer=result.dealer,
        outcome=_OUTCOMES[result.outcome],
        points=result.points,
        doubled=result.doubled,
        extra_boxes=result.extra_boxes,
        dead_reason=_DEAD_REASONS.get(result.dead_reason or "", pb.DEAD_REASON_UNSPECIFIED),
        payoffs=list(result.payoffs),
        final_hands=[pb.SeatCards(cards=cards_pb(h)) for h in result.final_hands],
    )
    msg.hand_players.extend(result.seats)
    msg.table = result.table
    if result.winner is not None:
        msg.winner = result.winner
    if result.knocker is not None:
        msg.knocker = result.knocker
    show = showdown_pb(result)
    if show is not None:
        msg.showdown.CopyFrom(show)
    return msg


def hand_end_pb(result: HandResult, scores: Sequence[pb.SeatScore]) -> pb.RefereeMessage:
    """HandEnd: the result and the match scores after the hand."""
    end = pb.HandEnd(scores=scores)
    end.result.CopyFrom(hand_result_pb(result))
    return pb.RefereeMessage(hand_end=end)


def _game_pb(game: GameScore) -> pb.GameScore:
    return pb.GameScore(
        winner=game.winner,
        hand_points=list(game.hand_points),
        hands_won=list(game.hands_won),
        extra_boxes=list(game.extra_boxes),
        final_scores=list(game.final),
        shutout=game.shutout,
        margin=game.margin,
    )


def match_result_pb(
    result: MatchResult,
    scores: Sequence[pb.SeatScore],
    hands_played: int,
    forfeit: Fault | None = None,
    players: int = 2,
) -> pb.MatchResult:
    """The wire form of a match result; ``forfeit`` is the fault behind a forfeit.

    When both seats forfeited (the engine's ``forfeit_seat`` is None), ``Forfeit.seat`` is -1,
    ``both_seats`` is set and ``kind`` is that of ``forfeit``, the fault recorded first. With
    partnerships (``result.teams``) the scores are by seat (each its team's), ``winner`` is
    absent and ``winning_team`` set.
    """
    final = list(result.final)
    if result.teams:
        final = [result.final[s % 2] for s in range(players)]
    msg = pb.MatchResult(
        final_scores=final,
        margin=result.margin,
        termination=_TERMINATIONS[result.termination],
        scores=scores,
        hands_played=hands_played,
        games=[_game_pb(g) for g in result.games],
        players=players,
        placings=list(result.placings(players)),
    )
    if result.teams:
        if result.winner is not None:
            msg.winning_team = result.winner
    elif result.winner is not None:
        msg.winner = result.winner
    if result.termination is Termination.FORFEIT:
        both = result.forfeit_seat is None
        msg.forfeit.CopyFrom(
            pb.Forfeit(
                seat=-1 if result.forfeit_seat is None else result.forfeit_seat,
                kind=_FAULT_KINDS[forfeit.kind] if forfeit else pb.FAULT_KIND_UNSPECIFIED,
                rule=result.forfeit_rule or "",
                reason=result.forfeit_reason or "",
                both_seats=both,
            )
        )
    return msg


def fault_pb(fault: Fault) -> pb.RefereeMessage:
    """The Fault message sent to the faulty bot."""
    return pb.RefereeMessage(
        fault=pb.Fault(
            rule=fault.rule,
            message=fault.reason,
            kind=_FAULT_KINDS[fault.kind],
            request_id=fault.request_id,
            retry=fault.retry,
        )
    )


def fault_kind_pb(kind: FaultKind) -> int:
    """The wire enum value of a fault kind."""
    return _FAULT_KINDS[kind]


def melds_of(cards: Sequence[Meld]) -> list[list[str]]:
    """Melds as lists of card strings (for logs)."""
    return [cards_pb(m.cards) for m in cards]
