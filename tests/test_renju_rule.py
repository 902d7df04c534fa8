"""Renju forbidden moves (SPEC section 4) against every shared renju vector."""

from __future__ import annotations

import re

import numpy as np
import pytest

from fiverow.renju import forbidden_points

from conftest import DATA, load_json, play_on, single_board

EXTRACTED = load_json("tests_extracted.json")


def _set(board: list[str], rc: list[int], ch: str) -> list[str]:
    r, c = rc
    out = list(board)
    out[r] = out[r][:c] + ch + out[r][c + 1 :]
    return out


def _alphagomoku_renju_ops():
    for test in EXTRACTED["alphagomoku"]:
        if test["rule"] != "RENJU":
            continue
        board = list(test["board"])
        for k, op in enumerate(test["ops"]):
            name = f"{test['name']}.{k}"
            if op["op"] == "add_move":
                board = _set(board, op["rc"], op["stone"])
            elif op["op"] == "undo_move":
                board = _set(board, op["rc"], ".")
            else:
                yield pytest.param(list(board), op, id=name)


RENJU_OPS = list(_alphagomoku_renju_ops())


@pytest.mark.parametrize("board,op", RENJU_OPS)
def test_alphagomoku_renju(board, op):
    r, c = op["rc"]
    if op["op"] == "is_forbidden" and op["stone"] == "X":
        assert ((r, c) in forbidden_points(board)) == op["expect"]
    elif op["op"] == "is_forbidden":  # white has no forbidden moves: the cell is in its mask
        env = single_board("renju", protocol="free")
        env.load_position(0, board, to_play="white")
        assert bool(env.action_masks()[0, r * 15 + c]) != op["expect"]
    else:  # outcome under renju: a black foul loses (forbidden="lose" plays it out)
        env = single_board("renju", forbidden="lose", protocol="free")
        colour = "black" if op["stone"] == "X" else "white"
        terminated, winner = play_on(env, board, r * 15 + c, colour)
        assert terminated
        assert winner == {"CROSS_WIN": 0, "CIRCLE_WIN": 1}[op["expect"]]


@pytest.mark.parametrize(
    "case", EXTRACTED["mintaka"], ids=[t["name"] for t in EXTRACTED["mintaka"]]
)
def test_mintaka_forbidden_maps(case):
    expected = {tuple(f["rc"]): f["kind"] for f in case["expected_forbidden_for_black"]}
    assert forbidden_points(case["board"]) == expected


def test_public_check_count():
    """2,579 public checks: AlphaGomoku's checks (its add / undo steps set up
    positions) plus every empty point of mintaka's boards."""
    ops = sum(
        op["op"] not in ("add_move", "undo_move")
        for t in EXTRACTED["alphagomoku"]
        for op in t["ops"]
    )
    points = sum(sum(row.count(".") for row in t["board"]) for t in EXTRACTED["mintaka"])
    assert ops + points == 2579


DERIVED = load_json("derived_renju_vectors.json")["cases"]


@pytest.mark.parametrize("case", DERIVED, ids=[c["name"] for c in DERIVED])
def test_derived_vectors(case):
    r, c = case["move_black"]
    assert forbidden_points(case["board"]).get((r, c)) == case["expected_kind"]


MAPS = load_json("random_forbidden_maps_seed1.json")["boards"]


@pytest.mark.parametrize("k", range(0, len(MAPS), 25))
def test_random_forbidden_maps(k):
    for case in MAPS[k : k + 25]:
        expected = {tuple(f["rc"]): f["kind"] for f in case["forbidden_for_black"]}
        assert forbidden_points(case["board"]) == expected


def _mintaka_document_boards():
    text = (DATA / "mintaka_documents_renju.md").read_text()
    marks = {"3": "double-three", "4": "double-four", "6": "overline"}
    for title, block in re.findall(r"## (.+?)\n```text\n(.+?)```", text, re.S):
        rows = [line for line in block.splitlines() if re.match(r"^\s*\d+ ", line)]
        board, expected = [], {}
        for r, line in enumerate(rows):
            cells = line.split()[1:16]
            for c, ch in enumerate(cells):
                if ch in marks:
                    expected[(r, c)] = marks[ch]
            board.append("".join("." if ch in marks else ch for ch in cells))
        yield pytest.param(board, expected, id=title)


DOCUMENT_BOARDS = list(_mintaka_document_boards())


@pytest.mark.parametrize("board,expected", DOCUMENT_BOARDS)
def test_mintaka_document_boards(board, expected):
    assert len(board) == 15 and all(len(r) == 15 for r in board)
    assert forbidden_points(board) == expected


def test_document_boards_found():
    assert len(DOCUMENT_BOARDS) == 5


def test_array_input_and_errors():
    board = np.zeros((15, 15), dtype=np.int64)
    board[7, [3, 5, 6, 9]] = 1
    assert forbidden_points(board) == {(7, 7): "double-four"}
    with pytest.raises(ValueError):
        forbidden_points(np.zeros(15))
    with pytest.raises(ValueError):
        forbidden_points(["X.Z"] * 3)
