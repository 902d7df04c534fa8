"""Batched PUCT search throughput: JSON lines.

Without a network (``--mode uniform``): the whole search in C with uniform
priors and zero values (``MCTS.run_uniform``), one tree per board, fresh trees
each move; simulations per second over all trees, for 1 and 2 threads.

With a network (``--mode network``, needs torch): self-play moves per second
of examples/alphazero.py's loop (its residual network, its search settings)
and where the time goes: the search in C, the network, the env, recording.

    python benchmarks/bench_search.py                          # both
    python benchmarks/bench_search.py --mode uniform --trees 1024 --simulations 256
    python benchmarks/bench_search.py --mode network --envs 128 --moves 30
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import fiverow
from fiverow.search import MCTS


def uniform(
    variant: str, size: int, trees: int, simulations: int, leaves: int, threads: int, repeats: int
) -> dict[str, object]:
    params = {"size": size} if size else {}
    env = fiverow.make_vec(variant, num_envs=trees, seed=0, num_threads=threads, **params)
    env.reset(seed=0)
    mcts = MCTS(
        env, simulations=simulations, leaves_per_round=leaves, reuse_tree=False, dirichlet_alpha=0.0
    )
    mcts.run_uniform()  # warm-up: memory for the trees
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        mcts.run_uniform()
        rates.append(trees * simulations / (time.perf_counter() - start))
    return {
        "mode": "uniform",
        "variant": variant,
        "size": size or None,
        "trees": trees,
        "simulations": simulations,
        "leaves_per_round": leaves,
        "threads": threads,
        "sims_per_s_median": round(statistics.median(rates)),
        "sims_per_s_best": round(max(rates)),
    }


def network(envs: int, moves: int, threads: int | None, extra: list[str]) -> dict[str, object]:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
    import alphazero  # examples/alphazero.py: its network and self-play loop
    import torch

    with tempfile.TemporaryDirectory() as tmp:
        argv = ["--envs", str(envs), "--out", tmp, *extra]
        if threads:
            argv += ["--threads", str(threads)]
        args = alphazero.parse_args(argv)
        if args.threads:
            torch.set_num_threads(args.threads)
        params = {"size": args.size} if args.size else {}
        sp = alphazero.SelfPlay(args, params, Path(tmp))
        net = alphazero.Net(
            sp.env.single_observation_space.shape, sp.env.n_actions, args.blocks, args.channels
        )
        sp.step(net)  # warm-up
        sp.seconds = dict.fromkeys(sp.seconds, 0.0)
        sp.moves = 0
        start = time.perf_counter()
        for _ in range(moves):
            sp.step(net)
        total = time.perf_counter() - start
        sp.writer.close()
    return {
        "mode": "network",
        "variant": args.variant,
        "size": args.size,
        "envs": envs,
        "simulations": args.simulations,
        "leaves_per_round": args.leaves,
        "network": f"{args.blocks} blocks x {args.channels} channels",
        "torch_threads": torch.get_num_threads(),
        "moves_per_s": round(sp.moves / total, 1),
        "sims_per_s": round(sp.moves * args.simulations / total),
        "share": {k: round(v / total, 3) for k, v in sp.seconds.items()},
    }


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--mode", choices=["uniform", "network", "both"], default="both")
    p.add_argument("--variant", default="freestyle")
    p.add_argument("--size", type=int, default=0, help="uniform mode: board size (0: preset)")
    p.add_argument("--trees", type=int, default=1024)
    p.add_argument("--simulations", type=int, default=256)
    p.add_argument("--leaves", type=int, default=8)
    p.add_argument("--threads", default="1,2", help="uniform mode: thread counts to run")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--envs", type=int, default=128, help="network mode: boards")
    p.add_argument("--moves", type=int, default=20, help="network mode: moves timed")
    args, extra = p.parse_known_args()  # network mode passes the rest to alphazero.py
    if args.mode in ("uniform", "both"):
        for t in (int(x) for x in args.threads.split(",")):
            r = uniform(
                args.variant, args.size, args.trees, args.simulations, args.leaves, t, args.repeats
            )
            print(json.dumps(r), flush=True)
    if args.mode in ("network", "both"):
        print(json.dumps(network(args.envs, args.moves, None, extra)), flush=True)


if __name__ == "__main__":
    main()
