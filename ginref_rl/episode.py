"""One match played index by index: what the PettingZoo environment and the batch both step.

An :class:`Episode` holds the engine's game, the stream of match seeds (a reset without a seed
takes the next seed of the stream started by the last seed given), the legal mask of the
position and the rewards of the step just played (``"hand"``, ``"payoff"`` or ``"match"``, as
the environment's docstring says). It needs numpy alone, not PettingZoo.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Literal, NamedTuple

from ginref_rl.actions import NUM_ACTIONS, action_at, action_name, legal_mask
from referee.engine.cards import Card
from referee.engine.game import Game, new_game
from referee.engine.outcomes import HandResult, MatchResult
from referee.engine.rules import Rules

Reward = Literal["hand", "payoff", "match"]
REWARDS: tuple[str, ...] = ("hand", "payoff", "match")
# Seeds drawn for a reset without one stay within what a referee's match seed can be.
_SEED_BITS = 63


def rules_of(rules: Rules | str, players: int | None = None) -> Rules:
    """A profile name (with ``players``, if given) or a Rules value as the rules to play."""
    if isinstance(rules, str):
        return Rules.profile(rules) if players is None else Rules.profile(rules, players=players)
    if players is not None and players != rules.players:
        raise ValueError(f"players = {players}, but the rules given are for {rules.players}")
    return rules


def hand_rewards(result: HandResult, reward: Reward, players: int) -> list[float]:
    """Each seat's reward for one hand: its points (or payoff) to the two seats that played it,
    and with partnerships to their teams."""
    out = [0.0] * players
    if reward == "match":
        return out
    for hand_seat, seat in enumerate(result.seats):
        if reward == "payoff":
            value = result.payoffs[hand_seat]
        elif result.winner is None:
            value = 0.0
        else:
            value = float(result.points if result.winner == hand_seat else -result.points)
        if players == 4:
            out[seat] = out[(seat + 2) % 4] = value
        else:
            out[seat] = value
    return out


def match_rewards(result: MatchResult, players: int) -> list[float]:
    """Each seat's ``"match"`` reward: +1 to the winner (seat or team), -1 shared by the rest."""
    winner = result.winner
    if winner is None:
        return [0.0] * players
    if result.teams:
        return [1.0 if s % 2 == winner else -1.0 for s in range(players)]
    return [1.0 if s == winner else -1.0 / (players - 1) for s in range(players)]


class Played(NamedTuple):
    """What one step ended: each seat's reward (None when all are 0), the hands, the match."""

    rewards: list[float] | None
    hands: Sequence[HandResult]
    result: MatchResult | None


_NOTHING = Played(None, (), None)


class Episode:
    """A match under ``rules``, stepped by action index; :meth:`reset` starts each one."""

    def __init__(self, rules: Rules, reward: Reward = "hand") -> None:
        if reward not in REWARDS:
            raise ValueError(f"reward = {reward!r} is not one of: {', '.join(REWARDS)}")
        self.rules = rules
        self.reward = reward
        self.players = rules.players
        self._seeds = random.Random()
        self.game: Game | None = None
        self.seed: int | None = None
        self._mask: bytes | None = None  # the legal mask of the position, once asked

    def reset(
        self,
        seed: int | None = None,
        decks: Sequence[Sequence[Card]] = (),
        first_dealer: int | None = None,
    ) -> Game:
        """Deal a match seeded ``seed``, else the next seed of the stream of the last seed."""
        if seed is not None:
            self._seeds = random.Random(seed)
            self.seed = seed
        else:
            self.seed = self._seeds.getrandbits(_SEED_BITS)
        self.game = new_game(self.rules, self.seed, decks=decks, first_dealer=first_dealer)
        self._mask = None
        return self.game

    def started(self) -> Game:
        """The match in play."""
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game

    def mask(self) -> bytes:
        """The legal mask of the seat to act, one byte per index (computed once a position)."""
        if self._mask is None:
            self._mask = legal_mask(self.game or self.started())
        return self._mask

    def play(self, index: int) -> Played:
        """Apply the action ``index`` for the seat to act; ``ValueError`` if it is not legal
        (nothing changes then)."""
        game = self.game or self.started()
        mask = self._mask or self.mask()
        if not (0 <= index < NUM_ACTIONS and mask[index]):
            what = action_name(index) if 0 <= index < NUM_ACTIONS else "not an action"
            raise ValueError(f"action {index} ({what}) is not legal now")
        hands = len(game.hand_results)
        game.apply(action_at(game, index))
        self._mask = None
        if len(game.hand_results) == hands and game.result is None:
            return _NOTHING  # most steps end nothing
        ended = game.hand_results[hands:]
        rewards = [0.0] * self.players
        for r in ended:
            for seat, value in enumerate(hand_rewards(r, self.reward, self.players)):
                rewards[seat] += value
        if game.result is not None and self.reward == "match":
            rewards = match_rewards(game.result, self.players)
        return Played(rewards, ended, game.result)
