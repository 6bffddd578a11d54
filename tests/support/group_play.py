"""Matches of three players and partnerships (§10) played in-process by the sample bots' policies.

Each decision is the wire DecisionRequest the referee would send the seat to act (its
observation from :func:`~referee.engine.observation.observe_seat`, in hand seats), answered by
that seat's policy and applied to the engine: the bots' own code, without processes or sockets,
so that many matches fit in a test or a benchmark.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from referee.convert import EventEncoder, action_from_pb
from referee.engine.cards import parse_cards
from referee.engine.group import GroupMatch
from referee.engine.observation import observe_seat
from referee.engine.outcomes import MatchResult
from referee.engine.rules import Rules
from referee.requests import decision_request_pb
from referee.wire import ginrummy_pb2 as pb

Policy = Callable[[pb.DecisionRequest], pb.Action]


def request_for(match: GroupMatch, seat: int) -> pb.DecisionRequest:
    """The DecisionRequest of match seat ``seat``, which must be the seat to act."""
    obs = observe_seat(match, seat)
    message = decision_request_pb(obs, EventEncoder(obs.seat), 1, 10_000, 10_000, 0)
    return message.decision_request


def play_group(
    rules: Rules,
    seed: int,
    policies: Sequence[Policy],
    on_request: Callable[[int, pb.DecisionRequest, pb.Action], None] | None = None,
) -> MatchResult:
    """Play a whole match, ``policies[s]`` deciding for match seat ``s``; its result.

    Every answer is applied as the referee applies a reply (an illegal one raises).
    ``on_request(seat, request, action)`` sees each decision.
    """
    match = GroupMatch(rules, seed)
    while match.result is None:
        seat = match.to_act
        assert seat is not None
        request = request_for(match, seat)
        action = policies[seat](request)
        if on_request is not None:
            on_request(seat, request, action)
        match.apply(action_from_pb(action, parse_cards(" ".join(request.observation.hand))))
    return match.result
