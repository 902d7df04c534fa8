"""Per-board get_state / set_state / clone: plain bytes, cheap, exact."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

import fiverow


def test_state_is_compact():
    env = fiverow.make_vec("freestyle", num_envs=1, seed=0)
    env.reset()
    assert len(env.get_state(0)) < 1024  # 15x15: under 1 KB


def test_docs_state_size_table_is_the_engines():
    """Issue 12, defect 9: docs/api.md's state sizes are measured, every preset."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text()
    table = {
        m[1]: int(m[2].replace(",", ""))
        for m in re.finditer(r"\| `([a-z0-9-]+)` \| ([\d,]+) \|", text)
    }
    measured = {}
    for preset in fiverow.preset_names():
        env = fiverow.make_vec(preset, num_envs=1, seed=0)
        env.reset()
        measured[preset] = len(env.get_state(0))
    assert table == measured
    assert "under 1 KB" not in text


def test_clone_then_same_future():
    env = fiverow.make_vec("caro", num_envs=3, seed=4)
    env.reset()
    for _ in range(20):
        env.step(env.sample_legal())
    env.clone(0, 2)
    assert env.get_state(0) == env.get_state(2)
    g = env.pool.groups["caro"]
    np.testing.assert_array_equal(g.obs[0], g.obs[2])
    np.testing.assert_array_equal(g.mask[0], g.mask[2])
    for _ in range(30):
        a = env.sample_legal().copy()
        a[2] = a[0]
        env.step(a)
        assert env.get_state(0) == env.get_state(2) or g.terminated[0]


def test_set_state_round_trip_restores_outputs():
    env = fiverow.make_vec("torus", num_envs=2, seed=6)
    env.reset()
    for _ in range(15):
        env.step(env.sample_legal())
    saved = env.get_state(1)
    obs = env.pool.groups["torus"].obs[1].copy()
    for _ in range(5):
        env.step(env.sample_legal())
    env.set_state(1, saved)
    assert env.get_state(1) == saved
    np.testing.assert_array_equal(env.pool.groups["torus"].obs[1], obs)


def test_state_moves_between_envs_of_one_variant():
    a = fiverow.make_vec("strip", num_envs=1, seed=1)
    b = fiverow.make_vec("strip", num_envs=1, seed=2)
    a.reset()
    b.reset()
    for _ in range(9):
        a.step(a.sample_legal())
    b.set_state(0, a.get_state(0))
    np.testing.assert_array_equal(a.board(0)["cells"], b.board(0)["cells"])
