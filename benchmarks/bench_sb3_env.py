"""Single envs in SB3's DummyVecEnv, the env side alone: agent steps per second
of ``--envs`` single envs ``fiverow.make(..., opponent=...)`` in SB3's
``DummyVecEnv`` (each in ``Monitor``), masks read through ``env_method`` and a
random legal action drawn in Python per env, as examples/sb3_maskable_ppo.py's
learner saw them before it moved to ``fiverow.sb3.VecEnv`` (without the
network; ``bench_sb3_vecenv.py`` compares the two). One JSON line.

    python benchmarks/bench_sb3_env.py                    # freestyle 9x9, 16 envs, random
    python benchmarks/bench_sb3_env.py --opponent heuristic --seconds 20
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv

import fiverow


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variant", default="freestyle")
    parser.add_argument("--size", type=int, default=9, help="board size; 0 keeps the preset's")
    parser.add_argument("--envs", type=int, default=16)
    parser.add_argument("--opponent", default="random")
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    size = {"size": args.size} if args.size else {}

    def one(i: int) -> Callable[[], Any]:
        def make() -> Any:
            env = fiverow.make(args.variant, opponent=args.opponent, agent_seat="random", **size)
            env.reset(seed=i)
            return Monitor(env)

        return make

    venv = DummyVecEnv([one(i) for i in range(args.envs)])
    venv.reset()
    rng = np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        masks = venv.env_method("action_masks")
        venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        steps += args.envs
    seconds = time.perf_counter() - start
    line = {
        "variant": args.variant,
        "size": args.size or None,
        "opponent": args.opponent,
        "envs": args.envs,
        "agent_steps_per_s": round(steps / seconds),
        "loadavg": [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
