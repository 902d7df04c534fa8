"""Shuffled training minibatches rebuilt in C from a dataset's moves and keys.

>>> from fiverow import data
>>> for batch in data.Batches("games.h5", 256, seed=1):  # doctest: +SKIP
...     batch["obs"], batch["mask"], batch["action"], batch["value"]

The loader reads whole blocks of consecutive games (their moves, keys and
outcomes; policies when asked) into a shuffle buffer of ``buffer`` positions,
in a random block order per epoch, and draws each round of batches uniformly
from the positions the buffer holds, refilling it between rounds. The C core
(csrc/io/training_batches.c) replays each game the round drew from, once, up to the last
position it needs, on the batch's threads, and writes every position with its
random symmetry straight into the round's arrays. Memory is bounded by the
buffer, not by the file: see docs/hdf5.md ("Training batches").
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from .. import _core
from ..env.pool import MAX_THREADS, OBSERVATIONS, Pool, _choice, check_count, check_seed
from .reader import Dataset, DatasetError, VariantData, _reading, read_rows

#: Default shuffle buffer, in positions.
DEFAULT_BUFFER = 1 << 16
#: Most bytes of output arrays one round of batches is written into (about:
#: a round may run a quarter over, to carry a short batch or at the start).
ROUND_BYTES = 16 << 20
#: The most rounds a game's positions are spread over (each costs a replay
#: of the game up to its last position drawn in that round).
MAX_SPREAD = 8
#: Variants of up to this many games have the per-episode columns a loader
#: needs (30 bytes a game) read once; larger ones are read block by block.
EPISODES_IN_MEMORY = 1 << 20
#: Rows of the length column read at a time when the blocks are laid out.
_LENGTH_SLICE = 1 << 20

SourceArg: TypeAlias = str | Path | Dataset | Sequence[str | Path | Dataset]
Batch = dict[str, npt.NDArray[Any]]


@dataclass
class _Part:
    """The games of one variant in one file, cut into blocks of consecutive
    episodes (the unit a buffer loads)."""

    file: int  # index into Batches.files
    variant: int  # index into Batches.variants
    vd: VariantData
    group: int  # the variant's index among its shape's variants
    positions: int
    block_start: npt.NDArray[np.int64]  # first episode of each block, then the end
    block_positions: npt.NDArray[np.int64]
    columns: dict[str, Any] = field(default_factory=dict)  # h5py datasets, looked up once

    def __post_init__(self) -> None:
        group = self.vd._group
        # the per-episode columns a block needs: read whole (one read each
        # instead of one per block) unless the variant has very many games
        whole = len(self.vd) <= EPISODES_IN_MEMORY
        with _reading(self.vd.dataset.path, f"the episodes of '{self.vd.name}'"):
            for name in ("offset", "length", "winner", "seed", "board", "episode"):
                column = group[f"episodes/{name}"]
                self.columns[name] = read_rows(self.vd.dataset.path, column) if whole else column
        self.columns["action"] = group["steps/action"]
        if self.vd.has_policy:
            self.columns["policy"] = group["steps/policy"]


@dataclass
class _Shape:
    """Variants whose positions share one observation shape and action count:
    their batches are made together."""

    names: list[str]
    planes: int
    height: int
    width: int
    n_actions: int
    parts: list[_Part] = field(default_factory=list)
    pool: Pool | None = None
    farm: Any = None
    n_symmetries: npt.NDArray[np.int32] | None = None  # per group

    @property
    def position_bytes(self) -> int:
        return self.planes * self.height * self.width + self.n_actions + 8 + 4 + 4 * 8


def _games(
    sources: SourceArg,
) -> tuple[list[Dataset], list[bool]]:
    """The open datasets of a source argument, and which of them this loader
    opened (and closes)."""
    items: Sequence[str | Path | Dataset]
    if isinstance(sources, str | Path | Dataset):
        items = [sources]
    elif isinstance(sources, Sequence) and sources:
        items = sources
    else:
        raise ValueError(
            "source must be a dataset path, an open Dataset or a non-empty list of them, "
            f"got {sources!r}"
        )
    datasets: list[Dataset] = []
    owned: list[bool] = []
    try:
        for item in items:
            if isinstance(item, Dataset):
                datasets.append(item)
                owned.append(False)
            elif isinstance(item, str | Path):
                datasets.append(Dataset(item))
                owned.append(True)
            else:
                raise TypeError(
                    f"source items must be paths or open Datasets, got {type(item).__name__}"
                )
    except BaseException:
        for ds, mine in zip(datasets, owned, strict=True):
            if mine:
                ds.close()
        raise
    return datasets, owned


def _selection(
    variants: str | Sequence[str] | Mapping[str, float] | None, present: list[str], where: str
) -> tuple[list[str], dict[str, float] | None]:
    """The variants asked for (None: every variant of the files) and their
    weights (None: every position once per epoch)."""
    if variants is None:
        return present, None
    if isinstance(variants, str):
        variants = [variants]
    weights: dict[str, float] | None = None
    if isinstance(variants, Mapping):
        weights = {}
        for name, w in variants.items():
            if isinstance(w, bool) or not isinstance(w, int | float | np.integer | np.floating):
                raise TypeError(f"variants: the weight of '{name}' must be a number, got {w!r}")
            if not math.isfinite(float(w)) or w < 0:
                raise ValueError(f"variants: the weight of '{name}' must be >= 0, got {w}")
            weights[str(name)] = float(w)
        if not weights or sum(weights.values()) <= 0:
            raise ValueError("variants: the weights must not all be zero")
        names = list(weights)
    elif isinstance(variants, Sequence) and variants:
        names = [str(name) for name in variants]
    else:
        raise ValueError(f"variants must be names or a mapping of name -> weight, got {variants!r}")
    for name in names:
        if name not in present:
            raise ValueError(f"{where} has no variant '{name}'; it has {', '.join(present)}")
    if len(set(names)) != len(names):
        raise ValueError(f"variants: a variant is named twice in {names}")
    return names, weights


def _blocks(vd: VariantData, target: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Blocks of consecutive episodes of about ``target`` positions (at least
    one game, and at least 16 blocks where there are 16 games, so that workers
    and shards share small files too): their first episodes (and the end) and
    positions. The lengths are read in slices: memory is per block."""
    n = len(vd)
    mean = max(1.0, vd.steps / max(n, 1))
    games = max(1, min(math.ceil(target / mean), math.ceil(n / 16)))
    column = vd._group["episodes/length"]
    step = max(1, _LENGTH_SLICE // games) * games  # whole blocks per slice
    sums = []
    with _reading(vd.dataset.path, f"the episode lengths of '{vd.name}'"):
        for lo in range(0, n, step):
            lengths = column[lo : lo + step].astype(np.int64)
            if lengths.min() < 1:
                i = lo + int(np.argmin(lengths))
                raise vd._damaged(f"episode {i} has length {lengths.min()}")
            sums.append(np.add.reduceat(lengths, np.arange(0, len(lengths), games)))
    start = np.minimum(np.arange(0, n + games, games, dtype=np.int64), n)
    start = np.unique(start)
    positions = np.concatenate(sums) if sums else np.zeros(0, dtype=np.int64)
    return start, positions.astype(np.int64)


class Batches:
    """Shuffled training minibatches of a dataset, rebuilt in C from its moves
    and keys (docs/hdf5.md, "Training batches").

    ``source``: a dataset path, an open :class:`Dataset`, or a list of them
    (the shards of a run). Each batch is a dict of NumPy arrays:
    ``obs`` (uint8 ``[B, planes, H, W]``, the observation before the move in
    ``observation`` mode), ``action`` (int64), ``mask`` (bool
    ``[B, n_actions]``, the legal actions), ``policy`` (float32, when asked
    or every file has policies), ``value`` (float32, the game's outcome from
    the mover's seat: +1 / 0 / -1), ``variant`` (index into
    :attr:`variants`), ``file`` (index into :attr:`files`), ``episode``
    (the game's index in its variant), ``ply`` and ``symmetry``: row ``b`` is
    ``ds[variants[variant[b]]].replay(episode[b], symmetry[b], observation)``
    at step ``ply[b]``.

    Every position comes exactly once per epoch (``variants`` as a mapping of
    weights changes that: see the docs), in batches of ``batch_size`` (the
    last smaller unless ``drop_last``); variants of different shapes come in
    separate batches. The same seed gives the same batches whatever
    ``num_threads``. Each ``for`` over the loader runs the next ``epochs``
    epochs (:meth:`set_epoch` picks them). ``shard=(k, n)`` keeps the k-th of
    n disjoint parts of the games (DataLoader workers, distributed ranks).
    """

    def __init__(
        self,
        source: SourceArg,
        batch_size: int,
        variants: str | Sequence[str] | Mapping[str, float] | None = None,
        symmetries: bool = True,
        shuffle: bool = True,
        buffer: int = DEFAULT_BUFFER,
        seed: int = 0,
        num_threads: int | None = None,
        drop_last: bool = False,
        epochs: int = 1,
        *,
        observation: str | None = None,
        policy: bool | None = None,
        shard: tuple[int, int] = (0, 1),
    ) -> None:
        check_count(batch_size, "batch_size", 1, 2**31 - 1)
        check_count(buffer, "buffer", 1, 2**40)
        if buffer < batch_size:
            raise ValueError(f"buffer ({buffer}) must hold at least one batch ({batch_size})")
        check_count(epochs, "epochs", 1, 2**31 - 1)
        check_count(num_threads, "num_threads", 1, MAX_THREADS, allow_none=True)
        seed_value = check_seed(seed)
        if seed_value is None:
            raise TypeError("seed must be an int")
        for name, flag in (
            ("symmetries", symmetries),
            ("shuffle", shuffle),
            ("drop_last", drop_last),
        ):
            if not isinstance(flag, bool | np.bool_):
                raise TypeError(f"{name} must be a bool, got {flag!r}")
        if policy is not None and not isinstance(policy, bool | np.bool_):
            raise TypeError(f"policy must be a bool or None, got {policy!r}")
        if (
            not isinstance(shard, tuple | list)
            or len(shard) != 2
            or not all(isinstance(x, int | np.integer) for x in shard)
            or not 0 <= shard[0] < shard[1]
        ):
            raise ValueError(f"shard must be (index, count) with 0 <= index < count, got {shard!r}")
        self.observation = _choice(
            "absolute" if observation is None else observation, OBSERVATIONS, "observation"
        )
        self.batch_size = int(batch_size)
        self.buffer = int(buffer)
        self.seed = seed_value
        self.num_threads = int(num_threads) if num_threads else _core.max_threads()
        self.symmetries = bool(symmetries)
        self.shuffle = bool(shuffle)
        self.drop_last = bool(drop_last)
        self.epochs = int(epochs)
        self.shard = (int(shard[0]), int(shard[1]))
        #: the epoch the next iteration starts at
        self.epoch = 0
        #: the most bytes the shuffle buffer held so far (moves, policies, keys, positions)
        self.peak_buffer_bytes = 0
        #: the most bytes of output arrays held so far (two rounds' worth, reused)
        self.peak_output_bytes = 0
        self._datasets, self._owned = _games(source)
        try:
            self._setup(variants, policy)
        except BaseException:
            self.close()
            raise

    # ---- setup ----

    def _setup(
        self, variants: str | Sequence[str] | Mapping[str, float] | None, policy: bool | None
    ) -> None:
        self.files: list[Path] = [ds.path for ds in self._datasets]
        where = (
            f"'{self.files[0]}'"
            if len(self.files) == 1
            else "the files " + ", ".join(f"'{f}'" for f in self.files)
        )
        present: list[str] = []
        for ds in self._datasets:
            present += [name for name in ds.variants if name not in present]
        #: the variant names read, in the order the batches' ``variant`` indexes
        self.variants: list[str]
        self.variants, weights = _selection(variants, present, where)
        configs: dict[str, tuple[Path, VariantData]] = {}
        for ds in self._datasets:
            for name in ds.variants:
                if name not in self.variants:
                    continue
                vd = ds[name]
                if name in configs and configs[name][1].config.params != vd.config.params:
                    raise ValueError(
                        f"variant '{name}' has different parameters in '{configs[name][0]}' "
                        f"and '{ds.path}'"
                    )
                configs.setdefault(name, (ds.path, vd))
        self.policy = self._policy_target(policy)
        self._shapes: list[_Shape] = []
        by_key: dict[tuple[int, int, int, int], _Shape] = {}
        target = max(1, self.buffer // 16)
        for f, ds in enumerate(self._datasets):
            for name in self.variants:
                if name not in ds.variants:
                    continue
                vd = ds[name]
                planes = len(vd.planes(self.observation))
                key = (planes, vd.obs_shape[1], vd.obs_shape[2], vd.n_actions)
                if key not in by_key:
                    by_key[key] = _Shape([], *key)
                    self._shapes.append(by_key[key])
                shape = by_key[key]
                if name not in shape.names:
                    shape.names.append(name)
                start, sums = _blocks(vd, target)
                shape.parts.append(
                    _Part(
                        f,
                        self.variants.index(name),
                        vd,
                        shape.names.index(name),
                        int(sums.sum()),
                        start,
                        sums,
                    )
                )
        self._rates = self._rates_of(weights)
        for shape in self._shapes:
            self._make_farm(shape, {n: configs[n][1] for n in shape.names})

    def _policy_target(self, policy: bool | None) -> bool:
        lacking = [
            (ds.path, name)
            for ds in self._datasets
            for name in ds.variants
            if name in self.variants and not ds[name].has_policy
        ]
        if policy and lacking:
            path, name = lacking[0]
            raise ValueError(
                f"policy target asked for, but '{path}' has no policies for variant '{name}' "
                "(write them with `fiverow generate --policy`)"
            )
        return not lacking if policy is None else bool(policy)

    def _rates_of(self, weights: dict[str, float] | None) -> npt.NDArray[np.float64]:
        """Per variant: how many times each of its positions comes per epoch
        (on average; 1 without weights)."""
        rates = np.ones(len(self.variants))
        if weights is None:
            return rates
        sizes = np.zeros(len(self.variants))
        for shape in self._shapes:
            for part in shape.parts:
                sizes[part.variant] += part.positions
        total = sizes.sum()
        w = np.array([weights[name] for name in self.variants])
        share = w / w.sum()
        with np.errstate(divide="ignore", invalid="ignore"):
            rates = np.where(sizes > 0, share * total / sizes, 0.0)
        return rates

    def _make_farm(self, shape: _Shape, vds: dict[str, VariantData]) -> None:
        shape.pool = Pool(
            {name: {"num_envs": 1, "config": vds[name].config} for name in shape.names},
            num_threads=self.num_threads,
            observation=self.observation,
        )
        perms: list[npt.NDArray[np.int32]] = []
        first: list[int] = []
        count: list[int] = []
        for name in shape.names:
            rows = vds[name].symmetries.perms
            first.append(sum(len(p) for p in perms))
            count.append(len(rows))
            perms.append(np.stack(rows).astype(np.int32))
        shape.n_symmetries = np.array(count, dtype=np.int32)
        shape.farm = _core.BatchFarm(
            shape.pool._batch,
            OBSERVATIONS[self.observation],
            np.ascontiguousarray(np.concatenate(perms)),
            np.array(first, dtype=np.int64),
            shape.n_symmetries,
        )

    # ---- the public face ----

    @property
    def shapes(self) -> list[tuple[tuple[int, int, int], int, list[str]]]:
        """Per batch shape: (observation shape, n_actions, the variants in it)."""
        return [((s.planes, s.height, s.width), s.n_actions, list(s.names)) for s in self._shapes]

    def set_epoch(self, epoch: int) -> None:
        """The epoch the next iteration starts at (each epoch has its own
        shuffle and symmetries; DataLoader workers: call it before each epoch,
        as with torch's DistributedSampler)."""
        check_count(epoch, "epoch", 0, 2**62)
        self.epoch = int(epoch)

    def __len__(self) -> int:
        """Batches the next iteration yields."""
        total = 0
        for epoch in range(self.epoch, self.epoch + self.epochs):
            for g in range(len(self._shapes)):
                n = int(self._plan(g, epoch)[2].sum())
                full, rest = divmod(n, self.batch_size)
                total += full + (1 if rest and not self.drop_last else 0)
        return total

    def __iter__(self) -> Iterator[Batch]:
        start = self.epoch
        self.epoch += self.epochs
        for epoch in range(start, start + self.epochs):
            yield from self._epoch(epoch)

    def close(self) -> None:
        """Close the files this loader opened (not the Datasets it was given)."""
        for ds, mine in zip(self._datasets, self._owned, strict=True):
            if mine:
                ds.close()

    def __enter__(self) -> Batches:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"<Batches of {self.batch_size} from {len(self.files)} file(s), "
            f"variants {', '.join(self.variants)}, observation {self.observation}>"
        )

    # ---- epochs ----

    def _plan(
        self, g: int, epoch: int
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """This shard's blocks of shape g in epoch order: (part, block, positions
        taken). The plan is the same in every shard (it depends on the seed and
        the epoch only); each keeps every count-th block of it."""
        shape = self._shapes[g]
        rng = np.random.default_rng([self.seed, epoch, g, 0])
        parts, blocks, takes = [], [], []
        for k, part in enumerate(shape.parts):
            rate = float(self._rates[part.variant])
            whole = int(rate)
            n_blocks = len(part.block_positions)
            for _ in range(whole):
                parts.append(np.full(n_blocks, k))
                blocks.append(np.arange(n_blocks))
                takes.append(part.block_positions)
            extra = round((rate - whole) * part.positions)
            if extra:
                # exactly `extra` positions, spread over the blocks at random
                picked = rng.multivariate_hypergeometric(
                    part.block_positions, extra, method="marginals"
                )
                nonzero = np.flatnonzero(picked)
                parts.append(np.full(len(nonzero), k))
                blocks.append(nonzero)
                takes.append(picked[nonzero])
        if not parts:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty
        part_of = np.concatenate(parts).astype(np.int64)
        block_of = np.concatenate(blocks).astype(np.int64)
        take = np.concatenate(takes).astype(np.int64)
        order = rng.permutation(len(take)) if self.shuffle else np.arange(len(take))
        index, count = self.shard
        mine = order[index::count]
        return part_of[mine], block_of[mine], take[mine]

    def _epoch(self, epoch: int) -> Iterator[Batch]:
        streams = [_Stream(self, g, epoch) for g in range(len(self._shapes))]
        remaining = np.array([s.total for s in streams], dtype=np.float64)
        rng = np.random.default_rng([self.seed, epoch, *self.shard, 1 << 20])
        while remaining.sum() > 0:
            g = int(rng.choice(len(streams), p=remaining / remaining.sum()))
            batches, positions = streams[g].round()
            remaining[g] -= positions
            yield from batches
            del batches  # so that the next round may reuse their arrays


class _Stream:
    """One epoch of one shape's positions: the shuffle buffer and its rounds."""

    def __init__(self, owner: Batches, g: int, epoch: int) -> None:
        self.owner = owner
        self.shape = owner._shapes[g]
        self.parts, self.blocks, self.takes = owner._plan(g, epoch)
        self.total = int(self.takes.sum())
        self.next_item = 0
        self.rng = np.random.default_rng([owner.seed, epoch, g, *owner.shard, 1])
        a = self.shape.n_actions
        self.games: dict[str, npt.NDArray[Any]] = _empty_games()
        self.actions = np.zeros(0, dtype=np.int16)
        self.policy = np.zeros((0, a), dtype=np.float16) if owner.policy else None
        self.pool_game = np.zeros(0, dtype=np.int64)
        self.pool_ply = np.zeros(0, dtype=np.int32)
        self.pool_due = np.zeros(0, dtype=np.int64)  # the round each position is drawn in
        self.round_index = 0
        self._spares: list[dict[str, npt.NDArray[Any]]] = []
        b = owner.batch_size
        per_round = max(1, min(owner.buffer // (4 * b), ROUND_BYTES // (b * self._row_bytes())))
        self.round_size = per_round * b
        self.spread = min(MAX_SPREAD, owner.buffer // self.round_size) if owner.shuffle else 1
        self.capacity = self.spread * self.round_size
        # rounds run over round_size while the buffer fills (new positions
        # come due over the next rounds on top of the first ones): capped
        self.max_round = max(b, self.round_size * 5 // 4 // b * b)

    def _row_bytes(self) -> int:
        return self.shape.position_bytes + (4 * self.shape.n_actions if self.owner.policy else 0)

    # ---- the buffer ----

    def _compact(self) -> None:
        """Drop the games no position of the buffer needs any more."""
        n = len(self.games["length"])
        if not n:
            return
        alive = np.bincount(self.pool_game, minlength=n) > 0
        if alive.all():
            return
        new_index = np.cumsum(alive) - 1
        self.pool_game = new_index[self.pool_game]
        starts, lengths = self.games["start"][alive], self.games["length"][alive]
        rows = _ranges(starts, lengths)
        self.actions = self.actions[rows]
        if self.policy is not None:
            self.policy = self.policy[rows]
        self.games = {k: v[alive] for k, v in self.games.items()}
        self.games["start"] = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)

    def _refill(self) -> None:
        self._compact()
        loaded: list[tuple[dict[str, npt.NDArray[Any]], Any, Any, Any, Any]] = []
        held = len(self.pool_game)
        while held < self.capacity and self.next_item < len(self.takes):
            k = self.next_item
            self.next_item += 1
            item = self._load(int(self.parts[k]), int(self.blocks[k]), int(self.takes[k]))
            loaded.append(item)
            held += len(item[3])
        if not loaded:
            return
        base_games = len(self.games["length"])
        base_steps = len(self.actions)
        games = [self.games]
        pool_game, pool_ply, pool_due = [self.pool_game], [self.pool_ply], [self.pool_due]
        actions, policies = [self.actions], [self.policy]
        for cols, acts, pol, game, ply in loaded:
            cols["start"] = cols["start"] + base_steps
            games.append(cols)
            actions.append(acts)
            policies.append(pol)
            pool_game.append(game + base_games)
            pool_ply.append(ply)
            # each position is drawn in one of the next `spread` rounds, at random
            pool_due.append(self.round_index + self.rng.integers(0, self.spread, len(game)))
            base_games += len(cols["length"])
            base_steps += len(acts)
        self.games = {k: np.concatenate([g[k] for g in games]) for k in self.games}
        self.actions = np.concatenate(actions)
        if self.policy is not None:
            self.policy = np.concatenate([p for p in policies if p is not None])
        self.pool_game = np.concatenate(pool_game)
        self.pool_ply = np.concatenate(pool_ply)
        self.pool_due = np.concatenate(pool_due)
        size = (
            self.actions.nbytes
            + (self.policy.nbytes if self.policy is not None else 0)
            + sum(v.nbytes for v in self.games.values())
            + self.pool_game.nbytes
            + self.pool_ply.nbytes
            + self.pool_due.nbytes
        )
        self.owner.peak_buffer_bytes = max(self.owner.peak_buffer_bytes, size)

    def _load(
        self, k: int, block: int, take: int
    ) -> tuple[dict[str, npt.NDArray[Any]], Any, Any, npt.NDArray[np.int64], Any]:
        """Block `block` of part k: its games, moves, policies and the
        positions it adds to the buffer (all of them, or `take` at random)."""
        part = self.shape.parts[k]
        vd = part.vd
        e0, e1 = int(part.block_start[block]), int(part.block_start[block + 1])
        where = f"episodes {e0}..{e1 - 1} of '{vd.name}'"
        c = part.columns
        with _reading(vd.dataset.path, where):
            offset = c["offset"][e0:e1]
            length = c["length"][e0:e1].astype(np.int32)
            winner = c["winner"][e0:e1]
            cols = {
                "seed": c["seed"][e0:e1],
                "board": c["board"][e0:e1].astype(np.int32),
                "episode": c["episode"][e0:e1].astype(np.uint32),
            }
            bad = (winner < -1) | (winner > 1)
            if bad.any():
                i = int(np.argmax(bad))
                raise vd._damaged(f"episode {e0 + i} has winner {winner[i]}, outside -1..1")
            lo = int(offset.min())
            hi = int((offset + length).max())
            rows = _ranges(offset - lo, length)
            path = vd.dataset.path
            actions = read_rows(path, c["action"], slice(lo, hi))[rows]
            policy = (
                read_rows(path, c["policy"], slice(lo, hi))[rows]
                if self.policy is not None
                else None
            )
        n = len(length)
        cols |= {
            "group": np.full(n, part.group, dtype=np.int32),
            "key_group": np.full(n, vd.key_group, dtype=np.int32),
            "start": np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64),
            "length": length,
            "winner": winner.astype(np.int8),
            "part": np.full(n, k, dtype=np.int32),
            "index": np.arange(e0, e1, dtype=np.int64),
        }
        total = int(length.sum())
        flat = (
            np.arange(total, dtype=np.int64)
            if take >= total
            else np.sort(self.rng.choice(total, take, replace=False))
        )
        game = np.repeat(np.arange(n, dtype=np.int64), length)[flat]
        ply = (flat - cols["start"][game]).astype(np.int32)
        return cols, actions, policy, game, ply

    # ---- rounds ----

    def _arrays(self, n: int) -> dict[str, npt.NDArray[Any]]:
        """Output arrays of at least n rows: an earlier round's when no batch
        of it is alive any more (no page faults on fresh memory), else new
        ones. Two sets are kept: the caller usually still holds the last
        batch of the round before."""
        for spare in self._spares:
            if len(spare["value"]) >= n and _unshared(spare):
                return spare
        shape = self.shape
        rows, a = max(n, min(self.total, self.max_round)), shape.n_actions
        arrays: dict[str, npt.NDArray[Any]] = {
            "obs": np.empty((rows, shape.planes, shape.height, shape.width), dtype=np.uint8),
            "action": np.empty(rows, dtype=np.int64),
            "mask": np.empty((rows, a), dtype=np.bool_),
        }
        if self.policy is not None:
            arrays["policy"] = np.empty((rows, a), dtype=np.float32)
        arrays["value"] = np.empty(rows, dtype=np.float32)
        self._spares = [arrays, *self._spares[:1]]
        held = sum(x.nbytes for spare in self._spares for x in spare.values())
        self.owner.peak_output_bytes = max(self.owner.peak_output_bytes, held)
        return arrays

    def round(self) -> tuple[list[Batch], int]:
        """The next round of batches (none when fewer than a batch came due)
        and the positions in them."""
        if len(self.pool_game) < self.capacity:
            self._refill()
        t = self.round_index
        self.round_index += 1
        due = self.pool_due <= t
        take = np.flatnonzero(due)
        size = len(take)
        final = (
            self.next_item >= len(self.takes)
            and size == len(self.pool_game)
            and size <= self.max_round
        )
        b = self.owner.batch_size
        if self.owner.shuffle:
            take = take[self.rng.permutation(size)]
        if not final:  # a short batch, and what runs over the round's size, wait a round
            size = min(size - size % b, self.max_round)
            self.pool_due[take[size:]] = t + 1
            take = take[:size]
        keep = np.ones(len(self.pool_game), dtype=bool)
        keep[take] = False
        game, ply = self.pool_game[take], self.pool_ply[take].astype(np.int32)
        self.pool_game, self.pool_ply = self.pool_game[keep], self.pool_ply[keep]
        self.pool_due = self.pool_due[keep]
        if not size:
            return [], 0
        group = self.games["group"][game]
        if self.owner.symmetries:
            assert self.shape.n_symmetries is not None
            symmetry = self.rng.integers(0, self.shape.n_symmetries[group], dtype=np.int32)
        else:
            symmetry = np.zeros(size, dtype=np.int32)
        out = self._fill(game, ply, symmetry)
        batches = []
        for lo in range(0, size, b):
            if size - lo < b and self.owner.drop_last:
                break
            batches.append({name: array[lo : lo + b] for name, array in out.items()})
        return batches, size

    def _fill(
        self,
        game: npt.NDArray[np.int64],
        ply: npt.NDArray[np.int32],
        symmetry: npt.NDArray[np.int32],
    ) -> Batch:
        shape = self.shape
        n = len(game)
        out = {name: array[:n] for name, array in self._arrays(n).items()}
        g = self.games
        failed = shape.farm.fill(
            g["group"],
            g["seed"],
            g["key_group"],
            g["board"],
            g["episode"],
            g["start"],
            g["length"],
            g["winner"],
            self.actions,
            self.policy,
            game,
            ply,
            symmetry,
            out["obs"],
            out["mask"],
            out["action"],
            out.get("policy"),
            out["value"],
        )
        if failed is not None:
            i, why = failed
            vd = shape.parts[int(g["part"][i])].vd
            raise DatasetError(
                f"'{vd.dataset.path}': episode {int(g['index'][i])} of '{vd.name}' does not "
                f"replay: {why}"
            )
        part = g["part"][game]
        part_variant = np.array([p.variant for p in shape.parts], dtype=np.int64)
        part_file = np.array([p.file for p in shape.parts], dtype=np.int64)
        out["variant"] = part_variant[part]
        out["file"] = part_file[part]
        out["episode"] = g["index"][game]
        out["ply"] = ply.astype(np.int64)
        out["symmetry"] = symmetry.astype(np.int64)
        return out


def _unshared(arrays: dict[str, npt.NDArray[Any]]) -> bool:
    """Does nothing but this dict hold these arrays (no batch, view or
    tensor made from them is alive)? Then a round can write into them again."""
    return all(sys.getrefcount(arrays[name]) <= 2 for name in arrays)  # the dict's and the call's


def _empty_games() -> dict[str, npt.NDArray[Any]]:
    return {
        "seed": np.zeros(0, dtype=np.uint64),
        "board": np.zeros(0, dtype=np.int32),
        "episode": np.zeros(0, dtype=np.uint32),
        "group": np.zeros(0, dtype=np.int32),
        "key_group": np.zeros(0, dtype=np.int32),
        "start": np.zeros(0, dtype=np.int64),
        "length": np.zeros(0, dtype=np.int32),
        "winner": np.zeros(0, dtype=np.int8),
        "part": np.zeros(0, dtype=np.int32),
        "index": np.zeros(0, dtype=np.int64),
    }


def _ranges(starts: npt.NDArray[Any], lengths: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """The concatenated index ranges [start, start + length) of each pair."""
    lengths = lengths.astype(np.int64)
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(lengths)
    shift = np.repeat(starts.astype(np.int64) - (ends - lengths), lengths)
    return np.arange(total, dtype=np.int64) + shift
