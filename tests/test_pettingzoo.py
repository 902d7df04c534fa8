"""The PettingZoo AEC env: PettingZoo's own checks on every preset, each agent's
own view, protocol phases and MODLINSEQ turns (a seat acting several times in a
row), rewards by agent, the classic wrappers, rendering and copies.

PettingZoo's ``max_cycles_test`` does not apply: it needs a parallel env
(``parallel_env(max_cycles=...)``), and a turn-based game is not parallelizable
(a win ends the game in the middle of a cycle, which PettingZoo's
``aec_to_parallel`` refuses; its classic games are not parallelizable either),
and fiverow's move limit is the ``max_steps`` parameter, checked below."""

from __future__ import annotations

import copy
import pickle
import warnings
from functools import partial

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import fiverow
from fiverow import pettingzoo as fz

PRESETS = fiverow.preset_names()

#: api_test's two warnings for any env whose observation is a dict with an
#: action mask (it names PettingZoo's own classic games to silence them)
DICT_OBSERVATION_WARNINGS = (
    "Observation space for each agent probably should be",
    "Observation is not a NumPy array",
)


@pytest.mark.parametrize("preset", PRESETS)
def test_pettingzoo_api_and_seed_tests(preset):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(fz.env(preset), num_cycles=1000)
        seed_test(lambda: fz.env(preset), num_cycles=500)
    other = [
        str(w.message) for w in caught if not str(w.message).startswith(DICT_OBSERVATION_WARNINGS)
    ]
    assert not other


def play_random(env, seed, until=None):
    """A random game as a PettingZoo user writes it; returns the agents in the
    order they acted and the final rewards by agent."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    order, final = [], {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            final[agent] = reward
            env.step(None)
            continue
        order.append(agent)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if until is not None and len(order) == until:
            break
    return order, final


@pytest.mark.parametrize("preset", PRESETS)
def test_random_games_end_with_opposite_rewards(preset):
    env = fz.env(preset)
    order, final = play_random(env, seed=3)
    assert set(final) == {"player_0", "player_1"} and not env.agents
    if preset.startswith(("gomorpion", "modlinseq")) or final["player_0"] != 0:
        assert final["player_0"] == -final["player_1"]
    assert len(order) <= env.unwrapped.vector_env._group.max_steps


def test_each_agent_sees_its_own_side():
    env = fz.raw_env("freestyle", size=9)
    env.reset(seed=0)
    env.step(40)  # player_0 (black) on e5
    env.step(41)  # player_1 (white) on f5
    env.step(49)  # black again: player_1 to act
    planes = env.planes
    assert planes[:3] == ("own", "opponent", "mover_is_black")
    mine, theirs = env.observe("player_1"), env.observe("player_0")
    assert np.flatnonzero(mine["observation"][0]).tolist() == [41]  # own: white stones
    assert np.flatnonzero(mine["observation"][1]).tolist() == [40, 49]
    assert np.flatnonzero(theirs["observation"][0]).tolist() == [40, 49]
    assert mine["observation"][2].all() == 0 and theirs["observation"][2].all()
    # the agent to act sees what the vector env's "mover" observation shows
    np.testing.assert_array_equal(mine["observation"], env.vector_env._group.obs[0])
    assert mine["action_mask"].dtype == np.int8 and mine["action_mask"].sum() == 81 - 3
    assert not theirs["action_mask"].any()


def test_swap2_seats_and_colours_are_separate():
    env = fz.raw_env("freestyle-swap2")
    env.reset(seed=1)
    specials = env.vector_env._group.special_actions
    for cell in (112, 113, 114):  # player_0 places three stones in a row of steps
        assert env.agent_selection == "player_0"
        env.step(cell)
    assert env.agent_selection == "player_1"
    env.step(225 + specials.index("TAKE_BLACK"))  # player_1 takes black
    assert env.infos["player_1"]["black_seat"] == 1
    assert env.agent_selection == "player_0"  # white, to place stone 4
    view = env.observe("player_1")["observation"]
    assert view[env.planes.index("mover_is_black")].all()  # player_1 holds black now
    assert np.flatnonzero(view[0]).tolist() == [112, 114]  # own: the black stones


def test_modlinseq_agents_see_their_own_hands_and_act_twice():
    env = fz.raw_env("modlinseq")
    env.reset(seed=2)
    hands = np.frombuffer(env.vector_env.board(0)["hands"], dtype=np.uint8).reshape(2, -1)
    held = [i for i, name in enumerate(env.planes) if name.startswith("hand_")]
    for seat, agent in enumerate(fz.AGENTS):
        planes = env.observe(agent)["observation"][held]
        np.testing.assert_array_equal(planes[:, 0, 0], hands[seat] >= 1)  # its own hand only
    first = env.agent_selection
    mask = env.observe(first)["action_mask"]
    env.step(int(np.flatnonzero(mask)[0]))  # a tile: the same seat goes on
    assert env.agent_selection == first
    end_turn = env.vector_env.n_actions - 2
    assert env.vector_env.action_name(end_turn) == "END_TURN"
    env.step(end_turn)
    assert env.agent_selection != first


def test_rewards_by_agent_at_a_win():
    env = fz.raw_env("freestyle", size=9)
    env.reset(seed=0)
    env.vector_env.load_position(0, ["XXXX....."] + ["OOOO....."] + ["." * 9] * 7)
    env.step(4)  # player_0 completes five
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert all(env.terminations.values())
    assert env.agent_selection == "player_1"
    assert env.last()[1] == -1.0


@pytest.mark.parametrize("preset,overrides", [("modlinseq", {}), ("gomorpion", {"size": 9})])
def test_points_are_rewarded_as_scored(preset, overrides):
    env = fz.raw_env(preset, reward_mode="points", **overrides)
    env.reset(seed=4)
    for k, agent in enumerate(fz.AGENTS):
        env.action_space(agent).seed(k)
    total = dict.fromkeys(fz.AGENTS, 0.0)
    seen = dict.fromkeys(fz.AGENTS, 0.0)  # what last() reported to each agent
    while env.agents:
        agent = env.agent_selection
        obs, reward, terminated, truncated, _ = env.last()
        seen[agent] += reward
        env.step(None if terminated or truncated else env.action_space(agent).sample())
        for a, r in env.rewards.items():
            total[a] += r
    scores = env.vector_env._group.scores[0]
    assert total == seen == {"player_0": scores[0], "player_1": scores[1]}
    assert scores.sum() > 0


def test_an_illegal_action_loses_under_the_classic_wrappers():
    env = fz.env("freestyle")
    env.reset(seed=0)
    env.step(112)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(112)  # occupied
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.rewards == {"player_0": 0.0, "player_1": -1.0}
    raw = fz.raw_env("freestyle")
    raw.reset(seed=0)
    raw.step(112)
    with pytest.raises(ValueError, match="h8"):
        raw.step(112)


def test_move_limit_truncates_both_agents():
    env = fz.env("freestyle", max_steps=6)
    order, final = play_random(env, seed=0)
    assert len(order) == 6 and final == {"player_0": 0.0, "player_1": 0.0}


@pytest.mark.parametrize("mode", ["ansi", "rgb_array"])
def test_render_modes(mode):
    env = fz.env("renju", render_mode=mode)
    env.reset(seed=0)
    env.step(112)
    frame = env.render()
    if mode == "ansi":
        assert "(X)" in frame
    else:
        assert frame.shape == (15 * 24, 15 * 24, 3)
    env.close()
    with pytest.raises(ValueError, match="render_mode must be None, 'human', 'ansi'"):
        fz.raw_env("renju", render_mode="video")


@pytest.mark.parametrize("preset", PRESETS)
def test_pettingzoo_render_test(preset):
    """issue 27: render_test failed on every preset ("human" was refused)."""
    render_test(partial(fz.env, preset))


def test_human_render_prints_the_board_as_the_game_goes(capsys):
    env = fz.env("renju", render_mode="human")
    env.reset(seed=0)
    shown = capsys.readouterr().out
    assert shown.count("\n") >= 15 and "X" not in shown  # the empty board, at reset
    env.step(112)
    assert "(X)" in capsys.readouterr().out  # every step shows the board
    assert env.render() is None and "(X)" in capsys.readouterr().out


def test_observe_names_an_unknown_agent():
    env = fz.env("freestyle")
    env.reset(seed=0)
    with pytest.raises(ValueError) as e:
        env.observe("player_2")
    assert str(e.value) == "unknown agent 'player_2'; the agents are player_0, player_1"


@pytest.mark.parametrize("preset", PRESETS)
def test_turn_based_parallel_form_passes_parallel_api_test(preset):
    """PettingZoo's turn_based_aec_to_parallel gives a parallel env (the agent
    not to act passes; its action is ignored) that parallel_api_test accepts."""
    env = turn_based_aec_to_parallel(fz.env(preset))
    parallel_api_test(env, num_cycles=100)
    observations, _ = env.reset(seed=1)
    assert set(observations) == set(fz.AGENTS)
    to_act = [a for a in fz.AGENTS if observations[a]["action_mask"].any()]
    assert len(to_act) == 1  # one seat to act, the other's mask all zeros


@pytest.mark.parametrize("copier", [copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))])
def test_copies_continue_identically(copier):
    env = fz.env("renju-soosorv4")
    play_random(env, seed=5, until=9)
    for k, agent in enumerate(fz.AGENTS):
        env.action_space(agent).seed(k)
    twin = copier(env)
    for agent in env.agent_iter(30):
        assert twin.agent_selection == agent
        obs, *_ = env.last()
        np.testing.assert_array_equal(obs["observation"], twin.last()[0]["observation"])
        action = env.action_space(agent).sample()  # unmasked: among the legal actions
        assert action == twin.action_space(agent).sample()
        env.step(action)
        twin.step(action)


def test_an_illegal_action_of_the_raw_env_speaks_pettingzoo():
    """issue 27: the agent and observe() named, no "env(s)", nothing changed."""
    env = fz.raw_env("freestyle")
    env.reset(seed=0)
    env.step(7)
    rewards = dict(env._cumulative_rewards)
    with pytest.raises(ValueError) as e:
        env.step(7)
    message = str(e.value)
    assert message.startswith("player_1's action 7 (h15): occupied"), message
    assert "observe('player_1')['action_mask']" in message and "TerminateIllegalWrapper" in message
    assert "env(s)" not in message and "reset this env" not in message
    assert env.agent_selection == "player_1" and env._cumulative_rewards == rewards
    env.step(8)  # the game goes on
