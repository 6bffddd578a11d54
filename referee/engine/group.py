"""Three players (R10.1) and partnerships (R10.2): many seats, played as two-player hands.

Every hand of §10 is an ordinary two-player hand under the match's rules, so each is played by
a one-hand :class:`~referee.engine.match.Match` (its hand seats 0 and 1) and only the seating,
the dealing order and the scores are this module's.

Three players (R10.1). The dealer sits out and deals to the other two: the seat after the dealer
(in seat order, 0 after 2) is hand seat 0 and plays first, as a non-dealer does; the other is
hand seat 1 and takes the dealer's part of the two-player hand (offered the upcard second). The
loser of a hand deals the next, played by the winner and the previous dealer; after a dead hand
or a push the same dealer deals again to the same two. Scores are individual; the game ends when
a player reaches the target and is settled like a two-player game, the shutout counting once for
each other player with no points. ``dealer_rotation`` and ``dead_hand_dealer`` do not apply.

Partnerships (R10.2). Team 0 is seats 0 and 2, team 1 seats 1 and 3. Table 0 seats player 0 and
table 1 player 2 as hand seat 0; their opponents swap every round: seats 1 and 3 in even rounds
(0-based), seats 3 and 1 in odd ones. Each table's dealer is a side (hand seat 0 is team 0) and
follows ``dealer_rotation`` and ``dead_hand_dealer`` at that table. A round is one hand at each
table; the team whose players won more hand points scores the difference (a dead hand or push
counts 0), and a team scores a box for each round it scores. The first team to reach the target
(125 by default) wins.

The two tables' hands are in play together; their decisions are taken in turn, one at each
table while both are open, so that :attr:`GroupMatch.to_act` is always one seat.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence

from referee.engine.actions import Action
from referee.engine.cards import Card
from referee.engine.deal import group_cut, group_first_dealer_draws, hand_deck
from referee.engine.errors import EngineError, IllegalActionError
from referee.engine.game import Table
from referee.engine.hand import Hand
from referee.engine.match import Match
from referee.engine.outcomes import (
    HandResult,
    MatchResult,
    Phase,
    RoundResult,
    Termination,
)
from referee.engine.rules import Rules
from referee.engine.scoring import next_dealer, settle_game


class _OneHand(Match):
    """One two-player hand of a group match, numbered as the match numbers its deals."""

    def __init__(self, rules: Rules, number: int, dealer: int, deck: Sequence[Card]) -> None:
        self._number = number
        super().__init__(rules, 0, decks=[deck], first_dealer=dealer)

    def _deal(self, dealer: int) -> None:
        self._hand = Hand(self.rules, self._number, dealer, self._decks[0])
        self.hands_dealt += 1


@dataclasses.dataclass(slots=True)
class _Tally:
    """Running score of the players (R10.1) or the teams (R10.2)."""

    points: list[int]
    hands_won: list[int]
    extra_boxes: list[int]

    def enter(self, rules: Rules, winner: int, points: int, extra: int) -> None:
        self.points[winner] += points
        self.hands_won[winner] += 1
        self.extra_boxes[winner] += extra
        if rules.boxes_count_toward_target:
            self.points[winner] += rules.box_bonus * (1 + extra)

    def copy(self) -> _Tally:
        return _Tally(list(self.points), list(self.hands_won), list(self.extra_boxes))


class GroupMatch:
    """A match of three players (R10.1) or two partnerships (R10.2) under ``rules``.

    A :class:`~referee.engine.game.Game`, like :class:`~referee.engine.match.Match`: ``to_act``
    is a match seat, ``hand`` the hand of the seat to act, and :meth:`apply` plays for it.
    ``decks`` gives explicit deck orders for the first deals (in dealing order: with
    partnerships, table 0 then table 1 in each round); ``first_dealer`` fixes the first dealer:
    a seat with three players, a side (0 or 1, the same at both tables) with four.
    """

    def __init__(
        self,
        rules: Rules,
        seed: int,
        *,
        decks: Sequence[Sequence[Card]] = (),
        first_dealer: int | None = None,
    ) -> None:
        if rules.players not in (3, 4):
            raise EngineError(f"a group match needs 3 or 4 players, not {rules.players}")
        # A seat with three players, a side (hand seat) with four.
        if first_dealer is not None and first_dealer not in range(2 if rules.players == 4 else 3):
            what = "a side, 0 or 1" if rules.players == 4 else "a seat, 0 to 2"
            raise EngineError(f"the first dealer must be {what}, not {first_dealer}")
        self.rules = rules
        self.players = rules.players
        self.seed = seed
        self.teams = rules.players == 4
        self._decks = [tuple(d) for d in decks]
        # Each table plays its hand as a one-hand two-player match under the same rules.
        self._hand_rules = dataclasses.replace(rules, scope="single_hand", players=2)
        size = 2 if self.teams else 3
        self._tally = _Tally([0] * size, [0] * size, [0] * size)
        self.hand_results: list[HandResult] = []
        self.round_results: list[RoundResult] = []
        self.result: MatchResult | None = None
        self.hands_dealt = 0
        self.cut: tuple[Card, ...] | None = None
        self.tables: list[Table] = []
        self._active = 0  # the table whose decision is awaited
        self._round = 0
        if self.teams:
            sides = self._first_sides(first_dealer)
            self._deal_round(sides)
        else:
            self._deal_three(self._first_dealer_of_three(first_dealer))

    # --- seating and dealing -------------------------------------------------------------------

    def _first_dealer_of_three(self, fixed: int | None) -> int:
        rules = self.rules
        if fixed is not None:
            return fixed
        if rules.first_dealer in ("seat0", "seat1"):
            return int(rules.first_dealer[-1])
        if rules.first_dealer == "random":
            return group_first_dealer_draws(self.seed, 0)[0]
        self.cut = group_cut(self.seed, 3)
        ranks = [c % 13 for c in self.cut]
        return ranks.index(min(ranks))

    def _first_sides(self, fixed: int | None) -> list[int]:
        rules = self.rules
        if fixed is not None:
            return [fixed, fixed]
        if rules.first_dealer in ("seat0", "seat1"):
            side = int(rules.first_dealer[-1])
            return [side, side]
        if rules.first_dealer == "random":
            return group_first_dealer_draws(self.seed, 2)
        self.cut = group_cut(self.seed, 4)
        # The lower card deals at each table: hand seat 0 cut seat 0's (2's), seat 1 seat 1's.
        c = self.cut
        return [int(c[1] % 13 < c[0] % 13), int(c[3] % 13 < c[2] % 13)]

    def _next_deck(self) -> Sequence[Card]:
        index = self.hands_dealt
        self.hands_dealt += 1
        return self._decks[index] if index < len(self._decks) else hand_deck(self.seed, index)

    def _open_table(self, number: int, seats: tuple[int, int], dealer_side: int) -> Table:
        index = self.hands_dealt
        deck = self._next_deck()
        return Table(number, seats, _OneHand(self._hand_rules, index, dealer_side, deck))

    def _deal_three(self, dealer: int) -> None:
        """R10.1: ``dealer`` sits out; the seat after it plays first (hand seat 0)."""
        seats = ((dealer + 1) % 3, (dealer + 2) % 3)
        self.tables = [self._open_table(0, seats, 1)]
        self._active = 0

    def _deal_round(self, sides: Sequence[int]) -> None:
        """R10.2: a hand at each table; opponents swap every round."""
        away = (1, 3) if self._round % 2 == 0 else (3, 1)
        self.tables = [
            self._open_table(0, (0, away[0]), sides[0]),
            self._open_table(1, (2, away[1]), sides[1]),
        ]
        self._active = 0

    # --- public API ---------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """The phase of the hand whose decision is awaited."""
        if self.result is not None:
            return Phase.MATCH_OVER
        return self.tables[self._active].play.phase

    @property
    def to_act(self) -> int | None:
        """The match seat whose decision is awaited (None once the match is over)."""
        if self.result is not None:
            return None
        table = self.tables[self._active]
        hand_seat = table.play.to_act
        return None if hand_seat is None else table.seats[hand_seat]

    @property
    def table(self) -> Table:
        """The table whose decision is awaited (the last one to play, once the match is over)."""
        return self.tables[self._active]

    @property
    def hand(self) -> Hand:
        """The hand whose decision is awaited."""
        return self.table.hand

    @property
    def chooser(self) -> None:
        """Nobody chooses the first dealer with 3 or 4 players (cut_high_chooses is refused)."""
        return None

    @property
    def round(self) -> int:
        """The 0-based round (partnerships) being played, or the number played once over."""
        return self._round

    @property
    def sitting_out(self) -> int | None:
        """With three players, the seat that dealt and sits out this hand (R10.1)."""
        if self.teams:
            return None
        seats = self.tables[0].seats
        return 3 - seats[0] - seats[1]

    def table_of(self, seat: int) -> Table | None:
        """The table ``seat`` plays at now; None when it sits out (R10.1)."""
        for table in self.tables:
            if seat in table.seats:
                return table
        return None

    def team_of(self, seat: int) -> int:
        """The seat's team in a partnership match (R10.2); the seat itself with three players."""
        return seat % 2 if self.teams else seat

    @property
    def scores(self) -> tuple[int, ...]:
        """Cumulative hand points: by seat (R10.1), or by team (R10.2)."""
        return tuple(self._tally.points)

    @property
    def hands_won(self) -> tuple[int, ...]:
        """Hands won by seat (R10.1), or rounds scored by team (R10.2)."""
        return tuple(self._tally.hands_won)

    @property
    def extra_boxes(self) -> tuple[int, ...]:
        """Oklahoma extra boxes by seat (R9.7); always 0 for partnerships."""
        return tuple(self._tally.extra_boxes)

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act."""
        if self.result is not None:
            return []
        return self.tables[self._active].play.legal_actions()

    def is_legal(self, action: Action) -> bool:
        """Whether :meth:`apply` would accept ``action``."""
        if self.result is not None:
            return False
        return self.tables[self._active].play.is_legal(action)

    def apply(self, action: Action) -> None:
        """Carry out ``action`` for the seat to act, or raise; nothing changes when illegal."""
        if self.result is not None:
            raise IllegalActionError("R9.1", "the match is over")
        table = self.tables[self._active]
        table.play.apply(action)
        if table.play.result is not None:
            self._table_done(table)
            if self.result is not None or table is not self.tables[self._active]:
                return
        # Decisions alternate between the tables while both hands are open.
        if self.teams:
            other = self.tables[1 - self._active]
            if other.result is None:
                self._active = other.number

    def forfeit(self, seats: Collection[int], rule: str, reason: str) -> None:
        """End the match: ``seats`` forfeit (R11.5); with partnerships, their teams.

        Three players: the other seats are not beaten by one another, so nobody wins unless
        only one seat is left. Partnerships: the other team wins, unless both teams forfeit.
        """
        if self.result is not None:
            raise EngineError("the match is already over")
        seats = tuple(sorted(set(seats)))
        if not seats or not all(0 <= s < self.players for s in seats):
            raise EngineError(
                f"a forfeit names one or more seats of the match (0 to {self.players - 1}), "
                f"not {list(seats)}"
            )
        winner: int | None = None
        if self.teams:
            teams = {s % 2 for s in seats}
            winner = 1 - teams.pop() if len(teams) == 1 else None
        else:
            left = [s for s in range(3) if s not in seats]
            winner = left[0] if len(left) == 1 else None
        self.result = MatchResult(
            Termination.FORFEIT,
            winner,
            self.scores,
            forfeit_seat=seats[0] if len(seats) == 1 else None,
            forfeit_rule=rule,
            forfeit_reason=reason,
            teams=self.teams,
            forfeit_seats=seats,
        )

    def copy(self) -> GroupMatch:
        """An independent deep copy."""
        other = GroupMatch.__new__(GroupMatch)
        for name in (
            "rules",
            "players",
            "seed",
            "teams",
            "_decks",
            "_hand_rules",
            "result",
            "hands_dealt",
            "cut",
            "_active",
            "_round",
        ):
            setattr(other, name, getattr(self, name))
        other._tally = self._tally.copy()
        other.hand_results = list(self.hand_results)
        other.round_results = list(self.round_results)
        other.tables = [Table(t.number, t.seats, t.play.copy(), t.result) for t in self.tables]
        return other

    def fingerprint(self) -> tuple[object, ...]:
        """The whole state as a hashable value: equal fingerprints mean equal states."""
        return (
            self.seed,
            self.hands_dealt,
            self._active,
            self._round,
            self.result,
            tuple(self.hand_results),
            tuple(self.round_results),
            tuple(self._tally.points),
            tuple(self._tally.hands_won),
            tuple(self._tally.extra_boxes),
            tuple((t.seats, t.result, t.play.fingerprint()) for t in self.tables),
        )

    # --- the end of a hand --------------------------------------------------------------------

    def _table_done(self, table: Table) -> None:
        result = table.play.hand_results[-1]
        table.result = dataclasses.replace(result, seats=table.seats, table=table.number)
        if self.teams:
            if all(t.result is not None for t in self.tables):
                self._end_round()
            else:
                self._active = 1 - table.number
            return
        self._end_three(table)

    def _end_three(self, table: Table) -> None:
        """R10.1: score the hand, then settle the game or deal the next hand."""
        result = table.result
        assert result is not None
        dealer = 3 - table.seats[0] - table.seats[1]
        winner = result.match_seat(result.winner)
        if winner is not None:
            self._tally.enter(self.rules, winner, result.points, result.extra_boxes)
        self.hand_results.append(dataclasses.replace(result, scores_after=self.scores))
        if winner is not None and self._tally.points[winner] >= self.rules.target:
            self._settle(winner)
            return
        if winner is None:
            self._deal_three(dealer)  # the same dealer deals to the same two again
            return
        self._deal_three(table.seats[1 - table.seats.index(winner)])  # the loser deals

    def _end_round(self) -> None:
        """R10.2: score the round by team, then settle the game or deal the next round."""
        won = [0, 0]
        for table in self.tables:
            result = table.result
            assert result is not None
            if result.winner is not None:
                won[self.team_of(table.seats[result.winner])] += result.points
        winner = None if won[0] == won[1] else (0 if won[0] > won[1] else 1)
        points = abs(won[0] - won[1])
        if winner is not None:
            self._tally.enter(self.rules, winner, points, 0)
        scores = (self._tally.points[0], self._tally.points[1])
        for table in self.tables:
            assert table.result is not None
            self.hand_results.append(dataclasses.replace(table.result, scores_after=scores))
        self.round_results.append(
            RoundResult(
                self._round,
                (self.tables[0].hand.number, self.tables[1].hand.number),
                (won[0], won[1]),
                winner,
                points,
                scores,
            )
        )
        self._round += 1
        if winner is not None and self._tally.points[winner] >= self.rules.target:
            self._settle(winner)
            return
        self._deal_round([self._next_side(t) for t in self.tables])

    def _next_side(self, table: Table) -> int:
        """The dealer side at ``table`` next round: ``dealer_rotation`` per table (R10.2)."""
        result = table.result
        assert result is not None
        return next_dealer(self.rules, result.dealer, result.winner)

    def _settle(self, winner: int) -> None:
        t = self._tally
        game = settle_game(self.rules, t.points, t.hands_won, t.extra_boxes, winner)
        self.result = MatchResult(Termination.TARGET, winner, game.final, (game,), teams=self.teams)
