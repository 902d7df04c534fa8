"""Threat-space solver, in C: forced wins by continuous fours (VCF) or by
threes and fours (VCT) for the seat to act.

>>> import fiverow
>>> env = fiverow.make_vec("freestyle", num_envs=1, seed=0)
>>> obs, info = env.reset()
>>> rows = ["." * 15] * 15
>>> rows[5] = rows[6] = "." * 8 + "X" + "." * 6      # black at (5, 8), (6, 8)
>>> rows[7] = "." * 5 + "XX" + "." * 8                # and (7, 5), (7, 6)
>>> rows[0] = rows[14] = "O" + "." * 13 + "O"
>>> env.load_position(0, rows, to_play="black")
>>> print(fiverow.solve.vcf(env, 0))                  # no win by fours alone
None
>>> fiverow.solve.vct(env, 0)                         # (7, 8) makes two threes
[113, 68, 112, 109, 114]

A line lists the attacker's moves and the defender's replies alternately, the
last move a five; where the defender has several replies that matter, the line
follows the one that holds out longest. Every move of the search is played by
the engine, so the rule is the environment's own: renju's forbidden points
(black cannot use them, white may win through them), exact fives (standard,
renju black, caro), caro's end condition (``caro_ends``), the move limit
``max_steps``; strip, torus and hexagonal boards through their line tables.
Gomorpion and MODLINSEQ have no such wins (their fives do not end the game)
and are refused.

``max_depth`` counts the attacker's moves, the five included (a four and a
five is depth 2). ``None`` means no win was found: none exists within
``max_depth`` (for VCT: among the threats the search tries), or the search ran
out of ``max_nodes`` first; :func:`search` says which.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import _core
from ..env.pool import Pool

#: The deepest search the C solver takes (attacker moves).
MAX_DEPTH = 60
VCF_DEPTH = 30
VCF_NODES = 1_000_000
VCT_DEPTH = 10
VCT_NODES = 200_000
KINDS = ("vcf", "vct")
_RESULTS = {-1: "unknown", 0: "none", 1: "win"}


@dataclass(frozen=True)
class Solution:
    """A search's outcome: ``result`` is ``"win"`` (``line`` holds the moves),
    ``"none"`` (no win within the depth) or ``"unknown"`` (the node budget ran
    out first); ``nodes`` counts the moves the search played."""

    result: str
    line: list[int] | None
    nodes: int


def _int_in(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) and not hasattr(value, "__index__"):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    x = int(value)  # type: ignore[call-overload]
    if not low <= x <= high:
        raise ValueError(f"{name} must be in {low}..{high}, got {x}")
    return x


def _group_of(env: Any) -> tuple[Pool, int, int]:
    """The pool, group index and board count behind a vector env (or a
    one-group pool, or a single env)."""
    inner = getattr(env, "unwrapped", env)
    inner = getattr(inner, "_vec", inner)  # a single env steps a vector env of one board
    pool = inner if isinstance(inner, Pool) else getattr(inner, "pool", None)
    if not isinstance(pool, Pool):
        raise TypeError(f"the solver takes a fiverow vector env, got {type(env).__name__}")
    if len(pool._order) != 1:
        raise TypeError("the solver takes a vector env (a pool of one variant), not a mixed pool")
    pool._require_reset("the solver")
    group = pool.groups[pool._order[0]]
    return pool, group.index, group.num_envs


def _limits(kind: str, max_depth: int | None, max_nodes: int | None) -> tuple[int, int, int]:
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    depth = VCF_DEPTH if kind == "vcf" else VCT_DEPTH
    nodes = VCF_NODES if kind == "vcf" else VCT_NODES
    depth = _int_in("max_depth", depth if max_depth is None else max_depth, 1, MAX_DEPTH)
    nodes = _int_in("max_nodes", nodes if max_nodes is None else max_nodes, 1, 2**62)
    return KINDS.index(kind), depth, nodes


def search(
    env: Any,
    index: int,
    kind: str = "vcf",
    *,
    max_depth: int | None = None,
    max_nodes: int | None = None,
) -> Solution:
    """VCF or VCT search on board ``index`` for the seat to act, with its
    outcome and the nodes it took (see the module's text)."""
    pool, group, n = _group_of(env)
    code, depth, nodes = _limits(kind, max_depth, max_nodes)
    index = _int_in("index", index, 0, n - 1)
    result, line, used = _core.solve(pool._batch, group, index, code, depth, nodes)
    return Solution(_RESULTS[result], line, used)


def vcf(env: Any, index: int, max_depth: int = VCF_DEPTH, max_nodes: int = VCF_NODES) -> Any:
    """A forced win by continuous fours for the seat to act on board ``index``:
    the line of moves, or ``None``."""
    return search(env, index, "vcf", max_depth=max_depth, max_nodes=max_nodes).line


def vct(env: Any, index: int, max_depth: int = VCT_DEPTH, max_nodes: int = VCT_NODES) -> Any:
    """A forced win by threes and fours for the seat to act on board
    ``index``: the line of moves, or ``None``."""
    return search(env, index, "vct", max_depth=max_depth, max_nodes=max_nodes).line


def search_all(
    env: Any, kind: str = "vcf", *, max_depth: int | None = None, max_nodes: int | None = None
) -> list[Solution]:
    """:func:`search` on every board of a vector env at once (OpenMP over the
    boards, the env's threads; the same answers on any number of threads).
    Boards whose episode is over or in an opening phase give ``"none"``. The
    node counts are not kept: ``nodes`` is 0."""
    pool, group, _ = _group_of(env)
    code, depth, nodes = _limits(kind, max_depth, max_nodes)
    return [
        Solution(_RESULTS[result], line, 0)
        for result, line in _core.solve_group(pool._batch, group, code, depth, nodes)
    ]


def vcf_all(env: Any, max_depth: int = VCF_DEPTH, max_nodes: int = VCF_NODES) -> list[Any]:
    """:func:`vcf` on every board of a vector env at once: a line or ``None``
    per board."""
    return [s.line for s in search_all(env, "vcf", max_depth=max_depth, max_nodes=max_nodes)]


def vct_all(env: Any, max_depth: int = VCT_DEPTH, max_nodes: int = VCT_NODES) -> list[Any]:
    """:func:`vct` on every board of a vector env at once: a line or ``None``
    per board."""
    return [s.line for s in search_all(env, "vct", max_depth=max_depth, max_nodes=max_nodes)]
