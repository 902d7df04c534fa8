"""``fiverow engine``: a built-in player as a Gomocup brain on stdin / stdout.

:class:`EngineServer` holds the brain's state (board size, rule, limits, the
position) and answers one manager line at a time with :meth:`EngineServer.handle`,
which never raises: a line it cannot read or a position it cannot take is
answered ``ERROR <reason>`` (``UNKNOWN <reason>`` for a command the protocol
does not have) and the brain goes on. :func:`serve` runs it over streams.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from ... import players as players_mod
from ...env.vector import FiverowVectorEnv
from ...players import Player
from . import protocol as P
from . import timing
from .position import PositionPlayer, gomocup_config

#: Board sides fiverow plays (its plane geometry).
MIN_SIDE, MAX_SIDE = 5, 32


def _version() -> str:
    from ... import __version__

    return __version__


class EngineServer:
    """A Gomocup brain around a built-in player (a spec such as ``"pvs"``,
    the default, or ``"mcts:400"``, or a :class:`fiverow.players.Player`).
    ``seed`` seeds every move (see :class:`PositionPlayer`): the same seed,
    the same games."""

    def __init__(self, player: str | Player = "pvs", *, seed: int = 0) -> None:
        made = player if isinstance(player, Player) else players_mod.make(player)
        if not isinstance(made, Player):
            raise ValueError(
                f"fiverow engine plays a built-in player (random, heuristic, mcts:N, ...), "
                f"not {player!r}"
            )
        self.player = made
        self.seed = seed
        self.positions = PositionPlayer(self.player, seed)
        self.width: int | None = None
        self.height: int | None = None
        self.rule = 0
        self.time = timing.TimeControl()
        self.cells: npt.NDArray[np.uint8] = np.zeros((0, 0), dtype=np.uint8)
        self.block: P.Block | None = None
        self.ended = False
        self._ms_per_simulation: dict[tuple[int, int, int], float] = {}

    # ---- lines in, lines out ----

    def handle(self, line: str) -> list[str]:
        """The lines to answer to one manager line (often none)."""
        message, self.block = P.parse_line(line, self.block)
        if message is None:
            return []
        try:
            return self._answer(message)
        except ValueError as e:
            return [f"ERROR {_one_line(str(e))}"]
        except Exception as e:  # noqa: BLE001 - the brain keeps running whatever happens
            return [f"ERROR internal error ({type(e).__name__}: {_one_line(str(e))})"]

    def _answer(self, m: P.Message) -> list[str]:
        if isinstance(m, P.Malformed):
            return [f"ERROR {m.reason}"]
        if isinstance(m, P.Unknown):
            return [f"UNKNOWN {m.reason}"]
        if isinstance(m, P.Info):
            self._info(m.key, m.value)
            return []
        if isinstance(m, P.End):
            self.ended = True
            return []
        if isinstance(m, P.About):
            return [self.about()]
        if isinstance(m, P.Start):
            return self._start(m.width, m.height)
        if self.width is None:
            return [f"ERROR {type(m).__name__.upper()} before START: send START <size> first"]
        if isinstance(m, P.Restart):
            self._clear()
            return ["OK"]
        if isinstance(m, P.Begin):
            if self.cells.any():
                raise ValueError("BEGIN on a board with stones: send RESTART (or BOARD) instead")
            return self._move()
        if isinstance(m, P.Turn):
            self._place(m.x, m.y, self._to_move())
            return self._move()
        if isinstance(m, P.Play):
            self._place(m.x, m.y, self._to_move())
            return [P.format_point(m.x, m.y)]
        if isinstance(m, P.Takeback):
            cell = self._point(m.x, m.y)
            if self.cells.flat[cell] == 0:
                raise ValueError(f"TAKEBACK {m.x},{m.y}: there is no stone there")
            self.cells.flat[cell] = 0
            return ["OK"]
        if isinstance(m, P.Board):
            self._set_board(m.stones)
            return self._move()
        if isinstance(m, P.Swap2Board):
            return self._swap2(m.stones)
        raise AssertionError(f"unhandled message {m!r}")

    def about(self) -> str:
        """The ABOUT answer: name, version, author, the player and the seed."""
        return (
            f'name="fiverow", version="{_version()}", author="fiverow", '
            f'player="{self.player.name}", seed="{self.seed}"'
        )

    # ---- commands ----

    def _start(self, width: int, height: int) -> list[str]:
        if not (MIN_SIDE <= width <= MAX_SIDE and MIN_SIDE <= height <= MAX_SIDE):
            return [f"ERROR unsupported size {width}x{height}: sides {MIN_SIDE}..{MAX_SIDE}"]
        self.width, self.height = width, height
        self._clear()
        return ["OK"]

    def _clear(self) -> None:
        assert self.width is not None and self.height is not None
        self.cells = np.zeros((self.height, self.width), dtype=np.uint8)
        self.time.left_ms = None  # a new game: the manager's next time_left counts

    def _info(self, key: str, value: str) -> None:
        if key in ("timeout_turn", "timeout_match", "time_left", "max_memory", "game_type"):
            number = _integer(value, key)
            if key == "timeout_turn":
                self.time.turn_ms = max(number, 0)
            elif key == "timeout_match":
                self.time.match_ms = max(number, 0)
            elif key == "time_left":
                self.time.left_ms = float(number)  # may be negative: out of time
        elif key == "rule":
            bits = _integer(value, key)
            P.rule_params(bits)  # refuses what fiverow does not play
            self.rule = bits
        # evaluate, folder and keys this brain does not know are ignored (the protocol says so)

    def _point(self, x: int, y: int) -> int:
        assert self.width is not None and self.height is not None
        if not (x < self.width and y < self.height):
            raise ValueError(f"{x},{y} is off the {self.width}x{self.height} board")
        return y * self.width + x

    def _place(self, x: int, y: int, colour: int) -> None:
        cell = self._point(x, y)
        if self.cells.flat[cell]:
            raise ValueError(f"{x},{y} is occupied")
        self.cells.flat[cell] = colour + 1

    def _to_move(self) -> int:
        """The colour to move: black when both have as many stones, else white."""
        black, white = int((self.cells == 1).sum()), int((self.cells == 2).sum())
        if black == white:
            return 0
        if black == white + 1:
            return 1
        raise ValueError(f"impossible position: {black} black and {white} white stones")

    def _set_board(self, stones: tuple[tuple[int, int, int], ...]) -> None:
        assert self.width is not None and self.height is not None
        fields = [s[2] for s in stones]
        if any(f == P.FIELD_WINNING for f in fields):
            raise ValueError(
                "BOARD field 3 (continuous game: stones of a finished five) is not supported"
            )
        if any(f not in (P.FIELD_OWN, P.FIELD_OPPONENT) for f in fields):
            bad = next(f for f in fields if f not in (1, 2, 3))
            raise ValueError(f"BOARD field must be 1 (own) or 2 (opponent), got {bad}")
        own, theirs = fields.count(P.FIELD_OWN), fields.count(P.FIELD_OPPONENT)
        if own not in (theirs, theirs - 1):
            raise ValueError(
                f"impossible position: {own} own and {theirs} opponent stones with the brain "
                "to move (it has as many stones as the opponent, or one fewer)"
            )
        own_colour = 0 if own == theirs else 1
        cells = np.zeros((self.height, self.width), dtype=np.uint8)
        for x, y, field in stones:
            cell = self._point(x, y)
            if cells.flat[cell]:
                raise ValueError(f"BOARD lists {x},{y} twice")
            colour = own_colour if field == P.FIELD_OWN else 1 - own_colour
            cells.flat[cell] = colour + 1
        self.cells = cells

    # ---- thinking ----

    def _config(self, protocol: str = "free") -> Any:
        assert self.width is not None and self.height is not None
        return gomocup_config(self.width, self.height, self.rule, protocol)

    def _move(self) -> list[str]:
        """Choose a move on the position, play it, and answer it (after a MESSAGE
        saying how far the time limits cut an MCTS search)."""
        colour = self._to_move()
        config = self._config()
        start = time.perf_counter()
        notes: list[str] = []
        cell = self._think(
            lambda sims, ms=None: self.positions.move(config, self.cells, colour, sims, ms), notes
        )
        self.time.spent((time.perf_counter() - start) * 1000.0)
        self.cells.flat[cell] = colour + 1
        return [*(f"MESSAGE {n}" for n in notes), self._format_cell(cell)]

    def _think(self, search: Any, notes: list[str]) -> int:
        """``search(simulations, time_ms)`` run within the time limits (the
        rule: timing.py): pvs on a clock, MCTS by simulations."""
        player = self.player
        budget = self.time.budget_ms()
        if player.kind == "pvs" and budget is not None:
            return int(search(None, timing.pvs_ms(budget)))
        if player.kind not in ("mcts", "net") or not player.simulations or budget is None:
            return int(search(None))
        wanted = player.simulations
        assert wanted is not None  # Player.__post_init__ sets the kind's default
        start = time.perf_counter()
        target = timing.search_ms(budget)
        assert self.width is not None and self.height is not None
        key = (self.width, self.height, self.rule)
        slowest = self._ms_per_simulation.get(key)
        if slowest is not None and wanted * slowest <= target:
            cell = int(search(None))  # fits even at the slowest speed seen
            self._measured(key, start, wanted)
            return cell
        sims = min(timing.PROBE, wanted)
        while True:  # searches growing on this position, each sized by the last one's speed
            began = time.perf_counter()
            cell = int(search(sims))
            speed = _ms_since(began) / sims
            self._measured(key, began, sims)
            following = timing.next_search(sims, wanted, target - _ms_since(start), speed)
            if following is None:
                break
            sims = following
        if sims < wanted:
            notes.append(
                f"{sims} of {wanted} simulations for a {budget:.0f} ms budget "
                f"({speed:.2f} ms each, {_ms_since(start):.0f} ms in all)"
            )
        return cell

    def _measured(self, key: tuple[int, int, int], began: float, sims: int) -> None:
        """Keep the slowest speed seen; a search too short to time (an empty
        board, a forced win) says nothing about the next one."""
        ms = _ms_since(began)
        if ms >= timing.MIN_TIMED_MS:
            self._ms_per_simulation[key] = max(self._ms_per_simulation.get(key, 0.0), ms / sims)

    def _swap2(self, stones: tuple[tuple[int, int], ...]) -> list[str]:
        """The Swap2 opening decisions: with 0 stones, place three; with 3, swap,
        play the 4th stone or place two more; with 5, swap or play the 6th. The
        player decides on a swap2 board of the variant stepped to this point."""
        assert self.width is not None and self.height is not None
        if len(stones) not in (0, 3, 5):
            raise ValueError(f"SWAP2BOARD takes 0, 3 or 5 stones, got {len(stones)}")
        env = self.positions.env(self._config("swap2"))
        n = self.width * self.height
        take_black, place_two = n, n + 2
        for i, (x, y) in enumerate(stones):
            if i == 3:
                _step(env, place_two)  # the other side chose to place two more
            cell = self._point(x, y)
            if not env.action_masks()[0][cell]:
                raise ValueError(f"SWAP2BOARD lists {x},{y} twice")
            _step(env, cell)
        start = time.perf_counter()
        notes: list[str] = []

        def decide() -> int:
            return self._think(lambda sims, ms=None: self.positions.act(env, sims, ms), notes)

        placed: list[int] = []
        swap = False
        if not stones:
            stones_to_place = 3
        else:
            choice = decide()
            swap = choice == take_black
            _step(env, choice)
            stones_to_place = 0 if swap else 2 if choice == place_two else 1
        for _ in range(stones_to_place):
            placed.append(decide())
            _step(env, placed[-1])
        self.time.spent((time.perf_counter() - start) * 1000.0)
        self.cells = env.board(0)["cells"].copy()
        answer = "SWAP" if swap else " ".join(self._format_cell(c) for c in placed)
        return [*(f"MESSAGE {n}" for n in notes), answer]

    def _format_cell(self, cell: int) -> str:
        assert self.width is not None
        y, x = divmod(cell, self.width)
        return P.format_point(x, y)

    def close(self) -> None:
        """Close the boards the server plays on."""
        self.positions.close()


def _step(env: FiverowVectorEnv, action: int) -> None:
    env.step(np.array([action], dtype=np.int64))


def _ms_since(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def _integer(value: str, key: str) -> int:
    text = value.strip()
    sign = -1 if text.startswith("-") else 1
    digits = text[1:] if sign < 0 else text
    if not digits.isdigit() or not digits.isascii() or len(digits) > 12:
        raise ValueError(f"INFO {key} needs a whole number, got {value[:40]!r}")
    return sign * int(digits)


def _one_line(text: str) -> str:
    return " ".join(text.split())[:300]


def serve(
    player: str | Player = "pvs",
    *,
    seed: int = 0,
    stdin: IO[bytes] | None = None,
    stdout: IO[str] | None = None,
    log: IO[str] | None = None,
) -> int:
    """Run a brain until END or the end of input; ``log`` gets both sides of the
    session (``>`` the manager, ``<`` the brain)."""
    server = EngineServer(player, seed=seed)
    reader = stdin if stdin is not None else sys.stdin.buffer
    writer = stdout if stdout is not None else sys.stdout
    try:
        for raw in reader:
            line = raw.decode("utf-8", errors="replace")
            if log is not None:
                log.write(f"> {line.rstrip()}\n")
            replies = server.handle(line)
            for reply in replies:
                writer.write(reply + "\n")
                if log is not None:
                    log.write(f"< {reply}\n")
            writer.flush()
            if log is not None:
                log.flush()
            if server.ended:
                break
    finally:
        server.close()
    return 0
