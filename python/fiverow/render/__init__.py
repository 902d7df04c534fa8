"""Rendering of one board: text with coordinates ("ansi"), an RGB image, and
SVG for every geometry (:func:`svg`; the HTML game viewer builds on it)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from ..rules.modlinseq import axial_address
from ..rules.notation import column_letter
from .svg import board_svg, svg

_STONE_CHARS = {0: ".", 1: "X", 2: "O", 3: " "}
#: How :func:`ansi` marks a forbidden point (renju: black may not play there).
FORBIDDEN_CHAR = "!"

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
    forbidden: Iterable[int] = (),
) -> str:
    """The board as text: ``X`` black, ``O`` white, ``.`` empty, ``+`` a cell
    offered in an opening protocol, ``!`` a ``forbidden`` cell (renju black's
    forbidden points), the last move in parentheses; columns lettered and rows
    numbered as in renju notation (the strip shows each row's first cell index
    instead). Gomorpion's statuses and sieges follow ``GOMORPION_LEGEND``."""
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
    grid = _STONE_TABLE[cells]
    if offered is not None:
        grid = np.where(offered != 0, "+", grid)
    if stone_status is not None and siege is not None:
        grid = _gomorpion_grid(cells, stone_status, siege)
    marked = [int(c) for c in forbidden]
    if marked:
        grid = grid.copy()
        grid.reshape(-1)[marked] = FORBIDDEN_CHAR
    last_row, last_col = divmod(last_move, width) if last_move >= 0 else (-1, -1)
    lines = [header]
    for r in range(height):
        row = grid[r].tolist()
        parts = [" " + ch for ch in row]
        if r == last_row:
            parts[last_col] = f"({row[last_col]})"
            if last_col + 1 < width:  # the ")" stands in the next cell's space
                parts[last_col + 1] = row[last_col + 1]
        line = "".join(parts)
        # a move in the last column leaves its ")" as the row's last character
        if not line.endswith(")"):
            line += " "
        lines.append(f"{row_labels[r]:>{pad}} {line} {row_labels[r]}".rstrip())
    lines.append(header)
    return "\n".join(lines) + "\n"


_STONE_TABLE = np.array([_STONE_CHARS[k] for k in range(4)])


def _gomorpion_grid(
    cells: npt.NDArray[np.uint8], status: npt.NDArray[np.uint8], siege: npt.NDArray[np.uint8]
) -> npt.NDArray[np.str_]:
    """:func:`gomorpion_char` of every cell at once."""
    stone = (cells == 1) | (cells == 2)
    colour = np.where(stone, cells, 0)
    return np.where(
        stone,
        np.where(status & 4 != 0, _SAFE_TABLE[colour], _STATUS_TABLE[colour, status & 3]),
        _SIEGE_TABLE[siege],
    )


# gomorpion_char as tables: by (colour, status & 3), by colour when safe, by siege
_STATUS_TABLE = np.array([[GOMORPION_STONES.get((c, s), "?") for s in range(4)] for c in range(3)])
_SAFE_TABLE = np.array(["?", GOMORPION_SAFE[1], GOMORPION_SAFE[2]])
_SIEGE_TABLE = np.array([GOMORPION_SIEGES.get(k, ".") for k in range(256)])


def gomorpion_char(cell: int, status: int, siege: int) -> str:
    """The character of one Gomorpion cell (stone, safe stone, siege mark)."""
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
    """``x`` as a boolean NumPy array."""
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


def _hex_positions(height: int, width: int) -> list[tuple[int, int, int, int]]:
    """(cell, row, a, b) of a hexagonal raster (radius width // 2)."""
    radius = width // 2
    return [(r * width + c, r, c - radius, radius - r) for r in range(height) for c in range(width)]


def hex_ansi(
    cells: npt.NDArray[np.uint8],
    last_move: int,
    tiles: npt.NDArray[np.uint8] | None = None,
    addresses: bool = False,
) -> str:
    """A hexagonal board drawn as hexagons are: each row shifted half a cell.
    Stones are ``X`` / ``O``, empty cells ``.`` or, with ``addresses``, their
    address (``A0`` the centre: the names moves are typed with); with ``tiles``
    (MODLINSEQ values + 1), tiles show as ``[v]`` and empty cells by their
    address."""
    height, width = cells.shape
    flat = cells.reshape(-1)
    field = 6 if tiles is not None else 4
    rows: dict[int, list[tuple[int, str]]] = {}
    for cell, row, a, b in _hex_positions(height, width):
        if flat[cell] == 3:
            continue
        if tiles is not None:
            value = int(tiles.reshape(-1)[cell])
            text = f"[{value - 1}]" if value else axial_address(a, b)
        elif addresses and flat[cell] == 0:
            text = axial_address(a, b)
        else:
            text = _STONE_CHARS[int(flat[cell])]
        if cell == last_move:
            text = f"({text})" if tiles is None else text + "*"
        x = (2 * a + b) * field // 2
        rows.setdefault(row, []).append((x, text))
    left = min(x for row in rows.values() for x, _ in row)
    lines = []
    for row in sorted(rows):
        line = ""
        for x, text in rows[row]:
            col = x - left
            line += " " * max(0, col - len(line)) + text.rjust(field - 1)
        lines.append(line.rstrip())
    return "\n".join(lines) + "\n"


def hex_rgb(
    cells: npt.NDArray[np.uint8],
    last_move: int,
    tiles: npt.NDArray[np.uint8] | None = None,
    modulus: int = 1,
) -> npt.NDArray[np.uint8]:
    """A hexagonal board as an RGB image: discs on a hexagonal lattice; MODLINSEQ
    tiles coloured by value round the hue circle."""
    height, width = cells.shape
    radius = width // 2
    step = CELL_PX
    img_w = int((2 * radius + 1) * step) + step
    img_h = int((2 * radius + 1) * step * 0.866) + step
    img = np.empty((img_h, img_w, 3), dtype=np.uint8)
    img[:] = _OFF
    y, x = np.mgrid[0:img_h, 0:img_w]
    flat = cells.reshape(-1)
    for cell, _, a, b in _hex_positions(height, width):
        if flat[cell] == 3:
            continue
        cx = (a + b / 2 + radius) * step + step / 2
        cy = (radius - b) * step * 0.866 + step / 2
        disk = (x - cx) ** 2 + (y - cy) ** 2 <= (step * 0.45) ** 2
        colour = _WOOD
        if tiles is not None and tiles.reshape(-1)[cell]:
            hue = (int(tiles.reshape(-1)[cell]) - 1) / max(modulus, 1)
            colour = np.array(_hue(hue), dtype=np.uint8)
        elif flat[cell] == 1:
            colour = _BLACK
        elif flat[cell] == 2:
            colour = _WHITE
        img[disk] = colour
        if cell == last_move:
            img[(x - cx) ** 2 + (y - cy) ** 2 <= (step * 0.15) ** 2] = _MARK
    return img


def _hue(h: float) -> tuple[int, int, int]:
    import colorsys  # noqa: PLC0415

    r, g, b = colorsys.hsv_to_rgb(h, 0.75, 0.95)
    return (int(r * 255), int(g * 255), int(b * 255))


__all__ = ["ansi", "board_svg", "hex_ansi", "hex_rgb", "rgb", "svg"]
