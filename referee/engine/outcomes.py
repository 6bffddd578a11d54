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
    DEFENDER = "defender"  # R6 with defender_play = declared
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
    scores_after: tuple[int, int] = (0, 0)


@dataclass(frozen=True, slots=True)
class GameScore:
    """One game's settlement (A.4): the match, or each of Hollywood's three games."""

    winner: int
    hand_points: tuple[int, int]
    hands_won: tuple[int, int]
    extra_boxes: tuple[int, int]
    final: tuple[int, int]
    shutout: bool

    @property
    def margin(self) -> int:
        """Winner's final score minus the loser's (R9.6)."""
        return self.final[self.winner] - self.final[1 - self.winner]


@dataclass(frozen=True, slots=True)
class MatchResult:
    """How the match ended and the final scores (R9.6, A.4)."""

    termination: Termination
    winner: int | None
    final: tuple[int, int]
    games: tuple[GameScore, ...] = ()
    forfeit_seat: int | None = None  # None in a forfeit: both seats were at fault
    forfeit_rule: str | None = None
    forfeit_reason: str | None = None

    @property
    def margin(self) -> int:
        """Winner's final score minus the loser's (R9.6); 0 without a winner.

        A forfeit's is never below 0: a seat that forfeits while ahead (R11.5) loses the match,
        and its lead is no debt of the winner's. The scores stay as they stood at the forfeit.
        """
        if self.winner is None:
            return 0
        margin = self.final[self.winner] - self.final[1 - self.winner]
        return max(0, margin) if self.termination is Termination.FORFEIT else margin
