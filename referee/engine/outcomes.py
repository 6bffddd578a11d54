"""What hands and matches come to: phases, outcomes, events and results (R8, R9, §7).

Small immutable values shared by the engine and every layer around it (the referee, replays,
tournaments): nothing here changes state or knows how it was computed.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

from referee.engine import layoffs as L
from referee.engine import melds as M
from referee.engine.cards import Card


class Phase(enum.Enum):
    """Whose decision, of which kind, the match is waiting for."""

    CHOOSE_DEALER = "choose_dealer"  # R2.2 cut_high_chooses
    UPCARD_OFFER = "upcard_offer"  # R3
    DRAW = "draw"  # R4.1
    DISCARD = "discard"  # R4.2, R5 (holding 11 cards)
    WALL = "wall"  # R7.3-R7.5
    DEFENDER = "defender"  # R6 with defender_play = declared or declared_melds
    MATCH_OVER = "match_over"


class HandOutcome(enum.Enum):
    """How a hand ended (R8, §7)."""

    KNOCK = "knock"  # R8.1
    GIN = "gin"  # R8.2
    BIG_GIN = "big_gin"  # R8.2
    UNDERCUT = "undercut"  # R8.3
    PUSH = "push"  # R8.3, undercut_on_tie = off
    DEAD = "dead"  # §7, R4.5


class Termination(enum.Enum):
    """Why a match ended."""

    TARGET = "target"  # R9.1
    SINGLE_HAND = "single_hand"  # R9.9
    HOLLYWOOD = "hollywood"  # R9.8: all three games settled
    FORFEIT = "forfeit"  # R11.5


class Event(NamedTuple):
    """One public or private happening of a hand; ``card`` may be hidden from the other seat.

    A named tuple rather than a dataclass: the engine makes two per turn, and tuples are
    several times cheaper to build.
    """

    seat: int | None
    # deal, take_upcard, pass, draw_stock, draw_discard, discard, knock, gin, big_gin,
    # declare_dead, defender_play, hand_over
    kind: str
    card: Card | None = None


@dataclass(frozen=True, slots=True)
class KnockInfo:
    """The knocker's spread, public from the knock on (R5.2)."""

    knocker: int
    kind: HandOutcome  # KNOCK, GIN or BIG_GIN
    arrangement: M.Arrangement
    # The melds in the order the knocker declared them (the arrangement keeps a canonical
    # order); empty when that is the arrangement's own order. Neller's framework tries the
    # knocker's melds in this order when it lays off (defender_play = declared_melds, R6.6).
    declared_order: tuple[M.Meld, ...] = ()

    @property
    def melds_as_declared(self) -> tuple[M.Meld, ...]:
        """The knocker's melds in the order declared."""
        return self.declared_order or self.arrangement.melds


@dataclass(frozen=True, slots=True)
class HandResult:
    """Everything about a finished hand: the showdown, the score and what it did to the match."""

    number: int
    dealer: int
    outcome: HandOutcome
    winner: int | None
    points: int
    knocker: int | None = None
    knock_discard: Card | None = None
    knocker_arrangement: M.Arrangement | None = None
    defender: L.DefenderPlay | None = None
    knocker_deadwood: int | None = None
    defender_deadwood: int | None = None
    doubled: bool = False
    extra_boxes: int = 0
    dead_reason: str | None = None
    payoffs: tuple[float, float] = (0.0, 0.0)
    final_hands: tuple[tuple[Card, ...], tuple[Card, ...]] = ((), ())
    # The match's scores after the hand: by seat; with 3 players every player's, with 4 the
    # teams' after the round (R10.2).
    scores_after: tuple[int, ...] = (0, 0)
    # With 3 or 4 players (§10) the hand is a two-player hand inside a larger match: the seats,
    # dealer, winner and knocker above are its hand seats 0 and 1, and these are the match seats
    # that played them (the partnership table it was played at).
    seats: tuple[int, int] = (0, 1)
    table: int = 0

    def match_seat(self, hand_seat: int | None) -> int | None:
        """The match seat that played ``hand_seat`` of this hand."""
        return None if hand_seat is None else self.seats[hand_seat]


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A round of a partnership match (R10.2): one hand at each table, scored by team."""

    number: int  # 0-based
    hands: tuple[int, int]  # the 0-based numbers of the hands at tables 0 and 1
    won: tuple[int, int]  # hand points each team won in the round (a dead hand counts 0)
    winner: int | None  # the team that scores: the one that won more; None when equal
    points: int  # the difference, which the winner scores
    scores_after: tuple[int, int]  # the teams' points after the round


@dataclass(frozen=True, slots=True)
class GameScore:
    """One game's settlement (A.4): the match, or each of Hollywood's three games.

    Indexed by seat; with 3 players by seat (three entries), with 4 by team (R10.2), where
    ``hands_won`` counts the rounds each team scored.
    """

    winner: int
    hand_points: tuple[int, ...]
    hands_won: tuple[int, ...]
    extra_boxes: tuple[int, ...]
    final: tuple[int, ...]
    shutout: bool  # some other player (or team) scored no hand points (R9.5)

    @property
    def margin(self) -> int:
        """Winner's final score minus the best of the others' (R9.6)."""
        return self.final[self.winner] - max(
            f for i, f in enumerate(self.final) if i != self.winner
        )


@dataclass(frozen=True, slots=True)
class MatchResult:
    """How the match ended and the final scores (R9.6, A.4).

    ``winner`` and ``final`` are by seat, or by team in a partnership match (``teams``, R10.2:
    team 0 is seats 0 and 2, team 1 seats 1 and 3).
    """

    termination: Termination
    winner: int | None
    final: tuple[int, ...]
    games: tuple[GameScore, ...] = ()
    forfeit_seat: int | None = None  # None in a forfeit: every seat was at fault
    forfeit_rule: str | None = None
    forfeit_reason: str | None = None
    teams: bool = False
    # Every seat that forfeited, when more than one did (with three players, two may).
    forfeit_seats: tuple[int, ...] = ()

    @property
    def margin(self) -> int:
        """Winner's final score minus the best of the others' (R9.6); 0 without a winner.

        A forfeit's is never below 0: a seat that forfeits while ahead (R11.5) loses the match,
        and its lead is no debt of the winner's. The scores stay as they stood at the forfeit.
        """
        if self.winner is None:
            return 0
        best_other = max(f for i, f in enumerate(self.final) if i != self.winner)
        margin = self.final[self.winner] - best_other
        return max(0, margin) if self.termination is Termination.FORFEIT else margin

    def placings(self, players: int = 2) -> tuple[int, ...]:
        """Each seat's place, 1 the best, equal places shared; for standings of any size.

        The winner (or the winning team's seats) first; the others by final score, except that
        a seat that forfeited is behind every seat that did not (R11.5). Without a winner and
        without a forfeit, every seat shares first place.
        """
        forfeited = set(self.forfeit_seats)
        if self.forfeit_seat is not None:
            forfeited.add(self.forfeit_seat)
        if self.termination is Termination.FORFEIT and not forfeited:
            forfeited = set(range(players))  # every seat was at fault

        def team(seat: int) -> int:
            return seat % 2 if self.teams else seat

        if self.teams:
            forfeited |= {s for s in range(players) if team(s) in {team(f) for f in forfeited}}

        def key(seat: int) -> tuple[int, int, int]:
            won = self.winner is not None and team(seat) == self.winner
            score = 0 if self.termination is Termination.FORFEIT else self.final[team(seat)]
            return (seat in forfeited and not won, -int(won), -score)

        keys = [key(s) for s in range(players)]
        return tuple(1 + sum(other < mine for other in keys) for mine in keys)
