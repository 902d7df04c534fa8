"""``fiverow engine``: a built-in player as a Gomocup brain (stdin / stdout)."""

from __future__ import annotations

import argparse
import sys
from typing import IO


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "engine",
        help="a built-in player as a Gomocup (Piskvork) brain on stdin/stdout",
        description="Speak the Gomocup brain protocol on stdin/stdout, moves chosen by a "
        "built-in player. Piskvork and the Gomocup manager load it through a wrapper "
        "named pbrain-NAME: see docs/engines.md.",
    )
    p.add_argument(
        "--player",
        default="pvs",
        help="built-in player spec: pvs, pvs(nodes=200000), heuristic, mcts:N, "
        "heuristic(epsilon=0.1), net:freestyle(simulations=64), net(path=FILE), ... "
        "(default pvs: within timeout_turn / time_left it searches on a clock, without "
        "them on its node budget)",
    )
    p.add_argument("--seed", type=int, default=0, help="seeds every move (same seed, same games)")
    p.add_argument("--log", default=None, help="append the session (both sides) to this file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..adapters.gomocup import EngineServer, serve

    EngineServer(args.player, seed=args.seed).close()  # a bad spec fails here, before any input
    log: IO[str] | None = open(args.log, "a", encoding="utf-8") if args.log else None  # noqa: SIM115
    try:
        return serve(args.player, seed=args.seed, log=log)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the manager went away
        sys.stderr.close()
        return 0
    finally:
        if log is not None:
            log.close()
