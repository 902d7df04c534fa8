"""The C core built with -fsanitize=address,undefined and driven without Python
(tests/c/driver.c): random play in every mode, rollouts, state checks and rule
vectors, so that memory errors and undefined behaviour fail the suite."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import fiverow

from conftest import build_once

ROOT = Path(__file__).resolve().parent.parent
CC = os.environ.get("CC", "gcc")


def setup_flags() -> Any:
    """setup.py as a module, for the HDF5 flags the extension is built with."""
    spec = importlib.util.spec_from_file_location("fiverow_setup", ROOT / "setup.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def driver(tmp_path_factory) -> Path:
    if shutil.which(CC) is None:
        pytest.fail(f"C compiler {CC!r} not found: the sanitizer build needs it")
    return build_once(tmp_path_factory, "asan", build_driver)


def build_driver(directory: Path) -> Path:
    """The core without the binding, with tests/c/driver.c, under ASan + UBSan
    (built once a run, however many workers run the tests)."""
    out = directory / "driver"
    # everything but the Python binding (csrc/python/); HDF5 as the extension links it
    flags = setup_flags()
    sources = flags.c_sources(binding=False, root=str(ROOT))
    hdf5_cflags, hdf5_ldflags = flags.hdf5_flags()
    # the instruction set the extension is built for: its SIMD paths run here too
    march = os.environ.get("FIVEROW_MARCH", flags.default_march())
    cmd = [
        CC,
        "-std=c11",
        "-O1",
        "-g",
        "-fopenmp",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-fsanitize=address,undefined",
        "-fno-sanitize-recover=all",
        "-fno-omit-frame-pointer",
        f"-I{ROOT / 'csrc'}",
        *([f"-march={march}"] if march else []),
        *sources,
        str(ROOT / "tests" / "c" / "driver.c"),
        *hdf5_cflags,
        *hdf5_ldflags,
        "-lm",
        "-o",
        str(out),
    ]
    subprocess.run(cmd, check=True)
    return out


def run(driver: Path, script: str) -> list[str]:
    env = dict(
        os.environ,
        ASAN_OPTIONS="detect_leaks=1:abort_on_error=0",
        UBSAN_OPTIONS="print_stacktrace=1",
    )
    proc = subprocess.run(
        [str(driver)], input=script, capture_output=True, text=True, env=env, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "runtime error" not in proc.stderr and "AddressSanitizer" not in proc.stderr, proc.stderr
    return proc.stdout.splitlines()


def cases(rows: list[tuple], quick: set[int], id_of=lambda row: f"{row[0]}-{row[1]}") -> list:
    """The rows as test cases: those numbered in `quick` in `make test`, the
    others marked slow (`make check` runs them all)."""
    return [
        pytest.param(*row, id=id_of(row), marks=() if k in quick else pytest.mark.slow)
        for k, row in enumerate(rows)
    ]


def params_text(preset: str, **overrides) -> str:
    config = fiverow.resolve(preset, **overrides)
    return " ".join(f"{k}={v}" for k, v in config.params.items())


RANDOM_PLAY = [
    ("freestyle", {}),
    ("standard", {}),
    ("caro", {}),
    ("strip", {}),
    ("torus", {}),
    ("renju", {}),
    ("renju", {"forbidden": "lose", "protocol": "free"}),
    ("renju", {"geometry": "torus", "size": 13}),
    ("renju-soosorv8", {}),
    ("renju-soosorv4", {"forbidden": "lose"}),
    ("freestyle-swap2", {}),
    ("renju", {"protocol": "swap2"}),
    ("gomorpion", {"size": 9}),
    (
        "gomorpion",
        {"size": 13, "neighbourhood": 4, "capture_threshold": 3, "reward_mode": "points"},
    ),
    ("gomorpion", {}),
    ("hex", {}),
    ("hex", {"order": 5, "edge": "bounce", "rule": "caro", "caro_ends": "gomocup"}),
    ("hex", {"geometry": "tess", "order": 3}),
    ("modlinseq", {}),
    ("modlinseq", {"order": 5, "edge": "bounce", "modulus": 20}),
    ("modlinseq", {"geometry": "tess", "order": 2, "modulus": 7, "copies": 6}),
    ("modlinseq", {"geometry": "torus", "size": 9}),
    ("connect6", {}),
    ("connect6", {"geometry": "hex", "order": 5, "stones_per_turn": 3}),
    ("pente", {}),
    ("pente", {"geometry": "torus", "size": 11, "capture_lengths": "2,3"}),
]


# make test: a board of each family and protocol, on fewer boards; make check:
# every geometry and option, on 300 boards (the parallel region's chunks)
RANDOM_QUICK = {0, 5, 8, 10, 12, 16, 21, 22, 25}


@pytest.mark.parametrize("preset,overrides", cases(RANDOM_PLAY, RANDOM_QUICK))
def test_random_play_in_every_mode(driver, preset, overrides):
    """Every board's state passes batch_check_state after every step: for renju
    that compares the incrementally kept forbidden set with a recomputation."""
    p = params_text(preset, **overrides)
    quick = RANDOM_PLAY.index((preset, overrides)) in RANDOM_QUICK
    boards = 64 if quick else 300
    script = []
    for autoreset in (0, 1, 2):
        for illegal in (0, 1, 2):
            obs = (autoreset + illegal) % 2
            script.append(f"new {boards} 2 {autoreset} {illegal} {obs} 5 {p}")
            # disabled autoreset stops at the first finished board: few steps then;
            # the state check recomputes renju's forbidden points and walks all
            # of gomorpion's 900 cells after every step: fewer steps for those
            heavy = preset.startswith("renju") or preset in ("gomorpion", "modlinseq")
            steps = 100 if heavy else 400
            if preset == "gomorpion" and not overrides:
                steps = 25
            script.append(f"random {steps if autoreset != 2 else 5}")
            script.append("rollout 150")
            script.append("check 7")
            script.append("views 7")
            script.append("clone 3 4")
    out = run(driver, "\n".join(script) + "\n")
    assert len(out) == len(script)
    assert all(line.startswith("ok") for line in out), out


OPPONENT_PLAY = [
    ("freestyle", {"size": 9}),
    ("renju-soosorv8", {}),
    ("freestyle-swap2", {"size": 9}),
    ("gomorpion", {"size": 9, "reward_mode": "points"}),
    ("modlinseq", {"order": 4, "modulus": 9, "copies": 2}),
    ("connect6", {"size": 9}),
    ("pente", {"size": 9}),
]


@pytest.mark.parametrize("preset,overrides", cases(OPPONENT_PLAY, {0, 1, 3, 4, 5}))
def test_opponents_in_the_loop_under_sanitizers(driver, preset, overrides):
    """Built-in opponents in the step's parallel region (random on 260 boards of
    freestyle; the heuristic and MCTS, slow under the sanitizers, on a few) and external
    ones fed round by round, in every autoreset mode: every board's state is
    sound and at the agent's turn after each step."""
    p = params_text(preset, **overrides)
    many = 260 if preset == "freestyle" else 16  # the parallel region: once is enough
    script = []
    for autoreset in (0, 1, 2):
        steps = 30 if autoreset != 2 else 4  # disabled: stops at the first end
        for boards, threads, kind, player, seat, k in (
            (many, 2, 1, 0, 2, steps),  # built-in random
            (many, 2, 2, 0, 2, steps),  # external
            (6, 1, 1, 1, 1, min(steps, 8)),  # heuristic
            (2, 1, 1, 2, 0, 2),  # MCTS, 20 simulations
        ):
            script.append(f"new {boards} {threads} {autoreset} {autoreset % 2 + 1} 0 5 {p}")
            script.append(f"opponent {kind} {player} {seat}")
            script.append(f"random {k}")
            script.append("rollout 5")
            script.append("check 1")
    script.append(f"new 4 1 0 0 0 5 {p} max_steps=3")
    script.append("opponent 1 0 1")
    out = run(driver, "\n".join(script) + "\n")
    assert len(out) == len(script)
    assert all(line.startswith("ok") for line in out[:-1]), out
    assert out[-1].startswith("error an opponent needs max_steps >= 4")


def test_corrupt_states_are_caught(driver):
    p = params_text("freestyle")
    script = [f"new 2 1 0 0 0 1 {p}", "random 20"]
    script += [f"corrupt 0 {offset}" for offset in (20, 48, 60, 200, 300, 320, 600)]
    out = run(driver, "\n".join(script) + "\n")
    assert out[0].startswith("ok") and out[1].startswith("ok")
    verdicts = out[2:]
    assert all(v.startswith("bad") for v in verdicts[1:]), verdicts


MODLINSEQ_BOARDS = [
    {"order": 3, "edge": "bounce", "modulus": 6, "copies": 6},
    {"geometry": "tess", "order": 2, "modulus": 7, "copies": 6},
    {"order": 4, "edge": "wall", "modulus": 9},
]


@pytest.mark.parametrize("overrides", MODLINSEQ_BOARDS, ids=["bounce", "tess", "wall"])
def test_modlinseq_derived_data_is_checked(driver, overrides):
    """Every byte of the values each empty cell allows (kept step by step, see
    csrc/rules/modlinseq.h) and of the turn's tiles, flipped, is refused by the
    state check: a corrupt mask cannot be loaded with set_state."""
    p = params_text("modlinseq", **overrides)
    script = [f"new 4 1 0 0 0 3 {p}"]
    for steps in (1, 9, 30):
        script += [f"random {steps}", *(f"corrupt_derived {i}" for i in range(4))]
    out = run(driver, "\n".join(script) + "\n")
    assert len(out) == len(script) and all(line.startswith("ok") for line in out), out
    flips = [line for cmd, line in zip(script, out, strict=True) if cmd.startswith("corrupt")]
    assert flips == ["ok 0"] * 12


def test_thread_count_does_not_change_play(driver):
    for preset in ("freestyle", "strip"):
        p = params_text(preset)
        outs = [run(driver, f"new 512 {t} 0 0 0 77 {p}\nrandom 300\nrollout 200\n") for t in (1, 2)]
        assert outs[0] == outs[1]


def test_rule_vectors_under_sanitizers(driver):
    empty = "." * 15
    rows = [empty] * 7 + [".....XX.XX....."] + [empty] * 7
    script = [
        f"new 1 1 2 0 0 1 {params_text('caro')}",
        "load 0 b " + " ".join(rows),
        "step 112",
        f"new 1 1 2 0 0 1 {params_text('caro', caro_ends='gomocup6')}",
        "load 0 b " + " ".join([empty] * 7 + ["....OXXX.XXO..."] + [empty] * 7),
        "step 113",
        f"new 1 1 2 0 0 1 {params_text('torus', height=4, width=8)}",
        "load 0 b " + " ".join(["X......."] * 3 + ["........"]),
        "step 24",
        "windows 5",
        f"new 1 1 2 0 0 1 {params_text('strip')}",
        "windows 5",
        "new 1 1 2 0 0 1 geometry=plane size=40",
        f"new 1 1 2 0 0 1 {params_text('freestyle')}",
        "load 0 w " + " ".join([empty] * 7 + ["...XXXXX.......", "...OOOO........"] + [empty] * 6),
    ]
    out = run(driver, "\n".join(script) + "\n")
    assert out[2] == "1 0 0 1"  # open five wins
    assert out[5] == "1 0 0 1"  # caro6 overline of six wins
    assert out[8] == "0 -1 0 0"  # a 4-cycle of stones is not five
    assert out[9] == "ok 96"  # rows: 4 x 8, diagonals: 2 x 32; no column fits 5
    assert out[11] == "ok 276"
    assert out[12].startswith("error parameter 'size'")
    assert out[14] == "error the position is already won (a five is on the board)"


SELFPLAY = [
    ("freestyle", {}),
    ("caro", {}),
    ("strip", {}),
    ("torus", {"size": 9}),
    ("renju", {}),
    ("renju", {"forbidden": "lose", "protocol": "free"}),
    ("renju-soosorv8", {}),
    ("freestyle-swap2", {}),
    ("gomorpion", {"size": 9}),
    ("hex", {"order": 5, "edge": "bounce"}),
    ("modlinseq", {"order": 4, "modulus": 9, "copies": 2}),
    ("connect6", {"size": 11}),
    ("pente", {"size": 11}),
]


@pytest.mark.parametrize("preset,overrides", cases(SELFPLAY, {0, 4, 6, 8, 10, 11, 12}))
def test_players_and_writer_under_sanitizers(driver, tmp_path, preset, overrides):
    """Heuristic against MCTS (heuristic playouts), every step recorded with its
    observation and policy and written to HDF5, then the threat player against
    the heuristic; each game replayed from its keys reproduces the recorded
    observations."""
    p = params_text(preset, **overrides)
    out_file = tmp_path / "games.h5"
    script = [
        f"new 3 2 0 0 0 5 {p}",
        f"selfplay 4 1 2 12 1 1 {out_file}",
        f"selfplay 6 0 0 1 1 0 {tmp_path / 'fast.h5'} 2",
        "selfplay 6 0 0 1 1 0 -",
        "selfplay 2 3 1 1000 1 1 -",
        "selfplay 2 6 3 1000 1 1 -",  # threat with MCTS at its root against threat
    ]
    out = run(driver, "\n".join(script) + "\n")
    assert out[0].startswith("ok"), out
    for line in out[1:]:
        assert line.startswith("ok games="), line
        assert line.endswith("mismatches=0"), line
    assert out_file.exists()


PVS = [
    ("freestyle", {"size": 11}),
    ("standard", {"size": 11}),
    ("caro", {"size": 11}),
    ("caro", {"size": 11, "caro_ends": "gomocup6"}),
    ("renju", {"size": 11}),
    ("renju", {"size": 11, "forbidden": "lose", "protocol": "free"}),
    ("torus", {"size": 9}),
    ("strip", {}),
    ("hex", {"order": 5, "edge": "bounce"}),
]


@pytest.mark.parametrize("preset,overrides", cases(PVS, {0, 4, 5, 8}))
def test_pvs_under_sanitizers(driver, preset, overrides):
    """pvs against the heuristic and against itself from an opening book,
    policies recorded; every game replayed from its keys reproduces its
    observations, and starts with its opening's stones."""
    p = params_text(preset, **overrides)
    script = [
        f"new 4 2 0 0 0 7 {p}",
        "book 1",
        "selfplay 4 5 1 300 1 1 -",  # kind 5: pvs
        "selfplay 4 5 5 300 0 0 -",
        "book 0",
        "selfplay 2 1 5 300 1 1 -",
    ]
    out = run(driver, "\n".join(script) + "\n")
    assert out[0].startswith("ok") and out[1] == "ok" and out[4] == "ok", out
    for line in (out[2], out[3], out[5]):
        assert line.startswith("ok games="), line
        assert line.endswith("mismatches=0"), line


@pytest.mark.parametrize(
    "preset,overrides,why",
    [
        ("gomorpion", {"size": 9}, "player 0: player 'pvs' does not play rule 'gomorpion'"),
        ("freestyle-swap2", {}, "openings need games that start in normal play"),
    ],
)
def test_pvs_refusals_under_sanitizers(driver, preset, overrides, why):
    p = params_text(preset, **overrides)
    out = run(driver, f"new 2 1 0 0 0 1 {p}\nbook 1\nselfplay 2 5 1 100 0 0 -\n")
    assert out[2].startswith("error") and why in out[2], out


def test_shards_under_sanitizers(driver, tmp_path):
    """Games played in shards from their first game numbers, each written as a
    one-segment dataset, assembled into a file naming them and packed (the
    offsets rebuilt); the packed file holds every game once, in order."""
    import h5py

    path = tmp_path / "sharded.h5"
    out = run(driver, f"new 5 2 0 0 0 3 {params_text('freestyle', size=9)}\nshards 23 4 {path}\n")
    assert out[0].startswith("ok") and out[1] == "ok shards=4 games=23", out
    with h5py.File(path) as f:
        assert f.attrs["layout"] == "packed"
        np.testing.assert_array_equal(f["g/episodes/game"][()], np.arange(23))
        lengths = f["g/episodes/length"][()]
        offsets = f["g/episodes/offset"][()]
        np.testing.assert_array_equal(offsets, np.concatenate([[0], np.cumsum(lengths)[:-1]]))


def test_chunk_encodings_under_sanitizers(driver):
    """The writer's chunk encoders (zlib, and the fast repeated-byte/stored one)
    on random, repeated and mixed data of every size class: zlib inflates each
    back to the data, unshuffled."""
    out = run(driver, "chunks 7\n")
    assert out == ["ok cases=252 failures=0"], out


WINS = [
    ("freestyle", {}),
    ("standard", {}),
    ("caro", {}),
    ("caro", {"caro_ends": "open"}),
    ("strip", {}),
    ("torus", {"size": 9}),
    ("renju", {}),
    ("renju", {"forbidden": "lose", "protocol": "free"}),
    ("freestyle-swap2", {}),
    ("hex", {}),
    ("hex", {"order": 5, "edge": "bounce"}),
    ("hex", {"order": 6, "edge": "wrap"}),
]


@pytest.mark.parametrize("preset,overrides", cases(WINS, {0, 2, 6, 10}))
def test_winning_moves_equal_a_scan_of_every_cell(driver, preset, overrides):
    """The search's immediate wins (found through the lines that hold k - 1
    stones) are exactly the legal cells that win, in cell order."""
    p = params_text(preset, **overrides)
    out = run(driver, f"new 64 2 0 0 0 11 {p}\nwins 150\n")
    assert out[0].startswith("ok"), out
    assert out[1].startswith("ok"), out
    assert int(out[1].split()[1]) > 0  # positions with a win to take were met


SEARCH = [
    ("freestyle", {"size": 9}),
    ("renju-soosorv8", {}),
    ("freestyle-swap2", {}),
    ("strip", {}),
    ("gomorpion", {"size": 9}),
    ("hex", {"order": 4, "edge": "bounce"}),
    ("modlinseq", {"order": 4, "modulus": 9, "copies": 2}),
    ("connect6", {"size": 9}),
    ("pente", {"size": 9, "pente_opening": "free"}),
]


@pytest.mark.parametrize("preset,overrides", cases(SEARCH, {0, 1, 4, 6, 7, 8}))
def test_search_under_sanitizers(driver, preset, overrides):
    """Uniform PUCT search, moves played and subtrees reused, across episode
    ends (next-step and disabled autoreset)."""
    p = params_text(preset, **overrides)
    script = [
        f"new 6 2 0 0 0 3 {p}",
        "search 24 4 40",
        f"new 4 1 2 0 0 3 {p}",
        "search 16 8 12",
        f"new 5 2 0 0 1 4 {p}",  # mover observations
        "search 12 4 20 1",  # every move first selects a round and undoes it
    ]
    out = run(driver, "\n".join(script) + "\n")
    assert all(line.startswith("ok") for line in out), out
    assert int(out[1].split("nodes=")[1]) > 0
    assert int(out[5].split("nodes=")[1]) > 0


SOLVE = [
    ("freestyle", {}),
    ("standard", {"size": 11}),
    ("caro", {"size": 11, "caro_ends": "not_both_blocked"}),
    ("renju", {}),
    ("renju", {"forbidden": "lose", "protocol": "free", "size": 11}),
    ("torus", {"size": 11}),
    ("strip", {}),
    ("hex", {"order": 5, "edge": "bounce"}),
    ("freestyle-swap2", {}),
]


@pytest.mark.parametrize("preset,overrides", cases(SOLVE, {0, 3, 7}))
def test_solver_under_sanitizers(driver, preset, overrides):
    """VCF and VCT on every board of random games, in parallel; every line
    found replays to the attacker's win."""
    p = params_text(preset, **overrides)
    script = [f"new 8 2 0 0 0 9 {p}", "solve 40 0 12 20000", "solve 6 1 5 3000"]
    out = run(driver, "\n".join(script) + "\n")
    assert out[0].startswith("ok"), out
    assert out[1].startswith("ok wins="), out
    assert out[2].startswith("ok wins="), out
    assert int(out[1].split("wins=")[1].split()[0]) > 0  # positions with a VCF were met


def test_solver_refuses_scoring_games(driver):
    out = run(driver, f"new 2 1 0 0 0 1 {params_text('gomorpion', size=9)}\nsolve 1 0 4 100\n")
    assert out[1].startswith("refused rule 'gomorpion'"), out


BATCHES = [  # (preset, overrides, symmetries of the raster the driver applies)
    ("freestyle", {}, 8),
    ("freestyle", {"height": 9, "width": 13}, 4),
    ("torus", {"size": 9}, 9),
    ("renju-soosorv8", {}, 8),
    ("strip", {}, 1),
    ("gomorpion", {"size": 32}, 8),  # two 16-byte halves per row
    ("hex", {"order": 5}, 1),
    ("modlinseq", {"geometry": "torus", "size": 7, "modulus": 9, "copies": 2}, 9),
    ("connect6", {"size": 9}, 8),
    ("pente", {"size": 9}, 8),
]


@pytest.mark.parametrize("preset,overrides,symmetries", cases(BATCHES, {0, 3, 5, 7, 8, 9}))
def test_batch_farm_under_sanitizers(driver, preset, overrides, symmetries):
    """Every position of a few games rebuilt by the batch farm (csrc/io/training_batches.c,
    plane_map.c) under the raster's symmetries, in both observation kinds on 2
    threads, equals its replay moved by the same symmetry."""
    p = params_text(preset, **overrides)
    out = run(driver, f"new 4 2 0 0 0 5 {p}\nbatches 4\n")
    assert out[0].startswith("ok"), out
    assert out[1].startswith("ok games=4"), out
    assert f"symmetries={symmetries} " in out[1] and out[1].endswith("mismatches=0"), out


NET_PLAY = [("freestyle", {"size": 9}), ("freestyle-swap2", {"size": 9}), ("renju", {"size": 11})]


@pytest.mark.parametrize("preset,overrides", cases(NET_PLAY, {0, 1}))
def test_net_player_under_sanitizers(driver, tmp_path, preset, overrides):
    """A small network file written here (fiverow.nets.export): its reader
    on a truncated copy, the forward pass in the net player's policy and
    PUCT search against the heuristic on two threads (games replayed and
    compared) and as the opponent in the loop."""
    import torch

    from fiverow import nets
    from fiverow.nets.model import Net

    env = fiverow.make_vec(preset, num_envs=1, **overrides)
    shape, n_actions = env.single_observation_space.shape, env.n_actions
    env.close()
    torch.manual_seed(0)
    path = tmp_path / "small.fnet"
    nets.export(
        Net(shape, n_actions, 2, 5, policy_channels=1, value_hidden=6),
        path,
        preset,
        params=overrides,
    )
    p = params_text(preset, **overrides)
    script = [f"new 4 2 0 0 0 5 {p}", f"net {path} 0 6", f"net {path} 6 4"]
    out = run(driver, "\n".join(script) + "\n")
    assert len(out) == 5 and out[0].startswith("ok"), out
    for games_line, steps_line in ((out[1], out[2]), (out[3], out[4])):
        assert games_line.startswith("ok games=") and games_line.endswith("mismatches=0"), out
        assert steps_line.startswith("ok"), out
