"""How well ``fiverow engine`` keeps a brain inside Gomocup's time limits:
JSON lines, one per time limit.

A brain with far more simulations than fit (``mcts:100000``; or with
``--player pvs``, the engine's default, on its clock) plays games
against random moves (TURN) under ``INFO timeout_turn T``; for each T: the
answers' mean and slowest wall time (what a manager would see, less the
pipes), how many went over T, and the median simulations used. The rule is
in fiverow/adapters/gomocup/timing.py and docs/engines.md; timings depend on
the machine's load (print ``uptime`` beside them).

    python benchmarks/bench_engine_time.py
    python benchmarks/bench_engine_time.py --limits 200,1000 --moves 30 --rule 4
    python benchmarks/bench_engine_time.py --player pvs --limits 40,100,1000
"""

from __future__ import annotations

import argparse
import json
import re
import time

import numpy as np

import fiverow
from fiverow.engines import EngineServer, rule_params


def run(limit: int, moves: int, rule: int, seed: int, player: str) -> dict[str, object]:
    server = EngineServer(player, seed=seed)
    rng = np.random.default_rng(seed)
    params = rule_params(rule)
    env = fiverow.make_vec("freestyle", 1, seed=seed, autoreset_mode="disabled", **params)
    env.reset()
    server.handle("START 15")
    server.handle(f"INFO timeout_turn {limit}")
    server.handle(f"INFO rule {rule}")
    times, sims = [], []
    line = "BEGIN"
    while len(times) < moves:
        start = time.perf_counter()
        out = server.handle(line)
        times.append((time.perf_counter() - start) * 1000.0)
        note = next((x for x in out if x.startswith("MESSAGE")), "")
        found = re.search(r"(\d+) of 100000", note)
        sims.append(int(found.group(1)) if found else 100000)
        x, y = (int(v) for v in out[-1].split(","))
        env.step(np.array([y * 15 + x]))
        if env.board(0)["status"] == 0:  # the opponent: a random legal move
            legal = np.flatnonzero(env.action_masks()[0])
            cell = int(rng.choice(legal))
            env.step(np.array([cell]))
            line = f"TURN {cell % 15},{cell // 15}"
        if env.board(0)["status"] != 0:  # a new game
            env.reset()
            server.handle("RESTART")
            line = "BEGIN"
    return {
        "timeout_turn_ms": limit,
        "rule": rule,
        "answers": len(times),
        "mean_ms": round(float(np.mean(times)), 1),
        "max_ms": round(float(np.max(times)), 1),
        "max_share_of_limit": round(float(np.max(times)) / limit, 3),
        "over_limit": int(sum(t > limit for t in times)),
        "median_simulations": int(np.median(sims)) if player.startswith("mcts") else None,
        "player": player,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limits", default="200,500,1000", help="timeout_turn values (ms)")
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--rule", type=int, default=0, help="INFO rule (0 freestyle, 4 renju)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--player", default="mcts:100000", help="the brain's built-in player")
    args = parser.parse_args()
    for limit in (int(x) for x in args.limits.split(",")):
        line = run(limit, args.moves, args.rule, args.seed, args.player)
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
