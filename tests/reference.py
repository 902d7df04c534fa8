"""A slow, obviously-correct reference for the line rules (SPEC section 3),
walking the geometry's next-cell table with a visited set, for alignment tests.
A step is (cell, direction) -> (next cell, direction after the step): lines on
bounce boards turn."""

from __future__ import annotations

import fiverow

NONE = -1


Table = list[tuple[tuple[int, int], ...]]


def next_table(env: fiverow.FiverowVectorEnv) -> Table:
    """For each cell, (next cell, direction after the step) per oriented direction."""
    batch = env.pool._batch
    g = env.pool.groups[env.config.name]
    return [batch.neighbours(g.index, c) for c in range(g.n_cells)]


def run_through(
    nxt: Table, cells: list[int], p: int, axis: int, stone: int
) -> tuple[int, list[int]]:
    """Length of the run of `stone` through p (distinct cells) and its two end cells
    (-1 at the edge or when the run closes on itself)."""
    seen = {p}
    ends = []
    for s in (0, 1):
        c, d = p, 2 * axis + s
        end = NONE
        while True:
            c, d = nxt[c][d]
            if c == NONE or c in seen and cells[c] == stone:
                end = NONE
                break
            if cells[c] != stone:
                end = c
                break
            seen.add(c)
        ends.append(end)
    return len(seen), ends


def wins(params: dict, nxt: Table, cells: list[int], p: int, stone: int) -> bool:
    k = params["connect"]
    n_axes = len(nxt[0]) // 2
    opp = 3 - stone
    for axis in range(n_axes):
        n, ends = run_through(nxt, cells, p, axis, stone)
        rule = params["rule"]
        if rule == "freestyle" and n >= k:
            return True
        if rule == "standard" and n == k:
            return True
        if rule == "caro":
            conv = params["caro_ends"]
            opp_ends = [e != NONE and cells[e] == opp for e in ends]
            if conv == "open":
                ok = n == k and all(e != NONE and cells[e] == 0 for e in ends)
            elif conv == "not_both_blocked":
                blocked = [e == NONE or cells[e] == opp for e in ends]
                ok = n == k and not all(blocked)
            elif conv == "gomocup":
                ok = n == k and not all(opp_ends)
            else:
                ok = n > k or (n == k and not all(opp_ends))
            if ok:
                return True
    return False
