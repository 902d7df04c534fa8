"""Matches with a Python agent in a seat: a network, a search with a
network, anything with ``act(env) -> actions``.

:class:`fiverow.Match` plays built-in players in C; when a player is an agent
it comes here, where a vector env is stepped from Python. Each board plays
games one after another; board ``i``'s ``k``-th game is game ``i + k *
boards``, and with ``alternate`` player A takes the first seat in the even
games, so seats alternate whatever order the games end in.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass
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
    """The player's actions, refused with an error naming the player when
    they are not one integer per board or are illegal on a board where it
    is to act (the env's own error could not say whose they were). Boards
    the player forfeits go into ``forfeits`` and are not checked."""
    name = f"player {who} ({agent_name(player)})"
    raw = player.act(env, acting) if takes_acting(player) else player.act(env)
    lost = take_forfeits(player)
    if forfeits is not None:
        forfeits.update(lost)
    acting = acting.copy()
    acting[list(lost)] = False
    actions = np.asarray(raw)
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


@dataclass(frozen=True)
class Forfeit:
    """A game a player lost by failing: crashing, hanging past its time,
    answering garbage or playing an illegal move (Gomocup engines)."""

    game: int
    player: str
    seat: int
    reason: str


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
    forfeits: list[Forfeit] | None = None,
) -> npt.NDArray[Any]:
    """Play ``games`` games of one variant; one record per game
    (:data:`fiverow.selfplay.RECORD_DTYPE`), in game order. A game a player
    forfeits is lost by it (``forfeits`` gets why); its board plays the game
    out at random, unrecorded, before its next game. Players are asked only
    for the boards where their move is used (``acting``, for agents that take
    it); a board past the last game plays at random."""
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
    forfeited = np.zeros(boards, dtype=bool)  # the game was lost; the board plays it out
    while finished < games:
        a_seat = np.where(alternate & (game % 2 == 1), 1, 0)
        a_to_play = info["to_play"] == a_seat
        idle = forfeited | (game >= games)  # moves nobody records: random, in C
        playing = ~resetting & ~idle
        lost_a: dict[int, str] = {}
        lost_b: dict[int, str] = {}
        actions_a = checked_actions(player_a, "A", env, a_to_play & playing, lost_a)
        actions_b = checked_actions(player_b, "B", env, ~a_to_play & playing, lost_b)
        actions = np.where(a_to_play, actions_a, actions_b)
        for who, lost, seat_of in (("A", lost_a, a_seat), ("B", lost_b, 1 - a_seat)):
            for b, reason in sorted(lost.items()):
                g = int(game[b])
                if not playing[b]:
                    continue
                r = records[g]
                r["game"], r["board"], r["episode"] = g, b, episode[b]
                r["length"] = int(env.board(b)["steps"])
                r["seat0_player"] = int(a_seat[b])
                r["winner"] = 1 - int(seat_of[b])
                r["black_seat"] = int(info["black_seat"][b]) if "black_seat" in info else 0
                r["opening"] = int(info["opening"][b]) if "opening" in info else -1
                r["last_action"] = int(last[b])
                player = player_a if who == "A" else player_b
                if forfeits is not None:
                    forfeits.append(Forfeit(g, agent_name(player), int(seat_of[b]), reason))
                finished += 1
                forfeited[b] = True
                game[b] += boards
        if (forfeited | idle).any():
            actions = np.where(forfeited | idle, env.sample_legal(), actions)
        _, _, terminated, truncated, info = env.step(actions)
        resetting = terminated | truncated
        last = np.where((game < games) & ~forfeited, actions, last)
        for i in np.flatnonzero(terminated | truncated):
            if forfeited[i]:  # the lost game's play-out ended: its record stands
                forfeited[i] = False
                episode[i] += 1
                continue
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
