"""Game records: Gomocup's .psq and SGF (FF[4]GM[4]) read and written,
datasets exported as records and records imported as datasets (each game
replayed in the C engine), and bad records refused in one line."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import fiverow
from fiverow import data, records
from fiverow.analysis import balance
from fiverow.cli import main as cli
from fiverow.data.generate import generate
from fiverow.records import Game, RecordError

#: A Gomocup tournament game as Piskvork saves it: a 20x20 board, both
#: players programs at level 10, the second named player moved first; moves
#: x,y (from 1) and milliseconds; the two brains; 0: ended by the rules.
GOMOCUP_PSQ = """Piskvorky 20x20, 11:11, 1
10,10,0
11,11,1203
11,10,985
12,10,1311
9,10,702
12,12,1100
8,10,640
13,13,900
7,10,512
pbrain-alpha.exe
pbrain-beta.exe
0
"""


def test_a_gomocup_psq():
    game = records.psq.parse(GOMOCUP_PSQ)
    assert (game.width, game.height, game.variant) == (20, 20, None)
    assert game.moves[0] == 9 * 20 + 9 and game.moves[1] == 10 * 20 + 10
    assert game.times[:3] == (0, 1203, 985)
    assert game.players == ("pbrain-beta.exe", "pbrain-alpha.exe")  # the second moved first
    assert game.result == "?" and game.forfeit is None  # the rules say who won
    played = records.replay(game, records.config_of(game))
    assert played.over and played.result == "black"  # five on row 10: f..j
    assert played.config["height"] == 20 and played.config["rule"] == "freestyle"
    # the header as the issue writes it, and a forfeit by timeout of the player to move
    lost = records.psq.parse(
        GOMOCUP_PSQ.replace("Piskvorky", "Piskvork").replace("\n0\n", "\n15\n")
    )
    assert lost.result == "black" and lost.forfeit == "timeout"  # white was to move after 9


def test_a_psq_saved_on_windows(tmp_path):
    """CR LF line ends and a byte-order mark, as Windows programs may write."""
    path = tmp_path / "windows.psq"
    path.write_bytes(b"\xef\xbb\xbf" + GOMOCUP_PSQ.replace("\n", "\r\n").encode())
    assert records.read(path) == records.psq.parse(GOMOCUP_PSQ)


def test_psq_and_sgf_write_and_read_back(tmp_path):
    game = Game(
        "renju",
        15,
        15,
        (112, 113, 98, 126),
        ("Alice", "Bob ]\\ the second"),
        "?",
        None,
        {},
        (10, 20, 30, 40),
    )
    for name in ("g.psq", "g.sgf"):
        records.write(tmp_path / name, game)
        back = records.read(tmp_path / name)
        assert back.moves == game.moves and back.players == game.players
        assert back.variant == "renju" and (back.height, back.width) == (15, 15)
    assert records.read(tmp_path / "g.psq").times == game.times
    text = (tmp_path / "g.sgf").read_text()
    assert text.startswith("(;FF[4]GM[4]") and "SZ[15]" in text and "RU[renju]" in text
    assert ";B[hh];W[ih];B[ig];W[gi]" in text  # column then row letters, from the top left
    # a rectangle, parameters, a forfeit: SGF keeps them all
    odd = Game("freestyle", 9, 12, (0, 107), ("a", "b"), "white", "crash: exit 1", {"connect": 4})
    records.write(tmp_path / "odd.sgf", odd)
    assert records.read(tmp_path / "odd.sgf") == odd
    assert "SZ[12:9]" in (tmp_path / "odd.sgf").read_text()
    records.write(tmp_path / "odd.psq", odd)
    back = records.read(tmp_path / "odd.psq")
    assert (back.params, back.result, back.forfeit) == ({"connect": 4}, "white", "error")


def test_sgf_of_another_program():
    text = r"""(;GM[4]FF[4]SZ[15]PB[Black player]PW[White player]RE[W+Resign]
    C[a comment with a \] in it]
    ;B[hh]C[first];W[hi](;B[ih];W[gg]MN[4])(;B[aa]))"""
    (game,) = records.sgf.parse(text)
    assert game.moves == (7 * 15 + 7, 8 * 15 + 7, 7 * 15 + 8, 6 * 15 + 6)  # the main line
    assert game.players == ("Black player", "White player")
    assert (game.result, game.forfeit) == ("white", "resigned")
    # a collection: two games
    assert len(records.sgf.parse(text + "\n(;GM[4]SZ[9];B[ee])")) == 2


BAD = {
    "header.psq": ("Piskvorky 15x15\n8,8,0\n", "the first line should read like"),
    "off.psq": ("Piskvorky 15x15, 0:0, 0\n8,8,0\n16,1,0\n-1\n", "line 3: move 16,1 is off"),
    "junk.psq": ("Piskvorky 15x15, 0:0, 0\n8,8,0\na\nb\n-1\nextra\n", "line 6: 'extra'"),
    "code.psq": ("Piskvorky 15x15, 0:0, 0\n8,8,0\nalpha\nbeta\ngamma\n", "not the result code"),
    "huge.psq": ("Piskvorky 99x99, 0:0, 0\n", "boards up to 52x52"),
    "open.sgf": ("(;GM[4]SZ[15];B[hh", "no closing ']'"),
    "go.sgf": ("(;GM[1]SZ[19];B[pd])", "GM[1] is not five-in-a-row"),
    "setup.sgf": ("(;GM[4]SZ[15]AB[hh][ii];W[aa])", "setup stones (AB)"),
    "pass.sgf": ("(;GM[4]SZ[15];B[hh];W[])", "a pass"),
    "twice.sgf": ("(;GM[4]SZ[15];B[hh];B[ii])", "stones alternate, black first"),
    "off.sgf": ("(;GM[4]SZ[9];B[jj])", "[jj] is off the 9x9 board"),
    "steps.sgf": ("(;GM[4]SZ[15];B[hh];FR[SWAP])", "no RU[variant] to read them"),
    "result.sgf": ("(;GM[4]SZ[15]RE[maybe];B[hh])", "RE[maybe] is not a result"),
    "empty.sgf": ("   ", "no game in it"),
    "notes.txt": ("hello", "unknown record format (suffix '.txt')"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_records_are_refused_in_one_line(tmp_path, name, capsys):
    text, says = BAD[name]
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(RecordError) as e:
        records.read(path)
    message = str(e.value)
    assert says in message and str(path) in message and "\n" not in message
    assert cli(["view", str(path), "--out", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err
    if name.endswith((".psq", ".sgf")):
        assert says in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.html").exists()


def test_missing_record_and_unknown_format():
    with pytest.raises(RecordError, match="cannot read it"):
        records.read("/no/such/game.psq")
    with pytest.raises(RecordError, match="unknown record format"):
        records.read("game.psq", format="pgn")


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    """Games of every stone preset (MODLINSEQ's random bag cannot be recorded)."""
    path = tmp_path_factory.mktemp("records") / "games.h5"
    mix = {name: 1 for name in fiverow.preset_names() if name != "modlinseq"}
    generate(path, mix, games=2 * len(mix), black="heuristic", white="random", seed=3)
    return path


def same_games(a_path, b_path, variants=None):
    with data.open(a_path) as a, data.open(b_path) as b:
        names = variants or list(a)
        assert sorted(b) == sorted(names)
        for name in names:
            va, vb = a[name], b[name]
            assert len(va) == len(vb) and va.config.params == vb.config.params
            for i in range(len(va)):
                ea, eb = va.episode(i), vb.episode(i)
                assert np.array_equal(ea.actions, eb.actions), (name, i)
                assert np.array_equal(ea.seats, eb.seats) and np.array_equal(ea.colours, eb.colours)
                outcome = ("winner", "truncated", "scores", "black_seat", "opening")
                assert [getattr(ea, k) for k in outcome] == [getattr(eb, k) for k in outcome]
                assert [a.players[p] for p in ea.players] == [b.players[p] for p in eb.players]
                replay = vb.replay(i)
                assert len(replay.actions) == eb.length


def test_dataset_to_sgf_records_and_back(dataset, tmp_path):
    files = records.export_dataset(dataset, tmp_path / "sgf", format="sgf")
    with data.open(dataset) as ds:
        assert len(files) == len(ds)
    swap2 = (tmp_path / "sgf" / "freestyle-swap2-000000.sgf").read_text()
    assert "FR[TAKE_" in swap2 or "FR[PLACE_TWO]" in swap2  # the protocol's steps
    result = records.import_records(tmp_path / "sgf", tmp_path / "back.h5")
    assert result.skipped == [] and result.games == len(files)
    same_games(dataset, tmp_path / "back.h5")


def test_dataset_to_psq_records_and_back(dataset, tmp_path):
    stones = [n for n in fiverow.preset_names() if n not in ("modlinseq",)]
    stones = [n for n in stones if fiverow.resolve(n)["protocol"] in ("free", "center")]
    for name in stones:
        records.export_dataset(dataset, tmp_path / "psq", variant=name)
    result = records.import_records(tmp_path / "psq", tmp_path / "back.h5")
    assert result.skipped == []
    same_games(dataset, tmp_path / "back.h5", stones)
    # what the readers take
    batch = next(iter(data.Batches(tmp_path / "back.h5", 8, seed=0)))
    assert batch["obs"].shape[0] == 8
    report = balance.from_dataset(tmp_path / "back.h5")
    assert sorted(r.variant for r in report.results) == sorted(stones)


def test_export_refuses_before_writing(dataset, tmp_path):
    out = tmp_path / "recs"
    with pytest.raises(RecordError, match="swap2 opening has steps .* use .sgf"):
        records.export_dataset(dataset, out)  # .psq holds stones only
    assert not out.exists()
    modlinseq = tmp_path / "m.h5"
    generate(modlinseq, "modlinseq", games=1, seed=0)
    with pytest.raises(RecordError, match="modlinseq draws its tiles at random"):
        records.export_dataset(modlinseq, out, format="sgf")
    records.export_dataset(dataset, out, variant="renju")
    with pytest.raises(RecordError, match="renju-000000.psq' exists"):
        records.export_dataset(dataset, out, variant="renju")
    assert len(records.export_dataset(dataset, out, variant="renju", overwrite=True)) == 2


def write(folder, name, text):
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text)


def test_import_checks_every_game_by_the_rules(tmp_path, capsys):
    folder = tmp_path / "recs"
    write(folder, "a-good.psq", GOMOCUP_PSQ)
    # the same game with its fifth stone where the first stands: occupied
    write(folder, "b-occupied.psq", GOMOCUP_PSQ.replace("9,10,702", "10,10,702"))
    write(folder, "c-unfinished.psq", "Piskvorky 15x15, 0:0, 0\n8,8,0\n9,9,0\n-1\n")
    write(
        folder,
        "d-wrong.sgf",
        "(;GM[4]SZ[9]RE[W+];B[aa];W[ba];B[ab];W[bb];B[ac];W[bc];B[ad];W[bd];B[ae])",
    )
    write(folder, "e-renju.psq", "Piskvorky 15x15, 0:0, 0\n1,1,0\n-1\nfiverow: variant=renju\n")
    write(folder, "f-broken.sgf", "(;GM[4]SZ[15];B[hh]")
    write(
        folder,
        "g-after.sgf",
        "(;GM[4]SZ[9];B[aa];W[ba];B[ab];W[bb];B[ac];W[bc];B[ad];W[bd];B[ae];W[be])",
    )
    write(folder, "notes.txt", "not a record: left alone")
    out = tmp_path / "games.h5"
    assert cli(["import", str(folder), "--out", str(out)]) == 0
    said = capsys.readouterr()
    assert "wrote 1 games from 7 records" in said.out and "(6 skipped)" in said.out
    skipped = dict(line.split(": ", 1) for line in said.err.strip().splitlines())
    assert skipped == {
        f"skipped {folder / 'b-occupied.psq'}": "move 5 (j11): occupied",
        f"skipped {folder / 'c-unfinished.psq'}": "unfinished: the game goes on after its 2 moves",
        f"skipped {folder / 'd-wrong.sgf'}": "the record says white, the rules black",
        f"skipped {folder / 'e-renju.psq'}": "move 1 (a15): the first stone must go to the centre",
        f"skipped {folder / 'f-broken.sgf'}": (
            "not a valid SGF record: a game tree has no closing ')' (line 1)"
        ),
        f"skipped {folder / 'g-after.sgf'}": "move 10: the game was over after move 9",
    }
    with data.open(out) as ds:
        assert list(ds) == ["freestyle"] and len(ds["freestyle"]) == 1
        ep = ds["freestyle"].episode(0)
        assert ds.players == ["pbrain-beta.exe", "pbrain-alpha.exe"]
        assert [ds.players[p] for p in ep.players] == ["pbrain-beta.exe", "pbrain-alpha.exe"]
        assert ep.winner == 0 and ds["freestyle"].config["height"] == 20
    # nothing to import: one line, no file
    assert cli(["import", str(folder / "c-unfinished.psq"), "--out", str(tmp_path / "no.h5")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("fiverow: error: no game to import") and len(err) == 2
    assert not (tmp_path / "no.h5").exists()


def test_import_names_every_player_and_keeps_forfeits(tmp_path):
    folder = tmp_path / "recs"
    five = ";B[aa];W[ba];B[ab];W[bb];B[ac];W[bc];B[ad];W[bd];B[ae])"
    for k, (black, white) in enumerate((("x", "y"), ("y", "z"), ("z", "x"))):
        write(folder, f"{k}.sgf", f"(;GM[4]SZ[9]PB[{black}]PW[{white}]RE[B+]{five}")
    write(folder, "3.sgf", "(;GM[4]SZ[9]PB[w]PW[x]RE[W+T]GC[forfeit: timeout: 5 s];B[ee])")
    result = records.import_records(folder, tmp_path / "out.h5")
    assert result.games == 4 and not result.skipped
    with data.open(tmp_path / "out.h5") as ds:
        assert ds.players == ["x", "y", "z", "w"]
        vd = ds["freestyle"]
        seats = [[ds.players[p] for p in vd.episode(i).players] for i in range(4)]
        assert seats == [["x", "y"], ["y", "z"], ["z", "x"], ["w", "x"]]
        assert vd.forfeits == {3: "timeout: 5 s"} and vd.episode(3).winner == 1


def test_the_commands(dataset, tmp_path):
    recs = tmp_path / "recs"
    assert cli(["export", str(dataset), "--records", str(recs), "--format", "sgf"]) == 0
    out = tmp_path / "back.h5"
    proc = subprocess.run(
        [sys.executable, "-m", "fiverow", "import", str(recs), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.startswith(f"wrote {len(list(recs.iterdir()))} games")
    assert cli(["balance", "--dataset", str(out), "--quiet"]) == 0
    page = tmp_path / "game.html"
    record = recs / "renju-000001.sgf"
    assert cli(["view", str(record), "--out", str(page)]) == 0
    html = page.read_text()
    game = records.read(record)
    assert f'max="{len(game.moves)}"' in html and "black: heuristic, white: random" in html
