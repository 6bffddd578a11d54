"""A PettingZoo environment (AEC API) over the engine: Gin Rummy under any rule profile.

::

    from ginref_rl import env

    e = env("oklahoma")                # or env(Rules.profile("pagat", target=50))
    e.reset(seed=7)                    # the match seed: the deals of a referee match seeded 7
    for agent in e.agent_iter():
        observation, reward, terminated, truncated, info = e.last()
        if terminated or truncated:
            action = None
        else:
            mask = observation["action_mask"]
            action = int(e.action_space(agent).sample(mask))
        e.step(action)

Agents are ``player_0`` and ``player_1``, the engine's seats 0 and 1; the match decides who
acts (a seat draws and then discards: two steps in a row). Observations are
``{"observation": ..., "action_mask": int8[112]}``: the array form or the dict form of
:mod:`ginref_rl.encoding`, and the mask over the actions of :mod:`ginref_rl.actions`. A step
with an index the mask does not allow raises ``ValueError`` and changes nothing.

Rewards (``reward=``), given on the step that ends a hand or the match:

- ``"hand"`` (default): the points the hand scored to its winner, their negation to the loser;
  0 to both for a dead hand or a push. Zero-sum.
- ``"payoff"``: the profile's own payoff of the hand (R8.7, §12.6): with the ``openspiel`` and
  ``rlcard`` profiles, what those environments return.
- ``"match"``: +1 to the match's winner and -1 to the loser when the match ends, 0 otherwise.

Every agent's ``info`` carries ``hand_result`` (a :class:`~referee.engine.outcomes.HandResult`)
after the step that ended a hand, and ``match_result`` after the step that ended the match.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar, Literal

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from ginref_rl.actions import NUM_ACTIONS, action_name, index_of
from ginref_rl.encoding import (
    FULL_STOCK,
    OPPONENT_SCORE,
    OWN_SCORE,
    PHASES,
    SIZE,
    action_mask,
    encode_array,
    encode_dict,
    seen_in,
    seen_of,
)
from referee.engine.actions import Action
from referee.engine.cards import cards_str
from referee.engine.match import Match
from referee.engine.observation import observe
from referee.engine.outcomes import HandResult
from referee.engine.rules import Rules

Reward = Literal["hand", "payoff", "match"]
ObservationForm = Literal["array", "dict"]
REWARDS: tuple[str, ...] = ("hand", "payoff", "match")
FORMS: tuple[str, ...] = ("array", "dict")
AGENTS = ("player_0", "player_1")
# Seeds drawn for a reset without one stay within what a referee's match seed can be.
_SEED_BITS = 63


def observation_space(form: ObservationForm) -> spaces.Dict:
    """The space of one agent's observations in ``form``."""
    if form == "array":
        low = np.zeros(SIZE, dtype=np.float32)
        high = np.ones(SIZE, dtype=np.float32)
        high[OWN_SCORE] = high[OPPONENT_SCORE] = np.inf  # past the target when the match ends
        observation: spaces.Space[Any] = spaces.Box(low, high, dtype=np.float32)
    else:
        observation = spaces.Dict(
            {
                "hand": spaces.MultiBinary(52),
                "opponent_known": spaces.MultiBinary(52),
                "discard_pile": spaces.Box(-1, 51, (52,), dtype=np.int8),
                "taken": spaces.Discrete(53, start=-1),
                "phase": spaces.Discrete(len(PHASES)),
                "stock_size": spaces.Discrete(FULL_STOCK + 1),
                "knock_limit": spaces.Discrete(11),
                "dealer": spaces.Discrete(2),
                "must_knock": spaces.Discrete(2),
                "scores": spaces.Box(0, np.iinfo(np.int64).max, (2,), dtype=np.int64),
            }
        )
    return spaces.Dict(
        {
            "observation": observation,
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        }
    )


class GinRummyEnv(AECEnv):  # type: ignore[misc]
    """Two-player Gin Rummy under ``rules``, one match per episode (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "ginref_gin_rummy_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: Rules | str = "standard",
        *,
        reward: Reward = "hand",
        observation_form: ObservationForm = "array",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.rules = Rules.profile(rules) if isinstance(rules, str) else rules
        if self.rules.players != 2:
            raise ValueError(
                f"players = {self.rules.players}: the environment plays two-player matches"
            )
        if reward not in REWARDS:
            raise ValueError(f"reward = {reward!r} is not one of: {', '.join(REWARDS)}")
        if observation_form not in FORMS:
            raise ValueError(
                f"observation_form = {observation_form!r} is not one of: {', '.join(FORMS)}"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode = {render_mode!r}: only 'ansi' is offered")
        self.reward = reward
        self.observation_form = observation_form
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        obs_space = observation_space(observation_form)
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self._seeds = random.Random()
        self.match: Match | None = None
        self._legal: list[Action] | None = None
        self.match_seed: int | None = None

    def observation_space(self, agent: str) -> gymnasium.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a match: seeded ``seed``, else the next seed of the stream of the last seed.

        ``options`` may hold ``decks`` (deck orders for the first hands, as
        :class:`~referee.engine.match.Match` takes them: a scripted deal) and ``first_dealer``
        (0 or 1); other keys are ignored.
        """
        if seed is not None:
            self._seeds = random.Random(seed)
            self.match_seed = seed
        else:
            self.match_seed = self._seeds.getrandbits(_SEED_BITS)
        options = options or {}
        self.match = Match(
            self.rules,
            self.match_seed,
            decks=options.get("decks", ()),
            first_dealer=options.get("first_dealer"),
        )
        self._legal = None
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        self.agent_selection = self._agent_to_act()

    def observe(self, agent: str) -> dict[str, Any]:
        match = self._started()
        seat = AGENTS.index(agent)
        legal = self._legal_list() if match.to_act == seat else ()
        seen = seen_in(match, seat, legal)
        form = encode_array(seen) if self.observation_form == "array" else encode_dict(seen)
        return {"observation": form, "action_mask": action_mask(seen.legal)}

    def legal_actions(self) -> dict[int, Action]:
        """The engine action of each legal index of the agent to act."""
        return {index_of(a): a for a in self._legal_list()}

    def _legal_list(self) -> list[Action]:
        # observe() and step() both need the list: computed once per position.
        if self._legal is None:
            self._legal = self._started().legal_actions()
        return self._legal

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        match = self._started()
        if action is None:
            raise ValueError(f"{agent} is to act: None is an action only once the match is over")
        index = int(action)
        chosen = self.legal_actions().get(index)
        if chosen is None:
            what = action_name(index) if 0 <= index < NUM_ACTIONS else "not an action"
            raise ValueError(f"{agent}: action {index} ({what}) is not legal now")
        hands = len(match.hand_results)
        match.apply(chosen)
        self._legal = None
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        if len(match.hand_results) > hands:
            result = match.hand_results[-1]
            for seat, name in enumerate(AGENTS):
                self.infos[name]["hand_result"] = result
                if self.reward != "match":
                    self.rewards[name] = self._hand_reward(result, seat)
        if match.result is not None:
            for seat, name in enumerate(AGENTS):
                self.terminations[name] = True
                self.infos[name]["match_result"] = match.result
                if self.reward == "match" and match.result.winner is not None:
                    self.rewards[name] = 1.0 if match.result.winner == seat else -1.0
        else:
            self.agent_selection = self._agent_to_act()
        self._accumulate_rewards()

    def _hand_reward(self, result: HandResult, seat: int) -> float:
        if self.reward == "payoff":
            return result.payoffs[seat]
        if result.winner is None:
            return 0.0
        return float(result.points if result.winner == seat else -result.points)

    def render(self) -> str | None:
        """``ansi``: the agent to act's view in one line (the environment draws nothing else)."""
        if self.render_mode != "ansi" or self.match is None:
            return None
        seen = seen_of(observe(self.match, AGENTS.index(self.agent_selection)))
        top = seen.discard_pile[-1] if seen.discard_pile else None
        return (
            f"{self.agent_selection} {seen.phase.value}: hand {cards_str(seen.hand)}; "
            f"top {cards_str([top]) if top is not None else '-'}; stock {seen.stock_size}; "
            f"scores {seen.scores[0]}-{seen.scores[1]}; "
            f"{'must knock' if seen.must_knock else ''}".rstrip("; ")
        )

    def close(self) -> None:
        """Nothing to release: the match is plain data."""

    def _started(self) -> Match:
        if self.match is None:
            raise RuntimeError("call reset() before using the environment")
        return self.match

    def _agent_to_act(self) -> str:
        seat = self._started().to_act
        assert seat is not None  # a match that has not ended always waits for a seat
        return AGENTS[seat]


def env(rules: Rules | str = "standard", **kwargs: Any) -> GinRummyEnv:
    """A :class:`GinRummyEnv` (PettingZoo's usual entry point name)."""
    return GinRummyEnv(rules, **kwargs)


__all__ = ["GinRummyEnv", "env", "observation_space"]
