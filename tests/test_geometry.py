"""Geometries (SPEC section 2): strip windows and wraps, torus cycles, and an
alignment test of every geometry and line rule against a slow reference."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import fiverow

import reference
from conftest import load_json, play_on, single_board

WRAP1D = load_json("wrap1d_vectors.json")


def _strip_rows(black: list[int], width: int = 10, height: int = 10) -> list[str]:
    cells = ["."] * (width * height)
    for c in black:
        cells[c] = "X"
    # a few white stones far from the action keep the position legal for black to move
    return ["".join(cells[r * width : (r + 1) * width]) for r in range(height)]


@pytest.mark.parametrize("vector", WRAP1D["vectors"], ids=[v["name"] for v in WRAP1D["vectors"]])
def test_wrap1d_vectors(vector):
    rule = "standard" if vector["exact_five_rule"] else "freestyle"
    env = single_board("strip", rule=rule)
    terminated, winner = play_on(env, _strip_rows(vector["black_stones"]), vector["move"], "black")
    assert terminated == vector["wins"]
    assert winner == (0 if vector["wins"] else -1)


def test_strip_windows_per_stride():
    env = single_board("strip")
    windows = env.pool._batch.windows(0, 5)
    strides = collections.Counter(w[1] - w[0] for w in windows)
    assert {str(k): v for k, v in strides.items()} == WRAP1D["windows_per_stride"]
    assert len(windows) == WRAP1D["total_windows"] == 276
    for w in windows:  # every window is an arithmetic progression inside 0..99
        assert all(b - a == w[1] - w[0] for a, b in zip(w, w[1:], strict=False))
        assert 0 <= min(w) and max(w) <= 99


def test_plane_window_count():
    env = single_board("freestyle")
    # 11 * 15 per straight axis, 11 * 11 per diagonal axis
    assert len(env.pool._batch.windows(0, 5)) == 2 * 165 + 2 * 121


def test_torus_wraps_every_line():
    env = single_board("torus", size=8)
    rows = ["XX....XX"] + ["." * 8] * 7
    assert play_on(env, rows, 2, "black") == (True, 0)  # cols 6,7,0,1,2
    diag = [["."] * 8 for _ in range(8)]
    for k in (5, 6, 7, 0):  # (5,5) (6,6) (7,7) (0,0) then (1,1)
        diag[k][k] = "X"
    assert play_on(env, ["".join(r) for r in diag], 9, "black") == (True, 0)


@pytest.mark.parametrize("rule", ["freestyle", "standard"])
def test_torus_shorter_than_the_line_never_counts_twice(rule):
    """A 4-row torus: a full column is a 4-cycle of stones, a run of 4, not 5+."""
    env = single_board("torus", height=4, width=8, rule=rule)
    rows = ["X......."] * 3 + ["........"]
    assert play_on(env, rows, 3 * 8, "black") == (False, -1)
    # the same board does win along a row of 8
    assert play_on(env, ["XXXX...."] + ["." * 8] * 3, 4, "black") == (True, 0)


def test_torus_full_cycle_is_a_run_of_its_length():
    env = single_board("torus", height=5, width=8, rule="standard")
    rows = ["X......."] * 4 + ["........"]
    assert play_on(env, rows, 4 * 8, "black") == (True, 0)  # 5-cycle of stones: exactly 5
    env6 = single_board("torus", height=6, width=8, rule="standard")
    # a full 6-cycle is an overline, not a five: the position is not over (five
    # of its six stones would already be a five, so it is loaded whole)
    assert play_on(env6, ["X......."] * 6, 1, "white") == (False, -1)
    with pytest.raises(ValueError, match="already won"):
        env6.load_position(0, ["X......."] * 5 + ["........"], to_play="black")


ALIGN = [
    ("freestyle", {}),
    ("standard", {}),
    ("caro", {"caro_ends": "open"}),
    ("caro", {"caro_ends": "not_both_blocked"}),
    ("caro", {"caro_ends": "gomocup"}),
    ("caro", {"caro_ends": "gomocup6"}),
    ("strip", {}),
    ("strip", {"rule": "standard"}),
    ("torus", {}),
    ("torus", {"size": 7, "rule": "caro", "caro_ends": "gomocup6"}),
    ("torus", {"height": 9, "width": 12}),  # diagonal cycles of 36: not bit sets
    ("torus", {"height": 4, "width": 7, "rule": "standard"}),
    ("freestyle", {"size": 9, "connect": 4, "rule": "caro", "caro_ends": "not_both_blocked"}),
    ("hex", {}),
    ("hex", {"order": 5, "edge": "wrap"}),
    ("hex", {"order": 4, "edge": "bounce"}),
    ("hex", {"order": 4, "edge": "bounce", "rule": "standard"}),
    ("hex", {"order": 5, "edge": "wrap", "rule": "caro", "caro_ends": "gomocup6"}),
    ("hex", {"geometry": "tess", "order": 2}),
    ("hex", {"geometry": "tess", "order": 3, "rule": "standard"}),
]


@pytest.mark.parametrize("preset,overrides", ALIGN, ids=[f"{p}-{o}" for p, o in ALIGN])
def test_alignment_with_reference(preset, overrides):
    """Random self-play: after every move, the engine's verdict equals the reference's."""
    env = fiverow.make_vec(preset, num_envs=16, seed=11, **overrides)
    env.reset()
    params = env.config.params
    nxt = reference.next_table(env)
    reset_now = np.zeros(env.num_envs, dtype=bool)  # next-step autoreset: action ignored
    checked = wins = 0
    for _ in range(600):
        before = [env.board(i)["cells"].reshape(-1).astype(int).tolist() for i in range(16)]
        actions = env.sample_legal().copy()
        _, _, terminated, truncated, info = env.step(actions)
        for i in np.flatnonzero(~reset_now):
            cells = before[i]
            stone = 1 if cells.count(1) == cells.count(2) else 2
            cells[actions[i]] = stone
            expected = reference.wins(params, nxt, cells, int(actions[i]), stone)
            assert bool(terminated[i] and info["winner"][i] >= 0) == expected
            checked += 1
            wins += expected
        reset_now = terminated | truncated
    assert checked > 5000 and wins > 20
