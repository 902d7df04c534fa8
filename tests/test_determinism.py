"""The same seed gives the same trajectories whatever the thread count."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import fiverow


def trajectory_digest(
    preset: str, seed: int, threads: int, steps: int, num_envs: int = 512
) -> tuple[int, int]:
    env = fiverow.make_vec(preset, num_envs=num_envs, seed=seed, num_threads=threads)
    obs, info = env.reset()
    crc = 0
    episodes = 0
    for t in range(steps):
        actions = env.sample_legal()
        crc = zlib.crc32(actions.tobytes(), crc)
        obs, reward, terminated, truncated, info = env.step(actions)
        crc = zlib.crc32(reward.tobytes(), crc)
        crc = zlib.crc32(terminated.tobytes(), crc)
        crc = zlib.crc32(info["to_play"].tobytes(), crc)
        episodes += int(terminated.sum() + truncated.sum())
        if t % 25 == 0:
            crc = zlib.crc32(obs.tobytes(), crc)
            crc = zlib.crc32(info["action_mask"].tobytes(), crc)
    return crc, episodes


def test_ten_thousand_steps_same_on_one_and_two_threads():
    one = trajectory_digest("freestyle", 7, 1, 10_000)
    two = trajectory_digest("freestyle", 7, 2, 10_000)
    assert one == two
    assert one[1] > 10_000  # many autoresets happened along the way


@pytest.mark.parametrize("preset", ["standard", "caro", "strip", "torus"])
def test_presets_same_on_one_and_two_threads(preset):
    assert trajectory_digest(preset, 3, 1, 400) == trajectory_digest(preset, 3, 2, 400)


def test_different_seeds_differ():
    assert (
        trajectory_digest("freestyle", 1, 2, 50)[0] != trajectory_digest("freestyle", 2, 2, 50)[0]
    )


def test_reset_with_the_same_seed_repeats():
    env = fiverow.make_vec("caro", num_envs=300, seed=5)
    env.reset(seed=42)
    a = [env.sample_legal().copy() for _ in range(3)]
    env.reset(seed=42)
    b = [env.sample_legal().copy() for _ in range(3)]
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)


def test_rollout_same_on_one_and_two_threads():
    results = []
    for threads in (1, 2):
        env = fiverow.make_vec("freestyle", num_envs=1024, seed=99, num_threads=threads)
        env.reset()
        stats = env.rollout(500)
        results.append((stats, [env.get_state(i) for i in range(0, 1024, 97)]))
    assert results[0] == results[1]


def test_unseeded_reset_is_random():
    a = fiverow.make_vec("freestyle", num_envs=256)
    b = fiverow.make_vec("freestyle", num_envs=256)
    a.reset()
    b.reset()
    assert not np.array_equal(a.sample_legal(), b.sample_legal())
