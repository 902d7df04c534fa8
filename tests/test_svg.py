"""SVG boards: every preset draws as valid SVG with one disc per stone; renju's
forbidden points, winning lines on wrapping geometries, move numbers."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

import fiverow
from fiverow import players
from fiverow.render.svg import BLACK, WHITE, winning_line

NS = "{http://www.w3.org/2000/svg}"


def parse(text):
    root = ET.fromstring(text)
    assert root.tag == f"{NS}svg"
    return root


def discs(root, colour):
    return [c for c in root.iter(f"{NS}circle") if c.get("fill") == colour]


def titles(root):
    return [t.text or "" for t in root.iter(f"{NS}title")]


def played(name, moves, seed=3, **overrides):
    env = fiverow.make_vec(name, 1, seed=seed, autoreset_mode="disabled", **overrides)
    env.reset()
    player = players.make("heuristic(epsilon=0.3)")
    for _ in range(moves):
        if env.board(0)["status"] != 0:
            break
        env.step(player.act(env))
    return env


@pytest.mark.parametrize("name", fiverow.preset_names())
def test_every_preset_draws(name):
    env = played(name, 30)
    board = env.board(0)
    root = parse(fiverow.render.svg(env))
    if name == "modlinseq":
        tiles = np.frombuffer(board["tiles"], dtype=np.uint8)
        assert len(root.findall(f".//{NS}polygon")) >= int((tiles > 0).sum())
        return
    assert len(discs(root, BLACK)) == int((board["cells"] == 1).sum())
    assert len(discs(root, WHITE)) == int((board["cells"] == 2).sum())


def test_hexagonal_boards_have_one_hexagon_per_cell():
    for overrides in ({}, {"edge": "wrap"}, {"geometry": "tess", "order": 2}):
        env = played("hex", 5, **overrides)
        root = parse(fiverow.render.svg(env))
        on_board = int((env.board(0)["cells"] != 3).sum())
        assert len(root.findall(f".//{NS}polygon")) == on_board


def test_renju_forbidden_points_are_marked_for_black_only():
    rows = ["." * 15 for _ in range(15)]
    rows = [list(r) for r in rows]
    for r, c in ((7, 5), (7, 6), (5, 7), (6, 7)):  # h8 is a double-three for black
        rows[r][c] = "X"
    for r, c in ((0, 0), (0, 14), (14, 0), (14, 14)):
        rows[r][c] = "O"
    position = ["".join(r) for r in rows]
    env = fiverow.make("renju")
    env.reset(seed=0)
    env.vector_env.load_position(0, position)
    expected = fiverow.renju.forbidden_points(position)
    assert expected.get((7, 7)) == "double-three"
    marks = [t for t in titles(parse(env._repr_svg_())) if t.startswith("forbidden")]
    assert len(marks) == len(expected) and "forbidden: double-three" in marks
    env.vector_env.load_position(0, position, to_play="white")
    assert not [t for t in titles(parse(fiverow.render.svg(env))) if t.startswith("forbidden")]
    off = fiverow.render.svg(env.vector_env, forbidden=False)
    assert "forbidden" not in off


def five_after(name, rows, cell, **overrides):
    env = fiverow.make_vec(name, 1, seed=0, autoreset_mode="disabled", **overrides)
    env.reset()
    env.load_position(0, rows)
    env.step(np.array([cell]))
    assert env.board(0)["winner"] == 0
    return env


def ringed(root):
    return [c for c in root.iter(f"{NS}circle") if c.get("stroke-width") == "3"]


def test_winning_line_on_a_torus_wraps():
    rows = ["." * 9 for _ in range(9)]
    rows[4] = "XX....XX."  # black h5 joins i5 .. b5 around the edge
    rows[0] = "OOOO....."
    env = five_after("torus", rows, 4 * 9 + 8, size=9)
    line = winning_line(env.board(0), env.config)
    assert line == [36, 37, 42, 43, 44]
    assert len(ringed(parse(fiverow.render.svg(env)))) == 5


def test_winning_line_on_a_plane_and_a_hexagon():
    rows = ["." * 9 for _ in range(9)]
    for r in range(4):
        rows[r] = "." * r + "X" + "." * (8 - r)
    rows[8] = "OOOO....."
    env = five_after("freestyle", rows, 4 * 9 + 4, size=9)
    assert winning_line(env.board(0), env.config) == [0, 10, 20, 30, 40]
    for overrides in ({}, {"edge": "wrap"}):  # games that end in a five (seed 5)
        env = played("hex", 400, seed=5, **overrides)
        board = env.board(0)
        assert board["winner"] >= 0
        line = winning_line(board, env.config)
        assert len(line) == 5 and board["last_move"] in line


def test_numbers_and_repr():
    env = fiverow.make("freestyle", size=9)
    assert env._repr_svg_() is None  # not reset yet: Jupyter falls back to text
    env.reset(seed=0)
    for cell in (40, 41, 31):
        env.step(cell)
    root = parse(fiverow.render.svg(env, numbers=[40, 41, 31]))
    numbers = sorted(t.text for t in root.iter(f"{NS}text") if t.get("class") == "num")
    assert numbers == ["1", "2", "3"]
    with pytest.raises(TypeError, match="fiverow env"):
        fiverow.render.svg(object())
