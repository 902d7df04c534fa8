"""A run's output file: its path checked, the folder of its segments, the
``run`` attribute describing it and what the C writer takes (docs/hdf5.md).
Dataset generation, shards and the distributed runs all write through these."""

from __future__ import annotations

import json
import platform
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from .. import _core
from .._version import __version__


def parts_of(out: str | Path) -> Path:
    """The directory of a run's segment files (docs/hdf5.md)."""
    return Path(f"{out}.parts")


def remove_outputs(out: str | Path) -> None:
    """Remove the file at ``out`` and its segments, as far as they exist."""
    Path(out).unlink(missing_ok=True)
    shutil.rmtree(parts_of(out), ignore_errors=True)


def check_out_path(out: str | Path, overwrite: bool) -> None:
    """Refuse an empty path, and the segments of a killed run whose file is
    gone (they cannot be packed); the C writer checks the rest."""
    if not str(out).strip():
        raise ValueError("the output path is empty: name the HDF5 file to write (CLI: --out)")
    parts = parts_of(out)
    if not overwrite and parts.exists() and not Path(out).exists():
        raise OSError(
            f"'{parts}' holds the segments of an interrupted run whose file '{out}' is gone, "
            f"so they cannot be packed: remove '{parts}', or pass overwrite=True "
            "(CLI: --overwrite)"
        )


def run_attribute(seed: int, run_info: Mapping[str, Any]) -> dict[str, Any]:
    """The root attribute ``run``: the run's description and the versions."""
    return {
        "seed": seed,
        "fiverow_version": __version__,
        "numpy_version": np.__version__,
        "python_version": platform.python_version(),
        "hdf5_version": ".".join(map(str, _core.hdf5_version())),
        **run_info,
    }


def writer_spec(
    out: str | Path,
    pool: Any,
    run_info: dict[str, Any],
    *,
    overwrite: bool,
    gzip: int,
    flush_seconds: float,
    chunks: str = "auto",
) -> dict[str, Any]:
    """What the C writer takes: the path, options, the run's description and
    each group's name and config. ``chunks``: how compressed chunks are
    encoded, ``"zlib"`` at the ``gzip`` level, ``"fast"`` (csrc/io/h5chunk.h) or
    ``"auto"``: zlib until play outruns the writer, then fast."""
    check_out_path(out, overwrite)
    groups = [pool.groups[name] for name in pool._order]
    return {
        "path": str(out),
        "overwrite": bool(overwrite),
        "gzip": gzip,
        "flush_seconds": flush_seconds,
        "chunks": chunks,
        "run": json.dumps(run_attribute(pool._seed, run_info), default=str),
        "groups": [
            {"name": g.name, "config": json.dumps({"name": g.name, **g.config.params})}
            for g in groups
        ],
    }
