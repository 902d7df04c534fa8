"""Games lost by forfeit in datasets: written by data.Writer, listed on
reading, refused by replay with the reason, shown by the viewer."""

from __future__ import annotations

import numpy as np
import pytest

import fiverow
from fiverow import data
from fiverow.cli import main as cli
from fiverow.render import viewer


def play(env, cells):
    """Steps of one board: actions, seats, colours."""
    seats, colours = [], []
    for cell in cells:
        b = env.board(0)
        seats.append(b["seat"])
        colours.append(b["colour"])
        env.step(np.array([cell]))
    return np.array(cells), np.array(seats), np.array(colours)


def test_a_forfeit_is_recorded_and_read_back(tmp_path, capsys):
    path = tmp_path / "f.h5"
    env = fiverow.make_vec("freestyle", 1, seed=4, size=9, autoreset_mode="disabled")
    env.reset()
    with data.Writer(path, env, players=("gomocup:brain", "heuristic")) as w:
        # game 0: a normal five for black
        moves = play(env, [0, 9, 1, 10, 2, 11, 3, 12, 4])
        w.add(0, *moves, winner=0)
        env.reset(options={"reset_mask": np.array([True])})
        # game 1: black's engine crashed after three moves
        moves = play(env, [40, 41, 50])
        w.add(0, *moves, winner=1, forfeit="crash: crashed (exit code 3)")
        with pytest.raises(ValueError, match="forfeit is the reason"):
            w.add(0, *moves, winner=-1, forfeit="draw?")
    with data.open(path) as ds:
        vd = ds["freestyle"]
        assert vd.forfeits == {1: "crash: crashed (exit code 3)"}
        assert vd.episode(1).forfeit == "crash: crashed (exit code 3)"
        assert vd.episode(0).forfeit is None
        assert ds.forfeit_records == [
            {"variant": "freestyle", "game": 1, "seat": 0, "reason": "crash: crashed (exit code 3)"}
        ]
        assert vd.replay(0).returns[0] == 1.0
        with pytest.raises(data.DatasetError, match="was forfeited \\(crash"):
            vd.replay(1)
    assert cli(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "forfeits: 1 games lost" in out and "game 1, seat 0: crash" in out
    page = viewer.game_html(path, "freestyle", 1)
    assert "black (gomocup:brain) forfeits: crash: crashed (exit code 3)" in page


def test_no_forfeits_no_attribute(tmp_path):
    path = tmp_path / "g.h5"
    env = fiverow.make_vec("freestyle", 1, seed=4, size=9, autoreset_mode="disabled")
    env.reset()
    with data.Writer(path, env) as w:
        w.add(0, *play(env, [0, 9, 1, 10, 2, 11, 3, 12, 4]), winner=0)
    with data.open(path) as ds:
        assert ds.forfeit_records == [] and ds["freestyle"].forfeits == {}
        assert "forfeits" not in ds.file.attrs
