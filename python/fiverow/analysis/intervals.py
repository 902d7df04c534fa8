"""Confidence intervals: binomial rates (Wilson, Clopper-Pearson) and the
first-seat advantage, alone and as a difference between two variants.

The advantage is P(first wins) - P(second wins), a difference of two cells
of one trinomial (first wins, draws, second wins). Its interval is Newcombe's
MOVER ("method of variance estimates recovery", Newcombe 1998; Zou and
Donner 2008): each end of the interval of the difference is recovered from
the Clopper-Pearson intervals of the two cells and their estimated
correlation. Exact coverage, by enumeration of every trinomial outcome, is
at least 0.95 at a level of 0.95 on grids that include the corners, the
no-draw edge and the all-draw edge, at n = 40 and n = 2000, and at n = 40
within 0.001 of the level at levels 0.8 to 0.99 (tests/test_stats.py;
benchmarks/advantage_coverage.py scans the grid). The price is a little
width over a score interval, whose coverage falls to 0.88 next to a corner.

Every function takes ``level`` (the confidence, 0.95 by default) and works on
scalars or NumPy arrays alike (arrays broadcast), so that coverage can be
checked on all outcomes at once.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import special

Z95 = 1.959963984540054

ArrayOrFloat = Any  # a float, or an array of them (the functions broadcast)


def check_level(level: object, name: str = "level") -> float:
    """A confidence level: a number strictly between 0 and 1."""
    if isinstance(level, bool) or not isinstance(level, int | float | np.floating):
        raise ValueError(f"{name} must be a number in (0, 1), got {level!r}")
    if not (math.isfinite(level) and 0 < level < 1):
        raise ValueError(f"{name} must be in (0, 1), got {level!r}")
    return float(level)


def check_z(z: object) -> float:
    if isinstance(z, bool) or not isinstance(z, int | float | np.floating):
        raise ValueError(f"z must be a positive finite number, got {z!r}")
    if not (math.isfinite(z) and z > 0):
        raise ValueError(f"z must be a positive finite number, got {z!r}")
    return float(z)


def z_of(level: float) -> float:
    """The two-sided normal quantile of a confidence level (0.95 -> 1.96)."""
    return float(special.ndtri(0.5 + check_level(level) / 2))


def level_of(z: float) -> float:
    """The confidence level of a two-sided normal interval of half-width z."""
    return math.erf(check_z(z) / math.sqrt(2.0))


def resolve_level(z: float | None, level: float | None) -> float:
    """``level`` from either spelling (the older ``z=`` or ``level=``); 0.95
    when neither is given."""
    if z is not None and level is not None:
        raise ValueError(f"give z or level, not both (z={z!r}, level={level!r})")
    if z is not None:
        return level_of(z)
    return 0.95 if level is None else check_level(level)


def normal_two_sided_p(z: float) -> float:
    """P(|Z| >= |z|) for a standard normal Z, from erfc: accurate far into
    the tail (no 1 - cdf cancellation, no underflow to 0 before ~1e-308)."""
    return math.erfc(abs(z) / math.sqrt(2.0))


def normal_one_sided_p(z: float) -> float:
    """P(Z >= z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def wilson(k: ArrayOrFloat, n: ArrayOrFloat, z: float) -> tuple[Any, Any]:
    """Wilson score interval of k successes in n trials (vectorised; n > 0).
    The ends are exact (0 or 1) when k is 0 or n, and never exclude k / n."""
    k, n = np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = np.where(k == 0, 0.0, np.maximum(0.0, np.minimum(p, centre - half)))
    high = np.where(k == n, 1.0, np.minimum(1.0, np.maximum(p, centre + half)))
    return low, high


def clopper_pearson(
    k: ArrayOrFloat, n: ArrayOrFloat, level: ArrayOrFloat = 0.95
) -> tuple[Any, Any]:
    """Clopper-Pearson ("exact") interval of k successes in n trials: each
    end misses with probability at most (1 - level) / 2 (vectorised; n > 0;
    ``level`` may be an array too)."""
    k, n = np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64)
    tail = (1 - np.asarray(level, dtype=np.float64)) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(k <= 0, 0.0, special.betaincinv(np.maximum(k, 1), n - k + 1, tail))
        high = np.where(k >= n, 1.0, special.betaincinv(k + 1, np.maximum(n - k, 1), 1 - tail))
    return low, high


def _cells(k: npt.NDArray[np.float64], n: npt.NDArray[np.float64], level: Any) -> tuple[Any, Any]:
    """Clopper-Pearson intervals of many cells, computed once per distinct
    (k, n): enumerating every outcome of 2000 games repeats the same 2001
    counts a thousand times over."""
    k, n = np.broadcast_arrays(k, n)
    if k.size < 4096 or np.ndim(level) != 0:
        return clopper_pearson(k, n, level)
    keys = k.ravel() * (n.max() + 1) + n.ravel()
    unique, inverse = np.unique(keys, return_inverse=True)
    low, high = clopper_pearson(unique // (n.max() + 1), unique % (n.max() + 1), level)
    return low[inverse].reshape(k.shape), high[inverse].reshape(k.shape)


def advantage_interval(
    first_wins: ArrayOrFloat,
    draws: ArrayOrFloat,
    second_wins: ArrayOrFloat,
    level: ArrayOrFloat = 0.95,
) -> tuple[Any, Any, Any]:
    """The first-seat advantage d = P(first wins) - P(second wins) and its
    ``level`` interval: ``(d, low, high)`` (NaN with no games).

    MOVER with Clopper-Pearson cells: with p1, p2 the two win rates, [l1, u1]
    and [l2, u2] their intervals and r the estimated correlation of their
    estimates (-sqrt(p1 p2 / ((1 - p1)(1 - p2))); -1 when there are no
    draws, since then p2 = 1 - p1), the ends are
    ``d - sqrt((p1-l1)^2 + (u2-p2)^2 - 2r(p1-l1)(u2-p2))`` and
    ``d + sqrt((u1-p1)^2 + (p2-l2)^2 - 2r(u1-p1)(p2-l2))``. An all-draw
    sample of n games gets +-(the Clopper-Pearson upper end of 0 in n), the
    honest width of "no decisive game seen yet"."""
    b = np.asarray(first_wins, dtype=np.float64)
    c = np.asarray(second_wins, dtype=np.float64)
    n = b + np.asarray(draws, dtype=np.float64) + c
    safe = np.where(n > 0, n, 1.0)
    p1, p2 = b / safe, c / safe
    both = np.broadcast_arrays(b, c, safe, np.asarray(level, dtype=np.float64))
    lv = both[3] if np.ndim(level) else level
    low_, high_ = _cells(np.stack(both[:2]), np.stack([both[2], both[2]]), lv)
    l1, l2, u1, u2 = low_[0], low_[1], high_[0], high_[1]
    with np.errstate(invalid="ignore", divide="ignore"):
        r = -np.sqrt(p1 * p2 / ((1 - p1) * (1 - p2)))
    r = np.where(b + c >= n, -1.0, np.where((b > 0) & (c > 0), r, 0.0))
    d = p1 - p2
    below = np.sqrt(np.maximum(_mover(p1 - l1, u2 - p2, r), 0.0))
    above = np.sqrt(np.maximum(_mover(u1 - p1, p2 - l2, r), 0.0))
    low, high = np.maximum(d - below, -1.0), np.minimum(d + above, 1.0)
    empty = n <= 0
    return (
        np.where(empty, np.nan, d),
        np.where(empty, np.nan, low),
        np.where(empty, np.nan, high),
    )


def advantage_p_value(
    first_wins: ArrayOrFloat,
    draws: ArrayOrFloat,
    second_wins: ArrayOrFloat,
    alternative: str = "two-sided",
) -> Any:
    """p-value of "no first-seat advantage" that agrees with
    :func:`advantage_interval`: below 1 - level exactly when the level
    interval excludes 0 (vectorised)."""
    d = advantage_interval(first_wins, draws, second_wins)[0]
    return p_value_by_inversion(
        lambda lv: advantage_interval(first_wins, draws, second_wins, level=lv)[1:],
        d,
        alternative,
    )


def _mover(x: Any, y: Any, r: Any) -> Any:
    return x * x + y * y - 2 * r * x * y


def advantage_difference_interval(
    a: tuple[ArrayOrFloat, ArrayOrFloat, ArrayOrFloat],
    b: tuple[ArrayOrFloat, ArrayOrFloat, ArrayOrFloat],
    level: ArrayOrFloat = 0.95,
) -> tuple[Any, Any, Any]:
    """The difference of two independent variants' advantages, d_a - d_b,
    with its ``level`` interval (MOVER again, from each variant's advantage
    interval): ``(diff, low, high)``. ``a`` and ``b`` are (first wins, draws,
    second wins) counts."""
    da, la, ua = advantage_interval(*a, level=level)
    db, lb, ub = advantage_interval(*b, level=level)
    diff = da - db
    low = diff - np.sqrt((da - la) ** 2 + (ub - db) ** 2)
    high = diff + np.sqrt((ua - da) ** 2 + (db - lb) ** 2)
    return diff, np.maximum(low, -2.0), np.minimum(high, 2.0)


def p_value_by_inversion(
    bounds: Any, estimate: ArrayOrFloat, alternative: str = "two-sided"
) -> Any:
    """The p-value of "the quantity is 0" that agrees with a family of
    intervals: the smallest 1 - level whose interval excludes 0, found by
    bisection on log(1 - level) (to a relative precision of about 2e-4).
    ``bounds(levels)`` returns (low, high) arrays for an array of levels, one
    per estimate (so many p-values are found at once). One-sided:
    ``"greater"`` (the alternative is a positive quantity) or ``"less"``,
    from the one-sided ends of the same intervals. Returns an array shaped
    like ``estimate`` (a float for a scalar)."""
    alternative = check_alternative(alternative)
    est = np.atleast_1d(np.asarray(estimate, dtype=np.float64))
    positive = est > 0

    def excludes_zero(log_alpha: Any) -> Any:
        low, high = bounds(1.0 - np.exp(log_alpha))
        return np.where(positive, np.asarray(low) > 0, np.asarray(high) < 0)

    # excludes_zero is monotone in alpha: true for large alpha, false for tiny
    lo, hi = np.full(est.shape, -700.0), np.full(est.shape, math.log1p(-1e-12))
    never = ~excludes_zero(hi)  # even a level near 0 keeps 0 inside
    always = excludes_zero(lo)
    for _ in range(22):
        mid = (lo + hi) / 2
        yes = excludes_zero(mid)
        hi, lo = np.where(yes, mid, hi), np.where(yes, lo, mid)
    two = np.where(always, 0.0, np.where(never, 1.0, np.exp(hi)))
    two = np.where(est == 0, 1.0, two)
    if alternative == "two-sided":
        p = np.minimum(two, 1.0)
    else:
        toward = positive == (alternative == "greater")
        p = np.where(est == 0, 0.5, np.where(toward, two / 2, 1 - two / 2))
    p = np.where(np.isnan(est), np.nan, p)
    return float(p[0]) if np.ndim(estimate) == 0 else p.reshape(np.shape(estimate))


def check_alternative(alternative: object) -> str:
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(
            f"alternative must be 'two-sided', 'greater' or 'less', got {alternative!r}"
        )
    return str(alternative)
