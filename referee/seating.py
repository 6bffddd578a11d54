"""What three players and partnerships (§10) add to a match's messages: seats, tables, teams.

A group match (:class:`~referee.engine.group.GroupMatch`) plays two-player hands, so a seat's
hand messages are those of a two-player match in hand seats; these build the rest: who plays
where in MatchStart, every seat's or team's scores, and the HandEnd of a hand or a round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from referee.convert import hand_end_pb, hand_result_pb
from referee.engine.cards import card_str
from referee.engine.group import GroupMatch
from referee.engine.hand import Hand
from referee.engine.match import Match
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


def match_scores(match: Match | GroupMatch) -> list[pb.SeatScore]:
    """The running totals by seat: each its own, or with partnerships its team's."""
    if isinstance(match, Match):
        board = match.board
        return seat_scores_pb(board.points, board.hands_won, board.extra_boxes)
    teams = seat_scores_pb(match.scores, match.hands_won, match.extra_boxes)
    if not match.teams:
        return teams
    return [teams[s % 2] for s in range(match.players)]


def hand_ends(
    match: Match | GroupMatch, results: Sequence[HandResult]
) -> list[tuple[tuple[int, ...], HandResult, pb.RefereeMessage]]:
    """For each finished hand, the seats to tell (its players, and a three-player match's
    sitting-out seat) and its HandEnd."""
    if isinstance(match, Match):
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
    match: GroupMatch, result: HandResult, round_result: RoundResult | None
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


def tables_of(match: Match | GroupMatch) -> list[tuple[int, tuple[int, int], Hand]]:
    """The hands in play: (table, match seats at hand seats 0 and 1, hand) for each table."""
    if isinstance(match, Match):
        return [] if match.hand is None else [(0, (0, 1), match.hand)]
    return [(t.number, t.seats, t.hand) for t in match.tables]


def seats_at(match: Match | GroupMatch, hand: Hand) -> tuple[int, ...]:
    """The match seats playing ``hand``."""
    if isinstance(match, Match):
        return (0, 1)
    return next(seats for _, seats, h in tables_of(match) if h is hand)


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


def forfeit_match(match: Match | GroupMatch, faults: Sequence[Fault]) -> None:
    """End ``match`` on ``faults``, one per forfeiting seat, the first recorded first."""
    first = faults[0]
    if len(faults) == 1:
        if isinstance(match, Match):
            match.forfeit(first.seat, first.rule, first.reason)
        else:
            match.forfeit([first.seat], first.rule, first.reason)
        return
    rules = ", ".join(dict.fromkeys(f.rule for f in faults))
    described = "; ".join(f.describe() for f in sorted(faults, key=lambda f: f.seat))
    if isinstance(match, Match):
        match.forfeit(None, rules, f"both seats forfeit: {described}")
        return
    seats = sorted(f.seat for f in faults)
    who = ", ".join(map(str, seats[:-1])) + f" and {seats[-1]}"
    match.forfeit(seats, rules, f"seats {who} forfeit: {described}")
