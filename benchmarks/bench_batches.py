"""Training batches: JSON lines of positions per second into batches of 256.

For each variant, heuristic-vs-heuristic games are written twice with the same
seed (so the same games): moves only, and with observations (``--obs``). In the
same run, on the same games:

- ``batches``: ``fiverow.data.Batches`` over the moves-only file, an epoch of
  batches of 256 with random symmetries and shuffling (1 and ``--threads``
  threads);
- ``replay``: today's per-episode loop, ``VariantData.replay(i, symmetry=k)``
  with a random k for every episode;
- ``h5py_bulk``: h5py reads of the stored observations, in slices of 4096 in
  file order (the fastest h5py gets);
- ``h5py_random``: h5py reads of random minibatches of 256 stored
  observations (sorted indices, as h5py needs), the way a shuffling loader
  without fiverow reads; ``h5py_cached`` the same with a chunk cache as large
  as the decompressed observations (each chunk is decompressed once);
  ``h5py_window``: contiguous slices of 256 at random places (no shuffle of
  positions across games, the cheapest random read).

The slow loops stop after ``--budget`` seconds (their rate is what counts).
The machine is shared: compare loops of the same run (ratios), not runs.

``--loader`` measures the torch DataLoader recipe of docs/hdf5.md instead: an
epoch of the moves-only file at batches of 256 and 2048 (``--batch-sizes``),
``in_process`` (``Batches`` in this process, ``--threads`` threads) against
``dataloader`` (``DataLoader(TorchBatches(...), batch_size=None,
num_workers=--workers)``, worker start-up included, as every epoch pays it)
and ``dataloader_dicts`` (the same, each batch sent as a dict of tensors, one
tensor at a time, as TorchBatches sent them before it packed them); the
kinds alternate, ``--repeats`` epochs each, the best counts.

    python benchmarks/bench_batches.py                       # freestyle, renju, gomorpion
    python benchmarks/bench_batches.py --variants freestyle --data-dir /tmp/bb
    python benchmarks/bench_batches.py --loader --variants freestyle
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import h5py
import numpy as np

from fiverow import data
from fiverow.generate import generate

#: Games per variant: about 200,000 positions, fewer for Gomorpion, whose
#: stored observations (14 planes of 30 x 30) take 12.6 kB a position.
GAMES = {"freestyle": 4000, "renju": 1000, "gomorpion": 60}
BATCH = 256


def files(variant: str, games: int, root: Path) -> tuple[Path, Path]:
    """The moves-only and the observations file of the same games (made once,
    then reused from ``root``)."""
    paths = []
    for obs in (False, True):
        path = root / f"{variant}-{games}{'-obs' if obs else ''}.h5"
        if not path.exists():
            generate(path, variant, games=games, black="heuristic", seed=1, obs=obs)
        paths.append(path)
    return paths[0], paths[1]


def rate(positions: int, seconds: float) -> float:
    return positions / seconds if seconds > 0 else float("nan")


def run_batches(path: Path, threads: int, seed: int) -> tuple[float, int, dict[str, float]]:
    start, cpu = time.perf_counter(), time.process_time()
    n = 0
    b = data.Batches(path, BATCH, seed=seed, num_threads=threads)
    for batch in b:
        n += len(batch["obs"])
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    b.close()
    return (
        rate(n, seconds),
        n,
        # positions per second of CPU time (all threads): what the loop gets
        # from a core it has alone, whatever else runs on the machine
        {
            "per_cpu_second": rate(n, cpu),
            "buffer_bytes": b.peak_buffer_bytes,
            "output_bytes": b.peak_output_bytes,
        },
    )


def run_replay(path: Path, variant: str, budget: float, seed: int) -> tuple[float, int, float]:
    rng = np.random.default_rng(seed)
    with data.open(path) as ds:
        vd = ds[variant]
        n_sym = len(vd.symmetries)
        start, cpu = time.perf_counter(), time.process_time()
        n = 0
        for i in rng.permutation(len(vd)):
            n += len(vd.replay(int(i), symmetry=int(rng.integers(n_sym))).actions)
            if time.perf_counter() - start > budget:
                break
        return rate(n, time.perf_counter() - start), n, rate(n, time.process_time() - cpu)


def run_h5py(
    path: Path, variant: str, budget: float, seed: int, how: str
) -> tuple[float, int, float]:
    """h5py reads of the stored observations: ``bulk`` (slices of 4096 in file
    order), ``random`` (random minibatches), ``cached`` (the same with a chunk
    cache that holds the whole decompressed dataset, h5py's best case for a
    shuffling reader) or ``window`` (a contiguous slice of 256 at a random
    place: not a shuffle, its positions come from a few games)."""
    rng = np.random.default_rng(seed)
    with h5py.File(path, "r") as f:
        raw = f[f"{variant}/steps/obs"]
        cache = raw.size + (64 << 20) if how == "cached" else 1 << 20
    with h5py.File(path, "r", rdcc_nbytes=cache, rdcc_nslots=1_000_003) as f:
        obs = f[f"{variant}/steps/obs"]
        total = obs.shape[0]
        if how == "cached":  # fill the cache first: the timed reads decompress nothing
            for at in range(0, total, 4096):
                obs[at : at + 4096]
        start, cpu = time.perf_counter(), time.process_time()
        n = 0
        while time.perf_counter() - start < budget and n < total:
            if how in ("random", "cached"):
                idx = np.sort(rng.choice(total, BATCH, replace=False))
                n += len(obs[idx])
            elif how == "window":
                at = int(rng.integers(total - BATCH))
                n += len(obs[at : at + BATCH])
            else:
                n += len(obs[n : n + 4096])
        return rate(n, time.perf_counter() - start), n, rate(n, time.process_time() - cpu)


def run_loader(path: Path, kind: str, batch: int, threads: int, workers: int) -> tuple[float, int]:
    """Positions per second of one epoch of ``kind`` (see ``--loader``)."""
    import torch

    from fiverow.data.torch_batches import PackedBatch

    class Dicts(data.TorchBatches):
        """Batches sent tensor by tensor (TorchBatches before it packed them)."""

        def __iter__(self):  # noqa: ANN204
            for b in super().__iter__():
                yield b.unpack() if isinstance(b, PackedBatch) else b

    start = time.perf_counter()
    n = 0
    if kind == "in_process":
        with data.Batches(path, batch, seed=1, num_threads=threads) as batches:
            for b in batches:
                n += len(b["obs"])
    else:
        dataset = (data.TorchBatches if kind == "dataloader" else Dicts)(path, batch, seed=1)
        loader = torch.utils.data.DataLoader(dataset, batch_size=None, num_workers=workers)
        for b in loader:
            n += len(b["obs"])
    return rate(n, time.perf_counter() - start), n


def loader_main(args: argparse.Namespace, root: Path) -> None:
    kinds = ("in_process", "dataloader", "dataloader_dicts")
    for variant in args.variants.split(","):
        games = args.games or GAMES.get(variant, 1000)
        moves, _ = files(variant, games, root)
        for batch in (int(b) for b in args.batch_sizes.split(",")):
            rates: dict[str, list[float]] = {k: [] for k in kinds}
            for _ in range(args.repeats):
                for kind in kinds:
                    r, positions = run_loader(moves, kind, batch, args.threads, args.workers)
                    rates[kind].append(r)
            base = {"variant": variant, "games": games, "positions": positions, "batch": batch}
            for kind in kinds:
                line = base | {"loop": kind, "best": round(max(rates[kind]))}
                line |= {"median": round(statistics.median(rates[kind]))}
                line |= {"workers": args.workers} if kind != "in_process" else {}
                line |= {"threads": args.threads} if kind == "in_process" else {}
                print(json.dumps(line), flush=True)
            best = {k: max(v) for k, v in rates.items()}
            ratios = {
                "dataloader_over_in_process": round(best["dataloader"] / best["in_process"], 2),
                "dataloader_over_dicts": round(best["dataloader"] / best["dataloader_dicts"], 2),
            }
            print(json.dumps({"variant": variant, "batch": batch} | ratios), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--variants", default="freestyle,renju,gomorpion")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--budget", type=float, default=10.0, help="seconds per slow loop")
    parser.add_argument("--data-dir", default=None, help="keep the generated files here")
    parser.add_argument("--games", type=int, default=0, help="games per variant (0: the table's)")
    parser.add_argument("--loader", action="store_true", help="time the DataLoader recipe")
    parser.add_argument("--workers", type=int, default=2, help="DataLoader workers (--loader)")
    parser.add_argument("--batch-sizes", default="256,2048", help="batch sizes (--loader)")
    args = parser.parse_args()
    if args.loader:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(args.data_dir or tmp)
            root.mkdir(parents=True, exist_ok=True)
            loader_main(args, root)
        return
    print(
        json.dumps(
            {"uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()}
        )
    )
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.data_dir or tmp)
        root.mkdir(parents=True, exist_ok=True)
        for variant in args.variants.split(","):
            moves, stored = files(variant, args.games or GAMES.get(variant, 1000), root)
            with data.open(moves) as ds:
                steps = ds[variant].steps
            base = {
                "variant": variant,
                "games": args.games or GAMES.get(variant, 1000),
                "positions": steps,
                "moves_file_bytes": os.path.getsize(moves),
                "obs_file_bytes": os.path.getsize(stored),
            }
            results: dict[str, float] = {}
            per_cpu: dict[str, float] = {}
            for threads in sorted({1, args.threads}):
                runs = [run_batches(moves, threads, seed) for seed in range(args.repeats)]
                rates = [r[0] for r in runs]
                key = f"batches_{threads}t"
                results[key] = max(rates)
                line = base | {"loop": "batches", "threads": threads, "best": max(rates)}
                line |= {"median": statistics.median(rates)} | runs[0][2]
                line["per_cpu_second"] = per_cpu[key] = max(r[2]["per_cpu_second"] for r in runs)
                print(json.dumps(line), flush=True)
            loops = {
                "replay": lambda s, v=variant, f=moves: run_replay(f, v, args.budget, s),
                **{
                    f"h5py_{how}": lambda s, v=variant, f=stored, how=how: run_h5py(
                        f, v, args.budget, s, how
                    )
                    for how in ("bulk", "random", "cached", "window")
                },
            }
            for name, loop in loops.items():
                runs2 = [loop(seed) for seed in range(args.repeats)]
                rates = [r[0] for r in runs2]
                results[name] = max(rates)
                line = base | {"loop": name, "best": max(rates), "median": statistics.median(rates)}
                line["per_cpu_second"] = per_cpu[name] = max(r[2] for r in runs2)
                print(json.dumps(line | {"positions_read": runs2[0][1]}), flush=True)
            best = results[f"batches_{args.threads}t"]
            ratios = {
                f"batches_over_{k}": best / v
                for k, v in results.items()
                if k != f"batches_{args.threads}t"
            }
            print(json.dumps({"variant": variant, **{k: round(v, 1) for k, v in ratios.items()}}))
            # the same ratios per second of CPU time (less sensitive to the load)
            mine = per_cpu[f"batches_{args.threads}t"]
            cpu_ratios = {
                f"cpu_batches_over_{k}": round(mine / v, 1)
                for k, v in per_cpu.items()
                if k != f"batches_{args.threads}t"
            }
            print(json.dumps({"variant": variant, **cpu_ratios}))
    print(
        json.dumps(
            {"uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()}
        )
    )


if __name__ == "__main__":
    main()
