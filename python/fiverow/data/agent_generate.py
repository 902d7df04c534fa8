"""Datasets of games with Python players or Gomocup engines in a seat.

:func:`fiverow.generate.generate` plays built-in players in C; when a player
is an engine (``gomocup:CMD``) or a Python agent it comes here: the games of
one variant are stepped from Python (:func:`fiverow.agent_match.agent_games`)
and written through the same C writer thread (:class:`fiverow.data.Writer`),
with each player's name and settings (an engine's ABOUT included) in the
file's run record, and games lost by forfeit listed in the file.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..env.vector import make_vec
from ..players.openings import OpeningBook, name_of, opening_cells
from ..runs.agent_match import agent_games, agent_name, check_players
from ..runs.output import remove_outputs
from ..runs.selfplay import Progress
from .writer import Writer


def describe(player: Any) -> dict[str, Any]:
    """A player's settings for the run record."""
    for method in ("describe", "spec"):
        call = getattr(player, method, None)
        if callable(call):
            return dict(call())
    return {"kind": "python", "name": agent_name(player)}


def generate_agents(
    out: str | Path,
    variants: str | Sequence[str] | Mapping[str, float],
    first: Any,
    second: Any,
    *,
    games: int,
    seed: int,
    num_threads: int | None,
    boards: int,
    obs: bool,
    policy: bool,
    overwrite: bool,
    gzip: int,
    flush_seconds: float,
    progress: bool,
    params: Mapping[str, Any] | None,
    openings: OpeningBook | None = None,
) -> Any:
    """The games of ``first`` (seat 0) against ``second`` on one variant,
    written to ``out`` (arguments as :func:`fiverow.generate.generate`).
    Ctrl-C stops the run and keeps the games finished."""
    from .generate import GenerateResult

    if not isinstance(variants, str):
        raise ValueError(
            f"engines and Python players play one variant per run (--variant); got {variants!r}"
        )
    if policy:
        raise ValueError(
            "policy: only built-in players record a policy; "
            f"{agent_name(first)} / {agent_name(second)} cannot (drop --policy)"
        )
    env = make_vec(
        variants, num_envs=min(boards, games), seed=seed, num_threads=num_threads, **(params or {})
    )
    try:
        book = opening_cells(env.unwrapped.pool, env.unwrapped.pool._order[0], openings)
    except ValueError:
        _close(first, second, env)
        raise
    start = env.reset(seed=seed)
    try:
        check_players(env, first, second)  # an engine that cannot play: before any file
    except BaseException:
        _close(first, second, env)
        raise
    run_info = {
        "players": [describe(first), describe(second)],
        "player_names": [agent_name(first), agent_name(second)],
        "seats": "fixed: player 0 (black) in seat 0",
        "seed": seed,
        "games_requested": int(games),
        "boards": {variants: env.num_envs},
        "openings": name_of(openings),
    }
    names = (agent_name(first), agent_name(second))
    bar = Progress(int(games), label="generate: ") if progress else None
    played = steps = 0
    interrupted = False
    began = time.perf_counter()
    try:
        writer = Writer(
            out,
            env,
            obs=obs,
            players=names,
            overwrite=overwrite,
            gzip=gzip,
            flush_seconds=flush_seconds,
            run=run_info,
        )
    except BaseException:
        _close(first, second, env)
        raise
    try:
        for done in agent_games(
            env,
            start,
            first,
            second,
            games=int(games),
            alternate=False,
            steps=True,
            obs=obs,
            book=book,
        ):
            r = done.record
            writer.add(
                int(r["board"]),
                done.actions,
                done.seats,
                done.colours,
                int(r["winner"]),
                episode=int(r["episode"]),
                obs=np.stack(done.obs) if obs else None,
                truncated=bool(r["truncated"]),
                scores=(int(r["scores"][0]), int(r["scores"][1])),
                black_seat=int(r["black_seat"]),
                opening=int(r["opening"]),
                forfeit=None if done.forfeit is None else done.forfeit.reason,
            )
            if done.actions:  # a game forfeited before any move is listed, not written
                played += 1
                steps += len(done.actions)
            if bar:
                bar.update(played, steps)
    except KeyboardInterrupt:
        interrupted = True  # the games finished so far are kept
    except BaseException:
        writer.close()
        if played == 0:
            remove_outputs(out)  # nothing was played: leave nothing behind
        _close(first, second, env)
        raise
    writer.close()
    _close(first, second, env)
    if bar:
        bar.update(played, steps, final=True)
    return GenerateResult(Path(out), played, steps, time.perf_counter() - began, interrupted)


def _close(first: Any, second: Any, env: Any) -> None:
    for player in (first, second):
        close = getattr(player, "close", None)
        if callable(close):
            close()
    env.close()
