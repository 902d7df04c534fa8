"""Self-play on a local Ray: the speed-up from 1 to 2 workers (JSON lines).

For each worker count a local Ray of that many CPUs is started, the same
run (seed, players, boards) is written with ``generate(..., ray=True)``
(the shards' files are sent back, kept and packed: all inside the time;
Ray's start is not), and the time is compared with the same run without
Ray on one thread. The files are checked to hold the same games.

    python benchmarks/bench_distributed.py                       # heuristic, 2000 games
    python benchmarks/bench_distributed.py --players random --games 200000
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import h5py
import numpy as np
import ray

from fiverow.generate import generate


def timed(out: str, args: argparse.Namespace, **kw: object) -> tuple[float, int]:
    start = time.perf_counter()
    r = generate(
        out, args.variant, games=args.games, black=args.players, seed=1, overwrite=True, **kw
    )
    return time.perf_counter() - start, r.steps


def same_games(a: str, b: str) -> bool:
    with h5py.File(a) as fa, h5py.File(b) as fb:
        v = fa.attrs["variants"].split("\n")[0]
        return all(
            np.array_equal(fa[v][k][()], fb[v][k][()])
            for k in ("steps/action", "episodes/length", "episodes/seed", "episodes/winner")
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="freestyle")
    parser.add_argument("--players", default="heuristic")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ref = os.path.join(tmp, "ref.h5")
        best = min(timed(ref, args, num_threads=1)[0] for _ in range(args.repeats))
        steps = timed(ref, args, num_threads=1)[1]
        print(json.dumps({"players": args.players, "games": args.games, "ray": False,
                          "threads": 1, "seconds": round(best, 3),
                          "steps_per_s": round(steps / best)}))  # fmt: skip
        for workers in map(int, args.workers.split(",")):
            ray.init(num_cpus=workers, include_dashboard=False)
            out = os.path.join(tmp, f"ray{workers}.h5")
            times = [timed(out, args, ray=True)[0] for _ in range(args.repeats)]
            ray.shutdown()
            print(
                json.dumps(
                    {
                        "players": args.players,
                        "games": args.games,
                        "ray": True,
                        "workers": workers,
                        "seconds": round(min(times), 3),
                        "steps_per_s": round(steps / min(times)),
                        "vs_no_ray_1_thread": round(best / min(times), 2),
                        "same_games": same_games(ref, out),
                    }
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
