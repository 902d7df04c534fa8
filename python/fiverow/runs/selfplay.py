"""Self-play runs in C: two built-in players over a pool of boards, with a
progress display and a clean stop on Ctrl-C. Matches and dataset generation
are both built on :func:`run`."""

from __future__ import annotations

import math
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np
import numpy.typing as npt

from .. import _core
from ..env.pool import Pool
from ..players import Player
from ..rules.config import resolve

#: One finished game, as the C core reports it (module_play.c: game_record).
RECORD_DTYPE = np.dtype(
    {
        "names": [
            "game",
            "group",
            "board",
            "episode",
            "length",
            "scores",
            "seat0_player",
            "winner",
            "truncated",
            "black_seat",
            "opening",
            "book",
            "last_action",
            "moves_hash",
        ],
        "formats": [
            "<i8",
            "<i4",
            "<i4",
            "<u4",
            "<i4",
            ("<i4", 2),
            "i1",
            "i1",
            "i1",
            "i1",
            "i1",
            "u1",
            "<i2",
            "<u8",
        ],
        "offsets": [0, 8, 12, 16, 20, 24, 32, 33, 34, 35, 36, 37, 38, 40],
        "itemsize": 48,
    }
)
assert _core.SelfPlay.record_size() == RECORD_DTYPE.itemsize

#: Boards of a pool when the caller does not say: every game of a small run
#: in one round, at most this many boards.
MAX_BOARDS = 4096


def default_boards(games: int) -> int:
    return max(1, min(int(games), MAX_BOARDS))


def split_boards(boards: int, weights: Mapping[str, float]) -> dict[str, int]:
    """Boards per variant in proportion to the weights, at least one each."""
    bad = {name: w for name, w in weights.items() if not (math.isfinite(w) and w > 0)}
    if bad:
        raise ValueError(f"mix weights must be finite positive numbers, got {bad}")
    total = float(sum(weights.values()))
    counts = {name: max(1, round(boards * w / total)) for name, w in weights.items()}
    return counts


def variant_weights(variants: str | Sequence[str] | Mapping[str, float]) -> dict[str, float]:
    """``"freestyle"``, ``["freestyle", "caro"]`` or ``{"freestyle": 0.5, ...}``."""
    if isinstance(variants, str):
        return {variants: 1.0}
    if isinstance(variants, Mapping):
        return {str(k): float(v) for k, v in variants.items()}
    names = [str(v) for v in variants]
    if not names:
        raise ValueError("at least one variant is needed")
    return {name: 1.0 for name in names}


def mixed_pool(
    variants: str | Sequence[str] | Mapping[str, float],
    boards: int,
    params: Mapping[str, Any] | None,
    seed: int,
    num_threads: int | None,
) -> Pool:
    """A pool of the variants (presets, plus ``params`` overriding each), with
    ``boards`` boards split by weight."""
    weights = variant_weights(variants)
    counts = split_boards(boards, weights)
    configs = {name: resolve(name, **(params or {})) for name in weights}
    groups = {name: {"num_envs": counts[name], "config": configs[name]} for name in weights}
    return Pool(groups, seed=seed, num_threads=num_threads)


class Progress:
    """A one-line progress display on stderr: games, games/s, steps/s, ETA."""

    def __init__(self, total: int, stream: TextIO | None = None, label: str = "") -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.label = label
        self.start = time.monotonic()
        self.tty = self.stream.isatty()
        self.last_line = self.start

    def update(self, games: int, steps: int, final: bool = False) -> None:
        now = time.monotonic()
        # on a terminal the line redraws (at most 10 times a second: callers may
        # update per game); elsewhere one line every 10 s
        if not final and now - self.last_line < (0.1 if self.tty else 10):
            return
        self.last_line = now
        elapsed = max(now - self.start, 1e-9)
        rate = games / elapsed
        eta = (self.total - games) / rate if rate > 0 else float("inf")
        eta_text = "--:--" if eta == float("inf") else time.strftime("%H:%M:%S", time.gmtime(eta))
        step_rate = steps / elapsed
        steps_text = (
            f"{step_rate / 1e6:,.2f} M" if step_rate >= 1e5 else f"{step_rate / 1e3:,.1f} k"
        )
        line = (
            f"{self.label}{games}/{self.total} games  {rate:,.1f} games/s  "
            f"{steps_text} steps/s  ETA {eta_text}"
        )
        end = "\n" if final or not self.tty else ""
        self.stream.write(("\r" if self.tty else "") + line + end)
        self.stream.flush()


def start_holding_ctrl_c(worker: threading.Thread) -> bool:
    """Start the worker with Ctrl-C held back until start() returns, and say
    whether one came meanwhile. A KeyboardInterrupt raised inside start() would
    leave no way to tell whether the thread exists (and will play on)."""
    if threading.current_thread() is not threading.main_thread():
        worker.start()  # only the main thread takes signals
        return False
    held: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    try:
        worker.start()
    finally:
        signal.signal(signal.SIGINT, previous)
    if not held:
        return False
    if previous is signal.SIG_DFL:
        return True  # the default action would have ended the process
    if not callable(previous):
        return False  # SIG_IGN, or a handler installed outside Python
    try:
        previous(signal.SIGINT, None)  # the caller's handler sees it late, not never
    except KeyboardInterrupt:
        return True
    return False


def run(
    sp: Any, games: int, on_progress: Callable[[int, int], None] | None = None
) -> tuple[int, bool]:
    """Play ``games`` games on a ``_core.SelfPlay``; the C call runs in a worker
    thread so that this one can show progress and take Ctrl-C, which stops the
    games in play (finished games are kept). Returns (games played, interrupted)."""
    result: dict[str, Any] = {}
    # Waited on instead of Thread.join(): on Python 3.11 a join() interrupted by
    # Ctrl-C returns at once on the next call (CPython issue 90882).
    finished = threading.Event()

    def work() -> None:
        try:
            result["games"] = sp.run(games)
        except BaseException as e:  # handed to the caller's thread
            result["error"] = e
        finally:
            finished.set()

    worker = threading.Thread(target=work, name="fiverow-selfplay", daemon=True)
    interrupted = start_holding_ctrl_c(worker)
    while not finished.is_set():
        try:
            if interrupted:
                # asked again on every pass: a stop that comes before the worker
                # enters sp.run() is cleared by it (run() starts afresh)
                sp.stop()
            finished.wait(0.25)
            if on_progress:
                on_progress(*sp.progress())
        except KeyboardInterrupt:
            interrupted = True  # stop the games in play; the finished ones are kept
            sp.stop()
    worker.join()
    if "error" in result:
        raise result["error"]
    if on_progress:
        on_progress(*sp.progress())
    return int(result.get("games", 0)), interrupted


def records(sp: Any) -> npt.NDArray[Any]:
    """The finished games since the last call, as a structured array."""
    return np.frombuffer(sp.take_records(), dtype=RECORD_DTYPE).copy()


@dataclass
class Pairing:
    """Who plays: two players, seats fixed (``player_a`` in seat 0) or alternating."""

    player_a: Player
    player_b: Player
    alternate: bool

    def specs(self) -> list[dict[str, Any]]:
        return [self.player_a.spec(), self.player_b.spec()]


def new_selfplay(
    pool: Pool,
    pairing: Pairing,
    seed: int,
    *,
    record_obs: bool = False,
    record_policy: bool = False,
    writer: dict[str, Any] | None = None,
) -> Any:
    """A C self-play round of ``pairing`` on the boards of ``pool`` (optionally written)."""
    return _core.SelfPlay(
        pool._batch,
        pairing.specs(),
        seed,
        pairing.alternate,
        record_obs,
        record_policy,
        writer,
    )
