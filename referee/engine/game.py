"""One game type for two, three and four players: :class:`Game`, and :func:`new_game`.

A match of two players (:class:`~referee.engine.match.Match`) and one of three players or two
partnerships (:class:`~referee.engine.group.GroupMatch`, R10) are the same game to everything
outside the engine: seats, the tables where two-player hands are played, the seat to act, its
legal actions, :meth:`Game.apply`, :meth:`Game.forfeit` of any seats, and the hand, round and
match results. A two-player match is the case of one table, seats 0 and 1 at hand seats 0
and 1; with three players one seat sits out each hand; partnerships play two tables at once.
Code outside the engine asks the game, never its class.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Protocol

from referee.engine.actions import Action
from referee.engine.cards import Card
from referee.engine.hand import Hand
from referee.engine.outcomes import HandResult, MatchResult, Phase, RoundResult
from referee.engine.rules import Rules

if TYPE_CHECKING:
    from referee.engine.match import Match


@dataclasses.dataclass(slots=True)
class Table:
    """One table: the hand in play there and the match seats at its hand seats 0 and 1."""

    number: int
    seats: tuple[int, int]
    play: Match
    result: HandResult | None = None  # once its hand is over

    @property
    def hand(self) -> Hand:
        """The table's hand."""
        hand = self.play.hand
        assert hand is not None
        return hand

    def hand_seat(self, seat: int) -> int | None:
        """``seat``'s hand seat at this table, or None if it does not play here."""
        return self.seats.index(seat) if seat in self.seats else None


class Game(Protocol):
    """A match of any number of players, as every consumer outside the engine sees it.

    Scores, hands won and extra boxes are by seat, or by team with partnerships (``teams``:
    team 0 is seats 0 and 2, R10.2); :meth:`team_of` maps a seat to its index there.
    """

    rules: Rules
    seed: int
    hand_results: list[HandResult]
    result: MatchResult | None
    hands_dealt: int

    @property
    def players(self) -> int:
        """The number of seats: 2, 3 or 4."""
        ...

    @property
    def teams(self) -> bool:
        """Whether the seats play as two partnerships (R10.2)."""
        ...

    @property
    def cut(self) -> tuple[Card, ...] | None:
        """The cards cut for the first deal (R2.2, R10.1), when the rules cut for it."""
        ...

    @property
    def phase(self) -> Phase:
        """The phase of the hand whose decision is awaited (MATCH_OVER once over)."""
        ...

    @property
    def to_act(self) -> int | None:
        """The match seat whose decision is awaited (None once the match is over)."""
        ...

    @property
    def hand(self) -> Hand | None:
        """The hand whose decision is awaited (None before the first deal, R2.2)."""
        ...

    @property
    def chooser(self) -> int | None:
        """The high cutter who is to choose who deals first (R2.2), until they have."""
        ...

    @property
    def tables(self) -> Sequence[Table]:
        """The tables in play now (none before the first deal)."""
        ...

    @property
    def sitting_out(self) -> int | None:
        """With three players, the seat that dealt and sits out this hand (R10.1)."""
        ...

    @property
    def round_results(self) -> Sequence[RoundResult]:
        """The rounds scored so far: partnerships only (R10.2)."""
        ...

    @property
    def scores(self) -> tuple[int, ...]:
        """Cumulative hand points by seat or team (R9.1, R10)."""
        ...

    @property
    def hands_won(self) -> tuple[int, ...]:
        """Hands won by seat, or rounds scored by team (R10.2)."""
        ...

    @property
    def extra_boxes(self) -> tuple[int, ...]:
        """Oklahoma extra boxes by seat or team (R9.7)."""
        ...

    def table_of(self, seat: int) -> Table | None:
        """The table ``seat`` plays at now; None when it sits out (R10.1)."""
        ...

    def team_of(self, seat: int) -> int:
        """The index of ``seat``'s scores: its team with partnerships, else the seat."""
        ...

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act."""
        ...

    def is_legal(self, action: Action) -> bool:
        """Whether :meth:`apply` would accept ``action``."""
        ...

    def apply(self, action: Action) -> None:
        """Carry out ``action`` for the seat to act, or raise; nothing changes when illegal."""
        ...

    def forfeit(self, seats: Collection[int], rule: str, reason: str) -> None:
        """End the match: ``seats`` forfeit (R11.5)."""
        ...

    def copy(self) -> Game:
        """An independent deep copy."""
        ...

    def fingerprint(self) -> tuple[object, ...]:
        """The whole state as a hashable value: equal fingerprints mean equal states."""
        ...


def new_game(
    rules: Rules,
    seed: int,
    *,
    decks: Sequence[Sequence[Card]] = (),
    first_dealer: int | None = None,
) -> Game:
    """The match ``rules`` describe, for ``rules.players`` seats, from ``seed``.

    ``decks`` gives explicit deck orders for the first deals, ``first_dealer`` fixes the first
    dealer (a side, 0 or 1, with partnerships): see each game's class.
    """
    if rules.players == 2:
        from referee.engine.match import Match

        return Match(rules, seed, decks=decks, first_dealer=first_dealer)
    from referee.engine.group import GroupMatch

    return GroupMatch(rules, seed, decks=decks, first_dealer=first_dealer)
