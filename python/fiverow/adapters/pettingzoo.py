"""PettingZoo: one board as an AEC environment whose agents are the two seats.

>>> from fiverow import pettingzoo as fz
>>> env = fz.env("renju")
>>> env.reset(seed=0)
>>> for agent in env.agent_iter():
...     obs, reward, terminated, truncated, info = env.last()
...     action = None if terminated or truncated else (
...         env.action_space(agent).sample(obs["action_mask"]))
...     env.step(action)

Agents are ``"player_0"`` and ``"player_1"``: the seats, not the colours (an
opening protocol may hand black to either). ``observe(agent)`` is that agent's
own view, whoever is to act: the ``observation="mover"`` planes with the agent
in the mover's place (own / opponent stones, its colour, its own MODLINSEQ
hand) and ``action_mask`` (int8), all zeros for the agent not to act.
``agent_selection`` is the seat to act, so a seat may act several times in a
row (protocol decisions, MODLINSEQ's tiles before ``END_TURN``). Rewards are
the engine's by seat: +1 / -1 at a win, 0 on a draw, or points as scored with
``reward_mode="points"``; the acting agent's accumulated reward restarts at
each of its steps, as the AEC API has it.

``env()`` wraps ``raw_env`` the way PettingZoo's classic games do: an illegal
action ends the game with -1 for the agent that took it (0 for the other),
out-of-range actions assert, and the call order is enforced.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..env.pool import IllegalActionError
from ..env.spaces import LegalDiscrete
from ..env.vector import FiverowVectorEnv

AGENTS = ("player_0", "player_1")


def env(preset: str = "freestyle", render_mode: str | None = None, **overrides: Any) -> AECEnv:
    """A preset (or a TOML path / dict of parameters, as :func:`fiverow.make`)
    as a wrapped PettingZoo AEC env; ``overrides`` change single parameters."""
    raw = raw_env(preset, render_mode=render_mode, **overrides)
    wrapped: AECEnv = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


def _aec_message(agent: str, error: IllegalActionError) -> str:
    """A refused action as a PettingZoo user reads it."""
    refused = error.refused[0]
    return (
        f"{agent}'s {refused.describe()}; nothing changed. Take an action that "
        f"observe({agent!r})['action_mask'] allows, or play through fiverow.pettingzoo.env(), "
        "whose TerminateIllegalWrapper ends the game with -1 for the agent that plays an "
        "illegal action"
    )


class raw_env(AECEnv[str, dict[str, npt.NDArray[Any]], int]):  # noqa: N801 (PettingZoo's name)
    """The unwrapped AEC env (see the module's doc). An illegal action raises
    ``ValueError`` here, naming it, and changes nothing."""

    metadata: dict[str, Any] = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "fiverow_v0",
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(
        self, preset: Any = "freestyle", render_mode: str | None = None, **overrides: Any
    ) -> None:
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(
                f"render_mode must be None, 'human', 'ansi' or 'rgb_array', got {render_mode!r}"
            )
        self._vec = FiverowVectorEnv(
            preset, 1, num_threads=1, autoreset_mode="disabled", observation="mover", **overrides
        )
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"fiverow_{self._vec.config.name}_v0"}
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        box = self._vec.single_observation_space
        assert isinstance(box, spaces.Box)
        n = self._vec.n_actions
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0, box.high, box.shape, dtype=np.uint8),
                    "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8),
                }
            )
            for a in AGENTS
        }
        self._connect_action_spaces()

    def _connect_action_spaces(self) -> None:
        # sample() without a mask draws among the agent's legal actions (none
        # for the agent not to act: then it samples like Discrete)
        self.action_spaces = {
            a: LegalDiscrete(self._vec.n_actions, partial(self._mask, a)) for a in AGENTS
        }

    @property
    def planes(self) -> tuple[str, ...]:
        """Names of the observation planes (``own``, ``opponent``, ...)."""
        return self._vec.planes

    @property
    def vector_env(self) -> FiverowVectorEnv:
        """The one-board vector env underneath."""
        return self._vec

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ---- the AEC API ----

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; with a seed, the board is keyed from it (same seed, same
        game). ``options`` are accepted and unused, as in PettingZoo's games."""
        self._vec.reset(seed=seed)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = {a: self._info() for a in AGENTS}
        self.agent_selection = AGENTS[int(self._vec._group.to_play[0])]
        if self.render_mode == "human":
            self.render()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: its action must be an integer, not None")
        try:
            _, _, terminated, truncated, info = self._vec.step(np.array([action]))
        except IllegalActionError as e:  # in PettingZoo's words: agents, observe()
            raise IllegalActionError(e.count, e.refused, e.boards, _aec_message(agent, e)) from None
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: float(info["rewards"][0, k]) for k, a in enumerate(AGENTS)}
        self.terminations = dict.fromkeys(AGENTS, bool(terminated[0]))
        self.truncations = dict.fromkeys(AGENTS, bool(truncated[0]))
        self.infos = {a: self._info() for a in AGENTS}
        if terminated[0] or truncated[0]:
            # the other agent sees the end first, as in PettingZoo's games
            self.agent_selection = AGENTS[1 - AGENTS.index(agent)]
        else:
            self.agent_selection = AGENTS[int(info["to_play"][0])]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        if agent not in AGENTS:
            raise ValueError(f"unknown agent {agent!r}; the agents are {', '.join(AGENTS)}")
        seat = AGENTS.index(agent)
        return {
            "observation": self._vec.pool.observe(self._vec.config.name, 0, seat),
            "action_mask": self._mask(agent),
        }

    def _mask(self, agent: str) -> npt.NDArray[np.int8]:
        # zeros once the game is over (a finished board's own mask is all ones)
        if (
            not self.agents
            or agent != self.agent_selection
            or self.terminations[agent]
            or self.truncations[agent]
        ):
            return np.zeros(self._vec.n_actions, dtype=np.int8)
        return self._vec._group.mask[0].astype(np.int8)

    def _info(self) -> dict[str, Any]:
        g = self._vec._group
        info: dict[str, Any] = {}
        if g.scoring:
            info["scores"] = (int(g.scores[0, 0]), int(g.scores[0, 1]))
        if g.has_protocol:
            info["black_seat"] = int(g.black_seat[0])
        return info

    def render(self) -> Any:
        """The board: text (``"ansi"``), an RGB array (``"rgb_array"``), or, with
        ``"human"``, the text printed to stdout (also after every ``reset`` and
        ``step``, as PettingZoo's classic games show their window) and None."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode")
            return None
        if self.render_mode == "human":
            print(self._vec.render_env(0, "ansi"), flush=True)
            return None
        return self._vec.render_env(0, self.render_mode)

    def close(self) -> None:
        self._vec.close()

    # ---- pickle / deepcopy: the board travels with its vector env ----

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        del state["action_spaces"]  # they call back into this env
        state["_space_rngs"] = {
            a: s._np_random.bit_generator.state if s._np_random is not None else None
            for a, s in self.action_spaces.items()
        }
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        rngs = state.pop("_space_rngs")
        self.__dict__.update(state)
        self._connect_action_spaces()
        for a, rng in rngs.items():
            if rng is not None:
                self.action_spaces[a].np_random.bit_generator.state = rng
