"""Exact coverage of the first-seat advantage's interval over a grid: JSON lines.

Every trinomial outcome (first wins, draws, second wins) of n games is
enumerated (861 outcomes at n = 40, 2,003,001 at n = 2000), each outcome's
interval computed once, and the coverage at a point (p_first, p_draw,
p_second) is the exact total probability of the outcomes whose interval holds
p_first - p_second. The grid: every point whose coordinates are two of
S = {0, 1e-4, 3e-4, 1e-3, 2e-3, 5e-3, 0.01, 0.02, 0.05, 0.1, ..., 0.5} and
their complements (the third is what is left), so the three corners, the
all-draw and no-draw edges and points next to them are all in it; at
n <= 100 also the uniform grid of step 0.01.

One line per (n, level, interval): the minimum coverage and where, the mean,
and the all-draw interval. ``--old`` adds the interval fiverow had before
(normal, half a game added to each side), for comparison.

    python benchmarks/advantage_coverage.py                   # n = 40 and 2000, level 0.95
    python benchmarks/advantage_coverage.py --n 40 100 --levels 0.9 0.95 0.99 --old
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np
from scipy import special

from fiverow import stats

S = [0, 1e-4, 3e-4, 1e-3, 2e-3, 5e-3, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5]


def grid(n: int) -> list[tuple[float, float, float]]:
    values = sorted(set(S) | {1 - s for s in S})
    points = set()
    for a in values:
        for b in values:
            if a + b <= 1 + 1e-12:
                rest = max(0.0, 1 - a - b)
                for p in ((a, rest, b), (a, b, rest), (rest, a, b)):
                    points.add(tuple(round(x, 12) for x in p))
    if n <= 100:
        u = np.round(np.linspace(0, 1, 101), 12)
        points |= {(a, round(max(0.0, 1 - a - b), 12), b) for a in u for b in u if a + b <= 1}
    return sorted(points)


def outcomes(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    b, c = np.meshgrid(np.arange(n + 1.0), np.arange(n + 1.0), indexing="ij")
    keep = b + c <= n
    return b[keep], n - b[keep] - c[keep], c[keep]


def old_interval(b, d, c, level):
    """fiverow's interval before issue 13 (for comparison only)."""
    z = float(special.ndtri(0.5 + level / 2))
    n = b + d + c
    m = n + 1
    p1, p2 = (b + 0.5) / m, (c + 0.5) / m
    centre = p1 - p2
    half = z * np.sqrt(np.maximum(p1 + p2 - centre * centre, 0.0) / m)
    return np.maximum(-1.0, centre - half), np.minimum(1.0, centre + half)


def coverage(counts, low, high, points) -> np.ndarray:
    b, d, c = counts
    n = b + d + c
    base = special.gammaln(n + 1) - special.gammaln(b + 1)
    base = base - special.gammaln(d + 1) - special.gammaln(c + 1)
    out = np.empty(len(points))
    for i, (p1, pd, p2) in enumerate(points):
        log = base.copy()
        for k, p in ((b, p1), (d, pd), (c, p2)):
            log += np.where(k > 0, k * math.log(p) if p > 0 else -np.inf, 0.0)
        truth = p1 - p2
        inside = (low <= truth + 1e-12) & (truth - 1e-12 <= high)
        out[i] = np.exp(log[inside]).sum()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[40, 2000])
    ap.add_argument("--levels", type=float, nargs="+", default=[0.95])
    ap.add_argument("--old", action="store_true", help="also the interval fiverow had before")
    args = ap.parse_args()
    for n in args.n:
        counts = outcomes(n)
        points = grid(n)
        for level in args.levels:
            methods = {"mover-clopper-pearson": None}
            if args.old:
                methods["old-normal-half-game"] = old_interval
            for name, method in methods.items():
                start = time.perf_counter()
                if method is None:
                    _, low, high = stats.advantage_interval(*counts, level=level)
                else:
                    low, high = method(*counts, level)
                cov = coverage(counts, low, high, points)
                worst = np.argsort(cov)[:3]
                alldraw = int(np.flatnonzero((counts[0] == 0) & (counts[2] == 0))[0])
                print(
                    json.dumps(
                        {
                            "n": n,
                            "outcomes": len(counts[0]),
                            "level": level,
                            "interval": name,
                            "points": len(points),
                            "min_coverage": round(float(cov[worst[0]]), 4),
                            "at": [list(points[i]) for i in worst],
                            "lowest_three": [round(float(cov[i]), 4) for i in worst],
                            "mean_coverage": round(float(cov.mean()), 4),
                            "all_draw_interval": [
                                round(float(low[alldraw]), 4),
                                round(float(high[alldraw]), 4),
                            ],
                            "seconds": round(time.perf_counter() - start, 1),
                        }
                    ),
                    flush=True,
                )


if __name__ == "__main__":
    main()
