"""The ``fiverow`` command line."""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from typing import Any

from .._version import __version__
from ..analysis.stats import wilson_interval
from ..data.generate import CHUNK_ENCODINGS
from ..env.pool import MAX_THREADS, check_count
from ..env.vector import make_vec
from ..rules.config import param_specs, preset_names, variants
from . import demo, engine, play, records, view


def _check_threads(args: argparse.Namespace) -> None:
    """--threads checked up front, so that the message names the option."""
    check_count(args.threads, "num_threads (--threads)", 1, MAX_THREADS, allow_none=True)


def _selfplay(args: argparse.Namespace) -> int:
    _check_threads(args)
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


def _parse_weight(name: str, text: str, option: str) -> float:
    """A mix weight: a finite positive number (none given: 1)."""
    if not text:
        return 1.0
    try:
        weight = float(text)
    except ValueError:
        weight = math.nan
    if not (math.isfinite(weight) and weight > 0):
        raise ValueError(
            f"{option}: weight of '{name}' must be a finite positive number, got '{text}'"
        )
    return weight


def _parse_mix(text: str, option: str = "--mix") -> dict[str, float]:
    """``freestyle:0.5,caro:0.5`` (a missing weight counts 1); ``all``: every preset."""
    if text.strip() == "all":
        return {name: 1.0 for name in preset_names()}
    weights: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, weight = (x.strip() for x in part.partition(":"))
        if name in weights:
            raise ValueError(f"{option}: '{name}' is named twice")
        weights[name] = _parse_weight(name, weight, option)
    if not weights:
        raise ValueError(f"{option} needs at least one variant")
    return weights


def _parse_variants(text: str, option: str = "--variants") -> list[str]:
    """``freestyle,caro`` (no weights: every variant is played alike); ``all``."""
    if text.strip() == "all":
        return preset_names()
    names: list[str] = []
    for name in filter(None, (p.strip() for p in text.split(","))):
        if ":" in name:
            raise ValueError(
                f"{option} takes preset names, not weights (every variant plays the same "
                f"number of games): got '{name}'"
            )
        if name in names:
            raise ValueError(f"{option}: '{name}' is named twice")
        names.append(name)
    if not names:
        raise ValueError(f"{option} needs at least one variant")
    return names


def split_players(text: str) -> list[str]:
    """``heuristic(epsilon=0.1),mcts:50(rollout=random)``: commas inside
    parentheses belong to a player."""
    out, depth, current = [], 0, ""
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            out.append(current.strip())
            current = ""
        else:
            current += ch
    out.append(current.strip())
    return [p for p in out if p]


def parse_params(items: Sequence[str]) -> dict[str, Any]:
    """``--param key=value`` items; integer parameters are read as integers."""
    specs = param_specs()
    params: dict[str, Any] = {}
    for item in items:
        key, eq, value = (part.strip() for part in item.partition("="))
        if not eq or not key:
            raise ValueError(f"--param takes key=value, got '{item}'")
        if key in specs and specs[key].choices is None:
            try:
                params[key] = int(value)
            except ValueError:
                raise ValueError(f"--param {key} must be an integer, got '{value}'") from None
        else:
            params[key] = value  # a choice, or an unknown key the resolver will name
    return params


def add_openings_option(p: argparse.ArgumentParser, how: str) -> None:
    p.add_argument(
        "--openings",
        default="none",
        metavar="none|balanced|FILE",
        help="the games' openings: 'none' (the empty board, the default), 'balanced' (the "
        f"built-in set; renju: its 26 openings) or a file of openings (docs/players.md); {how}",
    )


def add_ray_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--ray",
        nargs="?",
        const=True,
        default=None,
        metavar="ADDRESS",
        help="play on Ray (pip install 'fiverow[ray]'): alone, a local Ray; 'auto', the "
        "cluster running here (ray start --head); else the cluster's address",
    )


def _generate(args: argparse.Namespace) -> int:
    from ..data.generate import generate

    _check_threads(args)
    variants: Any = _parse_mix(args.mix) if args.mix else args.variant
    result = generate(
        args.out,
        variants,
        games=args.games,
        black=args.black,
        white=args.white,
        seed=args.seed,
        num_threads=args.threads,
        boards=args.boards,
        obs=args.obs,
        policy=args.policy,
        overwrite=args.overwrite,
        gzip=args.gzip,
        chunks=args.chunks,
        flush_seconds=args.flush_seconds,
        progress=not args.quiet,
        params=parse_params(args.param),
        ray=args.ray,
        shard_games=args.shard_games,
        resume=args.resume,
        openings=args.openings,
    )
    state = "interrupted, kept" if result.interrupted else "wrote"
    print(
        f"{state} {result.games} games, {result.steps} steps to {result.path} in "
        f"{result.seconds:.2f} s ({result.steps_per_second:,.0f} steps/s)"
    )
    if not args.quiet:
        _info_of(result.path)
    return 130 if result.interrupted else 0


def _info_of(path: Any) -> None:
    from .. import data

    with data.open(path) as ds:
        players = " vs ".join(ds.players) or "?"
        print(f"{path}: {len(ds)} episodes, players {players}, created {ds.created}")
        print(
            f"{'variant':<18}{'episodes':>9}{'steps':>11}{'seat 0 wins':>13}"
            f"{'seat 1 wins':>13}{'draws':>8}{'truncated':>11}{'mean length':>13}"
        )
        for name, o in ds.summary().items():
            mean = o["steps"] / o["episodes"] if o["episodes"] else float("nan")
            print(
                f"{name:<18}{o['episodes']:>9}{o['steps']:>11}{o['seat0_wins']:>13}"
                f"{o['seat1_wins']:>13}{o['draws']:>8}{o['truncated']:>11}{mean:>13.1f}"
            )
        if ds.forfeit_records:  # games lost by an engine's failure, counted in the wins above
            print(f"forfeits: {len(ds.forfeit_records)} games lost by a player's failure")
            for f in ds.forfeit_records[:5]:
                print(f"  {f['variant']} game {f['game']}, seat {f['seat']}: {f['reason']}")
            if len(ds.forfeit_records) > 5:
                print(
                    f"  and {len(ds.forfeit_records) - 5} more (fiverow.data: VariantData.forfeits)"
                )


def _info(args: argparse.Namespace) -> int:
    if args.check:
        from .. import data

        result = data.check(args.path)
        if not result.ok:
            for problem in result.problems:
                print(f"damaged: {problem}")
            print(f"{args.path}: {len(result.problems)} damaged part(s) found", file=sys.stderr)
            return 1
    _info_of(args.path)
    if args.check:
        print(f"check: {result.chunks} chunks of {result.datasets} datasets read, none damaged")
    return 0


def _pack(args: argparse.Namespace) -> int:
    from ..data.generate import pack

    pack(args.path)
    print(f"packed {args.path}")
    return 0


def _balance(args: argparse.Namespace) -> int:
    from ..runs.shards import cluster

    with cluster(None if args.dataset else args.ray):  # one Ray for the run and the ladder
        return _balance_report(args)


def _balance_report(args: argparse.Namespace) -> int:
    from ..studies import balance

    _check_threads(args)
    if args.out is not None:
        # before the games: they may take hours
        balance.check_report_dir(args.out, overwrite=args.overwrite)
    if args.dataset and args.report:
        raise ValueError("--dataset and --report both name the games: give one")
    if (args.dataset or args.report) and args.ray is not None:
        raise ValueError("--ray plays the games; --dataset and --report read them from a file")
    level = 0.95 if args.level is None else args.level
    if args.report:
        report = balance.from_report(args.report, level=args.level)
    elif args.dataset:
        report = balance.from_dataset(args.dataset, level=level)
    else:
        names = _parse_variants(args.variants) if args.variants else preset_names()
        stop = None
        if args.stop:
            stop = balance.StopRule(
                args.stop,
                delta=args.delta,
                alpha=args.alpha,
                beta=args.beta,
                width=args.width,
                of=args.width_of.replace("-", "_"),
                level=level,
            )
        report = balance.run(
            names,
            split_players(args.players),
            games=args.games,
            seed=args.seed,
            num_threads=args.threads,
            swap=args.swap,
            stop=stop,
            boards=args.boards,
            params=parse_params(args.param),
            progress=not args.quiet,
            level=level,
            ray=args.ray,
            openings=args.openings,
        )
    if args.ladder:
        variant = report.results[0].variant
        report.ratings[variant] = balance.ladder(
            variant,
            split_players(args.ladder),
            games=args.ladder_games,
            seed=args.seed,
            num_threads=args.threads,
            params=parse_params(args.param),
            level=level,
            ray=args.ray,
        )
    if args.json:
        print(json.dumps(report.to_json(), default=str))
    else:
        print(report.table())
        for variant, ratings in report.ratings.items():
            print(f"Elo on {variant}:")
            for p, (e, lo, hi) in ratings.as_dict().items():
                print(f"  {p:<24}{e:+8.0f}  [{lo:+.0f}, {hi:+.0f}]")
    if args.out:
        files = report.write(args.out, plots=not args.no_plots, overwrite=args.overwrite)
        if not args.json:
            print("wrote " + ", ".join(str(f) for f in files.values()))
    return 0


def _variants(args: argparse.Namespace) -> int:
    for name, description in variants().items():
        print(f"{name:<16} {description}")
    return 0


def add_param_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a variant parameter (repeatable)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="fiverow", description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
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

    p = sub.add_parser("generate", help="self-play games between built-in players, to HDF5")
    p.add_argument("--variant", default="freestyle", help="preset (default: freestyle)")
    p.add_argument(
        "--mix", default="", help="several presets in one pool: freestyle:0.5,caro:0.5, or all"
    )
    p.add_argument("--games", type=int, required=True, help="games to play")
    add_openings_option(p, "game k starts from opening k mod n")
    p.add_argument(
        "--black",
        default="random",
        help="player of the first seat: random, heuristic, mcts or mcts:N (N simulations), "
        "threat, pvs (parameters in parentheses: threat(nodes=50000), pvs(nodes=100000)), "
        "a network: net:freestyle, net(path=FILE,simulations=64), "
        "or a Gomocup engine, gomocup:COMMAND (one variant per run)",
    )
    p.add_argument("--white", default=None, help="player of the second seat (default: --black)")
    p.add_argument("--threads", type=int, default=None, help="OpenMP threads (default: all)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True, help="the HDF5 file to write")
    p.add_argument(
        "--boards", type=int, default=None, help="boards played at once (default: min(games, 4096))"
    )
    p.add_argument("--obs", action="store_true", help="record each mover's observation")
    p.add_argument("--policy", action="store_true", help="record each mover's policy (float16)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing file")
    p.add_argument("--gzip", type=int, default=4, help="gzip level 0..9 (0: none; default 4)")
    p.add_argument(
        "--chunks",
        choices=CHUNK_ENCODINGS,
        default="auto",
        help="how compressed chunks are encoded: zlib at the --gzip level, fast (actions "
        "stored, a byte each), or auto (default): zlib until play outruns the writer",
    )
    p.add_argument(
        "--flush-seconds",
        type=float,
        default=2.0,
        help="close a segment of the file at least this often (default 2)",
    )
    add_param_option(p)
    add_ray_option(p)
    p.add_argument(
        "--shard-games",
        type=int,
        default=None,
        help="with --ray: games per shard (default: four shards per worker)",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="with --ray: play the shards a stopped run left unfinished (same options)",
    )
    p.add_argument(
        "--quiet",
        action="store_true",
        help="no progress bar and no per-variant table; the one-line result is still printed",
    )
    p.set_defaults(func=_generate)

    p = sub.add_parser("balance", help="how balanced the variants are: games, statistics, report")
    add_openings_option(p, "with --swap each opening is played from both seats")
    p.add_argument(
        "--variants",
        default="",
        help="comma-separated presets, no weights (default: all), or all",
    )
    p.add_argument(
        "--players",
        default="heuristic",
        help="one player (both seats) or two, comma-separated (first seat first); "
        "a Gomocup engine is gomocup:COMMAND",
    )
    p.add_argument(
        "--swap", action="store_true", help="with two players, alternate their seats game by game"
    )
    p.add_argument("--games", type=int, default=1000, help="games per variant (at most)")
    p.add_argument(
        "--stop",
        choices=["sprt", "width"],
        default=None,
        help="end a variant once decided: SPRT on the first seat's share of decisive "
        "games, or an interval width",
    )
    p.add_argument("--delta", type=float, default=0.1, help="SPRT: H1 is p = 0.5 +- delta")
    p.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="SPRT: chance of naming a favoured seat when the seats are even (overall)",
    )
    p.add_argument(
        "--beta", type=float, default=0.05, help="SPRT: chance of missing an edge of delta"
    )
    p.add_argument("--width", type=float, default=0.05, help="target interval width")
    p.add_argument(
        "--width-of",
        choices=["first-seat-win", "advantage"],
        default="first-seat-win",
        help="the interval --stop width looks at: the first-seat win rate or the advantage",
    )
    p.add_argument(
        "--boards",
        type=int,
        default=None,
        help="boards per variant: with --stop, the games per round "
        "(default: --games, at most 1024)",
    )
    p.add_argument(
        "--level",
        type=float,
        default=None,
        help="confidence level of every interval (default 0.95; with --report, the report's)",
    )
    p.add_argument("--dataset", default=None, help="read the games of a dataset instead")
    p.add_argument(
        "--report",
        default=None,
        help="read the games of an earlier report.json instead (statistics computed afresh)",
    )
    p.add_argument(
        "--ladder",
        default="",
        help="Elo ladder of players on the first variant, e.g. random,heuristic,mcts:100",
    )
    p.add_argument("--ladder-games", type=int, default=100, help="games per pair of the ladder")
    p.add_argument("--threads", type=int, default=None, help="OpenMP threads (default: all)")
    p.add_argument("--seed", type=int, default=0)
    add_param_option(p)
    p.add_argument(
        "--out",
        default=None,
        help="directory for report.md, report.json, plots (checked before any game is played)",
    )
    p.add_argument("--overwrite", action="store_true", help="replace a report already in --out")
    p.add_argument("--no-plots", action="store_true", help="no PNG plots in --out")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_ray_option(p)
    p.set_defaults(func=_balance)

    p = sub.add_parser("info", help="summary of a dataset: episodes, steps, outcomes")
    p.add_argument("path")
    p.add_argument(
        "--check",
        action="store_true",
        help="read every chunk of every dataset first and name what is damaged "
        "(exit code 1 if anything is)",
    )
    p.set_defaults(func=_info)

    p = sub.add_parser("pack", help="make one file of a dataset whose run was killed")
    p.add_argument("path")
    p.set_defaults(func=_pack)

    for command in (engine, play, view, records, demo):
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (ValueError, TypeError, KeyError, OSError) as e:
        print(f"fiverow: error: {e}", file=sys.stderr)
        return 2
