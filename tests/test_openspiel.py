"""Every preset as an OpenSpiel game: OpenSpiel's own checks (the C++
``random_sim_test`` with serialization, and its Python games' simulation test
with pickling and cloning), its MCTSBot playing renju, parameters, chance and
hidden hands in MODLINSEQ, and states that are the engine's boards."""

from __future__ import annotations

import pickle
import subprocess
import sys

import numpy as np
import pytest

import fiverow

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python.algorithms import evaluate_bots, mcts  # noqa: E402
from open_spiel.python.bots import uniform_random  # noqa: E402
from open_spiel.python.tests import games_sim_test  # noqa: E402

from fiverow import openspiel as fos  # noqa: E402

NAMES = fos.register()
PRESETS = fiverow.preset_names()


def test_every_preset_is_registered_under_a_valid_name():
    assert NAMES == sorted(fos.game_name(p) for p in PRESETS)
    assert "fiverow_renju_soosorv8" in NAMES and "fiverow_freestyle_swap2" in NAMES
    assert fos.register() == NAMES  # again is fine
    registered = {t.short_name for t in pyspiel.registered_games()}
    assert set(NAMES) <= registered


@pytest.mark.parametrize("name", NAMES)
def test_openspiel_random_sim_test_with_serialization(name):
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("name", NAMES)
def test_openspiel_python_games_simulation_test(name):
    """OpenSpiel's test of every game: pickling of the game and its type,
    serialization and pickling of states, clones that stay equal."""
    games_sim_test.GamesSimTest().sim_game(pyspiel.load_game(name))


@pytest.mark.parametrize(
    "spec",
    [
        "fiverow_modlinseq(reward_mode=points)",
        "fiverow_gomorpion(height=11,width=11,reward_mode=points)",
    ],
)
def test_points_are_rewards_as_they_come(spec):
    game = pyspiel.load_game(spec)
    kind = game.get_type()
    assert kind.reward_model == pyspiel.GameType.RewardModel.REWARDS
    assert kind.utility == pyspiel.GameType.Utility.GENERAL_SUM
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(7)
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    scores = fos._ENGINES[state._key].holding(state._board).board(0)["scores"]
    assert state.returns() == [float(scores[0]), float(scores[1])]


def test_mcts_bot_plays_renju():
    """OpenSpiel's MCTS (random rollouts) as white against a random black: it
    wins, so returns and players mean what OpenSpiel expects. The game's
    history, replayed on a fiverow env, reaches the same board."""
    game = pyspiel.load_game("fiverow_renju")
    rng = np.random.RandomState(3)
    evaluator = mcts.RandomRolloutEvaluator(1, rng, max_length=10)
    bots = [
        uniform_random.UniformRandomBot(0, rng),
        mcts.MCTSBot(game, 2.0, 20, evaluator, random_state=rng, solve=True),
    ]
    state = game.new_initial_state()
    returns = evaluate_bots.evaluate_bots(state, bots, rng)
    assert returns == [-1.0, 1.0]
    env = fiverow.make("renju")
    env.reset(seed=0)
    for action in state.history():
        *_, terminated, _, _ = env.step(action)
    assert terminated
    assert str(state) == env.vector_env.render_env(0, "ansi")


def test_parameters_are_game_parameters():
    game = pyspiel.load_game("fiverow_freestyle(height=9,width=9,connect=4)")
    assert game.num_distinct_actions() == 81
    assert game.get_parameters()["connect"] == 4
    state = game.new_initial_state()
    for action in (0, 9, 1, 10, 2, 11):
        state.apply_action(action)
    state.apply_action(3)  # four in a row wins with connect=4
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    with pytest.raises(ValueError, match="caro_ends"):
        pyspiel.load_game("fiverow_freestyle(caro_ends=gomocup)")  # no effect under freestyle
    with pytest.raises((ValueError, pyspiel.SpielError), match="size"):
        pyspiel.load_game("fiverow_renju(size=9)")  # height and width are the parameters


def test_protocol_players_and_special_actions():
    game = pyspiel.load_game("fiverow_renju_soosorv8")
    state = game.new_initial_state()
    for action in (112, 113, 128):  # player 0 places the three opening stones
        assert state.current_player() == 0
        state.apply_action(action)
    assert state.current_player() == 1
    assert [state.action_to_string(1, a) for a in state.legal_actions()] == ["SWAP", "NO_SWAP"]
    state.apply_action(225)  # SWAP: player 1 takes black
    black = fos._ENGINES[state._key].holding(state._board).board(0)["black_seat"]
    assert black == 1
    assert state.current_player() == 0  # white (player 0 now) places stone 4
    state.apply_action(state.legal_actions()[0])
    assert state.current_player() == 0  # and acts again: how many fifth moves to offer
    names = [state.action_to_string(0, a) for a in state.legal_actions()]
    assert names == [f"DECLARE_{n}" for n in range(1, 9)]


def test_modlinseq_deals_by_chance_and_hides_hands():
    game = pyspiel.load_game("fiverow_modlinseq")
    kind = game.get_type()
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    state = game.new_initial_state()
    assert state.is_chance_node() and len(state.chance_outcomes()) == fos.DEALS
    state.apply_action(42)  # the deal of seed 42
    env = fiverow.make_vec("modlinseq", 1, seed=42)
    env.reset()
    board = fos._ENGINES[state._key].holding(state._board).board(0)
    assert board["hands"] == env.board(0)["hands"] and board["tiles"] == env.board(0)["tiles"]
    hands = np.frombuffer(board["hands"], dtype=np.uint8).reshape(2, -1)
    for player in (0, 1):
        text = state.observation_string(player)
        held = " ".join(str(v) for v, k in enumerate(hands[player]) for _ in range(k))
        assert f"player {player}'s hand [{held}]" in text and "/" not in text.splitlines()[-1]
        tensor = np.asarray(state.observation_tensor(player))
        tensor = tensor.reshape(env.single_observation_space.shape)
        held_planes = [i for i, n in enumerate(env.planes) if n.startswith("hand_")]
        np.testing.assert_array_equal(tensor[held_planes, 0, 0], hands[player] >= 1)
    assert state.observation_string(0) != state.observation_string(1)


def test_observation_tensor_is_the_players_own_view():
    game = pyspiel.load_game("fiverow_freestyle")
    state = game.new_initial_state()
    for action in (112, 113, 114):
        state.apply_action(action)
    view = {p: np.asarray(state.observation_tensor(p)).reshape(4, 15, 15) for p in (0, 1)}
    assert np.flatnonzero(view[0][0]).tolist() == [112, 114]  # own stones: black
    assert np.flatnonzero(view[1][0]).tolist() == [113]  # own stones: white
    np.testing.assert_array_equal(view[0][0], view[1][1])


def test_clones_and_pickles_carry_the_board():
    game = pyspiel.load_game("fiverow_gomorpion")
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    for _ in range(200):
        state.apply_action(int(rng.choice(state.legal_actions())))
    twin, loaded = state.clone(), pickle.loads(pickle.dumps(state))
    for other in (twin, loaded):
        assert other._board == state._board and str(other) == str(state)
    for _ in range(50):
        action = int(rng.choice(state.legal_actions()))
        for s in (state, twin, loaded):
            s.apply_action(action)
    assert str(twin) == str(state) == str(loaded)
    assert twin.legal_actions() == state.legal_actions() == loaded.legal_actions()


def test_a_process_that_loaded_a_game_exits_cleanly():
    """OpenSpiel keeps a game's creator until Python has shut down: a closure
    there crashed the exit (a class does not)."""
    code = (
        "import pyspiel, fiverow; fiverow.openspiel.register(); "
        "s = pyspiel.load_game('fiverow_strip').new_initial_state(); s.apply_action(3)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-500:]


def test_an_illegal_action_speaks_openspiel():
    """issue 27: the player and legal_actions() named, no "env(s)", nothing applied."""
    fos.register()
    state = pyspiel.load_game("fiverow_freestyle").new_initial_state()
    state.apply_action(7)
    with pytest.raises(ValueError) as e:
        state.apply_action(7)
    message = str(e.value)
    assert message.startswith("fiverow_freestyle: action 7 (h15) is not legal for player 1"), (
        message
    )
    assert "occupied" in message and "state.legal_actions()" in message
    assert "env" not in message and "illegal_action" not in message
    assert state.history() == [7] and state.current_player() == 1
    state.apply_action(8)


# the parameters each kind of variant uses: no other one belongs in its game string
APPLY_ONLY = {
    "caro_ends": {"rule": ("caro",)},
    "forbidden": {"rule": ("renju",)},
    "neighbourhood": {"rule": ("gomorpion",)},
    "capture_threshold": {"rule": ("gomorpion",)},
    "reward_mode": {"rule": ("gomorpion", "modlinseq")},
    "modulus": {"rule": ("modlinseq",)},
    "copies": {"rule": ("modlinseq",)},
    "hand_size": {"rule": ("modlinseq",)},
    "max_offers": {"protocol": ("soosorv",)},
    "order": {"geometry": ("hex", "tess")},
    "edge": {"geometry": ("hex",)},
    "height": {"geometry": ("plane", "strip", "torus")},
    "width": {"geometry": ("plane", "strip", "torus")},
}


@pytest.mark.parametrize(
    "name",
    [
        *NAMES,
        "fiverow_freestyle(geometry=hex,order=5)",
        "fiverow_modlinseq(geometry=plane,height=7,width=7)",
        "fiverow_caro(caro_ends=gomocup,height=9,width=11)",
    ],
)
def test_game_strings_carry_only_the_parameters_that_apply(name):
    """issue 27: every string carried all 18 parameters (caro_ends, modulus,
    hand_size on freestyle; height and width on the hex board)."""
    game = pyspiel.load_game(name)
    params = game.get_parameters()
    config = game.config
    for key, where in APPLY_ONLY.items():
        applies = all(config[field] in allowed for field, allowed in where.items())
        assert (key in params) == applies, (key, str(game))
    assert {"rule", "geometry", "protocol", "connect", "max_steps"} <= set(params)
    # a set parameter travels as "[2;3]" (a comma would end it): read back, it is the config's
    decoded = fos.from_spiel(params)
    assert all(decoded[k] == config[k] for k in params)
    again = pyspiel.load_game(str(game))  # the string round-trips
    assert str(again) == str(game) and again.config == config
    assert again.num_distinct_actions() == game.num_distinct_actions()
