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


def test_gomorpion_columns_keep_their_case():
    # columns a..z A B C D: a5 is the first column, A5 the 27th
    code, out = game("gomorpion", Scripted([0, 1, 2]), ["a5", "A5", "quit"])
    env_cells = [line for line in out.splitlines() if line.startswith(" 5 ")][-1]
    columns = env_cells.split()[1:-1]  # the row's 30 cells between its labels
    stones = [k for k, ch in enumerate(columns) if "X" in ch]
    assert stones == [0, 26], env_cells


def test_hex_board_shows_the_addresses_moves_are_typed_with():
    code, out = game("hex", Scripted([0, 1, 2]), ["A0", "quit"])
    boards = [chunk.splitlines() for chunk in out.split("your move")[:2]]
    first = boards[0][1:16]  # the 15 rows of the order-7 board
    assert first[7].split()[7] == "A0" and "M1" in first[7]  # the middle row: its centre
    assert sum(len(row.split()) for row in first) == 169  # every cell named
    assert "an empty cell shows its address" in boards[0][16]
    second = boards[1][1:16]  # after "A0" and the reply
    assert second[7].split()[7] in ("X", "(X)")


def test_modlinseq_prompts_with_a_hint_and_lists_moves_on_request():
    code, out = game("modlinseq", Scripted([0, 1, 2]), ["moves", "quit"])
    prompt = out.split("> ")[0].rsplit("\n", 1)[-1]
    assert len(prompt) < 160, prompt  # not the hundreds of legal tiles
    assert "e.g. 7E4" in prompt and "'moves' lists the legal ones" in prompt
    listed = out.split("> ")[1]
    assert listed.startswith("legal moves (")
    count = int(listed[len("legal moves (") :].split(")")[0])
    assert count > 100 and len(listed.split(":", 1)[1].split()) >= count


def test_off_board_and_occupied_input_say_why():
    code, out = game("freestyle", Scripted([0, 1, 2]), ["p8", "a16", "h8", "a15", "quit"])
    said = prompts(out)
    assert said[0] == "p8 is off the board (columns a..o, rows 1..15); try again"
    assert said[1] == "a16 is off the board (columns a..o, rows 1..15); try again"
    assert said[3] == "a15: occupied; try again"  # the opponent took a15 (cell 0)


def test_legend_on_freestyle_and_renju():
    for variant in ("freestyle", "renju"):
        code, out = game(variant, Scripted([0, 1, 2]), ["h8", "quit"])
        assert "X black (you), O white (scripted)" in out
    code, out = game("freestyle", Scripted([0, 1, 2]), ["quit"], seat=1)
    assert "X black (scripted), O white (you)" in out


def test_renju_forbidden_points_are_marked():
    rows = [list("." * 15) for _ in range(15)]
    for r, c in ((7, 5), (7, 6), (5, 7), (6, 7)):  # h8: a double-three for black
        rows[r][c] = "X"
    for r, c in ((0, 0), (0, 14), (14, 0), (14, 14)):
        rows[r][c] = "O"
    code, out = game("renju", Scripted([1, 2, 3]), ["quit"], rows=["".join(r) for r in rows])
    row8 = next(line for line in out.splitlines() if line.startswith(" 8 "))
    assert row8.split()[1:-1][7] == "!", row8  # h8
    assert "! forbidden for black (double-three)" in out


def test_the_board_is_printed_once_a_turn():
    header = "   a b c d e f g h i"
    code, out = game("freestyle", Scripted([0, 1, 2]), ["e5", "quit"], size=9)
    # before your first move, and before your second (after the reply): 2 boards
    assert out.count(header) == 2 * 2
    code, out = game("freestyle", Scripted([0, 1, 2]), ["quit"], seat=1, size=9)
    assert out.count(header) == 2  # the opponent opens: the board once, after its move


def test_save_the_game_as_a_record(tmp_path):
    from fiverow import records

    black = Scripted([0, 2, 4, 6, 8, 18, 20])
    out = io.StringIO()
    moves = "\n".join(["a1", "b1", "c1", "d1", "e1"]) + "\n"
    for name in ("game.psq", "game.sgf"):
        path = tmp_path / name
        code = fiverow.cli.play.play(
            "freestyle",
            black,
            seat="white",
            params={"size": 9},
            stdin=io.StringIO(moves),
            stdout=out,
            save=path,
        )
        assert code == 0 and f"saved the game to {path}" in out.getvalue()
        saved = records.read(path)
        assert saved.variant == "freestyle" and (saved.height, saved.width) == (9, 9)
        assert saved.players == ("scripted", "human")
        assert saved.result == ("white" if name.endswith(".sgf") else "?")  # .psq: no result
        assert records.replay(saved, records.config_of(saved)).result == "white"
        assert [env_name(saved, m) for m in saved.moves[1::2]] == ["a1", "b1", "c1", "d1", "e1"]
        black.cells = [0, 2, 4, 6, 8, 18, 20]


def env_name(game, action):
    return fiverow.make_vec(game.variant, 1, size=game.width).action_name(action)


def test_save_a_game_left_unfinished_and_refuse_a_bad_target(tmp_path):
    path = tmp_path / "left.psq"
    proc = subprocess.run(
        [sys.executable, "-m", "fiverow", "play", "--save", str(path), "--opponent", "random"],
        input="h8\nundo\nj10\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    from fiverow import records

    game = records.read(path)
    assert game.result == "?" and len(game.moves) == 2  # j10 and the reply; h8 was undone
    assert fiverow.make_vec("freestyle").action_name(game.moves[0]) == "j10"
    for target, says in (
        ("game.txt", "unknown record format"),
        ("s.psq", "use .sgf"),
        ("no/such/dir/g.sgf", "does not exist"),
    ):
        variant = "freestyle-swap2" if target == "s.psq" else "freestyle"
        proc = subprocess.run(
            [sys.executable, "-m", "fiverow", "play", "--variant", variant, "--save", target],
            input="quit\n",
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
        )
        assert proc.returncode == 2 and proc.stdout == "", proc.stdout  # before the game
        assert says in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
