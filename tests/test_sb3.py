"""fiverow.sb3.VecEnv: the C vector env as a Stable-Baselines3 VecEnv (issue 27),
checked with SB3's and sb3-contrib's own tools: MaskablePPO, evaluate_policy
with masking, VecMonitor and SB3's other VecEnv wrappers."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.evaluation import evaluate_policy
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.utils import check_for_correct_spaces
from stable_baselines3.common.vec_env import (
    VecCheckNan,
    VecEnv,
    VecFrameStack,
    VecMonitor,
    VecNormalize,
)

import fiverow
import fiverow.sb3

N = 8


def sb3_env(mode: str = "same_step", n: int = N, **kwargs) -> fiverow.sb3.VecEnv:
    kwargs = {"opponent": "random", "agent_seat": "random", "size": 7} | kwargs
    return fiverow.sb3.VecEnv(
        fiverow.make_vec("freestyle", n, seed=1, autoreset_mode=mode, **kwargs)
    )


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return (rng.random(masks.shape) * masks).argmax(axis=1)


def test_maskable_ppo_learns_on_the_vector_env():
    """What failed: "The environment is of type FiverowVectorEnv, not a
    Gymnasium environment"."""
    env = VecMonitor(sb3_env())
    assert isinstance(env.unwrapped, VecEnv) and env.num_envs == N
    assert is_masking_supported(env)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, n_epochs=1, seed=0)
    model.learn(3 * 16 * N)
    assert model.num_timesteps == 3 * 16 * N
    returns = [e["r"] for e in model.ep_info_buffer]
    assert returns and set(returns) <= {-1.0, 0.0, 1.0}


@pytest.mark.parametrize("mode", ["next_step", "disabled"])
def test_every_autoreset_mode_gives_sb3_the_same_steps(mode):
    """same_step resets in C; the other modes reset the finished boards after
    the step: SB3 sees the same observations, rewards, dones and infos."""
    a, b = sb3_env("same_step"), sb3_env(mode)
    np.testing.assert_array_equal(a.reset(), b.reset())
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(80):
        masks = a.action_masks()
        np.testing.assert_array_equal(masks, b.action_masks())
        actions = random_legal(masks, rng)
        obs_a, reward_a, done_a, infos_a = a.step(actions)
        obs_b, reward_b, done_b, infos_b = b.step(actions)
        np.testing.assert_array_equal(obs_a, obs_b)
        np.testing.assert_array_equal(reward_a, reward_b)
        np.testing.assert_array_equal(done_a, done_b)
        for x, y in zip(infos_a, infos_b, strict=True):
            assert x.keys() == y.keys()
            for key in x:
                np.testing.assert_array_equal(x[key], y[key])
        for x, y in zip(a.reset_infos, b.reset_infos, strict=True):
            assert x.keys() == y.keys() and all(np.array_equal(x[k], y[k]) for k in x)
        ended += int(done_a.sum())
    assert ended > 10


def test_finished_boards_start_again_with_the_terminal_observation_in_infos():
    env = sb3_env()
    raw = fiverow.make_vec(
        "freestyle",
        N,
        seed=1,
        autoreset_mode="same_step",
        opponent="random",
        agent_seat="random",
        size=7,
    )
    obs = env.reset()
    raw_obs, _ = raw.reset()
    np.testing.assert_array_equal(obs, raw_obs)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(60):
        actions = random_legal(env.action_masks(), rng)
        obs, reward, done, infos = env.step(actions)
        raw_obs, raw_reward, terminated, truncated, info = raw.step(actions)
        np.testing.assert_array_equal(obs, raw_obs)
        np.testing.assert_array_equal(reward, raw_reward)
        np.testing.assert_array_equal(done, terminated | truncated)
        for i in range(N):
            if not done[i]:
                assert "terminal_observation" not in infos[i]
                assert infos[i]["episode_length"] == info["episode_length"][i]
                continue
            ended += 1
            last = infos[i]["terminal_observation"]
            np.testing.assert_array_equal(last, info["final_obs"][i])
            # the ended game: every ply's stone on the board, the info of its last step
            final = info["final_info"]
            assert infos[i]["episode_length"] == final["episode_length"][i]
            assert last[:2].sum() == infos[i]["episode_length"] > 0
            assert infos[i]["winner"] == final["winner"][i]
            assert infos[i]["TimeLimit.truncated"] is bool(truncated[i] and not terminated[i])
            # the next game: at most the opponent's opening stone, the agent to act
            assert obs[i, :2].sum() <= 1
            assert env.reset_infos[i]["episode_length"] == obs[i, :2].sum()
            assert env.reset_infos[i]["to_play"] == env.reset_infos[i]["agent_seat"]
    assert ended > 5


def test_vec_monitor_reports_the_agents_episodes():
    env = VecMonitor(sb3_env())
    env.reset()
    rng = np.random.default_rng(2)
    steps = np.zeros(N, dtype=int)
    episodes = 0
    for _ in range(80):
        _, reward, done, infos = env.step(
            random_legal(np.stack(env.env_method("action_masks")), rng)
        )
        steps += 1
        for i in np.flatnonzero(done):
            episode, agent = infos[i]["episode"], infos[i]["agent_seat"]
            winner = infos[i]["winner"]
            expected = 0.0 if winner < 0 else (1.0 if winner == agent else -1.0)
            assert episode["r"] == expected == reward[i]
            assert episode["l"] == steps[i]
            # the agent's moves: half the plies, the first one's if it opened
            plies = infos[i]["episode_length"]
            assert episode["l"] == (plies + (agent == 0)) // 2
            steps[i] = 0
            episodes += 1
    assert episodes > 10


def test_observations_are_copies_that_sb3_may_keep():
    env = sb3_env()
    buffers = env.vector_env._group
    first = env.reset()
    kept = first.copy()
    rng = np.random.default_rng(3)
    seen_terminal = False
    for _ in range(40):
        obs, _, done, infos = env.step(random_legal(env.action_masks(), rng))
        assert obs.flags.writeable and not np.shares_memory(obs, buffers.obs)
        for i in np.flatnonzero(done):
            last = infos[i]["terminal_observation"]
            assert not np.shares_memory(last, buffers.obs)
            assert not np.shares_memory(last, buffers.final["obs"])
            seen_terminal = True
    np.testing.assert_array_equal(first, kept)  # no step wrote into it
    assert seen_terminal
    masks = env.action_masks()
    masks[:] = False  # a copy too
    assert env.action_masks().any()


def test_evaluate_policy_with_masking():
    env = VecMonitor(sb3_env(n=4))
    model = MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=32, seed=0)
    rewards, lengths = evaluate_policy(
        model, env, n_eval_episodes=12, use_masking=True, return_episode_rewards=True
    )
    assert len(rewards) == len(lengths) == 12
    assert set(rewards) <= {-1.0, 0.0, 1.0} and min(lengths) >= 4  # 5 stones to win
    mean, std = evaluate_policy(model, env, n_eval_episodes=8, use_masking=True)
    assert -1.0 <= mean <= 1.0 and std >= 0.0


def test_sb3_wrappers_and_space_checks():
    env = sb3_env()
    check_for_correct_spaces(
        env, env.vector_env.single_observation_space, env.vector_env.single_action_space
    )
    wrapped = VecCheckNan(
        VecFrameStack(VecNormalize(VecMonitor(env)), 2, channels_order="first"),
        raise_exception=True,
    )
    obs = wrapped.reset()
    assert obs.shape == (N, 2 * len(env.vector_env.planes), 7, 7)
    rng = np.random.default_rng(4)
    for _ in range(30):
        obs, reward, done, infos = wrapped.step(random_legal(get_action_masks(wrapped), rng))
        assert obs.shape[0] == N and len(infos) == N
        for i in np.flatnonzero(done):
            assert "terminal_observation" in infos[i] and "episode" in infos[i]


def test_env_method_get_attr_set_attr_and_seed():
    env = sb3_env()
    env.reset()
    venv = env.vector_env
    rows = env.env_method("action_masks")
    assert len(rows) == N
    np.testing.assert_array_equal(np.stack(rows), venv.action_masks())
    assert env.env_method("action_masks", indices=[2, 5])[1].tolist() == rows[5].tolist()
    assert env.env_method("legal_actions", indices=3) == [venv.legal_actions(3)]
    assert env.env_method("render", "ansi", indices=[0])[0] == venv.render_env(0, "ansi")
    assert env.env_method("action_name", 0) == ["a7"] * N
    assert env.get_attr("n_actions") == [49] * N and env.get_attr("planes", [1]) == [venv.planes]
    assert env.has_attr("action_masks") and not env.has_attr("no_such_attribute")
    env.set_attr("note", "shared")
    assert venv.note == "shared" and env.get_attr("note", indices=[0, 7]) == ["shared"] * 2
    assert env.env_is_wrapped(Monitor) == [False] * N
    # seed: the next reset keys every board as make_vec(seed=...) does
    assert env.seed(123) == [123] * N
    obs = env.reset()
    again = fiverow.make_vec(
        "freestyle", N, seed=123, opponent="random", agent_seat="random", size=7
    )
    np.testing.assert_array_equal(obs, again.reset()[0])
    env.seed(123)
    np.testing.assert_array_equal(env.reset(), obs)


def test_rgb_images_of_every_board():
    env = fiverow.sb3.VecEnv(
        fiverow.make_vec("freestyle", 4, seed=0, size=7, render_mode="rgb_array")
    )
    env.reset()
    images = env.get_images()
    assert len(images) == 4 and images[0].ndim == 3 and images[0].shape[2] == 3
    assert env.render().ndim == 3  # SB3 tiles them


def test_a_python_opponent_in_the_loop():
    def first_legal(vector_env):
        return vector_env.action_masks().argmax(axis=1)

    env = VecMonitor(sb3_env(opponent=first_legal, agent_seat=1))
    env.reset()
    rng = np.random.default_rng(5)
    done_any = False
    for _ in range(40):
        _, _, done, infos = env.step(random_legal(get_action_masks(env), rng))
        done_any |= bool(done.any())
        assert all(info["to_play"] == 1 for k, info in enumerate(infos) if not done[k])
    assert done_any


def test_bad_input_is_refused_and_changes_nothing():
    with pytest.raises(TypeError, match="fiverow.make_vec"):
        fiverow.sb3.VecEnv(fiverow.make("freestyle"))  # a single env
    env = sb3_env()
    env.reset()
    rng = np.random.default_rng(6)
    env.step(random_legal(env.action_masks(), rng))  # a stone on every board
    venv = env.vector_env
    states = [venv.get_state(i) for i in range(N)]
    with pytest.raises(RuntimeError, match="step_async"):
        env.step_wait()
    actions = random_legal(env.action_masks(), rng)
    actions[0] = np.flatnonzero(venv.board(0)["cells"].reshape(-1))[0]
    with pytest.raises(ValueError) as e:
        env.step(actions)
    message = str(e.value)
    assert "env 0:" in message and "occupied" in message
    assert "action_masks()" in message and "illegal_action='lose'" in message
    with pytest.raises(ValueError, match=r"shape \(8,\)"):
        env.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="out of range"):
        env.step(np.full(N, 49))
    with pytest.raises(IndexError, match="out of range 0..7"):
        env.env_method("legal_actions", indices=[8])
    with pytest.raises(TypeError, match="indices"):
        env.get_attr("n_actions", indices=["a"])
    with pytest.raises(ValueError, match="share one fiverow vector env"):
        env.set_attr("note", 1, indices=[0])
    with pytest.raises(ValueError, match="indices=None"):
        env.env_method("rollout", 1, indices=[0])
    with pytest.raises(AttributeError):
        env.env_method("no_such_method")
    with pytest.raises(ValueError, match="no reset options"):
        env.set_options({"reset_mask": None})
    with pytest.raises(ValueError, match="seed"):
        env.seed(-1)
    assert [venv.get_state(i) for i in range(N)] == states
    env.close()
    with pytest.raises(RuntimeError, match="closed"):
        env.step(actions)
    with pytest.raises(ValueError, match="closed"):
        fiverow.sb3.VecEnv(venv)


def test_no_warning_from_sb3_at_construction():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = sb3_env()
    assert env.render_mode is None and env.metadata["render_modes"] == []
