"""An opponent in the loop: JSON lines of agent steps per second, against the
plain two-seat ``step`` in the same run.

Loops, each ``env.step(env.sample_legal())`` from Python on ``--envs`` boards:
  plain       no opponent: one ply per board per step (both seats by turns)
  random      opponent="random": the agent's ply and the opponent's reply in C,
              in one parallel region
  heuristic   opponent="heuristic"
  python      opponent=a Python agent (the random player called from Python,
              one round per step): the batched Python path

``steps_per_s`` counts agent steps (board-steps of the env), ``plies_per_s``
the moves of both seats. The variants are timed in turns, ``--repeats``
rounds, so that the load of a shared machine falls on all of them alike;
each figure is the best round (and the median). ``ratio`` is a variant's
best steps_per_s over plain's.

    python benchmarks/bench_opponent.py                    # freestyle 15x15, 4096 boards
    python benchmarks/bench_opponent.py --variant freestyle --size 9 --threads 1
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from typing import Any

import fiverow
from fiverow import players


class PythonRandom:
    """The random player driven from Python, as a network opponent would be."""

    name = "python-random"

    def __init__(self) -> None:
        self.player = players.make("random")

    def act(self, env: Any) -> Any:
        return self.player.act(env)


OPPONENTS: dict[str, Any] = {
    "plain": None,
    "random": "random",
    "heuristic": "heuristic",
    "python": PythonRandom,
}


def make_env(args: argparse.Namespace, opponent: Any) -> Any:
    if isinstance(opponent, type):
        opponent = opponent()
    kwargs = {"size": args.size} if args.size else {}
    env = fiverow.make_vec(
        args.variant,
        num_envs=args.envs,
        seed=0,
        num_threads=args.threads,
        opponent=opponent,
        agent_seat="random" if opponent is not None else 0,
        **kwargs,
    )
    env.reset()
    for _ in range(20):  # warm up: caches, thread pool, a mix of game stages
        env.step(env.sample_legal())
    return env


def timed_round(env: Any, steps: int) -> float:
    """Seconds of ``steps`` steps."""
    start = time.perf_counter()
    for _ in range(steps):
        env.step(env.sample_legal())
    return time.perf_counter() - start


def plies_per_step(env: Any, steps: int) -> float:
    """Moves of both seats per board and step (counted apart from the timing)."""
    group = env.unwrapped.pool.groups[env.config.name]
    plies = 0
    for _ in range(steps):
        before = group.episode_length.copy()
        env.step(env.sample_legal())
        # a board's length grew by its plies, or restarted (a new game) at them
        grown = group.episode_length - before
        plies += int(grown[grown > 0].sum() + group.episode_length[grown <= 0].sum())
    return plies / (steps * env.num_envs)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--variant", default="freestyle")
    parser.add_argument("--size", type=int, default=0, help="board size; 0 keeps the preset's")
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=200, help="steps per round (plain, random)")
    parser.add_argument("--slow-steps", type=int, default=20, help="steps per round (heuristic)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--opponents", default=",".join(OPPONENTS))
    args = parser.parse_args()
    names = [n for n in args.opponents.split(",") if n]
    unknown = sorted(set(names) - set(OPPONENTS))
    if unknown:
        parser.error(f"unknown opponents {unknown}; known: {', '.join(OPPONENTS)}")
    envs = {name: make_env(args, OPPONENTS[name]) for name in names}
    rates: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(args.repeats):
        for name, env in envs.items():
            steps = args.slow_steps if name == "heuristic" else args.steps
            rates[name].append(steps * args.envs / timed_round(env, steps))
    load = os.getloadavg()
    plain = max(rates["plain"]) if "plain" in rates else None
    for name in names:
        best = max(rates[name])
        plies = plies_per_step(envs[name], args.slow_steps)
        line = {
            "variant": args.variant,
            "size": args.size or None,
            "opponent": name,
            "num_envs": args.envs,
            "threads": args.threads,
            "steps_per_s": round(best),
            "median_steps_per_s": round(statistics.median(rates[name])),
            "plies_per_step": round(plies, 3),
            "plies_per_s": round(best * plies),
            "ratio": round(best / plain, 3) if plain else None,
            "loadavg": [round(x, 2) for x in load],
        }
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
