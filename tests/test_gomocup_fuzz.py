"""The Gomocup protocol parser and `fiverow engine` under hypothesis: any line,
any sequence of lines, and each answer is one line, never a parser crash
(the parser and the server catch everything and would report one as
"cannot read the line" / "internal error": those are bugs here); well-formed
commands read back as what was written; a brain's move is on the board and
empty."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fiverow.adapters.gomocup import protocol as P
from fiverow.adapters.gomocup.server import EngineServer

COMMANDS = [
    "START",
    "RECTSTART",
    "RESTART",
    "BEGIN",
    "TURN",
    "PLAY",
    "TAKEBACK",
    "BOARD",
    "SWAP2BOARD",
    "DONE",
    "INFO",
    "END",
    "ABOUT",
]
INFO_KEYS = ["timeout_turn", "timeout_match", "time_left", "max_memory", "game_type", "rule"]
number = st.one_of(
    st.integers(0, 40), st.integers(-5, 10**12).map(str), st.text("0123456789-", max_size=12)
)
junk = st.text(max_size=30)


@st.composite
def lines(draw) -> str:
    """A line a manager might send: mostly commands with plausible or odd
    arguments, sometimes anything."""
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(junk)
    word = draw(st.sampled_from(COMMANDS))
    if draw(st.booleans()):
        word = word.lower()
    args = draw(
        st.one_of(
            st.just(""),
            st.tuples(number, number).map(lambda t: f"{t[0]},{t[1]}"),
            st.tuples(number, number, number).map(lambda t: f"{t[0]},{t[1]},{t[2]}"),
            st.tuples(st.sampled_from(INFO_KEYS), number).map(lambda t: f"{t[0]} {t[1]}"),
            number.map(str),
            junk,
        )
    )
    return f"{word} {args}".rstrip() if args else word


stones = st.tuples(st.integers(0, 40), st.integers(0, 40), st.integers(0, 4)).map(
    lambda t: f"{t[0]},{t[1]},{t[2]}"
)


@given(line=st.text(max_size=200), inside=st.sampled_from([None, "BOARD", "SWAP2BOARD"]))
def test_the_parser_reads_any_line_without_a_crash(line, inside):
    block = P.Block(inside) if inside else None
    message, after = P._parse_line(line, block)  # the unguarded parser: no exception
    assert message is None or isinstance(message, (*P.Command.__args__, P.Malformed, P.Unknown))
    for reason in (getattr(message, "reason", ""),):
        assert "\n" not in reason and "\r" not in reason
    assert after is None or isinstance(after, P.Block)
    answer = P.parse_answer(line)
    assert answer.error is None or "\n" not in answer.error
    assert answer.error is not None or 1 <= len(answer.moves) <= 3 or answer.swap


@given(x=st.integers(0, 10**9 - 1), y=st.integers(0, 10**9 - 1))
def test_well_formed_commands_read_back(x, y):
    for word, cls in (("TURN", P.Turn), ("PLAY", P.Play), ("TAKEBACK", P.Takeback)):
        assert P.parse_line(f"{word} {x},{y}")[0] == cls(x, y)
        assert P.parse_line(f"  {word.lower()}   {x} , {y} ")[0] == cls(x, y)
    assert P.parse_line(f"START {x}")[0] == P.Start(x, x)
    assert P.parse_line(f"RECTSTART {x},{y}")[0] == P.Start(x, y)
    assert P.parse_answer(P.format_point(x, y)) == P.Answer(moves=((x, y),))


@given(block=st.lists(stones, max_size=12))
def test_a_board_block_reads_back_its_stones(block):
    state: P.Block | None = None
    message, state = P.parse_line("BOARD", state)
    for line in block:
        message, state = P.parse_line(line, state)
        assert message is None
    message, state = P.parse_line("DONE", state)
    assert state is None
    assert message == P.Board(tuple(tuple(int(v) for v in s.split(",")) for s in block))


@given(script=st.lists(lines(), max_size=25), seed=st.integers(0, 100))
def test_the_engine_answers_any_sequence_of_lines(script, seed):
    server = EngineServer("random", seed=seed)
    try:
        for line in script:
            for out in server.handle(line):
                assert "\n" not in out and "\r" not in out
                assert "internal error" not in out, (line, out)
                assert "cannot read the line" not in out, (line, out)
                if "," in out and out[0].isdigit():  # a move: on the board, on an empty cell
                    x, y = (int(v) for v in out.split(","))
                    assert server.width is not None and server.height is not None
                    assert 0 <= x < server.width and 0 <= y < server.height
            if server.ended:
                break
    finally:
        server.close()


@given(
    size=st.integers(5, 20),
    moves=st.lists(st.tuples(st.integers(0, 19), st.integers(0, 19)), max_size=30),
)
def test_the_engine_plays_on_empty_cells(size, moves):
    server = EngineServer("random", seed=size)
    try:
        assert server.handle(f"START {size}") == ["OK"]
        occupied: set[tuple[int, int]] = set()
        for x, y in moves:
            if (x, y) in occupied or x >= size or y >= size:
                continue
            out = server.handle(f"TURN {x},{y}")
            occupied.add((x, y))
            if not out or not out[-1][0].isdigit():
                break  # the game ended (a five) or the board is full
            bx, by = (int(v) for v in out[-1].split(","))
            assert (bx, by) not in occupied and 0 <= bx < size and 0 <= by < size
            occupied.add((bx, by))
        assert np.count_nonzero(server.cells) <= len(occupied)
    finally:
        server.close()
