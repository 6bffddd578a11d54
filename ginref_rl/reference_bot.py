"""The reference bot: the look-ahead player (:mod:`ginref_rl.lookahead`) as a bot process.

Run with ``python -m ginref_rl.reference_bot [--budget-ms MS]``. Its decisions take a few
milliseconds; it stops weighing further discards at ``--budget-ms`` (default 100 ms) after the
request arrived, and never later than a quarter of the request's ``move_time_ms``, so it never
touches its bank. The choice of dealer and the defender's play are the greedy bot's.
Everything it reads is the DecisionRequest: its observation (its cards, the discard pile, the
opponent's known cards, the phase) and its legal actions. It is deterministic: the same request
gets the same answer, unless the deadline cuts its evaluation short.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence

from ginref_rl.actions import (
    BIG_GIN,
    DECLARE_DEAD,
    DISCARD,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCK,
    PASS,
    index_of,
)
from ginref_rl.lookahead import View, choose
from ginref_rl.policy_bot import action_of_index, index_of_pb, phase_of_pb
from referee.engine.actions import (
    Action,
    BigGin,
    DeclareDead,
    Discard,
    DrawDiscard,
    DrawStock,
    Knock,
    Pass,
)
from referee.engine.cards import mask_of, parse_card
from referee.engine.outcomes import Phase
from sample_bots import greedy_bot
from sample_bots.client import EXIT_CONFIG, Decide, pb, run_bot

NAME = "reference-bot"
VERSION = "1.0.0"
# The phases the look-ahead player decides; the others are the greedy bot's.
PLAYED = frozenset({Phase.UPCARD_OFFER, Phase.DRAW, Phase.DISCARD, Phase.WALL})


def engine_action(index: int) -> Action:
    """The engine action of an index of the phases the look-ahead player decides."""
    if index < KNOCK:
        return Discard(index - DISCARD)
    if index < DRAW_STOCK:
        return Knock(index - KNOCK)
    simple: dict[int, Action] = {
        DRAW_STOCK: DrawStock(),
        DRAW_DISCARD: DrawDiscard(),
        PASS: Pass(),
        DECLARE_DEAD: DeclareDead(),
        BIG_GIN: BigGin(),
    }
    return simple[index]


def view_of_request(request: pb.DecisionRequest) -> View:
    """The look-ahead player's view, from a DecisionRequest alone."""
    obs = request.observation
    return View(
        phase=phase_of_pb(obs.phase),
        hand=mask_of(parse_card(c) for c in obs.hand),
        discard_pile=tuple(parse_card(c) for c in obs.discard_pile),
        opponent_known=mask_of(parse_card(c) for c in obs.opponent_known_cards),
        legal=tuple(engine_action(index_of_pb(a)) for a in request.legal_actions),
    )


def budgeted(
    choose_by: Callable[[pb.DecisionRequest, float], Action],
    budget_ms: float = 100.0,
    clock: Callable[[], float] = time.monotonic,
) -> Decide:
    """A look-ahead bot's policy: ``choose_by(request, deadline)`` decides the draws, discards
    and knocks, done weighing ``budget_ms`` after each request (never later than a quarter of
    its move time); the greedy bot answers the rest and a request with one legal action."""

    def decide(request: pb.DecisionRequest) -> pb.Action:
        start = clock()
        phase = phase_of_pb(request.observation.phase)
        if len(request.legal_actions) == 1 or phase not in PLAYED:
            return greedy_bot.decide(request)
        budget = budget_ms
        if request.move_time_ms > 0:
            budget = min(budget, request.move_time_ms / 4)
        action = choose_by(request, start + budget / 1000)
        return action_of_index(index_of(action), request)

    return decide


def make_decide(budget_ms: float = 100.0, clock: Callable[[], float] = time.monotonic) -> Decide:
    """The reference bot's policy, done weighing discards ``budget_ms`` after each request."""

    def choose_by(request: pb.DecisionRequest, deadline: float) -> Action:
        return choose(view_of_request(request), deadline=deadline, clock=clock)

    return budgeted(choose_by, budget_ms, clock)


def main(argv: Sequence[str] | None = None) -> int:
    """Play with the launch environment; return the exit code."""
    parser = argparse.ArgumentParser(prog="python -m ginref_rl.reference_bot")
    parser.add_argument("--budget-ms", type=float, default=100.0, help="time per decision")
    args = parser.parse_args(argv)
    if not args.budget_ms > 0:
        print(f"{NAME}: --budget-ms must be positive, got {args.budget_ms}", file=sys.stderr)
        return EXIT_CONFIG
    return run_bot(make_decide(args.budget_ms), NAME, VERSION)


if __name__ == "__main__":
    sys.exit(main())
