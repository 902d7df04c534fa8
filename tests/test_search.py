"""The batched PUCT search (fiverow.search.MCTS): tactics with a uniform
evaluator, visit accounting, determinism, tree reuse, bad evaluator output."""

from __future__ import annotations

import numpy as np
import pytest

import fiverow
from fiverow.search import MCTS

EMPTY9 = "." * 9


def uniform(obs, masks, to_play):
    return masks.astype(np.float32), np.zeros(len(obs), np.float32)


def board(rows: dict[int, str], size: int = 9) -> list[str]:
    return [rows.get(r, "." * size) for r in range(size)]


def test_visits_sum_to_the_simulations():
    env = fiverow.make_vec("freestyle", num_envs=8, seed=0, size=9)
    env.reset()
    mcts = MCTS(env, simulations=50, leaves_per_round=4, reuse_tree=False)
    result = mcts.run(uniform)
    # the root's own evaluation is the first simulation
    np.testing.assert_array_equal(result.visits.sum(axis=1), 49)
    np.testing.assert_allclose(result.policy.sum(axis=1), 1.0, rtol=1e-6)
    masks = env.action_masks()
    assert np.all(result.visits[~masks] == 0)


def test_uniform_evaluator_finds_a_win_in_one():
    """Four in a row with an open end: the finishing move scores +1 by the rules."""
    env = fiverow.make_vec("freestyle", num_envs=2, seed=0, size=9)
    env.reset()
    rows = board({4: ".XXXX....", 6: "OOO.O...."})
    env.load_position(0, rows, "black")
    env.load_position(1, rows, "black")
    mcts = MCTS(env, simulations=200, dirichlet_alpha=0.0)
    mcts.run(uniform)
    actions = mcts.actions(0.0)
    assert set(actions.tolist()) <= {4 * 9 + 0, 4 * 9 + 5}


def test_uniform_evaluator_blocks_the_opponents_win():
    env = fiverow.make_vec("freestyle", num_envs=1, seed=0, size=9)
    env.reset()
    env.load_position(0, board({2: "OOOO.....", 6: "X.X..X..."}), "black")
    mcts = MCTS(env, simulations=400, dirichlet_alpha=0.0)
    mcts.run(uniform)
    assert mcts.actions(0.0)[0] == 2 * 9 + 4


def test_same_seed_same_search_on_any_thread_count():
    def play(threads: int) -> tuple[np.ndarray, np.ndarray]:
        env = fiverow.make_vec("renju", num_envs=64, seed=3, num_threads=threads)
        env.reset()
        mcts = MCTS(env, simulations=32, seed=5)
        visits, moves = [], []
        for _ in range(3):
            r = mcts.run(uniform)
            a = mcts.actions(1.0)
            visits.append(r.visits.copy())
            moves.append(a.copy())
            env.step(a)
            mcts.advance(a)
        return np.stack(visits), np.stack(moves)

    v1, m1 = play(1)
    v2, m2 = play(2)
    np.testing.assert_array_equal(v1, v2)
    np.testing.assert_array_equal(m1, m2)


def test_tree_reuse_keeps_the_subtree():
    env = fiverow.make_vec("freestyle", num_envs=4, seed=0, size=9)
    env.reset()
    mcts = MCTS(env, simulations=64)
    mcts.run(uniform)
    a = mcts.actions(0.0)
    before = mcts.result().visits[np.arange(4), a]
    env.step(a)
    mcts.advance(a)
    result = mcts.run(uniform)
    # the played child's visits are kept, then 64 more simulations
    np.testing.assert_array_equal(result.visits.sum(axis=1), before - 1 + 64)


def test_every_preset_searches_legal_moves():
    for name in fiverow.preset_names():
        kw = {"size": 9} if name == "gomorpion" else {}
        env = fiverow.make_vec(name, num_envs=3, seed=1, **kw)
        env.reset()
        mcts = MCTS(env, simulations=8, leaves_per_round=2)
        for _ in range(4):
            mcts.run(uniform)
            a = mcts.actions(1.0)
            masks = env.action_masks()
            live = ~(env.pool.groups[name].terminated | env.pool.groups[name].truncated)
            assert np.all(masks[np.arange(3), a][live]), name
            env.step(a)
            mcts.advance(a)


@pytest.mark.parametrize(
    "bad,words",
    [
        ("nan_value", "finite"),
        ("big_value", "[-1, 1]"),
        ("negative_prior", "non-negative"),
        ("nan_prior", "finite"),
        ("shape", "shape"),
    ],
)
def test_bad_evaluator_output_is_a_clear_error(bad, words):
    env = fiverow.make_vec("freestyle", num_envs=4, seed=0, size=9)
    env.reset()
    mcts = MCTS(env, simulations=16)
    mcts.begin()
    leaves = mcts.select()
    assert leaves is not None
    n = len(leaves[0].obs)
    priors = np.ones((n, 81), np.float32)
    values = np.zeros(n, np.float32)
    if bad == "nan_value":
        values[0] = np.nan
    elif bad == "big_value":
        values[0] = 2.0
    elif bad == "negative_prior":
        priors[0, 3] = -1.0
    elif bad == "nan_prior":
        priors[1, 0] = np.nan
    else:
        priors = priors[:, :10]
    nodes = mcts.nodes
    with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("]", r"\]")):
        mcts.expand(priors, values)
    assert mcts.nodes == nodes  # nothing changed: the same leaves can be expanded
    mcts.expand(np.ones((n, 81), np.float32), np.zeros(n, np.float32))


def test_bad_parameters():
    env = fiverow.make_vec("freestyle", num_envs=2, seed=0)
    with pytest.raises(ValueError, match="simulations"):
        MCTS(env, simulations=0)
    with pytest.raises(ValueError, match="leaves_per_round"):
        MCTS(env, leaves_per_round=0)
    with pytest.raises(ValueError):
        MCTS(env, dirichlet_fraction=2.0)
    with pytest.raises(TypeError):
        MCTS("not an env")
