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

from .selfplay import RECORD_DTYPE


@runtime_checkable
class Agent(Protocol):
    """A player written in Python: ``act(env)`` returns one action per board
    of the vector env (any action where a board's episode has ended: the
    next-step autoreset ignores it)."""

    def act(self, env: Any) -> npt.ArrayLike: ...


def agent_name(agent: Any) -> str:
    return str(getattr(agent, "name", None) or type(agent).__name__)


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
    from .vector import make_vec

    boards = min(boards, games)
    env = make_vec(variant, num_envs=boards, seed=seed, num_threads=num_threads, **params)
    _, info = env.reset(seed=seed)
    records = np.zeros(games, dtype=RECORD_DTYPE)
    game = np.arange(boards)  # the game each board is playing
    episode = np.zeros(boards, dtype=np.int64)
    finished = 0
    last = np.zeros(boards, dtype=np.int64)
    while finished < games:
        a_seat = np.where(alternate & (game % 2 == 1), 1, 0)
        actions_a = np.asarray(player_a.act(env), dtype=np.int64)
        actions_b = np.asarray(player_b.act(env), dtype=np.int64)
        for who, acts in (("A", actions_a), ("B", actions_b)):
            if acts.shape != (boards,):
                raise ValueError(
                    f"player {who} gave actions of shape {acts.shape}, ({boards},) expected"
                )
        actions = np.where(info["to_play"] == a_seat, actions_a, actions_b)
        _, _, terminated, truncated, info = env.step(actions)
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
                r["opening"] = -1
                r["last_action"] = int(last[i])
                if "scores" in info:
                    r["scores"] = info["scores"][i]
                finished += 1
            game[i] += boards
            episode[i] += 1
    return records
