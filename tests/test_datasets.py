"""Self-play datasets: fiverow.generate writes HDF5 files, fiverow.data reads and
replays them. Schema and invariants, replays and symmetries, errors, determinism,
crash safety (kill, Ctrl-C, full disk), the CLI and the Minari export."""

from __future__ import annotations

import json
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import h5py
import numpy as np
import pytest

import fiverow
from fiverow import _core, cli, data, players
from fiverow.generate import GenerateResult, generate, pack

PRESETS = fiverow.preset_names()
PLAIN = ["freestyle", "standard", "caro", "strip", "torus", "hex"]  # no opening protocol

STEP_DTYPES = {"action": np.int16, "seat": np.int8, "colour": np.int8}
EPISODE_DTYPES = {
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


# ---- helpers ----


def contents(path: Path) -> dict[str, np.ndarray]:
    """Every public dataset of a file (the `_segments` storage left out)."""
    out: dict[str, np.ndarray] = {}
    with h5py.File(path, "r") as f:

        def visit(name, obj):
            if isinstance(obj, h5py.Dataset) and not name.startswith("_segments"):
                out[name] = obj[()]

        f.visititems(visit)
    return out


def assert_same_contents(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> None:
    assert sorted(a) == sorted(b)
    for name in a:
        assert a[name].dtype == b[name].dtype, name
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def check_offsets(episodes: dict[str, np.ndarray], steps: int) -> None:
    lengths = episodes["length"].astype(np.int64)
    expected = np.concatenate([[0], np.cumsum(lengths)[:-1]]) if len(lengths) else lengths
    np.testing.assert_array_equal(episodes["offset"], expected)
    assert lengths.sum() == steps
    assert np.all(lengths > 0)


def core_replay(vd: data.VariantData, i: int, actions: np.ndarray):
    """Replay episode i's keys with the given actions in C: (obs, masks, rewards)."""
    n = len(actions)
    e = vd.episodes
    obs = np.zeros((n + 1, *vd.obs_shape), dtype=np.uint8)
    masks = np.zeros((n + 1, vd.n_actions), dtype=np.uint8)
    rewards = np.zeros((n, 2), dtype=np.float32)
    _core.replay(
        vd._batch(),
        0,
        int(e["seed"][i]),
        vd.key_group,
        int(e["board"][i]),
        int(e["episode"][i]),
        np.ascontiguousarray(actions, dtype=np.int16),
        obs,
        masks,
        rewards,
    )
    return obs, masks, rewards


def wait_for_episodes(path: Path, proc: subprocess.Popen, timeout: float = 30.0) -> int:
    """Poll until the file at `path` opens with at least one episode."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the generator exited early"
        try:
            with data.open(path) as ds:
                if len(ds) > 0:
                    return len(ds)
        except OSError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"no episode in {path} after {timeout} s")


def cli_generate(path: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "fiverow.cli",
        "generate",
        "--out",
        str(path),
        "--quiet",
        *extra,
    ]


# ---- shared datasets ----


@pytest.fixture(scope="module")
def every_preset(tmp_path_factory) -> Path:
    """Every preset in one pool, heuristic (seat 0) against random (seat 1), with
    observations and policies."""
    path = tmp_path_factory.mktemp("every") / "every.h5"
    result = generate(
        path,
        {name: 1.0 for name in PRESETS},
        games=48,
        black="heuristic",
        white="random",
        seed=4,
        obs=True,
        policy=True,
    )
    assert isinstance(result, GenerateResult)
    assert result.games == 48 and not result.interrupted and result.path == path
    return path


@pytest.fixture(scope="module")
def mcts_games(tmp_path_factory) -> Path:
    """Freestyle, MCTS (seat 0) against the heuristic, with policies (visit counts)."""
    path = tmp_path_factory.mktemp("mcts") / "mcts.h5"
    generate(
        path,
        "freestyle",
        games=8,
        black=players.make("mcts", simulations=16, depth=8),
        white="heuristic",
        seed=9,
        policy=True,
    )
    return path


@pytest.fixture(scope="module")
def symmetric_games(tmp_path_factory) -> dict[str, Path]:
    """Moves-only games of the boards whose symmetries differ."""
    root = tmp_path_factory.mktemp("sym")
    cases = {
        "freestyle": ("freestyle", None),
        "rectangle": ("freestyle", {"height": 9, "width": 13}),
        "torus": ("torus", None),
        "torus-rect": ("torus", {"height": 8, "width": 11}),
        "renju": ("renju", None),
        "strip": ("strip", None),
        "hex": ("hex", None),
    }
    out = {}
    for key, (preset, params) in cases.items():
        out[key] = root / f"{key}.h5"
        generate(
            out[key], preset, games=6, black="heuristic", white="random", seed=2, params=params
        )
    return out


# ---- schema ----


def test_root_attributes(every_preset):
    with h5py.File(every_preset, "r") as f:
        a = f.attrs
        assert a["format"] == "fiverow-selfplay"
        assert int(a["format_version"]) == 1
        assert a["layout"] == "packed"
        assert a["variants"].split("\n") == PRESETS
        np.testing.assert_array_equal(a["recorded"], [1, 1])
        assert int(a["seed"]) == 4
        time.strptime(a["created"], "%Y-%m-%dT%H:%M:%SZ")
        run = json.loads(a["run"])
        assert run["player_names"] == ["heuristic", "random"]
        assert [p["kind"] for p in run["players"]] == ["heuristic", "random"]
        assert run["seed"] == 4
        assert run["fiverow_version"] == fiverow.__version__
        assert "numpy_version" in run and "hdf5_version" in run
    assert not Path(str(every_preset) + ".parts").exists()


@pytest.mark.parametrize("preset", PRESETS)
def test_variant_group_schema(every_preset, preset):
    env = fiverow.make_vec(preset, num_envs=1, seed=0)
    with h5py.File(every_preset, "r") as f:
        g = f[preset]
        config = json.loads(g.attrs["config"])
        assert config["name"] == preset
        assert {k: v for k, v in config.items() if k != "name"} == fiverow.resolve(preset).params
        assert tuple(g.attrs["obs_shape"]) == env.single_observation_space.shape
        assert int(g.attrs["n_actions"]) == env.n_actions
        assert int(g.attrs["key_group"]) == PRESETS.index(preset)
        steps = g["steps/action"].shape[0]
        episodes = g["episodes/length"].shape[0]
        assert steps > 0 and episodes > 0
        np.testing.assert_array_equal(g.attrs["counts"], [steps, episodes])
        for name, dtype in STEP_DTYPES.items():
            assert g[f"steps/{name}"].dtype == dtype and g[f"steps/{name}"].shape == (steps,)
        assert g["steps/obs"].dtype == np.uint8
        assert g["steps/obs"].shape == (steps, *env.single_observation_space.shape)
        assert g["steps/policy"].dtype == np.float16
        assert g["steps/policy"].shape == (steps, env.n_actions)
        for name, dtype in EPISODE_DTYPES.items():
            ds = g[f"episodes/{name}"]
            assert ds.dtype == dtype, name
            assert ds.shape == ((episodes, 2) if name in ("scores", "players") else (episodes,))


def test_moves_only_file_has_no_obs_or_policy(mcts_games, symmetric_games):
    with h5py.File(symmetric_games["freestyle"], "r") as f:
        np.testing.assert_array_equal(f.attrs["recorded"], [0, 0])
        assert "obs" not in f["freestyle/steps"] and "policy" not in f["freestyle/steps"]
    with data.open(mcts_games) as ds:
        vd = ds["freestyle"]
        assert vd.has_policy and not vd.has_obs
        ep = vd.episode(0)
        assert ep.obs is None and ep.policy is not None


def test_episode_invariants(every_preset):
    with data.open(every_preset) as ds:
        games = []
        for name in ds.variants:
            vd = ds[name]
            e = vd.episodes
            check_offsets(e, vd.steps)
            assert set(np.unique(e["winner"])) <= {-1, 0, 1}
            assert set(np.unique(e["truncated"])) <= {0, 1}
            assert set(np.unique(e["black_seat"])) <= {0, 1}
            # black plays seat 0 in every game
            np.testing.assert_array_equal(e["players"], np.tile([0, 1], (len(vd), 1)))
            assert np.all(e["seed"] == 4)
            seats = ds.file[f"{name}/steps/seat"][()]
            assert set(np.unique(seats)) <= {0, 1}
            games.append(e["game"])
        games = np.concatenate(games)
        assert sorted(games.tolist()) == list(range(48))


@pytest.mark.parametrize("preset", PLAIN)
def test_seats_alternate_without_a_protocol(every_preset, preset):
    with data.open(every_preset) as ds:
        vd = ds[preset]
        for i in range(len(vd)):
            ep = vd.episode(i)
            np.testing.assert_array_equal(ep.seats, np.arange(ep.length) % 2)
            np.testing.assert_array_equal(ep.colours, ep.seats)  # seat 0 is black
            assert ep.black_seat == 0 and ep.opening == -1


@pytest.mark.parametrize("preset", PRESETS)
def test_seats_name_the_player_who_acted(every_preset, preset):
    """The random player (seat 1) records a uniform policy over the legal actions;
    the heuristic (seat 0) does not, mostly; every recorded action is in the
    support of the recorded policy."""
    with data.open(every_preset) as ds:
        vd = ds[preset]
        uniform_seat0 = []
        for i in range(len(vd)):
            ep = vd.episode(i)
            masks = vd.replay(i).masks
            policy = ep.policy.astype(np.float32)
            assert np.all(policy[np.arange(ep.length), ep.actions] > 0)
            uniform = np.all(
                np.abs(policy - masks / masks.sum(1, keepdims=True)) < 2e-3, axis=1
            ) & (masks.sum(1) > 1)
            seat1 = ep.seats == 1
            assert np.all(uniform[seat1] | (masks[seat1].sum(1) == 1))
            uniform_seat0 += list(uniform[~seat1])
        if preset in PLAIN:
            assert np.mean(uniform_seat0) < 0.5


@pytest.mark.parametrize("preset", PRESETS)
def test_policies_are_distributions_over_legal_actions(every_preset, preset):
    with data.open(every_preset) as ds:
        vd = ds[preset]
        for i in range(len(vd)):
            policy = vd.episode(i).policy.astype(np.float32)
            masks = vd.replay(i).masks
            assert np.all(policy >= 0)
            assert np.all(policy[~masks] == 0)
            np.testing.assert_allclose(policy.sum(1), 1.0, atol=1e-2)


def test_mcts_policies_are_visit_distributions(mcts_games):
    with data.open(mcts_games) as ds:
        vd = ds["freestyle"]
        assert ds.players == ["mcts:16(depth=8)", "heuristic"]
        for i in range(len(vd)):
            ep = vd.episode(i)
            masks = vd.replay(i).masks
            policy = ep.policy.astype(np.float32)
            assert np.all(policy[~masks] == 0)
            np.testing.assert_allclose(policy.sum(1), 1.0, atol=1e-2)
            assert np.all(policy[np.arange(ep.length), ep.actions] > 0)
            # visit counts of 16 simulations: multiples of 1/16
            mine = policy[ep.seats == 0]
            np.testing.assert_allclose(mine * 16, np.round(mine * 16), atol=2e-2)


def test_summary_and_outcomes(every_preset):
    with data.open(every_preset) as ds:
        summary = ds.summary()
        assert list(summary) == PRESETS
        assert len(ds) == sum(o["episodes"] for o in summary.values()) == 48
        assert ds.players == ["heuristic", "random"]
        assert ds.layout == "packed"
        for name, o in summary.items():
            e = ds[name].episodes
            assert o["episodes"] == len(ds[name])
            assert o["steps"] == ds[name].steps == int(e["length"].sum())
            assert o["seat0_wins"] == int(np.sum(e["winner"] == 0))
            assert o["seat1_wins"] == int(np.sum(e["winner"] == 1))
            assert o["seat0_wins"] + o["seat1_wins"] + o["draws"] + o["truncated"] == o["episodes"]
        # the heuristic beats random on a plain board
        plain = [summary[name] for name in PLAIN]
    assert sum(o["seat0_wins"] for o in plain) >= 0.9 * sum(o["episodes"] for o in plain)


def test_generate_result_matches_the_file(tmp_path):
    path = tmp_path / "r.h5"
    result = generate(path, ["freestyle", "caro"], games=20, boards=7, seed=1)
    assert result.games == 20 and result.seconds > 0 and result.steps_per_second > 0
    with data.open(path) as ds:
        assert len(ds) == 20
        assert sum(ds[v].steps for v in ds.variants) == result.steps
        assert json.loads(ds.file.attrs["run"])["games_requested"] == 20


def test_mix_weights_split_the_boards(tmp_path):
    path = tmp_path / "w.h5"
    generate(path, {"freestyle": 3, "strip": 1}, games=40, boards=40, seed=0)
    with data.open(path) as ds:
        assert ds.variants == ["freestyle", "strip"]
        assert ds.run["boards"] == {"freestyle": 30, "strip": 10}
        assert len(ds["freestyle"]) > len(ds["strip"]) > 0
        assert len(ds) == 40


# ---- reading: episodes and replays ----


def test_episode_reads_its_slice(every_preset):
    with data.open(every_preset) as ds:
        vd = ds["caro"]
        steps = ds.file["caro/steps"]
        e = vd.episodes
        for i in (0, len(vd) - 1, -1):
            ep = vd.episode(i)
            j = i % len(vd)
            sl = slice(int(e["offset"][j]), int(e["offset"][j] + e["length"][j]))
            np.testing.assert_array_equal(ep.actions, steps["action"][sl])
            np.testing.assert_array_equal(ep.seats, steps["seat"][sl])
            np.testing.assert_array_equal(ep.obs, steps["obs"][sl])
            assert ep.length == e["length"][j]
            assert ep.winner == e["winner"][j]
            assert ep.scores == tuple(e["scores"][j])
        assert [ep.length for ep in vd] == list(e["length"])


@pytest.mark.parametrize("preset", PRESETS)
def test_replay_rebuilds_the_recorded_observations(every_preset, preset):
    with data.open(every_preset) as ds:
        vd = ds[preset]
        for i in range(len(vd)):
            ep = vd.episode(i)
            r = vd.replay(i)
            n = ep.length
            assert r.obs.shape == (n, *vd.obs_shape) and r.obs.dtype == np.uint8
            assert r.masks.shape == (n, vd.n_actions) and r.masks.dtype == np.bool_
            assert r.actions.dtype == np.int64 and r.rewards.shape == (n, 2)
            assert r.final_obs.shape == vd.obs_shape and r.symmetry == 0
            np.testing.assert_array_equal(r.obs, ep.obs)
            np.testing.assert_array_equal(r.actions, ep.actions)
            assert r.masks[np.arange(n), r.actions].all()
            np.testing.assert_allclose(r.policy, ep.policy.astype(np.float32))
            # the final observation differs from the last one seen
            assert not np.array_equal(r.final_obs, r.obs[-1])


def test_replay_returns_and_rewards(every_preset):
    with data.open(every_preset) as ds:
        vd = ds["freestyle"]
        for i in range(len(vd)):
            r = vd.replay(i)
            ep = vd.episode(i)
            assert ep.winner in (0, 1)
            expected = np.where(r.seats == ep.winner, 1.0, -1.0)
            np.testing.assert_array_equal(r.returns, expected)
            np.testing.assert_array_equal(r.rewards[:-1], 0)
            last = np.zeros(2, dtype=np.float32)
            last[ep.winner], last[1 - ep.winner] = 1.0, -1.0
            np.testing.assert_array_equal(r.rewards[-1], last)


def test_replay_matches_a_live_env(every_preset):
    """The first game of a board (episode 0) is the game a fresh pool with the
    same seed and groups plays from the same moves."""
    with data.open(every_preset) as ds:
        counts = ds.run["boards"]
        pool = fiverow.make_pool({name: counts[name] for name in ds.variants}, seed=4)
        pool.reset()
        vd = ds["freestyle"]
        e = vd.episodes
        i = int(np.flatnonzero(e["episode"] == 0)[0])
        board = int(e["board"][i])
        ep = vd.episode(i)
        g = pool.groups["freestyle"]
        for t, action in enumerate(ep.actions):
            np.testing.assert_array_equal(g.obs[board], ep.obs[t])
            step = {name: pool.sample_legal()[name].copy() for name in ds.variants}
            step["freestyle"][board] = action
            pool.step(step)
        assert g.terminated[board]
        assert g.info()["winner"][board] == ep.winner


# ---- symmetries ----


@pytest.mark.parametrize(
    "key, count",
    [
        ("freestyle", 8),
        ("rectangle", 4),
        ("torus", 8 * 15 * 15),
        ("torus-rect", 4 * 8 * 11),
        ("renju", 8),
        ("strip", 1),
        ("hex", 1),
    ],
)
def test_symmetry_counts(symmetric_games, key, count):
    with data.open(symmetric_games[key]) as ds:
        vd = ds[ds.variants[0]]
        assert len(vd.symmetries) == count
        np.testing.assert_array_equal(
            vd.symmetries.perms[0], np.arange(vd.obs_shape[1] * vd.obs_shape[2])
        )
        for perm in vd.symmetries.perms[:16]:
            assert sorted(perm.tolist()) == list(range(perm.size))  # a permutation


def board_maps(h: int, w: int, torus: bool) -> set[bytes]:
    """Every symmetry of an h x w board as a cell permutation (perm[cell] = image):
    the rotations and reflections that fit it, times the translations on a torus."""
    grid = np.arange(h * w).reshape(h, w)
    images = [grid, grid[::-1, ::-1], grid[::-1, :], grid[:, ::-1]]
    if h == w:
        images += [np.rot90(grid), np.rot90(grid, -1), grid.T, grid[::-1, ::-1].T]
    shifts = [(dy, dx) for dy in range(h) for dx in range(w)] if torus else [(0, 0)]
    out = set()
    for image in images:
        for dy, dx in shifts:
            moved = np.roll(image, (dy, dx), axis=(0, 1))
            perm = np.empty(h * w, dtype=np.int64)
            perm[moved.reshape(-1)] = np.arange(h * w)  # the cell moved.flat[j] goes to j
            out.add(perm.tobytes())
    return out


@pytest.mark.parametrize("key", ["freestyle", "rectangle", "torus", "torus-rect"])
def test_symmetries_are_the_board_symmetries(symmetric_games, key):
    with data.open(symmetric_games[key]) as ds:
        vd = ds[ds.variants[0]]
        h, w = vd.obs_shape[1:]
        perms = {p.astype(np.int64).tobytes() for p in vd.symmetries.perms}
        assert len(perms) == len(vd.symmetries)  # no duplicates
        assert perms == board_maps(h, w, key.startswith("torus"))


def test_symmetry_count_of_every_preset(every_preset):
    expected = {"strip": 1, "hex": 1, "modlinseq": 1, "torus": 8 * 15 * 15}
    with data.open(every_preset) as ds:
        for name in ds.variants:
            assert len(ds[name].symmetries) == expected.get(name, 8), name


def symmetry_sample(n: int) -> list[int]:
    return list(range(n)) if n <= 8 else sorted({1, 2, 7, n // 2, n - 1, 8 * 17 + 3})


@pytest.mark.parametrize("key", ["freestyle", "rectangle", "torus", "torus-rect", "renju"])
def test_transformed_replay_is_the_replay_of_the_transformed_moves(symmetric_games, key):
    """Replaying the mapped actions from the same keys gives the mapped
    observations, masks and rewards: a symmetry maps a game onto a legal game."""
    with data.open(symmetric_games[key]) as ds:
        vd = ds[ds.variants[0]]
        for k in symmetry_sample(len(vd.symmetries)):
            for i in range(len(vd)):
                r = vd.replay(i, symmetry=k)
                assert r.symmetry == k
                n = len(r.actions)
                assert r.masks[np.arange(n), r.actions].all()
                obs, masks, rewards = core_replay(vd, i, r.actions)
                np.testing.assert_array_equal(obs[:n], r.obs)
                np.testing.assert_array_equal(obs[n], r.final_obs)
                np.testing.assert_array_equal(masks[:n].astype(bool), r.masks)
                np.testing.assert_array_equal(rewards, r.rewards)


def test_symmetries_move_the_stones(symmetric_games):
    """A symmetry other than the identity changes a game (the check above is not
    vacuous), and the quarter turns and flips give 8 different games."""
    with data.open(symmetric_games["freestyle"]) as ds:
        vd = ds["freestyle"]
        i = int(np.argmax(vd.episodes["length"]))
        games = {vd.replay(i, symmetry=k).actions.tobytes() for k in range(8)}
        assert len(games) == 8
        r0, r3 = vd.replay(i), vd.replay(i, symmetry=3)  # symmetry 3: left-right mirror
        np.testing.assert_array_equal(r3.obs, r0.obs[..., ::-1])
        rows, cols = np.divmod(r0.actions, 15)
        np.testing.assert_array_equal(r3.actions, rows * 15 + 14 - cols)


@pytest.mark.parametrize("preset", PRESETS)
def test_transformed_replays_are_legal_for_every_preset(every_preset, preset):
    with data.open(every_preset) as ds:
        vd = ds[preset]
        for k in symmetry_sample(len(vd.symmetries)):
            r = vd.replay(0, symmetry=k)
            n = len(r.actions)
            assert r.masks[np.arange(n), r.actions].all()
            assert np.all(r.policy[~r.masks] == 0)  # the policy moves with the mask
            np.testing.assert_allclose(r.policy.sum(1), 1.0, atol=1e-2)
            assert np.array_equal(r.obs.sum(axis=(-1, -2)), vd.replay(0).obs.sum(axis=(-1, -2)))


# ---- errors ----


def test_existing_path_is_refused_without_overwrite(tmp_path):
    path = tmp_path / "a.h5"
    generate(path, games=3, seed=1)
    before = contents(path)
    with pytest.raises(OSError, match="overwrite"):
        generate(path, games=5, seed=2)
    assert_same_contents(contents(path), before)  # left untouched
    generate(path, games=5, seed=2, overwrite=True)
    with data.open(path) as ds:
        assert len(ds) == 5


def test_missing_directory_is_refused(tmp_path):
    path = tmp_path / "no" / "such" / "dir" / "a.h5"
    with pytest.raises(OSError) as e:
        generate(path, games=3)
    assert str(path) in str(e.value)
    assert not (tmp_path / "no").exists()


def test_path_under_a_regular_file_is_refused(tmp_path):
    (tmp_path / "file").write_text("not a directory")
    path = tmp_path / "file" / "a.h5"
    with pytest.raises(OSError) as e:
        generate(path, games=3)
    assert str(path) in str(e.value)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"games": 0}, "games"),
        ({"games": -3}, "games"),
        ({"games": 3, "boards": 0}, "boards"),
        ({"games": 3, "gzip": 12}, "gzip"),
        ({"games": 3, "flush_seconds": 0}, "flush_seconds"),
        ({"games": 3, "black": "chess"}, "kind"),
        ({"games": 3, "variants": "nope"}, "nope"),
        ({"games": 3, "seed": -1}, "seed"),
        ({"games": 3, "num_threads": 0}, "num_threads"),
        ({"games": 3, "num_threads": 100000}, r"num_threads must be in 1\.\.1024"),
        ({"games": 3, "num_threads": 40000}, "num_threads"),
    ],
)
def test_generate_rejects_bad_arguments(tmp_path, kwargs, words):
    with pytest.raises(ValueError, match=words):
        generate(tmp_path / "x.h5", **kwargs)
    assert not (tmp_path / "x.h5").exists()
    assert not (tmp_path / "x.h5.parts").exists()


def test_the_largest_thread_count_plays(tmp_path):
    generate(tmp_path / "t.h5", games=2, num_threads=1024)
    with data.open(tmp_path / "t.h5") as ds:
        assert len(ds) == 2


def test_empty_out_path_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="output path is empty"):
        generate("", games=2)
    assert list(tmp_path.iterdir()) == []


def test_a_run_that_fails_before_any_game_leaves_nothing_behind(tmp_path, monkeypatch):
    import fiverow.generate as generate_mod

    def fail(*args, **kwargs):
        raise RuntimeError("the players failed")

    monkeypatch.setattr(generate_mod, "run", fail)
    path = tmp_path / "f.h5"
    with pytest.raises(RuntimeError, match="players failed"):
        generate(path, games=5)
    assert list(tmp_path.iterdir()) == []


def test_open_missing_file(tmp_path):
    with pytest.raises(data.DatasetError, match="no such dataset"):
        data.open(tmp_path / "missing.h5")


def test_open_text_file(tmp_path):
    path = tmp_path / "text.h5"
    path.write_text("hello\n" * 100)
    with pytest.raises(data.DatasetError) as e:
        data.open(path)
    assert str(path) in str(e.value) and "HDF5" in str(e.value)


def test_open_foreign_hdf5_file(tmp_path):
    path = tmp_path / "plain.h5"
    with h5py.File(path, "w") as f:
        f["x"] = np.arange(3)
    with pytest.raises(data.DatasetError) as e:
        data.open(path)
    assert str(path) in str(e.value) and "fiverow-selfplay" in str(e.value)


def test_open_truncated_dataset(tmp_path):
    path = tmp_path / "full.h5"
    generate(path, games=20, obs=True)
    raw = path.read_bytes()
    cut = tmp_path / "cut.h5"
    cut.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(data.DatasetError) as e:
        data.open(cut)
    assert str(cut) in str(e.value)
    assert issubclass(data.DatasetError, OSError)


def test_damaged_attributes(tmp_path):
    path = tmp_path / "d.h5"
    generate(path, games=3)
    with h5py.File(path, "a") as f:
        f.attrs["format_version"] = 99
    with pytest.raises(data.DatasetError, match="version"):
        data.open(path)
    with h5py.File(path, "a") as f:
        f.attrs["format_version"] = 1
        del f.attrs["run"]
    with pytest.raises(data.DatasetError, match="damaged"):
        data.open(path)


def test_bad_indices(every_preset):
    with data.open(every_preset) as ds:
        vd = ds["freestyle"]
        with pytest.raises(IndexError):
            vd.episode(10**6)
        with pytest.raises(IndexError):
            vd.episode(-len(vd) - 1)
        with pytest.raises(IndexError):
            vd.replay(10**6)
        with pytest.raises(ValueError, match="symmetry"):
            vd.replay(0, symmetry=999)
        with pytest.raises(ValueError, match="symmetry"):
            vd.replay(0, symmetry=-1)
        with pytest.raises(ValueError, match="symmetry"):
            ds["strip"].replay(0, symmetry=1)
        with pytest.raises(TypeError):
            vd.episode(1.0)  # type: ignore[arg-type]
        with pytest.raises(KeyError, match="nope"):
            ds["nope"]


def test_pack_refuses_what_it_cannot_pack(tmp_path, every_preset):
    with pytest.raises(OSError, match="already packed"):
        pack(every_preset)
    with pytest.raises(OSError, match="missing"):
        pack(tmp_path / "missing.h5")
    text = tmp_path / "t.h5"
    text.write_text("hello")
    with pytest.raises(OSError):
        pack(text)


# ---- damaged files ----


@pytest.fixture(scope="module")
def small_file(tmp_path_factory) -> Path:
    """A small packed file (gzip: a damaged chunk fails its filter)."""
    path = tmp_path_factory.mktemp("small") / "small.h5"
    generate(path, games=20, black="heuristic", white="random", seed=5)
    return path


def damaged_copy(small_file: Path, tmp_path: Path, change) -> Path:
    path = tmp_path / "damaged.h5"
    shutil.copy(small_file, path)
    with h5py.File(path, "r+") as f:
        change(f)
    return path


def replace(name: str, value):
    def change(f: h5py.File) -> None:
        old = f[name][()]
        del f[name]
        f[name] = value(old)

    return change


DAMAGE = {
    "no_length": (lambda f: f.__delitem__("freestyle/episodes/length"), "'episodes/length'"),
    "no_action": (lambda f: f.__delitem__("freestyle/steps/action"), "'steps/action'"),
    "short_winner": (replace("freestyle/episodes/winner", lambda d: d[:3]), "'episodes/winner'"),
    "offset_past_the_steps": (
        replace("freestyle/episodes/offset", lambda d: d + 10**6),
        "episode 0",
    ),
    "negative_length": (replace("freestyle/episodes/length", lambda d: d * 0 - 5), "episode 0"),
    "seat_dtype": (
        replace("freestyle/steps/seat", lambda d: d.astype(np.int64)),
        "'steps/seat' is int64",
    ),
    "winner_7": (replace("freestyle/episodes/winner", lambda d: d * 0 + 7), "winner 7"),
    "opening_99": (replace("freestyle/episodes/opening", lambda d: d * 0 + 99), "opening 99"),
    "missing_group": (lambda f: f.attrs.__setitem__("variants", "freestyle\nnosuch"), "nosuch"),
}


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_damaged_structure_is_a_dataset_error_naming_the_file(small_file, tmp_path, capsys, case):
    change, words = DAMAGE[case]
    path = damaged_copy(small_file, tmp_path, change)
    with pytest.raises(data.DatasetError) as e:
        with data.open(path) as ds:
            ds.summary()
    assert str(path) in str(e.value) and words in str(e.value)
    assert cli.main(["info", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fiverow: error:") and str(path) in err and words in err
    assert len(err.strip().splitlines()) == 1


def test_seat_out_of_range_is_found_on_replay(small_file, tmp_path):
    path = damaged_copy(
        small_file, tmp_path, replace("freestyle/steps/seat", lambda d: np.where(d == 1, 7, d))
    )
    with data.open(path) as ds:
        vd = ds["freestyle"]
        with pytest.raises(data.DatasetError) as e:
            vd.replay(2)
    message = str(e.value)
    assert str(path) in message and "'freestyle'" in message and "episode 2" in message
    assert "seat 7" in message


def smash_chunk(path: Path, dataset: str) -> None:
    """Overwrite the first chunk of a dataset on disk with garbage."""
    with h5py.File(path, "r") as f:
        info = f[dataset].id.get_chunk_info(0)
    with open(path, "r+b") as raw:
        raw.seek(info.byte_offset)
        raw.write(b"\xff" * info.size)


def test_a_damaged_chunk_is_a_dataset_error_naming_the_file(small_file, tmp_path, capsys):
    path = tmp_path / "chunk.h5"
    shutil.copy(small_file, path)
    smash_chunk(path, "freestyle/steps/action")
    with data.open(path) as ds:
        with pytest.raises(data.DatasetError) as e:
            ds["freestyle"].replay(0)
    assert str(path) in str(e.value) and "episode 0 of 'freestyle'" in str(e.value)
    smash_chunk(path, "freestyle/episodes/winner")
    with data.open(path) as ds:
        with pytest.raises(data.DatasetError, match="the episodes of 'freestyle'"):
            ds.summary()
    assert cli.main(["info", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and len(err.strip().splitlines()) == 1


def kill_a_run(path: Path, boards: int = 64, settle: float = 0.3) -> int:
    """SIGKILL a long generate run ``settle`` seconds after it has written
    episodes; its return code."""
    proc = subprocess.Popen(
        cli_generate(
            path, "--games", "100000000", "--boards", str(boards), "--flush-seconds", "0.05"
        ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_episodes(path, proc)
        time.sleep(settle)
    finally:
        proc.kill()
        proc.wait()
    return proc.returncode


# ---- missing segments ----


@pytest.fixture(scope="module")
def killed_run(tmp_path_factory) -> Path:
    """The file of a killed run: virtual datasets over segments in <path>.parts/."""
    path = tmp_path_factory.mktemp("killed") / "killed.h5"
    kill_a_run(path)
    with h5py.File(path, "r") as f:
        assert f.attrs["layout"] == "segments" and len(f["_segments/index"]) >= 2
    return path


def copy_run(path: Path, where: Path, parts: bool = True) -> Path:
    where.mkdir(parents=True)
    shutil.copy(path, where / path.name)
    if parts:
        shutil.copytree(f"{path}.parts", where / f"{path.name}.parts")
    return where / path.name


def decoy_run(killed_run: Path, where: Path) -> Path:
    """A copy of the run whose segments say seat 1 won every game."""
    path = copy_run(killed_run, where)
    for segment in Path(f"{path}.parts").iterdir():
        try:
            with h5py.File(segment, "r+") as f:
                f["freestyle/episodes/winner"][...] = 1
        except (OSError, KeyError):
            pass  # the segment open when the run was killed
    return path


def test_a_killed_run_reads_alike_from_any_working_directory(killed_run, tmp_path, monkeypatch):
    path = copy_run(killed_run, tmp_path / "run")
    decoy_run(killed_run, tmp_path / "decoy")
    monkeypatch.chdir(tmp_path / "run")
    with data.open(path.name) as ds:
        expected = ds.summary()
    assert expected["freestyle"]["seat1_wins"] < expected["freestyle"]["episodes"]
    for cwd in (tmp_path / "decoy", tmp_path, Path("/")):
        monkeypatch.chdir(cwd)
        with data.open(path) as ds:
            assert ds.summary() == expected, cwd


def test_a_killed_run_moved_without_its_segments_is_refused(killed_run, tmp_path, monkeypatch):
    moved = copy_run(killed_run, tmp_path / "moved", parts=False)
    decoy_run(killed_run, tmp_path / "decoy")
    # HDF5 would read the segments of the working directory, or zeros
    for cwd in (tmp_path / "decoy", tmp_path):
        monkeypatch.chdir(cwd)
        with pytest.raises(data.DatasetError) as e:
            data.open(moved)
        assert str(moved) in str(e.value) and "seg-000000.h5" in str(e.value)
        assert "missing" in str(e.value)


def test_a_deleted_segment_is_refused(killed_run, tmp_path, capsys):
    path = copy_run(killed_run, tmp_path / "run")
    segment = Path(f"{path}.parts") / "seg-000001.h5"
    segment.unlink()
    with pytest.raises(data.DatasetError, match="seg-000001.h5' is missing"):
        data.open(path)
    assert cli.main(["info", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(segment) in err and len(err.strip().splitlines()) == 1


def test_a_truncated_segment_is_refused(killed_run, tmp_path):
    path = copy_run(killed_run, tmp_path / "run")
    segment = Path(f"{path}.parts") / "seg-000000.h5"
    segment.write_bytes(segment.read_bytes()[:4000])
    with pytest.raises(data.DatasetError) as e:
        data.open(path)
    assert str(segment) in str(e.value) and "damaged" in str(e.value)


# ---- determinism ----


@pytest.mark.parametrize(
    "kwargs",
    [
        {"variants": "freestyle", "black": "heuristic", "white": "random", "obs": True},
        {
            "variants": {"freestyle": 1, "renju-soosorv8": 1, "freestyle-swap2": 1, "strip": 1},
            "black": players.make("mcts", simulations=8, depth=4),
            "white": "heuristic",
            "policy": True,
        },
    ],
    ids=["heuristic-random", "mcts-mix"],
)
def test_same_seed_same_file_on_any_thread_count(tmp_path, kwargs):
    files = []
    for threads in (1, 2):
        path = tmp_path / f"t{threads}.h5"
        generate(path, games=24, boards=8, seed=7, num_threads=threads, **kwargs)
        files.append(contents(path))
    assert_same_contents(*files)
    assert any(name.endswith("steps/action") for name in files[0])


@pytest.mark.parametrize("seed", [0, 7, 2**63 - 1, 2**63, 2**64 - 1])
def test_the_seed_reads_back_unsigned(tmp_path, seed):
    path = tmp_path / "s.h5"
    generate(path, games=2, seed=seed)
    with data.open(path) as ds:
        assert ds.seed == seed == ds.run["seed"]
        assert all(int(s) == seed for s in ds["freestyle"].episodes["seed"])
    with h5py.File(path, "r") as f:  # its 64 bits, as docs/hdf5.md says
        assert np.asarray(f.attrs["seed"]).astype(np.int64).view(np.uint64) == seed


def test_another_seed_another_file(tmp_path):
    generate(tmp_path / "a.h5", games=8, seed=1)
    generate(tmp_path / "b.h5", games=8, seed=2)
    a, b = contents(tmp_path / "a.h5"), contents(tmp_path / "b.h5")
    assert not np.array_equal(a["freestyle/steps/action"][:20], b["freestyle/steps/action"][:20])


# ---- crash safety ----


def test_killed_run_leaves_a_readable_file_that_packs(tmp_path):
    path = tmp_path / "killed.h5"
    assert kill_a_run(path) == -signal.SIGKILL
    parts = Path(str(path) + ".parts")
    assert parts.is_dir()
    with data.open(path) as ds:
        assert ds.layout == "segments"
        vd = ds["freestyle"]
        assert len(vd) > 0
        before = {k: v.copy() for k, v in vd.episodes.items()}
        check_offsets(before, vd.steps)
        for i in (0, len(vd) // 2, len(vd) - 1):
            r = vd.replay(i)
            assert r.masks[np.arange(len(r.actions)), r.actions].all()
        summary = ds.summary()
    pack(path)
    assert not parts.exists()
    with data.open(path) as ds:
        assert ds.layout == "packed"
        after = ds["freestyle"].episodes
        assert sorted(after) == sorted(before)
        for key in before:
            np.testing.assert_array_equal(after[key], before[key], err_msg=key)
        assert ds.summary() == summary
        ds["freestyle"].replay(len(ds) - 1)


def test_killed_run_is_refused_until_packed_or_overwritten(tmp_path):
    path = tmp_path / "k.h5"
    kill_a_run(path, boards=16, settle=0.0)
    path.unlink()  # only the parts are left: they cannot be packed
    with pytest.raises(OSError) as e:
        generate(path, games=2)
    assert "is gone" in str(e.value) and "overwrite" in str(e.value)
    assert "fiverow pack" not in str(e.value)
    with pytest.raises(OSError, match="cannot be packed"):
        data.Writer(path, fiverow.make_vec("freestyle", 1))
    generate(path, games=2, overwrite=True)
    assert not Path(str(path) + ".parts").exists()
    with data.open(path) as ds:
        assert len(ds) == 2 and ds.layout == "packed"


def test_pack_from_the_cli(tmp_path, capsys):
    path = tmp_path / "c.h5"
    proc = subprocess.Popen(
        cli_generate(path, "--games", "100000000", "--boards", "32", "--flush-seconds", "0.05"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_episodes(path, proc)
    finally:
        proc.kill()
        proc.wait()
    assert cli.main(["pack", str(path)]) == 0
    assert "packed" in capsys.readouterr().out
    with data.open(path) as ds:
        assert ds.layout == "packed" and len(ds) > 0
    assert cli.main(["pack", str(path)]) == 2
    assert "already packed" in capsys.readouterr().err


def test_ctrl_c_stops_the_run_and_packs_the_file(tmp_path):
    path = tmp_path / "int.h5"
    proc = subprocess.Popen(
        cli_generate(path, "--games", "100000000", "--boards", "64", "--flush-seconds", "0.05"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_episodes(path, proc)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err[-2000:]
    assert "interrupted" in out
    assert not Path(str(path) + ".parts").exists()
    with data.open(path) as ds:
        assert ds.layout == "packed"
        assert len(ds) > 0
        check_offsets(ds["freestyle"].episodes, ds["freestyle"].steps)


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (300_000, 300_000))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def test_full_disk_stops_with_an_error_and_keeps_a_readable_file(tmp_path):
    path = tmp_path / "full.h5"
    proc = subprocess.run(
        cli_generate(
            path,
            "--games",
            "1000000",
            "--boards",
            "512",
            "--flush-seconds",
            "0.05",
            "--obs",
        ),
        capture_output=True,
        text=True,
        preexec_fn=_limit_file_size,
        timeout=120,
    )
    assert "fiverow: error" in proc.stderr
    assert "File too large" in proc.stderr or "write" in proc.stderr
    assert str(path) in proc.stderr
    assert proc.returncode == 2, f"exit status {proc.returncode}: {proc.stderr[-2000:]}"
    with data.open(path) as ds:
        vd = ds["freestyle"]
        check_offsets(vd.episodes, vd.steps)


# ---- command line ----


def test_cli_generate_mix_and_info(tmp_path, capsys):
    path = tmp_path / "mix.h5"
    argv = ["generate", "--games", "30", "--mix", "freestyle:0.5,caro:0.5", "--seed", "3"]
    argv += ["--black", "heuristic", "--white", "random", "--out", str(path), "--quiet"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "wrote 30 games" in out and str(path) in out
    with data.open(path) as ds:
        assert ds.variants == ["freestyle", "caro"]
        counts = {name: len(ds[name]) for name in ds.variants}
        assert sum(counts.values()) == 30
    assert cli.main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "30 episodes" in out and "heuristic vs random" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    for name, n in counts.items():
        assert name in rows, out
        assert int(rows[name][1]) == n


def test_cli_generate_prints_the_summary_unless_quiet(tmp_path, capsys):
    path = tmp_path / "loud.h5"
    assert cli.main(["generate", "--games", "4", "--out", str(path)]) == 0
    captured = capsys.readouterr()
    assert "4 episodes" in captured.out and "freestyle" in captured.out
    assert "4/4 games" in captured.err  # the progress line


def test_cli_records_obs_and_policy(tmp_path):
    path = tmp_path / "op.h5"
    argv = ["generate", "--games", "3", "--obs", "--policy", "--variant", "strip"]
    assert cli.main([*argv, "--gzip", "0", "--out", str(path), "--quiet"]) == 0
    with data.open(path) as ds:
        assert ds.variants == ["strip"]
        assert ds["strip"].has_obs and ds["strip"].has_policy


@pytest.mark.parametrize(
    "argv, words",
    [
        (["info", "{tmp}/missing.h5"], "no such dataset"),
        (["generate", "--games", "3", "--out", "{tmp}/existing.h5"], "overwrite"),
        (["generate", "--games", "3", "--mix", "freestyle:x", "--out", "{tmp}/m.h5"], "--mix"),
        (
            ["generate", "--games", "3", "--mix", "freestyle:nan,caro:1", "--out", "{tmp}/m.h5"],
            "--mix: weight of 'freestyle' must be a finite positive number, got 'nan'",
        ),
        (
            ["generate", "--games", "3", "--mix", "freestyle:inf", "--out", "{tmp}/m.h5"],
            "--mix: weight of 'freestyle' must be a finite positive number, got 'inf'",
        ),
        (
            ["generate", "--games", "3", "--mix", "caro:1,freestyle:0", "--out", "{tmp}/m.h5"],
            "got '0'",
        ),
        (
            ["generate", "--games", "3", "--mix", "freestyle:1,freestyle:2", "--out", "{tmp}/m.h5"],
            "--mix: 'freestyle' is named twice",
        ),
        (["generate", "--games", "3", "--out", ""], "output path is empty"),
        (
            ["generate", "--games", "3", "--threads", "100000", "--out", "{tmp}/t.h5"],
            "--threads",
        ),
        (
            ["balance", "--variants", "freestyle:0", "--games", "2", "--quiet"],
            "--variants takes preset names, not weights",
        ),
        (
            ["balance", "--variants", "freestyle,freestyle", "--games", "2", "--quiet"],
            "--variants: 'freestyle' is named twice",
        ),
        (["generate", "--games", "3", "--param", "size", "--out", "{tmp}/p.h5"], "key=value"),
        (["generate", "--games", "0", "--out", "{tmp}/z.h5"], "games"),
        (["generate", "--games", "3", "--black", "chess", "--out", "{tmp}/b.h5"], "chess"),
    ],
)
def test_cli_errors(tmp_path, capsys, argv, words):
    generate(tmp_path / "existing.h5", games=1)
    capsys.readouterr()
    assert cli.main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fiverow: error:") and words in err


def test_cli_failures_leave_no_files(tmp_path, capsys):
    path = tmp_path / "g6.h5"
    argv = ["generate", "--quiet", "--games", "10", "--threads", "100000", "--out", str(path)]
    assert cli.main(argv) == 2
    assert list(tmp_path.iterdir()) == []
    assert cli.main(["generate", "--quiet", "--games", "10", "--out", str(path)]) == 0


def test_cli_generate_quiet_prints_only_the_one_line_result(tmp_path, capsys):
    path = tmp_path / "q.h5"
    assert cli.main(["generate", "--games", "4", "--out", str(path), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert len(captured.out.splitlines()) == 1 and captured.out.startswith("wrote 4 games")
    with pytest.raises(SystemExit):
        cli.main(["generate", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "no progress bar and no per-variant table; the one-line result is still printed" in (
        help_text
    )


def test_readme_command_line_table_lists_every_option():
    readme = (Path(__file__).parent.parent / "README.md").read_text()
    table = readme.split("## Command line", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in table.splitlines():
        if line.startswith("| `fiverow "):
            rows[line.split()[2].rstrip("`")] = line
    commands = cli.build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert sorted(rows) == sorted(commands)
    for name, sub in commands.items():
        for action in sub._actions:
            for option in action.option_strings:
                if option.startswith("--") and option != "--help":
                    assert option in rows[name], f"README lacks {option} of fiverow {name}"


def test_cli_param_overrides_an_integer_parameter(tmp_path, capsys):
    """``--param KEY=VALUE`` overrides a variant parameter, integer ones included."""
    path = tmp_path / "small.h5"
    argv = ["generate", "--games", "3", "--param", "size=9", "--out", str(path), "--quiet"]
    code = cli.main(argv)
    assert code == 0, capsys.readouterr().err
    with data.open(path) as ds:
        assert ds["freestyle"].obs_shape == (4, 9, 9)


def test_cli_param_overrides_a_choice_parameter(tmp_path):
    path = tmp_path / "caro.h5"
    argv = ["generate", "--games", "3", "--variant", "caro", "--param", "caro_ends=gomocup"]
    assert cli.main([*argv, "--out", str(path), "--quiet"]) == 0
    with data.open(path) as ds:
        assert ds["caro"].config["caro_ends"] == "gomocup"


def test_console_script_runs(tmp_path):
    script = Path(sys.executable).parent / "fiverow"
    if not script.exists():
        pytest.skip("no console script next to the interpreter")
    proc = subprocess.run(
        [str(script), "generate", "--games", "2", "--out", str(tmp_path / "s.h5"), "--quiet"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    proc = subprocess.run(
        [str(script), "info", str(tmp_path / "s.h5")], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0 and "2 episodes" in proc.stdout


# ---- Minari ----


def test_export_minari(tmp_path, monkeypatch, every_preset):
    minari = pytest.importorskip("minari")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    data.export_minari(every_preset, "fiverow/test-v0", "freestyle")
    m = minari.load_dataset("fiverow/test-v0")
    with data.open(every_preset) as ds:
        vd = ds["freestyle"]
        assert m.total_episodes == len(vd)
        assert m.total_steps == vd.steps
        r = vd.replay(0)
        length = vd.episode(0).length
    episode = next(iter(m.iterate_episodes()))
    assert episode.observations.shape == (length + 1, *vd.obs_shape)
    np.testing.assert_array_equal(episode.observations[:-1], r.obs)
    np.testing.assert_array_equal(episode.observations[-1], r.final_obs)
    np.testing.assert_array_equal(episode.actions, r.actions)
    acting = r.rewards[np.arange(length), r.seats.astype(int)]
    np.testing.assert_array_equal(episode.rewards, acting)
    assert episode.terminations[-1] and not episode.terminations[:-1].any()
    assert not episode.truncations.any()
    np.testing.assert_array_equal(episode.infos["action_mask"][:-1], r.masks.astype(np.uint8))
    assert (tmp_path / "minari").is_dir()


def test_export_minari_recovers_the_environment(tmp_path, monkeypatch, every_preset):
    """issue 27: recover_environment() failed, the dataset's env_spec None."""
    minari = pytest.importorskip("minari")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    data.export_minari(every_preset, "fiverow/recover-v0", "renju")
    m = minari.load_dataset("fiverow/recover-v0")
    assert m.spec.env_spec.id == fiverow.env_id("renju") == "fiverow/Renju-v0"
    env = m.recover_environment()
    assert env.unwrapped.config == fiverow.resolve("renju")
    assert env.observation_space == m.observation_space and env.action_space == m.action_space
    # the recovered env replays the dataset's first game step for step
    episode = next(iter(m.iterate_episodes()))
    obs, _ = env.reset(seed=0)
    np.testing.assert_array_equal(obs, episode.observations[0])
    for t, action in enumerate(episode.actions):
        obs, _, terminated, _, _ = env.step(int(action))
        np.testing.assert_array_equal(obs, episode.observations[t + 1])
    assert terminated == bool(episode.terminations[-1])


def test_export_minari_of_a_changed_preset_recovers_it(tmp_path, monkeypatch):
    minari = pytest.importorskip("minari")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    path = tmp_path / "small.h5"
    generate(path, "caro", games=3, seed=2, params={"size": 9, "caro_ends": "gomocup"})
    data.export_minari(path, "fiverow/small-v0")
    env = minari.load_dataset("fiverow/small-v0").recover_environment()
    config = env.unwrapped.config
    assert config.params == fiverow.resolve("caro", size=9, caro_ends="gomocup").params
    assert env.observation_space.shape[1:] == (9, 9)


def test_export_minari_needs_a_variant_for_a_mix(tmp_path, monkeypatch, every_preset):
    pytest.importorskip("minari")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "minari"))
    with pytest.raises(ValueError, match="which variant"):
        data.export_minari(every_preset, "fiverow/mix-v0")
