"""fiverow.data.Batches: training minibatches rebuilt in C from moves and keys.
Every row equals the replay at its episode, ply and symmetry on every preset
and in both observation modes; epochs, shuffling, determinism across thread
counts, mixed files and shards, torch DataLoader workers, bad input."""

from __future__ import annotations

import pickle
import shutil
from collections import Counter
from pathlib import Path

import h5py
import numpy as np
import pytest

import fiverow
from fiverow import data
from fiverow.generate import generate

PRESETS = fiverow.preset_names()
KEYS = {"obs", "action", "mask", "value", "variant", "file", "episode", "ply", "symmetry"}


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    """Per preset: a few games of heuristic (seat 0) against random, with
    policies (the heuristic's are uneven: they show a symmetry's mapping)."""
    root = tmp_path_factory.mktemp("batches")
    out = {}
    for name in PRESETS:
        path = root / f"{name}.h5"
        games = 2 if name in ("gomorpion", "modlinseq") else 4
        generate(path, name, games=games, black="heuristic", white="random", seed=3, policy=True)
        out[name] = path
    return out


@pytest.fixture(scope="module")
def freestyle(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("free") / "free.h5"
    generate(path, "freestyle", games=40, seed=7, boards=8)
    return path


def rows(batches: data.Batches) -> dict[str, np.ndarray]:
    """Every batch of an iteration, concatenated."""
    out: dict[str, list[np.ndarray]] = {}
    for batch in batches:
        for key, array in batch.items():
            out.setdefault(key, []).append(array)
    return {key: np.concatenate(arrays) for key, arrays in out.items()}


def positions(r: dict[str, np.ndarray]) -> list[tuple[int, int, int, int]]:
    return list(zip(r["file"], r["variant"], r["episode"], r["ply"], strict=True))


def assert_rows_are_replays(path: Path, r: dict[str, np.ndarray], names, observation) -> None:
    """Row b is replay(episode[b], symmetry[b]) at ply[b], for every output."""
    with data.open(path) as ds:
        groups = Counter(zip(r["variant"], r["episode"], r["symmetry"], strict=True))
        for v, episode, symmetry in groups:
            vd = ds[names[v]]
            rep = vd.replay(int(episode), symmetry=int(symmetry), observation=observation)
            at = np.flatnonzero(
                (r["variant"] == v) & (r["episode"] == episode) & (r["symmetry"] == symmetry)
            )
            t = r["ply"][at]
            np.testing.assert_array_equal(r["obs"][at], rep.obs[t])
            np.testing.assert_array_equal(r["mask"][at], rep.masks[t])
            np.testing.assert_array_equal(r["action"][at], rep.actions[t])
            np.testing.assert_array_equal(r["value"][at], rep.returns[t])
            if "policy" in r:
                np.testing.assert_array_equal(r["policy"][at], rep.policy[t])


# ---- exactness ----


@pytest.mark.parametrize("observation", ["absolute", "mover"])
@pytest.mark.parametrize("preset", PRESETS)
def test_every_row_is_the_replay_at_its_episode_ply_and_symmetry(files, preset, observation):
    path = files[preset]
    # a small buffer: many rounds, refills and compactions
    b = data.Batches(path, 7, buffer=40, seed=2, num_threads=2, observation=observation)
    assert b.variants == [preset] and b.policy
    r = rows(b)
    assert set(r) == KEYS | {"policy"}
    with data.open(path) as ds:
        vd = ds[preset]
        assert len(r["obs"]) == vd.steps
        assert r["obs"].shape[1:] == (len(vd.planes(observation)), *vd.obs_shape[1:])
        assert r["mask"].dtype == np.bool_ and r["policy"].dtype == np.float32
        n_sym = len(vd.symmetries)
    assert_rows_are_replays(path, r, b.variants, observation)
    # symmetries are drawn over the variant's own set; actions stay legal under them
    assert r["symmetry"].min() >= 0 and r["symmetry"].max() < n_sym
    if n_sym > 1:
        assert len(np.unique(r["symmetry"])) > 1
    assert r["mask"][np.arange(len(r["action"])), r["action"]].all()
    support = r["policy"] > 0
    assert not (support & ~r["mask"]).any()  # policies move with the masks
    assert set(np.unique(r["value"])) <= {-1.0, 0.0, 1.0}


@pytest.mark.parametrize("preset", PRESETS)
def test_masks_actions_and_policies_move_with_the_board_under_each_symmetry(files, preset):
    """Against the identity rows of the same positions (not against replay):
    under symmetry k, cell c goes to perms[k][c] in every plane, in the mask,
    in the policy and in the action alike; values and plies stay."""
    path = files[preset]
    plain = rows(data.Batches(path, 64, symmetries=False, shuffle=False))
    at = {p: j for j, p in enumerate(zip(plain["episode"], plain["ply"], strict=True))}
    with data.open(path) as ds:
        vd = ds[preset]
        perms = vd.symmetries.perms
        per_cell = vd.n_actions // perms[0].size  # modlinseq: one action per cell and value
    seen: set[int] = set()
    for seed in range(4):
        r = rows(data.Batches(path, 64, seed=seed))
        for b in range(len(r["ply"])):
            j = at[(r["episode"][b], r["ply"][b])]
            k = int(r["symmetry"][b])
            seen.add(k)
            perm = perms[k]
            # action a = cell * per_cell + value goes to perm[cell] * per_cell + value
            moved = (perm[:, None] * per_cell + np.arange(per_cell)).ravel()
            obs = r["obs"][b].reshape(r["obs"].shape[1], -1)
            np.testing.assert_array_equal(obs[:, perm], plain["obs"][j].reshape(obs.shape))
            np.testing.assert_array_equal(r["mask"][b][moved], plain["mask"][j][: moved.size])
            np.testing.assert_array_equal(r["policy"][b][moved], plain["policy"][j][: moved.size])
            for key in ("mask", "policy"):  # special actions (swap2's choices) stay
                np.testing.assert_array_equal(r[key][b][moved.size :], plain[key][j][moved.size :])
            if plain["action"][j] < moved.size:
                assert r["action"][b] == moved[plain["action"][j]]
            else:  # a special action is no cell: it stays
                assert r["action"][b] == plain["action"][j]
            assert r["value"][b] == plain["value"][j] and r["ply"][b] == plain["ply"][j]
    # every symmetry of the board is drawn (a torus has too many to see them all)
    assert seen == set(range(len(perms))) or len(seen) > 16


def test_values_are_the_outcome_from_the_movers_seat(files):
    path = files["freestyle"]
    r = rows(data.Batches(path, 16, symmetries=False))
    with data.open(path) as ds:
        vd = ds["freestyle"]
        e = vd.episodes
        for j in range(len(r["ply"])):
            i, t = int(r["episode"][j]), int(r["ply"][j])
            seat = int(vd.episode(i).seats[t])
            winner = int(e["winner"][i])
            expected = 0.0 if winner < 0 else (1.0 if winner == seat else -1.0)
            assert r["value"][j] == expected
    assert (r["symmetry"] == 0).all()


def test_scored_games_value_the_winner_by_points(files):
    path = files["gomorpion"]
    r = rows(data.Batches(path, 64, symmetries=False))
    with data.open(path) as ds:
        e = ds["gomorpion"].episodes
        for i in np.unique(r["episode"]):
            s0, s1 = e["scores"][i]
            winner = 0 if s0 > s1 else 1 if s1 > s0 else -1
            assert e["winner"][i] == winner
    assert_rows_are_replays(path, r, ["gomorpion"], "absolute")


def test_stored_observations_give_the_same_batches(tmp_path):
    moves, stored = tmp_path / "moves.h5", tmp_path / "obs.h5"
    generate(moves, "renju", games=6, seed=11)
    generate(stored, "renju", games=6, seed=11, obs=True)
    a = rows(data.Batches(moves, 32, seed=4))
    b = rows(data.Batches(stored, 32, seed=4))
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    with data.open(stored) as ds:  # and those are the stored observations
        vd = ds["renju"]
        plain = rows(data.Batches(stored, 32, symmetries=False))
        for j in range(0, len(plain["ply"]), 17):
            ep = vd.episode(int(plain["episode"][j]))
            np.testing.assert_array_equal(plain["obs"][j], ep.obs[plain["ply"][j]])


# ---- epochs, shuffling, determinism ----


def test_each_position_exactly_once_per_epoch(freestyle):
    b = data.Batches(freestyle, 64, buffer=256, seed=1, epochs=3)
    with data.open(freestyle) as ds:
        steps = ds["freestyle"].steps
    n_batches = len(b)
    batches = list(b)
    assert len(batches) == n_batches == 3 * -(-steps // 64)
    sizes = [len(x["ply"]) for x in batches]
    per_epoch = n_batches // 3
    for e in range(3):
        epoch = batches[e * per_epoch : (e + 1) * per_epoch]
        seen = Counter(p for x in epoch for p in zip(x["episode"], x["ply"], strict=True))
        assert len(seen) == steps and set(seen.values()) == {1}
        assert sizes[(e + 1) * per_epoch - 1] == steps - 64 * (per_epoch - 1)
    # epochs differ in order and symmetries
    assert not np.array_equal(batches[0]["episode"], batches[per_epoch]["episode"])
    # the next iteration runs the next epochs: new shuffles again
    again = next(iter(b))
    assert b.epoch == 6 and not np.array_equal(again["episode"], batches[0]["episode"])
    b.set_epoch(0)
    np.testing.assert_array_equal(next(iter(b))["obs"], batches[0]["obs"])


def test_drop_last_drops_only_the_short_batch(freestyle):
    b = data.Batches(freestyle, 100, drop_last=True)
    batches = list(b)
    assert len(batches) == len(b) and {len(x["ply"]) for x in batches} == {100}
    with data.open(freestyle) as ds:
        assert len(batches) == ds["freestyle"].steps // 100


def test_same_seed_same_batches_whatever_the_threads(freestyle):
    one = rows(data.Batches(freestyle, 48, buffer=500, seed=9, num_threads=1))
    two = rows(data.Batches(freestyle, 48, buffer=500, seed=9, num_threads=2))
    for key in one:
        np.testing.assert_array_equal(one[key], two[key], err_msg=key)
    other = rows(data.Batches(freestyle, 48, buffer=500, seed=10, num_threads=2))
    assert not np.array_equal(one["episode"], other["episode"])


def test_shuffle_mixes_games_and_no_shuffle_keeps_file_order(freestyle):
    first = next(iter(data.Batches(freestyle, 64, seed=1)))
    assert len(np.unique(first["episode"])) > 10  # positions of many games in one batch
    r = rows(data.Batches(freestyle, 64, shuffle=False, symmetries=False))
    order = np.lexsort((r["ply"], r["episode"]))
    np.testing.assert_array_equal(order, np.arange(len(order)))


def test_the_buffer_bounds_memory(freestyle):
    with data.open(freestyle) as ds:
        steps = ds["freestyle"].steps
    small = data.Batches(freestyle, 16, buffer=128)
    big = data.Batches(freestyle, 16, buffer=1 << 16)
    assert len(rows(small)["ply"]) == len(rows(big)["ply"]) == steps
    # the big buffer holds the whole file; the small one a few games at a time
    assert big.peak_buffer_bytes > 4 * small.peak_buffer_bytes


# ---- mixed files, weights, shards ----


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("mixed") / "mixed.h5"
    generate(path, {"freestyle": 1.0, "caro": 1.0, "renju": 1.0}, games=30, seed=5, boards=6)
    return path


def test_shapes_go_in_separate_batches_and_same_shapes_mix(mixed):
    b = data.Batches(mixed, 32, seed=3)
    assert b.variants == ["freestyle", "caro", "renju"]
    assert [s[2] for s in b.shapes] == [["freestyle", "caro"], ["renju"]]
    r_batches = list(b)
    mixed_batches = 0
    for x in r_batches:
        names = {b.variants[v] for v in x["variant"]}
        assert names <= {"freestyle", "caro"} or names == {"renju"}
        assert x["obs"].shape[1] == (5 if names == {"renju"} else 4)
        mixed_batches += names == {"freestyle", "caro"}
    assert mixed_batches > 0
    seen = Counter()
    for planes in (4, 5):
        same = [x for x in r_batches if x["obs"].shape[1] == planes]
        r = {k: np.concatenate([x[k] for x in same]) for k in KEYS}
        assert_rows_are_replays(mixed, r, b.variants, "absolute")
        seen.update(positions(r))
    with data.open(mixed) as ds:
        assert len(seen) == sum(ds[n].steps for n in ds.variants)
    assert set(seen.values()) == {1}
    one = data.Batches(mixed, 32, variants=["renju"])
    assert one.variants == ["renju"] and len(one.shapes) == 1


def test_weights_set_each_variants_share(mixed):
    with data.open(mixed) as ds:
        n = {name: ds[name].steps for name in ("freestyle", "caro")}
    b = data.Batches(mixed, 50, variants={"freestyle": 3, "caro": 1}, seed=2)
    total = n["freestyle"] + n["caro"]
    counts = Counter()
    for _ in range(2):  # two epochs: the same shares, other positions
        r = rows(b)
        counts = Counter(b.variants[v] for v in r["variant"])
        for name, w in (("freestyle", 0.75), ("caro", 0.25)):
            rate = w * total / n[name]
            assert counts[name] == int(rate) * n[name] + round((rate - int(rate)) * n[name])
    assert sum(counts.values()) == pytest.approx(total, abs=2)
    # caro is drawn below once per position: no position twice
    caro = [p for p in positions(r) if b.variants[p[1]] == "caro"]
    assert len(set(caro)) == len(caro)


def test_several_files_are_read_as_one(tmp_path):
    a, c = tmp_path / "a.h5", tmp_path / "c.h5"
    generate(a, "freestyle", games=6, seed=1)
    generate(c, "freestyle", games=5, seed=2)
    with data.open(c) as opened:
        b = data.Batches([a, opened], 16, seed=5)
        assert b.files == [a, c]
        r = rows(b)
        b.close()
        assert opened.file  # a Dataset given stays open
        steps = opened["freestyle"].steps
    with data.open(a) as ds:
        steps += ds["freestyle"].steps
    assert len(r["ply"]) == steps and len(set(positions(r))) == steps
    for f, path in enumerate((a, c)):
        at = r["file"] == f
        assert_rows_are_replays(path, {k: v[at] for k, v in r.items()}, b.variants, "absolute")


def test_shards_are_disjoint_and_cover_the_epoch(freestyle):
    parts = [rows(data.Batches(freestyle, 32, seed=4, shard=(k, 3))) for k in range(3)]
    seen = [set(positions(p)) for p in parts]
    assert all(len(s) == len(p["ply"]) for s, p in zip(seen, parts, strict=True))
    assert not (seen[0] & seen[1]) and not (seen[1] & seen[2]) and not (seen[0] & seen[2])
    with data.open(freestyle) as ds:
        assert sum(len(s) for s in seen) == ds["freestyle"].steps


def test_torch_dataloader_workers_split_the_games(freestyle):
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader, IterableDataset

    ds = data.TorchBatches(freestyle, 32, seed=6, num_threads=1)
    assert isinstance(ds, IterableDataset)
    loader = DataLoader(ds, batch_size=None, num_workers=2)
    with data.open(freestyle) as f:
        steps = f["freestyle"].steps
    epochs = []
    for epoch in range(2):
        ds.set_epoch(epoch)
        seen = Counter()
        for batch in loader:
            assert isinstance(batch["obs"], torch.Tensor) and batch["obs"].dtype == torch.uint8
            assert batch["mask"].dtype == torch.bool and len(batch["obs"]) <= 32
            seen.update(zip(batch["episode"].tolist(), batch["ply"].tolist(), strict=True))
        assert len(seen) == steps and set(seen.values()) == {1}  # no position twice
        epochs.append(seen)
    single = Counter()
    for batch in DataLoader(ds, batch_size=None, num_workers=0):
        single.update(zip(batch["episode"].tolist(), batch["ply"].tolist(), strict=True))
    assert single == epochs[1]


def test_a_worker_sends_each_batch_in_one_piece(freestyle, files):
    """issue 27: DataLoader workers were 8.5x slower than loading in-process,
    each batch crossing tensor by tensor (a shared-memory segment and a file
    descriptor each). A batch now crosses packed in one buffer and arrives a
    dict of tensors, views of that one buffer."""
    from multiprocessing.reduction import ForkingPickler

    import torch.multiprocessing  # torch's reducers, registered with ForkingPickler
    from torch.utils.data import DataLoader

    from fiverow.data import torch_batches

    ds = data.TorchBatches(freestyle, 32, seed=6, num_threads=1)
    for batch in DataLoader(ds, batch_size=None, num_workers=2):
        assert set(batch) == KEYS and all(isinstance(t, torch.Tensor) for t in batch.values())
        # one buffer: each tensor starts where the one before it ends
        spans = sorted((t.data_ptr(), t.data_ptr() + t.nbytes) for t in batch.values())
        ends = [end for _, end in spans[:-1]]
        assert [start for start, _ in spans[1:]] == ends, "the batch crossed tensor by tensor"
    # both ways across (bytes through the pipe, shared memory when large), every
    # dtype, policies included: the batch that arrives is the batch packed
    with data.Batches(files["renju"], 64, seed=2, policy=True) as batches:
        batch = next(iter(batches))
    for limit in (1 << 40, 0):
        packed = torch_batches.PackedBatch(batch)
        original = torch_batches.SHARED_MEMORY_BYTES
        torch_batches.SHARED_MEMORY_BYTES = limit
        try:
            wire = ForkingPickler.dumps(packed)
        finally:
            torch_batches.SHARED_MEMORY_BYTES = original
        got = pickle.loads(wire)
        assert isinstance(got, dict) and set(got) == set(batch) and "policy" in got
        for name, array in batch.items():
            assert got[name].numpy().dtype == array.dtype, name
            np.testing.assert_array_equal(got[name].numpy(), array)
        assert (len(wire) > packed.buffer.nbytes) == (limit > 0)  # bytes in the pickle or not


# ---- bad input ----


def test_bad_arguments_are_refused(freestyle, files):
    for size in (0, -1):
        with pytest.raises(ValueError, match="batch_size"):
            data.Batches(freestyle, size)
    with pytest.raises(TypeError, match="batch_size"):
        data.Batches(freestyle, 2.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="buffer"):
        data.Batches(freestyle, 64, buffer=10)
    with pytest.raises(ValueError, match="epochs"):
        data.Batches(freestyle, 8, epochs=0)
    with pytest.raises(ValueError, match="observation"):
        data.Batches(freestyle, 8, observation="relative")
    with pytest.raises(ValueError, match="num_threads"):
        data.Batches(freestyle, 8, num_threads=0)
    with pytest.raises(ValueError, match="shard"):
        data.Batches(freestyle, 8, shard=(2, 2))
    with pytest.raises(ValueError, match="source"):
        data.Batches([], 8)
    with pytest.raises(ValueError) as e:
        data.Batches(freestyle, 8, variants=["renju"])
    assert str(freestyle) in str(e.value) and "'renju'" in str(e.value)
    assert "freestyle" in str(e.value)
    with pytest.raises(ValueError, match="weight"):
        data.Batches(freestyle, 8, variants={"freestyle": -1})
    with pytest.raises(ValueError) as e:
        data.Batches(freestyle, 8, policy=True)
    assert str(freestyle) in str(e.value) and "no policies" in str(e.value)
    assert "policy" not in next(iter(data.Batches(freestyle, 8)))
    assert "policy" not in next(iter(data.Batches(files["caro"], 8, policy=False)))


def test_files_that_are_not_datasets_are_refused_naming_them(tmp_path, freestyle):
    text = tmp_path / "text.h5"
    text.write_text("hello\n" * 50)
    plain = tmp_path / "plain.h5"
    with h5py.File(plain, "w") as f:
        f["x"] = np.arange(3)
    for path, words in ((text, "HDF5"), (plain, "not a fiverow dataset")):
        with pytest.raises(data.DatasetError) as e:
            data.Batches(path, 8)
        assert str(path) in str(e.value) and words in str(e.value)
    with pytest.raises(data.DatasetError, match="no such dataset"):
        data.Batches([freestyle, tmp_path / "missing.h5"], 8)
    damaged = tmp_path / "damaged.h5"
    shutil.copy(freestyle, damaged)
    with h5py.File(damaged, "r+") as f:
        del f["freestyle/episodes/length"]
    with pytest.raises(data.DatasetError) as e:
        data.Batches(damaged, 8)
    assert str(damaged) in str(e.value) and "'episodes/length'" in str(e.value)


def test_a_game_that_does_not_replay_stops_the_epoch_before_any_batch(tmp_path, freestyle):
    path = tmp_path / "bad_move.h5"
    shutil.copy(freestyle, path)
    with h5py.File(path, "r+") as f:
        actions = f["freestyle/steps/action"][()]
        start = int(f["freestyle/episodes/offset"][3])
        actions[start + 1] = actions[start]  # the second move on the first stone
        del f["freestyle/steps/action"]
        f["freestyle/steps/action"] = actions
    handed = []
    with pytest.raises(data.DatasetError) as e:
        for batch in data.Batches(path, 8):
            handed.append(batch)
    assert handed == []  # the whole file is one round here: nothing handed out
    message = str(e.value)
    assert str(path) in message and "episode 3 of 'freestyle'" in message
    assert "not legal" in message
    winner = tmp_path / "bad_winner.h5"
    shutil.copy(freestyle, winner)
    with h5py.File(winner, "r+") as f:
        w = f["freestyle/episodes/winner"][()]
        w[5] = 4
        del f["freestyle/episodes/winner"]
        f["freestyle/episodes/winner"] = w
    with pytest.raises(data.DatasetError) as e:
        list(data.Batches(winner, 8))
    assert str(winner) in str(e.value) and "episode 5" in str(e.value)


def test_batches_kept_are_never_overwritten(freestyle):
    """Rounds reuse the arrays of earlier rounds only once no batch of them is
    alive: a batch kept (or a view, or a tensor of it) stays as it was."""
    copies, kept = [], []
    for batch in data.Batches(freestyle, 32, buffer=256, seed=8):
        copies.append({k: v.copy() for k, v in batch.items()})
        kept.append(batch["obs"][::2])  # a view only
    for copy, view in zip(copies, kept, strict=True):
        np.testing.assert_array_equal(copy["obs"][::2], view)
    # dropped batches let the loader reuse its arrays: the same values come out
    again = [b["obs"].copy() for b in data.Batches(freestyle, 32, buffer=256, seed=8)]
    for copy, obs in zip(copies, again, strict=True):
        np.testing.assert_array_equal(copy["obs"], obs)
