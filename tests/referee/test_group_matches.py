"""Matches of three players (R10.1) and partnerships (R10.2) through the real referee.

Real bot processes over gRPC. Every message to every seat is checked as it is written: a seat is
told only about the hand it plays (its own table; nothing while it sits out but the HandStart
and the HandEnd), and no message shows it a card hidden from it in that hand (tests/referee/
test_leak.py's rule, from its hand seat). The logs, the MatchEnd and the engine's result agree on
seats, tables, teams and placings; a fault forfeits for the seat, or for its whole team.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from referee.engine.hand import Hand
from referee.engine.rules import Rules
from referee.series import run_series_async
from referee.wire import ginrummy_pb2 as pb
from tests.referee.test_leak import card_strings, hidden_from
from tests.support.referee_helpers import FAST, bot, of_type, records

pytestmark = pytest.mark.slow  # real matches of three and four bot processes

DURING_A_HAND = {"decision_request", "event", "fault"}


class GroupChecker:
    """Checks every message to every seat of 3- and 4-player matches (see the module doc)."""

    def __init__(self) -> None:
        self.hand_seat: dict[int, int] = {}
        self.sent: dict[int, list[pb.RefereeMessage]] = defaultdict(list)
        self.problems: list[str] = []
        self.checked = 0
        self.with_hidden = 0  # messages checked against a non-empty set of hidden cards
        self.sitting_out_told = 0

    def __call__(self, seat: int, message: pb.RefereeMessage, hand: Hand | None) -> None:
        self.checked += 1
        kind = message.WhichOneof("kind") or ""
        copy = pb.RefereeMessage()
        copy.CopyFrom(message)
        self.sent[seat].append(copy)
        if kind == "hand_start":
            self.hand_seat[seat] = message.hand_start.hand_seat
        if kind in ("match_start", "match_end", "hand_end"):
            return  # no hand in play, or a finished one: public
        hand_seat = self.hand_seat.get(seat, -1)
        if hand is None or hand_seat < 0:
            # Sitting out: the HandStart's face-up upcard, nothing else, and no message in play.
            if kind in DURING_A_HAND:
                self.problems.append(f"seat {seat} was sent a {kind} while sitting out")
            shown = card_strings(message) - {message.hand_start.upcard}
            if shown:
                self.problems.append(f"seat {seat}, sitting out, saw {sorted(shown)}")
            self.sitting_out_told += 1
            return
        hidden = hidden_from(hand_seat, hand)
        self.with_hidden += bool(hidden)
        leaked = card_strings(message, frozenset({"last_hand_result"})) & hidden
        if leaked:
            self.problems.append(f"seat {seat} (hand seat {hand_seat}) saw {sorted(leaked)}")


def play(
    tmp_path: Path, players: int, profile: str, seeds: list[int], bots: list[Any] | None = None
) -> tuple[GroupChecker, Any]:
    checker = GroupChecker()
    rules = Rules.profile(profile, players=players)
    chosen = bots or [bot(), bot("first"), bot(), bot("first")][:players]
    series = asyncio.run(run_series_async(chosen, rules, seeds, tmp_path, FAST, on_send=checker))
    return checker, series


def test_three_players_see_only_their_own_hand_and_sit_out_blind(tmp_path: Path) -> None:
    checker, series = play(tmp_path, 3, "pagat", [21, 22, 23])
    assert checker.problems == [], checker.problems[:3]
    assert checker.checked > 500 and checker.with_hidden > 300
    assert checker.sitting_out_told > 0
    for match in series.matches:
        assert match.forfeit is None and match.result.winner is not None
        deals = of_type(match.log_path, "deal")
        for deal in deals:
            # R10.1: the dealer sits out; the seat after it is hand seat 0.
            dealer = 3 - sum(deal["seats"])
            assert deal["seats"] == [(dealer + 1) % 3, (dealer + 2) % 3]
            assert deal["dealer"] == 1 and deal["table"] == 0
        results = of_type(match.log_path, "hand_result")
        for before, after in zip(results, deals[1:], strict=False):
            winner = before["winner"]
            if winner is None:  # same dealer, same two
                assert after["seats"] == before["seats"]
            else:  # the loser deals: the winner plays the previous dealer
                loser = before["seats"][1 - winner]
                previous = 3 - sum(before["seats"])
                assert 3 - sum(after["seats"]) == loser
                assert set(after["seats"]) == {before["seats"][winner], previous}
        end = of_type(match.log_path, "match_result")[0]
        assert end["players"] == 3 and end["placings"] == list(match.result.placings(3))
        assert end["final"] == list(match.result.final) and len(end["final"]) == 3
    # Every seat was told of its seating, and of every player's score at each hand's end.
    for seat, messages in checker.sent.items():
        start = next(m.match_start for m in messages if m.WhichOneof("kind") == "match_start")
        assert start.players == 3 and start.seat == seat and len(start.player_names) == 3
        assert start.partner == -1
        ends = [m.hand_end for m in messages if m.WhichOneof("kind") == "hand_end"]
        assert ends and all(len(e.player_scores) == 3 and len(e.scores) == 2 for e in ends)
        last = next(m.match_end for m in reversed(messages) if m.WhichOneof("kind") == "match_end")
        assert last.result.players == 3 and len(last.result.placings) == 3


def test_partners_see_only_their_own_table_until_the_round_ends(tmp_path: Path) -> None:
    checker, series = play(tmp_path, 4, "standard", [31, 32, 33])
    assert checker.problems == [], checker.problems[:3]
    assert checker.checked > 500 and checker.with_hidden > 300
    for match in series.matches:
        assert match.forfeit is None and match.result.teams
        deals = of_type(match.log_path, "deal")
        for n, deal in enumerate(deals):
            rnd, table = divmod(n, 2)
            away = (1, 3) if rnd % 2 == 0 else (3, 1)
            assert deal["table"] == table and deal["seats"] == [2 * table, away[table]]
        rounds = of_type(match.log_path, "round_result")
        results = of_type(match.log_path, "hand_result")
        assert len(results) == 2 * len(rounds)
        for r in rounds:
            won = [0, 0]
            for result in results[2 * r["round"] - 2 : 2 * r["round"]]:
                if result["winner"] is not None:
                    won[result["seats"][result["winner"]] % 2] += result["points"]
            assert r["team_hand_points"] == won and r["points"] == abs(won[0] - won[1])
        end = of_type(match.log_path, "match_result")[0]
        assert end["teams"] is True and end["final"][end["winner"]] >= 125
        assert rounds[-1]["scores_after"][end["winner"]] >= 125
    for seat, messages in checker.sent.items():
        start = next(m.match_start for m in messages if m.WhichOneof("kind") == "match_start")
        assert start.team == seat % 2 and start.partner == (seat + 2) % 4
        ends = [m.hand_end for m in messages if m.WhichOneof("kind") == "hand_end"]
        assert ends and all(len(e.round.tables) == 2 and len(e.team_scores) == 2 for e in ends)
        for end_message in ends:
            mine = end_message.result
            assert seat in mine.hand_players
            assert list(mine.hand_players) == list(
                end_message.round.tables[mine.table].hand_players
            )
        # A seat is sent the HandStart of its own table only: one per round.
        starts = [m.hand_start for m in messages if m.WhichOneof("kind") == "hand_start"]
        assert all(seat in s.hand_players for s in starts)
        assert len(starts) == len(ends)
        final = next(m.match_end for m in reversed(messages) if m.WhichOneof("kind") == "match_end")
        assert final.result.HasField("winning_team") and not final.result.HasField("winner")


def test_a_partner_fault_forfeits_the_whole_team(tmp_path: Path) -> None:
    bots = [bot(), bot("first"), bot("notinhand"), bot("first")]
    _checker, series = play(tmp_path, 4, "standard", [41], bots)
    match = series.matches[0]
    assert match.forfeit is not None and match.forfeit.seat == 2
    assert match.result.teams and match.result.winner == 1  # seat 2 is in team 0
    assert match.result.placings(4) == (3, 1, 3, 1)
    end = of_type(match.log_path, "match_result")[0]
    assert end["forfeit"]["seats"] == [2] and end["winner"] == 1 and end["placings"] == [3, 1, 3, 1]


def test_a_three_player_forfeit_places_the_faulty_seat_last_and_nobody_first_alone(
    tmp_path: Path,
) -> None:
    bots = [bot(), bot("crash", 3), bot("first")]
    _checker, series = play(tmp_path, 3, "standard", [51], bots)
    match = series.matches[0]
    assert match.forfeit is not None and match.forfeit.seat == 1
    assert match.result.winner is None  # the other two are not beaten by one another
    assert match.result.placings(3) == (1, 3, 1)
    kinds = [r["type"] for r in records(match.log_path)]
    assert kinds[-1] == "match_result" and "fault" in kinds


def test_a_series_of_three_moves_every_bot_on_one_seat(tmp_path: Path) -> None:
    _checker, series = play(tmp_path, 3, "standard", [61, 62, 63])
    assert series.seats == ((0, 1, 2), (1, 2, 0), (2, 0, 1))


def test_the_checker_catches_a_partner_hand_and_a_sitting_out_peek() -> None:
    from referee.engine.group import GroupMatch
    from referee.engine.observation import observe_seat
    from referee.requests import hand_start_pb

    four = GroupMatch(Rules.profile("standard", players=4), 7)
    checker = GroupChecker()
    checker(0, hand_start_pb(observe_seat(four, 0)), four.tables[0].hand)
    planted = hand_start_pb(observe_seat(four, 0))
    partner = observe_seat(four, 2)  # at the other table
    planted.hand_start.ClearField("hand")
    planted.hand_start.hand.extend(hand_start_pb(partner).hand_start.hand)
    checker(0, planted, four.tables[0].hand)
    assert len(checker.problems) == 1 and "seat 0" in checker.problems[0]

    three = GroupMatch(Rules.profile("standard", players=3), 7)
    out = three.sitting_out
    assert out is not None
    checker = GroupChecker()
    checker(out, hand_start_pb(observe_seat(three, out)), None)
    assert checker.problems == []  # the upcard only
    player = three.tables[0].seats[0]
    checker(out, hand_start_pb(observe_seat(three, player)), None)
    assert checker.problems and "sitting out" in checker.problems[0]
