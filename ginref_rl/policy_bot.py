"""Any policy as a bot: a Python callable from observation and mask to action index, played
over the referee's protocol.

::

    python -m ginref_rl.policy_bot agents/ppo.py:policy [--form array|dict] [--name NAME]
    python -m ginref_rl.policy_bot mypackage.agent:policy --path /home/me/agents

``agents/ppo.py:policy`` (a file) or ``mypackage.agent:policy`` (a module found on
``sys.path``, which starts with ``--path`` directories and the working directory) names a
callable ``policy(observation, action_mask) -> int``: the observation in the environment's
array form (or dict form with ``--form dict``) and the ``int8`` mask over the 112 actions, both
as :class:`ginref_rl.environment.GinRummyEnv` gives them in training
(:mod:`ginref_rl.encoding`, :mod:`ginref_rl.actions`). A sandboxed bot sees the files and
directories its command names: name the policy by its file, or give ``--path``.

Every observation is built from the DecisionRequest the referee sent, and from nothing else:
the request's observation and its legal actions. The index the policy returns is answered with
the request's legal action of that index (a knock as listed, the referee arranging, R5.4); an
index the mask forbids is sent as that action all the same, and the referee treats it as it
treats any illegal action. Exit codes are :func:`sample_bots.client.run_bot`'s, and 2 when the
policy cannot be loaded.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ginref_rl.actions import (
    BIG_GIN,
    CHOOSE_DEAL,
    CHOOSE_NOT_DEAL,
    DECLARE_DEAD,
    DEFEND,
    DISCARD,
    DRAW_DISCARD,
    DRAW_STOCK,
    KNOCK,
    NUM_ACTIONS,
    PASS,
)
from referee.engine.cards import card_str, parse_card
from referee.engine.outcomes import Phase
from referee.engine.rules import Rules
from sample_bots.client import EXIT_CONFIG, Decide, pb, run_bot

# The encoding (numpy) is imported by the functions that encode: the reference and strong bots
# import this module for its action conversions, and numpy would add to their start-up time.
if TYPE_CHECKING:
    from ginref_rl.encoding import Seen

Policy = Callable[[Any, Any], Any]
"""``policy(observation, action_mask) -> action index``."""

_KINDS: dict[str, int] = {
    "draw_stock": DRAW_STOCK,
    "draw_discard": DRAW_DISCARD,
    "pass_offer": PASS,
    "declare_dead": DECLARE_DEAD,
    "big_gin": BIG_GIN,
    "defender_play": DEFEND,
}


def index_of_pb(action: pb.Action) -> int:
    """The action-space index of a wire action (its arrangement, if any, aside)."""
    kind = action.WhichOneof("kind")
    if kind == "discard":
        return DISCARD + parse_card(action.discard.card)
    if kind == "knock":
        return KNOCK + parse_card(action.knock.discard)
    if kind == "choose_deal":
        return CHOOSE_DEAL if action.choose_deal.deal else CHOOSE_NOT_DEAL
    if kind in _KINDS:
        return _KINDS[kind]
    raise ValueError(f"an action of no kind the action space has: {kind!r}")


def phase_of_pb(phase: int) -> Phase:
    """The engine phase of a wire phase (``PHASE_DRAW`` -> ``Phase.DRAW``)."""
    return Phase(pb.Phase.Name(phase).removeprefix("PHASE_").lower())


def seen_of_request(request: pb.DecisionRequest) -> Seen:
    """What the encoding reads, from a DecisionRequest alone, for any number of players: as
    :func:`ginref_rl.encoding.seen_of` reads the engine's observation of the same seat."""
    from ginref_rl.encoding import Seen

    obs = request.observation
    seat = obs.seat  # the hand seat: 0 or 1 (-1 sitting out, a seat never asked to decide)
    players = obs.players or 2  # 0: a referee older than the field, which means 2
    seats: tuple[tuple[int, bool, bool], ...] = ()
    if players == 2:
        dealer = obs.dealer == seat
        own, other = obs.scores[seat].points, obs.scores[1 - seat].points
    else:
        # Each seat's totals by match seat (three players) or by team (partnerships, R10.2);
        # `scores` holds only the two of the hand in play, by hand seat.
        teams = len(obs.team_scores) > 0
        totals = [s.points for s in (obs.team_scores if teams else obs.player_scores)]
        opponent = None if seat == -1 else obs.hand_players[1 - seat]
        seats = tuple(
            (totals[s % 2 if teams else s], s == opponent, s == obs.sitting_out)
            for s in ((obs.player + k) % players for k in range(players))
        )
        dealer = opponent is not None and obs.dealer == seat
        own, other = seats[0][0], 0 if opponent is None else obs.scores[1 - seat].points
    target = Rules.from_dict({"profile_name": obs.rules.profile, **obs.rules.params}).target
    return Seen(
        phase=phase_of_pb(obs.phase),
        hand=tuple(sorted(parse_card(c) for c in obs.hand)),
        opponent_known=tuple(sorted(parse_card(c) for c in obs.opponent_known_cards)),
        discard_pile=tuple(parse_card(c) for c in obs.discard_pile),
        stock_size=obs.stock_size,
        knock_limit=obs.knock_limit,
        taken=parse_card(obs.taken_card) if obs.taken_card else None,
        must_knock=obs.must_knock,
        dealer=dealer,
        scores=(own, other),
        target=target,
        legal=tuple(index_of_pb(a) for a in request.legal_actions),
        seats=seats,
    )


def action_of_index(index: int, request: pb.DecisionRequest) -> pb.Action:
    """The legal action of ``index`` in ``request``; for an index it does not list, that
    action as the referee would read it (it will refuse it)."""
    listed: list[pb.Action] = [a for a in request.legal_actions if index_of_pb(a) == index]
    if listed:
        return listed[0]
    if not 0 <= index < NUM_ACTIONS:
        raise ValueError(f"the policy answered {index}, not an action (0 to {NUM_ACTIONS - 1})")
    if index < KNOCK:
        return pb.Action(discard=pb.Discard(card=card_str(index)))
    if index < DRAW_STOCK:
        return pb.Action(knock=pb.Knock(discard=card_str(index - KNOCK)))
    if index in (CHOOSE_DEAL, CHOOSE_NOT_DEAL):
        return pb.Action(choose_deal=pb.ChooseDeal(deal=index == CHOOSE_DEAL))
    simple = {v: k for k, v in _KINDS.items()}[index]
    action = pb.Action()
    getattr(action, simple).SetInParent()
    return action


def policy_decide(policy: Policy, form: str = "array") -> Decide:
    """A bot's ``decide`` that asks ``policy`` with the environment's arrays."""
    from ginref_rl.encoding import action_mask, encode_array, encode_dict

    encode = encode_dict if form == "dict" else encode_array

    def decide(request: pb.DecisionRequest) -> pb.Action:
        seen = seen_of_request(request)
        index = policy(encode(seen), action_mask(seen.legal))
        return action_of_index(int(index), request)

    return decide


# referee.bots.sandbox.ENV_SANDBOX_DIRS, which a client may not import: set in a sandbox only.
ENV_SANDBOX_DIRS = "GINREF_SANDBOX_DIRS"


def sandbox_note(filename: str, denied: bool = False) -> str | None:
    """Why a file the policy reads may be out of reach in the sandbox, and how to show it (it
    was not found, or reading it was ``denied``); None outside a sandbox, or for a missing file
    of a directory the bot sees (it is missing, not hidden)."""
    shown = os.environ.get(ENV_SANDBOX_DIRS)
    if shown is None:
        return None
    path = Path(os.path.abspath(filename))
    if denied:
        return f"the sandbox runs this bot under a uid of its own: make {path} readable by all"
    dirs = [Path(d) for d in shown.split(os.pathsep) if d]
    if any(d in path.parents for d in dirs):
        return None
    seen = "".join(f"{d}, " for d in dirs)
    return (
        f"the sandbox shows this bot {seen}the system and ginref's packages, read-only, not "
        f"{path.parent}: show it with ginref match --bind {path.parent} (a tournament file: "
        "[sandbox] binds)"
    )


def _error_note(error: Exception) -> str:
    """``"; "`` and :func:`sandbox_note` of a file the policy's module failed to read, or
    nothing."""
    if isinstance(error, FileNotFoundError | PermissionError) and isinstance(error.filename, str):
        note = sandbox_note(error.filename, isinstance(error, PermissionError))
        return f"; {note}" if note else ""
    return ""


def load_policy(spec: str) -> Policy:
    """The callable ``module:attribute`` (or ``path/to/file.py:attribute``) names;
    ``ValueError`` says what is wrong."""
    module_name, sep, attribute = spec.rpartition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"{spec!r}: expected MODULE:CALLABLE, e.g. mypackage.agent:policy")
    if module_name.endswith(".py") or os.sep in module_name:
        # A file: imported as a top-level module from its own directory, so that the modules
        # beside it import too (and a sandbox shows a bot the files its command names).
        path = Path(module_name)
        if not path.is_file():
            note = sandbox_note(module_name)
            raise ValueError(f"{spec!r}: no file {module_name!r}" + (f"; {note}" if note else ""))
        sys.path.insert(0, str(path.resolve().parent))
        module_name = path.stem
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # the policy's own module failing to import is the user's to fix
        what = f"{type(exc).__name__}: {exc}"
        what += _error_note(exc)
        raise ValueError(f"{spec!r}: cannot import {module_name!r}: {what}") from None
    target: Any = module
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise ValueError(f"{spec!r}: {module_name!r} has no attribute {attribute!r}")
        target = getattr(target, part)
    if not callable(target):
        raise ValueError(f"{spec!r}: {attribute!r} is not callable")
    policy: Policy = target
    return policy


def main(argv: Sequence[str] | None = None) -> int:
    """Load the policy, then play with the launch environment; return the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m ginref_rl.policy_bot",
        description="Play a policy(observation, action_mask) -> index as a ginref bot.",
    )
    parser.add_argument("policy", help="MODULE:CALLABLE, e.g. mypackage.agent:policy")
    parser.add_argument("--form", choices=("array", "dict"), default="array")
    parser.add_argument("--name", default=None, help="the bot's name (default: the callable's)")
    parser.add_argument("--path", action="append", default=[], help="a directory to import from")
    args = parser.parse_args(argv)
    sys.path[:0] = [*args.path, "."]
    name = args.name or args.policy.rpartition(":")[2]
    try:
        policy = load_policy(args.policy)
    except ValueError as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    return run_bot(policy_decide(policy, args.form), name)


if __name__ == "__main__":
    sys.exit(main())
