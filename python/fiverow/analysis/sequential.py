"""Sequential stopping: Wald's SPRT, the balance stop rule's pair of SPRTs
(with its exact error rates by dynamic programming), and stopping on the
width of an interval."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from .intervals import wilson, z_of


def count(name: str, value: object) -> int:
    """A count of games: a non-negative whole number (NaN, fractions, bools
    and negatives are errors, not silently odd intervals)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
    if value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value}")
    return int(value)


def zeros_and_ones(values: npt.ArrayLike, message: str) -> npt.NDArray[Any]:
    """A flat array of 0s and 1s (booleans too), or ValueError(message)."""
    flat = np.asarray(values).ravel()
    if not np.all((flat == 0) | (flat == 1)):
        raise ValueError(message)
    return flat


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

    @property
    def steps(self) -> tuple[float, float]:
        """What one success and one failure add to the log likelihood ratio."""
        return (
            math.log(self.p1 / self.p0),
            math.log((1 - self.p1) / (1 - self.p0)),
        )

    def update(self, successes: int, failures: int) -> str | None:
        """Add outcomes (in order they are only counts: the LLR is a sum)."""
        successes, failures = count("successes", successes), count("failures", failures)
        if self.decision is None:
            win, loss = self.steps
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
        values = zeros_and_ones(outcomes, "outcomes must be 1 (success) or 0 (failure)")
        for x in values:
            if self.decision is not None:
                break
            self.update(int(x), 1 - int(x))
        return self.decision


FIRST = "first seat favoured"
SECOND = "second seat favoured"
BALANCED = "balanced within delta"


@dataclass
class SeatSPRT:
    """The balance stop rule: is either seat favoured among decisive games?

    Two one-sided Wald tests of the first seat's share p of the decisive
    games, H0 p = 0.5 against H1 p = 0.5 + delta, and (mirrored) against
    H1 p = 0.5 - delta, each at ``alpha / 2``, so that the chance of naming a
    favoured seat when the seats are even is at most ``alpha`` overall (its
    exact value is :func:`seat_sprt_probabilities`). The games are seen one
    at a time; the verdict is reached at the first game where a test accepts
    its H1 (that seat is favoured) or both have accepted H0 (balanced within
    delta), and then stands."""

    delta: float = 0.1
    alpha: float = 0.05
    beta: float = 0.05
    verdict: str | None = None
    games: int = 0  # decisive games seen until the verdict

    def __post_init__(self) -> None:
        if not 0 < self.delta < 0.5:
            raise ValueError(f"delta must be in (0, 0.5), got {self.delta}")
        self.first = SPRT(0.5, 0.5 + self.delta, self.alpha / 2, self.beta)
        self.second = SPRT(0.5, 0.5 + self.delta, self.alpha / 2, self.beta)

    def update_sequence(self, first_won: npt.ArrayLike) -> str | None:
        """Add decisive games in order (True: the first seat won)."""
        values = zeros_and_ones(
            first_won, "decisive games must be 1 (first seat won) or 0 (second seat won)"
        )
        for x in values:
            if self.verdict is not None:
                break
            self.games += 1
            self.first.update(int(x), 1 - int(x))
            self.second.update(1 - int(x), int(x))
            if self.first.decision == "H1":
                self.verdict = FIRST
            elif self.second.decision == "H1":
                self.verdict = SECOND
            elif self.first.decision == self.second.decision == "H0":
                self.verdict = BALANCED
        return self.verdict


def seat_sprt_probabilities(
    p: float,
    delta: float,
    alpha: float = 0.05,
    beta: float = 0.05,
    max_games: int = 100_000,
    tolerance: float = 1e-10,
) -> dict[str, float]:
    """Exact probabilities of each verdict of :class:`SeatSPRT` when the first
    seat wins a share ``p`` of the decisive games, by dynamic programming over
    (games seen, first-seat wins, which tests are still open). The key
    ``"undecided"`` holds the chance of no verdict within ``max_games``
    decisive games (it shrinks geometrically)."""
    if not 0 <= p <= 1:
        raise ValueError(f"p must be in [0, 1], got {p}")
    rule = SeatSPRT(delta, alpha, beta)
    win, loss = rule.first.steps
    lo, hi = rule.first.lower, rule.first.upper
    # mass[s][i]: probability of k = k0 + i first-seat wins so far, with the
    # tests in state s: 0 both open, 1 the first accepted H0 (the second
    # open), 2 the second accepted H0. Only a band of k keeps any mass (the
    # open tests' continuation region), so the arrays are kept to it.
    mass = np.zeros((3, 1))
    mass[0, 0] = 1.0
    k0 = 0
    out = {FIRST: 0.0, SECOND: 0.0, BALANCED: 0.0}
    for m in range(1, max_games + 1):
        nxt = np.zeros((3, mass.shape[1] + 1))
        nxt[:, 1:] += p * mass
        nxt[:, :-1] += (1 - p) * mass
        k = k0 + np.arange(nxt.shape[1])
        llr1 = k * win + (m - k) * loss  # the first seat's test
        llr2 = (m - k) * win + k * loss  # the second seat's
        up1, up2 = llr1 >= hi, llr2 >= hi
        down1, down2 = llr1 <= lo, llr2 <= lo
        # an open test crossing its upper bound names its seat
        out[FIRST] += nxt[0][up1].sum() + nxt[2][up1].sum()
        out[SECOND] += nxt[0][up2].sum() + nxt[1][up2].sum()
        nxt[0][up1 | up2] = 0.0
        nxt[1][up2] = 0.0
        nxt[2][up1] = 0.0
        # lower crossings: an open test accepts H0; both accepted: balanced
        out[BALANCED] += (nxt[0] * (down1 & down2)).sum()
        out[BALANCED] += (nxt[1] * down2).sum() + (nxt[2] * down1).sum()
        to1 = nxt[0] * (down1 & ~down2)
        to2 = nxt[0] * (down2 & ~down1)
        nxt[0] *= ~(down1 | down2)
        nxt[1] = nxt[1] * ~down2 + to1
        nxt[2] = nxt[2] * ~down1 + to2
        alive = np.flatnonzero(nxt.sum(axis=0) > 0)
        if len(alive) == 0 or nxt.sum() < tolerance:
            mass = nxt
            break
        mass = nxt[:, alive[0] : alive[-1] + 1]
        k0 += int(alive[0])
    out["undecided"] = float(mass.sum())
    return {k: float(v) for k, v in out.items()}


def interval_width_reached(
    successes: int, trials: int, width: float, *, level: float = 0.95
) -> bool:
    """Stop when the Wilson ``level`` interval of the rate is at most
    ``width`` wide."""
    successes, trials = count("successes", successes), count("trials", trials)
    if trials == 0:
        return False
    low, high = wilson(successes, trials, z_of(level))
    return bool(high - low <= width)


__all__ = [
    "BALANCED",
    "FIRST",
    "SECOND",
    "SPRT",
    "SeatSPRT",
    "count",
    "interval_width_reached",
    "seat_sprt_probabilities",
]
