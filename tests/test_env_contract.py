"""What Gymnasium users rely on, as issue 12 found it broken: the vector
wrappers, every info key kept in same-step ``final_info``, one mask rule for
finished boards, conflicting overrides refused, clear errors for bad input."""

from __future__ import annotations

import math

import gymnasium
import numpy as np
import pytest
from gymnasium.wrappers import vector as vw

import fiverow


def vec(**kwargs):
    kwargs.setdefault("seed", 0)
    return fiverow.make_vec("freestyle", num_envs=kwargs.pop("num_envs", 8), size=7, **kwargs)


# ---- defect 2: Gymnasium's vector reward / observation wrappers ----


@pytest.mark.parametrize(
    "wrap",
    [
        lambda e: vw.ClipReward(e, min_reward=-0.5, max_reward=0.5),
        lambda e: vw.NormalizeReward(e),
        lambda e: vw.TransformReward(e, lambda r: 2 * r),
        lambda e: vw.RecordEpisodeStatistics(e),
        lambda e: vw.NormalizeObservation(vw.DtypeObservation(e, np.float32)),
        lambda e: vw.TransformObservation(e, lambda o: o * 2, e.observation_space),
        lambda e: vw.FlattenObservation(e),
    ],
    ids=["clip", "normalize_reward", "transform_reward", "stats", "normalize_obs", "obs", "flat"],
)
def test_gymnasium_vector_wrappers_work(wrap):
    """ClipReward wrote into the reward array (read-only then): rewards and
    flags are fresh arrays; what C updates in place stays read-only."""
    plain, env = vec(), wrap(vec())
    obs, _ = env.reset(seed=1)
    plain.reset(seed=1)
    ends = 0
    for _ in range(40):
        actions = plain.sample_legal().copy()
        _, r_plain, *_ = plain.step(actions)
        obs, reward, terminated, truncated, info = env.step(actions)
        ends += int(terminated.sum())
        assert reward.shape == (8,) and obs.shape[0] == 8
    assert ends > 0
    _, reward, terminated, truncated, _ = plain.step(plain.sample_legal())
    for fresh in (reward, terminated, truncated):
        fresh[...] = 0  # the caller's own arrays
    with pytest.raises(ValueError, match="read-only"):
        plain.step(plain.sample_legal())[0][...] = 0


def test_clip_reward_clips():
    env = vw.ClipReward(vec(opponent="random"), min_reward=-0.5, max_reward=0.5)
    env.reset(seed=2)
    seen = set()
    for _ in range(60):
        _, reward, *_ = env.step(env.unwrapped.sample_legal())
        seen.update(reward.tolist())
    assert seen <= {-0.5, 0.0, 0.5} and len(seen) == 3


# ---- defect 5: same-step final_info keeps every info key ----


@pytest.mark.parametrize("preset", ["freestyle", "renju-soosorv8", "gomorpion"])
def test_same_step_final_info_has_every_key_of_the_finished_game(preset):
    kwargs = {"size": 9} if preset in ("freestyle", "gomorpion") else {}
    env = fiverow.make_vec(
        preset, 8, seed=3, autoreset_mode="same_step", illegal_action="lose", **kwargs
    )
    twin = fiverow.make_vec(  # the same games, no autoreset: the finished game's info
        preset, 8, seed=3, autoreset_mode="disabled", illegal_action="lose", **kwargs
    )
    env.reset()
    _, twin_info = twin.reset()
    checked = 0
    for _ in range(400):
        actions = twin.sample_legal().copy()
        _, reward, terminated, truncated, info = env.step(actions)
        _, twin_reward, twin_term, twin_trunc, twin_info = twin.step(actions)
        np.testing.assert_array_equal(reward, twin_reward)
        done = terminated | truncated
        if not done.any():
            continue
        final = info["final_info"]
        keys = [k for k in twin_info if not k.startswith("_")]
        assert sorted(k for k in final if not k.startswith("_")) == sorted(keys)
        for key in keys:
            np.testing.assert_array_equal(final[f"_{key}"], done)
            np.testing.assert_array_equal(final[key][done], twin_info[key][done], err_msg=key)
        np.testing.assert_array_equal(
            info["final_obs"][done], twin.unwrapped.pool.groups[twin.config.name].obs[done]
        )
        # the top-level info is the new game's: consistent with its observation
        assert np.all(info["winner"][done] == -1) and np.all(info["episode_length"][done] == 0)
        assert np.all(info["rewards"][done] == 0)
        checked += 1
        break
    assert checked


# ---- defect 6: one mask rule for finished boards ----


def test_a_finished_board_allows_every_action_everywhere():
    """The native vector env (every autoreset mode) and the single env (so
    Sync/AsyncVectorEnv of it) show all ones on a finished board: a masked
    sampler never meets an empty mask."""
    rows = ["XXXX..."] + ["......."] * 5 + ["OOO...."]
    for mode in ("next_step", "disabled", "same_step"):
        env = vec(num_envs=1, autoreset_mode=mode)
        env.reset()
        env.load_position(0, rows, to_play="black")
        _, _, terminated, _, info = env.step(np.array([4]))
        assert terminated[0]
        mask = (
            info["final_info"]["action_mask"][0] if mode == "same_step" else env.action_masks()[0]
        )
        assert mask.all(), mode
    single = fiverow.make("freestyle", size=7)
    single.reset(seed=0)
    single.vector_env.load_position(0, rows, to_play="black")
    _, _, terminated, _, info = single.step(4)
    assert terminated and info["action_mask"].all() and single.action_masks().all()
    with pytest.raises(ValueError, match="episode is over"):
        single.step(0)


def test_masked_sampling_under_async_vector_env():
    """What crashed ("a cannot be empty"): a masked sampler under the
    autoresetting AsyncVectorEnv of single envs."""

    def make():
        return fiverow.make("freestyle", size=5)

    envs = gymnasium.vector.AsyncVectorEnv([make, make])
    try:
        obs, info = envs.reset(seed=0)
        rng = np.random.default_rng(0)
        ends = 0
        for _ in range(40):
            actions = [rng.choice(np.flatnonzero(m)) for m in info["action_mask"]]
            obs, reward, terminated, truncated, info = envs.step(np.array(actions))
            ends += int(terminated.sum())
        assert ends > 0
    finally:
        envs.close()


# ---- defect 3: conflicting overrides are refused, naming the conflict ----


@pytest.mark.parametrize(
    "preset,overrides,message",
    [
        ("freestyle", {"size": 9, "height": 11}, r"size=9, height=11 conflict"),
        ("freestyle", {"size": 9, "width": 11}, r"size=9, width=11 conflict"),
        (
            "gomorpion",
            {"rule": "renju"},
            r"rule='renju' conflicts with preset 'gomorpion'.*"
            r"neighbourhood=8, capture_threshold=4, reward_mode='outcome'",
        ),
        ("modlinseq", {"geometry": "plane"}, r"geometry='plane' conflicts.*order=6, edge='wrap'"),
        ("renju-soosorv8", {"protocol": "free"}, r"protocol='free' conflicts.*max_offers=8"),
        ("caro", {"rule": "freestyle"}, r"caro_ends"),
        ("freestyle", {"geometry": "hex"}, r"size=15 would be dropped"),
    ],
)
def test_conflicting_overrides_are_refused(preset, overrides, message):
    with pytest.raises(ValueError, match=message):
        fiverow.make_vec(preset, num_envs=2, **overrides)
    with pytest.raises(ValueError, match=message):
        fiverow.make(preset, **overrides)


def test_meaningful_overrides_still_work():
    assert fiverow.make_vec("freestyle", height=11).single_observation_space.shape == (4, 11, 15)
    assert fiverow.make_vec("freestyle", 1, size=9).single_observation_space.shape == (4, 9, 9)
    # a new geometry with its own board shape replaces the preset's shape
    env = fiverow.make_vec("modlinseq", 1, geometry="plane", size=7)
    assert env.config["geometry"] == "plane" and env.config["height"] == 7
    assert fiverow.make_vec("hex", 1, geometry="tess", order=2).config["geometry"] == "tess"
    assert fiverow.make_vec("renju", 1, geometry="torus", size=11).config["rule"] == "renju"
    config = fiverow.resolve({"preset": "gomorpion", "size": 9, "neighbourhood": 4})
    assert config["height"] == 9 and config["neighbourhood"] == 4
    with pytest.raises(ValueError, match="conflicts with preset 'gomorpion'"):
        fiverow.resolve({"preset": "gomorpion", "rule": "renju"})


# ---- defect 10: step(None), NaN and negative seeds ----


def test_step_none_is_a_clear_type_error():
    env = vec(num_envs=4)
    env.reset()
    with pytest.raises(TypeError, match=r"actions for 'freestyle' must be an array of 4 integers"):
        env.step(None)
    single = fiverow.make("freestyle")
    single.reset(seed=0)
    with pytest.raises(TypeError, match="action must be an integer, got NoneType"):
        single.step(None)


@pytest.mark.parametrize(
    "seed,error,message",
    [(-1, ValueError, "seed must be >= 0"), (math.nan, TypeError, "seed must be an int")],
)
def test_bad_seeds_raise_the_same_error_everywhere(seed, error, message):
    with pytest.raises(error, match=message):
        fiverow.make_vec("freestyle", 2, seed=seed)
    env = fiverow.make_vec("freestyle", 2)
    with pytest.raises(error, match=message):
        env.reset(seed=seed)
    with pytest.raises(error, match=message):
        fiverow.make("freestyle").reset(seed=seed)
    with pytest.raises(error, match=message):
        fiverow.make_pool({"freestyle": 2}, seed=seed)
