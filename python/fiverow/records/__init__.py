"""Game records: Gomocup's ``.psq`` (Piskvork) and SGF (``FF[4]GM[4]``).

>>> from fiverow import records
>>> game = records.read("game.psq")  # doctest: +SKIP
>>> game.moves, game.players, game.result  # doctest: +SKIP
>>> records.write("game.sgf", game)  # doctest: +SKIP

:class:`Game` is what a record holds: the variant, the board's size, the
moves (fiverow actions), the players and the result. A record's format is
its file's suffix, ``.psq`` or ``.sgf``. :func:`export_dataset` writes a
dataset's episodes as records and :func:`import_records` makes a dataset of
records, each game replayed in the C engine (``fiverow export`` / ``fiverow
import``); :func:`replay` checks one game against the rules.
"""

from __future__ import annotations

from pathlib import Path

from . import psq, sgf
from .game import RESULTS, Game, RecordError
from .replay import Replay, config_of, env_of, preset_of, replay

#: The record formats, by file suffix.
FORMATS = ("psq", "sgf")


def format_of(path: str | Path, format: str | None = None) -> str:
    """The format of a record file: ``format`` when given, else its suffix."""
    name = (format or Path(path).suffix.lstrip(".")).lower()
    if name not in FORMATS:
        given = f"format {format!r}" if format else f"suffix '{Path(path).suffix}'"
        raise RecordError(
            f"'{path}': unknown record format ({given}): records are .psq (Gomocup, "
            "Piskvork) or .sgf (FF[4]GM[4])"
        )
    return name


def _parse_step(game: Game, name: str) -> int:
    """An SGF protocol step's name as its action under the game's variant."""
    env = env_of(config_of(game))
    try:
        return env.parse_action(name)
    except ValueError as e:
        raise RecordError(f"protocol step {name!r}: {e}") from None


def read_all(path: str | Path, *, format: str | None = None) -> list[Game]:
    """Every game of a record file (an SGF collection may hold several).
    ``RecordError`` names the file and what is wrong, on one line."""
    kind = format_of(path, format)
    try:
        text = Path(path).read_text(encoding="utf-8-sig", errors="replace")
    except OSError as e:
        raise RecordError(f"'{path}': cannot read it: {e.strerror or e}") from None
    try:
        return [psq.parse(text)] if kind == "psq" else sgf.parse(text, _parse_step)
    except (RecordError, ValueError) as e:
        raise RecordError(f"'{path}': {e}") from None


def read(path: str | Path, *, format: str | None = None) -> Game:
    """The game of a record file (``.psq`` or ``.sgf``, or ``format``)."""
    games = read_all(path, format=format)
    if len(games) != 1:
        raise RecordError(f"'{path}' holds {len(games)} games: read them with read_all()")
    return games[0]


def dumps(game: Game, format: str) -> str:
    """A game as the text of a record in ``format`` (``"psq"`` or ``"sgf"``)."""
    kind = format_of(f"game.{format}")
    if kind == "psq":
        return psq.format_game(game)
    if not any(m >= game.n_cells for m in game.moves):  # stones only
        return sgf.format_game(game, [True] * len(game.moves), str)
    # an opening protocol's steps: the engine says which placed a stone, and names them
    config = config_of(game)
    return sgf.format_game(game, replay(game, config).stones, env_of(config).action_name)


def write(path: str | Path, game: Game, *, format: str | None = None) -> Path:
    """Write a game as a record file, in the format of its suffix (or
    ``format``); returns the path."""
    kind = format_of(path, format)
    try:
        text = dumps(game, kind)
    except RecordError as e:
        raise RecordError(f"'{path}': {e}") from None
    target = Path(path)
    target.write_text(text, encoding="utf-8")
    return target


from .dataset import ImportResult, check_recordable, export_dataset, import_records  # noqa: E402

__all__ = [
    "FORMATS",
    "RESULTS",
    "Game",
    "ImportResult",
    "RecordError",
    "Replay",
    "check_recordable",
    "config_of",
    "dumps",
    "export_dataset",
    "format_of",
    "import_records",
    "preset_of",
    "read",
    "read_all",
    "replay",
    "write",
]
