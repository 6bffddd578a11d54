"""Replay logs of three-player (R10.1) and partnership (R10.2) matches, without a referee.

:func:`group_match_log` plays a :class:`~referee.engine.group.GroupMatch` with seeded random
legal actions (a knock or gin whenever one is legal, so that hands end) and writes its log in
the referee's format for three or four players (docs/replay-log.md): a header with a bot per
seat, a ``connected`` record per seat, a ``deal`` per hand (both tables' deals of a round one
after the other), the decisions by match seat, the hand results (with partnerships, both hands'
when the round ends, then a ``round_result``) and the match result with its placings and the
salt of the header's deal commitment. The records are spelled out here from the format's
description, apart from the two-player fields of a hand and match result (the referee's own
``hand_result_dict`` and ``match_result_dict``), so that the verifier's expectations are
checked against an independent spelling.

:func:`two_player_log` does the same for a two-player :class:`~referee.engine.match.Match`, in
a small fraction of the time a log through the referee's session takes.

A log is written through :class:`~referee.replay_log.ReplayLogWriter`, so the test suite's
schema check (tests/conftest.py) holds every record to the log's JSON Schema as it is written.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from referee.engine.actions import BigGin, Knock, action_to_dict
from referee.engine.cards import card_str
from referee.engine.group import GroupMatch
from referee.engine.hand import Hand
from referee.engine.match import Match
from referee.engine.outcomes import MatchResult, RoundResult
from referee.engine.rules import Rules
from referee.fairness import DealSeal, GivenDecks
from referee.faults import CONDUCT_RULE
from referee.replay_log import (
    ReplayLogWriter,
    hand_result_dict,
    header_dict,
    match_result_dict,
)

MOVE_MS = 1000
THINK_MS = 1.5
LABELS = ("ann", "bob", "cat", "dan")


def group_rules(players: int, profile: str = "standard", **overrides: Any) -> Rules:
    """A profile's rules for ``players`` (a low target by default, so that logs stay short)."""
    overrides.setdefault("target", 60 if players == 3 else 50)
    return Rules.profile(profile, players=players, **overrides)


def _deal(hand: Hand, seats: tuple[int, int], table: int) -> dict[str, Any]:
    return {
        "hand": hand.number + 1,
        "dealer": hand.dealer,
        "deck": [card_str(c) for c in hand.deck],
        "upcard": None if hand.upcard is None else card_str(hand.upcard),
        "knock_limit": hand.knock_limit,
        "seats": list(seats),
        "table": table,
    }


def _round(result: RoundResult) -> dict[str, Any]:
    return {
        "round": result.number + 1,
        "hands": [h + 1 for h in result.hands],
        "team_hand_points": list(result.won),
        "winner": result.winner,
        "points": result.points,
        "scores_after": list(result.scores_after),
    }


def _match_result(
    result: MatchResult, players: int, hands: int, kind: str | None, salt: bytes
) -> dict[str, Any]:
    record = match_result_dict(result, hands, kind)
    record["players"] = players
    record["placings"] = list(result.placings(players))
    if players == 4:
        record["teams"] = True
    if record["forfeit"] is not None:
        record["forfeit"]["seats"] = list(result.forfeit_seats)
    record["deal_salt"] = salt.hex()
    record["exits"] = [
        {"code": 0, "signal": None, "killed_by_referee": False, "reason": "exited with code 0"}
        for _ in range(players)
    ]
    return record


def group_match_log(
    path: Path,
    rules: Rules,
    *,
    seed: int = 1,
    choices: int = 1,
    forfeit_at: int | None = None,
    decks: GivenDecks | None = None,
) -> Path:
    """Play ``rules`` (3 or 4 players) from ``seed`` and write its log at ``path``.

    ``choices`` seeds the random choices. ``forfeit_at=n``: the seat asked the ``n``-th
    decision (1-based) does not answer but faults instead (``disconnected``) and forfeits.
    ``decks``: a deal file's, dealt first (the header's ``deck_source`` says so).
    """
    players = rules.players
    given = () if decks is None else decks.decks
    dealer = None if decks is None else decks.first_dealer
    match = GroupMatch(rules, seed, decks=given, first_dealer=dealer)
    seal = DealSeal(seed, decks=decks)
    rng = random.Random(choices)
    log = ReplayLogWriter(path)
    bots = [(s, LABELS[s], ["random_bot", str(s)], f"seat{s}.out") for s in range(players)]
    header = header_dict(
        path.stem, "2026-01-01T00:00:00.000+00:00", rules, seed, seal.commitment,
        (MOVE_MS, 0, 0), (1, 1), bots, None if decks is None else decks.header(),
    )  # fmt: skip
    log.write("header", **header)
    for seat in range(players):
        log.write("connected", seat=seat, name="random-bot", version="1.0")
    dealt: set[int] = set()
    written = rounds = 0
    request = [0] * players
    fault_kind: str | None = None

    def deal_new() -> None:
        for table in match.tables:
            if table.hand.number not in dealt:
                dealt.add(table.hand.number)
                log.write("deal", **_deal(table.hand, table.seats, table.number))

    deal_new()
    decisions = 0
    while match.result is None:
        seat = match.to_act
        assert seat is not None
        hand = match.hand
        request[seat] += 1
        decisions += 1
        if decisions == forfeit_at:
            fault_kind = "disconnected"
            log.write(
                "fault", hand=hand.number + 1, seat=seat, kind=fault_kind, rule=CONDUCT_RULE,
                reason="the bot has left", request_id=request[seat], retry=False, action=None,
                think_ms=THINK_MS,
            )  # fmt: skip
            match.forfeit([seat], CONDUCT_RULE, "the bot has left")
            break
        phase = match.phase
        legal = match.legal_actions()
        knocks = [a for a in legal if isinstance(a, Knock | BigGin)]
        action = knocks[0] if knocks else rng.choice(legal)
        match.apply(action)
        log.write(
            "decision", hand=hand.number + 1, seat=seat, phase=phase.value,
            request_id=request[seat], action=action_to_dict(action), think_ms=THINK_MS,
            bank_ms=0,
        )  # fmt: skip
        for result in match.hand_results[written:]:
            log.write("hand_result", **hand_result_dict(result), seats=list(result.seats),
                      table=result.table)  # fmt: skip
        written = len(match.hand_results)
        for finished in match.round_results[rounds:]:
            log.write("round_result", **_round(finished))
        rounds = len(match.round_results)
        if match.result is None:
            deal_new()
    assert match.result is not None
    record = _match_result(match.result, players, match.hands_dealt, fault_kind, seal.salt)
    log.write("match_result", **record)
    log.close()
    return path


def two_player_log(
    path: Path,
    rules: Rules,
    *,
    seed: int = 1,
    choices: int = 1,
    forfeit_at: int | None = None,
    labels: tuple[str, str] = (LABELS[0], LABELS[1]),
    decks: GivenDecks | None = None,
) -> Path:
    """Play ``rules`` (two players) from ``seed`` with seeded random legal actions (a knock or
    gin whenever one is legal) and write its log at ``path``, as :func:`group_match_log` does
    for three or four (``choices``, ``forfeit_at`` and ``decks`` alike); ``labels``: the seats'
    bots."""
    given = () if decks is None else decks.decks
    dealer = None if decks is None else decks.first_dealer
    match = Match(rules, seed, decks=given, first_dealer=dealer)
    seal = DealSeal(seed, decks=decks)
    rng = random.Random(choices)
    log = ReplayLogWriter(path)
    bots = [(s, labels[s], ["random_bot", str(s)], f"seat{s}.out") for s in range(2)]
    header = header_dict(
        path.stem, "2026-01-01T00:00:00.000+00:00", rules, seed, seal.commitment,
        (MOVE_MS, 0, 0), (1, 1), bots, None if decks is None else decks.header(),
    )  # fmt: skip
    log.write("header", **header)
    for seat in range(2):
        log.write("connected", seat=seat, name="random-bot", version="1.0")
    dealt = written = decisions = 0
    request = [0, 0]
    fault_kind: str | None = None

    def deal_new() -> None:
        nonlocal dealt
        hand = match.hand
        if hand is not None and hand.number == dealt:
            dealt += 1
            log.write(
                "deal", hand=hand.number + 1, dealer=hand.dealer,
                deck=[card_str(c) for c in hand.deck],
                upcard=None if hand.upcard is None else card_str(hand.upcard),
                knock_limit=hand.knock_limit,
            )  # fmt: skip

    deal_new()
    while match.result is None:
        seat = match.to_act
        assert seat is not None
        number = 0 if match.hand is None else match.hand.number + 1
        request[seat] += 1
        decisions += 1
        if decisions == forfeit_at:
            fault_kind = "disconnected"
            log.write(
                "fault", hand=number, seat=seat, kind=fault_kind, rule=CONDUCT_RULE,
                reason="the bot has left", request_id=request[seat], retry=False, action=None,
                think_ms=THINK_MS,
            )  # fmt: skip
            match.forfeit([seat], CONDUCT_RULE, "the bot has left")
            break
        phase = match.phase
        legal = match.legal_actions()
        knocks = [a for a in legal if isinstance(a, Knock | BigGin)]
        action = knocks[0] if knocks else rng.choice(legal)
        match.apply(action)
        log.write(
            "decision", hand=number, seat=seat, phase=phase.value, request_id=request[seat],
            action=action_to_dict(action), think_ms=THINK_MS, bank_ms=0,
        )  # fmt: skip
        for result in match.hand_results[written:]:
            log.write("hand_result", **hand_result_dict(result))
        written = len(match.hand_results)
        if match.result is None:
            deal_new()
    assert match.result is not None
    record = match_result_dict(match.result, match.hands_dealt, fault_kind)
    record["deal_salt"] = seal.salt.hex()
    record["exits"] = [
        {"code": 0, "signal": None, "killed_by_referee": False, "reason": "exited with code 0"}
        for _ in range(2)
    ]
    log.write("match_result", **record)
    log.close()
    return path
