"""Names of actions both ways: every name ``action_name`` writes, on every
preset, reads back as its action (``env.parse_action``), and a name off the
board says so."""

from __future__ import annotations

import numpy as np
import pytest

import fiverow
from fiverow.notation import OffBoardError


@pytest.mark.parametrize("preset", fiverow.preset_names())
def test_every_name_reads_back_as_its_action(preset):
    env = fiverow.make_vec(preset, 1, seed=0)
    g = env._group
    per_cell = int(env.config["modulus"]) if env.config["rule"] == "modlinseq" else 1
    on_board = g.on_board.reshape(-1).astype(bool)
    actions = [
        a for a in range(env.n_actions) if a >= g.n_cells * per_cell or on_board[a // per_cell]
    ]
    assert len(actions) >= int(on_board.sum())
    names = [env.action_name(a) for a in actions]
    assert len(set(names)) == len(names)  # one name per action
    for action, name in zip(actions, names, strict=True):
        assert env.parse_action(name) == action, (preset, name)
    for k, special in enumerate(g.special_actions):  # special actions in either case
        assert env.parse_action(special.lower()) == g.n_cells * per_cell + k


def test_gomorpion_columns_keep_their_case():
    env = fiverow.make_vec("gomorpion", 1)
    # 30 columns: a..z then A B C D; row 30 is the top row
    assert env.parse_action("a30") == 0
    assert env.parse_action("A30") == 26
    assert env.parse_action("D1") == 29 * 30 + 29
    assert env.action_name(26) == "A30"
    with pytest.raises(OffBoardError, match="columns a..D, rows 1..30"):
        env.parse_action("E1")
    # on boards of 26 columns or fewer, a capital is the same column
    assert fiverow.make_vec("freestyle", 1).parse_action("H8") == 112


@pytest.mark.parametrize(
    ("preset", "name", "says"),
    [
        ("freestyle", "p8", "p8 is off the board (columns a..o, rows 1..15)"),
        ("freestyle", "a16", "a16 is off the board"),
        ("strip", "#100", "#100 is off the board (cells #0..#99)"),
        ("hex", "B40", "B40 is off the board (rings 0..7"),
        ("modlinseq", "7B40", "B40 is off the board (rings 0..6"),
    ],
)
def test_off_the_board(preset, name, says):
    env = fiverow.make_vec(preset, 1)
    with pytest.raises(OffBoardError) as e:
        env.parse_action(name)
    assert says in str(e.value)


def test_hex_raster_cells_off_the_board():
    env = fiverow.make_vec("hex", 1)
    g = env._group
    off = np.flatnonzero(g.on_board.reshape(-1) == 0)
    assert off.size
    with pytest.raises(OffBoardError):
        env.parse_action(f"#{int(off[0])}")


@pytest.mark.parametrize(
    ("preset", "name", "says"),
    [
        ("freestyle", "zz", "cannot read 'zz' as a cell (e.g. h8)"),
        ("freestyle-swap2", "take", "or one of TAKE_BLACK, TAKE_WHITE, PLACE_TWO"),
        ("modlinseq", "E4", "as a tile (value then cell, e.g. 7E4)"),
        ("modlinseq", "20E4", "tile values are 0..17"),
    ],
)
def test_what_names_no_action(preset, name, says):
    env = fiverow.make_vec(preset, 1)
    with pytest.raises(ValueError) as e:
        env.parse_action(name)
    assert not isinstance(e.value, OffBoardError)
    assert says in str(e.value)


def test_illegal_reason_asks_and_changes_nothing():
    env = fiverow.make_vec("renju", 2, seed=0, autoreset_mode="disabled")
    env.reset()
    before = [env.get_state(i) for i in range(2)]
    assert env.illegal_reason(1, env.parse_action("a1")) == "the first stone must go to the centre"
    assert env.illegal_reason(1, env.parse_action("h8")) is None
    assert [env.get_state(i) for i in range(2)] == before
    env.step(np.array([112, 112]))
    assert env.illegal_reason(0, 112) == "occupied"
    assert env.illegal_reason(0, env.n_actions) == f"action {env.n_actions} is out of range 0..224"
    lenient = fiverow.make_vec("freestyle", 1, illegal_action="lose")
    lenient.reset()
    lenient.step(np.array([0]))
    with pytest.raises(ValueError, match="illegal_action='raise'"):
        lenient.illegal_reason(0, 0)
