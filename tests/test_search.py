"""The batched PUCT search (fiverow.search.MCTS): tactics with a uniform
evaluator, visit accounting, determinism, tree reuse, bad evaluator output."""

from __future__ import annotations

import subprocess
import sys
import textwrap

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


# ---- a round that is not completed is undone ----

# Run in a child process: before the fix, the next search spun forever in C
# with the GIL released, which no in-process timeout can stop.
_INTERRUPTED = textwrap.dedent(
    """
    import sys
    import numpy as np
    import fiverow
    from fiverow.search import MCTS

    def good(obs, masks, to_play):
        return masks.astype(np.float32), np.zeros(len(obs), np.float32)

    def fresh(reuse_tree=True):
        env = fiverow.make_vec("freestyle", num_envs=4, seed=0, size=9)
        env.reset(seed=0)
        return MCTS(env, simulations=16, seed=0, reuse_tree=reuse_tree)

    def failing_on(call, error):
        calls = [0]
        def evaluate(obs, masks, to_play):
            calls[0] += 1
            if calls[0] == call:
                raise error
            return good(obs, masks, to_play)
        return evaluate

    def run_failing(mcts, evaluate, error):
        try:
            mcts.run(evaluate)
        except error:
            return
        raise AssertionError("the evaluator's error did not come through")

    def bad_values(obs, masks, to_play):
        return masks.astype(np.float32), np.full(len(obs), 2.0, np.float32)

    case = sys.argv[1]
    expected = fresh().run(good).visits
    mcts = fresh(reuse_tree=case != "bad_values_no_reuse")
    if case in ("bad_values", "bad_values_no_reuse"):
        run_failing(mcts, bad_values, ValueError)
    elif case == "raises_in_round_1":
        run_failing(mcts, failing_on(1, RuntimeError("network died")), RuntimeError)
    elif case == "interrupted":
        run_failing(mcts, failing_on(1, KeyboardInterrupt()), KeyboardInterrupt)
    elif case == "select_twice":
        mcts.begin()
        mcts.select()
        mcts.select()
        mcts.abort()
    elif case == "raises_in_round_3":
        # the same two rounds done by hand, then the rest of the move
        reference = fresh()
        reference.begin()
        for _ in range(2):
            leaves = reference.select()
            reference.expand(*good(leaves[0].obs, leaves[0].masks, leaves[0].to_play))
        expected = reference.run(good).visits
        run_failing(mcts, failing_on(3, RuntimeError("network died")), RuntimeError)
    got = mcts.run(good).visits
    np.testing.assert_array_equal(got, expected)
    print("ok")
    """
)


@pytest.mark.parametrize(
    "case",
    [
        "bad_values",
        "bad_values_no_reuse",
        "raises_in_round_1",
        "interrupted",
        "select_twice",
        "raises_in_round_3",
    ],
)
def test_a_failed_round_is_undone_and_the_search_goes_on(case):
    """The next run() completes and gives the visits an unbroken search would
    (no leaf left waiting, no virtual loss left behind)."""
    proc = subprocess.run(
        [sys.executable, "-c", _INTERRUPTED, case], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


def test_abort_takes_the_virtual_losses_back():
    env = fiverow.make_vec("freestyle", num_envs=2, seed=0, size=9)
    env.reset(seed=0)
    mcts = MCTS(env, simulations=32, leaves_per_round=4, dirichlet_alpha=0.0)
    reference = MCTS(env, simulations=32, leaves_per_round=4, dirichlet_alpha=0.0)
    for m in (mcts, reference):
        m.begin()
        leaves = m.select()
        m.expand(*uniform(leaves[0].obs, leaves[0].masks, leaves[0].to_play))
    assert mcts.select() is not None
    mcts.abort()
    for m in (mcts, reference):
        while (leaves := m.select()) is not None:
            m.expand(*uniform(leaves[0].obs, leaves[0].masks, leaves[0].to_play))
    np.testing.assert_array_equal(mcts.result().visits, reference.result().visits)
    np.testing.assert_array_equal(mcts.result().visits.sum(axis=1), 31)


# ---- actions(temperature) ----


@pytest.mark.parametrize("temperature", [1e-3, 1e-6, 1e-30])
def test_a_small_temperature_takes_the_most_visited_move(temperature):
    env = fiverow.make_vec("freestyle", num_envs=8, seed=0, size=9)
    env.reset(seed=0)
    env.rollout(6)
    mcts = MCTS(env, simulations=400, seed=0)
    visits = mcts.run_uniform().visits
    actions = mcts.actions(temperature)
    np.testing.assert_array_equal(visits[np.arange(8), actions], visits.max(axis=1))


def test_temperature_must_be_a_number_not_below_zero():
    env = fiverow.make_vec("freestyle", num_envs=2, seed=0, size=9)
    env.reset(seed=0)
    mcts = MCTS(env, simulations=8)
    mcts.run_uniform()
    for bad in (-1.0, float("nan"), "1", None):
        with pytest.raises(ValueError, match="temperature"):
            mcts.actions(bad)


# ---- priors ----


def test_tiny_priors_are_normalised_like_any_others():
    def search(scale: float) -> np.ndarray:
        env = fiverow.make_vec("freestyle", num_envs=1, seed=0, size=9)
        env.reset(seed=0)
        mcts = MCTS(env, simulations=100, seed=0, dirichlet_alpha=0.0)
        return mcts.run(
            lambda o, m, t: (m.astype(np.float32) * np.float32(scale), np.zeros(len(o), np.float32))
        ).visits

    np.testing.assert_array_equal(search(1e-44), search(1.0))
    np.testing.assert_array_equal(search(0.0), search(1.0))  # all zero: uniform


# ---- parameters ----


@pytest.mark.parametrize(
    "name,value",
    [
        ("c_puct", float("inf")),
        ("c_puct", 1e39),  # inf as a float32
        ("c_puct", float("nan")),
        ("c_puct", -1.0),
        ("c_puct", "1.5"),
        ("dirichlet_alpha", float("inf")),
        ("dirichlet_alpha", -0.1),
        ("dirichlet_fraction", 1.5),
        ("dirichlet_fraction", float("nan")),
        ("seed", -1),
        ("seed", 2**64),
        ("seed", 1.5),
        ("seed", None),
        ("reuse_tree", "no"),
        ("reuse_tree", 1),
        ("simulations", 2**31),
        ("leaves_per_round", 2.0),
    ],
)
def test_bad_parameters_name_the_parameter_and_value(name, value):
    env = fiverow.make_vec("freestyle", num_envs=2, seed=0, size=9)
    with pytest.raises(ValueError, match=name) as info:
        MCTS(env, **{name: value})
    assert repr(value) in str(info.value)


def test_largest_seed_is_accepted():
    env = fiverow.make_vec("freestyle", num_envs=2, seed=0, size=9)
    env.reset(seed=0)
    a = MCTS(env, simulations=8, seed=2**64 - 1).run_uniform().visits
    b = MCTS(env, simulations=8, seed=np.uint64(2**64 - 1)).run_uniform().visits
    np.testing.assert_array_equal(a, b)


def test_bad_advance_arguments_are_clear_errors():
    env = fiverow.make_vec("freestyle", num_envs=2, seed=0, size=9)
    env.reset(seed=0)
    mcts = MCTS(env, simulations=8)
    mcts.run_uniform()
    with pytest.raises(ValueError, match="integer"):
        mcts.advance(np.array([1.7, 2.2]))
    with pytest.raises(ValueError, match="shape"):
        mcts.advance(np.array([1, 2, 3]))
    pool = fiverow.make_pool({"freestyle": 2, "renju": 2}, seed=0)
    pool.reset(seed=0)
    on_pool = MCTS(pool, simulations=8)
    on_pool.run_uniform()
    with pytest.raises(ValueError, match="'renju'"):
        on_pool.advance({"freestyle": np.zeros(2, np.int64)})
    with pytest.raises(ValueError, match="dict"):
        on_pool.advance(np.zeros(2, np.int64))


# ---- tree reuse follows the board ----


def test_advance_with_other_actions_rebuilds_the_tree():
    env = fiverow.make_vec("freestyle", num_envs=2, seed=0, size=9)
    env.reset(seed=0)
    mcts = MCTS(env, simulations=200, seed=0, dirichlet_alpha=0.0)
    visits = mcts.run(uniform).visits.copy()
    played = mcts.actions(0.0)
    visits[np.arange(2), played] = 0
    other = visits.argmax(axis=1)  # a visited child, not the one played
    env.step(played)
    mcts.advance(other)
    got = mcts.run(uniform).visits

    again = fiverow.make_vec("freestyle", num_envs=2, seed=0, size=9)
    again.reset(seed=0)
    again.step(played)
    expected = MCTS(again, simulations=200, seed=0, dirichlet_alpha=0.0).run(uniform).visits
    np.testing.assert_array_equal(got, expected)
    assert np.all(got[~env.action_masks()] == 0)


def test_a_board_changed_behind_the_search_is_searched_afresh():
    """Same episode and move number as the tree's root, another position."""
    env = fiverow.make_vec("freestyle", num_envs=1, seed=0, size=9)
    env.reset(seed=0)
    mcts = MCTS(env, simulations=64, seed=0, dirichlet_alpha=0.0)
    mcts.run(uniform)
    env.step(np.array([40]))
    mcts.advance(np.array([40]))
    other = fiverow.make_vec("freestyle", num_envs=1, seed=0, size=9)
    other.reset(seed=0)
    other.step(np.array([0]))
    env.set_state(0, other.get_state(0))  # first move at a9 instead of e5
    got = mcts.run(uniform).visits
    fresh = MCTS(env, simulations=64, seed=0, dirichlet_alpha=0.0).run(uniform).visits
    np.testing.assert_array_equal(got, fresh)
    assert got[0, 0] == 0


def test_tree_reuse_still_works_on_every_preset():
    for name in fiverow.preset_names():
        kw = {"size": 9} if name == "gomorpion" else {}
        env = fiverow.make_vec(name, num_envs=2, seed=1, **kw)
        env.reset(seed=1)
        mcts = MCTS(env, simulations=32, leaves_per_round=2)
        visits = mcts.run(uniform).visits
        a = mcts.actions(0.0)
        env.step(a)
        mcts.advance(a)
        kept = visits[np.arange(2), a]
        # a rebuilt tree would give 31: its root's own evaluation is not kept
        np.testing.assert_array_equal(mcts.run(uniform).visits.sum(axis=1), kept - 1 + 32, name)


# ---- observation kind ----


def test_leaves_use_the_env_observation_kind():
    for mode in ("absolute", "mover"):
        env = fiverow.make_vec("freestyle", num_envs=1, seed=0, size=9, observation=mode)
        env.reset(seed=0)
        obs, *_ = env.step(np.array([40]))
        mcts = MCTS(env, simulations=2, leaves_per_round=1, dirichlet_alpha=0.0)
        mcts.begin()
        root = mcts.select()
        np.testing.assert_array_equal(root[0].obs[0], obs[0], mode)
        move = int(np.flatnonzero(root[0].masks[0])[0])
        mcts.expand(*uniform(root[0].obs, root[0].masks, root[0].to_play))
        child = mcts.select()  # one ply deeper: uniform priors take the first legal move
        again = fiverow.make_vec("freestyle", num_envs=1, seed=0, size=9, observation=mode)
        again.reset(seed=0)
        again.step(np.array([40]))
        expected, *_ = again.step(np.array([move]))
        np.testing.assert_array_equal(child[0].obs[0], expected[0], mode)


# ---- what the docs promise ----


def test_repeated_runs_on_one_position_add_up():
    env = fiverow.make_vec("freestyle", num_envs=2, seed=0, size=9)
    env.reset(seed=0)
    mcts = MCTS(env, simulations=20)
    mcts.run(uniform)
    np.testing.assert_array_equal(mcts.run(uniform).visits.sum(axis=1), 19 + 20)


@pytest.mark.parametrize("simulations", [2, 3, 8, 64])
def test_a_win_in_one_is_taken_at_any_simulation_count(simulations):
    env = fiverow.make_vec("freestyle", num_envs=1, seed=0, size=9)
    env.reset(seed=0)
    env.load_position(0, board({2: "..XXXX...", 4: "...OOO...", 5: "......O.."}), "black")
    mcts = MCTS(env, simulations=simulations, leaves_per_round=1)
    mcts.run(uniform)
    assert mcts.actions(0.0)[0] in (2 * 9 + 1, 2 * 9 + 6)
