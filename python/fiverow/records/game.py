"""The game a record holds: :class:`Game`, and the errors of reading one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

#: What a record can say about how its game ended.
RESULTS = ("black", "white", "draw", "truncated", "?")


class RecordError(ValueError):
    """A record that cannot be read or written; the message names the file
    and what is wrong with it, on one line."""


@dataclass(frozen=True)
class Game:
    """One game of five-in-a-row, as a record file holds it.

    ``moves`` are fiverow actions: a cell is ``row * width + col`` with row 0
    at the top (what ``env.action_name`` names ``h8``), and the special
    actions of an opening protocol (``TAKE_BLACK``, ...) come after the cells,
    as in the variant's action space. ``variant`` is the preset it was played
    under (None when the record does not say: a ``.psq`` from a Gomocup
    tournament), ``params`` the variant parameters that differ from the
    preset's, the board's size aside. ``players`` are black's and white's
    names (the colours they held at the end). ``result`` is ``"black"``,
    ``"white"``, ``"draw"``, ``"truncated"`` (stopped at the move limit) or
    ``"?"`` (not recorded, or unfinished); ``forfeit``, when the loser lost by
    failing (a crash, a timeout), says why. ``times`` are the milliseconds
    each move took, where the record keeps them.
    """

    variant: str | None
    height: int
    width: int
    moves: tuple[int, ...]
    players: tuple[str, str] = ("", "")
    result: str = "?"
    forfeit: str | None = None
    params: Mapping[str, int | str] = field(default_factory=dict, hash=False)
    times: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        for side in ("height", "width"):
            value = getattr(self, side)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 52:
                raise ValueError(f"Game.{side} must be an integer 1..52, got {value!r}")
        object.__setattr__(self, "moves", tuple(int(m) for m in self.moves))
        object.__setattr__(self, "times", tuple(int(t) for t in self.times))
        object.__setattr__(self, "players", tuple(str(p) for p in self.players))
        object.__setattr__(self, "params", dict(self.params))
        if any(m < 0 for m in self.moves):
            raise ValueError("Game.moves are actions, 0 or more")
        if len(self.players) != 2:
            raise ValueError(f"Game.players names black and white, got {self.players!r}")
        if self.result not in RESULTS:
            raise ValueError(
                f"Game.result must be one of {', '.join(RESULTS)}; got {self.result!r}"
            )
        if self.forfeit is not None and self.result not in ("black", "white"):
            raise ValueError("a forfeited game has a winner: result 'black' or 'white'")
        if self.times and len(self.times) != len(self.moves):
            raise ValueError(
                f"Game.times has {len(self.times)} entries for {len(self.moves)} moves"
            )

    @property
    def n_cells(self) -> int:
        """Cells of the board's raster (``height * width``)."""
        return self.height * self.width
