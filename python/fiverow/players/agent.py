"""Players written in Python: anything with ``act(env) -> actions``, or a
function ``f(env) -> actions``, over a fiverow vector env.

The one player interface of the project is :func:`fiverow.players.make`: a
built-in player's name or :class:`fiverow.players.Player` gives a player
played in C, an agent comes back as it is, a function is wrapped here.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt


@runtime_checkable
class Agent(Protocol):
    """A player written in Python: ``act(env)`` returns one action per board
    of the vector env (any action where the agent is not to act: it is
    ignored). A ``name`` attribute, if any, names it in results and errors."""

    def act(self, env: Any) -> npt.ArrayLike: ...


class FunctionAgent:
    """A function ``f(env) -> actions`` as an :class:`Agent`, named after it."""

    def __init__(self, function: Callable[[Any], npt.ArrayLike]) -> None:
        self.function = function
        self.name = str(getattr(function, "__name__", None) or type(function).__name__)

    def act(self, env: Any) -> npt.ArrayLike:
        return self.function(env)

    def __repr__(self) -> str:
        return f"FunctionAgent({self.name})"


def as_agent(player: object) -> Agent | None:
    """The player as an :class:`Agent` if it is one (an object with ``act``,
    or a function of the env), else None."""
    if isinstance(player, Agent):
        return player
    if callable(player) and not isinstance(player, type):
        return FunctionAgent(player)
    return None


def agent_name(agent: Any) -> str:
    return str(getattr(agent, "name", None) or type(agent).__name__)


def takes_acting(player: Any) -> bool:
    """Whether ``player.act`` takes ``acting``, the boards where its move is
    used (an engine then thinks only there)."""
    try:
        return "acting" in inspect.signature(player.act).parameters
    except (TypeError, ValueError):
        return False


def take_forfeits(player: Any) -> dict[int, str]:
    """Boards on which the player lost its game in its last ``act`` (an engine
    that crashed, hung or played an illegal move), with the reasons."""
    take = getattr(player, "take_forfeits", None)
    return {int(k): str(v) for k, v in take().items()} if callable(take) else {}


def checked_actions(
    player: Any,
    who: str,
    env: Any,
    acting: npt.NDArray[np.bool_],
    forfeits: dict[int, str] | None = None,
) -> Any:
    """The player's actions, refused with an error naming the player (``who``,
    then its name) when they are not one integer per board or are illegal on
    a board where it is to act (the env's own error could not say whose they
    were). A one-board env may get a single integer. Boards the player
    forfeits go into ``forfeits`` and are not checked."""
    name = f"{who} ({agent_name(player)})"
    raw = player.act(env, acting) if takes_acting(player) else player.act(env)
    lost = take_forfeits(player)
    if forfeits is not None:
        forfeits.update(lost)
    acting = acting.copy()
    acting[list(lost)] = False
    actions = np.asarray(raw)
    if actions.shape == () and env.num_envs == 1:
        actions = actions.reshape(1)
    if actions.shape != (env.num_envs,):
        raise ValueError(
            f"{name} gave actions of shape {actions.shape}, ({env.num_envs},) expected"
        )
    if actions.dtype.kind not in "iu":
        raise ValueError(f"{name} gave actions of dtype {actions.dtype}, integers expected")
    actions = actions.astype(np.int64)
    masks = env.action_masks()
    in_range = (actions >= 0) & (actions < masks.shape[1])
    legal = in_range & masks[np.arange(len(actions)), np.where(in_range, actions, 0)]
    bad = np.flatnonzero(acting & ~legal)
    if len(bad):
        shown = ", ".join(f"board {i}: action {actions[i]}" for i in bad[:5])
        raise ValueError(f"{name} gave illegal actions ({shown})")
    return actions
