"""Coverage of the Elo bootstrap intervals with heavy draws, by simulation:
JSON lines.

Three players (true Elo -100, 0, +120, mean 0), every pair plays ``--games``
games with a share ``--draws`` drawn and the expected score the Elo formula's;
``--runs`` simulated tournaments, each rated by fiverow.stats.elo_ratings
with ``--bootstrap`` resamples. Prints each player's coverage of its true
rating by the nominal-95% interval, the mean interval width, and the bias
of the fitted ratings.

    python benchmarks/elo_coverage.py                       # 1000 runs, 100 games a pair, 40% draws
    python benchmarks/elo_coverage.py --draws 0.1 --games 50
"""

from __future__ import annotations

import argparse
import itertools
import json
import time

import numpy as np

from fiverow import stats

TRUTH = np.array([-100.0, 0.0, 120.0])


def tournament(rng: np.random.Generator, truth: np.ndarray, games: int, draws: float) -> tuple:
    a, b, s = [], [], []
    for i, j in itertools.combinations(range(len(truth)), 2):
        e = 1 / (1 + 10 ** ((truth[j] - truth[i]) / 400))
        win = e - draws / 2
        s.append(rng.choice([1.0, 0.5, 0.0], size=games, p=[win, draws, 1 - win - draws]))
        a += [i] * games
        b += [j] * games
    return np.array(a), np.array(b), np.concatenate(s)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--games", type=int, default=100, help="games per pair")
    ap.add_argument("--draws", type=float, default=0.4, help="share of drawn games")
    ap.add_argument("--bootstrap", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    truth = TRUTH - TRUTH.mean()
    rng = np.random.default_rng(args.seed)
    hits, widths, errors = np.zeros(3), [], []
    start = time.perf_counter()
    for k in range(args.runs):
        a, b, s = tournament(rng, truth, args.games, args.draws)
        r = stats.elo_ratings(["p", "q", "r"], a, b, s, bootstrap=args.bootstrap, seed=k)
        hits += (r.low <= truth) & (truth <= r.high)
        widths.append(r.high - r.low)
        errors.append(r.elo - truth)
    print(
        json.dumps(
            {
                "true_elo": truth.round(1).tolist(),
                "games_per_pair": args.games,
                "draws": args.draws,
                "runs": args.runs,
                "bootstrap": args.bootstrap,
                "coverage_95": (hits / args.runs).round(3).tolist(),
                "mean_width": np.mean(widths, axis=0).round(1).tolist(),
                "bias": np.mean(errors, axis=0).round(1).tolist(),
                "seconds": round(time.perf_counter() - start, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
