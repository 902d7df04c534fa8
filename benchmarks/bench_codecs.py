"""What compressing the moves costs per core, beside what playing them costs.

Plays random freestyle games on one thread (nothing written), then encodes
the same steps' columns (action int16, seat, colour) in 65,536-row chunks,
as the writer does, with zlib through Python's binding of the same library:
levels 1 and 4, with HDF5's shuffle. Whatever thread does the work
(the writer, or the play threads between games), it needs this much CPU
per step; compare it with the play figure. JSON lines.

    python benchmarks/bench_codecs.py
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
import zlib

import numpy as np

from fiverow import data
from fiverow.generate import generate
from fiverow.match import mixed_pool
from fiverow.players import make
from fiverow.selfplay import Pairing, new_selfplay, run

CHUNK = 65536


def shuffled_chunks(column: np.ndarray) -> list[bytes]:
    out = []
    for start in range(0, len(column), CHUNK):
        c = column[start : start + CHUNK]
        planes = c.view(np.uint8).reshape(-1, c.itemsize).T
        out.append(np.ascontiguousarray(planes).tobytes())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    p = make("random")
    play = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        pool = mixed_pool("freestyle", 4096, None, 1, 1)
        sp = new_selfplay(pool, Pairing(p, p, alternate=False), 1)
        run(sp, args.games)
        play.append(time.perf_counter() - start)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "moves.h5")
        generate(path, "freestyle", games=args.games, seed=1, num_threads=1, boards=4096)
        with data.open(path) as ds:
            group = ds["freestyle"]._group
            columns = {k: group[f"steps/{k}"][()] for k in ("action", "seat", "colour")}
    steps = len(columns["action"])
    print(json.dumps({"what": "play, 1 thread", "steps_per_s": round(steps / min(play))}))
    for level in (1, 4):
        for name, column in columns.items():
            chunks = shuffled_chunks(column)
            best, size = float("inf"), 0
            for _ in range(args.repeats):
                start = time.perf_counter()
                size = sum(len(zlib.compress(c, level)) for c in chunks)
                best = min(best, time.perf_counter() - start)
            print(
                json.dumps(
                    {
                        "what": f"zlib {level}, shuffle: {name}",
                        "steps_per_s": round(steps / best),
                        "bytes_per_step": round(size / steps, 3),
                    }
                )
            )


if __name__ == "__main__":
    main()
