"""What three players and partnerships (§10) add to a match's messages: seats, tables, teams.

Every match (:class:`~referee.engine.game.Game`) plays two-player hands at one table or two, so
a seat's hand messages are those of a two-player hand in hand seats; these build the rest: who
plays where in MatchStart, every seat's or team's scores, and the HandEnd of a hand or a round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.convert import hand_end_pb, hand_result_pb
from referee.engine.cards import card_str
from referee.engine.game import Game
from referee.engine.hand import Hand
from referee.engine.outcomes import HandResult, RoundResult
from referee.faults import Fault
from referee.requests import seat_scores_pb
from referee.wire import ginrummy_pb2 as pb


def seat_in_match(
    start: pb.MatchStart, seat: int, names: Sequence[str], versions: Sequence[str]
) -> None:
    """Fill in the players, the names and (partnerships) the team and partner of ``seat``;
    the opponent is the next seat (the only one with two players)."""
    players = len(names)
    start.players = players
    start.player_names.extend(names)
    start.opponent_name = names[(seat + 1) % players]
    start.opponent_version = versions[(seat + 1) % players]
    start.team = seat % 2 if players == 4 else 0
    start.partner = (seat + 2) % 4 if players == 4 else -1


def match_scores(match: Game) -> list[pb.SeatScore]:
    """The running totals by seat: each its own, or with partnerships its team's."""
    totals = seat_scores_pb(match.scores, match.hands_won, match.extra_boxes)
    return [totals[match.team_of(s)] for s in range(match.players)]


def hand_ends(
    match: Game, results: Sequence[HandResult]
) -> list[tuple[tuple[int, ...], HandResult, pb.RefereeMessage]]:
    """For each finished hand, the seats to tell (its players, and a three-player match's
    sitting-out seat) and its HandEnd."""
    if match.players == 2:
        return [((0, 1), r, hand_end_pb(r, match_scores(match))) for r in results]
    round_result = match.round_results[-1] if match.teams else None
    return [
        (
            r.seats if match.teams else (0, 1, 2),
            r,
            group_hand_end(match, r, round_result),
        )
        for r in results
    ]


def group_hand_end(
    match: Game, result: HandResult, round_result: RoundResult | None
) -> pb.RefereeMessage:
    """The HandEnd of ``result``: its two players' scores by hand seat, and every seat's
    (three players) or team's and the round's (partnerships)."""
    totals = seat_scores_pb(match.scores, match.hands_won, match.extra_boxes)
    if match.teams:
        by_hand_seat = [totals[s % 2] for s in result.seats]
    else:
        by_hand_seat = [totals[s] for s in result.seats]
    message = hand_end_pb(result, by_hand_seat)
    end = message.hand_end
    if match.teams:
        end.team_scores.extend(totals)
    else:
        end.player_scores.extend(totals)
    if round_result is not None:
        hands = [r for r in match.hand_results if r.number in round_result.hands]
        end.round.CopyFrom(
            pb.RoundResult(
                round_number=round_result.number + 1,
                tables=[hand_result_pb(r) for r in sorted(hands, key=lambda r: r.table)],
                team_hand_points=list(round_result.won),
                points=round_result.points,
            )
        )
        if round_result.winner is not None:
            end.round.winning_team = round_result.winner
    return message


def tables_of(match: Game) -> list[tuple[int, tuple[int, int], Hand]]:
    """The hands in play: (table, match seats at hand seats 0 and 1, hand) for each table."""
    return [(t.number, t.seats, t.hand) for t in match.tables]


def seats_at(match: Game, hand: Hand) -> tuple[int, ...]:
    """The match seats playing ``hand``."""
    return next(t.seats for t in match.tables if t.hand is hand)


def deal_dict(hand: Hand, seats: tuple[int, int], table: int, players: int) -> dict[str, Any]:
    """A ``deal`` record (without ``type``); with 3 or 4 players also its seats and table."""
    return {
        "hand": hand.number + 1,
        "dealer": hand.dealer,
        "deck": [card_str(c) for c in hand.deck],
        "upcard": None if hand.upcard is None else card_str(hand.upcard),
        "knock_limit": hand.knock_limit,
        **({} if players == 2 else {"seats": list(seats), "table": table}),
    }


def forfeit_match(match: Game, faults: Sequence[Fault]) -> None:
    """End ``match`` on ``faults``, one per forfeiting seat, the first recorded first."""
    first = faults[0]
    if len(faults) == 1:
        match.forfeit([first.seat], first.rule, first.reason)
        return
    rules = ", ".join(dict.fromkeys(f.rule for f in faults))
    described = "; ".join(f.describe() for f in sorted(faults, key=lambda f: f.seat))
    seats = sorted(f.seat for f in faults)
    if match.players == 2:
        match.forfeit(seats, rules, f"both seats forfeit: {described}")
        return
    who = ", ".join(map(str, seats[:-1])) + f" and {seats[-1]}"
    match.forfeit(seats, rules, f"seats {who} forfeit: {described}")
