"""Self-play on a Ray cluster: datasets (``fiverow generate --ray``) and
balance studies (``fiverow balance --ray``), game for game the same as on
one machine.

>>> import fiverow
>>> fiverow.generate.generate("data.h5", "renju", games=100_000, black="heuristic",
...                           seed=1, ray="auto")  # doctest: +SKIP

A run is cut into shards, ranges of game numbers (:mod:`fiverow.runs.shards`):
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
import socket
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import ray

from .output import check_out_path, parts_of, remove_outputs
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
#: How long a cluster address may take to answer before the run gives up on it.
CONNECT_SECONDS = 10.0
#: How long the driver waits for the progress actor's totals (it then shows
#: the finished shards' count instead: progress never holds a run up).
PROGRESS_SECONDS = 2.0


class ClusterError(ConnectionError):
    """The cluster failed the run: an address that does not answer, or a
    shard Ray could not play even after its retries (a lost node, every time)."""


class ShardLost(Exception):
    """A shard whose task Ray gave up on (its worker or node died more often
    than :data:`MAX_RETRIES`, or its result was lost with its node)."""

    def __init__(self, shard: Shard, error: BaseException) -> None:
        reason = " ".join(str(error).split())[:300] or type(error).__name__
        super().__init__(
            f"shard {shard.index} (games {shard.start}..{shard.stop - 1}) failed on the "
            f"cluster after {MAX_RETRIES} retries: {type(error).__name__}: {reason}"
        )
        self.shard = shard


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
        check_reachable(address)
        ray.init(address=address, logging_level=logging.WARNING)
    try:
        yield
    finally:
        ray.shutdown()


def check_reachable(address: str, seconds: float = CONNECT_SECONDS) -> None:
    """:class:`ClusterError`, naming the address, unless a Ray cluster answers
    there within about ``seconds``: Ray itself would retry an address where
    nothing listens for minutes, printing only its warnings. ``"auto"`` is
    the cluster started on this machine (or ``RAY_ADDRESS``)."""
    from ray._private.services import canonicalize_bootstrap_address

    client = address.startswith("ray://")
    try:
        target = address[len("ray://") :] if client else canonicalize_bootstrap_address(address)
    except ConnectionError as e:  # "auto" with no cluster here
        raise ClusterError(f"ray address {address}: {e}") from None
    except ValueError:
        target = None
    host, _, port = (target or "").rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(
            f"ray address {address!r} is not a cluster address: give host:port (the head's "
            "GCS, e.g. 10.0.0.5:6379), ray://host:port (Ray Client), auto or local"
        )
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=seconds).close()
    except OSError as e:
        why = f"no answer in {seconds:g} s" if isinstance(e, TimeoutError) else e.strerror or e
        raise ClusterError(
            f"cannot reach a Ray cluster at {address} ({why}): start one there "
            "(`ray start --head`) or give the head's address"
        ) from None
    if not client:
        _check_gcs(address, target or "")


def _check_gcs(address: str, target: str) -> None:
    """Something listens at ``target``: is it a Ray cluster's GCS? (Ray's
    own client gives up after about 40 s where a Ray's would answer at once.)"""
    try:
        from ray._raylet import GcsClient  # type: ignore[attr-defined]
    except ImportError:  # another Ray: ray.init alone decides
        return
    try:
        GcsClient(address=target)
    except Exception as e:  # noqa: BLE001 - Ray's RpcError and kin
        raise ClusterError(
            f"cannot reach a Ray cluster at {address}: something listens there but does "
            f"not answer as Ray's GCS ({e})"
        ) from None


def worker_slots(threads: int) -> int:
    """Tasks of ``threads`` CPUs the cluster runs at once."""
    cpus = int(ray.cluster_resources().get("CPU", 1))
    return max(1, cpus // max(1, threads))


def default_shard_games(games: int, threads: int) -> int:
    return max(1, math.ceil(games / (SHARDS_PER_SLOT * worker_slots(threads))))


def _new_board() -> Any:
    """A progress actor on this node (the driver's): a worker node that dies
    does not take it along."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=True)
    return _Board.options(scheduling_strategy=here).remote()  # type: ignore[attr-defined]


class _Totals:
    """The progress line's games and steps: the progress actor's totals
    while it answers, else (an actor lost with its node, or slow) the
    finished shards' own counts. Never raises."""

    def __init__(self, board: Any) -> None:
        self.board = board
        self.finished = (0, 0)  # games, steps of the shards done

    def add(self, games: int, steps: int) -> None:
        self.finished = (self.finished[0] + games, self.finished[1] + steps)

    def now(self) -> tuple[int, int]:
        if self.board is not None:
            try:
                games, steps = ray.get(self.board.totals.remote(), timeout=PROGRESS_SECONDS)
                return max(games, self.finished[0]), max(steps, self.finished[1])
            except Exception:  # noqa: BLE001 - any Ray failure: progress goes on without it
                self.board = None
        return self.finished


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
            _tell(board, shard.index, games, steps)

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
    _tell(board, shard.index, len(games), int(games["length"].sum()))
    return games.tobytes(), data


def _tell(board: Any, shard: int, games: int, steps: int) -> None:
    """Report to the progress actor; a lost actor costs the progress line only."""
    try:
        board.report.remote(shard, games, steps)
    except Exception:  # noqa: BLE001 - whatever Ray raises, the shard goes on
        pass


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
    progress actor to reuse (an actor is a process: seconds to start).

    A task whose worker or node dies is played again by Ray (up to
    :data:`MAX_RETRIES` times); a shard Ray gives up on raises
    :class:`ShardLost` (the tasks in flight are cancelled). The progress
    line never stops a run: a lost progress actor leaves it counting the
    finished shards."""
    if board is None:
        board = _new_board()
    else:
        try:
            ray.get(board.reset.remote(), timeout=PROGRESS_SECONDS)
        except Exception:  # noqa: BLE001 - lost with its node: a new one
            board = _new_board()
    totals = _Totals(board)
    run_id = uuid.uuid4().hex[:12]
    task = _play.options(num_cpus=spec.num_threads or 1)  # type: ignore[attr-defined]
    pending = {task.remote(spec, shard, write, board, run_id): shard for shard in shards}
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=len(pending), timeout=0.25)
            for ref in ready:
                shard = pending.pop(ref)
                try:
                    games_bytes, data = ray.get(ref)
                except ray.exceptions.RayTaskError:
                    raise  # the shard's own error: not the cluster's
                except ray.exceptions.RayError as e:
                    raise ShardLost(shard, e) from None
                records = np.frombuffer(games_bytes, dtype=RECORD_DTYPE).copy()
                on_done(shard, records, data)
                totals.add(len(records), int(records["length"].sum()))
            if bar:
                games, steps = totals.now()
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
    shards (:func:`fiverow.runs.shards.open_games`). Connects on creation;
    ``close()`` shuts down a Ray it started."""

    def __init__(self, spec: RunSpec, address: RayAddress) -> None:
        self.spec = dataclasses.replace(spec, num_threads=spec.num_threads or 1)
        self._ray = connect(address)
        self._ray.__enter__()
        self._board = _new_board()
        self.next_game = 0
        self.games = self.steps = 0

    def play(self, games: int, bar: Progress | None = None) -> tuple[npt.NDArray[Any], bool]:
        """Games ``next_game`` .. ``next_game + games - 1``: their records in
        game order, and whether Ctrl-C stopped them (then only the finished
        shards' games are returned)."""
        shards = plan(self.next_game, games, default_shard_games(games, self.spec.num_threads or 1))
        parts: list[npt.NDArray[Any]] = []
        try:
            interrupted = run_shards(
                self.spec,
                shards,
                lambda shard, records, data: parts.append(records),
                bar=bar,
                already=(self.games, self.steps),
                board=self._board,
            )
        except ShardLost as e:
            raise ClusterError(f"the run stopped: {e}") from None
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
    except BaseException as e:
        if done:
            publish()  # the finished shards stay readable
        else:
            remove_outputs(out)
        if isinstance(e, ShardLost):
            then = (
                f"the {len(done)} shard(s) finished are kept in '{out}': run the same "
                "command again with --resume (resume=True) to play the others"
                if done
                else "no shard had finished: run the same command again"
            )
            raise ClusterError(f"the run stopped: {e}; {then}") from None
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
