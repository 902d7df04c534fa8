"""Reading every byte of a dataset: ``fiverow info --check`` (:func:`check`).

Opening a dataset reads its structure and its per-episode columns, not its
steps: a damaged chunk of ``steps/policy`` opens, summarises and fails only
when a reader reaches it (mid-epoch). :func:`check` reads every chunk of
every dataset of every variant group, through the segment files a killed
run's file reads from, and names each thing that does not read: the file,
the group, the dataset and the rows of the chunk.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .reader import H5_ERRORS, Dataset, DatasetError, _h5_reason, _h5py, _place

#: Rows read at once from a dataset that is not chunked.
BLOCK_ROWS = 1 << 16


@dataclass
class CheckResult:
    """What :func:`check` read: ``problems``, one line each (empty: the
    file reads whole), and how many datasets and chunks it read."""

    path: Path
    problems: list[str] = field(default_factory=list)
    datasets: int = 0
    chunks: int = 0

    @property
    def ok(self) -> bool:
        """No problems: the file reads whole."""
        return not self.problems


def check(path: str | Path) -> CheckResult:
    """Read every chunk of every dataset of the dataset at ``path``; each
    damaged one is named in ``problems`` (file, group, dataset, rows). When
    every chunk reads, the file is also opened as a dataset, whose checks
    (structure, per-episode values) add their error if it has one.
    :class:`~fiverow.data.DatasetError` for a missing file."""
    h5py = _h5py()
    path = Path(path)
    if not path.exists():
        raise DatasetError(f"no such dataset: '{path}'")
    result = CheckResult(path)
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        result.problems.append(f"'{path}' is not a readable HDF5 file: {_h5_reason(e)}")
        return result
    with f:
        try:
            variants = [v for v in str(f.attrs["variants"]).split("\n") if v]
        except H5_ERRORS as e:
            result.problems.append(f"'{path}': the root attributes: {_h5_reason(e)}")
            return result
        for name in variants:
            _check_group(path, f, name, result)
    if result.ok:
        try:
            with Dataset(path) as ds:
                for name in ds.variants:
                    ds[name].episodes  # noqa: B018 - read and range-checked
        except DatasetError as e:
            result.problems.append(str(e))
    return result


def _check_group(path: Path, f: Any, name: str, result: CheckResult) -> None:
    h5py = _h5py()
    for folder in ("steps", "episodes"):
        try:
            nodes = list(f[f"{name}/{folder}"].items())
        except H5_ERRORS as e:
            result.problems.append(
                f"'{path}': group '{name}/{folder}' cannot be listed: {_h5_reason(e)}"
            )
            continue
        for _, node in nodes:
            if isinstance(node, h5py.Dataset):
                result.datasets += 1
                _check_dataset(path, node, result)


def _check_dataset(path: Path, node: Any, result: CheckResult) -> None:
    """Every chunk of one dataset; a virtual one (a killed run's file) is
    checked in the segment files it reads."""
    try:
        virtual = node.is_virtual
        sources = node.virtual_sources() if virtual else []
    except H5_ERRORS as e:
        result.problems.append(f"'{path}': {_place(node)}: {_h5_reason(e)}")
        return
    if not virtual:
        _check_rows(path, node, node, 0, result)
        return
    h5py = _h5py()
    for m in sources:
        low, _ = m.vspace.get_select_bounds()
        where = path if m.file_name == "." else path.parent / m.file_name
        try:
            with h5py.File(where, "r") as source:
                _check_rows(where, source[m.dset_name], node, int(low[0]), result)
        except H5_ERRORS as e:
            result.problems.append(
                f"'{path}': {_place(node)}: segment file '{where}': {_h5_reason(e)}"
            )


def _check_rows(where: Path, node: Any, named: Any, offset: int, result: CheckResult) -> None:
    """Read ``node`` (in file ``where``) chunk by chunk; problems name the
    dataset ``named`` and its rows (``offset`` + the chunk's)."""
    try:
        selections = list(_chunks(node))
    except H5_ERRORS as e:
        result.problems.append(
            f"'{where}': {_place(named)}: its chunk index cannot be read: {_h5_reason(e)}"
        )
        return
    for rows in selections:
        result.chunks += 1
        try:
            node[rows]
        except H5_ERRORS as e:
            shown = slice(rows[0].start + offset, rows[0].stop + offset)
            result.problems.append(f"'{where}': {_place(named, shown)}: {_h5_reason(e)}")


def _chunks(node: Any) -> Iterator[tuple[slice, ...]]:
    """The selection of each stored chunk (blocks of rows when not chunked)."""
    shape = node.shape
    if not shape or shape[0] == 0:
        return
    if node.chunks is None:
        for start in range(0, shape[0], BLOCK_ROWS):
            yield (slice(start, min(start + BLOCK_ROWS, shape[0])),)
        return
    for i in range(node.id.get_num_chunks()):
        at = node.id.get_chunk_info(i).chunk_offset
        yield tuple(slice(o, min(o + c, n)) for o, c, n in zip(at, node.chunks, shape, strict=True))
