"""Self-play datasets in bulk: games between built-in players, played and
written to HDF5 by C (one writer thread owns the file; docs/hdf5.md).

>>> import fiverow
>>> fiverow.generate.generate("data.h5", "renju", games=1000, black="heuristic",
...                  white="mcts:200", seed=1)  # doctest: +SKIP

``black`` plays the first seat in every game (it places black first; an
opening protocol may hand the colours over later), ``white`` the second.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import _core
from .. import players as players_mod
from ..env.pool import MAX_THREADS, check_count, check_seed
from ..players import Player
from ..players import openings as openings_mod
from ..players.openings import OpeningBook, check_book, set_books
from ..runs.output import check_out_path as check_out_path
from ..runs.output import parts_of as parts_of
from ..runs.output import remove_outputs, writer_spec
from ..runs.output import run_attribute as run_attribute
from ..runs.selfplay import (
    Pairing,
    Progress,
    default_boards,
    mixed_pool,
    new_selfplay,
    run,
    variant_weights,
)
from ..runs.shards import RunSpec, _distributed


@dataclass
class GenerateResult:
    path: Path
    games: int
    steps: int
    seconds: float
    interrupted: bool

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds > 0 else float("inf")


def generate(
    out: str | Path,
    variants: str | Sequence[str] | Mapping[str, float] = "freestyle",
    *,
    games: int,
    black: str | Player = "random",
    white: str | Player | None = None,
    seed: int = 0,
    num_threads: int | None = None,
    boards: int | None = None,
    obs: bool = False,
    policy: bool = False,
    overwrite: bool = False,
    gzip: int = 4,
    chunks: str = "auto",
    flush_seconds: float = 2.0,
    progress: bool = False,
    params: Mapping[str, Any] | None = None,
    ray: bool | str | None = None,
    shard_games: int | None = None,
    resume: bool = False,
    openings: str | os.PathLike[str] | OpeningBook | None = "none",
) -> GenerateResult:
    """Play ``games`` games and write them to ``out``.

    ``variants``: a preset, a list of presets, or ``{preset: weight}`` to mix
    several in one pool (boards split by weight). ``params`` override every
    variant's parameters. ``obs`` records each mover's observation, ``policy``
    the mover's policy (float16; MCTS: visit counts). ``gzip``: the level of
    the gzip + shuffle filters (0: none). ``chunks``: how compressed chunks
    are encoded (any HDF5 reader decodes them alike): ``"zlib"`` at the
    ``gzip`` level; ``"fast"``, the actions stored a byte each (a copy: random
    players play faster than zlib compresses); ``"auto"``, zlib until the games
    come faster than the writer compresses them. ``boards``: boards played
    in parallel (default: all games in one round, at most 4096). Ctrl-C stops
    the run; the games finished by then are kept.

    ``ray``: play on a Ray cluster (``pip install 'fiverow[ray]'``): ``True``
    starts a local Ray, ``"auto"`` joins the one running on this machine, a
    string is a cluster address (:mod:`fiverow.distributed`). The file holds
    the same episodes as without Ray. ``openings``: ``"none"``, ``"balanced"``
    or a file (:mod:`fiverow.players.openings`); game ``k`` starts from
    opening ``k % n``, its stones the episode's first steps. The run goes in shards of
    ``shard_games`` games (default: four per worker), ``num_threads`` threads
    each (default 1); a run stopped by Ctrl-C or a kill keeps its finished
    shards readable at ``out``, and ``resume=True`` (same arguments) plays
    the others.
    """
    if isinstance(games, bool) or not isinstance(games, int | np.integer) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    seed = check_seed(seed) or 0
    check_count(num_threads, "num_threads", 1, MAX_THREADS, allow_none=True)  # before any file
    check_chunks(chunks)
    first = players_mod.make(black)
    second = players_mod.make(white if white is not None else black)
    book = openings_mod.book(openings)
    n_boards = default_boards(games) if boards is None else int(boards)
    if n_boards < 1:
        raise ValueError(f"boards must be >= 1, got {boards}")
    on_ray = ray is not None and ray is not False
    if not on_ray and (resume or shard_games is not None):
        raise ValueError("resume and shard_games are for runs on Ray: pass ray=... (CLI: --ray)")
    if not (isinstance(first, Player) and isinstance(second, Player)):
        if on_ray:
            raise ValueError(
                "ray= plays built-in players only; an engine or a Python player runs here"
            )
        from .agent_generate import generate_agents  # an engine or a Python player

        return generate_agents(  # type: ignore[no-any-return]
            out,
            variants,
            first,
            second,
            games=int(games),
            seed=seed,
            num_threads=num_threads,
            boards=n_boards,
            obs=obs,
            policy=policy,
            overwrite=overwrite,
            gzip=gzip,
            flush_seconds=flush_seconds,
            progress=progress,
            params=params,
            openings=book,
        )
    pool = mixed_pool(variants, n_boards, params, seed, 1 if on_ray else num_threads)
    check_book(pool, book)  # before any file
    groups = [pool.groups[name] for name in pool._order]
    run_info = {
        "players": [first.spec(), second.spec()],
        "player_names": [first.name, second.name],
        "seats": "fixed: player 0 (black) in seat 0",
        "seed": seed,
        "games_requested": int(games),
        "boards": {g.name: g.num_envs for g in groups},
        "openings": openings_mod.name_of(book),
    }
    if on_ray:
        del pool, groups  # the tasks build their own
        spec = RunSpec(
            variant_weights(variants),
            n_boards,
            seed,
            (first, second),
            alternate=False,
            params=dict(params or {}),
            num_threads=num_threads or 1,
            obs=obs,
            policy=policy,
            openings=book,
        )
        return _generate_on_ray(
            out,
            spec,
            int(games),
            run_info,
            ray,
            gzip,
            chunks,
            flush_seconds,
            shard_games,
            resume,
            overwrite,
            progress,
        )
    writer = writer_spec(
        out,
        pool,
        run_info,
        overwrite=overwrite,
        gzip=gzip,
        flush_seconds=flush_seconds,
        chunks=chunks,
    )
    sp = new_selfplay(
        pool,
        Pairing(first, second, alternate=False),
        seed,
        record_obs=obs,
        record_policy=policy,
        writer=writer,
    )
    try:
        set_books(sp, pool, book)
    except ValueError:
        sp.close()
        remove_outputs(out)
        raise
    bar = Progress(int(games), label="generate: ") if progress else None
    start = time.perf_counter()
    try:
        played, interrupted = _play_and_close(sp, int(games), bar)
    except BaseException:
        if sp.progress()[0] == 0:
            remove_outputs(out)  # nothing was played: leave nothing behind
        raise
    seconds = time.perf_counter() - start
    _, steps = sp.progress()
    if bar:
        bar.update(played, steps, final=True)
    return GenerateResult(Path(out), played, steps, seconds, interrupted)


def _generate_on_ray(
    out: str | Path,
    spec: RunSpec,
    games: int,
    run_info: dict[str, Any],
    ray: bool | str | None,
    gzip: int,
    chunks: str,
    flush_seconds: float,
    shard_games: int | None,
    resume: bool,
    overwrite: bool,
    progress: bool,
) -> GenerateResult:
    if isinstance(gzip, bool) or not isinstance(gzip, int | np.integer) or not 0 <= gzip <= 9:
        raise ValueError(f"gzip must be an integer level 0..9 (0: none), got {gzip!r}")
    if not (isinstance(flush_seconds, int | float) and 0 < flush_seconds < 1e6):
        raise ValueError(f"flush_seconds must be a positive number, got {flush_seconds!r}")
    if shard_games is not None and (
        isinstance(shard_games, bool) or not isinstance(shard_games, int) or shard_games < 1
    ):
        raise ValueError(f"shard_games must be a positive integer, got {shard_games!r}")
    distributed = _distributed()
    request = {
        "variants": dict(spec.variants),
        "params": spec.params,
        "boards": spec.boards,
        "seed": spec.seed,
        "players": [p.spec() for p in spec.players],
        "games": games,
        "obs": spec.obs,
        "policy": spec.policy,
        "gzip": int(gzip),
        "chunks": chunks,
    }
    start = time.perf_counter()
    played, steps, interrupted = distributed.generate_dataset(
        out,
        spec,
        games,
        run_info,
        request=request,
        gzip=int(gzip),
        chunks=chunks,
        flush_seconds=flush_seconds,
        shard_games=shard_games,
        resume=resume,
        overwrite=overwrite,
        progress=progress,
        address=ray,
    )
    return GenerateResult(Path(out), played, steps, time.perf_counter() - start, interrupted)


def _play_and_close(sp: Any, games: int, bar: Progress | None) -> tuple[int, bool]:
    try:
        return run(sp, games, bar.update if bar else None)
    finally:
        sp.close()  # whatever happened, the games written are made one file


#: How the writer encodes compressed chunks (csrc/io/h5chunk.h).
CHUNK_ENCODINGS = ("auto", "zlib", "fast")


def check_chunks(chunks: str) -> None:
    if chunks not in CHUNK_ENCODINGS:
        raise ValueError(f"chunks must be one of {', '.join(CHUNK_ENCODINGS)}; got {chunks!r}")


def pack(path: str | Path) -> None:
    """Make one self-contained file of a dataset whose run was killed (the file
    then names segments under ``<path>.parts/``)."""
    _core.pack(str(path))
