"""``fiverow demo``: the main job of ``make run``, small but real. Self-play
of ``heuristic(epsilon=0.1)`` on every preset, written to HDF5; the first
seat's advantage per preset with its interval (the balance table, and its
report); one game per preset as an HTML page; every output's path at the
end."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

#: A little randomness makes the heuristic's self-play games differ.
PLAYER = "heuristic(epsilon=0.1)"


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "demo",
        help="the main job of `make run`: self-play of every preset to HDF5, the balance "
        "table, one game per preset in the HTML viewer",
    )
    p.add_argument("--out", default="build/run", help="the folder to write (default build/run)")
    p.add_argument(
        "--games",
        type=int,
        default=300,
        help="games per preset (default 300: the first seat's advantage to about +-0.1)",
    )
    p.add_argument("--player", default=PLAYER, help=f"the player of both seats (default {PLAYER})")
    p.add_argument("--seed", type=int, default=1, help="the run's seed (default 1)")
    p.add_argument("--threads", type=int, default=None, help="threads (default: every core)")
    p.add_argument("--overwrite", action="store_true", help="replace an earlier demo in --out")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..data.generate import generate
    from ..records import viewer
    from ..rules.config import preset_names
    from ..studies import balance

    if args.games < 1:
        raise ValueError(f"--games must be at least 1, got {args.games}")
    out = Path(args.out)
    dataset, report_dir, games_dir = out / "selfplay.h5", out / "balance", out / "games"
    if not args.overwrite and any(p.exists() for p in (dataset, report_dir, games_dir)):
        raise ValueError(f"'{out}' holds an earlier demo: pass --overwrite to replace it")
    balance.check_report_dir(report_dir, overwrite=args.overwrite)
    out.mkdir(parents=True, exist_ok=True)
    presets = preset_names()
    started = time.monotonic()
    print(
        f"self-play of {args.player} on {len(presets)} presets, {args.games} games each",
        file=sys.stderr,
    )
    generate(
        dataset,
        dict.fromkeys(presets, 1.0),
        games=args.games * len(presets),
        black=args.player,
        white=args.player,
        seed=args.seed,
        num_threads=args.threads,
        overwrite=True,
        progress=not args.quiet,
    )
    report = balance.from_dataset(dataset)
    print(report.table())
    written = report.write(report_dir, plots=False, overwrite=args.overwrite)
    games_dir.mkdir(exist_ok=True)
    pages = [viewer.write(dataset, name, 0, games_dir / f"{name}.html") for name in presets]
    seconds = time.monotonic() - started
    print(f"\ndone in {seconds:.0f} s; wrote:")
    for path in (dataset, *written.values(), *pages):
        print(f"  {path}")
    return 0
