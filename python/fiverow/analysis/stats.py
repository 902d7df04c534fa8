"""Statistics for comparing variants and players.

Rates with Wilson intervals; the first-seat advantage with an interval whose
exact coverage holds at the edges (:mod:`fiverow.analysis.intervals`); tests
between variants of the first-seat win rate, of the whole outcome and of the
advantage itself, with Holm's correction over the pairs tested and exact
tests where expected counts are small; sequential stopping
(:mod:`fiverow.analysis.sequential`) and Elo ratings
(:mod:`fiverow.analysis.elo`), re-exported here. Every interval takes
``level`` (0.95 by default). How a draw counts, per quantity: not at all in
the win and draw rates (each is a share of all games); as 0 in the advantage
P(first wins) - P(second wins); as half a point in the first seat's score and
in Elo; the sequential tests look at decisive games only.

Validated in tests/test_stats.py: exact coverage by enumeration of every
outcome, exact error rates by dynamic programming, and simulation where
neither is practical.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import special

from .elo import Ratings, elo_ratings, fit_elo
from .intervals import (
    Z95,
    advantage_difference_interval,
    advantage_interval,
    advantage_p_value,
    check_alternative,
    check_z,
    clopper_pearson,
    normal_one_sided_p,
    normal_two_sided_p,
    p_value_by_inversion,
    resolve_level,
    wilson,
    z_of,
)
from .sequential import (
    SPRT,
    SeatSPRT,
    interval_width_reached,
    seat_sprt_probabilities,
)
from .sequential import count as _count

__all__ = [
    "SPRT",
    "Z95",
    "Comparison",
    "Outcomes",
    "Ratings",
    "SeatSPRT",
    "advantage_difference",
    "advantage_difference_interval",
    "advantage_differences",
    "advantage_interval",
    "advantage_p_value",
    "chi2_sf",
    "clopper_pearson",
    "chi_square_test",
    "compare_variants",
    "elo_ratings",
    "exact_table_test",
    "fit_elo",
    "holm",
    "holm_tested",
    "interval_width_reached",
    "length_summary",
    "normal_cdf",
    "outcomes_from_winners",
    "seat_sprt_probabilities",
    "two_proportion_test",
    "wilson_interval",
]


def wilson_interval(
    successes: int, trials: int, z: float | None = None, *, level: float | None = None
) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion, at ``level`` (0.95 by
    default; or give the normal quantile ``z``, the older spelling).

    Returns ``(nan, nan)`` when there are no trials.
    """
    successes, trials = _count("successes", successes), _count("trials", trials)
    z_value = Z95 if z is None and level is None else _z_for(z, level)
    if successes > trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes} / {trials}")
    if trials == 0:
        return (math.nan, math.nan)
    low, high = wilson(successes, trials, z_value)
    return (float(low), float(high))


def _z_for(z: float | None, level: float | None) -> float:
    if z is not None and level is None:
        return check_z(z)
    return z_of(resolve_level(z, level))


def normal_cdf(x: float) -> float:
    """The standard normal distribution function at ``x``."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


# ---- outcomes of one variant ----


@dataclass
class Outcomes:
    """Games of one variant from the first seat's side: wins, draws, losses
    (a truncated game counts as a draw)."""

    first_wins: int
    draws: int
    second_wins: int

    def __post_init__(self) -> None:
        self.first_wins = _count("first_wins", self.first_wins)
        self.draws = _count("draws", self.draws)
        self.second_wins = _count("second_wins", self.second_wins)

    @property
    def games(self) -> int:
        """Number of games counted."""
        return self.first_wins + self.draws + self.second_wins

    @property
    def counts(self) -> tuple[int, int, int]:
        """The games as (first seat wins, draws, second seat wins)."""
        return (self.first_wins, self.draws, self.second_wins)

    def rates(self, level: float = 0.95) -> dict[str, tuple[float, float, float]]:
        """Each rate (a share of all games) with its Wilson interval at
        ``level``: ``{name: (rate, low, high)}``."""
        n = self.games
        out = {}
        for name, k in (
            ("first_seat_win", self.first_wins),
            ("draw", self.draws),
            ("second_seat_win", self.second_wins),
        ):
            low, high = wilson_interval(k, n, level=level)
            out[name] = (k / n if n else math.nan, low, high)
        return out

    def advantage(
        self, z: float | None = None, *, level: float | None = None
    ) -> tuple[float, float, float]:
        """First-seat advantage: P(first wins) - P(second wins) (a draw counts
        0), with its interval at ``level`` (0.95 by default; ``z``, the older
        spelling, gives the level of a normal interval of half-width z).
        Newcombe's MOVER from Clopper-Pearson intervals of the two win rates
        (:func:`fiverow.analysis.intervals.advantage_interval`): its exact
        coverage is at least the level at the corners and edges too."""
        lv = resolve_level(z, level)
        d, low, high = advantage_interval(*self.counts, level=lv)
        return (float(d), float(low), float(high))

    def advantage_p_value(self, alternative: str = "two-sided") -> float:
        """p-value of "no first-seat advantage" that agrees with the interval
        of :meth:`advantage` (p < 1 - level exactly when the interval excludes
        0). ``alternative``: ``"two-sided"``, ``"greater"`` (the first seat is
        favoured) or ``"less"``."""
        return float(advantage_p_value(*self.counts, check_alternative(alternative)))

    def first_seat_score(self, level: float = 0.95) -> tuple[float, float, float]:
        """The first seat's score (wins + draws / 2, per game) with its
        interval at ``level`` (the advantage's, as score = (1 + advantage) / 2)."""
        n = self.games
        if n == 0:
            return (math.nan, math.nan, math.nan)
        d, low, high = self.advantage(level=level)
        return ((d + 1) / 2, (low + 1) / 2, (high + 1) / 2)


def outcomes_from_winners(winners: npt.ArrayLike) -> Outcomes:
    """Outcomes from winning seats (0, 1; -1 for a draw or truncation)."""
    w = np.asarray(winners)
    return Outcomes(int(np.sum(w == 0)), int(np.sum(w < 0)), int(np.sum(w == 1)))


def advantage_difference(
    a: Outcomes, b: Outcomes, *, level: float = 0.95, alternative: str = "two-sided"
) -> tuple[float, float, float, float]:
    """Is the first-seat advantage of variant ``a`` different from that of
    ``b``? ``(difference, low, high, p)``: the difference of the two
    advantages with its ``level`` interval (MOVER from the two advantage
    intervals) and the p-value of "no difference" that agrees with it."""
    diffs = advantage_differences([a.counts], [b.counts], level=level, alternative=alternative)
    return (float(diffs[0][0]), float(diffs[1][0]), float(diffs[2][0]), float(diffs[3][0]))


def advantage_differences(
    a: Sequence[tuple[int, int, int]],
    b: Sequence[tuple[int, int, int]],
    *,
    level: float = 0.95,
    alternative: str = "two-sided",
) -> tuple[Any, Any, Any, Any]:
    """:func:`advantage_difference` for many pairs at once: ``a[i]`` against
    ``b[i]``, each a (first wins, draws, second wins) count. Arrays of
    (difference, low, high, p); NaN where a variant has no games."""
    alternative = check_alternative(alternative)
    level = resolve_level(None, level)
    fa, da, sa = np.asarray(a, dtype=np.float64).reshape(-1, 3).T
    fb, db, sb = np.asarray(b, dtype=np.float64).reshape(-1, 3).T
    ca, cb = (fa, da, sa), (fb, db, sb)
    diff, low, high = advantage_difference_interval(ca, cb, level)
    p = p_value_by_inversion(
        lambda lv: advantage_difference_interval(ca, cb, lv)[1:], diff, alternative
    )
    return diff, low, high, p


# ---- game lengths ----


def length_summary(lengths: npt.ArrayLike) -> dict[str, float]:
    """Mean, standard deviation, minimum, quartiles and maximum."""
    x = np.asarray(lengths, dtype=np.float64)
    if x.size == 0:
        return {k: math.nan for k in ("mean", "std", "min", "q25", "median", "q75", "max")}
    q25, med, q75 = np.percentile(x, [25, 50, 75])
    return {
        "mean": float(x.mean()),
        "std": float(x.std(ddof=1)) if x.size > 1 else 0.0,
        "min": float(x.min()),
        "q25": float(q25),
        "median": float(med),
        "q75": float(q75),
        "max": float(x.max()),
    }


# ---- tests between variants ----


def two_proportion_test(
    k1: int, n1: int, k2: int, n2: int, alternative: str = "two-sided"
) -> tuple[float, float, float]:
    """Pooled z-test of p1 = p2: (z, p-value, Cohen's h effect size).
    ``alternative``: ``"two-sided"``, ``"greater"`` (p1 > p2) or ``"less"``."""
    k1, n1, k2, n2 = (_count(k, v) for k, v in (("k1", k1), ("n1", n1), ("k2", k2), ("n2", n2)))
    alternative = check_alternative(alternative)
    if k1 > n1 or k2 > n2:
        raise ValueError(f"need successes <= trials, got {k1} / {n1} and {k2} / {n2}")
    if n1 == 0 or n2 == 0:
        return (math.nan, math.nan, math.nan)
    p1, p2 = k1 / n1, k2 / n2
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    h = 2 * math.asin(math.sqrt(p1)) - 2 * math.asin(math.sqrt(p2))
    if se == 0:
        return (0.0, 1.0 if alternative == "two-sided" else 0.5, h)
    z = (p1 - p2) / se
    if alternative == "two-sided":
        return (z, normal_two_sided_p(z), h)
    return (z, normal_one_sided_p(z if alternative == "greater" else -z), h)


def _check_table(table: npt.ArrayLike) -> npt.NDArray[np.float64]:
    t = np.asarray(table, dtype=np.float64)
    if t.ndim != 2 or not np.all(np.isfinite(t)) or np.any(t < 0):
        raise ValueError("a contingency table must be 2-D of finite non-negative counts")
    return t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0]


def chi_square_test(table: npt.ArrayLike) -> tuple[float, int, float, float]:
    """Pearson's chi-square test of independence of an r x c table of counts
    (variants x outcomes): (statistic, degrees of freedom, p-value, Cramér's V).
    Columns or rows that are all zero are dropped. With an expected count
    below 5 the chi-square p-value is unreliable: see :func:`exact_table_test`."""
    t = _check_table(table)
    r, c = t.shape
    n = t.sum()
    if r < 2 or c < 2 or n == 0:
        return (0.0, 0, 1.0, 0.0)
    expected = np.outer(t.sum(axis=1), t.sum(axis=0)) / n
    stat = float(np.sum((t - expected) ** 2 / expected))
    dof = (r - 1) * (c - 1)
    p = chi2_sf(stat, dof)
    v = math.sqrt(stat / (n * (min(r, c) - 1)))
    return (stat, dof, p, v)


def min_expected_count(table: npt.ArrayLike) -> float:
    """The smallest expected count of a table under independence (inf for a
    table with fewer than two non-empty rows or columns)."""
    t = _check_table(table)
    if min(t.shape) < 2:
        return math.inf
    return float((np.outer(t.sum(axis=1), t.sum(axis=0)) / t.sum()).min())


def exact_table_test(table: npt.ArrayLike) -> float:
    """Fisher's exact test of independence of a 2 x c table (Freeman and
    Halton's extension beyond 2 x 2): with the margins fixed, every table
    is enumerated and the p-value is the total probability of the tables no
    more probable than the one observed. Enumeration is over the first row:
    at most (smallest column + 1)^(c - 2) x (n + 1) tables."""
    t = _check_table(table)
    if min(t.shape) < 2:
        return 1.0
    if t.shape[0] != 2:
        raise ValueError(f"the exact test takes a 2 x c table, got {t.shape[0]} rows")
    cols = t.sum(axis=0).astype(np.int64)
    row = int(t[0].sum())
    n = int(cols.sum())
    # every first row (x_1..x_c) with sum `row` and 0 <= x_j <= cols_j
    rows = np.zeros((1, 0), dtype=np.int64)
    for j, cj in enumerate(cols[:-1]):
        rest = int(cols[j + 1 :].sum())
        used = rows.sum(axis=1, keepdims=True)
        x = np.arange(min(cj, row) + 1)
        grid = np.concatenate(
            [np.repeat(rows, len(x), axis=0), np.tile(x, len(rows))[:, None]], axis=1
        )
        left = row - (np.repeat(used, len(x), axis=0)[:, 0] + np.tile(x, len(rows)))
        rows = grid[(left >= 0) & (left <= rest)]
    last = row - rows.sum(axis=1)
    rows = np.concatenate([rows, last[:, None]], axis=1)
    logp = (
        special.gammaln(cols + 1).sum()
        - special.gammaln(rows + 1).sum(axis=1)
        - special.gammaln(cols - rows + 1).sum(axis=1)
        + special.gammaln(row + 1)
        + special.gammaln(n - row + 1)
        - special.gammaln(n + 1)
    )
    observed = logp[np.all(rows == t[0].astype(np.int64), axis=1)][0]
    p = np.exp(logp[logp <= observed + 1e-7]).sum()
    return float(min(1.0, p))


def chi2_sf(x: float, k: int) -> float:
    """Survival function of the chi-square distribution with k degrees of
    freedom (scipy's regularised upper incomplete gamma)."""
    if math.isnan(x):
        raise ValueError("chi2_sf of NaN")
    if x <= 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    return float(special.chdtrc(k, x))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (same order as given). Every value
    counts as a test: leave untestable ones out (see :func:`compare_variants`)."""
    bad = [p for p in p_values if not 0 <= p <= 1]  # NaN included: it would sort anywhere
    if bad:
        raise ValueError(f"p-values must be in [0, 1], got {bad}")
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def holm_tested(p_values: Sequence[float]) -> list[float]:
    """Holm over the p-values that are numbers; NaN (an untestable pair)
    stays NaN and does not count among the tests."""
    tested = [i for i, p in enumerate(p_values) if not math.isnan(p)]
    adjusted = holm([p_values[i] for i in tested])
    out = [math.nan] * len(p_values)
    for i, p in zip(tested, adjusted, strict=True):
        out[i] = p
    return out


@dataclass
class Comparison:
    """Two variants compared three ways: the first seat's win rate (a draw
    counts as not a win), the whole outcome distribution (first wins, draws,
    second wins), and the first-seat advantage itself (a draw counts 0).
    p-values are Holm-corrected over the pairs that could be tested (NaN:
    untestable, e.g. a variant without games). Where an expected count is
    below 5 the p-values are exact (Fisher), as ``p_method`` and
    ``chi2_method`` say."""

    a: str
    b: str
    rate_a: float
    rate_b: float
    z: float
    p_value: float  # the first-seat win rates: z-test, or Fisher's exact test
    p_holm: float
    cohens_h: float
    chi2: float
    chi2_p: float  # the 2 x 3 outcome table: chi-square, or Fisher-Freeman-Halton
    chi2_p_holm: float
    cramers_v: float
    p_method: str = "z-test"
    chi2_method: str = "chi-square"
    advantage_a: float = math.nan
    advantage_b: float = math.nan
    advantage_diff: float = math.nan  # advantage_a - advantage_b
    advantage_low: float = math.nan  # its interval at ``level``
    advantage_high: float = math.nan
    advantage_p: float = math.nan  # no difference (agrees with the interval)
    advantage_p_holm: float = math.nan
    level: float = 0.95


def compare_variants(outcomes: Mapping[str, Outcomes], *, level: float = 0.95) -> list[Comparison]:
    """Every pair of variants, with Holm-corrected p-values (over the pairs
    that could be tested) and the difference of advantages with its interval
    at ``level``."""
    level = resolve_level(None, level)
    names = list(outcomes)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    diffs = advantage_differences(
        [outcomes[a].counts for a, _ in pairs], [outcomes[b].counts for _, b in pairs], level=level
    )
    rows = []
    for index, (a, b) in enumerate(pairs):
        oa, ob = outcomes[a], outcomes[b]
        z, p, h = two_proportion_test(oa.first_wins, oa.games, ob.first_wins, ob.games)
        rate_table = [
            [oa.first_wins, oa.games - oa.first_wins],
            [ob.first_wins, ob.games - ob.first_wins],
        ]
        p_method = "z-test"
        if not math.isnan(p) and min_expected_count(rate_table) < 5:
            p, p_method = exact_table_test(rate_table), "Fisher exact"
        table = [list(oa.counts), list(ob.counts)]
        stat, dof, p2, v = chi_square_test(table)
        chi2_method = "chi-square"
        if oa.games == 0 or ob.games == 0:
            p2 = math.nan
        elif dof > 0 and min_expected_count(table) < 5:
            p2, chi2_method = exact_table_test(table), "Fisher-Freeman-Halton exact"
        diff, low, high, p_adv = (float(x[index]) for x in diffs)
        rows.append(
            Comparison(
                a,
                b,
                oa.first_wins / oa.games if oa.games else math.nan,
                ob.first_wins / ob.games if ob.games else math.nan,
                z,
                p,
                math.nan,
                h,
                stat,
                p2,
                math.nan,
                v,
                p_method,
                chi2_method,
                oa.advantage()[0],
                ob.advantage()[0],
                diff,
                low,
                high,
                p_adv,
                math.nan,
                level,
            )
        )
    for field_p, field_holm in (
        ("p_value", "p_holm"),
        ("chi2_p", "chi2_p_holm"),
        ("advantage_p", "advantage_p_holm"),
    ):
        adjusted = holm_tested([getattr(r, field_p) for r in rows])
        for r, ph in zip(rows, adjusted, strict=True):
            setattr(r, field_holm, ph)
    return rows
