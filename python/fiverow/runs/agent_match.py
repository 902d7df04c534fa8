"""Matches with a Python agent in a seat: a network, a search with a
network, anything with ``act(env) -> actions``.

:class:`fiverow.Match` plays built-in players in C; when a player is an agent
it comes here, where a vector env is stepped from Python. Each board plays
games one after another; board ``i``'s ``k``-th game is game ``i + k *
boards``, and with ``alternate`` player A takes the first seat in the even
games, so seats alternate whatever order the games end in.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..env.vector import make_vec
from ..players.agent import Agent, agent_name, checked_actions, take_forfeits, takes_acting
from ..players.openings import OpeningBook, moves_hash, opening_cells
from .selfplay import RECORD_DTYPE, Progress

__all__ = [
    "Agent",
    "FinishedGame",
    "Forfeit",
    "agent_games",
    "agent_name",
    "check_players",
    "checked_actions",
    "play_agents",
    "take_forfeits",
    "takes_acting",
]


@dataclass(frozen=True)
class Forfeit:
    """A game a player lost by failing: crashing, hanging past its time,
    answering garbage or playing an illegal move (Gomocup engines)."""

    game: int
    player: str
    seat: int
    reason: str


@dataclass
class FinishedGame:
    """One game played by :func:`agent_games`: its record
    (:data:`fiverow.selfplay.RECORD_DTYPE`), its steps when asked for
    (``actions``, ``seats``, ``colours``, ``obs``), and the forfeit that ended
    it, if one did."""

    record: Any
    actions: list[int] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)
    colours: list[int] = field(default_factory=list)
    obs: list[npt.NDArray[np.uint8]] = field(default_factory=list)
    forfeit: Forfeit | None = None
    moves: list[int] = field(default_factory=list)  # every action, for the record's moves_hash


def check_players(env: Any, *players: Any) -> None:
    """Make sure every player can play ``env``'s game before the first one
    starts: a Gomocup engine is started and asked to (``check_env``; an
    engine that cannot raises :class:`fiverow.engines.EngineError` naming it
    and why). Built-in and Python players need nothing."""
    seen: set[int] = set()
    for player in players:
        check = getattr(player, "check_env", None)
        if callable(check) and id(player) not in seen:
            seen.add(id(player))
            check(env)


def agent_games(
    env: Any,
    start: tuple[Any, Mapping[str, Any]],
    player_a: Any,
    player_b: Any,
    *,
    games: int,
    alternate: bool,
    steps: bool = False,
    obs: bool = False,
    book: Sequence[Sequence[int]] = (),
) -> Iterator[FinishedGame]:
    """Play ``games`` games on the boards of a vector env (next-step
    autoreset; ``start`` is what its ``reset()`` returned) and yield each as
    it ends. Board ``i``'s
    ``k``-th game is game ``i + k * num_envs``; with ``alternate`` player A
    takes the first seat in the even games. ``steps`` (and ``obs``) keep each
    game's moves (and the mover's observation before each).

    A game a player forfeits is lost by it (:class:`Forfeit` says why); its
    board plays the game out at random, unrecorded, before its next game.
    Players are asked only for the boards where their move is used
    (``acting``, for agents that take it); a board past the last game plays
    at random. Every player is checked first (:func:`check_players`).
    ``book``: the cells of each opening (``opening_cells``); game ``k``
    starts with opening ``(k // 2) % len(book)`` (with ``alternate``, each
    opening from both seats; else ``k % len(book)``), its stones played for
    the players."""
    check_players(env, player_a, player_b)
    boards = env.num_envs
    observation, info = start
    game = np.arange(boards)  # the game each board is playing
    episode = np.zeros(boards, dtype=np.int64)
    logs = [FinishedGame(np.zeros((), dtype=RECORD_DTYPE)) for _ in range(boards)]
    finished = 0
    resetting = np.zeros(boards, dtype=bool)  # next-step autoreset: actions ignored
    forfeited = np.zeros(boards, dtype=bool)  # the game was lost; the board plays it out
    ply = np.zeros(boards, dtype=np.int64)  # steps played in each board's game
    while finished < games:
        a_seat = np.where(alternate & (game % 2 == 1), 1, 0)
        a_to_play = info["to_play"] == a_seat
        idle = forfeited | (game >= games)  # moves nobody records: random, in C
        playing = ~resetting & ~idle
        forced = np.full(boards, -1, dtype=np.int64)  # the opening's stone, where one is due
        if book:
            for b in (int(x) for x in np.flatnonzero(playing)):
                k = int(game[b]) // 2 if alternate else int(game[b])
                opening = book[k % len(book)]
                if ply[b] < len(opening):
                    forced[b] = opening[int(ply[b])]
        choosing = playing & (forced < 0)
        lost_a: dict[int, str] = {}
        lost_b: dict[int, str] = {}
        actions_a = checked_actions(player_a, "player A", env, a_to_play & choosing, lost_a)
        actions_b = checked_actions(player_b, "player B", env, ~a_to_play & choosing, lost_b)
        actions = np.where(forced >= 0, forced, np.where(a_to_play, actions_a, actions_b))
        for who, lost, seat_of in (("A", lost_a, a_seat), ("B", lost_b, 1 - a_seat)):
            for b, reason in sorted(lost.items()):
                if not playing[b]:
                    continue
                log = logs[b]
                _fill(log.record, int(game[b]), b, int(episode[b]), int(a_seat[b]), info)
                log.record["length"] = int(env.board(b)["steps"])
                log.record["winner"] = 1 - int(seat_of[b])
                log.record["moves_hash"] = moves_hash(log.moves)
                player = player_a if who == "A" else player_b
                log.forfeit = Forfeit(int(game[b]), agent_name(player), int(seat_of[b]), reason)
                yield log
                logs[b] = FinishedGame(np.zeros((), dtype=RECORD_DTYPE))
                finished += 1
                forfeited[b] = True
                game[b] += boards
                playing[b] = False
        if (forfeited | idle).any():
            actions = np.where(forfeited | idle, env.sample_legal(), actions)
        if steps:
            for b in (int(x) for x in np.flatnonzero(playing)):
                board = env.board(b)
                logs[b].actions.append(int(actions[b]))
                logs[b].seats.append(int(board["seat"]))
                logs[b].colours.append(int(board["colour"]))
                if obs:
                    logs[b].obs.append(np.array(observation[b]))
        for b in (int(x) for x in np.flatnonzero(playing)):
            logs[b].record["last_action"] = int(actions[b])
            logs[b].moves.append(int(actions[b]))
            if forced[b] >= 0:
                logs[b].record["book"] += 1
        ply = np.where(playing, ply + 1, ply)
        observation, _, terminated, truncated, info = env.step(actions)
        resetting = terminated | truncated
        ply = np.where(resetting, 0, ply)
        for i in (int(x) for x in np.flatnonzero(terminated | truncated)):
            if forfeited[i]:  # the lost game's play-out ended: its record stands
                forfeited[i] = False
                episode[i] += 1
                continue
            if game[i] < games:
                log = logs[i]
                _fill(log.record, int(game[i]), i, int(episode[i]), int(a_seat[i]), info)
                log.record["length"] = int(info["episode_length"][i])
                log.record["winner"] = int(info["winner"][i])
                log.record["truncated"] = int(bool(truncated[i]))
                if "scores" in info:
                    log.record["scores"] = info["scores"][i]
                log.record["moves_hash"] = moves_hash(log.moves)
                yield log
                finished += 1
            logs[i] = FinishedGame(np.zeros((), dtype=RECORD_DTYPE))
            game[i] += boards
            episode[i] += 1


def _fill(r: Any, g: int, board: int, episode: int, a_seat: int, info: Mapping[str, Any]) -> None:
    r["game"], r["board"], r["episode"] = g, board, episode
    r["seat0_player"] = int(a_seat)
    r["black_seat"] = int(info["black_seat"][board]) if "black_seat" in info else 0
    r["opening"] = int(info["opening"][board]) if "opening" in info else -1


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
    progress: Progress | None = None,
    done_before: tuple[int, int] = (0, 0),
    openings: OpeningBook | None = None,
) -> npt.NDArray[Any]:
    """Play ``games`` games of one variant (:func:`agent_games`); one record
    per game (:data:`fiverow.selfplay.RECORD_DTYPE`), in game order;
    ``forfeits`` gets the games lost by forfeit. ``progress`` is updated as
    games end, counting on from ``done_before`` (games, steps); ``openings``:
    the games' opening book (:mod:`fiverow.players.openings`)."""
    boards = min(boards, games)
    env = make_vec(variant, num_envs=boards, seed=seed, num_threads=num_threads, **params)
    try:
        pool = env.unwrapped.pool
        book = opening_cells(pool, pool._order[0], openings)
    except ValueError:
        env.close()
        raise
    start = env.reset(seed=seed)
    records = np.zeros(games, dtype=RECORD_DTYPE)
    finished, steps = done_before
    for done in agent_games(
        env, start, player_a, player_b, games=games, alternate=alternate, book=book
    ):
        records[int(done.record["game"])] = done.record
        if done.forfeit is not None and forfeits is not None:
            forfeits.append(done.forfeit)
        if progress is not None:
            finished, steps = finished + 1, steps + int(done.record["length"])
            progress.update(finished, steps)
    env.close()
    return records
