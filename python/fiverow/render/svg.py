"""Boards as SVG, for every geometry: square boards (plane, torus, strip) as a
grid of intersections with renju coordinates, hexagonal boards (hex, tess) as
hexagons; stones, Gomorpion statuses and sieges, MODLINSEQ tiles, offered
cells, move numbers, renju's forbidden points, the last move and a winning
line.

>>> import fiverow
>>> env = fiverow.make("renju")
>>> _ = env.reset(seed=0)
>>> text = fiverow.render.svg(env)          # also env._repr_svg_() in Jupyter

:func:`board_svg` draws one board dict (``env.board(i)``); it is built from
:func:`layout` (the background and where each cell is) and :func:`cell_glyphs`
(what each cell shows), which the HTML viewer (``fiverow view``) reuses step
by step.
"""

from __future__ import annotations

import colorsys
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

import numpy as np
import numpy.typing as npt

from ..rules.config import cell_values, traits_of
from ..rules.notation import cell_name, column_letter
from ..rules.renju import forbidden_points

WOOD = "#dcb35c"
LINE = "#5a3c14"
BLACK = "#161616"
WHITE = "#f4f4f0"
MARK = "#d42020"
OFF = "#6e6e6e"
#: Gomorpion sieges: (fill, label) by siege code (owner, kind).
SIEGE_STYLE = {
    1: ("#333333", "breakable siege of black"),
    2: ("#ffffff", "breakable siege of white"),
    3: ("#000000", "solid siege of black"),
    4: ("#ffffff", "solid siege of white"),
}
#: Line directions of square geometries, as (row, col) steps.
SQUARE_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
#: Hexagonal axes as axial (a, b) steps.
HEX_AXES = ((1, 0), (0, 1), (1, -1))


@dataclass
class Layout:
    """Where each on-board cell of a raster sits in the picture, and the
    picture's background (board, grid, coordinates)."""

    width: float
    height: float
    centres: dict[int, tuple[float, float]]
    radius: float  # a stone's radius
    hexagonal: bool
    background: list[str] = field(default_factory=list)
    caption_y: float = 0.0

    def open(self, extra_height: float = 0.0) -> str:
        """The opening ``<svg>`` tag, ``extra_height`` taller than the board."""
        h = self.height + extra_height
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {self.width:.0f} {h:.0f}" '
            f'width="{self.width:.0f}" height="{h:.0f}" font-family="sans-serif">'
        )


def _geometry(config: Any) -> str:
    return str(config["geometry"])


def layout(
    config: Any,
    height: int,
    width: int,
    cell_px: float | None = None,
    coordinates: bool = True,
    on_board: npt.NDArray[np.bool_] | None = None,
) -> Layout:
    """The picture of an empty board of ``config`` (``height`` x ``width`` raster;
    ``on_board`` marks the raster cells that are cells, for hexagonal boards)."""
    if _geometry(config) in ("hex", "tess"):
        assert on_board is not None
        return _hex_layout(config, height, width, on_board, cell_px, coordinates)
    return _square_layout(config, height, width, cell_px, coordinates)


def _square_layout(
    config: Any, height: int, width: int, cell_px: float | None, coordinates: bool
) -> Layout:
    step = cell_px or max(14.0, min(32.0, 560.0 / max(height, width)))
    margin = step * (1.2 if coordinates else 0.7)
    geometry = _geometry(config)
    centres = {
        r * width + c: (margin + c * step, margin + r * step)
        for r in range(height)
        for c in range(width)
    }
    total_w = 2 * margin + (width - 1) * step
    total_h = 2 * margin + (height - 1) * step
    bg = [f'<rect width="{total_w:.0f}" height="{total_h:.0f}" fill="{WOOD}"/>']
    x0, y0 = margin, margin
    x1, y1 = margin + (width - 1) * step, margin + (height - 1) * step
    # a torus's lines run on past the edge (they wrap); the strip's rows join end to start
    reach = step * 0.45 if geometry == "torus" else 0.0
    dash = ' stroke-dasharray="2,2"'
    for r in range(height):
        y = y0 + r * step
        bg.append(_line(x0, y, x1, y, LINE, 1.0))
        if reach:
            bg.append(_line(x0 - reach, y, x0, y, LINE, 1.0, dash))
            bg.append(_line(x1, y, x1 + reach, y, LINE, 1.0, dash))
    for c in range(width):
        x = x0 + c * step
        bg.append(_line(x, y0, x, y1, LINE, 1.0))
        if reach:
            bg.append(_line(x, y0 - reach, x, y0, LINE, 1.0, dash))
            bg.append(_line(x, y1, x, y1 + reach, LINE, 1.0, dash))
    if geometry == "strip":  # row k's last cell is followed by row k+1's first
        for r in range(height - 1):
            bg.append(
                f'<path d="M{x1:.1f},{y0 + r * step:.1f} C{x1 + step * 0.6:.1f},'
                f"{y0 + r * step:.1f} {x0 - step * 0.6:.1f},{y0 + (r + 1) * step:.1f} "
                f'{x0:.1f},{y0 + (r + 1) * step:.1f}" fill="none" stroke="{LINE}" '
                'stroke-width="0.6" stroke-dasharray="2,3" opacity="0.5"/>'
            )
    if geometry == "plane" and height == width and height % 2 == 1 and height >= 9:
        for dr, dc in ((0, 0), (-1, -1), (-1, 1), (1, -1), (1, 1)):
            k = height // 2 - 3 if height >= 13 else height // 2 - 2
            r, c = height // 2 + dr * k, width // 2 + dc * k
            x, y = centres[r * width + c]
            bg.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{step * 0.09:.1f}" fill="{LINE}"/>')
    if coordinates:
        size = step * 0.42
        for c in range(width):
            label = str(c % 10) if geometry == "strip" else column_letter(c)
            x = x0 + c * step
            for y in (margin * 0.45, total_h - margin * 0.25):
                bg.append(_text(x, y, label, size, LINE))
        for r in range(height):
            label = str(r * width) if geometry == "strip" else str(height - r)
            y = y0 + r * step + size * 0.35
            for x in (margin * 0.45, total_w - margin * 0.45):
                bg.append(_text(x, y, label, size, LINE))
    return Layout(total_w, total_h, centres, step * 0.46, False, bg, total_h)


def _hex_layout(
    config: Any,
    height: int,
    width: int,
    on_board: npt.NDArray[np.bool_],
    cell_px: float | None,
    coordinates: bool,
) -> Layout:
    radius = width // 2
    step = cell_px or max(18.0, min(36.0, 560.0 / (2 * radius + 1)))
    rise = step * math.sqrt(3) / 2
    margin = step * 0.9
    centres: dict[int, tuple[float, float]] = {}
    for r in range(height):
        for c in range(width):
            cell = r * width + c
            if not on_board[cell]:
                continue
            a, b = c - radius, radius - r
            centres[cell] = ((a + b / 2) * step, -b * rise)
    xs = [x for x, _ in centres.values()]
    ys = [y for _, y in centres.values()]
    dx, dy = margin - min(xs), margin - min(ys)
    centres = {k: (x + dx, y + dy) for k, (x, y) in centres.items()}
    total_w = max(xs) - min(xs) + 2 * margin
    total_h = max(ys) - min(ys) + 2 * margin
    bg = [f'<rect width="{total_w:.0f}" height="{total_h:.0f}" fill="{OFF}"/>']
    side = step / math.sqrt(3)
    modlinseq = "tiles" in traits_of(config)
    for cell, (x, y) in centres.items():
        bg.append(
            f'<polygon points="{_hexagon(x, y, side)}" fill="{WOOD}" stroke="{LINE}" '
            'stroke-width="1"/>'
        )
        if coordinates:
            name = cell_name(cell, height, width, _geometry(config))
            bg.append(
                _text(x, y + step * 0.12, name, step * (0.26 if modlinseq else 0.24), "#8a6a30")
            )
    return Layout(total_w, total_h, centres, step * 0.42, True, bg, total_h)


def _hexagon(x: float, y: float, side: float) -> str:
    """A pointy-top hexagon (rows of cells are horizontal)."""
    points = []
    for k in range(6):
        angle = math.pi / 6 + k * math.pi / 3
        points.append(f"{x + side * math.cos(angle):.1f},{y + side * math.sin(angle):.1f}")
    return " ".join(points)


def _line(
    x0: float, y0: float, x1: float, y1: float, colour: str, width: float, extra: str = ""
) -> str:
    return (
        f'<line x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}" stroke="{colour}" '
        f'stroke-width="{width}"{extra}/>'
    )


def _text(
    x: float, y: float, text: str, size: float, colour: str, weight: str = "normal", css: str = ""
) -> str:
    cls = f' class="{css}"' if css else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:.1f}" fill="{colour}" '
        f'text-anchor="middle" font-weight="{weight}"{cls}>{escape(text)}</text>'
    )


# ---- what each cell shows ----


def _bytes_plane(board: Mapping[str, Any], key: str, n: int) -> npt.NDArray[np.uint8] | None:
    raw = board.get(key)
    if raw is None or len(raw) != n:
        return None
    return np.frombuffer(raw, dtype=np.uint8) if isinstance(raw, bytes) else np.asarray(raw)


def _hue(value: int, modulus: int) -> str:
    r, g, b = colorsys.hsv_to_rgb(value / max(modulus, 1), 0.55, 0.95)
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


def cell_glyphs(
    board: Mapping[str, Any],
    config: Any,
    lay: Layout,
    *,
    numbers: Mapping[int, int] | None = None,
    forbidden: Mapping[int, str] | None = None,
    highlight: Iterable[int] = (),
) -> dict[int, str]:
    """SVG markup of what each cell shows (cells that show nothing are left out)."""
    cells = np.asarray(board["cells"]).reshape(-1)
    n = cells.size
    status = _bytes_plane(board, "stone_status", n)
    siege = _bytes_plane(board, "siege", n)
    tiles = _bytes_plane(board, "tiles", n)
    offered = _bytes_plane(board, "offered", n)
    traits = traits_of(config)
    gomorpion = "statuses" in traits
    modlinseq = "tiles" in traits
    modulus = cell_values(config)
    marked = set(highlight)
    rad = lay.radius
    out: dict[int, str] = {}
    for cell, (x, y) in lay.centres.items():
        parts: list[str] = []
        value = int(cells[cell])
        label = numbers.get(cell) if numbers else None
        if modlinseq and tiles is not None and tiles[cell]:
            tile = int(tiles[cell]) - 1
            if lay.hexagonal:
                parts.append(
                    f'<polygon points="{_hexagon(x, y, rad * 1.25)}" fill="{_hue(tile, modulus)}" '
                    f'stroke="{LINE}" stroke-width="1.2"/>'
                )
            else:
                parts.append(_disc(x, y, rad, _hue(tile, modulus), LINE))
            parts.append(_text(x, y + rad * 0.35, str(tile), rad * 0.95, "#111", "bold"))
        elif value in (1, 2):
            fill, ink = (BLACK, WHITE) if value == 1 else (WHITE, BLACK)
            kind = int(status[cell]) if gomorpion and status is not None else 0
            captured, recapturable, safe = kind & 3 == 2, kind & 3 == 1, bool(kind & 4)
            opacity = ' opacity="0.45"' if captured else ""
            ring = ' stroke-dasharray="3,2"' if recapturable else ""
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{rad:.1f}" fill="{fill}" stroke="#000" '
                f'stroke-width="{1.6 if recapturable else 0.8}"{ring}{opacity}/>'
            )
            if captured:
                d = rad * 0.6
                parts.append(_line(x - d, y - d, x + d, y + d, MARK, 2.0))
                parts.append(_line(x - d, y + d, x + d, y - d, MARK, 2.0))
            if safe:
                parts.append(_text(x, y + rad * 0.35, "S", rad, ink, "bold"))
            elif label is not None:
                size = rad * (0.95 if label < 100 else 0.75)
                parts.append(_text(x, y + size * 0.35, str(label), size, ink, css="num"))
        elif gomorpion and siege is not None and siege[cell]:
            fill, title = SIEGE_STYLE.get(int(siege[cell]), ("#888888", "siege"))
            d = rad * (0.55 if int(siege[cell]) >= 3 else 0.35)
            parts.append(
                f'<rect x="{x - d:.1f}" y="{y - d:.1f}" width="{2 * d:.1f}" height="{2 * d:.1f}" '
                f'fill="{fill}" stroke="#000" stroke-width="0.6" opacity="0.7">'
                f"<title>{title}</title></rect>"
            )
        if offered is not None and offered[cell] and value == 0:
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{rad * 0.55:.1f}" fill="none" '
                f'stroke="{BLACK}" stroke-width="1.5" stroke-dasharray="2,2">'
                "<title>offered</title></circle>"
            )
        if forbidden and cell in forbidden and value == 0:
            d = rad * 0.4
            parts.append(
                f'<g stroke="{MARK}" stroke-width="2.2"><title>forbidden: {forbidden[cell]}'
                f"</title>{_line(x - d, y - d, x + d, y + d, MARK, 2.2)}"
                f"{_line(x - d, y + d, x + d, y - d, MARK, 2.2)}</g>"
            )
        if cell == board.get("last_move") and modlinseq:
            # a red outline round the tile: a dot in its middle would hide its number
            outline = (
                f'<polygon points="{_hexagon(x, y, rad * 1.12)}"'
                if lay.hexagonal
                else f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{rad * 1.08:.1f}"'
            )
            parts.append(f'{outline} fill="none" stroke="{MARK}" stroke-width="2.5"/>')
        elif cell == board.get("last_move") and value in (1, 2):
            if label is None:
                parts.append(
                    f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{rad * 0.25:.1f}" fill="{MARK}"/>'
                )
            else:  # the last number in red
                parts.append(
                    f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{rad * 1.08:.1f}" fill="none" '
                    f'stroke="{MARK}" stroke-width="2"/>'
                )
        if cell in marked:
            parts.append(
                f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{rad * 1.12:.1f}" fill="none" '
                f'stroke="{MARK}" stroke-width="3"/>'
            )
        if parts:
            out[cell] = "".join(parts)
    return out


def _disc(x: float, y: float, r: float, fill: str, stroke: str) -> str:
    return (
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{fill}" stroke="{stroke}" '
        'stroke-width="1"/>'
    )


def forbidden_cells(board: Mapping[str, Any], config: Any) -> dict[int, str]:
    """Renju: black's forbidden points when black places the next stone
    (``{cell: kind}``); empty for other rules and for white."""
    if "fouls" not in traits_of(config) or _geometry(config) != "plane" or board.get("colour") != 0:
        return {}
    if board.get("winner", -1) >= 0 or board.get("status", 0) != 0:
        return {}
    cells = np.asarray(board["cells"])
    width = cells.shape[1]
    return {r * width + c: kind for (r, c), kind in forbidden_points(cells).items()}


def caption(board: Mapping[str, Any], config: Any, specials: Sequence[str] = ()) -> str:
    """One line under the board: scores, captures, hands, the phase of an
    opening."""
    parts: list[str] = []
    traits = traits_of(config)
    if "scoring" in traits:
        s = board.get("scores", (0, 0))
        parts.append(f"scores {s[0]} : {s[1]}")
    if "statuses" in traits:
        parts.append(f"casts {board.get('casts', 0)}")
    if "captures" in traits:
        c = board.get("captures", (0, 0))
        parts.append(f"captured stones {c[0]} : {c[1]}")
    if "tiles" in traits:
        hands = np.frombuffer(board.get("hands", b""), dtype=np.uint8)
        if hands.size:
            held = [
                " ".join(str(v) for v, k in enumerate(h) for _ in range(int(k)))
                for h in hands.reshape(2, -1)
            ]
            parts.append(f"hands [{held[0]}] / [{held[1]}]; bag {board.get('bag_left', 0)}")
    if board.get("phase_name") not in (None, "", "play"):
        parts.append(f"phase {board['phase_name']}")
    return "; ".join(parts)


def board_svg(
    board: Mapping[str, Any],
    config: Any,
    *,
    numbers: Mapping[int, int] | Sequence[int] | None = None,
    forbidden: bool | None = None,
    highlight: Iterable[int] | None = None,
    coordinates: bool = True,
    cell_px: float | None = None,
) -> str:
    """One board (a dict as ``env.board(i)`` gives it) of ``config`` as SVG.

    ``numbers``: move numbers to write on stones, ``{cell: number}`` or the
    cells in move order (numbered from 1). ``forbidden``: mark renju's
    forbidden points (default: when black is to place a stone). ``highlight``:
    cells ringed in red (default: the winning line, when the last move made
    one)."""
    cells = np.asarray(board["cells"])
    height, width = cells.shape
    lay = layout(config, height, width, cell_px, coordinates, cells.reshape(-1) != 3)
    if numbers is not None and not isinstance(numbers, Mapping):
        numbers = {int(c): k + 1 for k, c in enumerate(numbers)}
    marks = forbidden_cells(board, config) if forbidden in (None, True) else {}
    ring = winning_line(board, config) if highlight is None else list(highlight)
    glyphs = cell_glyphs(board, config, lay, numbers=numbers, forbidden=marks, highlight=ring)
    text = caption(board, config)
    extra = lay.radius * 1.6 if text else 0.0
    body = [lay.open(extra), *lay.background, *glyphs.values()]
    if text:
        body.append(_text(lay.width / 2, lay.height + extra * 0.65, text, lay.radius * 0.8, "#222"))
    body.append("</svg>")
    return "\n".join(body)


def svg(env: Any, index: int = 0, **kwargs: Any) -> str:
    """Board ``index`` of a vector env (or the board of a single env) as SVG;
    keywords as :func:`board_svg`."""
    vec = getattr(getattr(env, "unwrapped", env), "vector_env", None) or getattr(
        env, "unwrapped", env
    )
    if not hasattr(vec, "board") or not hasattr(vec, "config"):
        raise TypeError(f"svg() takes a fiverow env, got {type(env).__name__}")
    return board_svg(vec.board(index), vec.config, **kwargs)


# ---- the winning line ----


def winning_line(board: Mapping[str, Any], config: Any) -> list[int]:
    """The cells of the five (or longer run) the last move made, when it won:
    on plane, torus and strip boards and on walled or wrapping hexagons (bounce
    and tess boards: none drawn). Empty when the game was not won by a line."""
    if board.get("winner", -1) < 0 or "lines" not in traits_of(config):
        return []
    cells = np.asarray(board["cells"])
    last = int(board.get("last_move", -1))
    height, width = cells.shape
    if not 0 <= last < cells.size or cells.reshape(-1)[last] not in (1, 2):
        return []
    k = int(config["connect"])
    runs = [run for run in _runs(cells, last, config) if len(run) >= k]
    return sorted({c for run in runs for c in run})


def _runs(cells: npt.NDArray[np.uint8], last: int, config: Any) -> list[list[int]]:
    height, width = cells.shape
    flat = cells.reshape(-1)
    colour = flat[last]
    geometry = _geometry(config)
    runs: list[list[int]] = []
    for step in _steppers(geometry, config, height, width):
        run = [last]
        for sign in (1, -1):
            cell = step(last, sign)
            while cell is not None and flat[cell] == colour and cell not in run:
                run.append(cell)
                cell = step(cell, sign)
        runs.append(run)
    return runs


def _steppers(geometry: str, config: Any, height: int, width: int) -> list[Any]:
    def square(dr: int, dc: int, wrap: bool) -> Any:
        def step(cell: int, sign: int) -> int | None:
            r, c = divmod(cell, width)
            r, c = r + sign * dr, c + sign * dc
            if wrap:
                return (r % height) * width + c % width
            return r * width + c if 0 <= r < height and 0 <= c < width else None

        return step

    def stride(s: int) -> Any:
        def step(cell: int, sign: int) -> int | None:
            nxt = cell + sign * s
            return nxt if 0 <= nxt < height * width else None

        return step

    def axial(da: int, db: int, wrap: bool) -> Any:
        radius = width // 2

        def on(a: int, b: int) -> bool:
            return max(abs(a), abs(b), abs(a + b)) <= radius

        def step(cell: int, sign: int) -> int | None:
            r, c = divmod(cell, width)
            a, b = c - radius + sign * da, radius - r + sign * db
            if not on(a, b):
                if not wrap:
                    return None
                while on(a - sign * da, b - sign * db):  # back to the far end of the line
                    a, b = a - sign * da, b - sign * db
            return (radius - b) * width + a + radius

        return step

    if geometry in ("plane", "torus"):
        return [square(dr, dc, geometry == "torus") for dr, dc in SQUARE_DIRECTIONS]
    if geometry == "strip":
        return [stride(s) for s in (1, width - 1, width, width + 1)]
    if geometry == "hex" and config["edge"] in ("wall", "wrap"):
        return [axial(da, db, config["edge"] == "wrap") for da, db in HEX_AXES]
    return []
