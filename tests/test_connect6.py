"""Connect6 (SPEC section 10): turns of two stones after black's first single
stone, six or more in a row win, at the stone that makes it. Unit cases from
the published rules, then random games move by move against the reference
(tests/reference_families.py) on the plane, a torus and a hex board."""

from __future__ import annotations

import numpy as np
import pytest

import fiverow

from conftest import single_board
from reference import next_table
from reference_families import Connect6

E19 = "." * 19


def rows_with(line: str, row: int = 9, size: int = 19) -> list[str]:
    empty = "." * size
    return [empty] * row + [line.ljust(size, ".")] + [empty] * (size - row - 1)


def test_preset():
    config = fiverow.resolve("connect6")
    assert config["rule"] == "connect6"
    assert (config["size"] if "size" in config.params else config["height"]) == 19
    assert config["connect"] == 6
    assert config["stones_per_turn"] == 2 and config["first_turn_stones"] == 1


def test_black_places_one_stone_then_each_turn_two():
    env = single_board("connect6")
    seats = []
    for action in (180, 0, 1, 2, 3, 4, 5):
        seats.append(int(env.step(np.array([action]))[4]["to_play"][0]))
    # after black's single stone: white, white, black, black, white, white
    assert seats == [1, 1, 0, 0, 1, 1, 0]


def test_the_observation_tells_a_turns_later_stone():
    env = single_board("connect6")
    plane = env.planes.index("later_stone_of_turn")
    obs, _ = env.reset()
    assert not obs[0, plane].any()
    obs = env.step(np.array([180]))[0]  # black's single stone ends its turn
    assert not obs[0, plane].any()
    obs = env.step(np.array([0]))[0]  # white's first of two
    assert obs[0, plane].all()
    black_to_move = env.planes.index("black_to_move")
    assert not obs[0, black_to_move].any()  # white places again
    obs = env.step(np.array([1]))[0]
    assert not obs[0, plane].any() and obs[0, black_to_move].all()


@pytest.mark.parametrize("length,wins", [(5, False), (6, True), (7, True)])
def test_six_or_more_win(length, wins):
    env = single_board("connect6")
    # length - 1 stones of black around a gap, black to place its turn's first stone
    left = (length - 1) // 2
    line = "..." + "X" * left + "." + "X" * (length - 1 - left)
    terminated, winner = _play(env, rows_with(line), 9 * 19 + 3 + left, "black")
    assert terminated == wins
    assert winner == (0 if wins else -1)


def test_the_first_stone_of_a_turn_can_win():
    env = single_board("connect6")
    env.load_position(0, rows_with("..XXXXX"), to_play="white")  # white's turn starts
    env.step(np.array([0]))
    _, _, terminated, _, info = env.step(np.array([1]))  # white's two stones
    assert not terminated[0]
    _, _, terminated, _, info = env.step(np.array([9 * 19 + 7]))  # black's first
    assert terminated[0] and info["winner"][0] == 0


def test_parameters_make_freestyle():
    """stones_per_turn=1 with connect=5 plays freestyle (SPEC section 10)."""
    c6 = fiverow.make_vec("connect6", num_envs=16, seed=3, size=15, stones_per_turn=1, connect=5)
    free = fiverow.make_vec("freestyle", num_envs=16, seed=3)
    c6.reset(seed=3)
    free.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(200):
        mask = c6.pool.groups[c6.config.name].mask
        assert np.array_equal(mask, free.pool.groups[free.config.name].mask)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        a = c6.step(actions)
        b = free.step(actions)
        for x, y in zip(a[1:4], b[1:4], strict=True):
            np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(a[0][:, :4], b[0])


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="stones_per_turn"):
        fiverow.make_vec("connect6", num_envs=1, stones_per_turn=0)
    with pytest.raises(ValueError, match="has no effect"):
        fiverow.make_vec("freestyle", num_envs=1, stones_per_turn=2)
    with pytest.raises(ValueError, match="takes protocol 'free' or 'center'"):
        fiverow.make_vec("connect6", num_envs=1, protocol="swap2")


def _play(env, rows, cell, colour):
    env.load_position(0, rows, to_play=colour)
    _, _, terminated, _, info = env.step(np.array([cell]))
    return bool(terminated[0]), int(info["winner"][0])


BOARDS = [
    ("connect6", {"size": 11}),
    ("connect6", {"geometry": "torus", "size": 10}),
    ("connect6", {"geometry": "hex", "order": 5}),
    ("connect6", {"size": 9, "stones_per_turn": 3, "first_turn_stones": 2, "connect": 5}),
]


@pytest.mark.parametrize("preset,overrides", BOARDS, ids=[str(o) for _, o in BOARDS])
def test_random_games_equal_the_reference(preset, overrides):
    env = fiverow.make_vec(preset, num_envs=1, seed=0, autoreset_mode="disabled", **overrides)
    config = env.config
    g = env.pool.groups[config.name]
    rng = np.random.default_rng(1)
    nxt = next_table(env)
    for game in range(6):
        env.reset(seed=game)
        ref = Connect6(
            nxt,
            [bool(x) for x in g.on_board.ravel()],
            connect=config["connect"],
            stones_per_turn=config["stones_per_turn"],
            first_turn_stones=config["first_turn_stones"],
        )
        plane = env.planes.index("later_stone_of_turn")
        while not ref.over:
            assert set(np.flatnonzero(g.mask[0])) == ref.legal()
            assert int(g.to_play[0]) == ref.colour
            assert bool(g.obs[0, plane].any()) == ref.later_stone()
            action = int(rng.choice(sorted(ref.legal())))
            ref.play(action)
            _, _, terminated, truncated, info = env.step(np.array([action]))
            assert bool(terminated[0] or truncated[0]) == ref.over
            board = env.pool._batch.board(g.index, 0)
            assert [x if x != 3 else 0 for x in board["cells"]] == ref.cells  # 3: off the board
        assert int(info["winner"][0]) == ref.winner
