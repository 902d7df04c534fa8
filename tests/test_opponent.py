"""An opponent in the loop: make / make_vec(opponent=..., agent_seat=...)."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest

import fiverow
from fiverow import players

SMALL = {"freestyle": {"size": 9}}


def small(preset: str) -> dict:
    return SMALL.get(preset, {})


class Wrapped:
    """A built-in player driven from Python, as a network would be."""

    def __init__(self, spec: str) -> None:
        self.player = players.make(spec)
        self.name = f"py-{spec}"
        self.calls = 0
        self.waiting_seen: list[int] = []

    def act(self, env):
        self.calls += 1
        self.waiting_seen.append(int(env.unwrapped.pool.groups[env.config.name].waiting.sum()))
        return self.player.act(env)


def play(env, agent: str | None = None, steps: int = 60, on_step=None):
    """Trajectory of an env stepped by a built-in agent (None: sample_legal),
    every output copied."""
    policy = players.make(agent) if agent else None
    obs, info = env.reset()
    out = [obs.copy(), info["agent_seat"].copy(), info["to_play"].copy()]
    for _ in range(steps):
        actions = policy.act(env) if policy else env.sample_legal()
        obs, reward, terminated, truncated, info = env.step(actions)
        out += [obs.copy(), reward, terminated, truncated, info["winner"].copy()]
        out += [info["episode_length"].copy(), info["rewards"].copy()]
        if "final_info" in info:
            out += [info["final_obs"].copy(), info["final_info"]["winner"].copy()]
        if on_step:
            on_step(obs, reward, terminated, truncated, info)
    return out


def same(a, b) -> bool:
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
@pytest.mark.parametrize("preset", fiverow.preset_names())
def test_python_opponent_plays_exactly_as_the_same_player_in_c(preset, mode):
    """A built-in player as the opponent moves in C; the same player wrapped
    in Python moves in rounds: the games are identical, every output alike,
    protocol decisions (swaps, offers, choices) included."""
    kwargs = dict(seed=3, agent_seat="random", autoreset_mode=mode, num_threads=1)
    kwargs.update(small(preset))
    wrapped = Wrapped("heuristic(epsilon=0.5)")
    in_c = play(fiverow.make_vec(preset, 8, opponent="heuristic(epsilon=0.5)", **kwargs))
    in_py = play(fiverow.make_vec(preset, 8, opponent=wrapped, **kwargs))
    assert same(in_c, in_py)
    assert wrapped.calls >= 61  # one round per step at least (reset included)
    assert all(n > 0 for n in wrapped.waiting_seen)  # called only while a board waits


@pytest.mark.parametrize("preset", fiverow.preset_names())
def test_the_agent_is_to_act_after_every_call_and_rewards_are_its(preset):
    seen_seats = set()

    def check(obs, reward, terminated, truncated, info):
        done = terminated | truncated
        seat = info["agent_seat"]
        seen_seats.update(seat.tolist())
        assert np.all(info["to_play"][~done] == seat[~done])
        np.testing.assert_array_equal(reward, info["rewards"][np.arange(len(seat)), seat])
        decided = terminated & (info["winner"] >= 0)
        if preset not in ("gomorpion", "modlinseq"):  # outcome rewards: +1 / -1
            np.testing.assert_array_equal(
                reward[decided], np.where(info["winner"][decided] == seat[decided], 1.0, -1.0)
            )
        assert np.all(reward[~done] == 0) or preset in ("gomorpion", "modlinseq")

    env = fiverow.make_vec(
        preset,
        16,
        seed=5,
        num_threads=1,
        opponent="heuristic(epsilon=0.3)",
        agent_seat="random",
        **small(preset),
    )
    obs, info = env.reset()
    assert np.all(info["to_play"] == info["agent_seat"])
    play(env, steps=50, on_step=check)
    assert seen_seats == {0, 1}


def test_reset_shows_the_opponents_opening_moves():
    env = fiverow.make_vec("freestyle", 4, seed=0, opponent="heuristic", agent_seat=1)
    obs, info = env.reset()
    assert np.all(info["episode_length"] == 1) and np.all(info["to_play"] == 1)
    assert np.all(obs[:, 0].sum(axis=(1, 2)) == 1)  # one black stone: the opponent's
    # soosorv: the opener (the opponent) has placed three stones; the agent decides the swap
    env = fiverow.make_vec("renju-soosorv8", 4, seed=0, opponent="random", agent_seat=1)
    obs, info = env.reset()
    assert np.all(info["episode_length"] == 3) and np.all(info["to_play"] == 1)
    assert env.board(0)["phase_name"] == "swap"
    env = fiverow.make_vec("freestyle", 4, seed=0, opponent="heuristic", agent_seat=0)
    _, info = env.reset()
    assert np.all(info["episode_length"] == 0)


def test_random_agent_seat_is_seeded_per_episode_and_thread_count_free():
    """The seat is drawn from the board's own stream: the same seed gives the
    same seats and games on 1 thread or 2 (512 boards: a parallel step)."""

    def run(threads: int):
        env = fiverow.make_vec(
            "freestyle",
            512,
            seed=11,
            num_threads=threads,
            opponent="heuristic(epsilon=0.2)",
            agent_seat="random",
            size=9,
        )
        return play(env, steps=30)

    one, two = run(1), run(2)
    assert same(one, two)
    seats = one[1]
    assert 0.4 < seats.mean() < 0.6  # both seats, about evenly
    other = play(
        fiverow.make_vec("freestyle", 512, seed=12, opponent="random", agent_seat="random", size=9),
        steps=1,
    )
    assert not np.array_equal(other[1], seats)


def test_win_rates_are_real_from_the_agents_seat():
    """RecordEpisodeStatistics on the single env reports the agent's returns:
    random loses nearly always to the heuristic, wins about half against random."""

    def returns(opponent: str, episodes: int) -> np.ndarray:
        env = fiverow.make("freestyle", opponent=opponent, agent_seat="random", size=9)
        env = gymnasium.wrappers.RecordEpisodeStatistics(env)
        out = []
        env.reset(seed=1)
        while len(out) < episodes:
            _, reward, terminated, truncated, info = env.step(env.unwrapped.sample_legal())
            if terminated or truncated:
                ep = info["episode"]
                assert ep["r"] == reward  # one reward per episode, at its end
                agent_won = info["winner"] == info["agent_seat"]
                assert ep["r"] == (1.0 if agent_won else -1.0 if info["winner"] >= 0 else 0.0)
                out.append(float(ep["r"]))
                env.reset()
        return np.array(out)

    vs_heuristic = returns("heuristic", 40)
    assert np.mean(vs_heuristic == 1.0) <= 0.1  # docs/players.md: heuristic >= 95% vs random
    vs_random = returns("random", 200)
    assert 0.35 < np.mean(vs_random == 1.0) < 0.65


def test_single_env_python_opponent_may_return_one_integer():
    calls = []

    def first_legal(env):
        calls.append(env.num_envs)
        return int(np.flatnonzero(env.action_masks()[0])[0])

    env = fiverow.make("freestyle", opponent=first_legal, agent_seat=1, size=9)
    obs, info = env.reset(seed=0)
    assert info["agent_seat"] == 1 and info["to_play"] == 1 and calls == [1]
    assert obs[0, 0, 0] == 1  # black (the opponent) took the first legal cell, a1 side
    assert repr(env.vector_env).endswith("opponent='first_legal', agent_seat=1)")


def test_python_opponent_errors_name_it_and_it_cannot_step():
    class Cheater:
        name = "cheater"

        def act(self, env):
            return np.zeros(env.num_envs, dtype=np.int64)  # a1, taken after the first move

    env = fiverow.make_vec("freestyle", 2, seed=0, opponent=Cheater(), size=9)
    env.reset()
    with pytest.raises(ValueError, match=r"the opponent \(cheater\) gave illegal actions"):
        env.step(np.array([0, 0]))

    class Stepper:
        def act(self, env):
            env.step(env.sample_legal())

    env = fiverow.make_vec("freestyle", 2, seed=0, opponent=Stepper(), agent_seat=1)
    with pytest.raises(RuntimeError, match="inside the opponent's act"):
        env.reset()


def test_bad_opponents_and_seats_are_refused_by_name():
    with pytest.raises(ValueError, match="agent_seat must be 0, 1 or 'random'"):
        fiverow.make_vec("freestyle", 2, opponent="random", agent_seat=2)
    with pytest.raises(ValueError, match="agent_seat must be"):
        fiverow.make("freestyle", opponent="random", agent_seat=True)
    with pytest.raises(ValueError, match="needs an opponent"):
        fiverow.make_vec("freestyle", 2, agent_seat="random")
    with pytest.raises(ValueError, match="player kind must be one of"):
        fiverow.make_vec("freestyle", 2, opponent="grandmaster")
    with pytest.raises(TypeError, match="has act"):
        fiverow.make("freestyle", opponent=42)
    with pytest.raises(ValueError, match="max_steps >= 4"):
        fiverow.make_vec("freestyle", 2, opponent="random", max_steps=3)
    env = fiverow.make_vec("freestyle", 2, seed=0, opponent="random", max_steps=4)
    _, info = env.reset()
    assert np.all(info["to_play"] == 0)


def test_mcts_opponent_and_positions_the_opponent_answers():
    env = fiverow.make_vec("freestyle", 2, seed=0, opponent="mcts:50", agent_seat=0, size=9)
    env.reset()
    rows = ["." * 9] * 4 + [".XXXX...."] + ["." * 9] * 2 + ["OOO......"] + ["." * 9]
    # white (the opponent, seat 1) to move: it blocks the open four's ends? one of them
    env.load_position(0, rows, to_play="white")
    board = env.board(0)
    assert (board["cells"] == 2).sum() == 4  # the opponent answered at once
    *_, info = env.step(env.sample_legal())
    assert info["to_play"][0] == 0 or info["winner"][0] >= 0
    stats = env.rollout(5)
    assert stats["steps"] == 10
    assert np.all(env._group.waiting == 0)


@pytest.mark.parametrize("preset", fiverow.preset_names())
def test_sb3_check_env_passes_with_an_opponent(preset):
    """Stable-Baselines3's own checker, on every preset with an opponent. What it
    still warns about is CnnPolicy's image heuristics (docs/api.md): planes in
    0..1, not 0..255 (so SB3 does not divide them by 255: right for 0/1
    planes), boards smaller than 36x36, and more planes than rows."""
    from stable_baselines3.common.env_checker import check_env

    env = fiverow.make(preset, opponent="heuristic", agent_seat="random")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env)
    known = ("upper and lower bounds are not in [0, 255]", "minimal resolution", "channels-last")
    others = [str(w.message) for w in caught if not any(k in str(w.message) for k in known)]
    assert others == []


def test_gymnasium_check_env_passes_with_an_opponent():
    from gymnasium.utils.env_checker import check_env

    for preset in ("freestyle", "renju-soosorv8", "modlinseq"):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*not having a spec")
            check_env(
                fiverow.make(
                    preset, opponent="random", agent_seat="random", illegal_action="random"
                )
            )


def test_same_step_final_info_with_an_opponent():
    env = fiverow.make_vec(
        "freestyle", 8, seed=2, opponent="random", agent_seat=1, autoreset_mode="same_step", size=7
    )
    env.reset()
    ended = 0
    for _ in range(60):
        _, reward, terminated, truncated, info = env.step(env.sample_legal())
        done = terminated | truncated
        if "final_info" not in info:
            continue
        ended += int(done.sum())
        final = info["final_info"]
        np.testing.assert_array_equal(info["_final_info"], done)
        np.testing.assert_array_equal(final["agent_seat"][done], 1)
        np.testing.assert_array_equal(final["rewards"][done][:, 1], reward[done])
        # the new episode: the opponent has opened, the agent is to act
        np.testing.assert_array_equal(info["episode_length"][done], 1)
        np.testing.assert_array_equal(info["to_play"][done], 1)
        np.testing.assert_array_equal(info["rewards"][done], 0)
    assert ended > 0


def test_players_make_is_the_one_entry_point():
    """Built-in specs parse to Players; Python players pass through (a function
    is wrapped, named after it); Match takes whatever make takes."""
    assert players.make("mcts:100(rollout=random)").name == "mcts:100(rollout=random)"
    agent = Wrapped("random")
    assert players.make(agent) is agent

    def centre_first(env):
        return players.make("heuristic").act(env)

    wrapped = players.make(centre_first)
    assert wrapped.name == "centre_first"
    with pytest.raises(TypeError, match="built-in players only"):
        players.make(agent, epsilon=0.1)
    result = fiverow.Match(
        "freestyle", centre_first, "random", games=8, seed=1, params=SMALL["freestyle"]
    ).play()
    assert result.player_a == "centre_first" and result.total().wins >= 7
    ratings = fiverow.balance.ladder(
        "freestyle", [centre_first, "random"], games=4, bootstrap=10, params={"size": 7}
    )
    assert "centre_first" in str(ratings)


@pytest.mark.parametrize("preset", ["freestyle", "renju-soosorv8", "modlinseq"])
def test_copies_keep_the_opponent_and_continue_identically(preset):
    """pickle / deepcopy of envs with a built-in opponent and random seats: the
    copy has the opponent seated and plays the same future; undo() takes back
    the agent's step with the opponent's replies."""
    import copy
    import pickle

    def run(env, steps: int = 40):
        out = []
        for _ in range(steps):
            obs, reward, terminated, truncated, info = env.step(env.sample_legal())
            out += [obs.copy(), reward, terminated, info["agent_seat"].copy()]
            out += [info["winner"].copy(), info["episode_length"].copy()]
        return out

    env = fiverow.make_vec(
        preset, 6, seed=4, opponent="heuristic(epsilon=0.3)", agent_seat="random", **small(preset)
    )
    env.reset()
    run(env, 5)
    twins = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    ahead = run(env)
    for twin in twins:
        assert twin.opponent is not None and twin._group.with_opponent
        assert same(run(twin), ahead)

    single = fiverow.make(preset, opponent="heuristic", agent_seat=1, **small(preset))
    obs, info = single.reset(seed=2)
    single.step(single.sample_legal())
    twin = pickle.loads(pickle.dumps(single))
    action = twin.sample_legal()
    np.testing.assert_array_equal(twin.step(action)[0], single.step(action)[0])
    single.undo()
    back_obs, back_info = single.undo()
    np.testing.assert_array_equal(back_obs, obs)  # the reset position: the opponent's opening
    assert back_info["to_play"] == 1 and back_info["episode_length"] == info["episode_length"]
