"""What three players and partnerships (§10) add to a match's messages: seats, tables, teams.

A group match (:class:`~referee.engine.group.GroupMatch`) plays two-player hands, so a seat's
hand messages are those of a two-player match in hand seats; these build the rest: who plays
where in MatchStart, every seat's or team's scores, and the HandEnd of a hand or a round.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.convert import hand_end_pb, hand_result_pb
from referee.engine.group import GroupMatch
from referee.engine.match import Match
from referee.engine.outcomes import HandResult, RoundResult
from referee.requests import seat_scores_pb
from referee.wire import ginrummy_pb2 as pb


def seat_in_match(start: pb.MatchStart, seat: int, names: Sequence[str]) -> None:
    """Fill in the players, the names and (partnerships) the team and partner of ``seat``."""
    players = len(names)
    start.players = players
    start.player_names.extend(names)
    start.opponent_name = names[(seat + 1) % players]
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
