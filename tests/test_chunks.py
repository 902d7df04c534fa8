"""The writer encodes compressed chunks itself (csrc/io/h5chunk.c): zlib at the
run's level, or the fast encoder once play outruns the writer. Either way the
files use HDF5's built-in shuffle + deflate filters, so plain h5py reads them,
and the data is the same whichever encoder wrote it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pytest

from fiverow import data, players
from fiverow.data.generate import writer_spec
from fiverow.data.selfplay import Pairing, new_selfplay, run
from fiverow.players.match import mixed_pool

MIX = {"freestyle": 1.0, "freestyle-swap2": 1.0}  # swap2: actions past 255, high bytes vary


def write(path: Path, chunks: str, *, gzip: int = 4, obs: bool = False) -> None:
    p = players.make("random")
    pool = mixed_pool(MIX, 64, {"size": 9} if obs else None, 3, 2)
    spec = writer_spec(path, pool, {}, overwrite=False, gzip=gzip, flush_seconds=100.0)
    spec["chunks"] = chunks
    sp = new_selfplay(pool, Pairing(p, p, alternate=False), 3, record_obs=obs, writer=spec)
    run(sp, 1500)
    sp.close()


def datasets(f: h5py.File) -> dict[str, Any]:
    out: dict[str, Any] = {}
    f.visititems(
        lambda name, obj: (
            out.__setitem__(name, obj[()])
            if isinstance(obj, h5py.Dataset) and not name.startswith("_segments")
            else None
        )
    )
    return out


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("chunks")
    out = {}
    for chunks in ("zlib", "fast", "auto"):
        out[chunks] = root / f"{chunks}.h5"
        write(out[chunks], chunks)
    return out


def test_every_encoder_writes_the_same_data(files):
    opened = [h5py.File(files[k]) for k in ("zlib", "fast", "auto")]
    with opened[0], opened[1], opened[2]:
        want = datasets(opened[0])
        assert len(want) == 2 * 15
        for other in (datasets(opened[1]), datasets(opened[2])):
            assert other.keys() == want.keys()
            for name, values in want.items():
                assert values.dtype == other[name].dtype, name
                np.testing.assert_array_equal(values, other[name], err_msg=name)


def test_fast_chunks_use_the_built_in_filters(files):
    """A one-segment run is packed in place: the datasets carry their filters."""
    with h5py.File(files["fast"]) as f:
        for variant in MIX:
            for name in ("steps/action", "steps/seat", "episodes/seed", "episodes/game"):
                ds = f[f"{variant}/{name}"]
                assert ds.compression == "gzip" and ds.shuffle, (variant, name)
        action = f["freestyle/steps/action"]
        steps = action.shape[0]
        # the fast encoder stores a random player's action in about a byte
        assert action.id.get_storage_size() < 1.1 * steps


def test_fast_chunks_are_larger_than_zlib_only_by_the_actions(files):
    sizes = {k: p.stat().st_size for k, p in files.items()}
    assert sizes["zlib"] < sizes["fast"] < 1.5 * sizes["zlib"]


def test_fast_chunks_read_through_fiverow_data(files):
    with data.open(files["fast"]) as ds, data.open(files["zlib"]) as dz:
        for variant in MIX:
            for i in (0, 7, len(dz[variant]) - 1):
                a, b = ds[variant].episode(i), dz[variant].episode(i)
                np.testing.assert_array_equal(a.actions, b.actions)
            np.testing.assert_array_equal(ds[variant].replay(3).obs, dz[variant].replay(3).obs)


def test_observations_keep_the_runs_level_in_fast_mode(tmp_path):
    """Observations are not sped up at the cost of size: level 1 made them 5x larger."""
    write(tmp_path / "z.h5", "zlib", obs=True)
    write(tmp_path / "f.h5", "fast", obs=True)
    with h5py.File(tmp_path / "z.h5") as z, h5py.File(tmp_path / "f.h5") as f:
        sz = z["freestyle/steps/obs"].id.get_storage_size()
        sf = f["freestyle/steps/obs"].id.get_storage_size()
        assert sf == sz
        np.testing.assert_array_equal(z["freestyle/steps/obs"][()], f["freestyle/steps/obs"][()])


def test_no_compression_writes_raw_chunks(tmp_path):
    write(tmp_path / "raw.h5", "fast", gzip=0)
    with h5py.File(tmp_path / "raw.h5") as f:
        action = f["freestyle/steps/action"]
        assert action.compression is None
        assert action.id.get_storage_size() >= 2 * action.shape[0]
        assert (action[()] >= 0).all()


def test_bad_chunks_option_is_refused(tmp_path):
    with pytest.raises(ValueError, match="chunks"):
        write(tmp_path / "x.h5", "lz4")
    assert not (tmp_path / "x.h5").exists()
