"""Stepping throughput: JSON lines of board-steps per second.

Two loops per (variant, threads):
  rollout  random play that stays in C: env.rollout(steps)
  step     Python: env.step(env.sample_legal()), observations and masks written

Each figure is the median and the best of --repeats timed runs (the machine is
a shared VM: the best run is the least disturbed one).

    python benchmarks/bench_step.py                      # freestyle, 4096 envs, 1 and 2 threads
    python benchmarks/bench_step.py --variants freestyle,strip,torus --observation mover
    python benchmarks/bench_step.py --boards 4096,16384,65536 --variants freestyle,renju --threads 2

With several --boards, each (variant, threads, loop) also prints the curve:
every size's figure over the smallest size's, from the same run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import fiverow


def measure(fn, work: int, repeats: int, clock=time.perf_counter) -> tuple[float, float]:
    rates = []
    for _ in range(repeats):
        start = clock()
        fn()
        rates.append(work / (clock() - start))
    return statistics.median(rates), max(rates)


def bench(
    variant: str,
    num_envs: int,
    threads: int,
    observation: str,
    repeats: int,
    rollout_steps: int,
    python_steps: int,
    clock: str = "wall",
) -> list[dict]:
    env = fiverow.make_vec(
        variant, num_envs=num_envs, seed=0, num_threads=threads, observation=observation
    )
    env.reset()
    env.rollout(50)  # warm up: caches, thread pool, episode mix

    def python_loop() -> None:
        for _ in range(python_steps):
            env.step(env.sample_legal())

    out = []
    for mode, fn, work in (
        ("rollout", lambda: env.rollout(rollout_steps), num_envs * rollout_steps),
        ("step", python_loop, num_envs * python_steps),
    ):
        timer = time.process_time if clock == "process" else time.perf_counter
        median, best = measure(fn, work, repeats, timer)
        out.append(
            {
                "variant": variant,
                "mode": mode,
                "observation": observation,
                "num_envs": num_envs,
                "threads": threads,
                "clock": clock,
                "steps_per_s": round(best),
                "median_steps_per_s": round(median),
            }
        )
    env.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--variants", default="freestyle")
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument(
        "--boards", default=None, help="comma-separated board counts (default: --envs)"
    )
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--observation", default="absolute", choices=["absolute", "mover"])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--rollout-steps", type=int, default=500)
    parser.add_argument("--python-steps", type=int, default=100)
    parser.add_argument(
        "--clock",
        default="wall",
        choices=["wall", "process"],
        help="process: CPU seconds of this process (1 thread on a loaded machine)",
    )
    args = parser.parse_args()
    sizes = [int(n) for n in args.boards.split(",")] if args.boards else [args.envs]
    thread_counts = [int(t) for t in args.threads.split(",")]
    for variant in args.variants.split(","):
        results = {}
        for num_envs in sizes:
            for threads in thread_counts:
                for row in bench(
                    variant,
                    num_envs,
                    threads,
                    args.observation,
                    args.repeats,
                    args.rollout_steps,
                    args.python_steps,
                    args.clock,
                ):
                    print(json.dumps(row), flush=True)
                    results[(row["mode"], threads, num_envs)] = row["steps_per_s"]
        for mode in ("rollout", "step"):
            for num_envs in sizes:
                if (mode, 1, num_envs) in results and (mode, 2, num_envs) in results:
                    two, one = results[(mode, 2, num_envs)], results[(mode, 1, num_envs)]
                    print(
                        json.dumps(
                            {
                                "variant": variant,
                                "mode": mode,
                                "num_envs": num_envs,
                                "scaling_2_over_1": round(two / one, 2),
                            }
                        )
                    )
            for threads in thread_counts if len(sizes) > 1 else ():
                base = results[(mode, threads, sizes[0])]
                curve = {n: round(results[(mode, threads, n)] / base, 2) for n in sizes}
                print(
                    json.dumps(
                        {
                            "variant": variant,
                            "mode": mode,
                            "threads": threads,
                            "observation": args.observation,
                            f"over_{sizes[0]}_boards": curve,
                        }
                    )
                )


if __name__ == "__main__":
    main()
