"""Dataset generation throughput: JSON lines of recorded steps per second.

For each (variant, players) the same self-play run (same seed, same boards)
is timed twice: with the HDF5 writer (the file packed at the end, included in
the time) and without it (the games still recorded into the episode buffers,
nothing written). The cost of recording is the relative difference; bytes
per step is the packed file's size over the steps.

    python benchmarks/bench_generate.py                        # random freestyle, 2 threads
    python benchmarks/bench_generate.py --players heuristic --games 20000
    python benchmarks/bench_generate.py --obs --games 20000    # observations recorded too
    python benchmarks/bench_generate.py --chunks auto,zlib,fast --gzip 4,1,0   # the encodings

Every setting named in --chunks x --gzip is timed in turn in each repeat, so
they are compared under the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time

from fiverow import players
from fiverow.generate import generate
from fiverow.match import mixed_pool
from fiverow.selfplay import Pairing, default_boards, new_selfplay, run


def without_writer(
    variant: str, player: str, games: int, threads: int, seed: int, obs: bool, boards: int
) -> float:
    """Seconds for the same run with every step recorded in memory and nothing
    written: the pool, the players and the games, as generate() times them."""
    start = time.perf_counter()
    p = players.make(player)
    pool = mixed_pool(variant, boards, None, seed, threads)
    sp = new_selfplay(pool, Pairing(p, p, alternate=False), seed, record_obs=obs)
    run(sp, games)
    return time.perf_counter() - start


def with_writer(
    variant: str,
    player: str,
    games: int,
    threads: int,
    seed: int,
    obs: bool,
    gzip: int,
    chunks: str,
    boards: int,
) -> tuple[float, int, int]:
    """Seconds, steps and file bytes of the same run written to HDF5."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.h5")
        start = time.perf_counter()
        r = generate(
            path,
            variant,
            games=games,
            black=player,
            seed=seed,
            num_threads=threads,
            obs=obs,
            gzip=gzip,
            chunks=chunks,
            boards=boards,
        )
        seconds = time.perf_counter() - start
        return seconds, r.steps, os.path.getsize(path)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--variants", default="freestyle")
    parser.add_argument("--players", default="random", help="comma-separated player names")
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--gzip", default="4", help="comma-separated levels")
    parser.add_argument("--chunks", default="auto", help="comma-separated: auto, zlib, fast")
    parser.add_argument("--obs", action="store_true")
    parser.add_argument("--boards", type=int, default=None, help="default: min(games, 4096)")
    args = parser.parse_args()
    boards = args.boards or default_boards(args.games)
    settings = [
        (chunks, int(level)) for chunks in args.chunks.split(",") for level in args.gzip.split(",")
    ]
    for variant in args.variants.split(","):
        for player in args.players.split(","):
            plain: list[float] = []
            written: dict[tuple[str, int], list[float]] = {s: [] for s in settings}
            sizes: dict[tuple[str, int], int] = {}
            steps = 0
            for r in range(args.repeats):
                plain.append(
                    without_writer(variant, player, args.games, args.threads, r, args.obs, boards)
                )
                for chunks, level in settings:
                    seconds, steps, size = with_writer(
                        variant,
                        player,
                        args.games,
                        args.threads,
                        r,
                        args.obs,
                        level,
                        chunks,
                        boards,
                    )
                    written[(chunks, level)].append(seconds)
                    sizes[(chunks, level)] = size
            best_plain = min(plain)
            for (chunks, level), times in written.items():
                print(
                    json.dumps(
                        {
                            "variant": variant,
                            "players": player,
                            "games": args.games,
                            "threads": args.threads,
                            "boards": boards,
                            "obs": args.obs,
                            "gzip": level,
                            "chunks": chunks,
                            "steps": steps,
                            "recorded_steps_per_s": round(steps / min(times)),
                            "median_recorded_steps_per_s": round(steps / statistics.median(times)),
                            "unrecorded_steps_per_s": round(steps / best_plain),
                            "median_unrecorded_steps_per_s": round(
                                steps / statistics.median(plain)
                            ),
                            "recording_cost": round(min(times) / best_plain - 1, 3),
                            "median_recording_cost": round(
                                statistics.median(times) / statistics.median(plain) - 1, 3
                            ),
                            "bytes_per_step": round(sizes[(chunks, level)] / steps, 3),
                        }
                    ),
                    flush=True,
                )


if __name__ == "__main__":
    main()
