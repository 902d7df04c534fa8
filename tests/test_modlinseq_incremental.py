"""MODLINSEQ keeps its mask and observation step by step (issue 14): the
values each empty cell allows are updated only along the lines through the
placed tile, the observation only where it changed. After every step of long
random games, on every geometry, both must equal a full rebuild.

set_state runs the state check, which rebuilds the derived data and the legal
set from the tiles alone (modlinseq_derive: every empty cell, every segment)
and refuses a state whose kept copies differ; then it writes the board's
observation and mask whole. So a board that survives get_state/set_state with
the same outputs was kept exactly. (That the check refuses every flipped byte
of the kept data: tests/test_sanitized.py, corrupt_derived.)"""

from __future__ import annotations

import numpy as np
import pytest

import fiverow

GEOMETRIES = [
    ("plane-7", {"geometry": "plane", "size": 7, "modulus": 6, "copies": 6}),
    ("torus-6", {"geometry": "torus", "size": 6, "modulus": 6, "copies": 6}),
    ("wall-4", {"order": 4, "edge": "wall", "modulus": 9, "copies": 5}),
    ("wrap-6", {}),  # the preset: hex order 6, wrapping lines, M 18
    ("tess-2", {"geometry": "tess", "order": 2, "modulus": 7, "copies": 8}),
    ("tess-3", {"geometry": "tess", "order": 3, "modulus": 12, "copies": 6}),
    ("bounce-2", {"order": 2, "edge": "bounce", "modulus": 12, "copies": 2, "hand_size": 4}),
    ("bounce-4", {"order": 4, "edge": "bounce", "modulus": 6, "copies": 8}),
    ("bounce-6", {"order": 6, "edge": "bounce", "modulus": 18}),
]
BOARDS = 6


def rebuilt(env: fiverow.FiverowVectorEnv, i: int) -> None:
    """Reinstall board i's state: checked against a rebuild, outputs rewritten."""
    env.set_state(i, env.get_state(i))


@pytest.mark.parametrize("observation", ["absolute", "mover"])
@pytest.mark.parametrize("name,overrides", GEOMETRIES, ids=[n for n, _ in GEOMETRIES])
def test_kept_mask_and_planes_equal_a_rebuild(name, overrides, observation):
    env = fiverow.make_vec(
        "modlinseq", num_envs=BOARDS, seed=7, observation=observation, **overrides
    )
    obs, _ = env.reset()
    group = env.pool.groups[env.config.name]
    episodes = steps = tiles = 0
    while episodes < 2 * BOARDS and steps < 1500:
        actions = np.array(env.sample_legal())
        obs, _, terminated, truncated, _ = env.step(actions)
        steps += 1
        episodes += int(np.sum(terminated | truncated))
        tiles += int(np.sum(actions < env.single_action_space.n - 2))
        for i in range(BOARDS):
            kept_obs, kept_mask = obs[i].copy(), group.mask[i].copy()
            rebuilt(env, i)  # raises ValueError if the kept derived data differ
            assert np.array_equal(group.obs[i], kept_obs), (name, steps, i)
            assert np.array_equal(group.mask[i], kept_mask), (name, steps, i)
    assert episodes >= 2 * BOARDS, (name, steps)  # whole games, ends included
    assert tiles > 20 * BOARDS
