"""A PettingZoo environment (AEC API) over the engine: Gin Rummy under any rule profile, for
two players, three (R10.1) or two partnerships (R10.2).

::

    from ginref_rl import env

    e = env("oklahoma")                # or env(Rules.profile("pagat", target=50))
    e = env("standard", players=3)     # three players; players=4: partnerships
    e.reset(seed=7)                    # the match seed: the deals of a referee match seeded 7
    for agent in e.agent_iter():
        observation, reward, terminated, truncated, info = e.last()
        if terminated or truncated:
            action = None
        else:
            mask = observation["action_mask"]
            action = int(e.action_space(agent).sample(mask))
        e.step(action)

Agents are ``player_0`` .. ``player_{n-1}``, the engine's match seats; the match decides who
acts (a seat draws and then discards: two steps in a row). With three players the seat that
sits out a hand gets no turn in it, and its observation says it sits out; partnerships play two
tables, whose decisions are taken in turn. Observations are ``{"observation": ...,
"action_mask": int8[112]}``: the array form or the dict form of :mod:`ginref_rl.encoding`, and
the mask over the actions of :mod:`ginref_rl.actions`. A step with an index the mask does not
allow raises ``ValueError`` and changes nothing.

Rewards (``reward=``), given on the step that ends a hand or the match. A hand's reward goes to
the two seats that played it, and with partnerships to their teams (both partners get it, on the
step that ends the round, so that a round's rewards sum to what the team scored):

- ``"hand"`` (default): the points the hand scored to its winner, their negation to the loser;
  0 to both for a dead hand or a push. Zero-sum.
- ``"payoff"``: the profile's own payoff of the hand (R8.7, §12.6): with the ``openspiel`` and
  ``rlcard`` profiles, what those environments return.
- ``"match"``: +1 to the match's winner (with partnerships, both partners) when the match ends,
  and -1 shared among the others (-1 each with two players or teams, -1/2 with three).

Every agent's ``info`` carries ``hand_result`` (a :class:`~referee.engine.outcomes.HandResult`,
the last one) and ``hand_results`` (all of them) after the step that ended one or more hands,
and ``match_result`` after the step that ended the match.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from ginref_rl.actions import NUM_ACTIONS, indices_of
from ginref_rl.encoding import (
    FULL_STOCK,
    GROUP,
    JOIN,
    OPPONENT_SCORE,
    OWN_SCORE,
    PER_SEAT,
    PHASES,
    SEAT_SCORE,
    encode_dict,
    encode_parts,
    read,
    seen_in,
    size,
)
from ginref_rl.episode import Episode, Played, Reward, rules_of
from referee.engine.actions import Action
from referee.engine.cards import cards_str
from referee.engine.game import Game
from referee.engine.rules import Rules

ObservationForm = Literal["array", "dict"]
FORMS: tuple[str, ...] = ("array", "dict")
_NO_ACTIONS = bytes(NUM_ACTIONS)
_INT8 = np.dtype(np.int8)
_FLOAT32 = np.dtype(np.float32)


def agent_names(players: int) -> tuple[str, ...]:
    """The agents of a match of ``players`` seats: ``player_0`` and on."""
    return tuple(f"player_{i}" for i in range(players))


def observation_space(form: ObservationForm, players: int = 2) -> spaces.Dict:
    """The space of one agent's observations in ``form``, for ``players`` seats."""
    if form == "array":
        n = size(players)
        low = np.zeros(n, dtype=np.float32)
        high = np.ones(n, dtype=np.float32)
        high[OWN_SCORE] = high[OPPONENT_SCORE] = np.inf  # past the target when the match ends
        high[GROUP + SEAT_SCORE : n : PER_SEAT] = np.inf
        observation: spaces.Space[Any] = spaces.Box(low, high, dtype=np.float32)
    else:
        top = np.iinfo(np.int64).max
        fields: dict[str, spaces.Space[Any]] = {
            "hand": spaces.MultiBinary(52),
            "opponent_known": spaces.MultiBinary(52),
            "discard_pile": spaces.Box(-1, 51, (52,), dtype=np.int8),
            "taken": spaces.Discrete(53, start=-1),
            "phase": spaces.Discrete(len(PHASES)),
            "stock_size": spaces.Discrete(FULL_STOCK + 1),
            "knock_limit": spaces.Discrete(11),
            "dealer": spaces.Discrete(2),
            "must_knock": spaces.Discrete(2),
            "scores": spaces.Box(0, top, (2,), dtype=np.int64),
        }
        if players > 2:
            fields["seat_scores"] = spaces.Box(0, top, (players,), dtype=np.int64)
            fields["opponent"] = spaces.Discrete(players)
            fields["sits_out"] = spaces.MultiBinary(players)
        observation = spaces.Dict(fields)
    return spaces.Dict(
        {
            "observation": observation,
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
        }
    )


class GinRummyEnv(AECEnv):  # type: ignore[misc]
    """Gin Rummy under ``rules``, one match per episode (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "ginref_gin_rummy_v0",
        "render_modes": ["ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: Rules | str = "standard",
        *,
        players: int | None = None,
        reward: Reward = "hand",
        observation_form: ObservationForm = "array",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.rules = rules_of(rules, players)
        self.episode = Episode(self.rules, reward)
        if observation_form not in FORMS:
            raise ValueError(
                f"observation_form = {observation_form!r} is not one of: {', '.join(FORMS)}"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode = {render_mode!r}: only 'ansi' is offered")
        self.reward = reward
        self.observation_form = observation_form
        self.render_mode = render_mode
        self.players = self.rules.players
        self._names = agent_names(self.players)
        self._seat_of = {a: i for i, a in enumerate(self._names)}
        self.possible_agents = list(self._names)
        obs_space = observation_space(observation_form, self.players)
        self.observation_spaces = {a: obs_space for a in self._names}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self._names}
        self._quiet = False  # rewards all 0 and infos empty since the last step

    @property
    def match(self) -> Game | None:
        """The match in play (None before the first reset)."""
        return self.episode.game

    @property
    def match_seed(self) -> int | None:
        """The seed of the match in play."""
        return self.episode.seed

    def observation_space(self, agent: str) -> gymnasium.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a match: seeded ``seed``, else the next seed of the stream of the last seed.

        ``options`` may hold ``decks`` (deck orders for the first hands, as
        :func:`~referee.engine.game.new_game` takes them: a scripted deal) and ``first_dealer``
        (a seat; with partnerships a side, 0 or 1); other keys are ignored.
        """
        options = options or {}
        self.episode.reset(seed, options.get("decks", ()), options.get("first_dealer"))
        names = self._names
        self.agents = list(names)
        self.rewards = {a: 0.0 for a in names}
        self._cumulative_rewards = {a: 0.0 for a in names}
        self.terminations = {a: False for a in names}
        self.truncations = {a: False for a in names}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in names}
        self._quiet = True
        self.agent_selection = self._agent_to_act()

    def observe(self, agent: str) -> dict[str, Any]:
        return self._observe(self._seat_of[agent])

    def last(
        self, observe: bool = True
    ) -> tuple[dict[str, Any] | None, float, bool, bool, dict[str, Any]]:
        """The observation, cumulative reward, termination, truncation and info of the agent
        to act (PettingZoo's own, without its generic layers: it is called every step)."""
        agent = self.agent_selection
        return (
            self._observe(self._seat_of[agent]) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def _observe(self, seat: int) -> dict[str, Any]:
        episode = self.episode
        game = episode.game or episode.started()
        mask = (episode._mask or episode.mask()) if game.to_act == seat else _NO_ACTIONS
        form: Any
        if self.observation_form == "array":
            form = np.frombuffer(JOIN(encode_parts(read(game, seat))), _FLOAT32)
        else:
            legal = tuple(i for i, on in enumerate(mask) if on)
            form = encode_dict(seen_in(game, seat, legal))
        return {"observation": form, "action_mask": np.frombuffer(bytearray(mask), _INT8)}

    def legal_actions(self) -> dict[int, Action]:
        """The engine action of each legal index of the agent to act."""
        legal = self._started().legal_actions()
        return dict(zip(indices_of(legal), legal, strict=True))

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: None is an action only once the match is over")
        try:
            played = self.episode.play(int(action))
        except ValueError as exc:
            raise ValueError(f"{agent}: {exc}") from None
        self._cumulative_rewards[agent] = 0.0
        # Most steps end nothing: the zero rewards and empty infos of the last step stand.
        if not self._quiet:
            self.rewards = {a: 0.0 for a in self.agents}
            self.infos = {a: {} for a in self.agents}
            self._quiet = True
        if played.rewards is not None:
            self._ended(played)
        else:  # _agent_to_act() written out: this is every step
            seat = (self.episode.game or self.episode.started()).to_act
            assert seat is not None  # the match goes on
            self.agent_selection = self._names[seat]

    def _ended(self, played: Played) -> None:
        """A step that ended one or more hands, or the match."""
        self._quiet = False
        for name, value in zip(self._names, played.rewards or (), strict=True):
            self.rewards[name] = value
            info = self.infos[name]
            if played.hands:
                info["hand_result"] = played.hands[-1]
                info["hand_results"] = tuple(played.hands)
            if played.result is not None:
                self.terminations[name] = True
                info["match_result"] = played.result
        if played.result is None:
            self.agent_selection = self._agent_to_act()
        self._accumulate_rewards()

    def render(self) -> str | None:
        """``ansi``: the agent to act's view in one line (the environment draws nothing else)."""
        if self.render_mode != "ansi" or self.match is None:
            return None
        seen = seen_in(self.match, self._seat_of[self.agent_selection])
        top = seen.discard_pile[-1] if seen.discard_pile else None
        return (
            f"{self.agent_selection} {seen.phase.value}: hand {cards_str(seen.hand)}; "
            f"top {cards_str([top]) if top is not None else '-'}; stock {seen.stock_size}; "
            f"scores {seen.scores[0]}-{seen.scores[1]}; "
            f"{'must knock' if seen.must_knock else ''}".rstrip("; ")
        )

    def close(self) -> None:
        """Nothing to release: the match is plain data."""

    def _started(self) -> Game:
        return self.episode.started()

    def _agent_to_act(self) -> str:
        seat = (self.episode.game or self.episode.started()).to_act
        assert seat is not None  # a match that has not ended always waits for a seat
        return self._names[seat]


def env(rules: Rules | str = "standard", **kwargs: Any) -> GinRummyEnv:
    """A :class:`GinRummyEnv` (PettingZoo's usual entry point name)."""
    return GinRummyEnv(rules, **kwargs)


__all__ = ["GinRummyEnv", "env", "observation_space"]
