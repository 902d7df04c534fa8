"""Renju in play: the forbidden set kept by the engine after every stone equals
a recomputation from scratch; masks, fouls, and the renju win rule."""

from __future__ import annotations

import numpy as np
import pytest

import fiverow
from fiverow.renju import forbidden_points

from conftest import play_on, single_board


def forbidden_plane(board_cells: np.ndarray) -> np.ndarray:
    plane = np.zeros(board_cells.shape, dtype=np.uint8)
    for r, c in forbidden_points(board_cells.astype(np.int64)):
        plane[r, c] = 1
    return plane


@pytest.mark.parametrize("forbidden", ["mask", "lose"])
def test_forbidden_points_exact_after_every_step(forbidden):
    env = fiverow.make_vec("renju", num_envs=24, seed=17, forbidden=forbidden)
    k = env.planes.index("forbidden")
    obs, info = env.reset()
    seen = 0
    for _ in range(400):
        obs, _, terminated, truncated, info = env.step(env.sample_legal())
        for i in range(env.num_envs):
            if terminated[i] or truncated[i]:
                continue
            b = env.board(i)
            expected = forbidden_plane(b["cells"])
            np.testing.assert_array_equal(obs[i, k], expected)
            empty = (b["cells"] == 0).reshape(-1)
            legal = empty.copy()
            if forbidden == "mask" and b["colour"] == 0:
                legal &= expected.reshape(-1) == 0
            if not (~empty).any():  # a fresh game: the first stone goes to the centre
                legal = np.arange(225) == 112
            np.testing.assert_array_equal(info["action_mask"][i], legal)
            seen += int(expected.sum())
    assert seen > 100  # the run met many forbidden points


def test_dense_positions_keep_the_set_exact():
    """Long games with fouls allowed (they lose) and load_position mid-game."""
    env = fiverow.make_vec("renju", num_envs=8, seed=3, forbidden="lose", protocol="free")
    env.reset()
    rng = np.random.default_rng(5)
    loaded = 0
    while loaded < 20:
        cells = rng.choice([0, 1, 2], size=(15, 15), p=[0.5, 0.25, 0.25])
        try:
            env.load_position(loaded % 8, cells, to_play="black")
        except ValueError as e:  # a random board may hold a five: the game is over
            assert "already won" in str(e)
            continue
        loaded += 1
    k = env.planes.index("forbidden")
    for _ in range(60):
        obs, _, terminated, truncated, _ = env.step(env.sample_legal())
        for i in range(8):
            if not (terminated[i] or truncated[i]):
                np.testing.assert_array_equal(obs[i, k], forbidden_plane(env.board(i)["cells"]))


def test_a_later_stone_can_change_a_status_through_the_recursion():
    """mintaka's 'recursive forbidden' board: F9 is a double-three only while the
    threes it rests on stay playable; a white stone far from F9 (on the point that
    makes G9's line a four) changes that."""
    board = [
        "...............",
        "...............",
        "...............",
        "...............",
        "...............",
        "......OO.......",
        ".....3XX3......",
        "....OXXXXO.....",
        "....OXXXXO.....",
        ".....3XX3......",
        "......OO.......",
        "...............",
        "...............",
        "...............",
        "...............",
    ]
    rows = [r.replace("3", ".") for r in board]
    before = forbidden_points(rows)
    assert {(6, 5), (6, 8), (9, 5), (9, 8)} <= set(before)
    env = single_board("renju", protocol="free")
    env.load_position(0, rows, to_play="white")
    k = env.planes.index("forbidden")
    for cell in range(225):  # every white reply: the engine agrees with a recomputation
        r, c = divmod(cell, 15)
        if rows[r][c] != ".":
            continue
        env.load_position(0, rows, to_play="white")
        obs, *_ = env.step(np.array([cell]))
        after_rows = [row[:c] + "O" + row[c + 1 :] if i == r else row for i, row in enumerate(rows)]
        expected = np.zeros((15, 15), dtype=np.uint8)
        for rc in forbidden_points(after_rows):
            expected[rc] = 1
        np.testing.assert_array_equal(obs[0, k], expected)


def test_black_overline_is_illegal_in_mask_mode_and_loses_in_lose_mode():
    rows = ["." * 15] * 7 + ["XXX.XX" + "." * 9] + ["OOOO" + "." * 11] + ["." * 15] * 6
    masked = single_board("renju", protocol="free")
    masked.load_position(0, rows, to_play="black")
    assert masked.action_masks()[0, 7 * 15 + 3] == 0
    with pytest.raises(ValueError, match=r"forbidden for black \(overline\)"):
        masked.step(np.array([7 * 15 + 3]))
    losing = single_board("renju", forbidden="lose", protocol="free")
    assert play_on(losing, rows, 7 * 15 + 3, "black") == (True, 1)


def test_renju_win_rule():
    env = single_board("renju", protocol="free")
    rows = ["." * 15] * 7 + ["XXXX" + "." * 11] + ["OOO" + "." * 12] + ["." * 15] * 6
    assert play_on(env, rows, 7 * 15 + 4, "black") == (True, 0)  # exact five
    rows = ["." * 15] * 7 + ["XXX" + "." * 12] + ["OOO.OO" + "." * 9] + ["." * 15] * 6
    assert play_on(env, rows, 8 * 15 + 3, "white") == (True, 1)  # white's overline wins


def test_renju_preset_and_center_rule():
    env = fiverow.make_vec("renju", num_envs=2, seed=0)
    assert env.planes == ("black", "white", "black_to_move", "last_move", "forbidden")
    _, info = env.reset()
    assert info["action_mask"].sum(axis=1).tolist() == [1, 1]  # the centre only


def test_renju_needs_five_and_a_square_board():
    with pytest.raises(ValueError, match="connect=5"):
        fiverow.make_vec("renju", connect=6)
    with pytest.raises(ValueError, match="at least 11"):
        fiverow.make_vec("renju", geometry="torus", size=9)
    env = fiverow.make_vec("renju", geometry="torus", size=13, num_envs=300, seed=1)
    env.reset()
    env.rollout(200)
