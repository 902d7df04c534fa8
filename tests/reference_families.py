"""Slow, obviously-correct references for Connect6 and Pente (SPEC section 10),
written from the rules and walking the geometry's next-cell table (as
tests/reference.py does for the line rules), for move-by-move alignment tests
against the C engine."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from reference import NONE, Table, run_through

EMPTY, BLACK, WHITE = 0, 1, 2


def makes_line(nxt: Table, cells: list[int], p: int, stone: int, connect: int) -> bool:
    """Does the stone at p stand in a run of `connect` or more (overlines win)?"""
    n_axes = len(nxt[0]) // 2
    return any(run_through(nxt, cells, p, axis, stone)[0] >= connect for axis in range(n_axes))


@dataclass
class Connect6:
    """Black's first turn: first_turn_stones; then stones_per_turn a turn."""

    nxt: Table
    on_board: list[bool]
    connect: int = 6
    stones_per_turn: int = 2
    first_turn_stones: int = 1
    cells: list[int] = field(default_factory=list)
    colour: int = 0  # 0 black, 1 white: the colour to place
    placed: int = 0  # stones of the turn in progress
    turns: int = 0  # turns completed
    winner: int = -1
    over: bool = False

    def __post_init__(self) -> None:
        self.cells = [EMPTY] * len(self.nxt)

    def legal(self) -> set[int]:
        if self.over:
            return set()
        return {c for c, x in enumerate(self.cells) if x == EMPTY and self.on_board[c]}

    def later_stone(self) -> bool:
        return self.placed > 0

    def play(self, cell: int) -> None:
        assert cell in self.legal()
        stone = self.colour + 1
        self.cells[cell] = stone
        if makes_line(self.nxt, self.cells, cell, stone, self.connect):
            self.winner, self.over = self.colour, True
        self.placed += 1
        quota = self.first_turn_stones if self.turns == 0 else self.stones_per_turn
        if self.placed == quota:
            self.placed, self.turns, self.colour = 0, self.turns + 1, 1 - self.colour
        if not self.over and not self.legal():
            self.over = True  # a full board: drawn


@dataclass
class Pente:
    """Captures of exactly L flanked stones for L in capture_lengths; five in
    a row or capture_win captured stones win; the tournament opening."""

    nxt: Table
    on_board: list[bool]
    centre: int
    connect: int = 5
    capture_lengths: tuple[int, ...] = (2,)
    capture_win: int = 10
    tournament: bool = True
    cells: list[int] = field(default_factory=list)
    colour: int = 0
    captures: list[int] = field(default_factory=lambda: [0, 0])
    winner: int = -1
    over: bool = False
    distance: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.cells = [EMPTY] * len(self.nxt)
        # steps from the centre along the lines: the Chebyshev distance on a square
        self.distance = [-1] * len(self.nxt)
        self.distance[self.centre] = 0
        todo = deque([self.centre])
        while todo:
            c = todo.popleft()
            for x, _ in self.nxt[c]:
                if x != NONE and self.on_board[x] and self.distance[x] < 0:
                    self.distance[x] = self.distance[c] + 1
                    todo.append(x)

    def stones(self) -> int:
        return sum(x != EMPTY for x in self.cells)

    def legal(self) -> set[int]:
        if self.over:
            return set()
        if self.tournament and self.stones() == 0:
            return {self.centre}
        empty = {c for c, x in enumerate(self.cells) if x == EMPTY and self.on_board[c]}
        if self.tournament and self.stones() == 2 and self.colour == 0:
            return {c for c in empty if self.distance[c] >= 3}
        return empty

    def captured_by(self, cell: int, stone: int) -> list[int]:
        taken: list[int] = []
        for od in range(len(self.nxt[cell])):
            run: list[int] = []
            c, d = cell, od
            while True:
                c, d = self.nxt[c][d]
                if c == NONE or c == cell or self.cells[c] != 3 - stone:
                    break
                run.append(c)
            flanked = c != NONE and c != cell and self.cells[c] == stone
            if flanked and len(run) in self.capture_lengths:
                taken += run
        return taken

    def play(self, cell: int) -> None:
        assert cell in self.legal()
        stone = self.colour + 1
        self.cells[cell] = stone
        for c in self.captured_by(cell, stone):
            if self.cells[c] != EMPTY:  # a wrapping line may reach a stone twice
                self.cells[c] = EMPTY
                self.captures[self.colour] += 1
        if (
            makes_line(self.nxt, self.cells, cell, stone, self.connect)
            or self.captures[self.colour] >= self.capture_win
        ):
            self.winner, self.over = self.colour, True
        self.colour = 1 - self.colour
        if not self.over and not self.legal():
            self.over = True
