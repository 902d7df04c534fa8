"""Opening books (fiverow.players.openings): reading them, every opening
played from both seats in matches, their stones as the games' first steps,
determinism, distinct games in the reports, and bad input refused."""

from __future__ import annotations

import numpy as np
import pytest

import fiverow
from fiverow import _core, cli
from fiverow.analysis import balance
from fiverow.players import openings

TWO_LENGTHS = "# a two-stone and a three-stone opening\n0,0 1,1\n0,0 0,1 1,-1  # after\n"


@pytest.fixture
def book_file(tmp_path):
    path = tmp_path / "book.txt"
    path.write_text(TWO_LENGTHS)
    return path


def test_parse_reads_offsets_and_comments():
    assert openings.parse_book(TWO_LENGTHS, "t") == (((0, 0), (1, 1)), ((0, 0), (0, 1), (1, -1)))


@pytest.mark.parametrize(
    "text,message",
    [
        ("0,0 1;1\n", "line 1: cannot read stone '1;1'"),
        ("0,0\n0,0 x,1\n", "line 2: cannot read stone 'x,1'"),
        ("0,0 1,1 0,0\n", "line 1: stone 0,0 is played twice"),
        ("# nothing\n\n", "holds no openings"),
    ],
)
def test_parse_refuses_corrupt_books(text, message):
    with pytest.raises(ValueError, match=message):
        openings.parse_book(text, "t")


def test_book_names_and_files(book_file):
    assert openings.book("none") is None and openings.book(None) is None
    balanced = openings.book("balanced")
    assert balanced is not None and len(balanced) >= 8
    assert all(o[0] == (0, 0) and 2 <= len(o) <= 3 for o in balanced.openings)
    renju = balanced.for_rule("renju")
    assert len(renju) == 26 and renju[3] == ((0, 0), (0, 1), (1, 1))  # D4 Kagetsu
    assert balanced.for_rule("freestyle") == balanced.openings
    assert openings.book(str(book_file)).openings == openings.parse_book(TWO_LENGTHS, "t")


def test_bad_names_and_unreadable_files(tmp_path):
    with pytest.raises(ValueError, match="neither a name nor an existing file"):
        openings.book("balancd")
    with pytest.raises(ValueError, match="cannot read openings file"):
        openings.book(tmp_path)  # a directory
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xff\xfe0,0\n")
    with pytest.raises(ValueError, match="cannot read openings file"):
        openings.book(bad)
    with pytest.raises(ValueError, match="'none', 'balanced' or a path"):
        openings.book(42)  # type: ignore[arg-type]


def test_each_opening_is_played_from_both_seats(book_file):
    r = fiverow.Match(
        "freestyle", "heuristic", "random", games=8, seed=1, openings=book_file
    ).play()
    g = r.games[np.argsort(r.games["game"])]
    # games 2j and 2j + 1 play opening j mod 2 (two and three stones), seats swapped
    assert g["book"].tolist() == [2, 2, 3, 3, 2, 2, 3, 3]
    assert g["seat0_player"].tolist() == [0, 1] * 4
    assert r.openings == str(book_file)
    assert "openings: " in str(r) and "distinct games:" in str(r)


def test_openings_are_the_first_steps_of_dataset_games(tmp_path, book_file):
    out = tmp_path / "games.h5"
    fiverow.generate.generate(out, "freestyle", games=6, black="pvs(nodes=200)", openings=book_file)
    # (0,0) (1,1); (0,0) (0,1) (1,-1) on 15x15 (x right, y up from h8)
    two, three = [112, 98], [112, 97, 128]
    with fiverow.data.open(out) as ds:
        assert ds.run["openings"] == str(book_file)
        episodes = ds["freestyle"]
        assert len(episodes) == 6
        starts = [episodes.episode(i).actions[:3].tolist() for i in range(6)]
    # fixed seats: game k plays opening k mod 2, three games each
    assert sum(s[:2] == two for s in starts) == 3
    assert sum(s == three for s in starts) == 3


def test_same_games_on_one_and_two_threads():
    def hashes(threads):
        r = fiverow.Match(
            "freestyle",
            "pvs(nodes=300)",
            "heuristic",
            games=12,
            seed=5,
            num_threads=threads,
            openings="balanced",
            params={"size": 11},
        ).play()
        return r.games[np.argsort(r.games["game"])]["moves_hash"].tolist()

    first = hashes(1)
    assert first == hashes(2) == hashes(1)


def test_openings_make_deterministic_players_play_distinct_games():
    kw = {"games": 16, "seed": 2, "params": {"size": 11}}
    plain = fiverow.Match("freestyle", "heuristic", "heuristic", **kw).play()
    booked = fiverow.Match("freestyle", "heuristic", "heuristic", openings="balanced", **kw).play()
    assert booked.distinct > plain.distinct
    assert booked.distinct >= 8


def test_an_opening_the_variant_cannot_play_is_refused(tmp_path):
    far = tmp_path / "far.txt"
    far.write_text("0,0 20,0\n")
    where = r"variant 'freestyle': opening 1, stone 2 .*off the board"
    with pytest.raises(ValueError, match=where):
        fiverow.Match("freestyle", "random", "random", games=2, openings=far).play()
    off_centre = tmp_path / "off.txt"
    off_centre.write_text("1,0 0,0\n")
    with pytest.raises(ValueError, match="the first stone must go to the centre"):
        fiverow.Match("renju", "random", "random", games=2, openings=off_centre).play()
    with pytest.raises(ValueError, match="openings need games that start in normal play"):
        fiverow.Match("freestyle-swap2", "random", "random", games=2, openings="balanced").play()
    with pytest.raises(ValueError, match="off the board"):
        fiverow.generate.generate(tmp_path / "x.h5", "freestyle", games=2, openings=far)
    assert not (tmp_path / "x.h5").exists()


def test_python_agents_play_the_openings_too(book_file):
    def first_legal(env):
        return np.argmax(env.action_masks(), axis=1)

    r = fiverow.Match("freestyle", first_legal, "heuristic", games=4, openings=book_file).play()
    g = r.games[np.argsort(r.games["game"])]
    assert g["book"].tolist() == [2, 2, 3, 3]
    assert r.distinct == len(set(g["moves_hash"].tolist()))


def test_renju_plays_the_26_openings(tmp_path):
    out = tmp_path / "renju.h5"
    fiverow.generate.generate(out, "renju", games=26, black="heuristic", openings="balanced")
    found = set()
    with fiverow.data.open(out) as ds:
        for i in range(len(ds["renju"])):
            b, w, b3 = (divmod(int(a), 15) for a in ds["renju"].episode(i).actions[:3])
            assert b == (7, 7)
            found.add(_core.opening_of(w[1] - 7, 7 - w[0], b3[1] - 7, 7 - b3[0]))
    assert found == set(range(26))


def test_balance_reports_distinct_games():
    report = balance.run(
        ["freestyle"],
        ["heuristic", "pvs(nodes=200)"],
        games=8,
        swap=True,
        openings="balanced",
        params={"size": 11},
    )
    assert report.settings["openings"] == "balanced"
    r = report.results[0]
    assert r.distinct is not None and 1 <= r.distinct <= 8
    assert "distinct" in report.table() and "| distinct |" in report.markdown()
    assert report.to_json()["variants"][0]["distinct_games"] == r.distinct


def test_cli_takes_openings(tmp_path, capsys, book_file):
    out = tmp_path / "c.h5"
    argv = ["generate", "--games", "4", "--black", "heuristic", "--quiet"]
    assert cli.main([*argv, "--openings", str(book_file), "--out", str(out)]) == 0
    assert out.exists()
    assert cli.main([*argv, "--openings", "nope", "--out", str(tmp_path / "d.h5")]) == 2
    assert "neither a name nor an existing file" in capsys.readouterr().err
    assert not (tmp_path / "d.h5").exists()
