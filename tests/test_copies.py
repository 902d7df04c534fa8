"""OpenSpiel-style state on the envs: ``legal_actions()``, ``copy.deepcopy`` and
``pickle`` of single and vector envs (restored exactly: the same future under
the same actions and sampling), and ``undo()`` of the single env's last step."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import fiverow

PRESETS = fiverow.preset_names()


def pickled(env):
    return pickle.loads(pickle.dumps(env))


def assert_same_step(a, b):
    """Two step (or reset) results, infos included, are equal."""
    assert len(a) == len(b)
    for x, y in zip(a[:-1], b[:-1], strict=True):
        np.testing.assert_array_equal(x, y)
    info_a, info_b = a[-1], b[-1]
    assert info_a.keys() == info_b.keys()
    for key in info_a:
        if isinstance(info_a[key], dict):
            assert_same_step((info_a[key],), (info_b[key],))
        else:
            np.testing.assert_array_equal(info_a[key], info_b[key], err_msg=key)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("copier", [pickled, copy.deepcopy], ids=["pickle", "deepcopy"])
def test_vector_env_copies_continue_identically(preset, copier):
    env = fiverow.make_vec(preset, num_envs=5, seed=11, num_threads=2)
    env.reset()
    for _ in range(25):
        env.step(env.sample_legal())
    twin = copier(env)
    assert twin is not env and twin.pool is not env.pool
    # the outputs of the last step come back too
    for name in ("reward", "terminated", "truncated", "obs", "mask"):
        np.testing.assert_array_equal(getattr(twin._group, name), getattr(env._group, name))
    for _ in range(120):
        a, b = env.sample_legal().copy(), twin.sample_legal().copy()
        np.testing.assert_array_equal(a, b)
        assert_same_step(env.step(a), twin.step(b))
    assert_same_step(env.reset(), twin.reset())  # each board's next episode, alike


@pytest.mark.parametrize("autoreset_mode", ["same_step", "disabled"])
def test_vector_env_copies_in_other_autoreset_modes(autoreset_mode):
    env = fiverow.make_vec("strip", num_envs=16, seed=2, autoreset_mode=autoreset_mode)
    env.reset()
    steps = 40 if autoreset_mode == "same_step" else 6
    for _ in range(steps):
        env.step(env.sample_legal())
    twin = pickled(env)
    for _ in range(steps):
        a = env.sample_legal().copy()
        np.testing.assert_array_equal(a, twin.sample_legal())
        assert_same_step(env.step(a), twin.step(a))


def test_vector_env_pickled_before_reset_starts_from_its_seed():
    env = fiverow.make_vec("caro", num_envs=3, seed=8, illegal_action="lose")
    twin = pickled(env)
    assert twin.pool.illegal_action == "lose"
    assert_same_step(env.reset(), twin.reset())
    a = env.sample_legal().copy()
    assert_same_step(env.step(a), twin.step(a))


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("copier", [pickled, copy.deepcopy], ids=["pickle", "deepcopy"])
def test_single_env_copies_continue_identically(preset, copier):
    env = fiverow.make(preset)
    env.reset(seed=4)
    env.action_space.seed(9)
    for _ in range(12):
        env.step(env.action_space.sample())
    twin = copier(env)
    for _ in range(40):
        if not env.legal_actions():
            break
        a = env.action_space.sample()  # the copy's space samples the copy's legal actions
        assert a == twin.action_space.sample()
        assert_same_step(env.step(a), twin.step(a))
    assert twin.undo()[0].shape == env.observation_space.shape  # the history came along


def test_a_gymnasium_made_env_deep_copies():
    env = fiverow.make("freestyle", size=9)
    env.reset(seed=0)
    env.step(40)
    twin = copy.deepcopy(env)
    twin.step(41)
    assert env.legal_actions() != twin.legal_actions()  # independent boards
    assert 41 in env.legal_actions()


@pytest.mark.parametrize("preset", PRESETS)
def test_undo_takes_back_each_step_to_the_reset(preset):
    env = fiverow.make(preset)
    seen = [env.reset(seed=6)]
    rng = np.random.default_rng(0)
    states, actions = [], []  # the state just before each step
    while len(actions) < 30:
        a = int(rng.choice(env.legal_actions()))
        states.append(position(env))
        obs, _, terminated, truncated, info = env.step(a)
        actions.append(a)
        seen.append((obs, info))
        if terminated or truncated:
            break
    after = position(env)
    for k in range(len(actions) - 1, -1, -1):
        back = env.undo()
        assert_same_step(back, seen[k][:1] + (fresh_info(seen[k][1]),))
        assert position(env) == states[k]
    with pytest.raises(RuntimeError, match="no step to take back"):
        env.undo()
    # the same actions again reach the same states (the rules' own random
    # stream, MODLINSEQ's bag, was taken back too)
    for k, a in enumerate(actions):
        assert position(env) == states[k]
        env.step(a)
    assert position(env) == after


def position(env):
    """Everything a board's state decides (its bytes also hold caches that a
    restored state starts afresh, such as renju's)."""
    vec = env.vector_env
    board = {k: v.tobytes() if isinstance(v, np.ndarray) else v for k, v in vec.board(0).items()}
    g = vec._group
    return board, g.obs[0].tobytes(), g.mask[0].tobytes(), vec.get_state(0)[:24]


def fresh_info(info):
    """The info of a position reached by undo: as after reset, no reward."""
    out = dict(info)
    out["rewards"] = np.zeros(2, dtype=np.float32)
    return out


def test_undo_after_the_game_ended_plays_on():
    env = fiverow.make("freestyle", size=9)
    env.reset(seed=0)
    env.vector_env.load_position(0, ["XXXX....."] + ["OOOO....."] + ["." * 9] * 7)
    _, reward, terminated, _, info = env.step(4)  # a5: five in a row
    assert terminated and reward == 1.0 and env.legal_actions() == []
    obs, info = env.undo()
    assert info["to_play"] == 0 and info["winner"] == -1 and 4 in env.legal_actions()
    env.step(80)
    assert env.legal_actions() and not env.vector_env._group.terminated[0]


def test_legal_actions_are_the_mask_as_a_list():
    env = fiverow.make_vec("renju-soosorv8", num_envs=2, seed=1)
    env.reset()
    assert env.legal_actions(0) == [112]  # stone 1 on the centre
    for _ in range(6):
        env.step(env.sample_legal())
    for i in range(2):
        assert env.legal_actions(i) == np.flatnonzero(env.action_masks()[i]).tolist()
    with pytest.raises(ValueError, match="index must be in 0..1"):
        env.legal_actions(2)
    single = fiverow.make("freestyle-swap2")
    single.reset(seed=0)
    legal = single.legal_actions()
    assert isinstance(legal, list) and all(type(a) is int for a in legal) and len(legal) == 225


def test_legal_actions_are_empty_on_a_board_waiting_for_its_reset():
    env = fiverow.make_vec("freestyle", num_envs=1, size=5, connect=3, seed=0)
    env.reset()
    env.load_position(0, ["XX...", "OO...", ".....", ".....", "....."])
    _, _, terminated, _, _ = env.step(np.array([2]))
    assert terminated[0] and env.action_masks()[0].all()  # next-step: anything is accepted
    assert env.legal_actions(0) == []
