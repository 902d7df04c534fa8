"""How much a brain may search under Gomocup's time limits.

``pvs`` searches on a clock: ``pvs_ms(budget)`` milliseconds, the budget
less ``PVS_MARGIN`` of it and ``PVS_OVERHEAD_MS`` (it starts no iteration
after 70% of its clock and reads the clock every few hundred nodes, so it
keeps inside it). MCTS counts simulations instead:

The rule (docs/engines.md): the budget of a move is the smaller of
``timeout_turn`` and a ``MATCH_SHARE``-th of the match time left, and the
search aims at ``(1 - MARGIN) * budget - OVERHEAD_MS``. When the player's own
simulations fit in that at the slowest speed measured so far (this board size
and rule), it searches them all. Otherwise it searches the position several
times, each search sized from the speed the previous one just measured on
this very position: ``PROBE`` simulations first, then as many as fit in what
is left of the target at ``SAFETY`` times that speed, but at most ``GROWTH``
times the previous search (so that a noisy small measurement is never
stretched far). It plays the move of the last, largest search; the smaller
ones cost at most ``1 / (GROWTH - 1)`` of it.
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
#: A search is at most this many times the one whose speed sizes it.
GROWTH = 8
#: Milliseconds per simulation grow with the tree: a speed is taken this much slower.
SAFETY = 1.2
#: Searches shorter than this are not timed (too short to say a speed).
MIN_TIMED_MS = 20.0
#: ``INFO time_left`` of a match without a time limit.
UNLIMITED_MS = 2147483647
#: pvs: share of the budget left unused, and milliseconds kept for the rest.
PVS_MARGIN = 0.2
PVS_OVERHEAD_MS = 10.0


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


def pvs_ms(budget_ms: float) -> int:
    """The clock of a pvs search within a budget (at least 1 ms)."""
    return max(1, int((1.0 - PVS_MARGIN) * budget_ms - PVS_OVERHEAD_MS))


def search_ms(budget_ms: float) -> float:
    """The time a search aims at within a budget."""
    return (1.0 - MARGIN) * budget_ms - OVERHEAD_MS


def next_search(done: int, wanted: int, left_ms: float, ms_per_simulation: float) -> int | None:
    """The size of the next search after one of ``done`` simulations at the
    measured speed, with ``left_ms`` of the target left; None: stop, and play
    the last search's move."""
    if done >= wanted:
        return None
    fit = math.floor(max(left_ms, 0.0) / (max(ms_per_simulation, 1e-6) * SAFETY))
    size = min(wanted, fit, done * GROWTH)
    return size if size > done else None
