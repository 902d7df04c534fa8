"""Elo ratings: the maximum-likelihood (maximum a posteriori) fit of the
Bradley-Terry model with draws as half a win each way, and bootstrap
intervals that resample each pair's wins, draws and losses."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .intervals import check_level

ELO_PER_NAT = 400 / math.log(10)  # a rating gap of 400 is odds of 10 to 1


@dataclass
class Ratings:
    """Elo ratings of players (mean 0) with bootstrap intervals (95% unless
    ``level`` says otherwise)."""

    players: list[str]
    elo: npt.NDArray[np.float64]
    low: npt.NDArray[np.float64]
    high: npt.NDArray[np.float64]
    level: float = 0.95

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


def _pairs(
    n_players: int, ia: npt.NDArray[np.int64], ib: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Each game's pair (i < j) as an index into the pairs that played, and
    the pairs' players: (pair of each game, i of each pair, j of each pair)."""
    lo, hi = np.minimum(ia, ib), np.maximum(ia, ib)
    keys, pair = np.unique(lo * n_players + hi, return_inverse=True)
    return pair.ravel(), keys // n_players, keys % n_players


def _fit(
    n_players: int,
    i: npt.NDArray[np.int64],
    j: npt.NDArray[np.int64],
    n: npt.NDArray[np.float64],
    s: npt.NDArray[np.float64],
    iters: int,
) -> npt.NDArray[np.float64]:
    """Strengths theta (natural-log scale) maximising, for every row of ``s``
    (a batch of samples), sum over pairs of s log P(i beats j) + (n - s)
    log P(j beats i), plus the prior: each player half beat and half lost to
    a virtual player of strength 0. The objective is strictly concave;
    Newton's method with the step capped at 2 (about 350 Elo)."""
    batch = s.shape[0]
    theta = np.zeros((batch, n_players))
    # the pairs' score for player i, and for player j
    onto_i = np.zeros((len(i), n_players))
    onto_i[np.arange(len(i)), i] = 1
    onto_j = np.zeros((len(j), n_players))
    onto_j[np.arange(len(j)), j] = 1
    signed = onto_i - onto_j  # d(theta_i - theta_j) / d theta
    for _ in range(iters):
        gap = theta[:, i] - theta[:, j]
        pij = 1 / (1 + np.exp(-gap))
        prior = 1 / (1 + np.exp(-theta))
        grad = (s - n * pij) @ signed + 0.5 - prior
        w = n * pij * (1 - pij)
        # minus the Hessian: the pairs' weighted Laplacian plus the prior's diagonal
        hess = np.einsum("bp,pk,pl->bkl", w, signed, signed)
        hess[:, np.arange(n_players), np.arange(n_players)] += prior * (1 - prior)
        step = np.linalg.solve(hess, grad[..., None])[..., 0]
        biggest = np.max(np.abs(step), axis=1, keepdims=True)
        step *= np.minimum(1.0, 2.0 / np.maximum(biggest, 1e-300))
        theta += step
        if np.max(biggest) < 1e-12:
            break
    return theta


def fit_elo(
    n_players: int, a: npt.ArrayLike, b: npt.ArrayLike, score: npt.ArrayLike, iters: int = 500
) -> npt.NDArray[np.float64]:
    """Elo ratings (shifted to mean 0) from games between players a[i] and
    b[i] with a's score score[i] (1 win, 0.5 draw, 0 loss): the maximum of
    the Bradley-Terry likelihood with draws as half a win each way, times a
    prior of one draw for each player against a virtual rating-0 player (it
    keeps unbeaten players finite). ``iters`` bounds the Newton steps (a
    handful are needed)."""
    ia, ib, s = _games(n_players, a, b, score)
    if isinstance(iters, bool) or not isinstance(iters, int) or iters < 1:
        raise ValueError(f"iters must be a positive integer, got {iters!r}")
    pair, i, j = _pairs(n_players, ia, ib)
    n = np.bincount(pair, minlength=len(i)).astype(np.float64)
    # each pair's score for its lower-numbered player
    mine = np.where(ia <= ib, s, 1 - s)
    total = np.bincount(pair, weights=mine, minlength=len(i)).astype(np.float64)
    theta = _fit(n_players, i, j, n, total[None, :], iters)[0]
    elo = ELO_PER_NAT * theta
    return elo - elo.mean()


def elo_ratings(
    players: Sequence[str],
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    score: npt.ArrayLike,
    bootstrap: int = 200,
    seed: int = 0,
    *,
    level: float = 0.95,
) -> Ratings:
    """Elo ratings (:func:`fit_elo`) with bootstrap percentile intervals at
    ``level``: each pair's games are resampled (multinomially, keeping its
    number of games and its frequencies of wins, draws and losses; other
    fractional scores keep theirs too) and the ratings refitted. An outcome
    a pair never had is given half a game in the resampling frequencies, so
    a clean sweep still varies and its interval is not a point."""
    n_players = len(players)
    ia, ib, s = _games(n_players, a, b, score)
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or bootstrap < 1:
        raise ValueError(f"bootstrap must be a positive integer, got {bootstrap!r}")
    level = check_level(level)
    elo = fit_elo(n_players, ia, ib, s)
    pair, i, j = _pairs(n_players, ia, ib)
    mine = np.where(ia <= ib, s, 1 - s)
    rng = np.random.default_rng(seed)
    totals = np.zeros((bootstrap, len(i)))
    n = np.bincount(pair, minlength=len(i)).astype(np.float64)
    for k in range(len(i)):
        values, counts = np.unique(mine[pair == k], return_counts=True)
        weights = counts.astype(np.float64)
        for outcome in (0.0, 0.5, 1.0):  # unseen outcomes: half a game
            if outcome not in values:
                values, weights = np.append(values, outcome), np.append(weights, 0.5)
        draws = rng.multinomial(int(n[k]), weights / weights.sum(), size=bootstrap)
        totals[:, k] = draws @ values
    theta = _fit(n_players, i, j, n, totals, 100)
    samples = ELO_PER_NAT * theta
    samples -= samples.mean(axis=1, keepdims=True)
    tail = 100 * (1 - level) / 2
    low, high = np.percentile(samples, [tail, 100 - tail], axis=0)
    return Ratings(list(players), elo, low, high, level)
