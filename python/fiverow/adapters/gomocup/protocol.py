"""The Gomocup brain protocol (Piskvork's "new protocol"), read one line at a time.

Both directions use this module: ``fiverow engine`` parses what a manager sends
with :func:`parse_line`, and :class:`fiverow.engines.Gomocup` reads an external
brain's answers with :func:`parse_answer`. Both are pure functions that never
raise: whatever a line holds, the result is a message, a :class:`Malformed`
with the reason, or an :class:`Unknown` command.

Coordinates are ``x,y`` = column, row, counted from 0 at the top left corner.
``BOARD`` and ``SWAP2BOARD`` span several lines up to ``DONE``: the lines in
between are gathered in a :class:`Block`, the state passed from one call of
:func:`parse_line` to the next. A ``SWAP2BOARD`` stone is read in either form
brains use: ``x,y`` (the Gomocup 2020 announcement) or ``x,y,field`` (Rapfi).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: The longest line read; the protocol lets a reader cut longer lines.
MAX_LINE = 4096
#: The most stones one BOARD block may list (a 32x32 board, fiverow's largest).
MAX_STONES = 32 * 32
#: INFO rule bits: exactly five, continuous game, renju, caro.
RULE_EXACT, RULE_CONTINUOUS, RULE_RENJU, RULE_CARO = 1, 2, 4, 8
#: BOARD fields: own stone, opponent's stone, winning line / forbidden mark.
FIELD_OWN, FIELD_OPPONENT, FIELD_WINNING = 1, 2, 3

_NUMBER = re.compile(r"[0-9]{1,9}")
_COMMA_SPACES = re.compile(r"\s*,\s*")


@dataclass(frozen=True)
class Start:
    """``START n`` (a square board) or ``RECTSTART w,h``."""

    width: int
    height: int


@dataclass(frozen=True)
class Restart:
    """``RESTART``: a new game on the same board."""


@dataclass(frozen=True)
class Begin:
    """``BEGIN``: the brain opens the game on the empty board."""


@dataclass(frozen=True)
class Turn:
    """``TURN x,y``: the opponent played there; the brain answers its move."""

    x: int
    y: int


@dataclass(frozen=True)
class Play:
    """``PLAY x,y``: the manager imposes the brain's move (after SUGGEST)."""

    x: int
    y: int


@dataclass(frozen=True)
class Takeback:
    """``TAKEBACK x,y``: remove the stone there."""

    x: int
    y: int


@dataclass(frozen=True)
class Board:
    """``BOARD`` ... ``DONE``: a whole position, stones as ``(x, y, field)``."""

    stones: tuple[tuple[int, int, int], ...]


@dataclass(frozen=True)
class Swap2Board:
    """``SWAP2BOARD`` ... ``DONE``: the Swap2 opening so far (0, 3 or 5 stones)."""

    stones: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Info:
    """``INFO key value`` (the key lower-cased; the value as sent)."""

    key: str
    value: str


@dataclass(frozen=True)
class End:
    """``END``: the brain stops."""


@dataclass(frozen=True)
class About:
    """``ABOUT``: the brain describes itself on one line."""


@dataclass(frozen=True)
class Malformed:
    """A known command that cannot be read; answered ``ERROR <reason>``."""

    reason: str


@dataclass(frozen=True)
class Unknown:
    """A command this protocol does not have; answered ``UNKNOWN <reason>``."""

    reason: str


@dataclass(frozen=True)
class Block:
    """A BOARD or SWAP2BOARD block being read: the stones so far, and the first
    problem met (reported once, at ``DONE``)."""

    kind: str
    stones: tuple[tuple[int, ...], ...] = ()
    error: str | None = None


Command = Start | Restart | Begin | Turn | Play | Takeback | Board | Swap2Board | Info | End | About
Message = Command | Malformed | Unknown


def parse_line(line: str, block: Block | None = None) -> tuple[Message | None, Block | None]:
    """One line from a manager: ``(message, block)``, where ``message`` is None
    when there is nothing to answer yet (an empty line, a line inside a block)
    and ``block`` is the block still open after this line. Never raises."""
    try:
        return _parse_line(line, block)
    except Exception as e:  # noqa: BLE001 - a parser bug must not take a brain down
        return Malformed(f"cannot read the line ({type(e).__name__})"), None


def _parse_line(line: str, block: Block | None) -> tuple[Message | None, Block | None]:
    if not isinstance(line, str):
        return Malformed(f"a line is text, got {type(line).__name__}"), block
    text = line.strip()
    if len(text) > MAX_LINE:
        return Malformed(f"line longer than {MAX_LINE} characters"), block
    if block is not None:
        return _in_block(text, block)
    if not text:
        return None, None
    word, _, rest = text.partition(" ")
    word, rest = word.upper(), rest.strip()
    if word in _NO_ARGUMENT:
        if rest and word != "END":  # END always ends, whatever follows it
            return Malformed(f"{word} takes no argument, got {_shown(rest)}"), None
        return _NO_ARGUMENT[word](), None
    if word in ("BOARD", "SWAP2BOARD"):
        if rest:
            return Malformed(
                f"{word} takes no argument (its stones follow on their own lines)"
            ), None
        return None, Block(word)
    if word == "START":
        n = _number(rest)
        if n is None:
            return Malformed(f"START needs the board size, e.g. START 15; got {_shown(rest)}"), None
        return Start(n, n), None
    if word == "RECTSTART":
        wh = numbers(rest, 2)
        if wh is None:
            return Malformed(f"RECTSTART needs width,height, e.g. 20,15; got {_shown(rest)}"), None
        return Start(wh[0], wh[1]), None
    if word in _AT_POINT:
        xy = numbers(rest, 2)
        if xy is None:
            return Malformed(f"{word} needs x,y (numbers from 0); got {_shown(rest)}"), None
        return _AT_POINT[word](xy[0], xy[1]), None
    if word == "INFO":
        key, _, value = rest.partition(" ")
        if not key:
            return Malformed("INFO needs a key, e.g. INFO timeout_turn 5000"), None
        return Info(key.lower(), value.strip()), None
    if word == "DONE":
        return Malformed("DONE without BOARD or SWAP2BOARD"), None
    return Unknown(f"unknown command {_shown(word)}"), None


def _in_block(text: str, block: Block) -> tuple[Message | None, Block | None]:
    word = text.upper()
    if word == "DONE":
        if block.error is not None:
            return Malformed(f"{block.kind}: {block.error}"), None
        if block.kind == "BOARD":
            return Board(block.stones), None  # type: ignore[arg-type]
        return Swap2Board(block.stones), None  # type: ignore[arg-type]
    if word.split(" ")[0] == "END":
        return End(), None  # a manager can always stop a brain
    if block.error is not None or not text:
        return None, block
    if len(block.stones) >= MAX_STONES:
        return None, Block(block.kind, block.stones, f"more than {MAX_STONES} stones")
    if block.kind == "BOARD":
        stone = numbers(text, 3)
        form = "x,y,field"
    else:  # SWAP2BOARD: x,y (the 2020 announcement) or x,y,field (as BOARD; Rapfi)
        stone = numbers(text, 2) or _swap2_with_field(text)
        form = "x,y or x,y,field (field 1 or 2)"
    if stone is None:
        return None, Block(block.kind, block.stones, f"a line is not {form}: {_shown(text)}")
    return None, Block(block.kind, (*block.stones, stone))


def _swap2_with_field(text: str) -> tuple[int, ...] | None:
    """A SWAP2BOARD stone written as in BOARD: ``x,y,field``; the field adds
    nothing (the opening's colours alternate from black), so it is dropped."""
    stone = numbers(text, 3)
    return stone[:2] if stone is not None and stone[2] in (FIELD_OWN, FIELD_OPPONENT) else None


def numbers(text: str, count: int) -> tuple[int, ...] | None:
    """``count`` comma-separated whole numbers (from 0; spaces around commas
    allowed), or None."""
    parts = text.split(",")
    if len(parts) != count:
        return None
    values = [_number(p) for p in parts]
    return None if any(v is None for v in values) else tuple(v for v in values if v is not None)


def _number(text: str) -> int | None:
    text = text.strip()
    return int(text) if _NUMBER.fullmatch(text) else None


def _shown(text: str, limit: int = 40) -> str:
    """A piece of input quoted for an error message: one line, bounded."""
    clean = "".join(ch if ch.isprintable() else "?" for ch in text)
    return repr(clean if len(clean) <= limit else clean[:limit] + "...")


_NO_ARGUMENT: dict[str, type[Restart | Begin | End | About]] = {
    "RESTART": Restart,
    "BEGIN": Begin,
    "END": End,
    "ABOUT": About,
}
_AT_POINT: dict[str, type[Turn | Play | Takeback]] = {
    "TURN": Turn,
    "PLAY": Play,
    "TAKEBACK": Takeback,
}


# ---- the other direction: what a brain answers ----


@dataclass(frozen=True)
class Answer:
    """A brain's answer to a move request: ``moves`` (``x, y`` pairs; one for
    TURN / BEGIN / BOARD, up to three for SWAP2BOARD) or ``swap``; or, when it
    is neither, ``error`` (the brain's ERROR / UNKNOWN text, or what was wrong)."""

    moves: tuple[tuple[int, int], ...] = ()
    swap: bool = False
    error: str | None = None


#: Lines a brain may send before its answer, which the answer is not.
CHATTER = ("MESSAGE", "DEBUG")


def is_chatter(line: str) -> bool:
    """A MESSAGE / DEBUG line (or an empty one): shown to users, not an answer."""
    word = line.strip().split(" ")[0].upper()
    return not word or word in CHATTER


def parse_answer(line: str) -> Answer:
    """A brain's answer line: ``x,y``, ``x,y x,y [x,y]``, ``SWAP``, or an error.
    ``SUGGEST x,y`` counts as the move (Gomocup managers play what is
    suggested). Never raises."""
    try:
        text = line.strip()[:MAX_LINE]
        word, _, rest = text.partition(" ")
        upper = word.upper()
        if upper in ("ERROR", "UNKNOWN"):
            return Answer(error=f"{upper} {rest.strip()}".strip())
        if upper == "SWAP" and not rest.strip():
            return Answer(swap=True)
        if upper == "SUGGEST":
            text = rest
        moves = []
        for part in _COMMA_SPACES.sub(",", text).split():
            xy = numbers(part, 2)
            if xy is None:
                return Answer(error=f"not a move: {_shown(text)}")
            moves.append((xy[0], xy[1]))
        if not moves or len(moves) > 3:
            return Answer(error=f"not a move: {_shown(text)}")
        return Answer(moves=tuple(moves))
    except Exception as e:  # noqa: BLE001
        return Answer(error=f"cannot read the answer ({type(e).__name__})")


def format_point(x: int, y: int) -> str:
    return f"{x},{y}"


def rule_bits(rule: str, caro_ends: str = "gomocup") -> int:
    """The ``INFO rule`` value of a fiverow rule, or ValueError when Gomocup has
    none (caro: Gomocup's caro is fiverow's ``caro_ends="gomocup"``, exactly
    five, value 9; ``"gomocup6"``, where overlines win, is 8)."""
    if rule == "freestyle":
        return 0
    if rule == "standard":
        return RULE_EXACT
    if rule == "renju":
        return RULE_RENJU
    if rule == "caro" and caro_ends in ("gomocup", "gomocup6"):
        return RULE_CARO | (RULE_EXACT if caro_ends == "gomocup" else 0)
    if rule == "caro":
        raise ValueError(
            f"Gomocup's caro rule is fiverow's caro_ends='gomocup' (or 'gomocup6'); "
            f"caro_ends={caro_ends!r} has no Gomocup rule"
        )
    raise ValueError(f"rule {rule!r} has no Gomocup INFO rule (freestyle, standard, renju, caro)")


def rule_params(bits: int) -> dict[str, str]:
    """fiverow variant parameters of an ``INFO rule`` value: ``rule`` (and
    ``caro_ends``). Bit 2 (continuous game) changes nothing here; renju and
    caro together are refused with ValueError."""
    if not 0 <= bits <= 15:
        raise ValueError(f"INFO rule is a sum of 1, 2, 4 and 8 (0..15), got {bits}")
    if bits & RULE_RENJU and bits & RULE_CARO:
        raise ValueError(f"INFO rule {bits} asks for renju (4) and caro (8) at once")
    if bits & RULE_RENJU:
        return {"rule": "renju"}
    if bits & RULE_CARO:
        return {"rule": "caro", "caro_ends": "gomocup" if bits & RULE_EXACT else "gomocup6"}
    return {"rule": "standard" if bits & RULE_EXACT else "freestyle"}
