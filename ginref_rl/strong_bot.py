"""The strong bot: the strong player (:mod:`ginref_rl.strong_player`) as a bot process.

Run with ``python -m ginref_rl.strong_bot [--budget-ms MS] [--danger-weight W]
[--no-model-stock] [--always-knock]`` (the last three tune the opponent model's two uses, on by
default, and switch off the play for gin, :class:`~ginref_rl.strong_player.Tuning`). Its
decisions take a few milliseconds; it stops weighing further discards at ``--budget-ms``
(default 100 ms) after the request arrived, and never later than a quarter of the request's
``move_time_ms``, so it never touches its bank. The choice of dealer and the defender's play
are the greedy bot's (the referee's proposal: the least deadwood). Everything it reads is the
DecisionRequest: its cards, the discard pile, the opponent's known cards, the hand's events
(what the opponent took, passed and discarded), the phase and its legal actions. It keeps no
state between requests and is deterministic, unless the deadline cuts its evaluation short.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator, Sequence

from ginref_rl import reference_bot
from ginref_rl.opponent_model import history_of_events
from ginref_rl.strong_player import StrongView, Tuning, choose
from referee.engine.actions import Action
from referee.engine.cards import Card, parse_card
from sample_bots.client import EXIT_CONFIG, Decide, pb, run_bot

DEFAULT = Tuning()  # a slots dataclass: its class attributes are descriptors, not defaults
NAME = "strong-bot"
VERSION = "1.0.0"
# Whoever is to act, the opponent holds ten cards in a two-player hand (the eleventh card of
# the eleven-card deal is discarded before the other seat first acts).
OPPONENT_HAND = 10
# Wire event kinds the opponent model reads, by their engine names.
_KINDS = {
    "take_upcard": "take_upcard",
    "pass_offer": "pass",
    "draw_stock": "draw_stock",
    "draw_discard": "draw_discard",
    "discard": "discard",
    "knock": "knock",
}


def _card(text: str) -> Card | None:
    return parse_card(text) if text else None


def events_of_request(obs: pb.Observation) -> Iterator[tuple[int | None, str, Card | None]]:
    """The hand's events as ``(seat, kind, card)``, the kinds the opponent model reads."""
    for event in obs.events:
        kind = event.WhichOneof("kind")
        if kind not in _KINDS:
            continue
        card = getattr(event, kind).card if kind != "knock" and kind != "pass_offer" else ""
        yield event.seat, _KINDS[kind], _card(card)


def view_of_request(request: pb.DecisionRequest) -> StrongView:
    """The strong player's view, from a DecisionRequest alone."""
    obs = request.observation
    return StrongView(
        seen=reference_bot.view_of_request(request),
        opponent_hand_size=OPPONENT_HAND,
        history=history_of_events(events_of_request(obs), 1 - obs.seat, _card(obs.upcard)),
        stock_size=obs.stock_size,
    )


def make_decide(
    budget_ms: float = 100.0,
    clock: Callable[[], float] = time.monotonic,
    tuning: Tuning | None = None,
) -> Decide:
    """The strong bot's policy, done weighing discards ``budget_ms`` after each request."""

    def choose_by(request: pb.DecisionRequest, deadline: float) -> Action:
        return choose(view_of_request(request), tuning or Tuning(), deadline=deadline, clock=clock)

    return reference_bot.budgeted(choose_by, budget_ms, clock)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ginref_rl.strong_bot")
    parser.add_argument("--budget-ms", type=float, default=100.0, help="time per decision")
    parser.add_argument(
        "--danger-weight",
        type=float,
        default=DEFAULT.danger_weight,
        help=f"deadwood points a discard the opponent model says would meld costs "
        f"(default {DEFAULT.danger_weight:g}; 0: off)",
    )
    parser.add_argument(
        "--model-stock",
        action=argparse.BooleanOptionalAction,
        default=DEFAULT.weighted_stock,
        help="draw chances from the opponent model (--no-model-stock: uniform)",
    )
    parser.add_argument(
        "--always-knock",
        action="store_true",
        help="knock as soon as it may instead of playing for gin",
    )
    return parser


def tuning_of(args: argparse.Namespace) -> Tuning:
    """The tuning the parsed command line asks for."""
    return Tuning(
        danger_weight=args.danger_weight,
        weighted_stock=args.model_stock,
        hold_low=-1 if args.always_knock else DEFAULT.hold_low,
        hold_stock=DEFAULT.hold_stock,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Play with the launch environment; return the exit code."""
    args = _parser().parse_args(argv)
    if not args.budget_ms > 0:
        print(f"{NAME}: --budget-ms must be positive, got {args.budget_ms}", file=sys.stderr)
        return EXIT_CONFIG
    return run_bot(make_decide(args.budget_ms, tuning=tuning_of(args)), NAME, VERSION)


if __name__ == "__main__":
    sys.exit(main())
