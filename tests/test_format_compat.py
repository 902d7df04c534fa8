"""Files written by earlier versions stay readable. tests/data/selfplay-v1.h5
was written by `fiverow generate` (format 1) before the writer encoded its
own chunks and before game numbers were assigned shard by shard: 24 games,
heuristic against random, freestyle and freestyle-swap2 on 9x9, 8 boards,
seed 5, with observations and policies."""

from __future__ import annotations

import shutil
from pathlib import Path

import h5py
import numpy as np

from fiverow import cli, data
from fiverow.analysis import balance

OLD = Path(__file__).parent / "data" / "selfplay-v1.h5"


def test_an_old_file_opens_with_its_run():
    with data.open(OLD) as ds:
        assert ds.variants == ["freestyle", "freestyle-swap2"]
        assert ds.run["seed"] == 5 and ds.run["games_requested"] == 24
        assert [len(ds[v]) for v in ds.variants] == [12, 12]


def test_an_old_files_games_replay_to_their_recorded_observations():
    with data.open(OLD) as ds:
        for name in ds.variants:
            vd = ds[name]
            games = vd.episodes["game"]
            assert len(np.unique(games)) == len(games)
            for i in range(len(vd)):
                ep = vd.episode(i)
                r = vd.replay(i)
                np.testing.assert_array_equal(r.obs, ep.obs)
                assert ep.policy is not None
                np.testing.assert_allclose(ep.policy.astype(np.float32).sum(axis=1), 1, atol=2e-2)


def test_an_old_file_is_read_by_plain_h5py_and_the_tools(tmp_path, capsys):
    copy = tmp_path / "old.h5"
    shutil.copy(OLD, copy)
    with h5py.File(copy) as f:
        assert f.attrs["format_version"] == 1
        assert f["freestyle/steps/action"].shape[0] == f["freestyle"].attrs["counts"][0]
    assert cli.main(["info", str(copy)]) == 0
    assert "freestyle-swap2" in capsys.readouterr().out
    report = balance.from_dataset(copy)
    assert [r.variant for r in report.results] == ["freestyle", "freestyle-swap2"]
