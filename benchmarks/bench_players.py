"""Strength of the built-in players: JSON lines of match results per variant.

Two pairings per variant, seats alternated game by game: the heuristic
against random, and MCTS (--simulations) against the heuristic. Each line
gives player A's wins, losses and draws, its win rate with the Wilson 95%
interval, its score (wins + draws / 2) and the time taken.

    python benchmarks/bench_players.py                              # every preset
    python benchmarks/bench_players.py --variants freestyle --mcts-games 200
    python benchmarks/bench_players.py --variants gomorpion --param size=15
"""

from __future__ import annotations

import argparse
import json
import time

import fiverow
from fiverow import players
from fiverow.cli import parse_params
from fiverow.match import Match
from fiverow.players import Player


def play(
    variant: str, a: str | Player, b: str | Player, games: int, threads: int, params: dict
) -> dict:
    start = time.perf_counter()
    out = Match(variant, a, b, games=games, seed=1, num_threads=threads, params=params).play()
    score = out.variants[0]
    rate, low, high = score.win_rate()
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
        "seconds": round(time.perf_counter() - start, 1),
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
    args = parser.parse_args()
    params = parse_params(args.param)
    for variant in args.variants.split(","):
        if not args.skip_random:
            print(
                json.dumps(
                    play(variant, "heuristic", "random", args.random_games, args.threads, params)
                ),
                flush=True,
            )
        if not args.skip_mcts:
            mcts = players.make("mcts", simulations=args.simulations, rollout=args.rollout)
            print(
                json.dumps(play(variant, mcts, "heuristic", args.mcts_games, args.threads, params)),
                flush=True,
            )


if __name__ == "__main__":
    main()
