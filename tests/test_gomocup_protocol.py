"""The Gomocup protocol parser: every command, every way a line can be wrong,
and never an exception whatever the line (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fiverow.engines import protocol as P


def parse_all(lines):
    """Messages of a sequence of lines (the block carried from one to the next)."""
    block, out = None, []
    for line in lines:
        message, block = P.parse_line(line, block)
        if message is not None:
            out.append(message)
    return out, block


@pytest.mark.parametrize(
    "line,expected",
    [
        ("START 15", P.Start(15, 15)),
        ("start 20\r\n", P.Start(20, 20)),
        ("RECTSTART 20,15", P.Start(20, 15)),
        ("RECTSTART 20, 15", P.Start(20, 15)),
        ("RESTART", P.Restart()),
        ("BEGIN", P.Begin()),
        ("TURN 10,11", P.Turn(10, 11)),
        ("PLAY 0,0", P.Play(0, 0)),
        ("TAKEBACK 3,4", P.Takeback(3, 4)),
        ("INFO timeout_turn 5000", P.Info("timeout_turn", "5000")),
        ("INFO Rule 4", P.Info("rule", "4")),
        ("INFO folder C:\\temp dir", P.Info("folder", "C:\\temp dir")),
        ("END", P.End()),
        ("END now", P.End()),
        ("ABOUT", P.About()),
    ],
)
def test_commands(line, expected):
    assert P.parse_line(line) == (expected, None)


@pytest.mark.parametrize(
    "line,reason",
    [
        ("START", "START needs the board size"),
        ("START -5", "START needs the board size"),
        ("START 1e3", "START needs the board size"),
        ("RECTSTART 20", "RECTSTART needs width,height"),
        ("TURN 10", "TURN needs x,y"),
        ("TURN 10,-1", "TURN needs x,y"),
        ("TURN a,b", "TURN needs x,y"),
        ("TURN 1,2,3", "TURN needs x,y"),
        ("TURN 9999999999,1", "TURN needs x,y"),
        ("BEGIN 7,7", "BEGIN takes no argument"),
        ("BOARD 1", "BOARD takes no argument"),
        ("INFO", "INFO needs a key"),
        ("DONE", "DONE without BOARD"),
        ("x" * (P.MAX_LINE + 1), "line longer than"),
    ],
)
def test_malformed_lines_say_why(line, reason):
    message, block = P.parse_line(line)
    assert isinstance(message, P.Malformed) and reason in message.reason
    assert block is None


def test_unknown_commands_and_stray_coordinates():
    for line in ("HELLO", "7,7", "SUGGEST 1,1"):
        message, _ = P.parse_line(line)
        assert isinstance(message, P.Unknown)
    assert P.parse_line("   ") == (None, None)


def test_board_block():
    messages, block = parse_all(["BOARD", "7,7,1", " 8,8,2 ", "", "9,9,1", "DONE"])
    assert messages == [P.Board(((7, 7, 1), (8, 8, 2), (9, 9, 1)))] and block is None
    messages, _ = parse_all(["SWAP2BOARD", "DONE"])
    assert messages == [P.Swap2Board(())]
    messages, _ = parse_all(["swap2board", "7,7", "8,7", "9,9", "done"])
    assert messages == [P.Swap2Board(((7, 7), (8, 7), (9, 9)))]


def test_a_bad_line_in_a_block_is_reported_once_at_done():
    messages, block = parse_all(["BOARD", "7,7,1", "7,7", "garbage", "8,8,2", "DONE", "BEGIN"])
    assert len(messages) == 2 and block is None
    assert isinstance(messages[0], P.Malformed) and "'7,7'" in messages[0].reason
    assert messages[1] == P.Begin()  # the brain reads on after the block
    for bad in ("7,7,3", "7,7,1,1", "7"):
        messages, _ = parse_all(["SWAP2BOARD", bad, "DONE"])
        assert isinstance(messages[0], P.Malformed) and "x,y" in messages[0].reason


def test_swap2_stones_are_read_in_either_form():
    """x,y (the 2020 announcement) and x,y,field (as BOARD; Rapfi), mixed even."""
    for lines in (["7,7", "8,7", "9,9"], ["7,7,2", "8,7,1", "9,9,2"], ["7,7", "8,7,1", "9,9"]):
        messages, _ = parse_all(["SWAP2BOARD", *lines, "DONE"])
        assert messages == [P.Swap2Board(((7, 7), (8, 7), (9, 9)))]


def test_end_inside_a_block_ends():
    messages, block = parse_all(["BOARD", "7,7,1", "END"])
    assert messages == [P.End()] and block is None


def test_too_many_stones():
    lines = ["BOARD"] + [f"{i % 40},{i // 40},1" for i in range(P.MAX_STONES + 5)] + ["DONE"]
    messages, _ = parse_all(lines)
    assert isinstance(messages[0], P.Malformed) and "more than" in messages[0].reason


def test_non_text_is_malformed():
    message, _ = P.parse_line(b"START 15")  # type: ignore[arg-type]
    assert isinstance(message, P.Malformed)


@pytest.mark.parametrize(
    "line,answer",
    [
        ("7,7", P.Answer(moves=((7, 7),))),
        (" 7, 8 \r", P.Answer(moves=((7, 8),))),
        ("7,7 8,7 9,9", P.Answer(moves=((7, 7), (8, 7), (9, 9)))),
        ("SWAP", P.Answer(swap=True)),
        ("SUGGEST 3,4", P.Answer(moves=((3, 4),))),
    ],
)
def test_answers(line, answer):
    assert P.parse_answer(line) == answer


@pytest.mark.parametrize("line", ["", "7", "seven,7", "1,2 3,4 5,6 7,8", "SWAP 1", "-1,2"])
def test_bad_answers(line):
    answer = P.parse_answer(line)
    assert answer.error and not answer.moves and not answer.swap


def test_error_answers_keep_the_brains_words():
    assert P.parse_answer("ERROR unsupported size").error == "ERROR unsupported size"
    assert P.parse_answer("UNKNOWN what").error == "UNKNOWN what"
    assert P.is_chatter("MESSAGE thinking") and P.is_chatter("DEBUG x") and P.is_chatter("")
    assert not P.is_chatter("7,7")


@pytest.mark.parametrize(
    "bits,params",
    [
        (0, {"rule": "freestyle"}),
        (1, {"rule": "standard"}),
        (2, {"rule": "freestyle"}),
        (4, {"rule": "renju"}),
        (5, {"rule": "renju"}),
        (8, {"rule": "caro", "caro_ends": "gomocup6"}),
        (9, {"rule": "caro", "caro_ends": "gomocup"}),
    ],
)
def test_rules(bits, params):
    assert P.rule_params(bits) == params
    assert P.rule_params(P.rule_bits(params["rule"], params.get("caro_ends", "gomocup"))) == params


def test_rules_refused():
    for bits in (-1, 12, 16):
        with pytest.raises(ValueError, match="INFO rule"):
            P.rule_params(bits)
    with pytest.raises(ValueError, match="caro_ends='open'"):
        P.rule_bits("caro", "open")
    with pytest.raises(ValueError, match="no Gomocup INFO rule"):
        P.rule_bits("gomorpion")


LINES = st.one_of(
    st.text(max_size=60),
    st.builds(
        lambda w, rest: f"{w} {rest}",
        st.sampled_from(
            ["START", "RECTSTART", "TURN", "BOARD", "DONE", "INFO", "TAKEBACK", "SWAP2BOARD"]
        ),
        st.text(alphabet="0123456789,- x\t", max_size=20),
    ),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(LINES, max_size=12))
def test_parser_never_raises(lines):
    block = None
    for line in lines:
        message, block = P.parse_line(line, block)
        assert message is None or isinstance(
            message,
            (
                P.Malformed,
                P.Unknown,
                P.Start,
                P.Restart,
                P.Begin,
                P.Turn,
                P.Play,
                P.Takeback,
                P.Board,
                P.Swap2Board,
                P.Info,
                P.End,
                P.About,
            ),
        )
        assert block is None or isinstance(block, P.Block)
        answer = P.parse_answer(line)
        assert isinstance(answer, P.Answer)
