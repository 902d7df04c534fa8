"""MODLINSEQ notation: cell addresses on hexagonal boards, sequence labels, and
the segments of a board (SPEC section 7, seed 003).

Addresses: ``A0`` is the centre; six sectors ``B E H M P T`` each hold, on
ring k (distance k from the centre), the indices ``k(k-1)/2 + 1 .. k(k+1)/2``,
the first on the sector's spoke. Cells are raster indices of a board whose
raster radius is ``order`` (a hex board's order; 4, 7, 10 for tess-2, -3, -4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..env.vector import FiverowVectorEnv

#: Each sector's spoke direction and the step from one cell of a ring to the
#: next inside the sector, in axial coordinates (a to the right, b up-right).
SECTORS: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    "M": ((1, 0), (0, -1)),
    "P": ((1, -1), (-1, 0)),
    "T": ((0, -1), (-1, 1)),
    "B": ((-1, 0), (0, 1)),
    "E": ((-1, 1), (1, 0)),
    "H": ((0, 1), (1, -1)),
}


def ring(a: int, b: int) -> int:
    return max(abs(a), abs(b), abs(a + b))


def axial_address(a: int, b: int) -> str:
    """The address of axial cell (a, b)."""
    k = ring(a, b)
    if k == 0:
        return "A0"
    for letter, ((sa, sb), (da, db)) in SECTORS.items():
        for j in range(k):
            if (sa * k + da * j, sb * k + db * j) == (a, b):
                return f"{letter}{k * (k - 1) // 2 + 1 + j}"
    raise AssertionError(f"no address for ({a}, {b})")


def axial_of(name: str) -> tuple[int, int]:
    """Axial coordinates of an address like ``"B11"``."""
    text = name.strip().upper()
    if text == "A0":
        return (0, 0)
    if len(text) < 2 or text[0] not in SECTORS or not text[1:].isdigit() or int(text[1:]) < 1:
        raise ValueError(
            f"cannot read address {name!r} (expected A0, or one of BEHMPT and a number)"
        )
    index = int(text[1:])
    k = 1
    while k * (k + 1) // 2 < index:
        k += 1
    j = index - (k * (k - 1) // 2 + 1)
    (sa, sb), (da, db) = SECTORS[text[0]]
    return (sa * k + da * j, sb * k + db * j)


def address(cell: int, order: int = 6) -> str:
    """The address of a raster cell of a board of raster radius ``order``."""
    side = 2 * order + 1
    if not 0 <= cell < side * side:
        raise ValueError(f"cell {cell} is outside a raster of radius {order}")
    row, col = divmod(cell, side)
    return axial_address(col - order, order - row)


def cell_of(name: str, order: int = 6) -> int:
    """The raster cell of an address, on a board of raster radius ``order``."""
    a, b = axial_of(name)
    side = 2 * order + 1
    if max(abs(a), abs(b)) > order:
        raise ValueError(f"address {name!r} is off a raster of radius {order}")
    return (order - b) * side + (a + order)


def sequence_label(values: list[int], modulus: int) -> str:
    """``M18-S4-A3  3 ~ 7 ~ 11 ~ 15``: modulus, step (the smaller way round),
    A = the largest value mod the step, then the values in order."""
    step = (values[1] - values[0]) % modulus if len(values) > 1 else 0
    s = min(step, modulus - step)
    a = max(values) % s if s else max(values)
    return f"M{modulus}-S{s}-A{a}  " + " ~ ".join(str(v) for v in values)


def segment_points(n: int) -> int:
    """What a segment of n tiles scores: (n - 1)(n - 2) / 2."""
    return (n - 1) * (n - 2) // 2


@dataclass(frozen=True)
class Segment:
    """A maximal run of tiles along a line's walk (a cell can appear twice)."""

    cells: tuple[int, ...]
    values: tuple[int, ...]
    label: str
    points: int


def segments(env: FiverowVectorEnv, index: int = 0) -> list[Segment]:
    """Every segment of two or more tiles on a MODLINSEQ board."""
    g = env.pool.groups[env.config.name]
    tiles = np.frombuffer(env.board(index)["tiles"], dtype=np.uint8)
    modulus = int(env.config["modulus"])
    out = []
    for cells in env.pool._batch.segments(g.index, index):
        values = tuple(int(tiles[c]) - 1 for c in cells)
        out.append(
            Segment(
                tuple(cells),
                values,
                sequence_label(list(values), modulus),
                segment_points(len(cells)),
            )
        )
    return out
