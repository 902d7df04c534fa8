"""Batched PUCT search in C, with the network in Python.

>>> import fiverow
>>> from fiverow.search import MCTS
>>> env = fiverow.make_vec("freestyle", num_envs=256, seed=0, size=9)
>>> obs, info = env.reset()
>>> mcts = MCTS(env, simulations=64)
>>> def evaluate(obs, masks, to_play):            # your network, on a batch of leaves
...     priors = masks.astype("float32")           # any non-negative weights
...     values = np.zeros(len(obs), "float32")     # in [-1, 1], for the seat to act
...     return priors, values
>>> result = mcts.run(evaluate)                     # doctest: +SKIP
>>> actions = mcts.actions(temperature=1.0)         # doctest: +SKIP
>>> env.step(actions); mcts.advance(actions)        # doctest: +SKIP

One tree per board, all in C (OpenMP over the trees). Each round descends
every tree up to ``leaves_per_round`` times (virtual loss keeps the descents
apart), scores leaves that end a game by the rules, and hands Python one
batch of leaf observations and legal masks (arrays reused from round to
round: copy what you keep); the priors and values that come back are
expanded and backed up in C. Values are for the seat to act at the leaf.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _core
from ..env.pool import MAX_SEED, Pool

Evaluate = Callable[
    [npt.NDArray[np.uint8], npt.NDArray[np.uint8], npt.NDArray[np.int8]],
    tuple[npt.ArrayLike, npt.ArrayLike],
]


@dataclass
class Leaves:
    """A round's leaves of one group: ``obs[k]``, ``masks[k]`` (uint8 over the
    actions), ``to_play[k]`` (the seat to act) and ``boards[k]``."""

    obs: npt.NDArray[np.uint8]
    masks: npt.NDArray[np.uint8]
    to_play: npt.NDArray[np.int8]
    boards: npt.NDArray[np.int32]


@dataclass
class SearchResult:
    """Per board: visit counts at the root, the policy (visits normalised) and
    the root value (mean value for the seat to act)."""

    visits: npt.NDArray[np.float32]
    policy: npt.NDArray[np.float32]
    root_value: npt.NDArray[np.float32]


_FLOAT32_MAX = float(np.finfo(np.float32).max)
_MAX_INT32 = 2**31 - 1


def _positive_int(name: str, value: object) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | np.integer)
        or not 1 <= int(value) <= _MAX_INT32
    ):
        raise ValueError(f"{name} must be a positive integer below 2**31, got {value!r}")
    return int(value)


def _real(name: str, value: object, low: float, high: float = _FLOAT32_MAX) -> float:
    """A real number (not a str or bool) in [low, high], finite as a float32
    (the C search keeps it in one)."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    x = float(value)
    if not low <= x <= high:  # NaN fails too
        allowed = (
            f"a finite number >= {low:g}"
            if high == _FLOAT32_MAX
            else f"a number >= {low:g}"
            if high == float("inf")
            else f"in [{low:g}, {high:g}]"
        )
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return x


def _seed_of(seed: object) -> int:
    # make_vec's rule: seeds are 64-bit keys in C, anything else would wrap
    problem = f"seed must be an integer in [0, 2**64-1], got {seed!r}"
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise ValueError(problem)
    if not 0 <= int(seed) <= MAX_SEED:
        raise ValueError(problem)
    return int(seed)


def _pool_of(env: Any) -> Pool:
    if isinstance(env, Pool):
        return env
    pool = getattr(getattr(env, "unwrapped", env), "pool", None)
    if isinstance(pool, Pool):
        return pool
    raise TypeError(f"MCTS takes a fiverow vector env or pool, got {type(env).__name__}")


class MCTS:
    """A PUCT search tree per board of a vector env (or every group of a pool).

    ``simulations``: evaluations per tree and move (leaves that end the game
    count, scored by the rules). ``c_puct``: exploration. ``dirichlet_alpha``
    and ``dirichlet_fraction``: root noise (alpha 0: none). ``leaves_per_round``:
    descents per tree per network batch. ``reuse_tree``: keep the subtree of
    the move played (call :meth:`advance` after stepping). ``seed``: the trees'
    random streams (noise, temperature draws), mixed with each board's key.
    """

    def __init__(
        self,
        env: Any,
        simulations: int = 64,
        c_puct: float = 1.5,
        dirichlet_alpha: float = 0.3,
        dirichlet_fraction: float = 0.25,
        leaves_per_round: int = 8,
        reuse_tree: bool = True,
        seed: int = 0,
    ) -> None:
        self.pool = _pool_of(env)
        self._single = None if isinstance(env, Pool) else self.pool._order[0]
        self.simulations = _positive_int("simulations", simulations)
        self.leaves_per_round = _positive_int("leaves_per_round", leaves_per_round)
        if not isinstance(reuse_tree, bool | np.bool_):
            raise ValueError(f"reuse_tree must be a bool, got {reuse_tree!r}")
        self._search = _core.Search(
            self.pool._batch,
            self.simulations,
            _real("c_puct", c_puct, 0.0),
            _real("dirichlet_alpha", dirichlet_alpha, 0.0),
            _real("dirichlet_fraction", dirichlet_fraction, 0.0, 1.0),
            self.leaves_per_round,
            bool(reuse_tree),
            _seed_of(seed),
        )
        self._groups = [self.pool.groups[name] for name in self.pool._order]
        L = self.leaves_per_round
        self._obs = [
            np.zeros((g.num_envs * L, len(g.planes), g.height, g.width), np.uint8)
            for g in self._groups
        ]
        self._masks = [np.zeros((g.num_envs * L, g.n_actions), np.uint8) for g in self._groups]
        self._to_play = [np.zeros(g.num_envs * L, np.int8) for g in self._groups]
        self._boards = [np.zeros(g.num_envs * L, np.int32) for g in self._groups]
        self._priors = [np.zeros((g.num_envs * L, g.n_actions), np.float32) for g in self._groups]
        self._values = [np.zeros(g.num_envs * L, np.float32) for g in self._groups]
        self._counts = [0] * len(self._groups)

    # ---- the rounds ----

    def begin(self) -> None:
        """Start a move's search on every ongoing board (a round left open is
        undone first)."""
        self.pool._require_reset()
        self._search.begin()
        self._counts = [0] * len(self._groups)

    def select(self) -> list[Leaves] | None:
        """One round of descents: the leaves to evaluate, per group (views of
        reused buffers), or None when every tree has its simulations. A round
        selected but never expanded is undone first."""
        counts = self._search.select(self._obs, self._masks, self._to_play, self._boards)
        self._counts = counts
        if sum(counts) == 0:
            return None
        return [
            Leaves(o[:n], m[:n], t[:n], b[:n])
            for o, m, t, b, n in zip(
                self._obs, self._masks, self._to_play, self._boards, counts, strict=True
            )
        ]

    def expand(self, priors: Any, values: Any) -> None:
        """The network's output for the last round's leaves: per group (a list,
        or the arrays themselves with one group) ``priors[k, n_actions]`` (any
        non-negative weights; illegal actions are ignored, all-zero means
        uniform) and ``values[k]`` in [-1, 1] for the seat to act at leaf k.
        Bad shapes, NaN, negative priors or values out of range raise
        ValueError and change nothing."""
        if len(self._groups) == 1 and not isinstance(priors, list | tuple):
            priors, values = [priors], [values]
        if len(priors) != len(self._groups) or len(values) != len(self._groups):
            raise ValueError("expand() takes one priors and one values array per group")
        for g, p, v, n, bp, bv in zip(
            self._groups, priors, values, self._counts, self._priors, self._values, strict=True
        ):
            p = np.asarray(p)
            v = np.asarray(v)
            if p.shape != (n, g.n_actions):
                raise ValueError(
                    f"priors of '{g.name}' must have shape ({n}, {g.n_actions}), got {p.shape}"
                )
            if v.shape != (n,) and v.shape != (n, 1):
                raise ValueError(f"values of '{g.name}' must have shape ({n},), got {v.shape}")
            bp[:n] = p
            bv[:n] = v.reshape(n)
        self._search.expand(self._priors, self._values)
        self._counts = [0] * len(self._groups)

    def abort(self) -> None:
        """Undo the open round, if any (selected, not expanded): its leaves
        are unvisited again and their virtual losses are taken back. run()
        does it when the evaluator raises; select() and begin() do it too."""
        self._search.abort()
        self._counts = [0] * len(self._groups)

    def run(self, evaluate: Evaluate) -> SearchResult:
        """A whole move's search: ``evaluate(obs, masks, to_play) -> (priors,
        values)`` is called on each round's leaves (one call per group and
        round). Returns :meth:`result`. If the evaluator raises (or its output
        is refused, or the run is interrupted) the open round is undone and the
        tree stays usable."""
        self.begin()
        try:
            while (leaves := self.select()) is not None:
                out = [
                    evaluate(lv.obs, lv.masks, lv.to_play) if len(lv.obs) else _empty(g)
                    for g, lv in zip(self._groups, leaves, strict=True)
                ]
                self.expand([p for p, _ in out], [v for _, v in out])
        except BaseException:
            self.abort()
            raise
        return self.result()

    def run_uniform(self) -> SearchResult:
        """A whole move's search with uniform priors and zero values, all in C
        (the search's own speed, or a network-free baseline)."""
        self.pool._require_reset()
        self._search.run_uniform()
        return self.result()

    # ---- after the search ----

    def result(self) -> SearchResult:
        """The last search of every board: visit counts over the actions and root values."""
        visits = [np.zeros((g.num_envs, g.n_actions), np.float32) for g in self._groups]
        values = [np.zeros(g.num_envs, np.float32) for g in self._groups]
        self._search.results(visits, values)
        policies = []
        for vis in visits:
            total = vis.sum(axis=1, keepdims=True)
            policies.append(np.divide(vis, total, out=np.zeros_like(vis), where=total > 0))
        if self._single is not None:
            return SearchResult(visits[0], policies[0], values[0])
        return SearchResult(visits, policies, values)  # type: ignore[arg-type]

    def actions(self, temperature: float = 0.0) -> Any:
        """Actions from the root visits: the most visited (temperature 0) or
        drawn with probability proportional to visits^(1/temperature), from
        each tree's own stream. 0 where an episode has ended."""
        out = [np.zeros(g.num_envs, np.int64) for g in self._groups]
        self._search.actions(_real("temperature", temperature, 0.0, float("inf")), out)
        return (
            out[0]
            if self._single is not None
            else {g.name: a for g, a in zip(self._groups, out, strict=True)}
        )

    def advance(self, actions: Any) -> None:
        """After ``env.step(actions)``: each tree keeps the subtree of its move
        when the board's position is that child (a tree whose board was reset,
        or stepped with another action, starts afresh at the next search).
        ``actions``: an integer array (vector env) or a dict of one per group
        (pool)."""
        if self._single is not None:
            actions = {self._single: actions}
        if not isinstance(actions, Mapping):
            raise ValueError("advance() on a pool takes a dict of actions by group name")
        self._search.advance([self._group_actions(g, actions) for g in self._groups])

    @staticmethod
    def _group_actions(g: Any, actions: Mapping[str, Any]) -> npt.NDArray[np.int64]:
        if g.name not in actions:
            raise ValueError(f"advance(): no actions for group '{g.name}'")
        a = np.asarray(actions[g.name])
        if not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions of '{g.name}' must be integers, got dtype {a.dtype}")
        if a.shape != (g.num_envs,):
            raise ValueError(
                f"actions of '{g.name}' must have shape ({g.num_envs},), got {a.shape}"
            )
        return np.ascontiguousarray(a, dtype=np.int64)

    @property
    def nodes(self) -> int:
        """Tree nodes in use, over all boards."""
        return int(self._search.nodes())


def _empty(g: Any) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    return np.zeros((0, g.n_actions), np.float32), np.zeros(0, np.float32)
