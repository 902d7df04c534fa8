"""Hexagonal geometries (SPEC section 2, seed 003 sections 13-14): sizes, wrap
cycles, the bounce table 13A, tess translations, and five in a row on them."""

from __future__ import annotations

import numpy as np
import pytest

import fiverow
from fiverow.modlinseq import axial_of, cell_of

import reference


def hexenv(**kw) -> fiverow.FiverowVectorEnv:
    env = fiverow.make_vec("hex", num_envs=1, seed=0, autoreset_mode="disabled", **kw)
    env.reset()
    return env


def walk(nxt, cell: int, od: int, steps: int) -> list[tuple[int, int]]:
    out = []
    for _ in range(steps):
        cell, od = nxt[cell][od]
        out.append((cell, od))
    return out


@pytest.mark.parametrize("order", [2, 3, 4, 5, 6, 7])
def test_hex_sizes(order):
    env = hexenv(order=order)
    g = env.pool.groups["hex"]
    assert (g.height, g.width) == (2 * order + 1, 2 * order + 1)
    assert int(g.on_board.sum()) == 3 * order * order + 3 * order + 1
    assert env.planes[-1] == "on_board"


@pytest.mark.parametrize("order,cells", [(2, 49), (3, 133), (4, 259)])
def test_tess_sizes(order, cells):
    env = hexenv(geometry="tess", order=order)
    assert int(env.pool.groups["hex"].on_board.sum()) == cells


def line_cycle_lengths(env) -> set[int]:
    nxt = reference.next_table(env)
    on = env.pool.groups[env.config.name].on_board.reshape(-1)
    lengths = set()
    for c in np.flatnonzero(on):
        for od in range(0, len(nxt[c]), 2):
            x, d, n = int(c), od, 0
            while True:
                x, d = nxt[x][d]
                n += 1
                if x == c or n > 400:
                    break
            lengths.add(n)
    return lengths


def test_wrap_lines_are_cycles_of_7_to_13_cells_on_order_6():
    """Section 13-1: on the order-6 board with wrap, straight-line loops hold 7 to 13."""
    assert line_cycle_lengths(hexenv(order=6, edge="wrap")) == set(range(7, 14))


def test_tess2_lines_are_49_cycles():
    assert line_cycle_lengths(hexenv(geometry="tess", order=2)) == {49}


def test_tess2_translations_match_the_seed():
    """Section 14: pseudocell B10 is right of M4, and pseudocell M4 left of B10."""
    env = hexenv(geometry="tess", order=2)
    nxt = reference.next_table(env)
    r = 4  # the raster radius of tess-2
    assert nxt[cell_of("M4", r)][0][0] == cell_of("B10", r)
    assert nxt[cell_of("B10", r)][1][0] == cell_of("M4", r)


def bounce_walk(start: str, od: int, steps: int, order: int = 5) -> list[str]:
    from fiverow.modlinseq import address

    env = hexenv(order=order, edge="bounce")
    nxt = reference.next_table(env)
    return [address(c, order) for c, _ in walk(nxt, cell_of(start, order), od, steps)]


def test_bounce_radius_case_retraces_from_the_corner():
    """Table 13A, radius: along a spoke the line reflects back over itself."""
    # T's spoke points down: direction (0, -1) is oriented direction 3
    assert bounce_walk("T2", 3, 7) == ["T4", "T7", "T11", "T7", "T4", "T2", "T1"]


def test_bounce_perimeter_case_turns_at_the_corner():
    """Table 13A, perimeter: along an edge the line bends at the corner."""
    # along the top edge eastwards (direction (1, 0), oriented 0): E14 E15 H11, then
    # the upper-right edge H12 H13 ...
    assert bounce_walk("E14", 0, 4) == ["E15", "H11", "H12", "H13"]


def test_bounce_non_corner_case_reflects_not_back():
    """Table 13A, non-corner: the line reflects into the interior, another way."""
    env = hexenv(order=5, edge="bounce")
    nxt = reference.next_table(env)
    start = 5 * 11 + 5 - 11 * 2 + 1  # axial (1, 2): row 5 - 2, col 1 + 5
    assert axial_of("H12") == (1, 4)
    steps = walk(nxt, start, 2, 4)  # up along b: (1, 3), (1, 4) on the rim, then ...
    cells = [c for c, _ in steps]
    assert cells[1] == cell_of("H12", 5)
    assert steps[2][1] not in (2, 3)  # neither onwards nor straight back
    assert cells[2] != cells[0]


@pytest.mark.parametrize(
    "axis_cells",
    [
        ("A0", "M1", "M2", "M4", "M7"),
        ("A0", "H1", "H2", "H4", "H7"),
        ("A0", "P1", "P2", "P4", "P7"),
    ],
)
def test_five_along_each_axis_wins(axis_cells):
    env = hexenv()
    rows = np.zeros((15, 15), dtype=np.int64)
    for name in axis_cells[:4]:
        c = cell_of(name, 7)
        rows.reshape(-1)[c] = 1
    rows.reshape(-1)[cell_of("T20", 7)] = 2
    rows.reshape(-1)[cell_of("T21", 7)] = 2
    rows.reshape(-1)[cell_of("B20", 7)] = 2
    rows.reshape(-1)[cell_of("B21", 7)] = 2
    env.load_position(0, rows, to_play="black")
    _, _, terminated, _, info = env.step(np.array([cell_of(axis_cells[4], 7)]))
    assert terminated[0] and info["winner"][0] == 0


def test_bounce_retrace_never_counts_a_stone_twice():
    """Black on T7 and the corner T11 of an order-5 bounce board: T4 makes a run of
    three distinct stones (counted with the retrace it would be five)."""
    env = hexenv(order=5, edge="bounce")
    rows = np.zeros((11, 11), dtype=np.int64)
    for name in ("T7", "T11"):
        rows.reshape(-1)[cell_of(name, 5)] = 1
    for name in ("B15", "E15"):
        rows.reshape(-1)[cell_of(name, 5)] = 2
    env.load_position(0, rows, to_play="black")
    _, _, terminated, _, _ = env.step(np.array([cell_of("T4", 5)]))
    assert not terminated[0]


def test_wrap_wins_across_the_seam():
    env = hexenv(order=4, edge="wrap")
    rows = np.zeros((9, 9), dtype=np.int64)
    # the middle row of order 4 is B7 B4 B2 B1 A0 M1 M2 M4 M7, and wraps M7 -> B7
    for name in ("M4", "M7", "B7", "B4"):
        rows.reshape(-1)[cell_of(name, 4)] = 1
    rows.reshape(-1)[cell_of("T9", 4)] = 2
    rows.reshape(-1)[cell_of("T10", 4)] = 2
    rows.reshape(-1)[cell_of("P9", 4)] = 2
    rows.reshape(-1)[cell_of("P10", 4)] = 2
    env.load_position(0, rows, to_play="black")
    _, _, terminated, _, info = env.step(np.array([cell_of("M2", 4)]))
    assert terminated[0] and info["winner"][0] == 0  # M2 M4 M7 | B7 B4 across the wrap


def test_hex_refuses_what_it_cannot_play():
    with pytest.raises(ValueError, match="renju"):
        fiverow.make_vec("hex", rule="renju")
    with pytest.raises(ValueError, match="tess-2, tess-3, tess-4"):
        fiverow.make_vec("hex", geometry="tess", order=5)
    with pytest.raises(ValueError, match="'edge' has no effect with geometry='plane'"):
        fiverow.make_vec("freestyle", edge="wrap")
    with pytest.raises(ValueError, match="'size' has no effect with geometry='hex'"):
        fiverow.make_vec("hex", size=9)


def test_hex_render_and_names():
    env = hexenv(order=3)
    env.step(np.array([cell_of("A0", 3)]))
    assert env.action_name(cell_of("M2", 3)) == "M2"
    text = env.render_env(0, "ansi")
    assert "(X)" in text and text.count("\n") == 7
    image = env.render_env(0, "rgb_array")
    assert image.ndim == 3 and image.dtype == np.uint8
