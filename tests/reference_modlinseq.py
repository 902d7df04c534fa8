"""A slow, independent reference of MODLINSEQ (SPEC section 7) for checks
against the C engine, written from the SPEC's text over the geometry's
next-cell table (SPEC section 2; test_hex.py checks the table on its own).

A line is the walk of the next-cell table along an axis, read as the sequence
of cells it meets: a cycle on wrap, tess, torus and bounce boards, a path
between walls. On a bounce board a walk can meet a cell twice (a spoke
retraces from its corner): the cell counts each time. A segment is a maximal
run of tiles along a line, or the whole line when every cell of a cycle holds
a tile (a loop); it is one segment whichever end it is read from.

Turns: the first tile touches a tile on the board (after the game's first
turn); every line on which the turn's tiles lie together in one segment stays
a candidate, and a further tile is legal when one candidate keeps them in one
segment; every segment stays an arithmetic progression mod M.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import fiverow

from reference import Table, next_table


def walk_line(nxt: Table, cell: int, axis: int) -> tuple[tuple[int, ...], bool]:
    """The cells of the line through `cell` along `axis`, and whether it is a cycle.
    A cycle closes when the walk is about to take its first step again."""
    first = nxt[cell][2 * axis]
    cells: list[int] = []
    x, d = cell, 2 * axis
    while True:
        cells.append(x)
        step = nxt[x][d]
        if step[0] < 0:
            break
        if len(cells) > 1 and x == cell and step == first:
            return tuple(cells[:-1]), True
        x, d = step
        assert len(cells) < 100_000, "a walk that never closes"
    back: list[int] = []
    x, d = cell, 2 * axis + 1
    while True:
        x, d = nxt[x][d]
        if x < 0:
            break
        back.append(x)
    return tuple(back[::-1] + cells), False


def line_key(cells: tuple[int, ...], cyclic: bool) -> tuple[int, ...]:
    """The same line read from any start, either way round, has one key."""
    forms = [cells, cells[::-1]]
    if not cyclic:
        return min(forms)
    low = min(cells)
    return min(f[i:] + f[:i] for f in forms for i in range(len(f)) if f[i] == low)


def as_list(values) -> list[int]:
    """Plain ints: indexing a list is much faster than indexing numpy."""
    return values.tolist() if isinstance(values, np.ndarray) else values


def points(n: int) -> int:
    return (n - 1) * (n - 2) // 2


@dataclass
class Lines:
    """Every line of a board, each once, and the lines through each cell."""

    lines: list[tuple[tuple[int, ...], bool]] = field(default_factory=list)
    through: dict[int, set[int]] = field(default_factory=dict)

    @classmethod
    def of(cls, env: fiverow.FiverowVectorEnv) -> Lines:
        nxt = next_table(env)
        on = env.pool.groups[env.config.name].on_board.reshape(-1)
        out = cls()
        index: dict[tuple[int, ...], int] = {}
        for c in map(int, np.flatnonzero(on)):
            for axis in range(len(nxt[c]) // 2):
                cells, cyclic = walk_line(nxt, c, axis)
                key = line_key(cells, cyclic)
                if key not in index:
                    index[key] = len(out.lines)
                    out.lines.append((key, cyclic))
                    for x in key:
                        out.through.setdefault(x, set()).add(index[key])
        return out

    def segments(self, values, line: int) -> list[tuple[object, tuple[int, ...]]]:
        """The segments of one line: (identity, cells in walk order) for each run
        of two or more tiles, each run once whichever way it is read."""
        cells, cyclic = self.lines[line]
        values = as_list(values)
        tile = [values[c] >= 0 for c in cells]
        if cyclic and all(tile):
            return [((line, "loop"), cells)]
        if cyclic and False in tile:  # read the cycle from an empty cell
            k = tile.index(False)
            cells, tile = cells[k:] + cells[:k], tile[k:] + tile[:k]
        found: dict[object, tuple[int, ...]] = {}
        run: list[int] = []
        for c, t in zip(cells + (-1,), tile + [False], strict=True):
            if t:
                run.append(c)
                continue
            if len(run) >= 2:
                found[(line, min(tuple(run), tuple(run[::-1])))] = tuple(run)
            run = []
        return list(found.items())

    def all_segments(self, values, cells=None) -> dict[object, tuple[int, ...]]:
        """Every segment, or those on lines through the given cells."""
        values = as_list(values)
        lines = (
            range(len(self.lines))
            if cells is None
            else sorted({k for c in cells for k in self.through.get(c, ())})
        )
        return {key: run for k in lines for key, run in self.segments(values, k)}


def is_progression(vals: list[int], m: int, loop: bool) -> bool:
    steps = {(b - a) % m for a, b in zip(vals, vals[1:], strict=False)}
    if loop:
        steps.add((vals[0] - vals[-1]) % m)
    return len(steps) <= 1


def valid(lines: Lines, values, m: int, cells=None, segs=None) -> bool:
    """Every segment (on lines through `cells`, or everywhere; or of segs) a
    progression mod m."""
    if segs is None:
        segs = lines.all_segments(values, cells)
    return all(
        is_progression([int(values[c]) for c in run], m, key[1] == "loop")  # type: ignore[index]
        for key, run in segs.items()
    )


def turn_points(lines: Lines, values, placed, segs=None) -> int:
    """Every distinct segment through a tile placed this turn, once (segs: the
    segments on the lines through the placed tiles, when known)."""
    if segs is None:
        segs = lines.all_segments(values, placed)
    return sum(points(len(run)) for run in segs.values() if set(run) & set(placed))


def in_one_segment(lines: Lines, values, turn: list[int]) -> bool:
    """Is there a line on which the turn's tiles lie together in one segment?"""
    for k in set.intersection(*(lines.through.get(c, set()) for c in turn)):
        if any(set(turn) <= set(run) for _, run in lines.segments(values, k)):
            return True
    return False


def touches(nxt: Table, values, cell: int) -> bool:
    return any(x >= 0 and values[x] >= 0 for x, _ in nxt[cell])


def tile_legal(
    lines: Lines,
    nxt: Table,
    values,
    placed: list[int],
    opened: bool,
    m: int,
    cell: int,
    value: int,
) -> bool:
    """May `value` go on empty `cell` now (the hand holding it)?"""
    if values[cell] >= 0 or cell not in lines.through:
        return False
    after = np.array(values, copy=True)
    after[cell] = value
    if not placed:
        if opened and not touches(nxt, values, cell):
            return False
    elif not in_one_segment(lines, after, [*placed, cell]):
        return False
    return valid(lines, after, m, [cell])


def legal_mask(
    lines: Lines, nxt: Table, values, placed: list[int], opened: bool, hand, n_cells: int
) -> np.ndarray:
    """The legal actions: cell * M + value, then END_TURN, PASS."""
    m = len(hand)
    mask = np.zeros(n_cells * m + 2, dtype=bool)
    # once a tile lies on the board, a tile that touches none can neither be
    # a turn's first (it must touch) nor extend the turn's segment: skip them
    anywhere = not (np.asarray(values) >= 0).any()
    for c in lines.through:
        if not anywhere and not touches(nxt, values, c):
            continue
        for v in range(m):
            if hand[v] and tile_legal(lines, nxt, values, placed, opened, m, c, v):
                mask[c * m + v] = True
    mask[n_cells * m + (0 if placed else 1)] = True
    return mask
