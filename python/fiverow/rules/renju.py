"""Renju helpers: black's forbidden points of any position (SPEC section 4)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .. import _core
from .notation import position_cells

KINDS = {2: "overline", 3: "double-four", 4: "double-three"}

#: The 26 canonical renju openings, by index: ``info["opening"]`` values
#: ("D1 Kansei" .. "D13 Yusei", "I1 Chosei" .. "I13 Suisei").
OPENINGS: tuple[str, ...] = _core.openings()


def forbidden_points(
    board: Sequence[str] | npt.ArrayLike,
) -> dict[tuple[int, int], str]:
    """Every empty point black may not play, with why.

    ``board`` is a list of strings (row 0 on top; ``X`` black, ``O`` white,
    ``.`` empty) or an integer array of cell codes (0 empty, 1 black, 2 white).
    Returns ``{(row, col): "overline" | "double-four" | "double-three"}``.
    """
    if isinstance(board, Sequence) and board and isinstance(board[0], str):
        height, width = len(board), len(board[0])
    else:
        array = np.asarray(board)
        if array.ndim != 2:
            raise ValueError(f"board array must be 2-D, got shape {array.shape}")
        height, width = array.shape
    cells = position_cells(board, height, width)
    if (cells == 3).any():
        raise ValueError("a renju board has no off-board cells")
    found = _core.renju_forbidden(cells.tobytes(), height, width)
    return {divmod(cell, width): KINDS[status] for cell, status in found}
