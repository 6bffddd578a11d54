"""What a seat may know, from the messages it was sent and the rules alone (R2.8, R11.3).

:class:`LeakChecker` reads every message the referee writes to every seat (the session's
``on_send`` hook) and never looks at the engine: what a seat may see is rebuilt from that seat's
own messages, by the rules of what is public, the way a bot that keeps its own record would.

During a hand a seat may be shown its own cards and the public ones, and nothing else:

- its own cards: those dealt to it (HandStart.hand), the card of each of its own stock draws
  (its copy of DrawStockEvent) and each card it took face up, less what it discarded;
- public cards: the upcard (HandStart.upcard), every face-up discard, every card taken face up
  (it was the upcard or a discard, and who took it is public: the opponent holds it until it
  discards it again) and a knocker's spread, from the knock on (R5.2).

The opponent's hand is known only that far: the cards it took face up and has not discarded
since, and its spread once it knocks (ten cards, or eleven for big gin: a larger spread shows
the face-down discard). Its stock draws, the stock and a knocker's face-down discard are never
public during the hand. Each event is checked as it comes, against what the seat knew before it
and what the event itself makes public, so that a later event (the discard of a card just drawn)
cannot excuse what an earlier one showed. Messages about a finished hand (the showdown and the
HandEnd) may show both hands and the face-down discard (R11.3), but never the stock: no card
that neither player held, as each player's own messages tell what it held, nor saw face up.

So that "its own cards" cannot be fed by the leak itself, the messages must also agree with one
another: the two hands dealt at a table are disjoint and of the size the rules deal, a stock
draw shows a card the seat had not seen, and every observation's hand, discard pile and
opponent's known cards are those the seat's own record gives; a finished hand's final cards for
the seat are its record's. Such disagreements are ``problems``; cards shown beyond what the seat
may know are ``leaks``.

With three or four players (§10) every hand is a two-player hand between two seats: a seat's
record is kept in its hand seat (HandStart.hand_seat); a seat that sits out may be shown no card
until the HandEnd; a partnership's HandEnd also shows the other table's finished hand, checked
against the records of the two seats that played it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import Message  # type: ignore[import-untyped]

from referee.wire import ginrummy_pb2 as pb

# The proto's card notation: rank then suit (file comment of ginrummy.proto).
CARDS = frozenset(rank + suit for rank in "A23456789TJQK" for suit in "CDHS")


def card_strings(message: Message, skip: frozenset[str] = frozenset()) -> set[str]:
    """Every card string anywhere in ``message`` (recursively), except in fields ``skip``."""
    found: set[str] = set()
    for field_, value in message.ListFields():
        if field_.name in skip:
            continue
        values = value if field_.is_repeated else [value]
        for item in values:
            if isinstance(item, Message):
                found |= card_strings(item, skip)
            elif isinstance(item, str) and item in CARDS:
                found.add(item)
    return found


# Checked apart from the rest of a request: the events as each came, the previous hand's
# result when the seat was told it (its cards are in this hand's deck again).
_CHECKED_APART = frozenset({"new_events", "events", "last_hand_result"})


def card_paths(message: Message, cards: set[str], prefix: str = "") -> list[str]:
    """Where in ``message`` the strings ``cards`` are, as "field[i].field = card"."""
    found: list[str] = []
    for field_, value in message.ListFields():
        values = value if field_.is_repeated else [value]
        for i, item in enumerate(values):
            path = prefix + field_.name + (f"[{i}]" if field_.is_repeated else "")
            if isinstance(item, Message):
                found += card_paths(item, cards, path + ".")
            elif isinstance(item, str) and item in cards:
                found.append(f"{path} = {item}")
    return found


def spread_of(arrangement: pb.Arrangement) -> set[str]:
    """The cards of a knocker's arrangement: its melds and its deadwood."""
    cards = set(arrangement.deadwood)
    for meld in arrangement.melds:
        cards.update(meld.cards)
    return cards


def _names(cards: Iterable[str]) -> str:
    return " ".join(sorted(cards)) or "none"


@dataclass
class SeatView:
    """One seat's record of the hand it plays, built from its own messages."""

    seat: int  # the match seat
    hand_number: int = 0  # 1-based, as HandStart.hand_number; 0 before the first deal
    hand_seat: int = -1  # -1 before a deal and while sitting out (R10.1)
    table: int = 0
    hand_players: tuple[int, ...] = ()  # the match seats at hand seats 0 and 1
    upcard: str = ""
    dealt: frozenset[str] = frozenset()
    own: set[str] = field(default_factory=set)
    public: set[str] = field(default_factory=set)  # every card seen face up this hand
    pile: list[str] = field(default_factory=list)  # the face-up pile, bottom first
    opponent_known: set[str] = field(default_factory=set)  # taken face up, not discarded since
    knock_discard: str = ""  # its own face-down discard, once it knocked
    opponent_spread: set[str] = field(default_factory=set)  # once the opponent knocked
    events: list[pb.GameEvent] = field(default_factory=list)  # received this hand, in order
    over: bool = False  # told of the showdown or the result: the hand is finished
    results: list[pb.HandResult] = field(default_factory=list)  # results told this match

    @property
    def playing(self) -> bool:
        """Whether the seat plays a hand that is not finished yet."""
        return self.hand_seat >= 0 and not self.over

    def may_see(self) -> set[str]:
        """The cards the seat may be shown while its hand is played."""
        return self.own | self.public if self.playing else set()

    def held(self) -> set[str]:
        """Every card the seat's record says it held: its cards and its face-down discard."""
        return self.own | ({self.knock_discard} if self.knock_discard else set())


class LeakChecker:
    """Checks each message to each seat against what that seat may know (see the module doc).

    Call it as the session's ``on_send`` hook; the engine's hand it is given is not read.
    """

    def __init__(self) -> None:
        self.views: dict[int, SeatView] = {}
        self.deal_mode = "upcard"
        self.leaks: list[str] = []
        self.problems: list[str] = []
        self.checked = 0
        self.kinds: set[str] = set()
        self.in_play = 0  # messages checked against a hand in play
        self.finished = 0  # finished hands checked against the stock
        self.opponent_known_seen = 0  # observations that showed opponent's known cards

    def __call__(self, seat: int, message: pb.RefereeMessage, hand: Any = None) -> None:
        self.checked += 1
        kind = message.WhichOneof("kind") or ""
        self.kinds.add(kind)
        if kind == "match_start":
            params = message.match_start.rules.params
            self.deal_mode = params.get("deal_mode", "upcard")
            self.views[seat] = SeatView(seat)
            self._leak(seat, message, card_strings(message), set())
            return
        view = self.views.setdefault(seat, SeatView(seat))
        if kind == "hand_start":
            view = self._hand_start(view, message.hand_start)
            self._leak(seat, message, card_strings(message), view.may_see())
        elif kind == "decision_request":
            self._request(view, message)
        elif kind == "event":
            self._event_message(view, message)
        elif kind == "hand_end":
            self._hand_end(view, message)
        else:  # welcome, match_end, fault: about no hand's cards
            self._leak(seat, message, card_strings(message), view.may_see())

    # --- the rule ------------------------------------------------------------------------

    def _leak(self, seat: int, message: Message, shown: set[str], allowed: set[str]) -> None:
        leaked = shown - allowed
        if leaked:
            view = self.views.get(seat)
            hand = f"hand {view.hand_number}" if view is not None else "no hand"
            where = "; ".join(card_paths(message, leaked))
            name = message.DESCRIPTOR.name
            self.leaks.append(f"seat {seat} saw {_names(leaked)}, {hand}: {name} {where}")

    def _problem(self, view: SeatView, text: str) -> None:
        self.problems.append(f"seat {view.seat}, hand {view.hand_number}: {text}")

    # --- messages ------------------------------------------------------------------------

    def _hand_start(self, before: SeatView, start: pb.HandStart) -> SeatView:
        """A new record for the seat's new hand; the results it was told stay known."""
        view = SeatView(
            before.seat,
            hand_number=start.hand_number,
            hand_seat=start.hand_seat,
            table=start.table,
            hand_players=tuple(start.hand_players),
            results=before.results,
        )
        self.views[view.seat] = view
        if start.hand_seat < 0:  # sitting out: no card of this hand (R10.1)
            return view
        dealt = list(start.hand)
        # R2.4, R2.5: ten cards each, or eleven to the non-dealer of an eleven-card deal.
        size = 11 if self.deal_mode == "eleven_card" and start.hand_seat != start.dealer else 10
        if len(dealt) != size or len(set(dealt)) != size or not set(dealt) <= CARDS:
            self._problem(view, f"dealt {dealt}, not {size} distinct cards")
        if (start.upcard == "") != (self.deal_mode == "eleven_card") or start.upcard in dealt:
            self._problem(view, f"upcard {start.upcard!r} with the hand {dealt}")
        view.upcard = start.upcard
        view.dealt = frozenset(dealt)
        view.own = set(dealt)
        if start.upcard:
            view.public = {start.upcard}
            view.pile = [start.upcard]
        for other in self._table_views(view):
            if other.dealt & view.dealt or other.upcard != view.upcard:
                self._problem(
                    view,
                    f"dealt {_names(view.dealt)} and upcard {view.upcard!r}; seat {other.seat} "
                    f"was dealt {_names(other.dealt)} and upcard {other.upcard!r}",
                )
        return view

    def _table_views(self, view: SeatView) -> list[SeatView]:
        """The other seats' records of the same hand (the opponent, once it was dealt)."""
        return [
            v
            for v in self.views.values()
            if v is not view
            and v.hand_seat >= 0
            and v.hand_number == view.hand_number
            and v.table == view.table
        ]

    def _request(self, view: SeatView, message: pb.RefereeMessage) -> None:
        request = message.decision_request
        obs = request.observation
        if obs.phase == pb.PHASE_CHOOSE_DEALER:  # before the first deal: no card
            self._leak(view.seat, message, card_strings(message), set())
            return
        if not view.playing:
            self._problem(view, f"asked to decide in no hand it plays, phase {obs.phase}")
        for event in request.new_events:
            self._event(view, event)
        self.in_play += 1
        # Each event was checked as it came; the observation's must be those (proto, "Events").
        if list(obs.events) != view.events:
            self._problem(view, f"the observation's events are not those it received: {obs}")
        if sorted(obs.hand) != sorted(view.own):
            self._problem(
                view, f"the observation's hand {_names(obs.hand)} is not {_names(view.own)}"
            )
        if list(obs.discard_pile) != view.pile:
            self._problem(view, f"the observation's pile {list(obs.discard_pile)} != {view.pile}")
        if set(obs.opponent_known_cards) != view.opponent_known:
            self._problem(
                view,
                f"the opponent's known cards {_names(obs.opponent_known_cards)} are not "
                f"{_names(view.opponent_known)}",
            )
        self.opponent_known_seen += bool(obs.opponent_known_cards)
        if obs.upcard != view.upcard:
            self._problem(view, f"the observation's upcard {obs.upcard!r} != {view.upcard!r}")
        if obs.HasField("last_hand_result") and obs.last_hand_result not in view.results:
            self._problem(view, f"a last hand result it was never told: {obs.last_hand_result}")
        shown = card_strings(message, _CHECKED_APART)
        self._leak(view.seat, message, shown, view.may_see())

    def _event_message(self, view: SeatView, message: pb.RefereeMessage) -> None:
        event = message.event
        if event.WhichOneof("kind") == "choose_deal":  # before the first deal
            self._leak(view.seat, message, card_strings(message), set())
            return
        if not view.playing:
            self._problem(view, f"an event of no hand it plays: {message}")
        self._event(view, event)

    def _hand_end(self, view: SeatView, message: pb.RefereeMessage) -> None:
        end = message.hand_end
        view.over = True
        results = [end.result, *(r for r in end.round.tables if r.table != end.result.table)]
        for result in results:
            view.results.append(result)
            self._finished(view, result, tuple(result.hand_players), result.hand_number)
        if view.hand_seat >= 0:
            hands = end.result.final_hands
            final = hands[view.hand_seat].cards if len(hands) == 2 else []
            if set(final) != view.own or len(final) != len(view.own):
                self._problem(view, f"final hand {_names(final)}, not {_names(view.own)}")
            # What it was shown of the opponent's hand was in it.
            theirs = set(hands[1 - view.hand_seat].cards) if len(hands) == 2 else set()
            if not view.opponent_known <= theirs or not view.opponent_spread <= theirs:
                self._problem(
                    view,
                    f"the opponent's final hand {_names(theirs)} lacks its known cards "
                    f"{_names(view.opponent_known)} or its spread {_names(view.opponent_spread)}",
                )
        # Scores and the round's points: no cards.
        rest = pb.HandEnd()
        rest.CopyFrom(end)
        rest.ClearField("result")
        rest.ClearField("round")
        self._leak(view.seat, message, card_strings(rest), set())

    def _finished(
        self, view: SeatView, shown: Message, seats: tuple[int, ...], number: int
    ) -> None:
        """A finished hand may show every card its two players held or saw: not the stock."""
        view.over = True
        records = [
            v
            for s in seats
            if (v := self.views.get(s)) is not None
            and v.hand_number == number
            and v.hand_players == seats
        ]
        if len(records) != 2:
            self._problem(view, f"no record of both players of hand {number} (seats {seats})")
            return
        self.finished += 1
        allowed = set().union(*(v.held() | v.public for v in records))
        self._leak(view.seat, shown, card_strings(shown), allowed)

    # --- events --------------------------------------------------------------------------

    def _event(self, view: SeatView, event: pb.GameEvent) -> None:
        """Learn what ``event`` makes known to the seat, by the rules alone; then check it.

        Checked on its own as it comes, not with the events that came with it: a later event
        (a discard of the card drawn) must not excuse what an earlier one showed.
        """
        kept = pb.GameEvent()
        kept.CopyFrom(event)
        view.events.append(kept)
        kind = event.WhichOneof("kind")
        if kind == "showdown":
            self._finished(view, event, view.hand_players, view.hand_number)
            return
        self._learn(view, event, kind)
        self._leak(view.seat, event, card_strings(event), view.may_see())

    def _learn(self, view: SeatView, event: pb.GameEvent, kind: str | None) -> None:
        mine = event.seat == view.hand_seat
        if kind in ("take_upcard", "draw_discard"):
            card = getattr(event, kind).card
            if not view.pile or view.pile[-1] != card:
                self._problem(view, f"{card!r} taken, but the pile is {view.pile}")
            else:
                view.pile.pop()
            (view.own if mine else view.opponent_known).add(card)
        elif kind == "draw_stock":
            card = event.draw_stock.card
            if mine:  # the one way a seat learns a stock card: its own draw
                if card not in CARDS or card in view.own | view.public:
                    self._problem(view, f"drew {card!r} from the stock, a card it had seen")
                for other in self._table_views(view):
                    if card in other.own:
                        self._problem(view, f"drew {card!r}, which seat {other.seat} holds")
                if card in CARDS:
                    view.own.add(card)
            # The opponent's copy shows no card: anything in it is not learnt (it is a leak).
        elif kind == "discard":
            card = event.discard.card
            if mine:
                if card not in view.own:
                    self._problem(view, f"discarded {card!r}, which it does not hold")
                view.own.discard(card)
            elif card in view.own:
                self._problem(view, f"the opponent discarded {card!r}, which this seat holds")
            view.opponent_known.discard(card)
            view.pile.append(card)
            view.public.add(card)
        elif kind == "knock":
            spread = spread_of(event.knock.arrangement)
            # R5.2, R5.9: ten cards shown and one face down, or all eleven for big gin.
            size = 11 if event.knock.kind == pb.KNOCK_KIND_BIG_GIN else 10
            if mine:
                rest = view.own - spread
                if not spread <= view.own or len(spread) != size or len(rest) != 11 - size:
                    self._problem(view, f"knocked with {_names(spread)}, holding {view.own}")
                view.knock_discard = min(rest, default="")
                view.own = spread
                return
            # The spread is public; the face-down discard is not, so a spread of the wrong size
            # shows it, or a card the knocker never held.
            if len(spread) != size:
                self.leaks.append(
                    f"seat {view.seat} saw a spread of {len(spread)} cards, not {size}, "
                    f"hand {view.hand_number}: {_names(spread)}"
                )
            if spread & view.own:
                self._problem(view, f"the opponent's spread holds its {_names(spread & view.own)}")
            view.public |= spread
            view.opponent_known &= spread
            view.opponent_spread = spread
