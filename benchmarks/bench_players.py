"""Strength and speed of the built-in players: JSON lines per variant.

Two pairings per variant, seats alternated game by game: the heuristic
against random, and MCTS (--simulations) against the heuristic; more with
--pair A,B (any player names). Each line gives player A's wins, losses and
draws, its win rate with the Wilson 95% interval, its score (wins + draws /
2) with its 95% interval (MOVER, as the balance reports' advantage), the
share of decisive games, how many games were distinct and the time taken.
--openings balanced (or a file) starts every game from an opening, each
played from both seats (fiverow.players.openings). --speed measures moves
per second instead: each player moves on every board of a vector env
(--boards, --threads) for --speed-steps steps from the start of the games;
with --speed-games, whole games of the player against itself from the
openings, one per board (the moves it chose, per second of play).

    python benchmarks/bench_players.py                              # every preset
    python benchmarks/bench_players.py --variants freestyle --mcts-games 200
    python benchmarks/bench_players.py --variants gomorpion --param size=15
    python benchmarks/bench_players.py --variants renju --skip-random --skip-mcts \
        --pair threat,heuristic --pair threat,mcts:400 --pair-games 200
    python benchmarks/bench_players.py --variants freestyle --speed \
        --speed-players random,heuristic,threat,mcts:100
    python benchmarks/bench_players.py --variants freestyle,standard,renju --skip-random \
        --skip-mcts --openings balanced --pair pvs,mcts:400 --pair-games 200
    python benchmarks/bench_players.py --variants freestyle --speed --speed-games \
        --openings balanced --speed-players "pvs(nodes=2000),pvs,pvs(nodes=50000)"
"""

from __future__ import annotations

import argparse
import json
import time

import fiverow
from fiverow import players
from fiverow.cli import parse_params, split_players
from fiverow.match import Match
from fiverow.players import Player


def play(
    variant: str,
    a: str | Player,
    b: str | Player,
    games: int,
    threads: int,
    params: dict,
    openings: str = "none",
) -> dict:
    start = time.perf_counter()
    out = Match(
        variant, a, b, games=games, seed=1, num_threads=threads, params=params, openings=openings
    ).play()
    score = out.variants[0]
    rate, low, high = score.win_rate()
    _, score_low, score_high = score.score_interval()
    return {
        "variant": variant,
        "params": params,
        "player_a": out.player_a + (f" ({a.rollout} playouts)" if isinstance(a, Player) else ""),
        "player_b": out.player_b,
        "games": score.games,
        "a_wins": score.wins,
        "a_losses": score.losses,
        "draws": score.draws,
        "a_win_rate": round(rate, 4),
        "a_win_rate_ci95": [round(low, 4), round(high, 4)],
        "a_score": round(score.score, 4),
        "a_score_ci95": [round(score_low, 4), round(score_high, 4)],
        "decisive": round((score.wins + score.losses) / max(score.games, 1), 4),
        "openings": out.openings,
        "distinct": out.distinct,
        "seconds": round(time.perf_counter() - start, 1),
    }


def speed(variant: str, name: str, boards: int, threads: int, steps: int, params: dict) -> dict:
    """Moves per second of one player on every board at once (the player's
    act() only, not the env's step)."""
    env = fiverow.make_vec(variant, num_envs=boards, seed=1, num_threads=threads, **params)
    env.reset(seed=1)
    player = players.make(name)
    spent = 0.0
    moves = 0
    for _ in range(steps):
        start = time.perf_counter()
        actions = player.act(env)
        spent += time.perf_counter() - start
        moves += boards
        env.step(actions)
    return {
        "variant": variant,
        "params": params,
        "player": player.name,
        "boards": boards,
        "threads": threads,
        "steps": steps,
        "moves": moves,
        "seconds": round(spent, 2),
        "moves_per_s": round(moves / spent, 1),
    }


def speed_games(
    variant: str, name: str, boards: int, threads: int, params: dict, openings: str
) -> dict:
    """Moves per second of whole games of the player against itself, one per
    board (the openings' stones are not the player's moves)."""
    player = players.make(name)
    start = time.perf_counter()
    out = Match(
        variant,
        player,
        player,
        games=boards,
        boards=boards,
        seed=1,
        num_threads=threads,
        params=params,
        openings=openings,
    ).play()
    spent = time.perf_counter() - start
    moves = int(out.games["length"].sum() - out.games["book"].sum())
    return {
        "variant": variant,
        "params": params,
        "player": player.name,
        "boards": boards,
        "threads": threads,
        "games": len(out.games),
        "openings": out.openings,
        "moves": moves,
        "seconds": round(spent, 2),
        "moves_per_s": round(moves / spent, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--variants", default=",".join(fiverow.preset_names()))
    parser.add_argument("--random-games", type=int, default=400)
    parser.add_argument("--mcts-games", type=int, default=100)
    parser.add_argument("--simulations", type=int, default=400)
    parser.add_argument("--rollout", default="heuristic", choices=["heuristic", "random"])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--skip-random", action="store_true")
    parser.add_argument("--skip-mcts", action="store_true")
    parser.add_argument(
        "--pair", action="append", default=[], metavar="A,B", help="another pairing (A vs B)"
    )
    parser.add_argument("--pair-games", type=int, default=200)
    parser.add_argument("--speed", action="store_true", help="moves per second instead")
    parser.add_argument("--speed-players", default="random,heuristic,threat,mcts:100")
    parser.add_argument("--boards", type=int, default=1024)
    parser.add_argument("--speed-steps", type=int, default=20)
    parser.add_argument(
        "--speed-games", action="store_true", help="--speed over whole self-play games"
    )
    parser.add_argument(
        "--openings", default="none", help="none, balanced or a file (fiverow.players.openings)"
    )
    args = parser.parse_args()
    params = parse_params(args.param)
    if args.speed:
        for variant in args.variants.split(","):
            for name in split_players(args.speed_players):
                if args.speed_games:
                    line = speed_games(
                        variant, name, args.boards, args.threads, params, args.openings
                    )
                else:
                    line = speed(variant, name, args.boards, args.threads, args.speed_steps, params)
                print(json.dumps(line), flush=True)
        return
    for variant in args.variants.split(","):
        for pair in args.pair:
            a, b = split_players(pair)
            line = play(variant, a, b, args.pair_games, args.threads, params, args.openings)
            print(json.dumps(line), flush=True)
        if not args.skip_random:
            print(
                json.dumps(
                    play(
                        variant,
                        "heuristic",
                        "random",
                        args.random_games,
                        args.threads,
                        params,
                        args.openings,
                    )
                ),
                flush=True,
            )
        if not args.skip_mcts:
            mcts = players.make("mcts", simulations=args.simulations, rollout=args.rollout)
            line = play(
                variant, mcts, "heuristic", args.mcts_games, args.threads, params, args.openings
            )
            print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
