"""Self-play on a Ray cluster: datasets (``fiverow generate --ray``) and
balance studies (``fiverow balance --ray``), game for game the same as on
one machine.

>>> import fiverow
>>> fiverow.generate.generate("data.h5", "renju", games=100_000, black="heuristic",
...                           seed=1, ray="auto")  # doctest: +SKIP

A run is cut into shards, ranges of game numbers (:mod:`fiverow.data.shards`):
each Ray task builds the run's pool, plays its range with the C players and,
for a dataset, writes it with the C writer as a one-segment dataset that
travels back through Ray's object store (no shared file system needed). The
driver keeps each finished shard as a segment under ``<out>.parts/``,
publishes ``<out>`` over the finished ones (readable at any time, like a
killed run's file) and packs them into one file at the end. Game k depends
on the seed, k and the boards per variant only, so the file holds the same
episodes whatever the shards, workers or threads.

``ray``: ``True`` or ``"local"`` starts a local Ray (stopped at the end);
``"auto"`` joins the cluster running on this machine (``ray start --head``);
any other string is a cluster address (``"10.0.0.5:6379"``,
``"ray://head:10001"``). When this process has already called
``ray.init()``, that Ray is used as it is. A worker that dies has its shard
played again (Ray retries the task up to :data:`MAX_RETRIES` times).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import math
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import ray

from .selfplay import RECORD_DTYPE, Progress
from .shards import (
    PLAN_NAME,
    RunSpec,
    Shard,
    ShardFile,
    assemble,
    merge_records,
    plan,
    play_shard,
    segment_path,
)

#: Times Ray plays a shard again after its worker died.
MAX_RETRIES = 3
#: Shards per worker slot when the caller does not say (load balance).
SHARDS_PER_SLOT = 4
#: How often a task reports its progress, seconds.
REPORT_SECONDS = 0.5

RayAddress = bool | str | None


def wanted(ray_address: RayAddress) -> bool:
    """Whether a ``ray=`` argument asks for Ray (None and False: no)."""
    return ray_address is not None and ray_address is not False


@contextlib.contextmanager
def connect(address: RayAddress) -> Iterator[None]:
    """Ray for the length of a run: this process's own if ``ray.init()`` was
    called, else a new local one (``True``/``"local"``, shut down after) or
    the cluster at ``address`` (``"auto"``: the one on this machine)."""
    if address is True or address == "":
        address = "local"
    if not isinstance(address, str):
        raise TypeError(f"ray must be True, 'local', 'auto' or an address; got {address!r}")
    if ray.is_initialized():
        yield
        return
    if address == "local":
        ray.init(address="local", include_dashboard=False, logging_level=logging.WARNING)
    else:
        ray.init(address=address, logging_level=logging.WARNING)
    try:
        yield
    finally:
        ray.shutdown()


def worker_slots(threads: int) -> int:
    """Tasks of ``threads`` CPUs the cluster runs at once."""
    cpus = int(ray.cluster_resources().get("CPU", 1))
    return max(1, cpus // max(1, threads))


def default_shard_games(games: int, threads: int) -> int:
    return max(1, math.ceil(games / (SHARDS_PER_SLOT * worker_slots(threads))))


@ray.remote(num_cpus=0)
class _Board:
    """Every shard's latest (games, steps), for one progress line."""

    def __init__(self) -> None:
        self.shards: dict[int, tuple[int, int]] = {}

    def report(self, shard: int, games: int, steps: int) -> None:
        self.shards[shard] = (games, steps)

    def reset(self) -> None:
        self.shards.clear()

    def totals(self) -> tuple[int, int]:
        return (
            sum(g for g, _ in self.shards.values()),
            sum(s for _, s in self.shards.values()),
        )


def _shard_dir(run_id: str, shard: Shard) -> Path:
    """The task's scratch directory; a retry on the same node clears the one
    its dead predecessor left."""
    return Path(tempfile.gettempdir()) / f"fiverow-{run_id}-shard-{shard.index:06d}"


@ray.remote(max_retries=MAX_RETRIES)
def _play(
    spec: RunSpec, shard: Shard, write: ShardFile | None, board: Any, run_id: str
) -> tuple[bytes, bytes | None]:
    """A Ray task: the shard's records, and its file's bytes when written."""
    last = [0.0]

    def report(games: int, steps: int) -> None:
        now = time.monotonic()
        if now - last[0] >= REPORT_SECONDS:
            last[0] = now
            board.report.remote(shard.index, games, steps)

    if write is None:
        games = play_shard(spec, shard, None, report)
        data = None
    else:
        scratch = _shard_dir(run_id, shard)
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir(parents=True)
        try:
            path = scratch / "shard.h5"
            games = play_shard(spec, shard, dataclasses.replace(write, path=str(path)), report)
            data = path.read_bytes()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    board.report.remote(shard.index, len(games), int(games["length"].sum()))
    return games.tobytes(), data


def run_shards(
    spec: RunSpec,
    shards: list[Shard],
    on_done: Callable[[Shard, npt.NDArray[Any], bytes | None], None],
    *,
    write: ShardFile | None = None,
    bar: Progress | None = None,
    already: tuple[int, int] = (0, 0),
    board: Any = None,
) -> bool:
    """Play the shards as Ray tasks (``spec.num_threads`` CPUs each, 1 by
    default), calling ``on_done`` in the driver as each one finishes.
    Returns whether Ctrl-C stopped the run (the tasks in flight are then
    cancelled; the finished ones have had their ``on_done``). ``already``:
    games and steps finished before, for the progress line; ``board``: a
    progress actor to reuse (an actor is a process: seconds to start)."""
    if board is None:
        board = _Board.remote()  # type: ignore[attr-defined]
    else:
        ray.get(board.reset.remote())
    run_id = uuid.uuid4().hex[:12]
    task = _play.options(num_cpus=spec.num_threads or 1)  # type: ignore[attr-defined]
    pending = {task.remote(spec, shard, write, board, run_id): shard for shard in shards}
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=len(pending), timeout=0.25)
            for ref in ready:
                shard = pending.pop(ref)
                games_bytes, data = ray.get(ref)
                on_done(shard, np.frombuffer(games_bytes, dtype=RECORD_DTYPE).copy(), data)
            if bar:
                games, steps = ray.get(board.totals.remote())
                bar.update(already[0] + games, already[1] + steps)
    except KeyboardInterrupt:
        _cancel(pending)
        return True
    except BaseException:
        _cancel(pending)
        raise
    return False


def _cancel(pending: dict[Any, Shard]) -> None:
    for ref in pending:
        ray.cancel(ref, force=True)


# ---- balance: records only ----


class ClusterGames:
    """A run's games in order, each call's range spread over the cluster in
    shards (:func:`fiverow.data.shards.open_games`). Connects on creation;
    ``close()`` shuts down a Ray it started."""

    def __init__(self, spec: RunSpec, address: RayAddress) -> None:
        self.spec = dataclasses.replace(spec, num_threads=spec.num_threads or 1)
        self._ray = connect(address)
        self._ray.__enter__()
        self._board = _Board.remote()  # type: ignore[attr-defined]
        self.next_game = 0
        self.games = self.steps = 0

    def play(self, games: int, bar: Progress | None = None) -> tuple[npt.NDArray[Any], bool]:
        """Games ``next_game`` .. ``next_game + games - 1``: their records in
        game order, and whether Ctrl-C stopped them (then only the finished
        shards' games are returned)."""
        shards = plan(self.next_game, games, default_shard_games(games, self.spec.num_threads or 1))
        parts: list[npt.NDArray[Any]] = []
        interrupted = run_shards(
            self.spec,
            shards,
            lambda shard, records, data: parts.append(records),
            bar=bar,
            already=(self.games, self.steps),
            board=self._board,
        )
        self.next_game += games
        done = merge_records(parts)
        self.games += len(done)
        self.steps += int(done["length"].sum())
        return done, interrupted

    def progress(self) -> tuple[int, int]:
        return self.games, self.steps

    def close(self) -> None:
        del self._board
        self._ray.__exit__(None, None, None)


# ---- datasets: shards as segments of one file ----


def generate_dataset(
    out: str | Path,
    spec: RunSpec,
    games: int,
    run_info: dict[str, Any],
    *,
    request: dict[str, Any],
    gzip: int,
    chunks: str,
    flush_seconds: float,
    shard_games: int | None,
    resume: bool,
    overwrite: bool,
    progress: bool,
    address: RayAddress,
) -> tuple[int, int, bool]:
    """Write the run to ``out`` from shards played on the cluster at
    ``address`` (or, with ``resume``, the shards a stopped run left
    unfinished). Returns the games and steps in the file and whether Ctrl-C
    stopped the run. The paths are checked before Ray starts."""
    if resume:
        shard_games, done = _resume(out, request)
    else:
        _start(out, overwrite)
        done = {}
    with connect(address):
        if not resume:
            shard_games = shard_games or default_shard_games(games, spec.num_threads or 1)
            _write_plan(out, request, shard_games)
        assert shard_games is not None
        return _play_dataset(
            out, spec, plan(0, games, shard_games), run_info, done, gzip, chunks, flush_seconds,
            progress,
        )  # fmt: skip


def _write_plan(out: str | Path, request: dict[str, Any], shard_games: int) -> None:
    from .generate import parts_of

    parts = parts_of(out)
    parts.mkdir()
    plan_file = {"format": "fiverow-shards", "request": request, "shard_games": shard_games}
    (parts / PLAN_NAME).write_text(json.dumps(plan_file, default=str))


def _play_dataset(
    out: str | Path,
    spec: RunSpec,
    shards: list[Shard],
    run_info: dict[str, Any],
    done: dict[int, tuple[int, int]],
    gzip: int,
    chunks: str,
    flush_seconds: float,
    progress: bool,
) -> tuple[int, int, bool]:
    from .generate import remove_outputs

    games = shards[-1].stop
    shard_games = shards[0].games
    info = {**run_info, "shards": {"games_per_shard": shard_games, "count": len(shards)}}
    bar = Progress(games, label="generate: ") if progress else None
    published = [time.monotonic()]

    def publish() -> None:
        assemble(out, list(done), spec.seed, info, pack=False)
        published[0] = time.monotonic()

    def keep(shard: Shard, records: npt.NDArray[Any], data: bytes | None) -> None:
        assert data is not None
        path = segment_path(out, shard.index)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)  # a segment file is whole or absent
        done[shard.index] = (len(records), int(records["length"].sum()))
        if time.monotonic() - published[0] >= flush_seconds:
            publish()

    todo = [s for s in shards if s.index not in done]
    write = ShardFile("", {**info}, gzip, chunks)
    before = (sum(g for g, _ in done.values()), sum(s for _, s in done.values()))
    try:
        interrupted = run_shards(spec, todo, keep, write=write, bar=bar, already=before)
    except BaseException:
        if done:
            publish()  # the finished shards stay readable
        else:
            remove_outputs(out)
        raise
    games_done = sum(g for g, _ in done.values())
    steps_done = sum(s for _, s in done.values())
    if bar:
        bar.update(games_done, steps_done, final=True)
    if not done:
        remove_outputs(out)
    elif len(done) == len(shards):
        assemble(out, list(done), spec.seed, info, pack=True)
    else:
        publish()
    return games_done, steps_done, interrupted


def _start(out: str | Path, overwrite: bool) -> None:
    """Refuse what a new run would overwrite, or clear it with ``overwrite``."""
    from .generate import check_out_path, parts_of, remove_outputs

    check_out_path(out, overwrite)
    parts = parts_of(out)
    if not overwrite and Path(out).exists():
        raise OSError(f"'{out}' exists; pass overwrite=True (CLI: --overwrite) to replace it")
    if not overwrite and parts.exists():
        raise OSError(
            f"'{parts}' holds the shards of an interrupted run: finish it with resume=True "
            f"(CLI: --resume), make a file of them with `fiverow pack {out}`, or pass "
            "overwrite=True (CLI: --overwrite)"
        )
    if overwrite:
        remove_outputs(out)
    directory = Path(out).absolute().parent
    if not directory.is_dir():
        raise OSError(f"cannot write '{out}': its directory does not exist")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise OSError(f"cannot write '{out}': its directory is not writable")


def _resume(out: str | Path, request: dict[str, Any]) -> tuple[int, dict[int, tuple[int, int]]]:
    """The plan of the stopped run at ``out`` (which must be this request's)
    and its finished shards: index -> (games, steps)."""
    import h5py

    from .generate import parts_of

    plan_path = parts_of(out) / PLAN_NAME
    if not plan_path.is_file():
        raise OSError(
            f"nothing to resume at '{out}': '{plan_path}' is missing (a run on Ray that was "
            "stopped leaves it; a packed file is already complete)"
        )
    plan_file = json.loads(plan_path.read_text())
    saved = plan_file.get("request", {})
    asked = json.loads(json.dumps(request, default=str))
    if saved != asked:
        different = sorted(k for k in asked.keys() | saved.keys() if saved.get(k) != asked.get(k))
        raise ValueError(
            f"the run at '{out}' was started with other settings ({', '.join(different)}); "
            "resume it with the same ones"
        )
    shard_games = int(plan_file["shard_games"])
    done: dict[int, tuple[int, int]] = {}
    for shard in plan(0, int(request["games"]), shard_games):
        path = segment_path(out, shard.index)
        if not path.is_file():
            continue
        try:
            with h5py.File(path, "r") as f:
                counts = [f[name].attrs["counts"] for name in f.attrs["variants"].split("\n")]
            games = int(sum(c[1] for c in counts))
            steps = int(sum(c[0] for c in counts))
        except (OSError, KeyError, RuntimeError, ValueError):  # damaged: h5py's errors
            games = steps = -1
        if games == shard.games:
            done[shard.index] = (games, steps)
        else:
            path.unlink()  # damaged: played again
    return shard_games, done
