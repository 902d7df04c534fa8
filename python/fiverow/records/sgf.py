"""SGF records of five-in-a-row (``FF[4]GM[4]``): the Smart Game Format's
game 4, Gomoku and Renju.

A game is a sequence of nodes: the root's properties (``SZ`` the board,
``SZ[15]`` or ``SZ[20:15]`` for columns:rows; ``PB`` / ``PW`` the players;
``RE`` the result, ``B+`` / ``W+`` / ``0`` a draw / ``Void``, with ``+F``,
``+T`` or ``+R`` for a forfeit, a timeout or a resignation; ``RU`` the rules),
then one node a move, ``B[hh]`` / ``W[ih]``: column then row letters from the
top left, ``a..z`` then ``A..Z``. fiverow writes ``RU[renju]`` (the preset,
then any parameter that differs: ``RU[freestyle connect=6]``), a forfeit's
reason in ``GC[forfeit: ...]``, and each opening-protocol step that places no
stone (``TAKE_BLACK``, ``SWAP``, a Soosorv offer) as a node of its own
property ``FR`` (``;FR[TAKE_WHITE]``), which other readers skip. Only a
game's main line is read; a collection's games are read one by one.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from typing import Any

from .game import Game, RecordError

_LETTERS = string.ascii_lowercase + string.ascii_uppercase
#: fiverow's private property: a protocol step that places no stone.
STEP = "FR"

Node = dict[str, list[str]]


def _tokens_to_trees(text: str) -> list[list[Node]]:
    """The main line of each game tree of a collection."""
    pos = 0
    n = len(text)

    def skip() -> None:
        nonlocal pos
        while pos < n and text[pos].isspace():
            pos += 1

    def error(what: str) -> RecordError:
        line = text.count("\n", 0, pos) + 1
        return RecordError(f"not a valid SGF record: {what} (line {line})")

    def value() -> str:
        nonlocal pos
        out = []
        pos += 1  # "["
        while pos < n and text[pos] != "]":
            if text[pos] == "\\" and pos + 1 < n:
                pos += 1
            out.append(text[pos])
            pos += 1
        if pos >= n:
            raise error("a property value has no closing ']'")
        pos += 1
        return "".join(out)

    def node() -> Node:
        nonlocal pos
        props: Node = {}
        pos += 1  # ";"
        while True:
            skip()
            start = pos
            while pos < n and text[pos].isalpha():
                pos += 1
            if pos == start:
                return props
            ident = "".join(ch for ch in text[start:pos] if ch.isupper())
            skip()
            if pos >= n or text[pos] != "[":
                raise error(f"property {text[start:pos]} has no value")
            values = []
            while pos < n and text[pos] == "[":
                values.append(value())
                skip()
            props.setdefault(ident, []).extend(values)

    def tree(main: bool) -> list[Node]:
        nonlocal pos
        pos += 1  # "("
        nodes: list[Node] = []
        first_child = True
        while True:
            skip()
            if pos >= n:
                raise error("a game tree has no closing ')'")
            ch = text[pos]
            if ch == ";":
                nodes.append(node())
            elif ch == "(":  # a variation: the first is the main line
                child = tree(main and first_child)
                if first_child:
                    nodes.extend(child)
                first_child = False
            elif ch == ")":
                pos += 1
                return nodes if main else []
            else:
                raise error(f"unexpected {ch!r}")

    trees = []
    skip()
    while pos < n:
        if text[pos] != "(":
            raise error("a record starts with '(;'")
        trees.append(tree(True))
        skip()
    if not trees:
        raise error("no game in it")
    return trees


def parse(text: str, parse_step: Callable[[Game, str], int] | None = None) -> list[Game]:
    """The games of an SGF collection's text. ``parse_step(game, name)``
    turns an ``FR`` step's name into its action under the game's variant."""
    return [_game(nodes, parse_step) for nodes in _tokens_to_trees(text)]


def _one(props: Node, key: str, default: str = "") -> str:
    values = props.get(key)
    return values[0].strip() if values else default


def _game(nodes: list[Node], parse_step: Callable[[Game, str], int] | None) -> Game:
    if not nodes:
        raise RecordError("not a valid SGF record: a game with no node")
    root = nodes[0]
    gm = _one(root, "GM", "4")
    if gm != "4":
        raise RecordError(f"GM[{gm}] is not five-in-a-row: Gomoku and Renju are GM[4]")
    width, height = _size(_one(root, "SZ", "15"))
    variant, params = _rules(_one(root, "RU"))
    result, forfeit = _result(_one(root, "RE", "?"), _one(root, "GC"))
    players = (_one(root, "PB"), _one(root, "PW"))
    moves: list[int | str] = []
    colour = "B"
    for k, props in enumerate(nodes):
        for setup in ("AB", "AW", "AE"):
            if setup in props:
                raise RecordError(
                    f"node {k + 1}: setup stones ({setup}) are not supported: a record starts "
                    "from the empty board"
                )
        stones = [key for key in ("B", "W") if key in props]
        if len(stones) + (STEP in props) > 1:
            raise RecordError(f"node {k + 1} holds more than one move")
        if stones:
            key = stones[0]
            if key != colour:
                raise RecordError(
                    f"node {k + 1}: {key}[{props[key][0]}] where {colour} is to play "
                    "(stones alternate, black first)"
                )
            moves.append(_cell(props[key][0], width, height, k + 1))
            colour = "W" if colour == "B" else "B"
        elif STEP in props:
            moves.append(props[STEP][0].strip())
    game = Game(variant, height, width, (), players, result, forfeit, params)
    actions: list[int] = []
    for move in moves:
        if isinstance(move, int):
            actions.append(move)
        elif parse_step is None or variant is None:
            raise RecordError(
                f"the record has protocol steps ({STEP}[...]) but no RU[variant] to read them"
            )
        else:
            actions.append(parse_step(game, move))
    return Game(variant, height, width, tuple(actions), players, result, forfeit, params)


def _size(text: str) -> tuple[int, int]:
    cols, _, rows = text.partition(":")
    try:
        width, height = int(cols), int(rows or cols)
    except ValueError:
        raise RecordError(f"SZ[{text}] is not a board size (SZ[15] or SZ[20:15])") from None
    if not (1 <= width <= 52 and 1 <= height <= 52):
        raise RecordError(f"SZ[{text}]: boards are 1..52 on a side")
    return width, height


def _rules(text: str) -> tuple[str | None, dict[str, Any]]:
    """``RU[renju]``, ``RU[freestyle connect=6]``: a preset and parameters.
    Rules that name no preset (``RU[RIF]``) are left to the reader's default."""
    from ..rules.config import preset_names  # noqa: PLC0415

    words = text.split()
    if not words:
        return None, {}
    presets = {name.lower(): name for name in preset_names()}
    name = presets.get(words[0].lower())
    if name is None:
        return None, {}
    params: dict[str, Any] = {}
    for item in words[1:]:
        key, eq, value = item.partition("=")
        if not eq or not key or not value:
            raise RecordError(f"RU[{text}]: parameters are key=value, got {item!r}")
        params[key] = int(value) if value.lstrip("-").isdigit() else value
    return name, params


#: How a result's reason after ``B+`` / ``W+`` names a forfeit.
_FORFEITS = {"F": "forfeit", "FORFEIT": "forfeit", "T": "timeout", "TIME": "timeout"}
_FORFEITS |= {"R": "resigned", "RESIGN": "resigned"}


def _result(text: str, comment: str) -> tuple[str, str | None]:
    upper = text.upper()
    if upper in ("", "?"):
        return "?", None
    if upper in ("0", "DRAW", "JIGO"):
        return "draw", None
    if upper == "VOID":
        return "truncated", None
    if upper[:2] in ("B+", "W+"):
        winner = "black" if upper[0] == "B" else "white"
        how = upper[2:]
        if how in _FORFEITS:
            said = comment.strip()
            reason = said[len("forfeit:") :].strip() if said.lower().startswith("forfeit:") else ""
            return winner, reason or _FORFEITS[how]
        return winner, None
    raise RecordError(f"RE[{text}] is not a result (B+, W+, 0 for a draw, Void or ?)")


def _cell(text: str, width: int, height: int, node: int) -> int:
    point = text.strip()
    if not point or (point == "tt" and width <= 19 and height <= 19):
        raise RecordError(f"node {node}: a pass; five-in-a-row has none")
    if len(point) != 2 or any(ch not in _LETTERS for ch in point):
        raise RecordError(f"node {node}: [{text}] is not a point (two letters, column then row)")
    col, row = _LETTERS.index(point[0]), _LETTERS.index(point[1])
    if col >= width or row >= height:
        raise RecordError(f"node {node}: [{point}] is off the {width}x{height} board")
    return row * width + col


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def format_game(game: Game, stones: Sequence[bool], step_name: Callable[[int], str]) -> str:
    """The SGF text of a game; ``stones[k]``: whether move k places a stone
    (the others are written as ``FR`` steps, named by ``step_name``)."""
    from .. import __version__  # noqa: PLC0415

    size = str(game.width) if game.width == game.height else f"{game.width}:{game.height}"
    root = [f"FF[4]GM[4]CA[UTF-8]AP[fiverow:{__version__}]SZ[{size}]"]
    if game.variant is not None:
        rules = " ".join([game.variant, *(f"{k}={v}" for k, v in sorted(game.params.items()))])
        root.append(f"RU[{_escape(rules)}]")
    root.append(f"PB[{_escape(game.players[0])}]PW[{_escape(game.players[1])}]")
    result = {"black": "B+", "white": "W+", "draw": "0", "truncated": "Void", "?": "?"}
    re_text = result[game.result]
    if game.forfeit is not None:
        timeout = "time" in game.forfeit.lower()
        re_text += "T" if timeout else "F"
        root.append(f"GC[forfeit: {_escape(game.forfeit)}]")
    root.append(f"RE[{re_text}]")
    nodes = []
    colour = "B"
    for move, stone in zip(game.moves, stones, strict=True):
        if stone:
            row, col = divmod(move, game.width)
            nodes.append(f";{colour}[{_LETTERS[col]}{_LETTERS[row]}]")
            colour = "W" if colour == "B" else "B"
        else:
            nodes.append(f";{STEP}[{_escape(step_name(move))}]")
    lines = ["(;" + "".join(root)]
    for k in range(0, len(nodes), 12):
        lines.append("".join(nodes[k : k + 12]))
    return "\n".join(lines) + ")\n"
