"""One board's random play through each interface, decisions per second: JSON lines.

- ``single``: the Gymnasium env, ``env.step(env.sample_legal())``;
- ``pettingzoo``: the wrapped AEC env as a user drives it, ``last()`` (the
  agent's own observation), a masked sample, ``step()``;
- ``openspiel``: an OpenSpiel state, ``legal_actions()`` and ``apply_action``;
- ``openspiel_clone``: the same with a ``clone()`` before every action (what
  tree search does).

Every game is played to its end; a run is ``--decisions`` decisions or more.
Compare interfaces within one run (load moves absolute numbers).

    python benchmarks/bench_adapters.py [--variants freestyle,renju,gomorpion,modlinseq]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

import numpy as np
import pyspiel

import fiverow
from fiverow import openspiel, pettingzoo


def single(preset: str, decisions: int) -> int:
    env = fiverow.make(preset)
    env.reset(seed=0)
    done = 0
    while done < decisions:
        _, _, terminated, truncated, _ = env.step(env.sample_legal())
        done += 1
        if terminated or truncated:
            env.reset()
    return done


def aec(preset: str, decisions: int) -> int:
    env = pettingzoo.env(preset)
    rng = np.random.default_rng(0)
    done = 0
    while done < decisions:
        env.reset(seed=done)
        for _agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            done += 1
    return done


def spiel(preset: str, decisions: int, clone: bool = False) -> int:
    game = pyspiel.load_game(openspiel.game_name(preset))
    rng = np.random.default_rng(0)
    done = 0
    while done < decisions:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.integers(openspiel.DEALS)))
                continue
            if clone:
                state = state.clone()
            state.apply_action(int(rng.choice(state.legal_actions())))
            done += 1
    return done


RUNS: dict[str, Callable[[str, int], int]] = {
    "single": single,
    "pettingzoo": aec,
    "openspiel": spiel,
    "openspiel_clone": lambda preset, n: spiel(preset, n, clone=True),
}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--variants", default="freestyle,renju,gomorpion,modlinseq")
    parser.add_argument("--decisions", type=int, default=20000)
    args = parser.parse_args()
    openspiel.register()
    for preset in args.variants.split(","):
        for name, run in RUNS.items():
            start = time.perf_counter()
            done = run(preset, args.decisions)
            seconds = time.perf_counter() - start
            row = {
                "bench": "adapters",
                "interface": name,
                "variant": preset,
                "decisions": done,
                "seconds": round(seconds, 3),
                "decisions_per_s": round(done / seconds),
            }
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
