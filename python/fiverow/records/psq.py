"""Gomocup's ``.psq`` records (Piskvork's "saved positions"), the form of
Gomocup's published tournament games.

What Piskvork writes (and reads back)::

    Piskvorky 20x20, 11:11, 0     width x height, each seat's level ("0" a human),
    10,10,1342                    and which of the two named players moved first;
    11,9,870                      then one move a line: x,y (column, row from the
    ...                           top left, from 1) and the milliseconds it took;
    pbrain-alpha.exe              then, in tournaments, the two players' names
    pbrain-beta.exe
    0                             and how the game ended: 0 by the rules, -1 not
                                  recorded; otherwise the player to move failed
                                  (15 a timeout, -2 an error).

fiverow writes the same, with black named first, and adds one last line that
Piskvork does not read, naming the variant (``fiverow: variant=renju``); a
record without it is freestyle on its board unless told otherwise. The
header's first word is read as ``Piskvorky`` or ``Piskvork``.
"""

from __future__ import annotations

import re
from typing import Any

from .game import Game, RecordError

#: The result code of a game that ended by the rules, of one whose end is not
#: recorded, and of a forfeit by timeout and by another error.
CODE_FINISHED, CODE_UNKNOWN, CODE_TIMEOUT, CODE_ERROR = 0, -1, 15, -2

_HEADER = re.compile(
    r"^\s*Piskvork(?:y)?\s+(\d+)\s*x\s*(\d+)\s*,\s*(-?\d+)\s*:\s*(-?\d+)\s*,\s*(\d+)"
)
_MOVE = re.compile(r"^\s*(-?\d+)\s*,\s*(-?\d+)\s*(?:,\s*(-?\d+))?\s*$")
_CODE = re.compile(r"^\s*-?\d+\s*$")
_FIVEROW = "fiverow:"


def parse(text: str) -> Game:
    """The game of a ``.psq`` record's text (``RecordError`` says what is wrong)."""
    lines = text.splitlines()
    header = _HEADER.match(lines[0]) if lines else None
    if header is None:
        first = lines[0][:60] if lines else ""
        raise RecordError(
            f"not a .psq record: the first line should read like 'Piskvorky 20x20, 11:11, 0', "
            f"got {first!r}"
        )
    width, height, first_mover = int(header[1]), int(header[2]), int(header[5])
    if not (1 <= width <= 52 and 1 <= height <= 52):
        raise RecordError(f"a {width}x{height} board: records hold boards up to 52x52")
    if first_mover not in (0, 1):
        raise RecordError(f"line 1: the player who moved first is 0 or 1, got {first_mover}")
    moves: list[int] = []
    times: list[int] = []
    k = 1
    while k < len(lines) and (m := _MOVE.match(lines[k])):
        x, y = int(m[1]), int(m[2])
        if not (1 <= x <= width and 1 <= y <= height):
            raise RecordError(f"line {k + 1}: move {x},{y} is off the {width}x{height} board")
        moves.append((y - 1) * width + (x - 1))
        times.append(int(m[3] or 0))
        k += 1
    variant: str | None = None
    params: dict[str, Any] = {}
    trailer: list[tuple[int, str]] = []  # (line number, text): names, then the code
    for n, line in enumerate(lines[k:], start=k + 1):
        if line.strip().lower().startswith(_FIVEROW):
            variant, params = _read_fiverow_line(line.strip()[len(_FIVEROW) :], n)
        elif line.strip():
            trailer.append((n, line.strip()))
    names, code = _names_and_code(trailer)
    black, white = (names[0], names[1]) if first_mover == 0 else (names[1], names[0])
    result, forfeit = "?", None
    if code not in (CODE_FINISHED, CODE_UNKNOWN):
        # the player to move failed: with stones only, colours alternate from black
        result = "white" if len(moves) % 2 == 0 else "black"
        forfeit = {CODE_TIMEOUT: "timeout", CODE_ERROR: "error"}.get(code, f"error code {code}")
    return Game(
        variant,
        height,
        width,
        tuple(moves),
        (black, white),
        result,
        forfeit,
        params,
        tuple(times) if any(times) else (),
    )


def _names_and_code(trailer: list[tuple[int, str]]) -> tuple[list[str], int]:
    """After the moves, Piskvork writes the two players' names (tournament games
    only) and then the result code, a line each."""
    if len(trailer) > 3:
        n, text = trailer[3]
        raise RecordError(f"line {n}: {text[:40]!r} is neither a move x,y nor a trailer line")
    names = [text for _, text in trailer[:2]] if len(trailer) >= 2 else []
    code = CODE_UNKNOWN
    if len(trailer) in (1, 3):
        n, text = trailer[-1]
        if not _CODE.match(text):
            what = "a move x,y or a result code" if len(trailer) == 1 else "the result code"
            raise RecordError(f"line {n}: {text[:40]!r} is not {what}")
        code = int(text)
    names += [""] * (2 - len(names))
    return ["" if name == "?" else name for name in names], code


def _read_fiverow_line(text: str, line: int) -> tuple[str | None, dict[str, Any]]:
    variant: str | None = None
    params: dict[str, Any] = {}
    for item in text.split():
        key, eq, value = item.partition("=")
        if not eq or not key or not value:
            raise RecordError(f"line {line}: fiverow's line takes key=value items, got {item!r}")
        if key == "variant":
            variant = value
        else:
            params[key] = int(value) if value.lstrip("-").isdigit() else value
    return variant, params


def format_game(game: Game) -> str:
    """The ``.psq`` text of a game of stones (``RecordError`` for protocol steps,
    which the format cannot hold)."""
    if any(m >= game.n_cells for m in game.moves):
        raise RecordError(
            "the game has opening-protocol steps (TAKE_BLACK, SWAP, ...) that a .psq record "
            "cannot hold: write it as .sgf"
        )
    lines = [f"Piskvorky {game.width}x{game.height}, 0:0, 0"]
    times = game.times or (0,) * len(game.moves)
    for move, ms in zip(game.moves, times, strict=True):
        row, col = divmod(move, game.width)
        lines.append(f"{col + 1},{row + 1},{ms}")
    for name in game.players:
        lines.append(_one_line(name) or "?")
    if game.forfeit is not None:
        timeout = "time" in game.forfeit.lower()
        code = CODE_TIMEOUT if timeout else CODE_ERROR
    else:
        code = CODE_UNKNOWN if game.result == "?" else CODE_FINISHED
    lines.append(str(code))
    if game.variant is not None:
        items = [f"variant={game.variant}"]
        items += [f"{k}={v}" for k, v in sorted(game.params.items())]
        lines.append(f"{_FIVEROW} " + " ".join(items))
    return "\n".join(lines) + "\n"


def _one_line(name: str) -> str:
    return " ".join(name.split())
