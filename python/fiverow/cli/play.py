"""``fiverow play``: a game in the terminal against a built-in player or a
Gomocup engine.

Moves are typed as the board shows them (``h8``; MODLINSEQ tiles as ``7E4``;
special actions by name, e.g. ``TAKE_BLACK``), plus ``undo`` (back to before
your last move), ``hint`` (the heuristic's move), ``help`` and ``quit``. An
illegal move is explained (``forbidden: double-three``, ``occupied``, ...) and
asked again.
"""

from __future__ import annotations

import argparse
import sys
from typing import IO, Any

import numpy as np

from .. import players as players_mod
from ..env.vector import FiverowVectorEnv, make_vec

COMMANDS = "commands: a move (e.g. h8), undo, hint, help, quit"


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
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from . import parse_params

    return play(
        args.variant,
        args.opponent,
        seat=args.seat,
        seed=args.seed,
        params=parse_params(args.param),
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
        self.names = {env.action_name(a).lower(): a for a in range(env.n_actions)}
        self.undo_stack: list[bytes] = []
        self.opponent_name = str(getattr(opponent, "name", None) or type(opponent).__name__)

    def say(self, text: str = "", end: str = "\n") -> None:
        self.stdout.write(text + end)
        self.stdout.flush()

    def colour_of(self, seat: int) -> str:
        black_seat = int(self.env.board(0)["black_seat"])
        return "black" if seat == black_seat else "white"

    def run(self) -> int:
        self.say(f"you: seat {self.seat}; opponent: {self.opponent_name}. {COMMANDS}")
        while True:
            board = self.env.board(0)
            self.say(self.env.render_env(0, "ansi"), end="")
            if board["status"] != 0:
                self.say(self.result(board))
                return 0
            if int(board["seat"]) == self.seat:
                if not self.human_turn():
                    self.say("bye")
                    return 0
            else:
                action = int(np.asarray(self.opponent.act(self.env))[0])
                forfeits: dict[int, str] = getattr(self.opponent, "take_forfeits", dict)()
                if forfeits:  # an engine that crashed, hung or cheated
                    who = f"{self.colour_of(1 - self.seat)} ({self.opponent_name})"
                    self.say(f"the game is over: {who} forfeits ({forfeits[0]}); you win")
                    return 0
                name = self.env.action_name(action)
                self.say(f"{self.colour_of(1 - self.seat)} ({self.opponent_name}) plays {name}")
                self.step(action)

    def step(self, action: int) -> None:
        self.env.step(np.array([action], dtype=np.int64))

    def result(self, board: dict[str, Any]) -> str:
        winner = int(board["winner"])
        if winner < 0:
            return "the game is over: a draw"
        who = "you" if winner == self.seat else self.opponent_name
        return f"the game is over: {self.colour_of(winner)} ({who}) wins"

    def prompt(self) -> str:
        mask = self.env.action_masks()[0]
        n_cells = int(np.prod(self.env.board(0)["cells"].shape))
        specials = [self.env.action_name(int(a)) for a in np.flatnonzero(mask) if a >= n_cells]
        extra = f" [{', '.join(specials)}]" if specials else ""
        return f"your move ({self.colour_of(self.seat)}){extra}> "

    def human_turn(self) -> bool:
        """Read until a legal move is played (True) or the person quits (False)."""
        while True:
            self.say(self.prompt(), end="")
            line = self.stdin.readline()
            if not line:
                return False
            text = line.strip().lower()
            if not text:
                continue
            if text in ("quit", "q", "exit"):
                return False
            if text in ("help", "?"):
                self.say(COMMANDS)
                continue
            if text == "hint":
                hint = int(self.hinter.act(self.env)[0])
                self.say(f"hint: {self.env.action_name(hint)}")
                continue
            if text == "undo":
                if not self.undo_stack:
                    self.say("nothing to undo")
                    continue
                self.env.set_state(0, self.undo_stack.pop())
                return True
            action = self.names.get(text)
            if action is None:
                self.say(f"'{line.strip()}' is not a move here: {COMMANDS}")
                continue
            reason = self.illegal(action)
            if reason:
                self.say(f"{self.env.action_name(action)}: {reason}; try again")
                continue
            self.undo_stack.append(self.env.get_state(0))
            self.step(action)
            return True

    def illegal(self, action: int) -> str | None:
        """Why an action cannot be played now, in the rules' words (None: it can)."""
        if self.env.action_masks()[0][action]:
            return None
        try:  # the env refuses it, changing nothing, and says why
            self.step(action)
        except ValueError as e:
            reason = str(e).split("): ", 1)[-1]
            if reason.startswith("forbidden for black ("):
                return "forbidden: " + reason[len("forbidden for black (") :].rstrip(")")
            return reason
        raise AssertionError("an action off the mask was played")


def play(
    variant: str,
    opponent: Any = "heuristic",
    *,
    seat: str = "black",
    seed: int = 0,
    params: dict[str, Any] | None = None,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
) -> int:
    if seat not in ("black", "white"):
        raise ValueError(f"seat must be 'black' or 'white', got {seat!r}")
    env = make_vec(variant, 1, seed=seed, autoreset_mode="disabled", **(params or {}))
    env.reset()
    player = make_opponent(opponent)
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
        env.close()
