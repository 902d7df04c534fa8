"""Stable-Baselines3: a fiverow vector env as an SB3 ``VecEnv``, every board
stepped in one C call.

>>> import fiverow, fiverow.sb3
>>> from sb3_contrib import MaskablePPO
>>> env = fiverow.sb3.VecEnv(fiverow.make_vec("freestyle", 64, size=9,
...                          opponent="random", agent_seat="random"))
>>> model = MaskablePPO("MlpPolicy", env).learn(10_000)  # doctest: +SKIP

The boards are SB3's envs: ``num_envs`` is the vector env's, observations
are ``uint8[num_envs, planes, H, W]`` copies (SB3 keeps them), rewards and
dones the agent's (with an opponent in the loop) or the mover's. As SB3's
vector envs do, a board whose game ended is reset in the same ``step``: its
observation is the next game's first, the last one is
``infos[i]["terminal_observation"]`` and the other info keys are those of the
step that ended the game (``TimeLimit.truncated`` marks a game cut at
``max_steps``). A vector env made with ``autoreset_mode="same_step"`` does that
in C within the step, in one call; one made with ``"next_step"`` (the default)
or ``"disabled"`` has its finished boards reset right after the step (a second
C call, on the steps where a game ended). Either way the results are SB3's.

``action_masks()`` (and ``env_method("action_masks")``, what sb3-contrib's
``MaskablePPO`` and ``evaluate_policy`` call) gives the legal-action mask of
every board from one buffer. ``VecMonitor`` counts episode returns and
lengths in agent steps, as ``Monitor`` over single envs does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import (
    VecEnv as _SB3VecEnv,
)
from stable_baselines3.common.vec_env.base_vec_env import (
    VecEnvIndices,
    VecEnvStepReturn,
)

from ..env.pool import check_seed
from ..env.vector import FiverowVectorEnv

#: methods of FiverowVectorEnv that take a board's index first: env_method
#: calls them once per board asked for ("render" renders one board)
PER_BOARD_METHODS = (
    "board",
    "get_state",
    "legal_actions",
    "load_position",
    "load_tiles",
    "render",
    "render_env",
    "set_state",
)
#: methods whose result holds a row per board: env_method gives each board its row
PER_ROW_METHODS = ("action_masks", "sample_legal")
#: info keys copied per board (those the vector env has)
_INFO_KEYS = (
    "to_play",
    "winner",
    "episode_length",
    "agent_seat",
    "illegal",
    "black_seat",
    "phase",
    "opening",
    "casts",
)
_INFO_ROWS = ("rewards", "scores", "cast_points")


class VecEnv(_SB3VecEnv):
    """A :class:`fiverow.FiverowVectorEnv` as a Stable-Baselines3 ``VecEnv``
    (see the module's doc). ``vector_env`` is the fiverow env underneath; its
    boards are this env's ``num_envs`` envs.

    ``seed(s)`` keys every board from ``s`` at the next ``reset()`` (board i
    from the pair ``(s, i)``, as ``make_vec(seed=s)``). ``get_attr`` /
    ``set_attr`` read and write attributes of the vector env, which the boards
    share (``set_attr`` for some boards only is refused). ``env_method`` calls
    the per-board methods (:data:`PER_BOARD_METHODS`) once per board asked for,
    splits the per-row results (:data:`PER_ROW_METHODS`) by board, and calls
    any other method of the vector env once, for all boards together.
    """

    def __init__(self, vector_env: FiverowVectorEnv) -> None:
        if not isinstance(vector_env, FiverowVectorEnv):
            raise TypeError(
                "fiverow.sb3.VecEnv takes a fiverow vector env (fiverow.make_vec(...)), "
                f"got {type(vector_env).__name__}"
            )
        if vector_env.closed:
            raise ValueError("fiverow.sb3.VecEnv: the vector env is closed")
        self._venv = vector_env
        self._same_step = vector_env.pool.autoreset_mode == "same_step"
        self._actions: npt.NDArray[Any] | None = None
        self._next_seed: int | None = None
        super().__init__(
            vector_env.num_envs,
            vector_env.single_observation_space,
            spaces.Discrete(vector_env.n_actions),
        )

    @property
    def vector_env(self) -> FiverowVectorEnv:
        """The fiverow vector env whose boards this env steps."""
        return self._venv

    # ---- SB3's VecEnv API ----

    def reset(self) -> npt.NDArray[np.uint8]:
        """Reset every board (keyed from the seed of :meth:`seed`, if one was set)."""
        seed, self._next_seed = self._next_seed, None
        self._actions = None
        obs, info = self._venv.reset(seed=seed)
        self.reset_infos = _rows(_columns(info), range(self.num_envs))
        self._reset_seeds()
        self._reset_options()
        return obs.copy()

    def step_async(self, actions: npt.NDArray[Any]) -> None:
        self._venv._check_open("step_async()")
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions) before it")
        actions, self._actions = self._actions, None
        venv = self._venv
        obs, reward, terminated, truncated, info = venv.step(actions)
        dones = terminated | truncated
        now = _columns(info)
        infos = _rows(now, range(self.num_envs))
        ended = np.flatnonzero(dones).tolist()
        if not ended:
            return obs.copy(), reward, dones, infos
        if self._same_step:  # reset in C: the ended games are in final_obs / final_info
            terminal = info["final_obs"][ended]  # a copy (fancy indexing)
            for i, row in zip(ended, _rows(_columns(info["final_info"]), ended), strict=True):
                infos[i] = row
        else:  # the finished boards start their next game now
            terminal = obs[ended]
            obs, info = venv.reset(options={"reset_mask": dones})
            now = _columns(info)
        for k, (i, row) in enumerate(zip(ended, _rows(now, ended), strict=True)):
            self.reset_infos[i] = row
            infos[i]["terminal_observation"] = terminal[k]
            infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return obs.copy(), reward, dones, infos

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal-action mask of every board, bool ``[num_envs, n_actions]`` (a copy)."""
        self._venv._check_open("action_masks()")
        return self._venv.action_masks().copy()

    def close(self) -> None:
        self._venv.close()

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Key every board from ``seed`` at the next ``reset()`` (a random seed
        for None, as SB3 does); returns that seed for each board."""
        if seed is None:
            seed = int(np.random.randint(0, np.iinfo(np.uint32).max, dtype=np.uint32))
        self._next_seed = check_seed(seed)
        return [self._next_seed] * self.num_envs

    def set_options(self, options: list[dict[str, Any]] | dict[str, Any] | None = None) -> None:
        """fiverow's boards take no reset options: only empty ones are accepted."""
        given = options if isinstance(options, list) else [options or {}]
        if any(given):
            raise ValueError(f"fiverow boards take no reset options, got {options!r}")

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """The vector env's attribute, once per board asked for (they share it)."""
        boards = self._boards(indices)
        value = getattr(self._venv, attr_name)
        return [value] * len(boards)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of the vector env (shared by every board)."""
        if len(set(self._boards(indices))) != self.num_envs:
            raise ValueError(
                f"set_attr({attr_name!r}): the {self.num_envs} boards share one fiverow "
                "vector env; set it for all of them (indices=None)"
            )
        setattr(self._venv, attr_name, value)

    def env_method(
        self,
        method_name: str,
        *method_args: Any,
        indices: VecEnvIndices = None,
        **method_kwargs: Any,
    ) -> list[Any]:
        """Call a method of the vector env for the boards asked for (see the class doc)."""
        boards = self._boards(indices)
        venv = self._venv
        if method_name in PER_ROW_METHODS:
            rows = getattr(venv, method_name)(*method_args, **method_kwargs).copy()
            return [rows[i] for i in boards]
        if method_name in PER_BOARD_METHODS:
            if method_name == "render":
                return [venv.render_env(i, *method_args, **method_kwargs) for i in boards]
            method = getattr(venv, method_name)
            return [method(i, *method_args, **method_kwargs) for i in boards]
        method = getattr(venv, method_name)
        if not callable(method):
            raise TypeError(f"env_method({method_name!r}): not a method of FiverowVectorEnv")
        if len(set(boards)) != self.num_envs:
            raise ValueError(
                f"env_method({method_name!r}) acts on every board of the vector env at "
                f"once: call it with indices=None (per-board methods: "
                f"{', '.join(PER_BOARD_METHODS + PER_ROW_METHODS)})"
            )
        result = method(*method_args, **method_kwargs)
        return [result] * len(boards)

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        """The boards are not Gymnasium envs: no Gymnasium wrapper wraps them."""
        return [False] * len(self._boards(indices))

    def get_images(self) -> Sequence[npt.NDArray[np.uint8] | None]:
        """Each board as an RGB array (``render_mode="rgb_array"``)."""
        if self.render_mode != "rgb_array":
            return [None] * self.num_envs
        return [self._venv.render_env(i, "rgb_array") for i in range(self.num_envs)]

    # ---- helpers ----

    def _boards(self, indices: VecEnvIndices) -> list[int]:
        """The board indices SB3 asks for, checked."""
        if indices is None:
            return list(range(self.num_envs))
        given: Iterable[Any] = [indices] if isinstance(indices, int | np.integer) else indices
        boards = []
        for i in given:
            if isinstance(i, bool | np.bool_) or not isinstance(i, int | np.integer):
                raise TypeError(f"indices must be ints, got {type(i).__name__} {i!r}")
            if not 0 <= int(i) < self.num_envs:
                raise IndexError(f"env index {int(i)} is out of range 0..{self.num_envs - 1}")
            boards.append(int(i))
        return boards

    def __repr__(self) -> str:
        return f"fiverow.sb3.VecEnv({self._venv!r})"


def _columns(info: dict[str, Any]) -> dict[str, list[Any]]:
    """Each per-board key of a vector env's info as a list by board (masks as rows
    of one copy)."""
    columns: dict[str, list[Any]] = {"action_mask": list(info["action_mask"].astype(np.bool_))}
    for key in _INFO_KEYS:
        if key in info:
            columns[key] = info[key].tolist()
    for key in _INFO_ROWS:
        if key in info:
            columns[key] = list(info[key].copy())
    return columns


def _rows(columns: dict[str, list[Any]], boards: Iterable[int]) -> list[dict[str, Any]]:
    """The info dicts of ``boards``, one per board, from :func:`_columns`."""
    return [{key: column[i] for key, column in columns.items()} for i in boards]
