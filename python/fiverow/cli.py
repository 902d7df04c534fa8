"""The ``fiverow`` command line."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from .config import preset_names, variants
from .stats import wilson_interval
from .vector import make_vec


def _selfplay(args: argparse.Namespace) -> int:
    names = args.variants.split(",") if args.variants else preset_names()
    rows: list[dict[str, Any]] = []
    for name in names:
        env = make_vec(name, num_envs=args.envs, seed=args.seed, num_threads=args.threads)
        env.reset()
        start = time.perf_counter()
        stats = env.rollout(args.steps)
        seconds = time.perf_counter() - start
        games = stats["episodes"]
        low, high = wilson_interval(stats["seat0_wins"], games)
        rows.append(
            {
                "variant": name,
                "games": games,
                "games_per_s": games / seconds if seconds > 0 else float("inf"),
                "steps_per_s": stats["steps"] / seconds if seconds > 0 else float("inf"),
                "first_seat_win_rate": stats["seat0_wins"] / games if games else float("nan"),
                "first_seat_win_ci95": [low, high],
                "second_seat_win_rate": stats["seat1_wins"] / games if games else float("nan"),
                "draw_rate": stats["draws"] / games if games else float("nan"),
                "mean_length": stats["length_sum"] / games if games else float("nan"),
            }
        )
        env.close()
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    print(
        f"random self-play: {args.envs} boards x {args.steps} moves per variant, "
        f"seed {args.seed}, {args.threads or 'all'} threads"
    )
    print(
        f"{'variant':<12} {'games':>7} {'games/s':>10} {'first-seat win (95% CI)':>26} "
        f"{'second':>7} {'draw':>6} {'length':>7}"
    )
    for r in rows:
        low, high = r["first_seat_win_ci95"]
        print(
            f"{r['variant']:<12} {r['games']:>7} {r['games_per_s']:>10.0f} "
            f"{r['first_seat_win_rate']:>9.3f} [{low:.3f}, {high:.3f}]  "
            f"{r['second_seat_win_rate']:>7.3f} {r['draw_rate']:>6.3f} {r['mean_length']:>7.1f}"
        )
    return 0


def _variants(args: argparse.Namespace) -> int:
    for name, description in variants().items():
        print(f"{name:<16} {description}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fiverow", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("variants", help="list the presets")
    p.set_defaults(func=_variants)

    p = sub.add_parser("selfplay", help="random self-play of presets in C, with a summary")
    p.add_argument("--variants", default="", help="comma-separated presets (default: all)")
    p.add_argument("--envs", type=int, default=1024, help="boards per variant")
    p.add_argument("--steps", type=int, default=400, help="moves per board")
    p.add_argument("--threads", type=int, default=None, help="OpenMP threads (default: all)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print JSON lines")
    p.set_defaults(func=_selfplay)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (ValueError, TypeError, KeyError) as e:
        print(f"fiverow: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
