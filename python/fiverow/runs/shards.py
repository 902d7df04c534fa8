"""Runs cut into shards: ranges of game numbers played apart, alike.

Game k of a self-play run is episode k / N of the board at position k % N
of a fixed order of the run's N boards (csrc/env/selfplay.h), so its random keys
depend on the seed, k and the boards per variant only. A shard (games
``start`` to ``stop - 1``) played by any process on any thread count with
the same :class:`RunSpec` therefore yields exactly those games of the
whole run. :mod:`fiverow.distributed` plays shards as Ray tasks; this module
needs no Ray.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _core
from ..players import Player
from ..players.openings import OpeningBook, set_books
from .output import parts_of, run_attribute, writer_spec
from .selfplay import RECORD_DTYPE, Pairing, mixed_pool, new_selfplay, records, run

#: A shard's segment file under ``<out>.parts/`` (the C writer's naming).
SEGMENT_NAME = "seg-{:06d}.h5"
#: The plan of a sharded run, beside its segments (for --resume).
PLAN_NAME = "plan.json"
#: Segments never close on a timer in a shard: one segment is one file.
SHARD_FLUSH_SECONDS = 1e5


@dataclass(frozen=True)
class RunSpec:
    """What decides a run's games: the same spec gives the same game k."""

    variants: Mapping[str, float]
    boards: int
    seed: int
    players: tuple[Player, Player]
    alternate: bool
    params: Mapping[str, Any] | None = None
    num_threads: int | None = None
    obs: bool = False
    policy: bool = False
    #: the games' openings (:mod:`fiverow.players.openings`), None for none
    openings: OpeningBook | None = None


@dataclass(frozen=True)
class Shard:
    index: int
    start: int
    stop: int

    @property
    def games(self) -> int:
        return self.stop - self.start


@dataclass(frozen=True)
class ShardFile:
    """Where and how a shard is written: a one-segment dataset of the run."""

    path: str
    run_info: dict[str, Any] = field(default_factory=dict)
    gzip: int = 4
    chunks: str = "auto"


def plan(first: int, games: int, shard_games: int) -> list[Shard]:
    """Games ``first`` .. ``first + games - 1`` in shards of ``shard_games``."""
    if isinstance(shard_games, bool) or not isinstance(shard_games, int) or shard_games < 1:
        raise ValueError(f"shard_games must be a positive integer, got {shard_games!r}")
    n = math.ceil(games / shard_games)
    return [
        Shard(k, first + k * shard_games, first + min(games, (k + 1) * shard_games))
        for k in range(n)
    ]


def play_shard(
    spec: RunSpec,
    shard: Shard,
    write: ShardFile | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> npt.NDArray[Any]:
    """Play the shard's games (written to ``write.path`` as a dataset of one
    segment when given); returns their records (RECORD_DTYPE) in game order.
    Raises RuntimeError if fewer games than the shard's were finished."""
    pool = mixed_pool(dict(spec.variants), spec.boards, spec.params, spec.seed, spec.num_threads)
    writer = None
    if write is not None:
        writer = writer_spec(
            write.path,
            pool,
            write.run_info,
            overwrite=True,
            gzip=write.gzip,
            flush_seconds=SHARD_FLUSH_SECONDS,
            chunks=write.chunks,
        )
    pairing = Pairing(spec.players[0], spec.players[1], spec.alternate)
    sp = new_selfplay(
        pool, pairing, spec.seed, record_obs=spec.obs, record_policy=spec.policy, writer=writer
    )
    try:
        set_books(sp, pool, spec.openings)
        sp.seek(shard.start)
        played, interrupted = run(sp, shard.games, on_progress)
    finally:
        sp.close()
    if played != shard.games or interrupted:
        raise RuntimeError(
            f"shard {shard.index} (games {shard.start}..{shard.stop - 1}) finished "
            f"{played} of its {shard.games} games"
        )
    games = records(sp)
    return games[np.argsort(games["game"], kind="stable")]


def merge_records(parts: list[npt.NDArray[Any]]) -> npt.NDArray[Any]:
    """Records of several shards as one array in game order."""
    if not parts:
        return np.zeros(0, dtype=RECORD_DTYPE)
    games = np.concatenate(parts)
    return games[np.argsort(games["game"], kind="stable")]


def segment_path(out: str | Path, index: int) -> Path:
    return parts_of(out) / SEGMENT_NAME.format(index)


def assemble(
    out: str | Path, done: list[int], seed: int, run_info: dict[str, Any], pack: bool
) -> None:
    """The file at ``out`` over the finished shards' segments (game order):
    packed into one file, or (``pack=False``) a file naming them."""
    run = json.dumps(run_attribute(seed, run_info), default=str)
    _core.assemble(str(out), sorted(done), pack, run)


class LocalGames:
    """A run's games in order, played in this process (the C self-play)."""

    def __init__(self, pool: Any, spec: RunSpec) -> None:
        pairing = Pairing(spec.players[0], spec.players[1], spec.alternate)
        self._sp = new_selfplay(pool, pairing, spec.seed)
        try:
            set_books(self._sp, pool, spec.openings)
        except ValueError:
            self._sp.close()
            raise

    def play(self, games: int, bar: Any = None) -> tuple[npt.NDArray[Any], bool]:
        """The next ``games`` games: their records, and whether Ctrl-C stopped them."""
        _, interrupted = run(self._sp, games, bar.update if bar else None)
        return records(self._sp), interrupted

    def progress(self) -> tuple[int, int]:
        games, steps = self._sp.progress()
        return int(games), int(steps)

    def close(self) -> None:
        self._sp.close()


def open_games(pool: Any, spec: RunSpec, ray: bool | str | None) -> Any:
    """The run's games played here, or on a Ray cluster (``ray``: see
    :mod:`fiverow.distributed`); ``close()`` it after the last ``play``."""
    if ray is None or ray is False:
        return LocalGames(pool, spec)
    return _distributed().ClusterGames(spec, ray)


def _distributed() -> Any:
    try:
        from . import distributed
    except ImportError as e:
        raise ImportError(f"ray=... needs Ray: pip install 'fiverow[ray]' ({e})") from e
    return distributed


@contextlib.contextmanager
def cluster(ray: bool | str | None) -> Iterator[None]:
    """Ray connected for the block when ``ray`` asks for it (several runs
    then share one local Ray instead of starting one each)."""
    if ray is None or ray is False:
        yield
        return
    with _distributed().connect(ray):
        yield
