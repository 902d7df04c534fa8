"""Names of cells: ``h8`` style on square boards, raw indices elsewhere.

Square boards use renju notation: column letters ``a..`` from the left, row
numbers from the bottom, so ``h8`` is the centre of 15x15 and ``a15`` is cell
0 (row 0 at the top). The strip is one array, so its cells are named by index.
"""

from __future__ import annotations

import string

_LETTERS = string.ascii_lowercase + string.ascii_uppercase


def column_letter(col: int) -> str:
    """The letter naming column ``col`` (0 is 'a')."""
    return _LETTERS[col]


def cell_name(cell: int, height: int, width: int, geometry: str = "plane") -> str:
    """Human name of a raster cell: ``h8`` on square boards, the MODLINSEQ
    address (``E4``) on hexagonal ones, the index on the strip."""
    if not 0 <= cell < height * width:
        return f"#{cell}"
    row, col = divmod(cell, width)
    if geometry == "strip":
        return f"#{cell}"
    if geometry in ("hex", "tess"):
        from ..rules.modlinseq import address  # noqa: PLC0415 (modlinseq imports nothing of ours)

        return address(cell, width // 2)
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
    modulus: int = 0,
) -> str:
    """Name of an action: a cell, a MODLINSEQ tile (``7E4``: value 7 on E4, or
    ``7@h8`` on square boards) when ``modulus`` is given, or a special action."""
    cell_actions = n_cells * (modulus or 1)
    if 0 <= action < cell_actions:
        if not modulus:
            return cell_name(action, height, width, geometry)
        cell, value = divmod(action, modulus)
        name = cell_name(cell, height, width, geometry)
        return f"{value}{name}" if geometry in ("hex", "tess") else f"{value}@{name}"
    k = action - cell_actions
    if 0 <= k < len(specials):
        return specials[k]
    return f"#{action}"
