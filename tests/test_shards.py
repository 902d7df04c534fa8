"""Runs cut into shards (fiverow.data.shards), without Ray: game k depends on
the seed, k and the boards per variant only, so shards played apart, in any
order and on any thread count, make the same dataset and the same records
as one run; the file over the finished shards of a stopped run reads like a
killed run's."""

from __future__ import annotations

import os
from pathlib import Path

import h5py
import numpy as np
import pytest

import fiverow
from fiverow import data, players
from fiverow.data import shards
from fiverow.data.generate import generate, parts_of
from fiverow.data.selfplay import Pairing, new_selfplay, records, run
from fiverow.players.match import mixed_pool

MIX = {"freestyle": 1.0, "caro": 2.0}  # unequal weights: the boards interleave
PARAMS = {"size": 9}
BOARDS = 24
SEED = 9
GAMES = 150


def spec(**kw) -> shards.RunSpec:
    p = players.make("random")
    return shards.RunSpec(MIX, BOARDS, SEED, (p, p), False, PARAMS, **kw)


@pytest.fixture(scope="module")
def single(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("single") / "single.h5"
    generate(out, MIX, games=GAMES, seed=SEED, boards=BOARDS, params=PARAMS, num_threads=2)
    return out


def columns(path: Path) -> dict[str, np.ndarray]:
    out = {}
    with h5py.File(path) as f:
        for v in MIX:
            for kind in ("steps", "episodes"):
                for name, ds in f[v][kind].items():
                    out[f"{v}/{kind}/{name}"] = ds[()]
    return out


def write_shards(out: Path, plan: list[shards.Shard], order: list[int], threads: int) -> None:
    os.makedirs(parts_of(out))
    for k in order:
        s = plan[k]
        shards.play_shard(
            spec(num_threads=threads), s, shards.ShardFile(str(shards.segment_path(out, s.index)))
        )


@pytest.mark.parametrize("shard_games,threads", [(7, 1), (24, 2), (41, 2), (GAMES, 1)])
def test_shards_make_the_single_runs_file(single, tmp_path, shard_games, threads):
    out = tmp_path / "sharded.h5"
    plan = shards.plan(0, GAMES, shard_games)
    write_shards(out, plan, list(reversed(range(len(plan)))), threads)  # last first
    shards.assemble(out, [s.index for s in plan], SEED, {"x": 1}, pack=True)
    assert not parts_of(out).exists()
    want, got = columns(single), columns(out)
    assert want.keys() == got.keys()
    for name in want:
        np.testing.assert_array_equal(want[name], got[name], err_msg=name)
    with data.open(out) as ds:
        assert ds.run["x"] == 1 and ds.run["seed"] == SEED


def test_finished_shards_read_like_a_killed_run_and_pack(single, tmp_path):
    out = tmp_path / "partial.h5"
    plan = shards.plan(0, GAMES, 20)
    finished = [0, 2, 5]
    write_shards(out, plan, finished, 1)
    shards.assemble(out, finished, SEED, {}, pack=False)
    want = {name: column for name, column in columns(single).items() if "episodes" in name}
    with data.open(out) as ds:
        games = np.concatenate([ds[v].episodes["game"] for v in MIX])
        assert sorted(games) == [k for i in finished for k in range(plan[i].start, plan[i].stop)]
        for v in MIX:
            vd = ds[v]
            mine = np.isin(want[f"{v}/episodes/game"], vd.episodes["game"])
            np.testing.assert_array_equal(vd.episodes["seed"], want[f"{v}/episodes/seed"][mine])
            for i in range(len(vd)):  # offsets rebuilt across the shards
                ep = vd.episode(i)
                j = np.flatnonzero(want[f"{v}/episodes/game"] == vd.episodes["game"][i])[0]
                start = want[f"{v}/episodes/offset"][j]
                np.testing.assert_array_equal(
                    ep.actions,
                    columns(single)[f"{v}/steps/action"][start : start + len(ep.actions)],
                )
    fiverow.generate.pack(out)
    with h5py.File(out) as f:
        assert f.attrs["layout"] == "packed"
        assert sum(f[v].attrs["counts"][1] for v in MIX) == sum(plan[i].games for i in finished)


def test_records_of_shards_are_the_runs_records():
    p = players.make("random")
    pool = mixed_pool(MIX, BOARDS, PARAMS, SEED, 2)
    sp = new_selfplay(pool, Pairing(p, p, alternate=True), SEED)
    run(sp, GAMES)
    want = records(sp)
    want = want[np.argsort(want["game"])]
    alt = shards.RunSpec(MIX, BOARDS, SEED, (p, p), True, PARAMS, 1)
    parts = [shards.play_shard(alt, s) for s in reversed(shards.plan(0, GAMES, 11))]
    got = shards.merge_records(parts)
    np.testing.assert_array_equal(want, got)


def test_a_round_never_straddles_the_boards(tmp_path):
    """run() called with counts that are not multiples of the boards plays the
    same games as one call: game numbers, not calls, decide the boards."""
    p = players.make("random")

    def played(counts: list[int]) -> np.ndarray:
        pool = mixed_pool(MIX, BOARDS, PARAMS, SEED, 1)
        sp = new_selfplay(pool, Pairing(p, p, alternate=False), SEED)
        for n in counts:
            run(sp, n)
        r = records(sp)
        return r[np.argsort(r["game"])]

    np.testing.assert_array_equal(played([GAMES]), played([5, 30, 1, GAMES - 36]))


def test_any_prefix_of_a_round_shares_the_boards_by_weight():
    r = shards.play_shard(spec(num_threads=1), shards.Shard(0, 0, 9))
    counts = np.bincount(r["group"], minlength=2)
    assert list(counts) == [3, 6]  # caro weighs twice freestyle


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_bad_shard_sizes_are_refused(bad):
    with pytest.raises(ValueError, match="shard_games"):
        shards.plan(0, 10, bad)


def test_assemble_refuses_no_shards_and_missing_ones(tmp_path):
    out = tmp_path / "x.h5"
    os.makedirs(parts_of(out))
    with pytest.raises(OSError, match="no shard"):
        shards.assemble(out, [], SEED, {}, pack=True)
    with pytest.raises(OSError, match="missing or damaged"):
        shards.assemble(out, [3], SEED, {}, pack=True)
    assert not out.exists()
