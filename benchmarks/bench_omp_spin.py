"""Two OpenMP runtimes in one training loop: does their spinning cost time?

fiverow's C core runs its loops on the system's libgomp, torch on its own
copy. After a parallel region each runtime's idle threads spin for a while
(libgomp: GOMP_SPINCOUNT, OMP_WAIT_POLICY) before they sleep, on the same
cores the other runtime wants next. This benchmark interleaves fiverow env
steps (``--env-threads`` threads) with torch training steps of a
5-convolution, 16-channel residual network (``fiverow.nets.model.Net``, 2
blocks) on ``--batch`` positions, and times

- each torch step alone (no env steps between them) and interleaved,
- each env step alone and interleaved,

under the default settings, ``OMP_WAIT_POLICY=passive`` and
``GOMP_SPINCOUNT=0``, each in a fresh process (the runtimes read them when
they start), ``--repeats`` times in turn. Prints one JSON line per process
(medians in ms) and a summary per setting: the medians over the repeats and
the slowdown of the torch step interleaved against alone.

    python benchmarks/bench_omp_spin.py                   # the full run (minutes)
    python benchmarks/bench_omp_spin.py --repeats 1 --iterations 4 --boards 64   # tiny
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

SETTINGS = {
    "default": {},
    "OMP_WAIT_POLICY=passive": {"OMP_WAIT_POLICY": "passive"},
    "GOMP_SPINCOUNT=0": {"GOMP_SPINCOUNT": "0"},
}


def worker(args: argparse.Namespace) -> dict:
    """One process: the measurements under the environment it was given."""
    import numpy as np
    import torch

    import fiverow
    from fiverow.nets.model import Net

    torch.set_num_threads(args.torch_threads)
    torch.manual_seed(0)
    env = fiverow.make_vec("freestyle", num_envs=args.boards, seed=0, num_threads=args.env_threads)
    obs, _ = env.reset(seed=0)
    shape, n_actions = env.single_observation_space.shape, env.n_actions
    net = Net(shape, n_actions, blocks=2, channels=16)  # stem + 2 x 2: five convolutions
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    x = torch.from_numpy((rng.random((args.batch, *shape)) < 0.2).astype(np.float32))
    pi = torch.softmax(torch.randn(args.batch, n_actions), dim=1)
    z = torch.from_numpy(rng.uniform(-1, 1, args.batch).astype(np.float32))

    def torch_step() -> float:
        start = time.perf_counter()
        logits, v = net(x)
        loss = -(pi * torch.log_softmax(logits, dim=1)).sum(1).mean() + ((v - z) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        return time.perf_counter() - start

    def env_steps() -> float:
        start = time.perf_counter()
        for _ in range(args.env_steps):
            env.step(env.sample_legal())
        return (time.perf_counter() - start) / args.env_steps

    torch_step()  # warm up both
    env_steps()
    alone_torch = [torch_step() for _ in range(args.iterations)]
    alone_env = [env_steps() for _ in range(args.iterations)]
    mixed_torch, mixed_env = [], []
    for _ in range(args.iterations):
        mixed_env.append(env_steps())
        mixed_torch.append(torch_step())
    env.close()

    def ms(values: list[float]) -> float:
        return round(1000 * statistics.median(values), 3)

    return {
        "torch_alone_ms": ms(alone_torch),
        "torch_interleaved_ms": ms(mixed_torch),
        "env_step_alone_ms": ms(alone_env),
        "env_step_interleaved_ms": ms(mixed_env),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=5, help="fresh processes per setting")
    parser.add_argument("--iterations", type=int, default=30, help="timed steps per phase")
    parser.add_argument("--boards", type=int, default=1024, help="env boards")
    parser.add_argument("--env-steps", type=int, default=10, help="env steps between torch steps")
    parser.add_argument("--env-threads", type=int, default=2)
    parser.add_argument("--torch-threads", type=int, default=2)
    parser.add_argument("--batch", type=int, default=256, help="positions per torch step")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args)), flush=True)
        return
    passed = [
        f"--{k.replace('_', '-')}={v}"
        for k, v in vars(args).items()
        if k not in ("repeats", "worker")
    ]
    runs: dict[str, list[dict]] = {name: [] for name in SETTINGS}
    for r in range(args.repeats):
        for name, extra in SETTINGS.items():  # in turn, so drifts in load hit all alike
            env = {
                k: v
                for k, v in os.environ.items()
                if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
            }
            env.update(extra)
            out = subprocess.run(
                [sys.executable, __file__, "--worker", *passed],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            )
            row = json.loads(out.stdout.strip().splitlines()[-1])
            runs[name].append(row)
            print(json.dumps({"setting": name, "repeat": r, **row}), flush=True)
    for name, rows in runs.items():
        summary = {key: round(statistics.median(row[key] for row in rows), 3) for key in rows[0]}
        summary["torch_slowdown_interleaved"] = round(
            summary["torch_interleaved_ms"] / summary["torch_alone_ms"], 3
        )
        summary["env_slowdown_interleaved"] = round(
            summary["env_step_interleaved_ms"] / summary["env_step_alone_ms"], 3
        )
        print(json.dumps({"setting": name, "summary": summary, "repeats": len(rows)}), flush=True)


if __name__ == "__main__":
    main()
