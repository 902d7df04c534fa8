"""Pente (SPEC section 10): captures of exactly two flanked stones, five in a
row or ten captured stones win, the tournament opening, Keryo-Pente by
parameters. Unit cases from the published rules, then random games move by
move against the reference (tests/reference_families.py) on the plane, a
torus and a hex board."""

from __future__ import annotations

import numpy as np
import pytest

import fiverow

from conftest import single_board
from reference import next_table
from reference_families import Pente

SIZE = 19
C = SIZE // 2  # the centre's row and column


def at(row: int, col: int) -> int:
    return row * SIZE + col


def rows_with(stones: dict[tuple[int, int], str]) -> list[str]:
    grid = [["."] * SIZE for _ in range(SIZE)]
    for (r, c), s in stones.items():
        grid[r][c] = s
    return ["".join(row) for row in grid]


def free_board(**overrides):
    return single_board("pente", pente_opening="free", **overrides)


def play(env, stones, cell, colour="black"):
    env.load_position(0, rows_with(stones), to_play=colour)
    obs, _, terminated, _, info = env.step(np.array([cell]))
    board = env.pool._batch.board(env.pool.groups[env.config.name].index, 0)
    return board, info, bool(terminated[0]), obs


DIRECTIONS = [(0, 1), (1, 0), (1, 1), (1, -1), (0, -1), (-1, 0), (-1, -1), (-1, 1)]


@pytest.mark.parametrize("direction", DIRECTIONS)
def test_two_flanked_stones_are_captured_in_every_direction(direction):
    dr, dc = direction
    stones = {(C + dr, C + dc): "O", (C + 2 * dr, C + 2 * dc): "O", (C + 3 * dr, C + 3 * dc): "X"}
    env = free_board()
    board, info, terminated, _ = play(env, stones, at(C, C))
    assert board["cells"][at(C + dr, C + dc)] == 0
    assert board["cells"][at(C + 2 * dr, C + 2 * dc)] == 0
    assert board["cells"][at(C + 3 * dr, C + 3 * dc)] == 1
    assert list(info["captures"][0]) == [2, 0]
    assert not terminated
    # the freed cells are playable again
    mask = env.pool.groups[env.config.name].mask[0]
    assert mask[at(C + dr, C + dc)] and mask[at(C + 2 * dr, C + 2 * dc)]


NO_CAPTURE = {
    "one": {(C, C - 2): "X", (C, C - 1): "O"},
    "three": {(C, C - 4): "X", (C, C - 3): "O", (C, C - 2): "O", (C, C - 1): "O"},
    "gap": {(C, C - 3): "X", (C, C - 2): "O", (C, C - 1): "."},
}


@pytest.mark.parametrize("case", list(NO_CAPTURE))
def test_only_exactly_two_are_captured(case):
    stones = {k: v for k, v in NO_CAPTURE[case].items() if v != "."}
    env = free_board()
    board, info, _, _ = play(env, stones, at(C, C))
    assert list(info["captures"][0]) == [0, 0]
    assert all(board["cells"][at(r, c)] == (1 if s == "X" else 2) for (r, c), s in stones.items())


def test_playing_into_a_flanked_position_is_safe():
    # X O _ X: O plays the gap and is not captured
    stones = {(C, C - 2): "X", (C, C - 1): "O", (C, C + 1): "X"}
    env = free_board()
    board, info, _, _ = play(env, stones, at(C, C), colour="white")
    assert board["cells"][at(C, C)] == 2 and board["cells"][at(C, C - 1)] == 2
    assert list(info["captures"][0]) == [0, 0]


def test_captures_in_several_directions_at_once():
    stones = {
        (C, C + 1): "O", (C, C + 2): "O", (C, C + 3): "X",
        (C + 1, C): "O", (C + 2, C): "O", (C + 3, C): "X",
        (C - 1, C - 1): "O", (C - 2, C - 2): "O", (C - 3, C - 3): "X",
    }  # fmt: skip
    env = free_board()
    _, info, _, obs = play(env, stones, at(C, C))
    assert list(info["captures"][0]) == [6, 0]
    black = env.planes.index("black_captures")
    assert (obs[0, black] == 6).all() and (obs[0, black + 1] == 0).all()


def test_five_in_a_row_wins():
    env = free_board()
    stones = {(C, C + k): "X" for k in range(1, 5)}
    _, info, terminated, _ = play(env, stones, at(C, C))
    assert terminated and info["winner"][0] == 0


def test_ten_captured_stones_win():
    env = free_board(capture_win=4)
    env.reset()
    env.load_position(0, rows_with({(C, C + 1): "O", (C, C + 2): "O", (C, C + 3): "X"}), "black")
    _, _, terminated, _, info = env.step(np.array([at(C, C)]))
    assert not terminated[0] and list(info["captures"][0]) == [2, 0]
    # white elsewhere, then black's second capture reaches capture_win
    env.step(np.array([at(0, 0)]))
    env.step(np.array([at(5, 5)]))  # black
    env.step(np.array([at(5, 6)]))  # white
    env.step(np.array([at(0, 18)]))  # black elsewhere
    _, _, terminated, _, info = env.step(np.array([at(5, 7)]))  # white: O O at 5,6 / 5,7
    assert not terminated[0]
    _, _, terminated, _, info = env.step(np.array([at(5, 8)]))  # X O O X: captured
    assert terminated[0] and info["winner"][0] == 0 and list(info["captures"][0]) == [4, 0]


def test_ten_is_the_default_capture_win():
    assert fiverow.resolve("pente")["capture_win"] == 10


def test_keryo_captures_three():
    env = free_board(capture_lengths="2,3", capture_win=15)
    stones = {(C, C + 1): "O", (C, C + 2): "O", (C, C + 3): "O", (C, C + 4): "X"}
    board, info, _, _ = play(env, stones, at(C, C))
    assert list(info["captures"][0]) == [3, 0]
    assert (
        fiverow.make_vec("pente", num_envs=1, capture_lengths=[2, 3]).config["capture_lengths"]
        == "2,3"
    )


def test_tournament_opening():
    env = single_board("pente")
    mask = env.pool.groups["pente"].mask
    assert np.flatnonzero(mask[0]).tolist() == [at(C, C)]
    env.step(np.array([at(C, C)]))
    env.step(np.array([at(C, C + 1)]))  # white anywhere
    legal = set(np.flatnonzero(mask[0]).tolist())
    for r in range(SIZE):
        for c in range(SIZE):
            far = max(abs(r - C), abs(c - C)) >= 3
            assert (at(r, c) in legal) == far, (r, c)
    with pytest.raises(ValueError, match="at least 3 cells from the centre"):
        env.step(np.array([at(C + 2, C)]))
    env.step(np.array([at(C + 3, C)]))
    assert mask[0][at(C + 1, C + 1)]  # white: no restriction


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="capture_lengths"):
        fiverow.make_vec("pente", num_envs=1, capture_lengths="2,x")
    with pytest.raises(ValueError, match="capture_lengths"):
        fiverow.make_vec("pente", num_envs=1, capture_lengths=[0])
    with pytest.raises(ValueError, match="pente_opening"):
        fiverow.make_vec("pente", num_envs=1, pente_opening="swap")
    with pytest.raises(ValueError, match="has no effect"):
        fiverow.make_vec("renju", num_envs=1, capture_win=5)


BOARDS = [
    ("pente", {"size": 11}),
    ("pente", {"size": 9, "pente_opening": "free", "capture_win": 6}),
    ("pente", {"geometry": "torus", "size": 10}),
    ("pente", {"geometry": "hex", "order": 5, "capture_lengths": "2,3"}),
]


@pytest.mark.parametrize("preset,overrides", BOARDS, ids=[str(o) for _, o in BOARDS])
def test_random_games_equal_the_reference(preset, overrides):
    env = fiverow.make_vec(preset, num_envs=1, seed=0, autoreset_mode="disabled", **overrides)
    config = env.config
    g = env.pool.groups[config.name]
    env.reset()
    centre = int(env.pool._batch.group_info(g.index)["centre"])
    rng = np.random.default_rng(2)
    nxt = next_table(env)
    captured = 0
    for game in range(6):
        env.reset(seed=game)
        ref = Pente(
            nxt,
            [bool(x) for x in g.on_board.ravel()],
            centre=centre,
            connect=config["connect"],
            capture_lengths=tuple(int(x) for x in str(config["capture_lengths"]).split(",")),
            capture_win=config["capture_win"],
            tournament=config["pente_opening"] == "tournament",
        )
        while not ref.over:
            assert set(np.flatnonzero(g.mask[0])) == ref.legal()
            action = int(rng.choice(sorted(ref.legal())))
            ref.play(action)
            _, _, terminated, truncated, info = env.step(np.array([action]))
            board = env.pool._batch.board(g.index, 0)
            assert [x if x != 3 else 0 for x in board["cells"]] == ref.cells
            assert list(info["captures"][0]) == ref.captures
            if truncated[0]:
                break
            assert bool(terminated[0]) == ref.over
        if ref.over:
            assert int(info["winner"][0]) == ref.winner
        captured += sum(ref.captures)
    assert captured > 0  # the games took stones off the board
