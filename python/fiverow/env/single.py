"""One board as a plain ``gymnasium.Env`` (a one-env view of the vector engine)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt

from .. import render as _render
from ..rules.config import VariantConfig
from ..rules.renju import OPENINGS
from .pool import IllegalActionError, check_seed
from .spaces import LegalDiscrete
from .vector import FiverowVectorEnv

Obs = npt.NDArray[np.uint8]


class FiverowEnv(gymnasium.Env[Obs, np.int64]):
    """A single board. Both seats are played through the same ``step``: the seat
    to act is ``info["to_play"]`` and the reward is that of the seat that just
    acted (``info["rewards"]`` has both). Observations and infos are fresh
    copies on every call. After the episode ends, call ``reset()`` (the mask
    of a finished game allows every action; ``step`` refuses them all).

    With an ``opponent`` (see :class:`fiverow.FiverowVectorEnv`), it plays the
    other seat inside ``step``: the env is a single-agent env of the seat
    ``agent_seat`` (0, 1 or ``"random"`` per episode; ``info["agent_seat"]``),
    whose reward, ``terminated`` and returns are the agent's. A Python
    opponent is called with the one-board vector env (:attr:`vector_env`) and
    may return one integer.

    ``action_space.sample()`` draws among the legal actions (see
    :class:`fiverow.spaces.LegalDiscrete`)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        variant: str | Mapping[str, Any] | Path | VariantConfig = "freestyle",
        render_mode: str | None = None,
        illegal_action: str = "raise",
        observation: str = "absolute",
        opponent: Any = None,
        agent_seat: int | str = 0,
        **overrides: Any,
    ) -> None:
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(
                f"render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}"
            )
        self._vec = FiverowVectorEnv(
            variant,
            1,
            num_threads=1,
            autoreset_mode="disabled",
            illegal_action=illegal_action,
            observation=observation,
            opponent=opponent,
            agent_seat=agent_seat,
            **overrides,
        )
        self.render_mode = render_mode
        self.observation_space = self._vec.single_observation_space
        self.action_space = LegalDiscrete(self._vec.n_actions, self._legal_mask)
        self._started = False
        #: state bytes before each step of this episode, for undo()
        self._history: list[bytes] = []

    # pickle / deepcopy: the board travels with its vector env; the action
    # space is connected again to this env's mask (a copied one samples unaware)
    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        old = state["action_space"]
        space = LegalDiscrete(int(old.n), self._legal_mask, start=int(old.start))
        if old._np_random is not None:
            space.np_random.bit_generator.state = old.np_random.bit_generator.state
        self.action_space = space

    def _legal_mask(self) -> npt.NDArray[np.bool_]:
        """The current legal-action mask (read-only, overwritten by the next step)."""
        return self._vec.action_masks()[0]

    def _check_open(self, what: str) -> None:
        if self._vec.closed:  # closing this env closes its one-board vector env
            raise RuntimeError(f"{what}: this FiverowEnv is closed")

    @property
    def config(self) -> VariantConfig:
        """The variant this env plays (preset name, description, parameters)."""
        return self._vec.config

    @property
    def planes(self) -> tuple[str, ...]:
        """Names of the observation planes, in order."""
        return self._vec.planes

    @property
    def vector_env(self) -> FiverowVectorEnv:
        """The one-env vector environment underneath (state access, positions)."""
        return self._vec

    def _info(self) -> dict[str, Any]:
        info = self._vec._group.info()
        out: dict[str, Any] = {
            "action_mask": info["action_mask"][0].copy(),
            "to_play": int(info["to_play"][0]),
            "rewards": info["rewards"][0].copy(),
            "winner": int(info["winner"][0]),
            "episode_length": int(info["episode_length"][0]),
        }
        if "agent_seat" in info:
            out["agent_seat"] = int(info["agent_seat"][0])
        if "illegal" in info:
            out["illegal"] = bool(info["illegal"][0])
        if "scores" in info:
            out["scores"] = info["scores"][0].copy()
            out["cast_points"] = info["cast_points"][0].copy()
            out["casts"] = int(info["casts"][0])
        if "phase" in info:
            out["black_seat"] = int(info["black_seat"][0])
            out["phase"] = int(info["phase"][0])
            opening = int(info["opening"][0])
            out["opening"] = OPENINGS[opening] if opening >= 0 else ""
        return out

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        self._check_open("reset()")
        check_seed(seed)  # the same errors as make_vec(seed=...)
        super().reset(seed=seed)
        if options:
            raise ValueError(f"unknown reset options: {sorted(options)}")
        if seed is None and not self._started:
            seed = int(self.np_random.integers(0, 2**63 - 1))
        obs, _ = self._vec.reset(seed=seed)
        self._started = True
        self._history.clear()
        return obs[0].copy(), self._info()

    def step(self, action: Any) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        """Play ``action`` (a cell index, or a protocol's special action) for
        the seat to move and return ``(observation, reward, terminated,
        truncated, info)``, as Gymnasium's ``Env.step``. An out-of-range or
        illegal action raises and changes nothing, unless the env was made
        with ``illegal_action="lose"`` or ``"random"``."""
        self._check_open("step()")
        if (
            isinstance(action, bool)
            or not isinstance(action, int | np.integer)
            and not (
                isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu"
            )
        ):
            raise TypeError(f"action must be an integer, got {type(action).__name__} {action!r}")
        n = self._vec.n_actions
        if not 0 <= int(action) < n:
            raise ValueError(f"action {int(action)} is out of range 0..{n - 1}")
        before = self._vec.get_state(0)
        try:
            obs, reward, terminated, truncated, _ = self._vec.step(np.array([int(action)]))
        except IllegalActionError as e:  # in this env's words: one board, no "envs"
            raise IllegalActionError(e.count, e.refused, e.boards, _single_message(e)) from None
        self._history.append(before)
        return (
            obs[0].copy(),
            float(reward[0]),
            bool(terminated[0]),
            bool(truncated[0]),
            self._info(),
        )

    def undo(self) -> tuple[Obs, dict[str, Any]]:
        """Take back the last step (one decision, whichever seat took it, the
        last one of a finished episode too) and return the observation and
        info of the position before it, as ``reset`` does. Steps back to the
        last ``reset`` can be taken back, one call each."""
        self._check_open("undo()")
        if not self._history:
            raise RuntimeError("undo(): no step to take back since the last reset()")
        self._vec.set_state(0, self._history.pop())
        return self._vec._group.obs[0].copy(), self._info()

    def legal_actions(self) -> list[int]:
        """The legal actions as a sorted list of ints (empty once the episode is over)."""
        self._check_open("legal_actions()")
        return self._vec.legal_actions(0)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal-action mask as bool (sb3-contrib's MaskablePPO convention)."""
        return self._vec.action_masks()[0].copy()

    def sample_legal(self) -> int:
        """A uniformly random legal action."""
        return int(self._vec.sample_legal()[0])

    def render(self) -> Any:
        if self.render_mode is None:
            return None
        return self._vec.render_env(0, self.render_mode)

    def _repr_svg_(self) -> str | None:
        """The board as SVG, so that Jupyter shows it (None before ``reset()``)."""
        if self._vec.closed or not self._vec.pool._has_reset:
            return None
        return _render.svg(self)

    def close(self) -> None:
        """Close the env: later ``step()`` / ``reset()`` raise ``RuntimeError``.
        Closing twice is fine."""
        self._vec.close()
        super().close()


def _single_message(error: IllegalActionError) -> str:
    """A refused action as the single env's user reads it."""
    refused = error.refused[0]
    if refused.kind == "over":
        return f"{refused.describe()}; call reset() to start the next one"
    return (
        f"illegal {refused.describe()}; nothing was played. Play legal actions only: "
        "mask them with info['action_mask'] or env.action_masks() (sb3-contrib's "
        "MaskablePPO reads action_masks()), or make the env with illegal_action='lose' "
        "(an illegal action loses the game) or illegal_action='random' (a random legal "
        "action is played instead)"
    )


def make(
    name: str | Mapping[str, Any] | Path | VariantConfig = "freestyle", **kwargs: Any
) -> FiverowEnv:
    """One board of a variant as a ``gymnasium.Env`` (keywords as :class:`FiverowEnv`)."""
    return FiverowEnv(name, **kwargs)
