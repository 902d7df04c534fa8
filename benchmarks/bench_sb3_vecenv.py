"""MaskablePPO rollout collection through ``fiverow.sb3.VecEnv`` (every board
stepped in one C call) against SB3's ``DummyVecEnv`` of single envs
(``fiverow.make``, each in ``Monitor``: one Python call per board), the same
boards, opponent and policy, in the same run. One JSON line per env kind and
one with the ratio.

Two loops are timed on each kind of env, in agent steps per second:

- ``rollout``: ``MaskablePPO.collect_rollouts`` alone (no gradient step),
  ``--rollouts`` rollouts of ``--n-steps`` steps of every board, the policy's
  forward pass (``MlpPolicy``, torch on ``--threads`` threads) and the masks
  included, as ``learn`` collects them;
- ``env``: the env's side of it alone, the same number of steps: masks read
  as MaskablePPO reads them (``env_method("action_masks")``), a random legal
  action per board drawn from them in one numpy call, ``step``.

The two kinds alternate (``--repeats`` times each); the best rate of each
kind counts. The machine may be shared: compare the two kinds of one run.

    python benchmarks/bench_sb3_vecenv.py                  # freestyle 9x9, 64 boards, random
    python benchmarks/bench_sb3_vecenv.py --opponent heuristic --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, VecEnv, VecMonitor

import fiverow
import fiverow.sb3


def vector_env(args: argparse.Namespace) -> VecEnv:
    """The boards in one fiverow vector env, stepped in C."""
    venv = fiverow.make_vec(
        args.variant,
        args.envs,
        seed=0,
        num_threads=args.threads,
        autoreset_mode="same_step",
        opponent=args.opponent,
        agent_seat="random",
        **size_of(args),
    )
    return VecMonitor(fiverow.sb3.VecEnv(venv))


def dummy_env(args: argparse.Namespace) -> VecEnv:
    """The same boards as single envs in SB3's DummyVecEnv, each in Monitor."""

    def one(i: int) -> Callable[[], Any]:
        def make() -> Any:
            env = fiverow.make(
                args.variant, opponent=args.opponent, agent_seat="random", **size_of(args)
            )
            env.reset(seed=i)
            return Monitor(env)

        return make

    return DummyVecEnv([one(i) for i in range(args.envs)])


def size_of(args: argparse.Namespace) -> dict[str, int]:
    return {"size": args.size} if args.size else {}


def rollout_rate(env: VecEnv, args: argparse.Namespace) -> float:
    """Agent steps per second of MaskablePPO's rollout collection on ``env``."""
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=64, seed=0, device="cpu")
    _, callback = model._setup_learn(args.n_steps * args.envs * args.rollouts, callback=None)
    callback.on_training_start(locals(), globals())
    model.collect_rollouts(env, callback, model.rollout_buffer, args.n_steps)  # warm-up
    start = time.perf_counter()
    for _ in range(args.rollouts):
        model.collect_rollouts(env, callback, model.rollout_buffer, args.n_steps)
    seconds = time.perf_counter() - start
    env.close()
    return args.rollouts * args.n_steps * args.envs / seconds


def env_rate(env: VecEnv, args: argparse.Namespace) -> float:
    """Agent steps per second of the env alone: masks, a random legal action, step."""
    rng = np.random.default_rng(0)
    env.reset()
    steps = args.rollouts * args.n_steps
    start = time.perf_counter()
    for _ in range(steps):
        masks = get_action_masks(env)
        env.step((rng.random(masks.shape) * masks).argmax(axis=1))
    seconds = time.perf_counter() - start
    env.close()
    return steps * args.envs / seconds


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--variant", default="freestyle")
    parser.add_argument("--size", type=int, default=9, help="board size; 0 keeps the preset's")
    parser.add_argument("--envs", type=int, default=64, help="boards")
    parser.add_argument("--opponent", default="random")
    parser.add_argument("--n-steps", type=int, default=128, help="steps per board per rollout")
    parser.add_argument("--rollouts", type=int, default=4, help="timed rollouts per repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="torch and OpenMP threads")
    args = parser.parse_args()
    for name in ("envs", "n_steps", "rollouts", "repeats", "threads"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1")
    torch.set_num_threads(args.threads)
    kinds = {"fiverow.sb3.VecEnv": vector_env, "DummyVecEnv": dummy_env}
    loops = {"rollout": rollout_rate, "env": env_rate}
    best = {(kind, loop): 0.0 for kind in kinds for loop in loops}
    for _ in range(args.repeats):
        for loop, timed in loops.items():
            for kind, make in kinds.items():
                best[kind, loop] = max(best[kind, loop], timed(make(args), args))
    for (kind, loop), rate in best.items():
        line = {
            "env": kind,
            "loop": loop,
            "variant": args.variant,
            "size": args.size or None,
            "opponent": args.opponent,
            "envs": args.envs,
            "n_steps": args.n_steps,
            "agent_steps_per_s": round(rate),
        }
        print(json.dumps(line), flush=True)
    ratios = {
        f"vecenv_over_dummy_{loop}": round(
            best["fiverow.sb3.VecEnv", loop] / best["DummyVecEnv", loop], 1
        )
        for loop in loops
    }
    loadavg = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(ratios | {"loadavg": loadavg}), flush=True)


if __name__ == "__main__":
    main()
