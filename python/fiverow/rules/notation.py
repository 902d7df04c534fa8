"""Names of cells and actions, and back: ``h8`` style on square boards, raw
indices on the strip, MODLINSEQ addresses on hexagonal boards.

Square boards use renju notation: column letters ``a..`` from the left, row
numbers from the bottom, so ``h8`` is the centre of 15x15 and ``a15`` is cell
0 (row 0 at the top). Boards wider than 26 go on with capitals: Gomorpion's
30 columns are ``a..z A B C D``, so on them the case of a letter matters
(``a5`` and ``A5`` are different cells). The strip is one array, so its cells
are named by index (``#42``). :func:`parse_action` reads every name
:func:`action_name` writes back into its action.
"""

from __future__ import annotations

import string
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .modlinseq import address, axial_of, ring

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
        return address(cell, width // 2)
    return f"{column_letter(col)}{height - row}"


class OffBoardError(ValueError):
    """A cell name that reads, but names no cell of this board (``p8`` on 15x15)."""


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


def _columns(width: int) -> str:
    return f"{column_letter(0)}..{column_letter(width - 1)}"


def _square_cell(text: str, height: int, width: int) -> int | None:
    """The cell of ``h8`` on a square raster (None: not such a name). Letters
    are read as written where the board has capitals (wider than 26), in
    either case elsewhere."""
    if len(text) < 2 or text[0] not in _LETTERS or not text[1:].isdigit():
        return None
    letter = text[0] if width > 26 else text[0].lower()
    col, row = _LETTERS.index(letter), height - int(text[1:])
    if not (col < width and 0 <= row < height):
        raise OffBoardError(
            f"{text} is off the board (columns {_columns(width)}, rows 1..{height})"
        )
    return row * width + col


def _hex_cell(text: str, width: int, on_board: Sequence[bool] | None) -> int | None:
    """The raster cell of a MODLINSEQ address (None: not an address)."""
    try:
        a, b = axial_of(text)
    except ValueError:
        return None
    order = width // 2
    cell = (order - b) * width + (a + order)
    if ring(a, b) > order or (on_board is not None and not on_board[cell]):
        raise OffBoardError(f"{text} is off the board (rings 0..{order}: A0 is the centre)")
    return cell


def _index_cell(text: str, n_cells: int) -> int | None:
    """The cell of ``#42`` (or ``42``) (None: not an index)."""
    digits = text[1:] if text.startswith("#") else text
    if not digits.isdigit():
        return None
    if int(digits) >= n_cells:
        raise OffBoardError(f"{text} is off the board (cells #0..#{n_cells - 1})")
    return int(digits)


def example_name(geometry: str, modulus: int) -> str:
    cell = {"strip": "#42", "hex": "E4", "tess": "E4"}.get(geometry, "h8")
    if modulus:
        return f"7{cell}" if geometry in ("hex", "tess") else f"7@{cell}"
    return cell


def parse_cell_name(
    text: str,
    height: int,
    width: int,
    geometry: str = "plane",
    on_board: Sequence[bool] | None = None,
) -> int:
    """The raster cell named by ``text`` as :func:`cell_name` writes it (``h8``,
    ``E4`` on hexagonal boards, ``#42``). ``on_board`` (one flag per raster
    cell) marks the raster cells that are on the board. Raises
    :class:`OffBoardError` for a name off the board and ``ValueError`` for
    text that names no cell."""
    name = text.strip()
    n_cells = height * width
    cell: int | None = None
    if name.startswith("#") or geometry == "strip":
        cell = _index_cell(name, n_cells)
    elif geometry in ("hex", "tess"):
        cell = _hex_cell(name, width, on_board)
    else:
        cell = _square_cell(name, height, width)
    if cell is None:
        raise ValueError(f"cannot read {text!r} as a cell (e.g. {example_name(geometry, 0)})")
    if on_board is not None and not on_board[cell]:
        raise OffBoardError(f"{name} is off the board")
    return cell


def parse_action(
    text: str,
    n_cells: int,
    height: int,
    width: int,
    geometry: str,
    specials: tuple[str, ...] = (),
    modulus: int = 0,
    on_board: Sequence[bool] | None = None,
) -> int:
    """The action :func:`action_name` names ``text`` (arguments as there):
    a cell, a MODLINSEQ tile (``7E4``, ``7@h8``), a special action by name (in
    either case). Raises :class:`OffBoardError` for a cell off the board and
    ``ValueError`` (naming what was expected) for text that names no action."""
    name = text.strip()
    for k, special in enumerate(specials):
        if name.upper() == special.upper():
            return n_cells * (modulus or 1) + k
    if not modulus:
        try:
            return parse_cell_name(name, height, width, geometry, on_board)
        except OffBoardError:
            raise
        except ValueError:
            pass
    else:
        digits = len(name) - len(name.lstrip("0123456789"))
        rest = name[digits:]
        if geometry not in ("hex", "tess"):
            rest = rest[1:] if rest.startswith("@") else ""
        if digits and rest:
            value = int(name[:digits])
            try:
                cell = parse_cell_name(rest, height, width, geometry, on_board)
            except OffBoardError:
                raise
            except ValueError:
                cell = -1
            if cell >= 0:
                if value >= modulus:
                    raise ValueError(f"{name}: tile values are 0..{modulus - 1}")
                return cell * modulus + value
    example = example_name(geometry, modulus)
    what = f"a tile (value then cell, e.g. {example})" if modulus else f"a cell (e.g. {example})"
    also = f" or one of {', '.join(specials)}" if specials else ""
    raise ValueError(f"cannot read {text!r} as {what}{also}")


#: Board characters: (cell code, gomorpion stone status).
POSITION_CHARS = {
    ".": (0, 0),
    "-": (0, 0),
    "#": (3, 0),
    "X": (1, 0),  # black
    "O": (2, 0),  # white
    "x": (1, 1),  # gomorpion: black recapturable
    "o": (2, 1),  # gomorpion: white recapturable
    "B": (1, 2),  # gomorpion: black captured
    "W": (2, 2),  # gomorpion: white captured
}


def parse_position(
    rows: Sequence[str] | npt.ArrayLike, height: int, width: int
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8] | None]:
    """Cell codes of a position given as strings or as an array, and the stone
    statuses the strings give (None if every stone is live)."""
    if isinstance(rows, Sequence) and rows and isinstance(rows[0], str):
        text = list(rows)
        if len(text) != height or any(len(r) != width for r in text):
            raise ValueError(f"position must be {height} rows of {width} characters")
        try:
            pairs = [POSITION_CHARS[ch] for r in text for ch in r]
        except KeyError as e:
            raise ValueError(
                f"unknown board character {e.args[0]!r} (use X, O, . ; gomorpion also x o B W)"
            ) from None
        cells = np.array([p[0] for p in pairs], dtype=np.uint8)
        status = np.array([p[1] for p in pairs], dtype=np.uint8)
        return cells, status if status.any() else None
    array = np.asarray(rows)
    if array.shape not in ((height, width), (height * width,)):
        raise ValueError(f"position array must have shape ({height}, {width}), got {array.shape}")
    if array.dtype.kind not in "iu" or array.min(initial=0) < 0 or array.max(initial=0) > 3:
        raise ValueError("position array must hold integer cell codes 0..3")
    return array.astype(np.uint8).reshape(-1), None


def position_cells(
    rows: Sequence[str] | npt.ArrayLike, height: int, width: int
) -> npt.NDArray[np.uint8]:
    """Cell codes of a position (see :func:`parse_position`); statuses are refused."""
    cells, status = parse_position(rows, height, width)
    if status is not None:
        raise ValueError("stone statuses (x o B W) are for gomorpion positions")
    return cells
