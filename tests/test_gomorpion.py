"""Gomorpion (SPEC section 6): one hand-drawn scenario per rule, game ends,
and properties of random play."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import fiverow
from fiverow.notation import parse_cell

LIVE, RECAPTURABLE, CAPTURED, SAFE = 0, 1, 2, 4


def board9(rows: list[str], to_play: str = "black", scores=None, size: int = 9, **kw):
    env = fiverow.make_vec(
        "gomorpion", num_envs=1, seed=0, size=size, autoreset_mode="disabled", **kw
    )
    env.reset()
    env.load_position(0, rows, to_play=to_play, scores=scores)
    return env


def cell(env, name: str) -> int:
    return parse_cell(name, env.config["height"], env.config["width"])


def play(env, name: str):
    return env.step(np.array([cell(env, name)]))


def state(env):
    b = env.board(0)
    shape = (env.config["height"], env.config["width"])
    status = np.frombuffer(b["stone_status"], dtype=np.uint8).reshape(-1)
    siege = np.frombuffer(b["siege"], dtype=np.uint8).reshape(-1)
    return b, status, siege, shape


def status_of(env, name: str) -> int:
    return int(state(env)[1][cell(env, name)])


def siege_of(env, name: str) -> int:
    """0 none, 1 / 2 breakable (black / white), 3 / 4 solid (black / white)."""
    return int(state(env)[2][cell(env, name)])


EMPTY9 = ["." * 9] * 9


def rows_with(stones: dict[str, str], size: int = 9, fill: str = ".") -> list[str]:
    grid = [[fill] * size for _ in range(size)]
    for name, ch in stones.items():
        c = parse_cell(name, size, size)
        grid[c // size][c % size] = ch
    return ["".join(r) for r in grid]


RUN = {"a1": "X", "b1": "X", "c1": "X", "d1": "X"}  # black plays e1 for a five


def test_threshold_three_neighbours_is_not_enough():
    env = board9(rows_with({**RUN, "g5": "O", "f4": "X", "f5": "X", "f6": "X"}))
    _, _, _, _, info = play(env, "e1")
    assert status_of(env, "g5") == RECAPTURABLE  # 3 black neighbours: survives, the loser's
    assert info["scores"][0].tolist() == [5, 0]  # only the run
    assert info["casts"][0] == 1 and info["cast_points"][0].tolist() == [5, 0]


def test_threshold_four_neighbours_captures():
    env = board9(rows_with({**RUN, "g5": "O", "f4": "X", "f5": "X", "f6": "X", "g4": "X"}))
    _, _, _, _, info = play(env, "e1")
    assert status_of(env, "g5") == CAPTURED
    assert info["scores"][0].tolist() == [6, 0]


def test_the_winning_run_is_captured_and_the_winners_other_stones_shift():
    env = board9(rows_with({**RUN, "i9": "x", "i5": "O"}))
    play(env, "e1")
    for name in ("a1", "b1", "c1", "d1", "e1"):
        assert status_of(env, name) == CAPTURED
    assert status_of(env, "i9") == LIVE  # the winner's recapturable stone shifts
    assert status_of(env, "i5") == RECAPTURABLE  # the loser's stone becomes recapturable


def test_simultaneous_evaluation_counts_captured_neighbours():
    """A 3x3 block of black stones: the centre (8 black neighbours) and the edge
    middles (5) are captured for black, the corners (3) are not, even though their
    neighbours are being captured at the same time."""
    block = {f"{c}{r}": "X" for c in "fgh" for r in (5, 6, 7)}
    env = board9(rows_with({**RUN, **block}))
    _, _, _, _, info = play(env, "e1")
    captured = {n for n in block if status_of(env, n) == CAPTURED}
    assert captured == {"g6", "g5", "g7", "f6", "h6"}
    assert info["scores"][0].tolist() == [10, 0]


def test_a_recapturable_stone_is_rescued_by_a_later_winning_run():
    env = board9(rows_with({"a1": "x", "b1": "X", "c1": "X", "d1": "X", "h8": "O"}))
    _, _, _, _, info = play(env, "e1")
    assert status_of(env, "a1") == CAPTURED  # rescued: captured for black with the run
    assert info["scores"][0].tolist() == [5, 0]


def test_a_loser_run_of_recapturable_stones_cannot_win_through_captured_stones():
    # a captured black stone in the middle: four + captured + ... is not a five
    env = board9(rows_with({"a1": "X", "b1": "X", "c1": "B", "d1": "X", "i9": "O"}))
    _, _, terminated, _, info = play(env, "e1")
    assert info["casts"][0] == 0 and not terminated[0]


def test_one_and_two_cell_sieges():
    one = {n: "X" for n in ("d4", "e4", "f4", "d5", "f5", "d6", "e6", "f6")}
    env = board9(rows_with({**one, "a9": "O"}))
    assert siege_of(env, "e5") == 1  # breakable: its walls are live
    two = {n: "X" for n in ("c4", "d4", "e4", "f4", "c5", "f5", "c6", "d6", "e6", "f6")}
    env = board9(rows_with({**two, "a9": "O"}))
    assert siege_of(env, "d5") == 1 and siege_of(env, "e5") == 1
    assert siege_of(env, "a8") == 0


def test_a_solid_siege_is_refused_to_the_opponent():
    walls = {n: "B" for n in ("d4", "e4", "f4", "d5", "f5", "d6", "e6", "f6")}
    env = board9(rows_with({**walls, "a9": "O", "b9": "X"}), to_play="white")
    assert siege_of(env, "e5") == 3
    assert not env.action_masks()[0, cell(env, "e5")]
    with pytest.raises(ValueError, match="inside a solid siege of the opponent"):
        play(env, "e5")
    env2 = board9(rows_with({**walls, "a9": "O", "b9": "X"}), to_play="black")
    assert env2.action_masks()[0, cell(env2, "e5")]  # the owner may play there
    play(env2, "e5")
    assert status_of(env2, "e5") == LIVE | SAFE


def test_a_breakable_siege_is_broken_by_the_opponent():
    two = {n: "X" for n in ("c4", "d4", "e4", "f4", "c5", "f5", "c6", "d6", "e6", "f6")}
    env = board9(rows_with({**two, "a9": "O", "b9": "O"}), to_play="black")
    play(env, "d5")  # black plays in its own siege: a safe stone
    assert status_of(env, "d5") == LIVE | SAFE
    play(env, "e5")  # white breaks the siege
    assert siege_of(env, "e5") == 0 and siege_of(env, "d5") == 0
    assert status_of(env, "d5") == LIVE  # no longer safe


def test_a_safe_stone_scores_for_its_owner_when_the_other_seat_wins_the_cast():
    siege = {n: "X" for n in ("d4", "e4", "f4", "d5", "f5", "d6", "e6", "f6")}
    white_run = {"a9": "O", "b9": "O", "c9": "O", "d9": "O"}
    env = board9(rows_with({**siege, **white_run, "i1": "X"}), to_play="black")
    play(env, "e5")  # safe
    _, _, _, _, info = play(env, "e9")  # white's five
    assert status_of(env, "e5") == CAPTURED
    assert info["scores"][0].tolist() == [1, 5]  # the safe stone for black, the run for white


def test_game_end_the_other_seat_wins_the_unfinished_cast():
    """After black's move white has no legal cell (the last empty cell is in a
    solid black siege) but black has: black wins the unfinished cast, the game
    ends, points decide."""
    rows = rows_with(
        {"a1": ".", "a2": "B", "b1": "B", "b2": "B", "e5": ".", "d5": "B"}, size=5, fill="W"
    )
    env = board9(rows, to_play="black", scores=(12, 11), size=5)
    assert siege_of(env, "a1") == 3
    _, reward, terminated, _, info = play(env, "e5")
    assert terminated[0] and info["winner"][0] == 0 and reward[0] == 1.0
    assert info["casts"][0] == 1 and info["cast_points"][0].tolist() == [0, 0]


def test_game_end_mirrored_for_white():
    rows = rows_with(
        {"a1": ".", "a2": "W", "b1": "W", "b2": "W", "e5": ".", "d5": "W"}, size=5, fill="B"
    )
    env = board9(rows, to_play="white", scores=(11, 12), size=5)
    _, reward, terminated, _, info = play(env, "e5")
    assert terminated[0] and info["winner"][0] == 1 and reward[0] == 1.0
    assert info["casts"][0] == 1


def test_game_end_neither_can_move_and_equal_points_is_a_draw():
    rows = rows_with({"e5": ".", "d5": "B"}, size=5, fill="W")
    env = board9(rows, to_play="black", scores=(12, 12), size=5)
    _, reward, terminated, _, info = play(env, "e5")
    assert terminated[0] and info["winner"][0] == -1
    assert reward[0] == 0.0 and info["rewards"][0].tolist() == [0.0, 0.0]
    assert info["casts"][0] == 0  # the cast is drawn: nothing resolved, nothing scored


def test_points_reward_mode_pays_points_as_scored():
    env = board9(rows_with({**RUN, "i9": "O"}), reward_mode="points")
    _, reward, _, _, info = play(env, "e1")
    assert reward[0] == 5.0 and info["rewards"][0].tolist() == [5.0, 0.0]
    _, reward, _, _, info = play(env, "i8")
    assert info["rewards"][0].tolist() == [0.0, 0.0]


def test_observation_planes():
    walls = {n: "B" for n in ("d4", "e4", "f4", "d5", "f5", "d6", "e6", "f6")}
    env = board9(rows_with({**walls, "a9": "o", "b9": "X"}), to_play="black")
    g = env.pool.groups["gomorpion"]
    planes = env.planes
    obs = g.obs[0]
    assert obs[planes.index("black_captured")].sum() == 8
    assert obs[planes.index("white_recapturable")][0, 0] == 1
    assert obs[planes.index("black_siege_solid")][4, 4] == 1
    np.testing.assert_array_equal(obs[planes.index("legal")].reshape(-1), g.mask[0])
    play(env, "e5")
    assert g.obs[0][planes.index("safe")][4, 4] == 1
    # the siege plane keeps the safe stone's cell while the siege holds
    assert g.obs[0][planes.index("black_siege_solid")][4, 4] == 1


def test_the_docs_capture_example_replays():
    """docs/gomorpion.md's diagram: black plays e1; the boards and the score
    it shows are what the engine does."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "gomorpion.md").read_text()
    block = text.split("before black plays e1")[1].split("```")[0]
    before, after = rows_with({}), rows_with({})
    for line in block.splitlines():
        found = re.findall(r"(\d) ((?:[.XOBWxo] ){8}[.XOBWxo])", line)
        for board, (row, cells) in zip((before, after), found, strict=False):
            board[9 - int(row)] = cells.replace(" ", "")  # left: before, right: after
    assert sum(r.count("X") for r in before) == 8  # f6 included
    env = board9(before)
    play(env, "e1")
    board = env.board(0)
    shown = env.render_env(0, "ansi").replace("(", " ").replace(")", " ")
    for row in range(9):
        assert after[row] == shown.splitlines()[row + 1][3:20].replace(" ", "")
    stated = re.search(r"Black scores (\d+) : (\d+) for the\s+cast", text)
    assert stated and board["scores"] == (int(stated[1]), int(stated[2])) == (6, 0)


def test_statuses_are_gomorpion_only():
    env = fiverow.make_vec("freestyle", num_envs=1, seed=0, size=9)
    env.reset()
    with pytest.raises(ValueError, match="gomorpion"):
        env.load_position(0, rows_with({"a1": "x"}))


def test_gomorpion_needs_a_plane_and_sane_parameters():
    with pytest.raises(ValueError, match="plane"):
        fiverow.make_vec("gomorpion", geometry="torus")
    with pytest.raises(ValueError, match="4 or 8"):
        fiverow.make_vec("gomorpion", neighbourhood=6)
    with pytest.raises(ValueError, match="exceeds the 4 neighbours"):
        fiverow.make_vec("gomorpion", neighbourhood=4, capture_threshold=5)
    with pytest.raises(ValueError, match="no effect with rule='freestyle'"):
        fiverow.make_vec("freestyle", capture_threshold=3)


# ---- random play ----


@pytest.mark.parametrize("size,neighbourhood", [(9, 8), (7, 4), (13, 8)])
def test_random_play_properties(size, neighbourhood):
    env = fiverow.make_vec(
        "gomorpion",
        num_envs=24,
        seed=size,
        size=size,
        neighbourhood=neighbourhood,
        capture_threshold=min(4, neighbourhood),
    )
    env.reset()
    g = env.pool.groups["gomorpion"]
    ended = 0
    for _ in range(300):
        actions = env.sample_legal().copy()
        for i in range(env.num_envs):
            b = env.board(i)
            siege = np.frombuffer(b["siege"], dtype=np.uint8)
            if b["status"] == 0:  # no stone goes into a solid opposing siege
                solid_theirs = 4 if b["colour"] == 0 else 3
                assert siege[actions[i]] != solid_theirs
        _, _, terminated, truncated, info = env.step(actions)
        for i in range(env.num_envs):
            b = env.board(i)
            captured = int((np.frombuffer(b["stone_status"], dtype=np.uint8) & 3 == 2).sum())
            assert sum(b["scores"]) == captured  # total points equal captured stones
        assert not truncated.any()
        ended += int(terminated.sum())
    assert ended > 0
    stats = env.rollout(size * size * 4)  # every game ends well before the board's cells run out
    assert stats["truncations"] == 0 and stats["episodes"] >= env.num_envs
    assert g.scores.min() >= 0


def test_full_size_games_end():
    env = fiverow.make_vec("gomorpion", num_envs=64, seed=1)
    env.reset()
    stats = env.rollout(1800)
    assert stats["episodes"] >= 64 and stats["truncations"] == 0
