"""Scoring: the showdown (R8), payoffs (R8.7), games and their settlement (R9), next dealer.

:func:`score_showdown` and :func:`score_dead` decide what a finished hand is worth as one
:class:`HandScore`; :func:`hand_result` completes it with the hand's own facts. A
:class:`Scoreboard` enters hand wins into the match's game (or Hollywood's three, R9.8) and
settles them (:func:`settle_game`); :func:`next_dealer` says who deals next (R2.6, R2.7).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from referee.engine import layoffs as L
from referee.engine import melds as M
from referee.engine.hand import Hand
from referee.engine.outcomes import GameScore, HandOutcome, HandResult, MatchResult, Termination
from referee.engine.rules import Rules


@dataclass(frozen=True, slots=True)
class HandScore:
    """What a finished hand is worth: the part of its :class:`HandResult` scoring decides."""

    outcome: HandOutcome
    winner: int | None
    points: int
    extra_boxes: int = 0  # Oklahoma extra boxes (R9.7)
    doubled: bool = False  # R8.6
    knocker: int | None = None
    knocker_arrangement: M.Arrangement | None = None
    defender: L.DefenderPlay | None = None
    knocker_deadwood: int | None = None
    defender_deadwood: int | None = None
    dead_reason: str | None = None
    payoffs: tuple[float, float] = (0.0, 0.0)


def score_showdown(rules: Rules, hand: Hand, play: L.DefenderPlay) -> HandScore:
    """R8: score the knock (or gin) of ``hand`` against the defender's ``play``."""
    knock = hand.knock
    assert knock is not None
    knocker, kind, arrangement = knock.knocker, knock.kind, knock.arrangement
    k = arrangement.deadwood_count
    d = play.deadwood_count
    winner: int | None
    if kind is HandOutcome.GIN:
        winner, points, outcome = knocker, rules.gin_bonus + d, HandOutcome.GIN
    elif kind is HandOutcome.BIG_GIN:
        assert rules.big_gin_bonus is not None
        winner, points, outcome = knocker, rules.big_gin_bonus + d, HandOutcome.BIG_GIN
    elif k < d:
        winner, points, outcome = knocker, d - k, HandOutcome.KNOCK
    elif d < k or rules.undercut_on_tie:
        winner, points, outcome = 1 - knocker, rules.undercut_bonus + k - d, HandOutcome.UNDERCUT
    else:
        winner, points, outcome = None, 0, HandOutcome.PUSH
    upcard = hand.upcard
    doubled = rules.spade_double and upcard is not None and upcard // 13 == 3 and winner is not None
    if doubled:
        points *= 2
    extra = 0
    if rules.oklahoma_extra_boxes and outcome is not HandOutcome.KNOCK and winner is not None:
        extra = 1 if outcome is HandOutcome.UNDERCUT else 2
        if doubled:
            extra *= 2
    return HandScore(
        outcome,
        winner,
        points,
        extra_boxes=extra,
        doubled=doubled,
        knocker=knocker,
        knocker_arrangement=arrangement,
        defender=play,
        knocker_deadwood=k,
        defender_deadwood=d,
        payoffs=payoffs(rules, hand, outcome, winner, points, knocker),
    )


def score_dead(rules: Rules, hand: Hand, reason: str) -> HandScore:
    """A dead hand (§7, R4.5): nobody scores."""
    payoff = payoffs(rules, hand, HandOutcome.DEAD, None, 0, None)
    return HandScore(HandOutcome.DEAD, None, 0, dead_reason=reason, payoffs=payoff)


def payoffs(
    rules: Rules,
    hand: Hand,
    outcome: HandOutcome,
    winner: int | None,
    points: int,
    knocker: int | None,
) -> tuple[float, float]:
    """The hand's return to each seat under ``payoff`` (R8.7, §12.6)."""
    mode = rules.payoff
    if mode == "rlcard_shaped":
        values = [-M.min_deadwood(hand.held(s)) / 100 for s in (0, 1)]
        if knocker is not None:
            values[knocker] = 1.0 if outcome in (HandOutcome.GIN, HandOutcome.BIG_GIN) else 0.2
        return values[0], values[1]
    if winner is None:
        return 0.0, 0.0
    other = 0.0 if mode == "points" else float(-points)
    return (float(points), other) if winner == 0 else (other, float(points))


def hand_result(hand: Hand, score: HandScore, scores_after: tuple[int, int]) -> HandResult:
    """The whole record of ``hand``, which ``score`` ended with ``scores_after`` (R9.1)."""
    return HandResult(
        number=hand.number,
        dealer=hand.dealer,
        outcome=score.outcome,
        winner=score.winner,
        points=score.points,
        knocker=score.knocker,
        knock_discard=hand.knock_discard,
        knocker_arrangement=score.knocker_arrangement,
        defender=score.defender,
        knocker_deadwood=score.knocker_deadwood,
        defender_deadwood=score.defender_deadwood,
        doubled=score.doubled,
        extra_boxes=score.extra_boxes,
        dead_reason=score.dead_reason,
        payoffs=score.payoffs,
        final_hands=(hand.cards_of(0), hand.cards_of(1)),
        scores_after=scores_after,
    )


def next_dealer(rules: Rules, dealer: int, winner: int | None) -> int:
    """Who deals the hand after one dealt by ``dealer`` and won by ``winner`` (R2.6, R2.7)."""
    if winner is None:
        return dealer if rules.dead_hand_dealer == "same_dealer" else 1 - dealer
    if rules.dealer_rotation == "alternate":
        return 1 - dealer
    if rules.dealer_rotation == "loser_deals":
        return 1 - winner
    return winner


@dataclass(slots=True)
class _Tally:
    """Running score of one game (a Hollywood game or the whole match)."""

    points: list[int] = field(default_factory=lambda: [0, 0])
    hands_won: list[int] = field(default_factory=lambda: [0, 0])
    extra_boxes: list[int] = field(default_factory=lambda: [0, 0])
    settled: GameScore | None = None

    def copy(self) -> _Tally:
        return _Tally(list(self.points), list(self.hands_won), list(self.extra_boxes), self.settled)

    def key(self) -> tuple[object, ...]:
        return (tuple(self.points), tuple(self.hands_won), tuple(self.extra_boxes), self.settled)


class Scoreboard:
    """The games of a match: one, or Hollywood's three (R9.8); read-only outside the engine."""

    __slots__ = ("_hollywood", "_tallies")

    def __init__(self, hollywood: bool) -> None:
        self._hollywood = hollywood
        self._tallies = [_Tally() for _ in range(3 if hollywood else 1)]

    @property
    def points(self) -> tuple[int, int]:
        """Cumulative hand points of the first game (the match's only one without Hollywood)."""
        points = self._tallies[0].points
        return points[0], points[1]

    @property
    def hands_won(self) -> tuple[int, int]:
        """Hands won in the first game."""
        won = self._tallies[0].hands_won
        return won[0], won[1]

    @property
    def extra_boxes(self) -> tuple[int, int]:
        """Oklahoma extra boxes earned in the first game (R9.7)."""
        extra = self._tallies[0].extra_boxes
        return extra[0], extra[1]

    @property
    def game_points(self) -> tuple[tuple[int, int], ...]:
        """Hollywood: each game's hand points; empty without Hollywood."""
        if not self._hollywood:
            return ()
        return tuple((t.points[0], t.points[1]) for t in self._tallies)

    @property
    def settled(self) -> tuple[GameScore | None, ...]:
        """Each game's settlement, ``None`` while it is open."""
        return tuple(t.settled for t in self._tallies)

    def copy(self) -> Scoreboard:
        """An independent copy."""
        other = Scoreboard.__new__(Scoreboard)
        other._hollywood = self._hollywood
        other._tallies = [t.copy() for t in self._tallies]
        return other

    def key(self) -> tuple[object, ...]:
        """The whole score as a hashable value."""
        return tuple(t.key() for t in self._tallies)

    def _enter(self, rules: Rules, score: HandScore) -> None:
        """Credit a hand's winner in the games it counts for."""
        winner = score.winner
        if winner is None:
            return
        for tally in self._tallies_for(winner):
            tally.points[winner] += score.points
            tally.hands_won[winner] += 1
            tally.extra_boxes[winner] += score.extra_boxes
            if rules.boxes_count_toward_target:
                tally.points[winner] += rules.box_bonus * (1 + score.extra_boxes)

    def _tallies_for(self, winner: int) -> list[_Tally]:
        """The games a hand win is entered in: one, or Hollywood's rule (R9.8)."""
        if not self._hollywood:
            return self._tallies
        out: list[_Tally] = []
        first_open = True
        previous: _Tally | None = None
        for tally in self._tallies:
            if tally.settled is None:
                # A game takes the score if it is the first one still open, or if this player
                # has already scored in the game before it (RG's rule, shutouts included).
                if first_open or (previous is not None and previous.points[winner] > 0):
                    out.append(tally)
                first_open = False
            previous = tally
        return out

    def _settle(self, rules: Rules) -> MatchResult | None:
        """Settle every game whose target is reached; the match result once all are done."""
        tallies = self._tallies
        for tally in tallies:
            if tally.settled is None:
                for seat in (0, 1):
                    if tally.points[seat] >= rules.target:
                        tally.settled = settle_game(
                            rules, tally.points, tally.hands_won, tally.extra_boxes, seat
                        )
        if any(t.settled is None for t in tallies):
            return None
        games = tuple(t.settled for t in tallies if t.settled is not None)
        final = (sum(g.final[0] for g in games), sum(g.final[1] for g in games))
        if self._hollywood:
            winner = None if final[0] == final[1] else (0 if final[0] > final[1] else 1)
            return MatchResult(Termination.HOLLYWOOD, winner, final, games)
        return MatchResult(Termination.TARGET, games[0].winner, final, games)


@dataclass(frozen=True, slots=True)
class Term:
    """One term of a seat's final game score (R9.6, A.4): ``points`` for ``what``."""

    what: str  # hand_points, boxes_in_hand_points, shutout_hand_points, game_bonus,
    # shutout_game_bonus, boxes, extra_boxes, shutout_total
    points: int
    count: int = 0  # hands won or extra boxes, for the box terms
    each: int = 0  # the box bonus, for the box terms


def final_terms(
    rules: Rules,
    points: Sequence[int],
    hands_won: Sequence[int],
    extra_boxes: Sequence[int],
    winner: int,
) -> tuple[tuple[Term, ...], ...]:
    """Each seat's final score of a game won by ``winner``, term by term (R9.3-R9.6, A.4).

    The terms add up to the final scores :func:`settle_game` gives (it adds them up). With
    ``boxes_count_toward_target`` the boxes were credited into the hand points as each hand was
    won; they are shown apart (``boxes_in_hand_points``), not counted again. With three players
    (R10.1) the shutout applies once for each other player with no points (its ``count``).
    """
    shutouts = sum(1 for seat, p in enumerate(points) if seat != winner and p == 0)
    box = rules.box_bonus
    out: list[tuple[Term, ...]] = []
    for seat in range(len(points)):
        terms: list[Term] = []
        won, extra = hands_won[seat], extra_boxes[seat]
        hand = points[seat]
        if rules.boxes_count_toward_target and box and won + extra:
            credited = box * (won + extra)
            terms.append(Term("hand_points", hand - credited))
            terms.append(Term("boxes_in_hand_points", credited, won + extra, box))
        else:
            terms.append(Term("hand_points", hand))
        if seat == winner:
            if shutouts and rules.shutout == "hand_points_doubled":
                terms.append(Term("shutout_hand_points", hand * shutouts, shutouts))
            if rules.game_bonus:
                terms.append(Term("game_bonus", rules.game_bonus))
                if shutouts and rules.shutout == "game_bonus_doubled":
                    terms.append(Term("shutout_game_bonus", rules.game_bonus * shutouts, shutouts))
        if not rules.boxes_count_toward_target and box:
            if won:
                terms.append(Term("boxes", box * won, won, box))
            if extra:
                terms.append(Term("extra_boxes", box * extra, extra, box))
        if seat == winner and shutouts and rules.shutout == "total_doubled":
            terms.append(Term("shutout_total", sum(t.points for t in terms) * shutouts, shutouts))
        out.append(tuple(terms))
    return tuple(out)


def settle_game(
    rules: Rules,
    points: Sequence[int],
    hands_won: Sequence[int],
    extra_boxes: Sequence[int],
    winner: int,
) -> GameScore:
    """Final scores of a game won by ``winner`` (R9.3-R9.6, A.4): the sums of its
    :func:`final_terms`."""
    terms = final_terms(rules, points, hands_won, extra_boxes, winner)
    return GameScore(
        winner,
        tuple(points),
        tuple(hands_won),
        tuple(extra_boxes),
        tuple(sum(t.points for t in seat_terms) for seat_terms in terms),
        any(p == 0 for seat, p in enumerate(points) if seat != winner),
    )
