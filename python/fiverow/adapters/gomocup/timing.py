"""How much an MCTS brain may search under Gomocup's time limits.

The rule (docs/engines.md): the budget of a move is the smaller of
``timeout_turn`` and a ``MATCH_SHARE``-th of the match time left; the search
aims at ``(1 - MARGIN) * budget - OVERHEAD_MS`` and gets all the player's
simulations when they fit at the slowest speed measured so far on this board
size and rule; otherwise a probe of ``PROBE`` simulations measures the speed
on this position, and the search gets as many simulations as fit in what is
left of the target at that speed (at least the probe's, at most the
player's own number).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Share of the budget left unused, for the speed changing between moves.
MARGIN = 0.3
#: Milliseconds kept for what is not search (loading the position, pipes).
OVERHEAD_MS = 30.0
#: A move may use this fraction of the match time left: 1 / MATCH_SHARE.
MATCH_SHARE = 25
#: Simulations of the probe that measures the speed.
PROBE = 8
#: Searches shorter than this are not timed (too short to say a speed).
MIN_TIMED_MS = 20.0
#: ``INFO time_left`` of a match without a time limit.
UNLIMITED_MS = 2147483647


@dataclass
class TimeControl:
    """The limits a manager sent (milliseconds; None: not sent)."""

    turn_ms: int | None = None
    match_ms: int = 0
    left_ms: float | None = None

    def budget_ms(self) -> float | None:
        """Time for this move, or None when nothing limits it."""
        budgets: list[float] = []
        if self.turn_ms is not None:
            budgets.append(float(self.turn_ms))
        left = self.left_ms
        if left is None and self.match_ms > 0:
            left = float(self.match_ms)
        if left is not None and left < UNLIMITED_MS:
            budgets.append(max(left, 0.0) / MATCH_SHARE)
        return min(budgets) if budgets else None

    def spent(self, ms: float) -> None:
        """Count a move's time against the match (until the manager's next time_left)."""
        if self.left_ms is not None and self.left_ms < UNLIMITED_MS:
            self.left_ms -= ms
        elif self.left_ms is None and self.match_ms > 0:
            self.left_ms = self.match_ms - ms


def search_ms(budget_ms: float) -> float:
    """The time a search aims at within a budget."""
    return (1.0 - MARGIN) * budget_ms - OVERHEAD_MS


def simulations_within(wanted: int, target_ms: float, ms_per_simulation: float) -> int:
    """Simulations that fit in ``target_ms`` at the measured speed, in 1..wanted."""
    if ms_per_simulation <= 0:
        return wanted
    fit = math.floor(max(target_ms, 0.0) / ms_per_simulation)
    return max(1, min(wanted, fit))
