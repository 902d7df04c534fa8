"""Names of cells: ``h8`` style on square boards, raw indices elsewhere.

Square boards use renju notation: column letters ``a..`` from the left, row
numbers from the bottom, so ``h8`` is the centre of 15x15 and ``a15`` is cell
0 (row 0 at the top). The strip is one array, so its cells are named by index.
"""

from __future__ import annotations

import string

_LETTERS = string.ascii_lowercase + string.ascii_uppercase


def column_letter(col: int) -> str:
    return _LETTERS[col]


def cell_name(cell: int, height: int, width: int, geometry: str = "plane") -> str:
    """Human name of a raster cell."""
    if not 0 <= cell < height * width:
        return f"#{cell}"
    row, col = divmod(cell, width)
    if geometry == "strip":
        return f"#{cell}"
    return f"{column_letter(col)}{height - row}"


def parse_cell(name: str, height: int, width: int) -> int:
    """Cell index of a name like ``h8`` (or ``#42``)."""
    text = name.strip()
    if text.startswith("#"):
        cell = int(text[1:])
    else:
        if len(text) < 2 or text[0] not in _LETTERS or not text[1:].isdigit():
            raise ValueError(f"cannot read cell name {name!r} (expected e.g. 'h8' or '#112')")
        col = _LETTERS.index(text[0])
        row = height - int(text[1:])
        if not (0 <= col < width and 0 <= row < height):
            raise ValueError(f"cell {name!r} is off a {height}x{width} board")
        cell = row * width + col
    if not 0 <= cell < height * width:
        raise ValueError(f"cell {name!r} is off a {height}x{width} board")
    return cell


def action_name(
    action: int,
    n_cells: int,
    height: int,
    width: int,
    geometry: str,
    specials: tuple[str, ...] = (),
) -> str:
    """Name of an action: a cell, or one of the variant's special actions."""
    if 0 <= action < n_cells:
        return cell_name(action, height, width, geometry)
    k = action - n_cells
    if 0 <= k < len(specials):
        return specials[k]
    return f"#{action}"
