"""Reading self-play datasets (the HDF5 files of :func:`fiverow.generate`).

>>> from fiverow import data
>>> with data.open("data.h5") as ds:  # doctest: +SKIP
...     print(ds.summary())
...     moves = ds["freestyle"].episode(0).actions
...     r = ds["freestyle"].replay(0, symmetry=3)   # obs and masks rebuilt in C

The schema is in docs/hdf5.md; h5py reads the files with no plugin. A
replay rebuilds each mover's observation and legal mask from the moves and
the keys the file stores (seed, group, board, episode), so datasets can stay
moves-only. Symmetries map a replay onto an equivalent game: the 8 of the
square (4 of a rectangle) on plane and torus boards, times the translations
on a torus (when no protocol pins the first stone to the centre); the strip
and hexagonal boards have none here.

The package's modules: :mod:`.reader` (:func:`open`, :class:`Dataset` and
what it holds), :mod:`.writer` (:class:`Writer`), :mod:`.minari_export`
(:func:`export_minari`), :mod:`.batches` (training batches), :mod:`.integrity`
(:func:`check`), :mod:`.generate` (self-play datasets in bulk).
"""

from __future__ import annotations

from typing import Any

from .batches import Batches
from .integrity import CheckResult, check
from .minari_export import export_minari
from .reader import (
    CHECK_HINT,
    EPISODE_COLUMNS,
    EPISODE_RANGES,
    FORMAT,
    FORMAT_VERSION,
    H5_ERRORS,
    MAX_PLAYERS,
    OPTIONAL_STEP_COLUMNS,
    STEP_COLUMNS,
    Dataset,
    DatasetError,
    Episode,
    Replay,
    Symmetries,
    VariantData,
    open,
    read_rows,
    symmetries_of,
)
from .writer import Writer

__all__ = [
    "CHECK_HINT",
    "EPISODE_COLUMNS",
    "EPISODE_RANGES",
    "FORMAT",
    "FORMAT_VERSION",
    "H5_ERRORS",
    "MAX_PLAYERS",
    "OPTIONAL_STEP_COLUMNS",
    "STEP_COLUMNS",
    "Batches",
    "CheckResult",
    "Dataset",
    "DatasetError",
    "Episode",
    "Replay",
    "Symmetries",
    "VariantData",
    "Writer",
    "check",
    "export_minari",
    "open",
    "read_rows",
    "symmetries_of",
]


def __getattr__(name: str) -> Any:
    if name == "TorchBatches":  # torch is optional: imported when asked for
        from .torch_batches import TorchBatches

        return TorchBatches
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
