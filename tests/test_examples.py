"""The training examples run end to end (a few iterations, tiny settings), so
they never rot: examples/alphazero.py and examples/ppo.py."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import fiverow
import fiverow.sb3

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_alphazero_example_runs_and_writes_its_outputs(tmp_path):
    az = load("alphazero")
    out = tmp_path / "az"
    argv = [
        "--size",
        "7",
        "--envs",
        "8",
        "--simulations",
        "8",
        "--leaves",
        "4",
        "--blocks",
        "1",
        "--channels",
        "8",
        "--batch-size",
        "16",
        "--max-iterations",
        "40",
        "--eval-games",
        "4",
        "--eval-every",
        "1e9",
        "--threads",
        "1",
        "--out",
        str(out),
    ]
    summary = az.main(argv)
    assert summary["iterations"] == 40
    assert summary["games"] > 0
    for name in ("selfplay.h5", "curve.json", "curve.png", "net.pt", "net.fnet", "summary.json"):
        assert (out / name).exists(), name
    assert fiverow.nets.inspect(out / "net.fnet")["height"] == 7  # the C net player's file
    curve = json.loads((out / "curve.json").read_text())
    assert len(curve) == 2  # before training and at the end
    for point in curve:
        for key in ("search vs random", "search vs heuristic", "policy vs random"):
            rate, low, high, draws, games, score, s_low, s_high = point[key]
            assert 0 <= low <= rate <= high <= 1
            assert games == 4 and score == pytest.approx(rate + draws / (2 * games))
            assert 0 <= s_low <= score <= s_high <= 1
    # the self-play games went through the HDF5 writer with their search policies
    with fiverow.data.open(out / "selfplay.h5") as ds:
        assert len(ds) == summary["games"]
        games = ds[ds.variants[0]]
        ep = games.episode(0)
        assert ep.policy is not None
        policy = ep.policy.astype(np.float64)
        np.testing.assert_allclose(policy.sum(axis=1), 1.0, atol=2e-2)
        assert np.all(policy[np.arange(ep.length), ep.actions] > 0)  # moves the search visited
        # the recorded moves replay as legal moves of the rebuilt games
        replayed = games.replay(0)
        assert np.all(replayed.masks[np.arange(ep.length), replayed.actions])


def test_alphazero_example_evaluates_a_saved_network(tmp_path):
    az = load("alphazero")
    small = [
        "--size",
        "7",
        "--envs",
        "4",
        "--simulations",
        "4",
        "--blocks",
        "1",
        "--channels",
        "8",
        "--eval-games",
        "2",
        "--threads",
        "1",
    ]
    az.main([*small, "--max-iterations", "1", "--out", str(tmp_path / "a")])
    summary = az.main(
        [
            *small,
            "--load",
            str(tmp_path / "a" / "net.pt"),
            "--minutes",
            "0",
            "--out",
            str(tmp_path / "b"),
        ]
    )
    assert summary["iterations"] == 0 and len(summary["curve"]) == 1
    with pytest.raises(RuntimeError):  # a network of another shape
        az.main(
            [
                *small[:-4],
                "--channels",
                "16",
                "--threads",
                "1",
                "--minutes",
                "0",
                "--load",
                str(tmp_path / "a" / "net.pt"),
                "--out",
                str(tmp_path / "c"),
            ]
        )


def test_alphazero_example_refuses_bad_settings(tmp_path):
    az = load("alphazero")
    with pytest.raises(SystemExit):
        az.main(["--envs", "0", "--out", str(tmp_path)])


def test_ppo_example_runs_and_learns_something(tmp_path):
    ppo = load("ppo")
    out = tmp_path / "ppo"
    argv = [
        "--size",
        "7",
        "--envs",
        "16",
        "--num-steps",
        "12",
        "--channels",
        "8",
        "--max-iterations",
        "4",
        "--eval-games",
        "4",
        "--eval-every",
        "1e9",
        "--threads",
        "1",
        "--out",
        str(out),
    ]
    summary = ppo.main(argv)
    assert summary["iterations"] == 4
    assert summary["episodes"] > 0
    assert (out / "ppo.pt").exists()
    curve = json.loads((out / "curve.json").read_text())
    assert len(curve) == 2
    assert {"policy_loss", "value_loss", "entropy"} <= set(curve[-1])


@pytest.mark.parametrize("opponent", ["self", "heuristic"])
def test_ppo_example_opponents(tmp_path, opponent):
    ppo = load("ppo")
    summary = ppo.main(
        [
            "--size",
            "7",
            "--envs",
            "8",
            "--num-steps",
            "8",
            "--channels",
            "8",
            "--max-iterations",
            "2",
            "--eval-games",
            "2",
            "--eval-every",
            "1e9",
            "--opponent",
            opponent,
            "--threads",
            "1",
            "--out",
            str(tmp_path),
        ]
    )
    assert summary["iterations"] == 2


def test_ppo_example_names_a_bad_opponent(tmp_path):
    ppo = load("ppo")
    with pytest.raises(ValueError, match="player kind"):
        ppo.main(["--opponent", "grandmaster", "--out", str(tmp_path)])


def test_alphazero_example_learns_from_a_teacher_first(tmp_path):
    """--teacher: the teacher's games (generated in C with observations and
    policies) fill the training window and the first iterations train on
    them, without self-play."""
    az = load("alphazero")
    out = tmp_path / "teach"
    argv = [
        *["--size", "7", "--envs", "4", "--simulations", "4", "--leaves", "2"],
        *["--blocks", "1", "--channels", "8", "--batch-size", "16", "--eval-games", "2"],
        *["--eval-every", "1e9", "--threads", "1", "--out", str(out)],
        *["--teacher", "heuristic(epsilon=0.1)", "--teacher-games", "20", "--teacher-steps", "10"],
        *["--max-iterations", "5"],
    ]
    summary = az.main(argv)
    assert summary["teacher_games"] == 20
    assert summary["moves"] == 0, "the five iterations all trained on the teacher's games"
    assert (out / "teacher.h5").exists()
    assert math.isfinite(summary["curve"][-1]["loss"])


def test_alphazero_teacher_meets_its_opponent_from_both_seats(tmp_path):
    """--teacher-opponent: half the teacher's games as black, half as white."""
    az = load("alphazero")
    out = tmp_path / "teach2"
    argv = [
        *["--size", "7", "--envs", "4", "--simulations", "4", "--leaves", "2"],
        *["--blocks", "1", "--channels", "8", "--batch-size", "16", "--eval-games", "2"],
        *["--eval-every", "1e9", "--threads", "1", "--out", str(out), "--max-iterations", "1"],
        *["--teacher", "threat(nodes=2000)", "--teacher-opponent", "random"],
        *["--teacher-games", "12", "--teacher-steps", "2", "--eval-opponents", "random"],
    ]
    az.main(argv)
    for name, teacher_seat in (("teacher.h5", 0), ("teacher-white.h5", 1)):
        with fiverow.data.open(out / name) as ds:
            games = ds[ds.variants[0]]
            assert len(games) == 6
            # the threat player beats random from either seat
            assert all(games.episode(i).winner == teacher_seat for i in range(6))


def test_alphazero_search_agent_plays_the_solvers_win(tmp_path):
    """The root solver: where a forced win exists, the search agent plays its
    first move, whatever an untrained network would pick."""
    az = load("alphazero")
    env = fiverow.make_vec("freestyle", num_envs=2, seed=0, size=9)
    env.reset(seed=0)
    rows = ["." * 9] * 9
    rows[4] = "..XXX...."  # black to move: (4, 1) or (4, 5) makes an open four
    rows[0], rows[8] = "O.O......", "O........"
    for i in range(2):
        env.load_position(i, rows, to_play="black")
    net = az.Net(env.single_observation_space.shape, env.n_actions, 1, 8)
    vcf = az.SearchAgent(net, 4, 2, "vcf", 1000).act(env)
    lines = fiverow.solve.vcf_all(env)
    assert all(line is not None for line in lines)
    assert list(vcf) == [line[0] for line in lines]
    assert list(az.solver_moves(env, "none", 1)) == [-1, -1]


def test_alphazero_example_refuses_a_bad_teacher(tmp_path):
    az = load("alphazero")
    with pytest.raises(SystemExit):
        az.parse_args(["--teacher", "grandmaster", "--out", str(tmp_path)])


def test_supervised_example_trains_from_batches_and_evaluates(tmp_path):
    sl = load("supervised")
    out = tmp_path / "sl"
    summary = sl.main(
        [
            "--size",
            "7",
            "--games",
            "40",
            "--val-games",
            "8",
            "--blocks",
            "1",
            "--channels",
            "8",
            "--batch-size",
            "32",
            "--buffer",
            "512",
            "--max-steps",
            "12",
            "--log-every",
            "4",
            "--val-every",
            "8",
            "--eval-games",
            "4",
            "--eval-search-games",
            "2",
            "--eval-simulations",
            "4",
            "--threads",
            "1",
            "--out",
            str(out),
        ]
    )
    assert summary["steps"] == 12 and summary["positions_trained"] == 12 * 32
    for name in ("train.h5", "val.h5", "curve.json", "loss.png", "net.pt", "summary.json"):
        assert (out / name).exists(), name
    played = fiverow.players.make("net", path=out / "net.fnet")  # the C net player's file
    env = fiverow.make_vec("freestyle", num_envs=4, size=7)
    env.reset()
    assert env.action_masks()[np.arange(4), played.act(env)].all()
    curve = json.loads((out / "curve.json").read_text())
    assert [c["step"] for c in curve] == [4, 8, 12]
    assert all(math.isfinite(c["train_policy_loss"]) for c in curve)
    assert {"policy_loss", "value_loss", "top1_in_policy"} <= set(curve[1]["val"])
    assert set(summary["scores"]) == {
        "policy vs random",
        "policy vs heuristic",
        "search:4 vs random",
        "search:4 vs heuristic",
    }
    for score in summary["scores"].values():
        rate, low, high = score["win_rate"]
        assert 0 <= low <= rate <= high <= 1
        assert score["wins"] + score["losses"] + score["draws"] == score["games"]
    with fiverow.data.open(out / "train.h5") as ds:  # the player's games, with its policies
        assert len(ds) == 40 and ds["freestyle"].has_policy


def test_supervised_example_refuses_bad_settings(tmp_path):
    sl = load("supervised")
    with pytest.raises(SystemExit):
        sl.main(["--games", "0", "--out", str(tmp_path)])
    with pytest.raises(SystemExit):
        sl.main(["--player", "nobody", "--out", str(tmp_path)])


def test_train_baseline_example_runs_every_phase(tmp_path):
    """Teacher games (random opening plies, the teacher's policy recorded at
    every ply), supervised training through Batches, a self-play round of the
    C net player, the network file and its evaluation."""
    tb = load("train_baseline")
    out = tmp_path / "tb"
    summary = tb.main(
        [
            "freestyle-9x9",
            "--teacher",
            "heuristic",
            "--games",
            "12",
            "--val-games",
            "4",
            "--boards",
            "8",
            "--random-plies",
            "3",
            "--blocks",
            "1",
            "--channels",
            "8",
            "--batch-size",
            "32",
            "--buffer",
            "256",
            "--max-steps",
            "6",
            "--log-every",
            "3",
            "--val-every",
            "6",
            "--selfplay-rounds",
            "1",
            "--selfplay-games",
            "4",
            "--selfplay-simulations",
            "4",
            "--selfplay-steps",
            "3",
            "--eval-games",
            "4",
            "--threads",
            "1",
            "--out",
            str(out),
        ]
    )
    for name in ("teacher.h5", "val.h5", "selfplay-0.h5", "net.fnet", "net.pt", "curve.json"):
        assert (out / name).exists(), name
    with fiverow.data.open(out / "teacher.h5") as ds:
        games = ds["freestyle"]
        assert len(games) == 12 and games.has_policy
        ep = games.episode(0)
        policy = ep.policy.astype(np.float64)
        np.testing.assert_allclose(policy.sum(axis=1), 1.0, atol=2e-2)
        # after the random plies the teacher's own moves, which its policy names
        assert np.all(policy[np.arange(3, ep.length), ep.actions[3:]] > 0)
    info = fiverow.nets.inspect(out / "net.fnet")
    assert (
        info["height"] == 9 and info["blocks"] == 1 and "train_baseline.py" in info["text"]["note"]
    )
    curve = json.loads((out / "curve.json").read_text())
    phases = [c["phase"] for c in curve if "policy vs heuristic" in c]
    assert phases == ["supervised", "selfplay 1"]
    assert summary["steps"] == 9 and summary["final"]["policy vs random"]["games"] == 4
    with pytest.raises(SystemExit):
        tb.main(["freestyle-9x9", "--teacher", "nobody", "--out", str(tmp_path)])


def test_sb3_maskable_ppo_example_runs(tmp_path):
    """MaskablePPO against the opponent in the loop: random, then heuristic,
    evaluated with the opponent env itself; curve, plot and model written."""
    sb3 = load("sb3_maskable_ppo")
    out = tmp_path / "sb3"
    argv = [
        *["--size", "7", "--envs", "2", "--n-steps", "16", "--batch-size", "16"],
        *["--channels", "4", "--random-steps", "32", "--heuristic-steps", "32"],
        *["--eval-every", "32", "--eval-minutes", "1000", "--eval-games", "4"],
        *["--threads", "1", "--out", str(out)],
    ]
    env = sb3.training_env(sb3.parse_args(argv), "random", 0)
    assert isinstance(env.unwrapped, fiverow.sb3.VecEnv) and env.num_envs == 2  # one C env
    summary = sb3.main(argv)
    assert summary["timesteps"] == 64
    for name in ("curve.json", "curve.png", "model.zip", "summary.json"):
        assert (out / name).exists(), name
    curve = json.loads((out / "curve.json").read_text())
    assert [p["phase"] for p in curve][0] == "random" and curve[-1]["phase"] == "heuristic"
    for point in curve:
        for opponent in ("random", "heuristic"):
            r = point[f"vs {opponent}"]
            assert r["win"] + r["draw"] + r["loss"] == 4
            assert 0 <= r["ci"][0] <= r["rate"] <= r["ci"][1] <= 1


def test_sb3_maskable_ppo_example_refuses_bad_settings(tmp_path):
    sb3 = load("sb3_maskable_ppo")
    with pytest.raises(SystemExit):
        sb3.main(["--envs", "0", "--out", str(tmp_path)])
