"""``fiverow play``: a person on stdin against a player, moves as h8, undo, hint,
quit, illegal and forbidden moves explained."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np

import fiverow
from fiverow.cli.play import TerminalGame


def prompts(out: str) -> list[str]:
    """What the game said after each prompt (the board lines left out)."""
    said = []
    for chunk in out.split("> ")[1:]:
        first = chunk.splitlines()[0] if chunk else ""
        said.append(first)
    return said


class Scripted:
    """An opponent that plays the given cells, first legal one each turn."""

    name = "scripted"

    def __init__(self, cells):
        self.cells = list(cells)

    def act(self, env):
        mask = env.action_masks()[0]
        return np.array([next(c for c in self.cells if mask[c])])


def game(variant, opponent, lines, seat=0, rows=None, **overrides):
    env = fiverow.make_vec(variant, 1, seed=0, autoreset_mode="disabled", **overrides)
    env.reset()
    if rows is not None:
        env.load_position(0, rows)
    out = io.StringIO()
    code = TerminalGame(env, opponent, seat, io.StringIO("\n".join(lines) + "\n"), out).run()
    return code, out.getvalue()


def test_the_command_by_stdin():
    proc = subprocess.run(
        [sys.executable, "-m", "fiverow", "play", "--variant", "renju", "--opponent", "heuristic"],
        input="a1\nh8\nh8\nzz\nhint\nj10\nundo\nj9\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    said = prompts(out)
    assert said[0].startswith("a1: the first stone must go to the centre; try again")
    assert said[2] == "h8: occupied; try again"
    assert said[3].startswith("'zz' is not a move here")
    assert said[4].startswith("hint: ")
    assert "h8" in out and "    a b c d e f g h i j k l m n o" in out  # the board with coordinates
    assert out.rstrip().endswith("bye")
    assert out.count("white (heuristic) plays") == 3  # after h8, j10 (undone), j9


def test_forbidden_moves_are_explained():
    rows = [list("." * 15) for _ in range(15)]
    for r, c in ((7, 5), (7, 6), (5, 7), (6, 7)):  # h8: a double-three for black
        rows[r][c] = "X"
    for r, c in ((0, 0), (0, 14), (14, 0), (14, 14)):
        rows[r][c] = "O"
    code, out = game("renju", Scripted([1, 2, 3]), ["h8", "quit"], rows=["".join(r) for r in rows])
    assert code == 0
    assert prompts(out)[0] == "h8: forbidden: double-three; try again"


def test_a_game_to_the_end_as_white():
    # the opponent (black) plays every other cell of the top row; we make five on row 1
    black = Scripted([0, 2, 4, 6, 8, 18, 20])
    code, out = game("freestyle", black, ["a1", "b1", "c1", "d1", "e1"], seat=1, size=9)
    assert code == 0
    assert out.count("black (scripted) plays") == 5
    assert "the game is over: white (you) wins" in out


def test_undo_goes_back_to_before_your_move():
    env_lines = ["e5", "undo", "undo", "undo", "quit"]
    code, out = game("freestyle", Scripted([0, 1, 2]), env_lines, size=9)
    said = prompts(out)
    assert said[-2] == "nothing to undo"
    assert out.count("white (scripted) plays a9") == 1


def test_special_actions_by_name():
    code, out = game("freestyle-swap2", Scripted(range(112, 140)), ["take_black", "quit"], seat=1)
    assert "your move (white) [TAKE_BLACK, TAKE_WHITE, PLACE_TWO]> " in out
    assert "your move (black)> " in out  # after taking black, white's holder moved


def test_against_a_gomocup_engine():
    brain = Path(__file__).parent / "brains" / "scripted.py"
    for mode, said in (("good", "white (gomocup:"), ("crash", "forfeits (crash: crashed")):
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "fiverow",
                "play",
                "--param",
                "size=9",
                "--opponent",
                f"gomocup:{sys.executable} {brain} {mode} 2",
            ],
            input="e5\nd4\nquit\n",
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
        assert said in proc.stdout, proc.stdout[-800:]
    assert "you win" in proc.stdout
