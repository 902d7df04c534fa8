"""Matches with a Python agent in a seat: a network, a search with a
network, anything with ``act(env) -> actions``.

:class:`fiverow.Match` plays built-in players in C; when a player is an agent
it comes here, where a vector env is stepped from Python. Each board plays
games one after another; board ``i``'s ``k``-th game is game ``i + k *
boards``, and with ``alternate`` player A takes the first seat in the even
games, so seats alternate whatever order the games end in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from ..data.selfplay import RECORD_DTYPE


@runtime_checkable
class Agent(Protocol):
    """A player written in Python: ``act(env)`` returns one action per board
    of the vector env (any action where a board's episode has ended: the
    next-step autoreset ignores it)."""

    def act(self, env: Any) -> npt.ArrayLike: ...


def agent_name(agent: Any) -> str:
    return str(getattr(agent, "name", None) or type(agent).__name__)


def checked_actions(player: Any, who: str, env: Any, acting: npt.NDArray[np.bool_]) -> Any:
    """The player's actions, refused with an error naming the player when
    they are not one integer per board or are illegal on a board where it
    is to act (the env's own error could not say whose they were)."""
    name = f"player {who} ({agent_name(player)})"
    actions = np.asarray(player.act(env))
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


def play_agents(
    variant: str,
    player_a: Any,
    player_b: Any,
    *,
    games: int,
    boards: int,
    seed: int,
    num_threads: int | None,
    alternate: bool,
    params: Mapping[str, Any],
) -> npt.NDArray[Any]:
    """Play ``games`` games of one variant; one record per game
    (:data:`fiverow.selfplay.RECORD_DTYPE`), in game order."""
    from ..env.vector import make_vec

    boards = min(boards, games)
    env = make_vec(variant, num_envs=boards, seed=seed, num_threads=num_threads, **params)
    _, info = env.reset(seed=seed)
    records = np.zeros(games, dtype=RECORD_DTYPE)
    game = np.arange(boards)  # the game each board is playing
    episode = np.zeros(boards, dtype=np.int64)
    finished = 0
    last = np.zeros(boards, dtype=np.int64)
    resetting = np.zeros(boards, dtype=bool)  # next-step autoreset: actions ignored
    while finished < games:
        a_seat = np.where(alternate & (game % 2 == 1), 1, 0)
        a_to_play = info["to_play"] == a_seat
        actions_a = checked_actions(player_a, "A", env, a_to_play & ~resetting)
        actions_b = checked_actions(player_b, "B", env, ~a_to_play & ~resetting)
        actions = np.where(a_to_play, actions_a, actions_b)
        _, _, terminated, truncated, info = env.step(actions)
        resetting = terminated | truncated
        last = np.where(game < games, actions, last)
        for i in np.flatnonzero(terminated | truncated):
            g = int(game[i])
            if g < games:
                r = records[g]
                r["game"], r["board"], r["episode"] = g, i, episode[i]
                r["length"] = int(info["episode_length"][i])
                r["seat0_player"] = int(a_seat[i])
                r["winner"] = int(info["winner"][i])
                r["truncated"] = int(bool(truncated[i]))
                r["black_seat"] = int(info["black_seat"][i]) if "black_seat" in info else 0
                r["opening"] = int(info["opening"][i]) if "opening" in info else -1
                r["last_action"] = int(last[i])
                if "scores" in info:
                    r["scores"] = info["scores"][i]
                finished += 1
            game[i] += boards
            episode[i] += 1
    return records
