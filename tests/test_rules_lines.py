"""Line rules (SPEC section 3) against the shared test vectors."""

from __future__ import annotations

import numpy as np
import pytest

import fiverow

from conftest import load_json, play_on, single_board

CARO_CONVENTIONS = {
    "seed_doc": "open",
    "carochess_code": "not_both_blocked",
    "gomocup5": "gomocup",
    "gomocup6": "gomocup6",
}
CARO_CASES = load_json("caro_vectors.json")["cases"]


@pytest.mark.parametrize("source,convention", sorted(CARO_CONVENTIONS.items()))
@pytest.mark.parametrize("case", CARO_CASES, ids=[c["name"][:40] for c in CARO_CASES])
def test_caro_vectors(case, source, convention):
    env = single_board("caro", caro_ends=convention)
    row, col = case["move_X"]
    terminated, winner = play_on(env, case["board"], row * 15 + col, "black")
    expected = case["wins"][source]
    assert terminated == expected
    assert winner == (0 if expected else -1)


EXTRACTED_RULES = {
    "FREESTYLE": {"rule": "freestyle"},
    "STANDARD": {"rule": "standard"},
    "CARO5": {"rule": "caro", "caro_ends": "gomocup"},
    "CARO6": {"rule": "caro", "caro_ends": "gomocup6"},
}


def _extracted_outcomes():
    suites = load_json("tests_extracted.json")["alphagomoku"]
    for test in suites:
        board = list(test["board"])
        for k, op in enumerate(test["ops"]):
            if op["op"] == "add_move":
                r, c = op["rc"]
                board[r] = board[r][:c] + op["stone"] + board[r][c + 1 :]
            elif op["op"] == "undo_move":
                r, c = op["rc"]
                board[r] = board[r][:c] + "." + board[r][c + 1 :]
            elif op["op"] == "outcome" and op["rule"] in EXTRACTED_RULES:
                yield pytest.param(list(board), op, id=f"{test['suite']}.{test['name']}.{k}")


@pytest.mark.parametrize("board,op", list(_extracted_outcomes()))
def test_extracted_outcomes(board, op):
    """AlphaGomoku's freestyle / standard / caro5 / caro6 outcome checks."""
    env = single_board("freestyle", **{"rule": "freestyle"} | EXTRACTED_RULES[op["rule"]])
    colour = "black" if op["stone"] == "X" else "white"
    row, col = op["rc"]
    terminated, winner = play_on(env, board, row * 15 + col, colour)
    expected = {"CROSS_WIN": 0, "CIRCLE_WIN": 1, "UNKNOWN": -1}[op["expect"]]
    assert winner == expected
    assert terminated == (expected != -1)


def test_extracted_outcomes_cover_every_rule():
    rules = {p.values[1]["rule"] for p in _extracted_outcomes()}
    assert rules == set(EXTRACTED_RULES)
    assert len(list(_extracted_outcomes())) == 69


SCENARIOS = load_json("caro_chess_engine_scenarios.json")["scenarios"]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["name"] for s in SCENARIOS])
def test_caro_chess_engine_scenarios(scenario):
    env = single_board(scenario["rule"])
    expected = scenario["expected"]
    moves = scenario["moves"]
    for k, move in enumerate(moves):
        x, y = move["x"], move["y"]
        last = k == len(moves) - 1
        inside = 0 <= x < 15 and 0 <= y < 15
        if last and expected.get("lastMoveFailed"):
            action = y * 15 + x if inside else 15 * 15 + 1000
            before = env.get_state(0)
            with pytest.raises(ValueError):
                env.step(np.array([action]))
            assert env.get_state(0) == before
            return
        _, _, terminated, _, info = env.step(np.array([y * 15 + x]))
    assert bool(terminated[0]) == expected["isGameOver"]
    assert int(info["winner"][0]) == (0 if expected["winner"] == "X" else -1)
    line = {(p["y"], p["x"]) for p in expected.get("winningLine", [])}
    cells = env.board(0)["cells"]
    assert all(cells[r, c] == 1 for r, c in line)


def test_every_axis_wins_in_freestyle():
    """A five along each of the four axes of the square board wins."""
    env = single_board("freestyle")
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        rows = [["."] * 15 for _ in range(15)]
        for k in range(4):
            rows[5 + dr * k][7 + dc * k] = "X"
        for k in range(4):
            rows[12][k] = "O"
        cell = (5 + dr * 4) * 15 + 7 + dc * 4
        assert play_on(env, ["".join(r) for r in rows], cell, "black") == (True, 0)


@pytest.mark.parametrize("rule,wins", [("freestyle", True), ("standard", False)])
def test_overline(rule, wins):
    env = single_board(rule)
    rows = ["." * 15] * 7 + ["XXX.XX" + "." * 9] + ["OOOO" + "." * 11] + ["." * 15] * 6
    assert play_on(env, rows, 7 * 15 + 3, "black") == (wins, 0 if wins else -1)


@pytest.mark.parametrize("connect", [3, 4, 6, 7])
def test_connect_parameter(connect):
    env = single_board("freestyle", connect=connect)
    rows = ["X" * (connect - 1) + "." * (16 - connect)] + ["." * 15] * 14
    assert play_on(env, rows, connect - 1, "black") == (True, 0)
    shorter = ["X" * (connect - 2) + "." * (17 - connect)] + ["." * 15] * 14
    assert play_on(env, shorter, connect - 2, "black") == (False, -1)


def test_full_board_is_a_draw():
    env = single_board({"preset": "freestyle", "size": 3, "connect": 3})
    env.load_position(0, ["XOX", "XOO", "OX."], to_play="black")
    _, reward, terminated, truncated, info = env.step(np.array([8]))
    assert terminated[0] and not truncated[0]
    assert info["winner"][0] == -1
    assert list(info["rewards"][0]) == [0.0, 0.0]
    assert reward[0] == 0.0


def test_max_steps_truncates():
    env = single_board("freestyle", max_steps=4)
    for action in (0, 20, 40, 60):
        _, reward, terminated, truncated, _ = env.step(np.array([action]))
    assert truncated[0] and not terminated[0] and reward[0] == 0.0


def test_center_protocol_first_stone_in_the_centre():
    env = single_board("freestyle", protocol="center")
    _, info = env.reset(seed=1)
    assert list(np.flatnonzero(info["action_mask"][0])) == [112]
    with pytest.raises(ValueError, match="centre"):
        env.step(np.array([0]))
    _, _, _, _, info = env.step(np.array([112]))
    assert info["action_mask"][0].sum() == 224


def test_rewards_go_to_the_winning_seat():
    env = single_board("freestyle")
    rows = ["." * 15] * 3 + ["OOOO" + "." * 11] + ["XXX" + "." * 12] + ["." * 15] * 10
    env.load_position(0, rows, to_play="white")
    _, reward, terminated, _, info = env.step(np.array([3 * 15 + 4]))
    assert terminated[0] and info["winner"][0] == 1
    assert list(info["rewards"][0]) == [-1.0, 1.0]
    assert reward[0] == 1.0  # the seat that acted won


def test_variants_lists_issue_presets():
    names = fiverow.variants()
    for name in ("freestyle", "standard", "caro", "strip", "torus"):
        assert name in names and names[name]
