"""Rendering of one board: text with coordinates ("ansi") and an RGB image."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .notation import column_letter

_STONE_CHARS = {0: ".", 1: "X", 2: "O", 3: " "}

#: Pixels per cell of the RGB image.
CELL_PX = 24
_WOOD = np.array([220, 179, 92], dtype=np.uint8)
_OFF = np.array([90, 90, 90], dtype=np.uint8)
_LINE = np.array([60, 40, 20], dtype=np.uint8)
_BLACK = np.array([20, 20, 20], dtype=np.uint8)
_WHITE = np.array([240, 240, 240], dtype=np.uint8)
_MARK = np.array([220, 30, 30], dtype=np.uint8)


#: Gomorpion: characters by (colour, status) and for empty cells in sieges.
GOMORPION_STONES = {(1, 0): "X", (1, 1): "x", (1, 2): "B", (2, 0): "O", (2, 1): "o", (2, 2): "W"}
GOMORPION_SAFE = {1: "S", 2: "T"}
GOMORPION_SIEGES = {1: "1", 2: "2", 3: "3", 4: "4"}
GOMORPION_LEGEND = (
    "X O live, x o recapturable, B W captured, S T safe (black, white); "
    "sieged cells: 1 2 breakable, 3 4 solid (black, white)"
)


def ansi(
    cells: npt.NDArray[np.uint8],
    last_move: int,
    geometry: str,
    offered: npt.NDArray[np.uint8] | None = None,
    stone_status: npt.NDArray[np.uint8] | None = None,
    siege: npt.NDArray[np.uint8] | None = None,
) -> str:
    """The board as text: ``X`` black, ``O`` white, ``.`` empty, ``+`` a cell
    offered in an opening protocol, the last move in parentheses; columns
    lettered and rows numbered as in renju notation (the strip shows each row's
    first cell index instead). Gomorpion's statuses and sieges follow
    ``GOMORPION_LEGEND``."""
    height, width = cells.shape
    strip = geometry == "strip"
    if strip:
        col_labels = [str(c % 10) for c in range(width)]
        row_labels = [str(r * width) for r in range(height)]
    else:
        col_labels = [column_letter(c) for c in range(width)]
        row_labels = [str(height - r) for r in range(height)]
    pad = max(len(s) for s in row_labels)
    header = " " * (pad + 2) + " ".join(col_labels)
    lines = [header]
    for r in range(height):
        chars = []
        for c in range(width):
            cell = r * width + c
            ch = _STONE_CHARS[int(cells[r, c])]
            if offered is not None and offered[r, c]:
                ch = "+"
            if stone_status is not None and siege is not None:
                ch = gomorpion_char(int(cells[r, c]), int(stone_status[r, c]), int(siege[r, c]))
            if cell == last_move:
                chars.append(f"({ch})")
            elif cell - 1 == last_move and c > 0:
                chars.append(ch)
            else:
                chars.append(f" {ch}")
        line = "".join(chars)
        # a move in the last column leaves its ")" as the row's last character
        if not line.endswith(")"):
            line += " "
        lines.append(f"{row_labels[r]:>{pad}} {line} {row_labels[r]}".rstrip())
    lines.append(header)
    return "\n".join(lines) + "\n"


def gomorpion_char(cell: int, status: int, siege: int) -> str:
    if cell in (1, 2):
        if status & 4:
            return GOMORPION_SAFE[cell]
        return GOMORPION_STONES[(cell, status & 3)]
    return GOMORPION_SIEGES.get(siege, ".")


def _disk(radius: float, size: int) -> npt.NDArray[np.bool_]:
    y, x = np.mgrid[0:size, 0:size]
    centre = (size - 1) / 2
    return bool_array((x - centre) ** 2 + (y - centre) ** 2 <= radius**2)


def bool_array(x: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    return np.asarray(x, dtype=np.bool_)


def rgb(cells: npt.NDArray[np.uint8], last_move: int) -> npt.NDArray[np.uint8]:
    """The board as an ``[H*24, W*24, 3]`` uint8 image."""
    height, width = cells.shape
    img = np.empty((height * CELL_PX, width * CELL_PX, 3), dtype=np.uint8)
    img[:] = _WOOD
    mid = CELL_PX // 2
    stone = _disk(CELL_PX * 0.42, CELL_PX)
    mark = _disk(CELL_PX * 0.15, CELL_PX)
    for r in range(height):
        for c in range(width):
            tile = img[r * CELL_PX : (r + 1) * CELL_PX, c * CELL_PX : (c + 1) * CELL_PX]
            value = int(cells[r, c])
            if value == 3:
                tile[:] = _OFF
                continue
            tile[mid, :] = _LINE
            tile[:, mid] = _LINE
            if value == 1:
                tile[stone] = _BLACK
            elif value == 2:
                tile[stone] = _WHITE
            if r * width + c == last_move:
                tile[mark] = _MARK
    return img
