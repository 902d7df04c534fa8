"""``fiverow play``: a game in the terminal against a built-in player or a
Gomocup engine.

Moves are typed as the board and the viewer name them (``h8``; Gomorpion's
columns ``a..z A..D``, where ``a5`` and ``A5`` differ; hexagonal cells by
address, ``E4``; MODLINSEQ tiles as ``7E4``; special actions by name, e.g.
``TAKE_BLACK``), plus ``undo`` (back to before your last move), ``hint`` (the
heuristic's move), ``moves`` (the legal moves), ``help`` and ``quit``. An
illegal move is explained (``forbidden: double-three``, ``occupied``, ``off
the board``, ...) and asked again. ``--save game.psq`` (or ``.sgf``) writes
the game as a record when it ends (:mod:`fiverow.records`).
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path
from typing import IO, Any

import numpy as np

from .. import players as players_mod
from .. import render as _render
from ..env.vector import FiverowVectorEnv, make_vec, protocol_status
from ..render.svg import forbidden_cells
from ..rules.config import cell_values, traits_of
from ..rules.notation import OffBoardError, example_name
from ..runs.agent_match import check_players

#: The name a record gives the person at the terminal.
HUMAN = "human"
#: ``board["status"]`` of a game stopped at the move limit (csrc/variant.h).
STATUS_TRUNCATED = 2


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("play", help="play a game in the terminal against a player or an engine")
    p.add_argument("--variant", default="freestyle", help="preset (default: freestyle)")
    p.add_argument(
        "--opponent",
        default="heuristic",
        help="built-in player spec (random, heuristic, mcts:N, net:freestyle, ...) "
        "or gomocup:COMMAND",
    )
    p.add_argument(
        "--seat",
        choices=["black", "white"],
        default="black",
        help="the seat you take: the one that starts with black (default) or with white",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--param", action="append", default=[], metavar="KEY=VALUE", help="variant parameter"
    )
    p.add_argument(
        "--save",
        default=None,
        metavar="FILE",
        help="write the game as a record when it ends: FILE.psq (Gomocup) or FILE.sgf",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from . import parse_params

    return play(
        args.variant,
        args.opponent,
        seat=args.seat,
        seed=args.seed,
        params=parse_params(args.param),
        save=args.save,
    )


def make_opponent(spec: Any) -> Any:
    """A player from a spec: a built-in player, or ``gomocup:COMMAND`` (an engine)."""
    from ..adapters.gomocup import from_spec, is_spec

    return from_spec(spec) if is_spec(spec) else players_mod.make(spec)


class TerminalGame:
    """One game between a person (on ``stdin`` / ``stdout``) and a player."""

    def __init__(
        self,
        env: FiverowVectorEnv,
        opponent: Any,
        seat: int,
        stdin: IO[str],
        stdout: IO[str],
    ) -> None:
        self.env = env
        self.opponent = opponent
        self.seat = seat
        self.stdin, self.stdout = stdin, stdout
        self.hinter = players_mod.make("heuristic")
        self.undo_stack: list[tuple[bytes, int]] = []  # state and moves before each of yours
        self.moves: list[int] = []  # the game so far, for its record
        self.forfeit: str | None = None  # why the opponent lost, when it failed
        self.opponent_name = str(getattr(opponent, "name", None) or type(opponent).__name__)
        config = env.config
        self.modlinseq = "tiles" in traits_of(config)
        self.per_cell = cell_values(config)
        self.example = example_name(config["geometry"], self.per_cell if self.modlinseq else 0)
        self.commands = f"commands: a move (e.g. {self.example}), undo, hint, moves, help, quit"

    def say(self, text: str = "", end: str = "\n") -> None:
        self.stdout.write(text + end)
        self.stdout.flush()

    def colour_of(self, seat: int) -> str:
        black_seat = int(self.env.board(0)["black_seat"])
        return "black" if seat == black_seat else "white"

    def who(self, seat: int) -> str:
        return "you" if seat == self.seat else self.opponent_name

    def run(self) -> int:
        self.say(f"you: seat {self.seat}; opponent: {self.opponent_name}. {self.commands}")
        while True:
            board = self.env.board(0)
            if board["status"] != 0:
                self.say(self.board_text(), end="")
                self.say(self.result(board))
                return 0
            if int(board["seat"]) == self.seat:
                self.say(self.board_text(), end="")  # once a turn: before yours
                if not self.human_turn():
                    self.say("bye")
                    return 0
            else:
                action = int(np.asarray(self.opponent.act(self.env))[0])
                forfeits: dict[int, str] = getattr(self.opponent, "take_forfeits", dict)()
                if forfeits:  # an engine that crashed, hung or cheated
                    self.forfeit = forfeits[0]
                    who = f"{self.colour_of(1 - self.seat)} ({self.opponent_name})"
                    self.say(f"the game is over: {who} forfeits ({forfeits[0]}); you win")
                    return 0
                name = self.env.action_name(action)
                self.say(f"{self.colour_of(1 - self.seat)} ({self.opponent_name}) plays {name}")
                self.step(action)

    def step(self, action: int) -> None:
        self.env.step(np.array([action], dtype=np.int64))
        self.moves.append(action)

    def board_text(self) -> str:
        """The board as the person types moves on it: coordinates (hexagonal
        cells by address), renju's forbidden points marked, and a legend."""
        env, board = self.env, self.env.board(0)
        config = env.config
        geometry, traits = config["geometry"], traits_of(config)
        if "tiles" in traits:  # tiles, addresses, hands
            return f"{env.render_env(0, 'ansi')}you are seat {self.seat}\n"
        if "statuses" in traits:  # statuses and sieges, with their legend
            text = str(env.render_env(0, "ansi"))
        elif geometry in ("hex", "tess"):
            text = _render.hex_ansi(board["cells"], board["last_move"], addresses=True)
        else:
            height, width = np.asarray(board["cells"]).shape
            forbidden = forbidden_cells(board, config)
            text = _render.ansi(
                board["cells"],
                board["last_move"],
                geometry,
                np.frombuffer(board["offered"], dtype=np.uint8).reshape(height, width),
                forbidden=forbidden,
            )
            if forbidden:
                kinds = ", ".join(sorted(set(forbidden.values())))
                text += f"{_render.FORBIDDEN_CHAR} forbidden for black ({kinds})\n"
            if len(env._group.phases) > 1:
                text += protocol_status(board, env._group.special_actions) + "\n"
        black = int(board["black_seat"])
        legend = f"X black ({self.who(black)}), O white ({self.who(1 - black)})"
        if int(board["last_move"]) >= 0:
            legend += "; the last move in ( )"
        if geometry in ("hex", "tess"):
            legend += "; an empty cell shows its address (A0 the centre)"
        return text + legend + "\n"

    def result(self, board: dict[str, Any]) -> str:
        winner = int(board["winner"])
        if winner < 0:
            return "the game is over: a draw"
        who = "you" if winner == self.seat else self.opponent_name
        return f"the game is over: {self.colour_of(winner)} ({who}) wins"

    def specials_now(self) -> list[str]:
        """The special actions legal now (swaps, declarations, passes)."""
        mask = self.env.action_masks()[0]
        first = self.env._group.n_cells * self.per_cell
        return [self.env.action_name(int(a)) for a in np.flatnonzero(mask[first:]) + first]

    def prompt(self) -> str:
        specials = self.specials_now()
        extra = f" [{', '.join(specials)}]" if specials else ""
        if self.modlinseq:  # hundreds of tiles are legal: say how to type one
            hands = np.frombuffer(self.env.board(0)["hands"], dtype=np.uint8).reshape(2, -1)
            hand = " ".join(str(v) for v, k in enumerate(hands[self.seat]) for _ in range(k))
            return (
                f"your move (seat {self.seat}, hand {hand}; a tile as value and address, "
                f"e.g. {self.example}; 'moves' lists the legal ones){extra}> "
            )
        return f"your move ({self.colour_of(self.seat)}){extra}> "

    def legal_moves(self) -> str:
        names = [self.env.action_name(a) for a in self.env.legal_actions(0)]
        return textwrap.fill(f"legal moves ({len(names)}): " + " ".join(names), width=78)

    def human_turn(self) -> bool:
        """Read until a legal move is played (True) or the person quits (False)."""
        while True:
            self.say(self.prompt(), end="")
            line = self.stdin.readline()
            if not line:
                return False
            text = line.strip()
            command = text.lower()
            if not text:
                continue
            if command in ("quit", "q", "exit"):
                return False
            if command in ("help", "?"):
                self.say(self.commands)
                continue
            if command == "moves":
                self.say(self.legal_moves())
                continue
            if command == "hint":
                hint = int(self.hinter.act(self.env)[0])
                self.say(f"hint: {self.env.action_name(hint)}")
                continue
            if command == "undo":
                if not self.undo_stack:
                    self.say("nothing to undo")
                    continue
                state, played = self.undo_stack.pop()
                self.env.set_state(0, state)
                del self.moves[played:]
                return True
            try:
                action = self.env.parse_action(text)
            except OffBoardError as e:
                self.say(f"{e}; try again")
                continue
            except ValueError as e:
                self.say(f"'{text}' is not a move here: {e}; type help for the commands")
                continue
            reason = self.illegal(action)
            if reason:
                self.say(f"{self.env.action_name(action)}: {reason}; try again")
                continue
            self.undo_stack.append((self.env.get_state(0), len(self.moves)))
            self.step(action)
            return True

    def illegal(self, action: int) -> str | None:
        """Why an action cannot be played now, in the rules' words (None: it can)."""
        reason = self.env.illegal_reason(0, action)
        if reason is not None and reason.startswith("forbidden for black ("):
            return "forbidden: " + reason[len("forbidden for black (") :].rstrip(")")
        return reason

    def record(self) -> Any:
        """The game so far as a :class:`fiverow.records.Game`."""
        from ..records import Game, preset_of

        board = self.env.board(0)
        black = int(board["black_seat"])
        names = (self.who(black), self.who(1 - black))
        players = tuple(HUMAN if name == "you" else name for name in names)
        height, width = np.asarray(board["cells"]).shape
        variant, params = preset_of(self.env.config)
        forfeit, result = self.forfeit, "?"
        if forfeit is not None:
            result = self.colour_of(self.seat)
        elif board["status"] != 0:
            winner = int(board["winner"])
            truncated = board["status"] == STATUS_TRUNCATED
            result = "truncated" if truncated else "draw" if winner < 0 else self.colour_of(winner)
        return Game(
            variant,
            height,
            width,
            tuple(self.moves),
            (players[0], players[1]),
            result,
            forfeit,
            params,
        )


def play(
    variant: str,
    opponent: Any = "heuristic",
    *,
    seat: str = "black",
    seed: int = 0,
    params: dict[str, Any] | None = None,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
    save: str | Path | None = None,
) -> int:
    """Play a game in the terminal; ``save``: write it as a record (``.psq``
    or ``.sgf``) when it ends, however it ends (checked before it starts)."""
    if seat not in ("black", "white"):
        raise ValueError(f"seat must be 'black' or 'white', got {seat!r}")
    env = make_vec(variant, 1, seed=seed, autoreset_mode="disabled", **(params or {}))
    env.reset()
    if save is not None:
        _check_save(save, env)
    player = make_opponent(opponent)
    try:  # an engine that cannot play this game says so before the first move
        check_players(env, player)
    except BaseException:
        close = getattr(player, "close", None)
        if callable(close):
            close()
        env.close()
        raise
    game = TerminalGame(
        env,
        player,
        0 if seat == "black" else 1,
        stdin or sys.stdin,
        stdout or sys.stdout,
    )
    try:
        return game.run()
    except KeyboardInterrupt:
        game.say("\nbye")
        return 130
    finally:
        close = getattr(player, "close", None)
        if callable(close):
            close()
        if save is not None and game.moves:
            from ..records import write

            game.say(f"saved the game to {write(save, game.record())}")
        env.close()


def _check_save(save: str | Path, env: FiverowVectorEnv) -> None:
    """Refuse a record the game could not be written as, before the game."""
    from ..records import check_recordable, format_of

    check_recordable(env.config, format_of(save))
    folder = Path(save).parent
    if not folder.is_dir():
        raise ValueError(f"--save: the folder '{folder}' does not exist")
