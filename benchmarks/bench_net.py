"""The net player's targets (issue 30): strength and speed, JSON lines.

    python benchmarks/bench_net.py                       # all three, net:freestyle
    python benchmarks/bench_net.py --only speed          # moves per second
    python benchmarks/bench_net.py --only strength --games 200
    python benchmarks/bench_net.py --only conv           # direct 3x3 loops vs im2col (C)
    python benchmarks/bench_net.py --net net:freestyle-9x9 --variant freestyle --param size=9

- strength: ``--net`` (the policy alone) against ``heuristic``, and ``--net``
  with ``--simulations`` (default 64) against ``mcts:400``; ``--games`` games
  each (default 200), seats alternated game by game, every game opening
  with ``--random-plies`` random plies (default 2; both players are
  deterministic otherwise). Each line: wins, losses, draws, the score (wins
  + draws / 2) with its 95% interval and the target (score >= 0.5).
- speed: the policy alone on ``--boards`` boards (default 1024) with
  ``--threads`` threads (default 2), ``--steps`` moves from the start of the
  games (act() only, not the env's step); the target is 1,000 moves/s.
- conv: benchmarks/c/net_conv.c built with the extension's flags, the 3x3
  convolution of the forward pass as direct loops (what the player runs)
  and as im2col + a blocked matrix product, on 15x15 and 9x9, 32 channels.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

import fiverow
from fiverow import players
from fiverow.cli import parse_params

ROOT = Path(__file__).resolve().parent.parent


class Opening:
    """Random moves for the first ``plies`` plies of every game, then the
    player's (a Python agent around a built-in player: the games differ)."""

    def __init__(self, player: Any, plies: int) -> None:
        self.player, self.plies = player, plies
        self.name = player.name

    def act(self, env: Any) -> np.ndarray:
        actions = np.asarray(self.player.act(env))
        ply = env.unwrapped.pool.groups[env.config.name].episode_length
        return np.where(ply < self.plies, env.sample_legal(), actions)


def strength(args: argparse.Namespace, a: str, b: str, params: dict) -> dict[str, Any]:
    start = time.perf_counter()
    pa, pb = players.make(a), players.make(b)
    result = fiverow.Match(
        args.variant,
        Opening(pa, args.random_plies),
        Opening(pb, args.random_plies),
        games=args.games,
        seed=args.seed,
        num_threads=args.threads,
        params=params,
    ).play()
    score = result.total()
    s, low, high = score.score_interval()
    return {
        "variant": args.variant,
        "params": params,
        "player_a": pa.name,
        "player_b": pb.name,
        "games": score.games,
        "random_plies": args.random_plies,
        "a_wins": score.wins,
        "a_losses": score.losses,
        "draws": score.draws,
        "a_score": round(s, 4),
        "a_score_ci95": [round(low, 4), round(high, 4)],
        "target": "a_score >= 0.5",
        "met": bool(s >= 0.5),
        "seconds": round(time.perf_counter() - start, 1),
    }


def speed(args: argparse.Namespace, params: dict) -> dict[str, Any]:
    env = fiverow.make_vec(
        args.variant, num_envs=args.boards, seed=1, num_threads=args.threads, **params
    )
    env.reset(seed=1)
    player = players.make(args.net)
    spent = 0.0
    moves = 0
    for _ in range(args.steps):
        start = time.perf_counter()
        actions = player.act(env)
        spent += time.perf_counter() - start
        moves += args.boards
        env.step(actions)
    env.close()
    rate = moves / spent
    return {
        "variant": args.variant,
        "params": params,
        "player": player.name,
        "boards": args.boards,
        "threads": args.threads,
        "moves": moves,
        "seconds": round(spent, 2),
        "moves_per_s": round(rate, 1),
        "target": "moves_per_s >= 1000",
        "met": bool(rate >= 1000),
    }


def conv(repeats: int) -> list[dict[str, Any]]:
    spec = importlib.util.spec_from_file_location("fiverow_setup", ROOT / "setup.py")
    assert spec and spec.loader
    setup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup)
    flags = [f for f in setup.compile_args() if not f.startswith("-flto")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        exe = str(Path(tmp) / "net_conv")
        sources = [
            ROOT / "csrc" / "players" / "net_conv.c",
            ROOT / "benchmarks" / "c" / "net_conv.c",
        ]
        cmd = ["gcc", *flags, f"-I{ROOT / 'csrc'}", *map(str, sources), "-lm", "-o", exe]
        subprocess.run(cmd, check=True)
        for side in (15, 9):
            out = subprocess.run(
                [exe, str(side), str(side), "32", str(repeats)],
                check=True,
                capture_output=True,
                text=True,
            )
            rows.append(json.loads(out.stdout))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", choices=["strength", "speed", "conv"], default=None)
    parser.add_argument("--net", default="net:freestyle", help="the net player (policy alone)")
    parser.add_argument("--variant", default="freestyle")
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--simulations", type=int, default=64, help="the search's, vs --mcts")
    parser.add_argument("--mcts", default="mcts:400", help="the search's opponent")
    parser.add_argument("--opponent", default="heuristic", help="the policy's opponent")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--random-plies", type=int, default=2)
    parser.add_argument("--boards", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2000, help="convolutions timed (conv)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    params = parse_params(args.param)
    if args.only in (None, "speed"):
        print(json.dumps(speed(args, params)), flush=True)
    if args.only in (None, "strength"):
        searched = players.make(args.net, simulations=args.simulations).name
        for a, b in ((args.net, args.opponent), (searched, args.mcts)):
            print(json.dumps(strength(args, a, b, params)), flush=True)
    if args.only in (None, "conv"):
        for row in conv(args.repeats):
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
