"""``fiverow engine``: the Gomocup brain, line by line and as a process."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fiverow.engines import EngineServer
from fiverow.engines import protocol as P


def session(lines, player="heuristic", server=None):
    """Every answer line of a session (the server is returned too)."""
    server = server or EngineServer(player)
    out = []
    for line in lines:
        out.extend(server.handle(line))
    return out, server


def board_lines(own, theirs):
    return ["BOARD", *(f"{x},{y},1" for x, y in own), *(f"{x},{y},2" for x, y in theirs), "DONE"]


FAR = [(0, 8), (8, 8), (8, 0), (0, 6), (8, 4)]


def test_coordinates_are_column_then_row():
    # four in row y=2 (x = 1..4): the brain completes the five at x = 0 or x = 5
    out, _ = session(["START 9", *board_lines([(1, 2), (2, 2), (3, 2), (4, 2)], FAR[:4])])
    assert out in (["OK", "0,2"], ["OK", "5,2"])
    corners = [(0, 0), (11, 0), (0, 6), (11, 6)]
    out, _ = session(["RECTSTART 12,7", *board_lines([(9, 2), (9, 3), (9, 4), (9, 5)], corners)])
    assert out in (["OK", "9,1"], ["OK", "9,6"])


def test_colour_follows_the_stone_counts():
    # the brain has one stone fewer: it is white, and white's four is its win
    out, _ = session(["START 9", *board_lines([(2, 5), (3, 5), (4, 5), (5, 5)], FAR)])
    assert out in (["OK", "1,5"], ["OK", "6,5"])


def test_renju_overline_is_not_played():
    own = [(3, 7), (4, 7), (5, 7), (7, 7), (8, 7)]  # x = 6 would make six in a row
    theirs = [(0, 0), (14, 0), (0, 14), (14, 14), (0, 10)]
    out, _ = session(["START 15", "INFO rule 0", *board_lines(own, theirs)])
    assert out == ["OK", "6,7"]  # freestyle: the overline wins
    out, _ = session(["START 15", "INFO rule 4", *board_lines(own, theirs)])
    assert out[-1] != "6,7" and len(out) == 2  # renju: forbidden for black


def test_a_game_by_turns_then_takeback_and_restart():
    out, server = session(["START 15", "INFO rule 1", "BEGIN"])
    assert out == ["OK", "7,7"]  # the heuristic opens in the centre
    out, _ = session(["TURN 8,8"], server=server)
    x, y = map(int, out[0].split(","))
    assert server.cells[y, x] == 1 and server.cells[8, 8] == 2 and server.cells[7, 7] == 1
    assert session([f"TAKEBACK {x},{y}", "TAKEBACK 8,8"], server=server)[0] == ["OK", "OK"]
    assert server.cells.sum() == 1
    assert session(["RESTART"], server=server)[0] == ["OK"] and not server.cells.any()
    assert session(["BEGIN"], server=server)[0] == ["7,7"]


def test_play_imposes_a_move():
    out, server = session(["START 9", "PLAY 4,4"])
    assert out == ["OK", "4,4"] and server.cells[4, 4] == 1


@pytest.mark.parametrize(
    "lines,error",
    [
        (["BEGIN"], "ERROR BEGIN before START"),
        (["START 40"], "ERROR unsupported size 40x40"),
        (["START 4"], "ERROR unsupported size 4x4"),
        (["START 9", "TURN 9,0"], "ERROR 9,0 is off the 9x9 board"),
        (["START 9", "TURN 4,4", "TURN 4,4"], "ERROR 4,4 is occupied"),
        (["START 9", "TAKEBACK 1,1"], "ERROR TAKEBACK 1,1: there is no stone there"),
        (["START 9", "BOARD", "1,1,1", "2,2,1", "DONE"], "ERROR impossible position: 2 own"),
        (["START 9", "BOARD", "1,1,1", "1,1,2", "DONE"], "ERROR BOARD lists 1,1 twice"),
        (["START 9", "BOARD", "1,1,3", "DONE"], "ERROR BOARD field 3"),
        (["START 9", "BOARD", "1,1,7", "DONE"], "ERROR BOARD field must be 1"),
        (["START 9", "BOARD", "1,1", "DONE"], "ERROR BOARD: a line is not x,y,field"),
        (["START 9", "PLAY 4,4", "BEGIN"], "ERROR BEGIN on a board with stones"),
        (["INFO timeout_turn soon"], "ERROR INFO timeout_turn needs a whole number"),
        (["INFO rule 12"], "ERROR INFO rule 12 asks for renju (4) and caro (8)"),
        (["INFO rule 99"], "ERROR INFO rule is a sum of 1, 2, 4 and 8"),
        (["START 9", "SWAP2BOARD", "1,1", "DONE"], "ERROR SWAP2BOARD takes 0, 3 or 5 stones"),
        (["HELLO"], "UNKNOWN unknown command 'HELLO'"),
    ],
)
def test_errors_are_answered_and_the_brain_goes_on(lines, error):
    out, server = session(lines)
    assert out[-1].startswith(error), out
    assert session(["START 9", "BEGIN"], server=server)[0] == ["OK", "4,4"]


def test_info_keys_are_kept_or_ignored():
    out, server = session(
        [
            "INFO timeout_turn 1000",
            "INFO timeout_match 60000",
            "INFO time_left 30000",
            "INFO max_memory 83886080",
            "INFO game_type 1",
            "INFO folder /tmp",
            "INFO evaluate 3,4",
            "INFO whatever 1",
            "INFO rule 9",
        ]
    )
    assert out == []
    assert (server.time.turn_ms, server.time.match_ms, server.time.left_ms) == (1000, 60000, 30000)
    assert server.rule == 9
    assert server.time.budget_ms() == 1000  # min(timeout_turn, time_left / 25)


def test_about():
    out, _ = session(["ABOUT"], player="mcts:50")
    assert out[0].startswith('name="fiverow"') and 'player="mcts:50"' in out[0]


def test_end():
    out, server = session(["START 9", "END"])
    assert out == ["OK"] and server.ended


def test_swap2_decisions():
    out, server = session(["START 15", "SWAP2BOARD", "DONE"])
    stones = P.parse_answer(out[-1]).moves
    assert len(stones) == 3 and len(set(stones)) == 3
    assert int((server.cells == 1).sum()) == 2 and int((server.cells == 2).sum()) == 1
    opening = ["7,7", "8,7", "9,9"]
    out, server = session(["START 15", "SWAP2BOARD", *opening, "DONE"])
    answer = P.parse_answer(out[-1])
    assert answer.swap or len(answer.moves) in (1, 2), out
    assert not any(f"{x},{y}" in opening for x, y in answer.moves)
    out, server = session(["START 15", "SWAP2BOARD", *opening, "8,8", "8,6", "DONE"])
    answer = P.parse_answer(out[-1])
    assert answer.swap or len(answer.moves) == 1, out
    out, _ = session(["START 15", "SWAP2BOARD", "7,7", "7,7", "9,9", "DONE"])
    assert out == ["OK", "ERROR SWAP2BOARD lists 7,7 twice"]


def test_mcts_scales_its_simulations_to_the_time():
    out, server = session(
        ["START 15", "INFO timeout_turn 200", "BOARD", "7,7,2", "DONE"], player="mcts:200000"
    )
    assert out[-1].count(",") == 1
    notes = [line for line in out if line.startswith("MESSAGE")]
    assert notes and "of 200000 simulations" in notes[0], out
    # without a limit nothing is scaled (a small search, so that the test stays fast)
    out, _ = session(["START 9", "BOARD", "4,4,2", "DONE"], player="mcts:30")
    assert len(out) == 2 and out[0] == "OK"


COMMANDS = st.sampled_from(
    [
        "START 9",
        "START 40",
        "RECTSTART 9,7",
        "BEGIN",
        "RESTART",
        "INFO rule 4",
        "INFO rule 9",
        "INFO rule 1",
        "ABOUT",
        "BOARD",
        "DONE",
        "SWAP2BOARD",
        "END",
    ]
)
POINTS = st.builds(
    lambda x, y, f: f"{x},{y},{f}", st.integers(0, 10), st.integers(0, 10), st.integers(0, 3)
)
MOVES = st.builds(
    lambda w, x, y: f"{w} {x},{y}",
    st.sampled_from(["TURN", "TAKEBACK", "PLAY"]),
    st.integers(0, 10),
    st.integers(0, 10),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(COMMANDS, POINTS, MOVES, st.text(max_size=12)), max_size=25))
def test_no_line_sequence_crashes_the_brain(lines):
    server = EngineServer("random")
    for line in lines:
        out = server.handle(line)
        assert all(isinstance(x, str) and "\n" not in x for x in out)
        assert not any(x.startswith("ERROR internal error") for x in out), (line, out)


def test_the_engine_command_speaks_on_pipes():
    """``fiverow engine`` as a manager runs it: lines in, lines out, bytes that
    are not UTF-8 answered with an error, END ends the process."""
    proc = subprocess.run(
        [sys.executable, "-m", "fiverow", "engine", "--player", "heuristic"],
        input=b"START 9\r\nINFO rule 1\r\n\xff\xfe\r\nBEGIN\r\nTURN 3,3\r\nABOUT\r\nEND\r\n",
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.decode().splitlines()
    assert lines[0] == "OK" and lines[1].startswith("UNKNOWN") and lines[2] == "4,4"
    assert P.parse_answer(lines[3]).moves and lines[4].startswith('name="fiverow"')
    assert len(lines) == 5


def test_only_built_in_players_are_brains():
    with pytest.raises(ValueError, match="built-in player"):
        EngineServer("gomocup:some-brain")
