"""Reading fiverow datasets: :class:`Dataset` (:func:`open`), each variant's
:class:`VariantData`, its episodes and replays, their symmetries; a damaged
file's reads as one-line :class:`DatasetError` s (docs/hdf5.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _core
from ..env.pool import OBSERVATIONS, Pool, _choice
from ..rules.config import VariantConfig, cell_values, resolve
from ..rules.renju import OPENINGS

FORMAT = "fiverow-selfplay"
FORMAT_VERSION = 1
#: Players one file can name: ``episodes/players`` indexes them with an int8.
MAX_PLAYERS = 128


#: Every variant group's datasets: (folder, name) -> dtype (docs/hdf5.md).
STEP_COLUMNS = {"action": np.int16, "seat": np.int8, "colour": np.int8}
OPTIONAL_STEP_COLUMNS = {"obs": np.uint8, "policy": np.float16}
EPISODE_COLUMNS = {
    "offset": np.int64,
    "length": np.int32,
    "winner": np.int8,
    "truncated": np.uint8,
    "scores": np.int32,
    "players": np.int8,
    "black_seat": np.int8,
    "opening": np.int8,
    "seed": np.uint64,
    "board": np.int32,
    "episode": np.uint32,
    "game": np.int64,
}
#: Per-episode values the format allows: column -> (lowest, highest).
EPISODE_RANGES = {
    "winner": (-1, 1),
    "truncated": (0, 1),
    "black_seat": (0, 1),
    "opening": (-1, 25),
}


class DatasetError(OSError):
    """The file is missing, unreadable, damaged or not a fiverow dataset."""


#: What h5py raises on a damaged file: OSError for a chunk that does not
#: decompress or a truncated file, RuntimeError for a damaged B-tree or object
#: header, KeyError / ValueError for a damaged link or attribute.
H5_ERRORS = (OSError, RuntimeError, KeyError, ValueError)
#: Said after a damaged read: where to see everything that is damaged.
CHECK_HINT = "`fiverow info --check` reads every chunk and lists what is damaged"


@contextmanager
def _reading(path: Path, what: str) -> Iterator[None]:
    """HDF5's read errors (a damaged chunk, a truncated or missing file) as a
    DatasetError naming the file and what was being read."""
    try:
        yield
    except DatasetError:
        raise
    except H5_ERRORS as e:
        raise DatasetError(f"'{path}': cannot read {what}: {_h5_reason(e)}; {CHECK_HINT}") from None


def _h5_reason(error: BaseException) -> str:
    """HDF5's message on one line."""
    return " ".join(str(error).split()) or type(error).__name__


def _place(node: Any, rows: Any = None) -> str:
    """``group 'freestyle', dataset 'steps/policy', rows 0..57`` for an h5py
    dataset and the rows read of it."""
    group, _, name = node.name.lstrip("/").partition("/")
    where = f"group '{group}', dataset '{name}'" if name else f"dataset '{group}'"
    if isinstance(rows, slice):
        start = 0 if rows.start is None else int(rows.start)
        stop = node.shape[0] if rows.stop is None else int(rows.stop)
        where += f", rows {start}..{stop - 1}"
    elif rows is not None and np.ndim(rows) == 1 and len(rows):
        where += f", {len(rows)} rows in {int(np.min(rows))}..{int(np.max(rows))}"
    return where


def read_rows(path: str | Path, node: Any, rows: Any = slice(None), what: str = "") -> Any:
    """``node[rows]`` of an h5py dataset, a failed read as a one-line
    :class:`DatasetError` naming the file, the group, the dataset and the rows
    (and ``what`` they were read for)."""
    try:
        return node[rows]
    except H5_ERRORS as e:
        why = f" ({what})" if what else ""
        raise DatasetError(
            f"'{path}': {_place(node, rows)}{why}: cannot read: {_h5_reason(e)}; {CHECK_HINT}"
        ) from None


def _h5py() -> Any:
    try:
        import h5py
    except ImportError as e:  # a dependency, but say what to do if it is missing
        raise ImportError("reading datasets needs h5py: pip install h5py") from e
    return h5py


@dataclass
class Episode:
    """One recorded game: its moves and outcome (seats 0 and 1)."""

    actions: npt.NDArray[np.int16]
    seats: npt.NDArray[np.int8]
    colours: npt.NDArray[np.int8]
    winner: int  # seat, -1 for none
    truncated: bool
    scores: tuple[int, int]
    players: tuple[int, int]  # index into the file's players, by seat
    black_seat: int
    opening: int
    policy: npt.NDArray[np.float16] | None = None
    obs: npt.NDArray[np.uint8] | None = None
    #: Why the loser lost when it forfeited (an engine that crashed, hung,
    #: answered garbage or played an illegal move), else None.
    forfeit: str | None = None

    @property
    def length(self) -> int:
        """Number of moves of the episode."""
        return len(self.actions)

    @property
    def opening_name(self) -> str | None:
        """The renju opening's name (``"D4 Kagetsu"``), or None."""
        return OPENINGS[self.opening] if 0 <= self.opening < len(OPENINGS) else None


@dataclass
class Replay:
    """An episode replayed: what each mover saw, and what it did.

    ``obs[t]`` / ``masks[t]`` are the observation and legal mask before action
    ``t``; ``final_obs`` the observation after the last action. ``rewards[t]``
    are the rewards by seat of step ``t``; ``returns[t]`` the final outcome
    from the mover's seat (+1 won, -1 lost, 0 drawn).
    """

    obs: npt.NDArray[np.uint8]
    masks: npt.NDArray[np.bool_]
    actions: npt.NDArray[np.int64]
    seats: npt.NDArray[np.int8]
    rewards: npt.NDArray[np.float32]
    returns: npt.NDArray[np.float32]
    final_obs: npt.NDArray[np.uint8]
    policy: npt.NDArray[np.float32] | None = None
    symmetry: int = 0


@dataclass
class Symmetries:
    """Cell permutations of a board that preserve its lines."""

    height: int
    width: int
    perms: list[npt.NDArray[np.int64]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.perms)


def _dihedral(h: int, w: int) -> list[npt.NDArray[np.int64]]:
    r, c = np.divmod(np.arange(h * w), w)
    maps = [
        (r, c),
        (h - 1 - r, w - 1 - c),
        (h - 1 - r, c),
        (r, w - 1 - c),
    ]
    if h == w:  # rotations by a quarter turn and the diagonal flips
        maps += [(c, h - 1 - r), (w - 1 - c, r), (c, r), (w - 1 - c, h - 1 - r)]
    return [(rr * w + cc).astype(np.int64) for rr, cc in maps]


def symmetries_of(config: VariantConfig, height: int, width: int) -> Symmetries:
    """The symmetries replays can be augmented with (identity first)."""
    geometry = config["geometry"]
    if geometry not in ("plane", "torus"):
        return Symmetries(height, width, [np.arange(height * width, dtype=np.int64)])
    perms = _dihedral(height, width)
    if geometry == "torus" and config["protocol"] == "free":
        r, c = np.divmod(np.arange(height * width), width)
        shifted = []
        for dy in range(height):
            for dx in range(width):
                t = ((r + dy) % height) * width + (c + dx) % width
                shifted += [t[p] for p in perms]
        perms = shifted
    return Symmetries(height, width, perms)


class VariantData:
    """The episodes of one variant in a dataset."""

    def __init__(self, dataset: Dataset, name: str) -> None:
        self.dataset = dataset
        self.name = name
        with _reading(dataset.path, f"group '{name}'"):
            group = dataset.file.get(name)
        if not isinstance(group, _h5py().Group):
            raise DatasetError(f"'{dataset.path}': variant '{name}' is listed but has no group")
        self._group = group
        try:
            attrs = self._group.attrs
            params = json.loads(attrs["config"])
            self.obs_shape = tuple(int(x) for x in attrs["obs_shape"])
            self.n_actions = int(attrs["n_actions"])
            self.key_group = int(attrs["key_group"])
        except (*H5_ERRORS, TypeError) as e:
            raise DatasetError(
                f"{dataset.path}: variant '{name}' has damaged attributes: {e}"
            ) from None
        params.setdefault("name", name)
        try:
            self.config: VariantConfig = resolve(params)
        except ValueError as e:
            raise DatasetError(f"{dataset.path}: variant '{name}' has a bad config: {e}") from None
        self._pools: dict[str, Pool] = {}
        self._check_structure()

    def _damaged(self, what: str) -> DatasetError:
        return DatasetError(f"'{self.dataset.path}': variant '{self.name}' is damaged: {what}")

    def _column(self, folder: str, name: str, dtype: Any) -> Any:
        """The dataset ``folder/name`` of the group, checked to be one of ``dtype``."""
        with _reading(self.dataset.path, f"group '{self.name}', dataset '{folder}/{name}'"):
            node = self._group.get(f"{folder}/{name}")
        h5py = _h5py()
        if not isinstance(node, h5py.Dataset):
            raise self._damaged(f"'{folder}/{name}' is missing")
        if node.dtype != np.dtype(dtype):
            raise self._damaged(f"'{folder}/{name}' is {node.dtype}, not {np.dtype(dtype)}")
        return node

    def _check_structure(self) -> None:
        """Every dataset of the format present with its dtype and shape, and
        every episode's steps within the step columns (docs/hdf5.md)."""
        planes, height, width = self.obs_shape
        steps = {name: self._column("steps", name, t) for name, t in STEP_COLUMNS.items()}
        n_steps = steps["action"].shape[0]
        shapes: dict[str, tuple[int, ...]] = {name: (n_steps,) for name in STEP_COLUMNS}
        shapes |= {"obs": (n_steps, planes, height, width), "policy": (n_steps, self.n_actions)}
        with _reading(self.dataset.path, f"group '{self.name}/steps'"):
            present = set(self._group["steps"])
        for name, dtype in OPTIONAL_STEP_COLUMNS.items():
            if name in present:
                steps[name] = self._column("steps", name, dtype)
        for name, ds in steps.items():
            if ds.shape != shapes[name]:
                raise self._damaged(f"'steps/{name}' has shape {ds.shape}, not {shapes[name]}")
        columns = {name: self._column("episodes", name, t) for name, t in EPISODE_COLUMNS.items()}
        n_episodes = columns["offset"].shape[0]
        for name, ds in columns.items():
            expected = (n_episodes, 2) if name in ("scores", "players") else (n_episodes,)
            if ds.shape != expected:
                raise self._damaged(
                    f"'episodes/{name}' has shape {ds.shape}, not {expected} "
                    "(every episode column has one row per episode)"
                )
        offsets = read_rows(self.dataset.path, columns["offset"])
        lengths = read_rows(self.dataset.path, columns["length"]).astype(np.int64)
        outside = (offsets < 0) | (lengths < 1) | (offsets + lengths > n_steps)
        if outside.any():
            i = int(np.argmax(outside))
            raise self._damaged(
                f"episode {i} has offset {offsets[i]} and length {lengths[i]}, outside the "
                f"{n_steps} steps"
            )

    def __len__(self) -> int:
        return int(self._group["episodes/length"].shape[0])

    def __repr__(self) -> str:
        return f"<VariantData {self.name}: {len(self)} episodes, {self.steps} steps>"

    @property
    def steps(self) -> int:
        """Number of steps recorded for the variant, over all its episodes."""
        return int(self._group["steps/action"].shape[0])

    @cached_property
    def episodes(self) -> dict[str, npt.NDArray[Any]]:
        """Every per-episode column, read once: offset, length, winner, scores, ..."""
        with _reading(self.dataset.path, f"group '{self.name}/episodes'"):
            nodes = dict(self._group["episodes"].items())
        what = f"the episodes of '{self.name}'"
        columns = {key: read_rows(self.dataset.path, ds, what=what) for key, ds in nodes.items()}
        self._check_values(columns)
        return columns

    def _check_values(self, columns: dict[str, npt.NDArray[Any]]) -> None:
        players = len(self.dataset.run.get("players", [])) or 2
        ranges = EPISODE_RANGES | {"players": (0, players - 1)}
        for name, (low, high) in ranges.items():
            bad = (columns[name] < low) | (columns[name] > high)
            if bad.any():
                i = int(np.argmax(bad.reshape(len(bad), -1).any(axis=1)))
                raise self._damaged(
                    f"episode {i} has {name} {columns[name][i]}, outside {low}..{high}"
                )

    @cached_property
    def forfeits(self) -> dict[int, str]:
        """``{episode index: reason}`` of the games lost by forfeit (a
        :class:`Writer` records them; ``fiverow generate`` with engines)."""
        games = {int(g): k for k, g in enumerate(self.episodes["game"])}
        return {
            games[int(f["game"])]: str(f["reason"])
            for f in self.dataset.forfeit_records
            if f.get("variant") == self.name and int(f.get("game", -1)) in games
        }

    @property
    def has_obs(self) -> bool:
        """Whether the file holds each step's observation."""
        return "obs" in self._group["steps"]

    @property
    def has_policy(self) -> bool:
        """Whether the file holds each step's search policy."""
        return "policy" in self._group["steps"]

    def _index(self, i: int) -> int:
        n = len(self)
        if not isinstance(i, int | np.integer) or isinstance(i, bool):
            raise TypeError(f"episode index must be an int, got {type(i).__name__}")
        if not -n <= i < n:
            raise IndexError(f"episode {i} out of range: '{self.name}' has {n} episodes")
        return int(i) % n

    def episode(self, i: int) -> Episode:
        """Episode ``i`` (negative counts from the end): moves, seats, outcome, scores."""
        i = self._index(i)
        e = self.episodes
        start, n = int(e["offset"][i]), int(e["length"][i])
        with _reading(self.dataset.path, f"episode {i} of '{self.name}'"):
            return self._read_episode(i, slice(start, start + n))

    def _read_episode(self, i: int, sl: slice) -> Episode:
        e = self.episodes
        steps = self._group["steps"]

        def read(name: str) -> Any:
            return read_rows(self.dataset.path, steps[name], sl, f"episode {i} of '{self.name}'")

        seats = read("seat")
        if not np.isin(seats, (0, 1)).all():
            bad = seats[~np.isin(seats, (0, 1))][0]
            raise self._damaged(f"episode {i} has seat {bad} (seats are 0 and 1)")
        return Episode(
            actions=read("action"),
            seats=seats,
            colours=read("colour"),
            winner=int(e["winner"][i]),
            truncated=bool(e["truncated"][i]),
            scores=(int(e["scores"][i][0]), int(e["scores"][i][1])),
            players=(int(e["players"][i][0]), int(e["players"][i][1])),
            black_seat=int(e["black_seat"][i]),
            opening=int(e["opening"][i]),
            policy=read("policy") if "policy" in steps else None,
            obs=read("obs") if "obs" in steps else None,
            forfeit=self.forfeits.get(i),
        )

    def __iter__(self) -> Iterator[Episode]:
        for i in range(len(self)):
            yield self.episode(i)

    @cached_property
    def symmetries(self) -> Symmetries:
        """The board symmetries replays can apply (identity first)."""
        return symmetries_of(self.config, self.obs_shape[1], self.obs_shape[2])

    def _batch(self, observation: str = "absolute") -> Any:
        if observation not in self._pools:
            self._pools[observation] = Pool(
                {self.name: {"num_envs": 1, "config": self.config}},
                num_threads=1,
                observation=observation,
            )
        return self._pools[observation]._batch

    def planes(self, observation: str = "absolute") -> tuple[str, ...]:
        """The observation planes' names in that mode (docs/api.md); the
        file's ``obs_shape`` and ``steps/obs`` are the absolute ones."""
        observation = _choice(observation, OBSERVATIONS, "observation")
        self._batch(observation)
        return self._pools[observation].groups[self.name].planes

    def replay(self, i: int, symmetry: int = 0, observation: str = "absolute") -> Replay:
        """Episode ``i`` replayed in C, mapped by symmetry ``symmetry`` (0: none;
        ``len(self.symmetries)`` of them), with the observations of each mover
        in ``observation`` mode ("absolute" or "mover", docs/api.md)."""
        observation = _choice(observation, OBSERVATIONS, "observation")
        if not 0 <= symmetry < len(self.symmetries):
            raise ValueError(
                f"symmetry must be in 0..{len(self.symmetries) - 1} for '{self.name}', "
                f"got {symmetry}"
            )
        ep = self.episode(i)
        i = self._index(i)
        e = self.episodes
        n = ep.length
        _, height, width = self.obs_shape
        obs = np.zeros((n + 1, len(self.planes(observation)), height, width), dtype=np.uint8)
        masks = np.zeros((n + 1, self.n_actions), dtype=np.uint8)
        rewards = np.zeros((n, 2), dtype=np.float32)
        try:
            _core.replay(
                self._batch(observation),
                0,
                int(e["seed"][i]),
                self.key_group,
                int(e["board"][i]),
                int(e["episode"][i]),
                np.ascontiguousarray(ep.actions, dtype=np.int16),
                obs,
                masks,
                rewards,
                OBSERVATIONS[observation],
            )
        except ValueError as err:
            if ep.forfeit is not None:
                raise DatasetError(
                    f"{self.dataset.path}: episode {i} of '{self.name}' was forfeited "
                    f"({ep.forfeit}): it stops before the rules end it, so it is not replayed "
                    "(VariantData.forfeits lists such episodes)"
                ) from None
            raise DatasetError(
                f"{self.dataset.path}: episode {i} of '{self.name}' does not replay: {err}"
            ) from None
        seats = ep.seats.astype(np.int8)
        outcome = np.zeros(2, dtype=np.float32)
        if ep.winner >= 0:
            outcome[ep.winner], outcome[1 - ep.winner] = 1.0, -1.0
        replay = Replay(
            obs=obs[:n],
            masks=masks[:n].astype(bool),
            actions=ep.actions.astype(np.int64),
            seats=seats,
            rewards=rewards,
            returns=outcome[seats],
            final_obs=obs[n],
            policy=None if ep.policy is None else ep.policy.astype(np.float32),
        )
        return self._transform(replay, symmetry) if symmetry else replay

    def _transform(self, r: Replay, k: int) -> Replay:
        perm = self.symmetries.perms[k]
        cells = perm.size
        per_cell = cell_values(self.config)
        # action a on cell c (a // per_cell) goes to perm[c]; special actions stay
        action_map = np.arange(self.n_actions, dtype=np.int64)
        board_actions = cells * per_cell
        cell, value = np.divmod(np.arange(board_actions), per_cell)
        action_map[:board_actions] = perm[cell] * per_cell + value

        def planes(x: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
            flat = x.reshape(*x.shape[:-2], cells)
            out = np.empty_like(flat)
            out[..., perm] = flat
            return out.reshape(x.shape)

        def over_actions(x: npt.NDArray[Any]) -> npt.NDArray[Any]:
            out = np.empty_like(x)
            out[..., action_map] = x
            return out

        return Replay(
            obs=planes(r.obs),
            masks=over_actions(r.masks),
            actions=action_map[r.actions],
            seats=r.seats,
            rewards=r.rewards,
            returns=r.returns,
            final_obs=planes(r.final_obs),
            policy=None if r.policy is None else over_actions(r.policy),
            symmetry=k,
        )

    def outcomes(self) -> dict[str, int]:
        """Games, wins by seat, draws and truncations."""
        e = self.episodes
        w, t = e["winner"], e["truncated"].astype(bool)
        return {
            "episodes": len(w),
            "steps": self.steps,
            "seat0_wins": int(np.sum(w == 0)),
            "seat1_wins": int(np.sum(w == 1)),
            "draws": int(np.sum((w < 0) & ~t)),
            "truncated": int(np.sum(t)),
        }


class Dataset:
    """An open dataset: ``ds["freestyle"]`` is a variant's :class:`VariantData`."""

    def __init__(self, path: str | Path) -> None:
        h5py = _h5py()
        self.path = Path(path)
        if not self.path.exists():
            raise DatasetError(f"no such dataset: '{self.path}'")
        try:
            self.file = h5py.File(self.path, "r")
        except OSError as e:
            raise DatasetError(f"'{self.path}' is not a readable HDF5 file: {e}") from None
        try:
            attrs = self.file.attrs
            if attrs.get("format") != FORMAT:
                raise DatasetError(f"'{self.path}' is not a fiverow dataset (no format '{FORMAT}')")
            version = int(attrs["format_version"])
            if version > FORMAT_VERSION:
                raise DatasetError(
                    f"'{self.path}' has format version {version}; this fiverow reads up to "
                    f"{FORMAT_VERSION}: upgrade fiverow"
                )
            self.run: dict[str, Any] = json.loads(attrs["run"])
            self.created = str(attrs["created"])
            self.layout = str(attrs["layout"])
            self.variants: list[str] = [v for v in str(attrs["variants"]).split("\n") if v]
            forfeits = attrs.get("forfeits")
            #: Games lost by forfeit: {"variant", "game", "seat", "reason"} each.
            self.forfeit_records: list[dict[str, Any]] = (
                json.loads(forfeits) if forfeits is not None else []
            )
        except H5_ERRORS as e:
            self.file.close()
            raise DatasetError(f"'{self.path}' has damaged attributes: {_h5_reason(e)}") from None
        except DatasetError:
            self.file.close()
            raise
        try:
            with _reading(self.path, "its structure"):
                self._check_sources()
                self._data = {name: VariantData(self, name) for name in self.variants}
        except DatasetError:
            self.file.close()
            raise

    def _virtual_datasets(self) -> list[Any]:
        h5py = _h5py()
        found: list[Any] = []

        def visit(_: str, node: Any) -> None:
            if isinstance(node, h5py.Dataset) and node.is_virtual:
                found.append(node)

        for name in self.variants:
            with _reading(self.path, f"group '{name}'"):
                group = self.file.get(name)
                if isinstance(group, h5py.Group):
                    group.visititems(visit)
        return found

    def _check_sources(self) -> None:
        """Every file the virtual datasets read (a killed run's segments, in
        ``<path>.parts/``) is present, opens, and holds its part of the data:
        HDF5 would read a missing one as zeros. Relative names are resolved
        against the file's directory, where HDF5 looks first."""
        sources: dict[str, list[tuple[str, tuple[int, ...]]]] = {}
        for ds in self._virtual_datasets():
            for m in ds.virtual_sources():
                # the part of the virtual dataset this source fills
                low, high = m.vspace.get_select_bounds()
                shape = tuple(int(b) - int(a) + 1 for a, b in zip(low, high, strict=True))
                sources.setdefault(m.file_name, []).append((m.dset_name, shape))
        for file_name, parts in sources.items():
            if file_name == ".":
                self._check_parts(self.file, str(self.path), parts)
                continue
            self._check_segment(file_name, parts)

    def _check_segment(self, file_name: str, parts: list[tuple[str, tuple[int, ...]]]) -> None:
        h5py = _h5py()
        segment = self.path.parent / file_name
        if not segment.is_file():
            raise DatasetError(
                f"'{self.path}': segment file '{segment}' is missing: the file of a killed run "
                f"reads its games from '{segment.parent}', which must stay next to it "
                f"(`fiverow pack {self.path}` makes one self-contained file)"
            )
        try:
            f = h5py.File(segment, "r")
        except OSError as e:
            raise DatasetError(f"'{self.path}': segment file '{segment}' is damaged: {e}") from None
        with f, _reading(self.path, f"segment file '{segment}'"):
            self._check_parts(f, str(segment), parts)

    def _check_parts(self, f: Any, where: str, parts: list[tuple[str, tuple[int, ...]]]) -> None:
        h5py = _h5py()
        for dset_name, shape in parts:
            node = f.get(dset_name)
            if not isinstance(node, h5py.Dataset):
                raise DatasetError(f"'{self.path}': '{where}' has no dataset '{dset_name}'")
            if node.shape != shape:
                raise DatasetError(
                    f"'{self.path}': '{dset_name}' in '{where}' has shape {node.shape}, not {shape}"
                )

    def __enter__(self) -> Dataset:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file."""
        self.file.close()

    def __getitem__(self, variant: str) -> VariantData:
        try:
            return self._data[variant]
        except KeyError:
            raise KeyError(
                f"no variant '{variant}' in {self.path}; it has {', '.join(self.variants)}"
            ) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self.variants)

    def __len__(self) -> int:
        return sum(len(v) for v in self._data.values())

    @property
    def players(self) -> list[str]:
        """The players' names, as the run recorded them."""
        return list(self.run.get("player_names", []))

    @property
    def seed(self) -> int:
        """The run's seed, 0..2**64-1. The root ``seed`` attribute holds its
        64 bits as int64 (a seed >= 2**63 reads negative there)."""
        with _reading(self.path, "the seed attribute"):
            stored = np.asarray(self.file.attrs["seed"])
        return (
            int(stored.astype(np.int64).view(np.uint64))
            if stored.dtype.kind == "i"
            else int(stored)
        )

    def summary(self) -> dict[str, dict[str, int]]:
        """Per variant: episodes, steps, wins by seat, draws, truncations."""
        return {name: self._data[name].outcomes() for name in self.variants}


def open(path: str | Path) -> Dataset:  # noqa: A001 - the module's verb, like h5py.File / gzip.open
    """Open a dataset for reading."""
    return Dataset(path)
