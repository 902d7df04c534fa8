"""Bad input gets a clear error that names what was wrong, and changes nothing."""

from __future__ import annotations

import numpy as np
import pytest

import fiverow


@pytest.fixture
def env():
    e = fiverow.make_vec("freestyle", num_envs=4, seed=1)
    e.reset()
    for _ in range(10):
        e.step(e.sample_legal())
    return e


def snapshot(env):
    g = env.pool.groups[env.config.name]
    return (
        [env.get_state(i) for i in range(env.num_envs)],
        g.obs.copy(),
        g.mask.copy(),
        g.reward.copy(),
    )


def assert_unchanged(env, before):
    after = snapshot(env)
    assert after[0] == before[0]
    for a, b in zip(after[1:], before[1:], strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "actions,error,match",
    [
        (np.zeros(4, dtype=np.float64), TypeError, "integers"),
        (np.zeros(3, dtype=np.int64), ValueError, r"shape \(4,\)"),
        (np.zeros((4, 1), dtype=np.int64), ValueError, "shape"),
        (np.array([0, 1, -1, 2]), ValueError, "env 2: action -1 .*out of range"),
        (np.array([0, 1, 2, 225]), ValueError, "env 3: action 225 .*out of range"),
        (np.array(["a", "b", "c", "d"]), TypeError, "integers"),
    ],
)
def test_bad_actions_change_nothing(env, actions, error, match):
    before = snapshot(env)
    with pytest.raises(error, match=match):
        env.step(actions)
    assert_unchanged(env, before)


def test_occupied_cells_are_named_and_nothing_changes(env):
    occupied = [int(np.flatnonzero(env.board(i)["cells"].reshape(-1))[0]) for i in range(4)]
    actions = env.sample_legal().copy()
    actions[1] = occupied[1]
    actions[3] = occupied[3]
    before = snapshot(env)
    with pytest.raises(ValueError) as e:
        env.step(actions)
    message = str(e.value)
    assert "2 of 4 envs" in message and "env 1:" in message and "env 3:" in message
    assert "action_mask" in message and "illegal_action='lose'" in message
    assert "occupied" in message and env.action_name(occupied[1]) in message
    assert "env 0:" not in message
    assert_unchanged(env, before)


def test_step_before_reset():
    env = fiverow.make_vec("freestyle", num_envs=2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(2, dtype=np.int64))


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (
            {"name_or_config": "gomoku"},
            "unknown variant 'gomoku'; presets: caro, connect6, freestyle",
        ),
        ({"size": 40}, "'size' = 40 is out of range 3..32"),
        ({"size": "15"}, "'size' must be an integer"),
        ({"rule": "renjuu"}, "allowed: freestyle, standard, caro"),
        ({"caro_ends": "open"}, "'caro_ends' has no effect with rule='freestyle'"),
        ({"colour": "red"}, "unknown parameter 'colour'.*allowed: .*caro_ends"),
        ({"connect": 1}, "'connect' = 1 is out of range"),
        ({"connect": 9, "size": 5}, "no line of connect=9"),
        ({"num_envs": 0}, r"num_envs must be in 1\.\.2147483647, got 0"),
        ({"num_envs": 2**31}, r"num_envs must be in 1\.\.2147483647, got 2147483648"),
        ({"num_threads": 0}, r"num_threads must be in 1\.\.1024, got 0"),
        ({"num_threads": 1025}, r"num_threads must be in 1\.\.1024, got 1025"),
        ({"num_threads": 2**31}, r"num_threads must be in 1\.\.1024, got 2147483648"),
        ({"name_or_config": "renju", "geometry": "strip"}, "'geometry' = 'strip': rule 'renju'"),
        ({"name_or_config": "renju", "height": 15, "width": 13}, "'width' = 13: rule 'renju'"),
        ({"name_or_config": "renju", "height": 15, "width": 32}, "'width' = 32: rule 'renju'"),
        ({"size": np.bool_(True)}, "'size' must be an integer"),
        ({"autoreset_mode": "sometimes"}, "autoreset_mode must be one of next_step"),
        ({"illegal_action": "ignore"}, "illegal_action must be one of raise, lose, random"),
        ({"observation": "rgb"}, "observation must be one of absolute, mover"),
        ({"seed": -1}, "seed must be >= 0"),
    ],
)
def test_bad_configuration(kwargs, match):
    kwargs = {"name_or_config": "freestyle", "num_envs": 2} | kwargs
    with pytest.raises((ValueError, TypeError), match=match):
        fiverow.make_vec(**kwargs)


@pytest.mark.parametrize(
    "groups,kwargs,match",
    [
        ({"freestyle": 2}, {"num_threads": 2**31}, r"num_threads must be in 1\.\.1024"),
        ({"freestyle": 2}, {"num_threads": 100000}, r"num_threads must be in 1\.\.1024"),
        ({"freestyle": 2**31}, {}, r"num_envs must be in 1\.\.2147483647"),
    ],
)
def test_bad_pool_counts(groups, kwargs, match):
    with pytest.raises(ValueError, match=match):
        fiverow.make_pool(groups, **kwargs)


def test_numpy_integers_are_parameter_values():
    env = fiverow.make_vec("freestyle", num_envs=1, size=np.int64(9), connect=np.int32(4))
    assert env.config["height"] == env.config["width"] == 9 and env.config["connect"] == 4
    env = fiverow.make_vec({"preset": "caro", "size": np.uint8(11)}, num_envs=1)
    assert env.config["height"] == 11


def test_renju_on_a_square_plane_or_torus_is_accepted():
    assert fiverow.make_vec("renju", num_envs=1, size=13).config["height"] == 13
    assert fiverow.make_vec("renju", num_envs=1, geometry="torus", size=11).num_envs == 1


def test_out_of_range_message_says_it_once(env):
    with pytest.raises(ValueError) as e:
        env.step(np.array([0, 1, -1, 2]))
    assert str(e.value).count("out of range") == 1 and "0..224" in str(e.value)


def test_bad_config_file(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("rule = [unclosed")
    with pytest.raises(ValueError, match="not valid TOML"):
        fiverow.make_vec(path, num_envs=1)
    with pytest.raises(ValueError, match="does not exist"):
        fiverow.make_vec(tmp_path / "missing.toml", num_envs=1)
    good = tmp_path / "mine.toml"
    good.write_text('geometry = "torus"\nsize = 9\nrule = "standard"\n')
    env = fiverow.make_vec(good, num_envs=1)
    assert env.config["geometry"] == "torus" and env.config["height"] == 9


def test_bad_reset_masks(env):
    with pytest.raises(TypeError, match="numpy array"):
        env.reset(options={"reset_mask": [True, False, True, False]})
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        env.reset(options={"reset_mask": np.ones(3, dtype=bool)})
    with pytest.raises(ValueError, match="bool"):
        env.reset(options={"reset_mask": np.ones(4, dtype=np.int64)})
    with pytest.raises(ValueError, match="unknown reset options"):
        env.reset(options={"mask": 1})


def test_bad_states(env):
    state = env.get_state(0)
    before = snapshot(env)
    with pytest.raises(ValueError, match="wrong length"):
        env.set_state(1, state[:-8])
    other = fiverow.make_vec("caro", num_envs=1, seed=0)
    other.reset()
    with pytest.raises(ValueError, match="another variant"):
        env.set_state(1, other.get_state(0))
    corrupt = bytearray(state)
    cells_at = 48
    corrupt[cells_at + 3] = 7
    with pytest.raises(ValueError, match="impossible value"):
        env.set_state(1, bytes(corrupt))
    with pytest.raises(IndexError, match="env index 9"):
        env.set_state(9, state)
    assert_unchanged(env, before)


def test_bad_positions(env):
    with pytest.raises(ValueError, match="15 rows of 15"):
        env.load_position(0, ["XO"])
    with pytest.raises(ValueError, match="unknown board character 'Z'"):
        env.load_position(0, ["Z" * 15] * 15)
    with pytest.raises(ValueError, match="to_play"):
        env.load_position(0, ["." * 15] * 15, to_play="green")


def test_a_position_already_won_is_refused_naming_the_five(env):
    """Issue 12, defect 4: a five on the board means the game is over."""
    before = snapshot(env)
    rows = ["." * 15] * 15
    won = ["XXXXXX.........", "O.O.O.O.O......", *rows[2:]]
    with pytest.raises(ValueError, match="already won .black five: a15 b15 c15 d15 e15 f15."):
        env.load_position(1, won, to_play="white")
    assert_unchanged(env, before)
    diagonal = ["." * r + "O" + "." * (14 - r) for r in range(5)] + rows[5:]
    diagonal[10:14] = ["X" + "." * 14] * 4
    with pytest.raises(ValueError, match="white five: a15 b14 c13 d12 e11"):
        env.load_position(2, diagonal, to_play="black")
    four = ["XXXX...........", "OOOO...........", *rows[2:]]
    env.load_position(1, four)  # four in a row is not over
    assert env.legal_actions(1)


@pytest.mark.parametrize(
    "preset,rows,match",
    [
        # renju: black's overline is no five; white's six is
        ("renju", ["XXXXXX..OOO....", "...............", "O.O..O........."], None),
        ("renju", ["OOOOOO..XXX....", "X.X.X..........", "...............", "X.X"], "white five"),
        # caro (open ends): a five blocked at one end has not won; the open one has
        ("caro", ["OXXXXX.........", "O.O.O.........."], None),
        ("caro", [".XXXXX.........", "O.O.O.O........"], "black five"),
        # gomorpion: captured stones never make a five; live ones would have ended the cast
        ("gomorpion", ["BBBBB", "OOOOO.O.O.O", "X.X.X.X.X"], "white five"),
        ("gomorpion", ["BBBBBX", "O.O.O.O.O", "X.X.X", "X"], None),
    ],
)
def test_already_won_follows_each_rule(preset, rows, match):
    env = fiverow.make_vec(preset, num_envs=1, seed=0)
    env.reset()
    width = env.pool.groups[preset].width
    board = [row.ljust(width, ".") for row in rows] + ["." * width] * (width - len(rows))
    if match is None:
        env.load_position(0, board, to_play="white")
        assert env.legal_actions(0)
    else:
        with pytest.raises(ValueError, match=match):
            env.load_position(0, board, to_play="white")


@pytest.mark.parametrize("action", [81, 10**6, -1])
def test_action_name_out_of_range_raises(action):
    """Issue 12, defect 7: no '#112' names for actions that do not exist."""
    env = fiverow.make_vec("freestyle", size=9)
    with pytest.raises(ValueError, match=rf"action {action} is out of range 0\.\.80"):
        env.action_name(action)
    assert env.action_name(80) == "i1"
    assert fiverow.make_vec("renju-soosorv8").action_name(225) == "SWAP"


def test_single_env_bad_actions():
    env = fiverow.make("freestyle")
    env.reset(seed=0)
    with pytest.raises(TypeError, match="integer"):
        env.step(1.5)
    with pytest.raises(ValueError, match="out of range"):
        env.step(999)
    with pytest.raises(ValueError, match=r"action 1180591620717411303424 is out of range 0\.\.224"):
        env.step(2**70)
    with pytest.raises(ValueError, match="action -1 is out of range"):
        env.step(np.int64(-1))
    env.step(7)
    with pytest.raises(ValueError, match="occupied"):
        env.step(7)


# ---- an illegal action names the remedies, in each API's words (issue 27) ----

REMEDIES = ("action_mask", "action_masks()", "illegal_action='lose'", "illegal_action='random'")


def test_single_env_illegal_action_names_the_remedies_in_its_words():
    env = fiverow.make("freestyle", size=9, opponent="random")
    env.reset(seed=3)
    env.step(env.sample_legal())  # the agent's stone and the opponent's
    occupied = int(np.flatnonzero(env.vector_env.board(0)["cells"].reshape(-1))[0])
    before = env.vector_env.get_state(0)
    with pytest.raises(ValueError) as e:
        env.step(occupied)
    message = str(e.value)
    assert message.startswith(f"illegal action {occupied} ({env.vector_env.action_name(occupied)})")
    assert "occupied" in message and all(r in message for r in REMEDIES), message
    assert "env(s)" not in message and "envs" not in message and "env 0" not in message
    assert env.vector_env.get_state(0) == before


def test_single_env_finished_episode_says_reset():
    env = fiverow.make("freestyle", size=5)
    env.reset(seed=0)
    terminated = truncated = False
    while not (terminated or truncated):
        _, _, terminated, truncated, _ = env.step(env.sample_legal())
    with pytest.raises(ValueError) as e:
        env.step(0)
    message = str(e.value)
    assert "episode is over" in message and "call reset()" in message
    assert "env(s)" not in message and "reset this env" not in message


def test_vector_env_counts_its_envs_in_words():
    env = fiverow.make_vec("freestyle", num_envs=1, seed=0)
    env.reset()
    env.step(np.array([0]))
    with pytest.raises(ValueError) as e:
        env.step(np.array([0]))
    message = str(e.value)
    assert "in 1 of 1 env," in message and "env(s)" not in message
    assert all(r in message for r in REMEDIES), message


def test_refused_actions_pickle_with_their_details():
    import pickle

    from fiverow.env.pool import IllegalActionError

    env = fiverow.make_vec("freestyle", num_envs=2, seed=0)
    env.reset()
    env.step(np.array([0, 1]))
    with pytest.raises(IllegalActionError) as e:
        env.step(np.array([2, 1]))
    copy = pickle.loads(pickle.dumps(e.value))
    assert str(copy) == str(e.value) and copy.count == 1
    assert copy.refused[0].index == 1 and copy.refused[0].kind == "illegal"
