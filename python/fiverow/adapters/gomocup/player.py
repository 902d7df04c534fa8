"""External Gomocup brains as fiverow players.

>>> import fiverow
>>> brain = fiverow.engines.Gomocup("pbrain-rapfi", timeout_turn=1000)  # doctest: +SKIP
>>> print(fiverow.Match("freestyle", brain, "mcts:400", games=20).play())  # doctest: +SKIP

A :class:`Gomocup` player acts on the boards of a vector env like any agent
(``act(env)``): each board's game is served by a pool of brain processes (at
most ``processes`` at once, by default the env's thread count), a process
following one game with ``TURN`` while it can, and taking another one with
``RESTART`` and ``BOARD``. A brain that crashes, hangs past its time, answers
garbage or plays an illegal move loses that game: the board is listed by
:meth:`Gomocup.take_forfeits` with the reason, the brain is restarted for the
next game, and the other boards play on.
"""

from __future__ import annotations

import atexit
import re
import shlex
import threading
import time
import weakref
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from . import protocol as P
from .process import BrainFault, BrainProcess

#: Swap2 phases (``board["phase_name"]``) in which a decision or stones are due.
SWAP2_ASKS = {"first stone": 0, "choice": 3, "second choice": 5}
#: The two ways brains read a SWAP2BOARD stone: ``x,y`` (the Gomocup 2020
#: announcement) and ``x,y,field`` (as in BOARD; Rapfi); tried in this order.
SWAP2_FORMS = ("x,y", "x,y,field")
#: Seconds a brain is given to answer ABOUT (asked once per player: a brain
#: that never answers costs this once, not once per game).
ABOUT_SECONDS = 5.0
#: Seconds of silence that end a brain's reply to a command it refused.
QUIET_SECONDS = 0.3


class EngineError(ValueError):
    """An engine that cannot play a game: it does not start, or refuses the
    board or the rule (found before the first move, naming the engine)."""


#: Settings a spec string may give, and their defaults (as :class:`Gomocup`'s).
SPEC_DEFAULTS: dict[str, Any] = {
    "timeout_turn": 5000,
    "timeout_match": 0,
    "rule": None,
    "processes": None,
    "tolerance": 1000,
    "max_memory": 0,
    "settle": 0.03,
}


def is_spec(text: object) -> bool:
    """Whether a player spec names a Gomocup brain: ``gomocup:CMD`` or
    ``gomocup(settings):CMD``."""
    if not isinstance(text, str):
        return False
    head = text.strip()[:8].lower()
    return head.startswith("gomocup:") or head.startswith("gomocup(")


def from_spec(text: str, **params: Any) -> Gomocup:
    """The brain of a spec: ``gomocup:./pbrain-rapfi``, or with settings,
    ``gomocup(timeout_turn=1000,rule=4):./pbrain-rapfi``; keyword ``params``
    add settings (a setting given both ways must agree)."""
    if not is_spec(text):
        raise ValueError(f"a Gomocup spec is gomocup:COMMAND, got {text!r}")
    body = text.strip()[len("gomocup") :]
    settings: dict[str, Any] = {}
    if body.startswith("("):
        inner, close, rest = body[1:].partition("):")
        if not close:
            raise ValueError(f"{text!r}: settings in parentheses end with '):' before the command")
        for item in filter(None, (i.strip() for i in inner.split(","))):
            key, eq, value = (part.strip() for part in item.partition("="))
            if not eq or key not in SPEC_DEFAULTS:
                raise ValueError(
                    f"{text!r}: settings are key=value with keys {', '.join(SPEC_DEFAULTS)}; "
                    f"got {item!r}"
                )
            settings[key] = _spec_value(key, value, text)
        body = ":" + rest
    command = body[1:].strip()
    if not command:
        raise ValueError(f"{text!r}: the brain's command is missing after 'gomocup:'")
    for key, value in params.items():
        if key in settings and settings[key] != value:
            raise ValueError(f"{text!r} and {key}={value!r} disagree")
        settings[key] = value
    return Gomocup(command, **settings)


def _spec_value(key: str, value: str, text: str) -> Any:
    try:
        return float(value) if key == "settle" else int(value)
    except ValueError:
        kind = "a number" if key == "settle" else "a whole number"
        raise ValueError(f"{text!r}: {key} must be {kind}, got {value!r}") from None


@dataclass
class _Game:
    """What the player knows of one board's game."""

    key: tuple[int, int]  # (board, episode)
    history: list[int] = field(default_factory=list)  # cells in the order played
    colours: dict[int, int] = field(default_factory=dict)  # cell -> colour
    pending: list[int] = field(default_factory=list)  # actions decided ahead (swap2)
    time_left: float | None = None  # ms of match time, when limited
    process: _Slot | None = None  # the process that knows this game
    forfeit: str | None = None


@dataclass
class _Slot:
    """A place in the pool: a process (or none yet) and what it knows."""

    index: int
    brain: BrainProcess | None = None
    size: tuple[int, int] | None = None  # (width, height) it was started with
    game: tuple[int, int] | None = None  # the game it follows
    known: dict[int, int] = field(default_factory=dict)  # cell -> colour it was told
    rule: int | None = None  # the INFO rule it was told
    fresh: bool = True  # no game since START / RESTART


@dataclass
class Request:
    """One board's question to a brain, prepared from the env in the caller's thread."""

    board: int
    game: _Game
    width: int
    height: int
    cells: dict[int, int]  # cell -> colour on the board now
    colour: int  # colour to move
    phase: str
    n_cells: int
    legal: npt.NDArray[np.bool_]
    rule: int
    forbidden: bool  # black's fouls are illegal (renju)


class Gomocup:
    """An external brain speaking the Gomocup protocol, as a player.

    - ``command``: the brain's command line (a string split as a shell would,
      or a list).
    - ``timeout_turn`` (ms): time for each move; a later answer loses, after a
      ``tolerance`` (ms) for pipes and start-up. 0 means "as fast as possible".
    - ``timeout_match`` (ms): thinking time for a whole game (0: no limit);
      ``INFO time_left`` is sent before each move.
    - ``rule``: the ``INFO rule`` value; by default the env's rule (freestyle 0,
      standard 1, renju 4, caro with ``caro_ends="gomocup"`` 9); a value that
      disagrees with the env is refused.
    - ``processes``: brains running at once (default: the env's threads).
    - ``settle`` (s): the pause before a command to a brain that just answered.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        timeout_turn: int = 5000,
        timeout_match: int = 0,
        rule: int | None = None,
        processes: int | None = None,
        tolerance: int = 1000,
        max_memory: int = 0,
        settle: float = 0.03,
        startup: float = 30.0,
        cwd: str | None = None,
        name: str | None = None,
    ) -> None:
        argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
        if not argv:
            raise ValueError("command: the brain's command line is empty")
        for key, value in (
            ("timeout_turn", timeout_turn),
            ("timeout_match", timeout_match),
            ("tolerance", tolerance),
            ("max_memory", max_memory),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{key} must be a whole number of ms >= 0, got {value!r}")
        if rule is not None:
            P.rule_params(rule)
        if processes is not None and (
            isinstance(processes, bool) or not isinstance(processes, int) or processes < 1
        ):
            raise ValueError(f"processes must be a positive integer, got {processes!r}")
        if not (isinstance(settle, int | float) and 0 <= settle <= 10):
            raise ValueError(f"settle must be 0..10 seconds, got {settle!r}")
        self.command = shlex.join(argv) if not isinstance(command, str) else command.strip()
        self.argv = argv
        self.timeout_turn = timeout_turn
        self.timeout_match = timeout_match
        self.rule = rule
        self.processes = processes
        self.tolerance = tolerance
        self.max_memory = max_memory
        self.settle = float(settle)
        self.startup = float(startup)
        self.cwd = cwd
        self.name = name or self._spec_name()
        self.about: dict[str, str] = {}
        self._about_asked = False
        #: How this brain reads SWAP2BOARD stones, once it has taken one
        #: (:data:`SWAP2_FORMS`); None until then.
        self.swap2_form: str | None = None
        #: False once the brain refused RESTART: a new game then starts with START.
        self.restarts = True
        self._checked: set[tuple[int, int, int]] = set()
        #: Every forfeit so far: (board, episode, reason).
        self.faults: list[tuple[int, int, str]] = []
        self._slots: list[_Slot] = []
        self._games: dict[int, _Game] = {}
        self._forfeits: dict[int, str] = {}
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _close_slots, self._slots)
        atexit.register(self._finalizer)

    # ---- the player's face ----

    def _spec_name(self) -> str:
        """``gomocup:CMD``, with the settings that differ from the defaults in
        parentheses (``gomocup(timeout_turn=1000):CMD``): :func:`from_spec` reads it back."""
        changed = [
            f"{key}={getattr(self, key):g}" if key == "settle" else f"{key}={getattr(self, key)}"
            for key, default in SPEC_DEFAULTS.items()
            if getattr(self, key) != default
        ]
        settings = f"({','.join(changed)})" if changed else ""
        return f"gomocup{settings}:{self.command}"

    def spec(self) -> dict[str, Any]:
        """The engine and its settings, for a dataset's run record."""
        return {
            "kind": "gomocup",
            "command": self.command,
            "timeout_turn": self.timeout_turn,
            "timeout_match": self.timeout_match,
            "rule": self.rule,
            "tolerance": self.tolerance,
            "max_memory": self.max_memory,
            "about": dict(self.about),
        }

    def __repr__(self) -> str:
        return f"Gomocup({self.command!r}, timeout_turn={self.timeout_turn})"

    def take_forfeits(self) -> dict[int, str]:
        """Boards on which the brain lost its game in the last :meth:`act` call,
        with the reason (its action there is meaningless); cleared by the call."""
        out, self._forfeits = self._forfeits, {}
        return out

    def close(self) -> None:
        """End every brain process (also done at exit and when garbage collected)."""
        _close_slots(self._slots)

    def __enter__(self) -> Gomocup:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- before the first game ----

    def check_env(self, env: Any) -> None:
        """Start a brain and make sure it can play ``env``'s game before any
        move is asked of it: it starts, answers ``START`` (or ``RECTSTART``)
        with ``OK`` and takes the ``INFO`` settings (an ``ERROR`` to them,
        seen by asking ``ABOUT`` after them, is a refusal). Raises
        :class:`EngineError` naming the engine and why; fiverow's own refusals
        (a board or an opening Gomocup does not have) too. Each board size
        and rule is checked once."""
        vec = getattr(env, "unwrapped", env)
        config = getattr(vec, "config", None)
        if config is None:
            raise TypeError(f"check_env() takes a fiverow env, got {type(env).__name__}")
        variant = str(getattr(config, "name", "") or config["rule"])
        try:
            rule, _ = self._rule_of(config)
        except ValueError as e:
            raise EngineError(f"the engine {self.name} cannot play {variant}: {e}") from None
        width, height = int(config["width"]), int(config["height"])
        if (width, height, rule) in self._checked:
            return
        self._grow(1)
        slot = self._slots[0]
        step = "cannot start"
        try:
            brain = self._launch(slot, at_stake=False)
            step = f"cannot play {variant} on {width}x{height}"
            self._start(slot, brain, width, height)
            step = f"cannot play {variant} (INFO rule {rule})"
            self._settings_taken(slot, brain, rule)
        except BrainFault as fault:
            self._drop(slot, fault)
            reason = fault.reason
            if reason.startswith("cannot start "):  # it says so itself
                step, reason = "cannot start", reason.split(": ", 1)[-1]
            raise EngineError(f"the engine {self.name} {step}: {reason}") from None
        self._checked.add((width, height, rule))

    def _settings_taken(self, slot: _Slot, brain: BrainProcess, rule: int) -> None:
        """Send the INFO settings; a brain that answers ABOUT shows, by what
        comes before that answer, whether it refused one (INFO has no answer)."""
        lines = self._info_lines(slot, _Rules(rule))
        if "error" in self.about:  # ABOUT goes unanswered: only what comes at once
            brain.send(*lines)
            refused = [
                t for t in brain.quiet(QUIET_SECONDS, time.monotonic() + 1.0) if _is_error(t)
            ]
        else:
            brain.send(*lines, "ABOUT")
            refused = []
            deadline = time.monotonic() + min(self.startup, ABOUT_SECONDS)
            while True:
                line = brain.answer(deadline, "ABOUT")
                if not _is_error(line):
                    break
                refused.append(line)
        if refused:
            slot.rule = None
            raise BrainFault("refused", f"it answered {refused[0][:120]!r} to {lines[-1]!r}")

    # ---- acting ----

    def act(self, env: Any, acting: npt.ArrayLike | None = None) -> npt.NDArray[np.int64]:
        """The brain's action on every board of ``env`` where ``acting`` is True
        (default: every board whose game goes on; pass it, as Match does, so
        that the brain thinks only where its move is used). Boards where the
        brain forfeits get action 0; :meth:`take_forfeits` lists them."""
        vec = getattr(env, "unwrapped", env)
        pool = getattr(vec, "pool", None)
        if pool is None or not hasattr(vec, "board"):
            raise TypeError(f"Gomocup.act() takes a fiverow vector env, got {type(env).__name__}")
        rule, forbidden = self._rule_of(vec.config)
        n = vec.num_envs
        mask = np.ones(n, dtype=bool) if acting is None else np.asarray(acting, dtype=bool)
        if mask.shape != (n,):
            raise ValueError(f"acting must be a bool array of shape ({n},), got {mask.shape}")
        actions = np.zeros(n, dtype=np.int64)
        requests: list[Request] = []
        masks = vec.action_masks()
        for i in np.flatnonzero(mask):
            board = vec.board(int(i))
            if board["status"] != 0:
                continue
            request = self._request(int(i), board, masks[i], rule, forbidden)
            if request.game.pending:  # decided ahead (a swap2 answer of several stones)
                action = request.game.pending.pop(0)
                if masks[i][action]:
                    actions[i] = action
                    _played(request, action)
                else:
                    self._forfeit(request, f"illegal: swap2 stone {_xy(action, request.width)}")
                continue
            requests.append(request)
        workers = self.processes or max(1, int(getattr(vec, "num_threads", 1) or 1))
        self._grow(min(workers, max(len(requests), 1)))
        try:
            for request, result in zip(requests, self._run(requests, workers), strict=True):
                if isinstance(result, str):
                    self._forfeit(request, result)
                else:
                    actions[request.board] = result
        except BaseException:
            self.close()  # Ctrl-C or a bug: no brain is left running
            raise
        return actions

    def _rule_of(self, config: Any) -> tuple[int, bool]:
        if config["geometry"] != "plane":
            raise ValueError(
                "Gomocup brains play on square boards (geometry 'plane'), "
                f"not {config['geometry']!r}"
            )
        if config["protocol"] not in ("free", "center", "swap2"):
            raise ValueError(
                "Gomocup brains know the free, centre and swap2 openings, "
                f"not {config['protocol']!r}"
            )
        bits = P.rule_bits(str(config["rule"]), str(config["caro_ends"]))
        if self.rule is not None and P.rule_params(self.rule) != P.rule_params(bits):
            raise ValueError(
                f"rule={self.rule} ({P.rule_params(self.rule)}) disagrees with the env's rule "
                f"({P.rule_params(bits)})"
            )
        rule = bits if self.rule is None else self.rule
        return rule, config["rule"] == "renju" and config["forbidden"] == "mask"

    def _request(
        self, i: int, board: dict[str, Any], legal: Any, rule: int, forbidden: bool
    ) -> Request:
        cells_now = np.asarray(board["cells"])
        height, width = cells_now.shape
        flat = cells_now.reshape(-1)
        stones = {int(c): int(flat[c]) - 1 for c in np.flatnonzero((flat == 1) | (flat == 2))}
        key = (i, int(board["episode"]))
        game = self._games.get(i)
        if game is None or game.key != key or not _extends(game.colours, stones):
            game = _Game(key, time_left=float(self.timeout_match) if self.timeout_match else None)
            self._games[i] = game
            game.pending.clear()
        game.history += _interleaved({c: k for c, k in stones.items() if c not in game.colours})
        game.colours = dict(stones)
        if game.pending and board["phase_name"] in SWAP2_ASKS:
            game.pending.clear()  # a decision is due again: whatever was planned is stale
        return Request(
            board=i,
            game=game,
            width=width,
            height=height,
            cells=stones,
            colour=int(board["colour"]),
            phase=str(board["phase_name"]),
            n_cells=width * height,
            legal=np.asarray(legal, dtype=bool),
            rule=rule,
            forbidden=forbidden,
        )

    def _forfeit(self, request: Request, reason: str) -> None:
        game = request.game
        game.forfeit = reason
        game.pending.clear()
        self._forfeits[request.board] = reason
        self.faults.append((game.key[0], game.key[1], reason))

    # ---- the pool ----

    def _grow(self, count: int) -> None:
        while len(self._slots) < count:
            self._slots.append(_Slot(len(self._slots)))

    def _run(self, requests: list[Request], workers: int) -> list[int | str]:
        """Each request answered by a free slot, ``workers`` at a time; a game
        goes back to the slot that followed it when that one is free."""
        if not requests:
            return []
        free = list(self._slots[:workers])
        cond = threading.Condition()

        def take(request: Request) -> _Slot:
            with cond:
                while not free:
                    cond.wait()
                mine = request.game.process
                slot = mine if mine in free else free[0]
                free.remove(slot)
                return slot

        def give(slot: _Slot) -> None:
            with cond:
                free.append(slot)
                cond.notify()

        def work(request: Request) -> int | str:
            slot = take(request)
            try:
                return self._ask(slot, request)
            finally:
                give(slot)

        if workers == 1 or len(requests) == 1:
            return [work(r) for r in requests]
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="gomocup")
        try:
            return list(pool.map(work, requests))
        except BaseException:
            # Ctrl-C: end the brains first, so that the threads waiting on them
            # return at once, then let the threads go
            self.close()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    # ---- one question to one brain ----

    def _ask(self, slot: _Slot, r: Request) -> int | str:
        """The action a brain chooses for a request, or the reason it lost."""
        try:
            brain = self._ready(slot, r)
            if r.phase in SWAP2_ASKS:
                return self._swap2(slot, brain, r)
            if r.phase != "play":
                raise BrainFault("garbage", f"lost track of the swap2 opening (phase {r.phase})")
            lines = self._position_lines(slot, r)
            answer = self._timed(slot, brain, r, lines, "the move request")
            if answer.error is not None or answer.swap or len(answer.moves) != 1:
                raise _bad_answer(answer, "one move x,y")
            cell = self._check_move(r, answer.moves[0], r.legal)
            slot.known = {**r.cells, cell: r.colour}
            r.game.history.append(cell)
            r.game.colours[cell] = r.colour
            return cell
        except BrainFault as fault:
            self._drop(slot, fault)
            return f"{fault.kind}: {fault.reason}"

    def _drop(self, slot: _Slot, fault: BrainFault) -> None:
        """After a fault the brain's state is unknown: a crashed or late brain is
        ended (started afresh for the next game), any other one restarted."""
        slot.game = None
        slot.known = {}
        if fault.kind in ("crash", "timeout") and slot.brain is not None:
            slot.brain.kill()
            slot.brain = None

    def _launch(self, slot: _Slot, at_stake: bool = True) -> BrainProcess:
        """The slot's brain running (started if it is not; ABOUT asked once
        per player). A brain found dead when a move is asked of it
        (``at_stake``) crashed between moves: that game is lost (the next one
        gets a new process)."""
        brain = slot.brain
        if brain is not None and not brain.alive:
            fault = brain.ended_fault()
            brain.kill()
            brain = slot.brain = None
            if at_stake:
                raise BrainFault("crash", f"{fault.reason} between moves")
        if brain is None:
            try:
                brain = BrainProcess(self.argv, cwd=self.cwd, settle=self.settle)
            except OSError as e:
                raise BrainFault("crash", f"cannot start {self.command!r}: {e}") from None
            slot.brain, slot.size, slot.game, slot.known, slot.rule = brain, None, None, {}, None
            slot.fresh = True
            if not self._about_asked:
                self._about_asked = True
                self._ask_about(brain)
        return brain

    def _ask_about(self, brain: BrainProcess) -> None:
        """ABOUT, once per player: a brain that does not answer in
        :data:`ABOUT_SECONDS` is noted (``about["error"]``), not faulted."""
        brain.send("ABOUT")
        seconds = min(self.startup, ABOUT_SECONDS)
        try:
            self.about = _about(brain.answer(time.monotonic() + seconds, "ABOUT"))
        except BrainFault as fault:
            if fault.kind != "timeout":
                self.about = {"error": fault.reason}
                raise
            self.about = {"error": f"no answer to ABOUT in {seconds:g} s"}

    def describe(self) -> dict[str, Any]:
        """:meth:`spec` with the brain's own ABOUT (a brain is started to ask
        it, if none runs yet): what a dataset's run record keeps."""
        if not self._about_asked:
            self._grow(1)
            try:
                self._launch(self._slots[0], at_stake=False)
            except BrainFault as fault:
                self.about = {"error": fault.reason}
                self._drop(self._slots[0], fault)
        return self.spec()

    def _ready(self, slot: _Slot, r: Request) -> BrainProcess:
        """The slot's brain, started (START / RECTSTART) on this board size."""
        brain = self._launch(slot)
        if slot.size != (r.width, r.height):
            self._start(slot, brain, r.width, r.height)
        return brain

    def _start(self, slot: _Slot, brain: BrainProcess, width: int, height: int) -> None:
        """START n (RECTSTART w,h), which must be answered OK: a fresh game."""
        start = f"START {width}" if width == height else f"RECTSTART {width},{height}"
        brain.send(start)
        reply = brain.answer(time.monotonic() + self.startup, start)
        if "error" in self.about and _about(reply).keys() - {"text"}:
            self.about = _about(reply)  # the late answer to ABOUT
            reply = brain.answer(time.monotonic() + self.startup, start)
        if reply.upper() != "OK":
            slot.size = None
            raise BrainFault("refused", f"{start} answered {reply[:80]!r}")
        slot.size, slot.game, slot.known, slot.rule = (width, height), None, {}, None
        slot.fresh = True

    def _new_game(self, slot: _Slot, brain: BrainProcess) -> None:
        """RESTART; a brain that does not answer it OK gets START instead (and
        from then on, every new game)."""
        if self.restarts:
            brain.send("RESTART")
            reply = brain.answer(time.monotonic() + self.startup, "RESTART")
            if reply.upper() == "OK":
                return
            self.restarts = False  # UNKNOWN / ERROR: this brain starts games with START
        assert slot.size is not None
        game, known, rule = slot.game, slot.known, slot.rule
        self._start(slot, brain, *slot.size)
        # the game the caller set up goes on; START keeps the INFO settings
        slot.game, slot.known, slot.rule, slot.fresh = game, known, rule, False

    def _info_lines(self, slot: _Slot, r: Request | _Rules) -> list[str]:
        lines = []
        if slot.rule != r.rule:
            lines += [
                f"INFO timeout_turn {self.timeout_turn}",
                f"INFO timeout_match {self.timeout_match}",
                f"INFO max_memory {self.max_memory}",
                "INFO game_type 1",
                f"INFO rule {r.rule}",
            ]
            slot.rule = r.rule
        if isinstance(r, Request) and r.game.time_left is not None:
            lines.append(f"INFO time_left {max(int(r.game.time_left), 0)}")
        return lines

    def _position_lines(self, slot: _Slot, r: Request) -> list[str]:
        """TURN when the brain followed this game up to the opponent's last
        stone, BEGIN on an empty board, else RESTART and BOARD."""
        info = self._info_lines(slot, r)
        new = {c: k for c, k in r.cells.items() if slot.known.get(c) != k}
        if (
            slot.game == r.game.key
            and len(new) == 1
            and all(r.cells.get(c) == k for c, k in slot.known.items())
        ):
            (cell,) = new
            return [*info, f"TURN {_xy(cell, r.width)}"]
        restart = [] if slot.fresh else ["RESTART"]
        slot.game, slot.known, slot.fresh = r.game.key, {}, False
        if not r.cells:
            return [*restart, *info, "BEGIN"]
        order = [c for c in r.game.history if c in r.cells]
        order += sorted(set(r.cells) - set(order))
        stones = [f"{_xy(c, r.width)},{1 if r.cells[c] == r.colour else 2}" for c in order]
        return [*restart, *info, "BOARD", *stones, "DONE"]

    def _timed(
        self, slot: _Slot, brain: BrainProcess, r: Request, lines: list[str], what: str
    ) -> P.Answer:
        """Send the lines, read the answer within the time limits, count the time."""
        if lines and lines[0] == "RESTART":
            self._new_game(slot, brain)
            lines = lines[1:]
        allowed = float(self.timeout_turn + self.tolerance)
        if r.game.time_left is not None:
            allowed = min(allowed, max(r.game.time_left, 0.0) + self.tolerance)
        brain.send(*lines)
        start = time.monotonic()
        try:
            text = brain.answer(start + allowed / 1000.0, what)
        except BrainFault as fault:
            if fault.kind == "timeout":
                fault.reason = f"no answer to {what} within {allowed:.0f} ms"
            raise
        spent = (time.monotonic() - start) * 1000.0
        if r.game.time_left is not None:
            r.game.time_left -= spent
        return P.parse_answer(text)

    def _check_move(self, r: Request, xy: tuple[int, int], legal: Any) -> int:
        x, y = xy
        if not (x < r.width and y < r.height):
            raise BrainFault("illegal", f"move {x},{y} is off the {r.width}x{r.height} board")
        cell = y * r.width + x
        if not legal[cell]:
            if cell in r.cells:
                why = "occupied"
            elif r.forbidden and r.colour == 0:
                why = "forbidden for black"
            else:
                why = "not legal here"
            raise BrainFault("illegal", f"illegal move {x},{y}: {why}")
        return cell

    def _swap2(self, slot: _Slot, brain: BrainProcess, r: Request) -> int:
        """SWAP2BOARD: the opening's stones so far; the answer becomes actions
        (the first returned, the rest kept for the next calls)."""
        order = [c for c in r.game.history if c in r.cells]
        if len(order) != SWAP2_ASKS[r.phase]:
            raise BrainFault("garbage", f"lost track of the swap2 opening ({len(order)} stones)")
        restart = [] if slot.fresh else ["RESTART"]
        slot.game, slot.known, slot.fresh = None, {}, False  # told the whole board next time
        info = self._info_lines(slot, r)
        # the two forms differ only when there are stones: with none, one try
        forms = [self.swap2_form] if self.swap2_form else list(SWAP2_FORMS)
        for k, form in enumerate(forms if order else forms[:1]):
            stones = [_swap2_stone(c, r, form) for c in order]
            head = [*restart, *info] if k == 0 else []
            answer = self._timed(
                slot, brain, r, [*head, "SWAP2BOARD", *stones, "DONE"], "SWAP2BOARD"
            )
            refused = answer.error is not None and _is_error(answer.error)
            if refused and order and k + 1 < len(forms):
                # a brain that reads the other form: whatever else it says to
                # this one (an ERROR per stone, a move) goes, then the other form
                deadline = time.monotonic() + (self.timeout_turn + self.tolerance) / 1000.0
                brain.quiet(QUIET_SECONDS, deadline)
                continue
            if answer.error is None and order:
                self.swap2_form = form
            break
        take_black, take_white, place_two = r.n_cells, r.n_cells + 1, r.n_cells + 2
        if answer.error is not None:
            raise _bad_answer(answer, "SWAP or stones")
        occupied = set(r.cells)
        cells = []
        for xy in answer.moves:
            x, y = xy
            cell = y * r.width + x
            if not (x < r.width and y < r.height) or cell in occupied:
                raise BrainFault("illegal", f"swap2 stone {x},{y} is off the board or taken")
            occupied.add(cell)
            cells.append(cell)
        wanted = {"first stone": (3,), "choice": (0, 1, 2), "second choice": (0, 1)}[r.phase]
        if answer.swap:
            if r.phase == "first stone":
                raise BrainFault("garbage", "SWAP before there are stones to swap")
            return take_black
        if len(cells) not in wanted or not cells:
            raise _bad_answer(answer, f"{' or '.join(map(str, wanted))} stones or SWAP")
        if r.phase == "first stone":
            r.game.pending = cells[1:]
            _played(r, cells[0])
            return cells[0]
        r.game.pending = cells
        return place_two if len(cells) == 2 else take_white


@dataclass
class _Rules:
    """What the INFO lines say, without a move request (:meth:`Gomocup.check_env`)."""

    rule: int


def _played(r: Request, action: int) -> None:
    """A stone the brain placed, in the game's move order: a later BOARD
    lists the stones in that order, which must alternate as they were
    played (a brain reads two stones of one colour in a row as a pass)."""
    if action < r.n_cells:
        r.game.history.append(action)
        r.game.colours[action] = r.colour


def _swap2_stone(cell: int, r: Request, form: str) -> str:
    """A SWAP2BOARD line: ``x,y``, or ``x,y,field`` (1: a stone of the colour
    to move, the brain's; 2: the other's)."""
    if form == "x,y":
        return _xy(cell, r.width)
    return f"{_xy(cell, r.width)},{1 if r.cells[cell] == r.colour else 2}"


def _is_error(line: str) -> bool:
    """An ERROR / UNKNOWN line."""
    return line.strip().split(" ")[0].upper() in ("ERROR", "UNKNOWN")


def _extends(before: dict[int, int], now: dict[int, int]) -> bool:
    """Whether ``now`` is ``before`` plus stones (the same game, moves later)."""
    return all(now.get(c) == k for c, k in before.items())


def _interleaved(stones: dict[int, int]) -> list[int]:
    """Stones whose order is unknown, in an order that could have been played:
    the colour with more stones first, then alternating (normally one stone,
    the opponent's move)."""
    black = [c for c, k in sorted(stones.items()) if k == 0]
    white = [c for c, k in sorted(stones.items()) if k == 1]
    first, second = (black, white) if len(black) >= len(white) else (white, black)
    out = []
    for k in range(max(len(first), len(second))):
        out += first[k : k + 1] + second[k : k + 1]
    return out


def _xy(cell: int, width: int) -> str:
    y, x = divmod(cell, width)
    return f"{x},{y}"


def _bad_answer(answer: P.Answer, wanted: str) -> BrainFault:
    if answer.error is not None and answer.error.split(" ")[0] in ("ERROR", "UNKNOWN"):
        return BrainFault("refused", f"answered {answer.error[:120]!r}")
    if answer.error is not None:
        return BrainFault("garbage", answer.error)
    got = "SWAP" if answer.swap else " ".join(f"{x},{y}" for x, y in answer.moves)
    return BrainFault("garbage", f"answered {got!r} where {wanted} was due")


def _about(line: str) -> dict[str, str]:
    """``name="x", version="1"`` as a dict (an old brain's free text as ``text``)."""
    pairs = dict(re.findall(r'(\w+)\s*=\s*"([^"]*)"', line))
    return pairs if pairs else {"text": line[:200]}


def _close_slots(slots: list[_Slot]) -> None:
    for slot in slots:
        brain, slot.brain = slot.brain, None
        if brain is not None:
            brain.close()
