"""Opening books: every game of a match starts from a short opening, played
once from each seat, so that deterministic players meet in many positions.

>>> import fiverow
>>> result = fiverow.Match("freestyle", "pvs", "heuristic", games=8, openings="balanced").play()
>>> result.distinct <= result.total().games
True

``openings`` is one of

- ``"none"`` (the default): every game starts from the empty board;
- ``"balanced"``: the built-in set shipped with fiverow, openings of two and
  three stones near the centre that ``pvs`` judges neither side to be winning
  (``benchmarks/make_openings.py`` made them); for renju variants the 26
  canonical renju openings instead;
- a path to a file of openings, one per line: its stones, black first and then
  alternating, as ``x,y`` offsets from the board's centre (``x`` to the
  right, ``y`` up), separated by spaces; ``#`` starts a comment. ``0,0 1,1
  2,0`` is black on the centre, white diagonally up-right of it, black two to
  the right of the centre.

Where seats alternate by game number (matches, ``balance --swap``), game ``k``
plays opening ``(k // 2) % n``, so each opening is played from both seats;
with fixed seats (``generate``), opening ``k % n``. The stones are the game's
first steps (in datasets too; ``book`` in the game records says how many).
Variants that open with a protocol (swap2, soosorv) place their own first
stones and take no openings.
"""

from __future__ import annotations

import importlib.resources
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _core

#: The names ``openings=`` takes besides a path.
NAMES = ("none", "balanced")

#: One opening: its stones as (x, y) offsets from the centre, black first.
Opening = tuple[tuple[int, int], ...]

_BALANCED_FILE = "balanced-openings.txt"


@dataclass(frozen=True)
class OpeningBook:
    """A set of openings. ``renju`` (the built-in set) replaces them on renju
    variants."""

    name: str
    openings: tuple[Opening, ...]
    renju: tuple[Opening, ...] | None = None

    def for_rule(self, rule: str) -> tuple[Opening, ...]:
        """The openings a variant of this rule plays."""
        if self.renju is not None and rule == "renju":
            return self.renju
        return self.openings

    def __len__(self) -> int:
        return len(self.openings)


def parse_book(text: str, source: str) -> tuple[Opening, ...]:
    """The openings of a book's text (see the module's docstring); ValueError
    naming ``source`` and the line when one cannot be read."""
    out: list[Opening] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        stones: list[tuple[int, int]] = []
        for token in line.split():
            x, comma, y = token.partition(",")
            try:
                if not comma:
                    raise ValueError
                stone = (int(x), int(y))
            except ValueError:
                raise ValueError(
                    f"openings file {source}, line {number}: cannot read stone {token!r} "
                    "(expected x,y offsets from the centre, e.g. 1,-1)"
                ) from None
            if stone in stones:
                raise ValueError(
                    f"openings file {source}, line {number}: stone {token} is played twice"
                )
            stones.append(stone)
        out.append(tuple(stones))
    if not out:
        raise ValueError(f"openings file {source} holds no openings")
    return tuple(out)


def read_book(path: str | os.PathLike[str]) -> OpeningBook:
    """A book from a file; ValueError when it cannot be read or parsed."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"cannot read openings file {str(path)!r}: {e}") from None
    return OpeningBook(str(path), parse_book(text, repr(str(path))))


def balanced() -> OpeningBook:
    """The built-in balanced set (and renju's 26 canonical openings)."""
    data = importlib.resources.files("fiverow.presets").joinpath(_BALANCED_FILE)
    lines = parse_book(data.read_text(encoding="utf-8"), _BALANCED_FILE)
    renju = tuple(tuple((int(x), int(y)) for x, y in o) for o in _core.opening_stones())
    return OpeningBook("balanced", lines, renju)


def book(spec: str | os.PathLike[str] | OpeningBook | None) -> OpeningBook | None:
    """The book ``openings=`` names: None for ``"none"`` (or None), the
    built-in set for ``"balanced"``, else a file. ValueError naming what was
    wrong."""
    if spec is None or isinstance(spec, OpeningBook):
        return spec
    if not isinstance(spec, str | os.PathLike):
        raise ValueError(f"openings must be 'none', 'balanced' or a path to a file, got {spec!r}")
    text = os.fspath(spec)
    if text == "none":
        return None
    if text == "balanced":
        return balanced()
    if not Path(text).exists():
        raise ValueError(
            f"openings must be 'none', 'balanced' or a path to a file; {text!r} is neither "
            "a name nor an existing file"
        )
    return read_book(text)


def name_of(spec: OpeningBook | None) -> str:
    """How reports name a book: ``none``, ``balanced`` or the file's path."""
    return "none" if spec is None else spec.name


def set_books(selfplay: Any, pool: Any, openings: OpeningBook | None) -> None:
    """Start each group's games of a C self-play from the book (checked
    against each variant: ValueError naming the group when an opening cannot
    be played there)."""
    if openings is None:
        return
    for gi, name in enumerate(pool._order):
        group = pool.groups[name]
        try:
            selfplay.set_book(gi, openings.for_rule(str(group.config["rule"])))
        except ValueError as e:
            raise ValueError(f"variant {name!r}: {e}") from None


def check_book(pool: Any, openings: OpeningBook | None) -> None:
    """ValueError (naming the group) unless every opening can be played in
    every group of the pool."""
    for name in pool._order:
        opening_cells(pool, name, openings)


def opening_cells(pool: Any, name: str, openings: OpeningBook | None) -> list[list[int]]:
    """The raster cells of each opening in the pool's group ``name`` ([] for
    no book); ValueError naming the group when one cannot be played there."""
    if openings is None:
        return []
    group = pool.groups[name]
    try:
        return _core.opening_cells(
            pool._batch, group.index, openings.for_rule(str(group.config["rule"]))
        )
    except ValueError as e:
        raise ValueError(f"variant {name!r}: {e}") from None


def moves_hash(actions: Sequence[int]) -> int:
    """The game records' ``moves_hash`` of a game's actions (FNV-1a over the
    16-bit actions, as the C self-play computes it)."""
    h = 0xCBF29CE484222325
    for a in actions:
        v = int(a) & 0xFFFF
        for byte in (v & 0xFF, v >> 8):
            h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def distinct_games(records: npt.NDArray[Any]) -> int:
    """How many of the games (records with ``moves_hash``) differ in their moves."""
    return int(len(np.unique(records["moves_hash"]))) if len(records) else 0
