"""Statistics for comparing variants and players.

Interval estimates of rates (Wilson), the first-seat advantage, two-sample
tests with Holm's correction and effect sizes, sequential stopping (Wald's
SPRT, or a target interval width) and Elo ratings fitted by maximum
likelihood with bootstrap intervals. Pure NumPy; every function is tested
against simulated outcomes of known rates (tests/test_stats.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

Z95 = 1.959963984540054


def _count(name: str, value: object) -> int:
    """A count of games: a non-negative whole number (NaN, fractions, bools
    and negatives are errors, not silently odd intervals)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value}")
    return int(value)


def _z(z: float) -> float:
    if not (isinstance(z, int | float | np.floating) and math.isfinite(z) and z > 0):
        raise ValueError(f"z must be a positive finite number, got {z!r}")
    return float(z)


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (95% by default).

    Returns ``(nan, nan)`` when there are no trials.
    """
    successes, trials, z = _count("successes", successes), _count("trials", trials), _z(z)
    if successes > trials:
        raise ValueError(f"need 0 <= successes <= trials, got {successes} / {trials}")
    if trials == 0:
        return (math.nan, math.nan)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    # exact ends where rounding would leave the observed rate outside
    low = 0.0 if successes == 0 else max(0.0, min(p, centre - half))
    high = 1.0 if successes == trials else min(1.0, max(p, centre + half))
    return (low, high)


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

    def rates(self) -> dict[str, tuple[float, float, float]]:
        """Each rate with its Wilson 95% interval: ``{name: (rate, low, high)}``."""
        n = self.games
        out = {}
        for name, k in (
            ("first_seat_win", self.first_wins),
            ("draw", self.draws),
            ("second_seat_win", self.second_wins),
        ):
            low, high = wilson_interval(k, n)
            out[name] = (k / n if n else math.nan, low, high)
        return out

    def advantage(self, z: float = Z95) -> tuple[float, float, float]:
        """First-seat advantage: P(first wins) - P(second wins), with a
        normal interval from the trinomial's variance, (p1 + p2 - (p1 - p2)^2)
        / n, taken after adding half a game to each side (in the manner of
        Agresti and Caffo, so that all-draw or one-sided samples still get an
        interval of the right width)."""
        n = self.games
        z = _z(z)
        if n == 0:
            return (math.nan, math.nan, math.nan)
        d = (self.first_wins - self.second_wins) / n
        m = n + 1
        p1, p2 = (self.first_wins + 0.5) / m, (self.second_wins + 0.5) / m
        centre = p1 - p2
        half = z * math.sqrt(max(p1 + p2 - centre * centre, 0.0) / m)
        return (d, max(-1.0, centre - half), min(1.0, centre + half))

    def first_seat_score(self) -> tuple[float, float, float]:
        """The first seat's score (wins + draws / 2, per game) with an interval."""
        n = self.games
        if n == 0:
            return (math.nan, math.nan, math.nan)
        d, low, high = self.advantage()
        return ((d + 1) / 2, (low + 1) / 2, (high + 1) / 2)


def outcomes_from_winners(winners: npt.ArrayLike) -> Outcomes:
    """Outcomes from winning seats (0, 1; -1 for a draw or truncation)."""
    w = np.asarray(winners)
    return Outcomes(int(np.sum(w == 0)), int(np.sum(w < 0)), int(np.sum(w == 1)))


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


def two_proportion_test(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float, float]:
    """Two-sided pooled z-test of p1 = p2: (z, p-value, Cohen's h effect size)."""
    k1, n1, k2, n2 = (_count(k, v) for k, v in (("k1", k1), ("n1", n1), ("k2", k2), ("n2", n2)))
    if k1 > n1 or k2 > n2:
        raise ValueError(f"need successes <= trials, got {k1} / {n1} and {k2} / {n2}")
    if n1 == 0 or n2 == 0:
        return (math.nan, math.nan, math.nan)
    p1, p2 = k1 / n1, k2 / n2
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    h = 2 * math.asin(math.sqrt(p1)) - 2 * math.asin(math.sqrt(p2))
    if se == 0:
        return (0.0, 1.0, h)
    z = (p1 - p2) / se
    return (z, 2 * (1 - normal_cdf(abs(z))), h)


def chi_square_test(table: npt.ArrayLike) -> tuple[float, int, float, float]:
    """Pearson's chi-square test of independence of an r x c table of counts
    (variants x outcomes): (statistic, degrees of freedom, p-value, Cramér's V).
    Columns or rows that are all zero are dropped."""
    t = np.asarray(table, dtype=np.float64)
    if t.ndim != 2 or not np.all(np.isfinite(t)) or np.any(t < 0):
        raise ValueError("a chi-square table must be 2-D of finite non-negative counts")
    t = t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0]
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


def chi2_sf(x: float, k: int) -> float:
    """Survival function of the chi-square distribution with k degrees of
    freedom (regularised upper incomplete gamma, by series or continued
    fraction)."""
    if math.isnan(x):
        raise ValueError("chi2_sf of NaN")
    if x <= 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    return _gamma_q(k / 2.0, x / 2.0)


def _gamma_q(a: float, x: float) -> float:
    if x < a + 1:  # series for P, then Q = 1 - P
        term = total = 1.0 / a
        ap = a
        for _ in range(1000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - math.lgamma(a)))
    # Lentz's continued fraction for Q
    b = x + 1 - a
    c = 1e300
    d = 1 / b
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, h * math.exp(-x + a * math.log(x) - math.lgamma(a)))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (same order as given)."""
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


@dataclass
class Comparison:
    """Two variants compared on the first seat's win rate and on the whole
    outcome distribution (first wins, draws, second wins)."""

    a: str
    b: str
    rate_a: float
    rate_b: float
    z: float
    p_value: float  # two-proportion test of the first-seat win rates
    p_holm: float
    cohens_h: float
    chi2: float
    chi2_p: float  # chi-square test of the 2 x 3 outcome table
    chi2_p_holm: float
    cramers_v: float


def compare_variants(outcomes: Mapping[str, Outcomes]) -> list[Comparison]:
    """Every pair of variants, with Holm-corrected p-values (over the pairs)."""
    names = list(outcomes)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    rows = []
    for a, b in pairs:
        oa, ob = outcomes[a], outcomes[b]
        z, p, h = two_proportion_test(oa.first_wins, oa.games, ob.first_wins, ob.games)
        table = [
            [oa.first_wins, oa.draws, oa.second_wins],
            [ob.first_wins, ob.draws, ob.second_wins],
        ]
        stat, _, p2, v = chi_square_test(table)
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
            )
        )
    ps = holm([r.p_value if not math.isnan(r.p_value) else 1.0 for r in rows])
    p2s = holm([r.chi2_p for r in rows])
    for r, ph, p2h in zip(rows, ps, p2s, strict=True):
        r.p_holm, r.chi2_p_holm = ph, p2h
    return rows


# ---- sequential stopping ----


@dataclass
class SPRT:
    """Wald's sequential probability ratio test of a Bernoulli rate: H0 p = p0
    against H1 p = p1 (p1 > p0), with error rates alpha (rejecting H0 when it
    holds) and beta (keeping H0 when H1 holds). Feed it successes and
    failures; ``decision`` becomes ``"H0"`` or ``"H1"`` once the log
    likelihood ratio crosses a bound."""

    p0: float
    p1: float
    alpha: float = 0.05
    beta: float = 0.05
    llr: float = 0.0
    n: int = 0
    decision: str | None = None
    lower: float = field(init=False)
    upper: float = field(init=False)

    def __post_init__(self) -> None:
        if not 0 < self.p0 < self.p1 < 1:
            raise ValueError(f"need 0 < p0 < p1 < 1, got p0={self.p0}, p1={self.p1}")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1):
            raise ValueError("alpha and beta must be in (0, 1)")
        self.lower = math.log(self.beta / (1 - self.alpha))
        self.upper = math.log((1 - self.beta) / self.alpha)

    def update(self, successes: int, failures: int) -> str | None:
        """Add outcomes (in order they are only counts: the LLR is a sum)."""
        successes, failures = _count("successes", successes), _count("failures", failures)
        if self.decision is None:
            win = math.log(self.p1 / self.p0)
            loss = math.log((1 - self.p1) / (1 - self.p0))
            self.llr += successes * win + failures * loss
            self.n += successes + failures
            if self.llr >= self.upper:
                self.decision = "H1"
            elif self.llr <= self.lower:
                self.decision = "H0"
        return self.decision

    def update_sequence(self, outcomes: npt.ArrayLike) -> str | None:
        """Add outcomes one at a time (1 success, 0 failure), stopping at the
        first crossing as a truly sequential test does."""
        values = np.asarray(outcomes).ravel()
        if not np.all((values == 0) | (values == 1)):
            raise ValueError("outcomes must be 1 (success) or 0 (failure)")
        for x in values:
            if self.decision is not None:
                break
            self.update(int(x), 1 - int(x))
        return self.decision


def interval_width_reached(successes: int, trials: int, width: float) -> bool:
    """Stop when the Wilson 95% interval is at most ``width`` wide."""
    if trials == 0:
        return False
    low, high = wilson_interval(successes, trials)
    return high - low <= width


# ---- Elo ratings ----


@dataclass
class Ratings:
    """Elo ratings of players (mean 0) with bootstrap 95% intervals."""

    players: list[str]
    elo: npt.NDArray[np.float64]
    low: npt.NDArray[np.float64]
    high: npt.NDArray[np.float64]

    def as_dict(self) -> dict[str, tuple[float, float, float]]:
        """Each player's rating with its interval: ``{name: (elo, low, high)}``."""
        return {
            p: (float(e), float(lo), float(hi))
            for p, e, lo, hi in zip(self.players, self.elo, self.low, self.high, strict=True)
        }


def _games(
    n_players: int, a: npt.ArrayLike, b: npt.ArrayLike, score: npt.ArrayLike
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """Games as arrays, checked: players in 0..n_players-1, scores in [0, 1]."""
    if isinstance(n_players, bool) or not isinstance(n_players, int) or n_players < 1:
        raise ValueError(f"need at least one player, got {n_players!r}")
    a_, b_, s = np.asarray(a), np.asarray(b), np.asarray(score, dtype=np.float64)
    if not (a_.shape == b_.shape == s.shape and a_.ndim == 1):
        raise ValueError(
            f"a, b and score must be 1-D of one length: {a_.shape}, {b_.shape}, {s.shape}"
        )
    for name, x in (("a", a_), ("b", b_)):
        if x.size and (x.dtype.kind not in "iu" or x.min() < 0 or x.max() >= n_players):
            raise ValueError(f"{name} must hold player indices 0..{n_players - 1}")
    if not np.all((s >= 0) & (s <= 1)):
        raise ValueError("scores must be in [0, 1] (1 win, 0.5 draw, 0 loss)")
    return a_.astype(np.int64), b_.astype(np.int64), s


def fit_elo(
    n_players: int, a: npt.ArrayLike, b: npt.ArrayLike, score: npt.ArrayLike, iters: int = 500
) -> npt.NDArray[np.float64]:
    """Maximum-likelihood Elo ratings (mean 0) from games between players
    a[i] and b[i] with a's score score[i] (1 win, 0.5 draw, 0 loss): the
    Bradley-Terry model with draws as half a win each way, fitted by
    Hunter's MM iterations; a prior of one draw against a rating-0 player
    keeps unbeaten players finite."""
    ia, ib, s = _games(n_players, a, b, score)
    wins = np.zeros(n_players)
    np.add.at(wins, ia, s)
    np.add.at(wins, ib, 1 - s)
    games = np.zeros((n_players, n_players))
    np.add.at(games, (ia, ib), 1)
    games = games + games.T
    gamma = np.ones(n_players)
    for _ in range(iters):
        denom = (games / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        # the prior: one draw (half a win) against a virtual player of strength 1
        new = (wins + 0.5) / (denom + 1.0 / (gamma + 1.0))
        new /= math.exp(np.mean(np.log(new)))
        if np.max(np.abs(new - gamma) / gamma) < 1e-10:
            gamma = new
            break
        gamma = new
    elo = 400 * np.log10(gamma)
    return elo - elo.mean()


def elo_ratings(
    players: Sequence[str],
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    score: npt.ArrayLike,
    bootstrap: int = 200,
    seed: int = 0,
) -> Ratings:
    """Elo ratings with parametric-bootstrap 95% intervals: the same games
    re-played from the fitted model (each pairing's draws at its observed
    rate), the ratings refitted, percentiles taken. Resampling the observed
    games instead would give a clean sweep an interval of zero width."""
    n = len(players)
    ia, ib, s = _games(n, a, b, score)
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or bootstrap < 1:
        raise ValueError(f"bootstrap must be a positive integer, got {bootstrap!r}")
    elo = fit_elo(n, ia, ib, s)
    # the model's chance that a beats b, and each pairing's draw rate
    p_win = 1.0 / (1.0 + 10.0 ** ((elo[ib] - elo[ia]) / 400.0))
    pair = np.minimum(ia, ib) * n + np.maximum(ia, ib)
    draws = np.bincount(pair, weights=(s == 0.5), minlength=n * n)
    counts = np.maximum(np.bincount(pair, minlength=n * n), 1)
    p_draw = (draws / counts)[pair]
    rng = np.random.default_rng(seed)
    samples = np.empty((bootstrap, n))
    for k in range(bootstrap):
        u = rng.random(len(s))
        resampled = np.where(u < p_draw, 0.5, (u < p_draw + (1 - p_draw) * p_win) * 1.0)
        samples[k] = fit_elo(n, ia, ib, resampled, iters=200)
    low, high = np.percentile(samples, [2.5, 97.5], axis=0)
    return Ratings(list(players), elo, np.minimum(low, elo), np.maximum(high, elo))
