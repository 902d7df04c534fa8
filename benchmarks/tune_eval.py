"""Fit the pvs player's evaluation to the outcomes of its own games.

pvs plays itself (--nodes per move, a few random heuristic moves for
variety) from the balanced openings on --boards boards at a time, --rounds
times; every position it decided by search is kept with its features (the
side to move's and the other side's line-pattern and threat-class counts,
``_core.pvs_probe``'s "features") and the game's outcome for the side to
move. A logistic model of that outcome, linear in the counts and in a few
threat flags with the move in hand, is fitted by Newton's method; its
weights, times --scale (evaluation units per unit of log-odds), are the
tables of csrc/players/pvs_eval.c (printed as C). The evaluation shipped
came from two rounds of this (a fit on games of the hand-set evaluation,
then a fit on games of the first fit's: 0.72 [0.65, 0.78] against the
first fit at 5,000 nodes, 192 games); a third round did not improve on it.

    python benchmarks/tune_eval.py --rounds 50 --nodes 1500 --out positions.npz

prints the positions gathered, the model's log loss against the base rate's,
and the tables.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import numpy.typing as npt

import fiverow
from fiverow import _core, players
from fiverow.players import Player
from fiverow.players import openings as openings_mod

PATTERNS = 14  # csrc/players/pvs_patterns.h: PAT_NB (= CLS_NB)
FITTED_PATTERNS = list(range(2, 13))  # C1 .. O4 (dead, long and five never at a searched root)
FITTED_CLASSES = list(range(2, 12))  # O2 .. C4O3


def gather(variant: str, rounds: int, boards: int, nodes: int, seed: int) -> tuple[Any, Any]:
    rng = np.random.default_rng(seed)
    rows, outcomes = [], []
    start = time.monotonic()
    for r in range(rounds):
        env = fiverow.make_vec(variant, num_envs=boards, seed=seed + r)
        pool = env.unwrapped.pool
        book = openings_mod.opening_cells(pool, pool._order[0], openings_mod.book("balanced"))
        _, info = env.reset(seed=seed + r)
        chosen = [book[int(rng.integers(len(book)))] for _ in range(boards)]
        seen: list[list[tuple[Any, int]]] = [[] for _ in range(boards)]
        done = np.zeros(boards, dtype=bool)
        ply = np.zeros(boards, dtype=np.int64)
        winner = np.full(boards, -1)
        heuristic = players.make("heuristic")
        while not done.all():
            actions = np.zeros(boards, dtype=np.int64)
            for i in range(boards):
                if done[i]:
                    actions[i] = int(np.flatnonzero(info["action_mask"][i])[0])
                elif ply[i] < len(chosen[i]):
                    actions[i] = chosen[i][ply[i]]
                else:
                    p = Player(kind="pvs", nodes=nodes, seed=int(rng.integers(1 << 30)))
                    probe = _core.pvs_probe(pool._batch, 0, i, p.spec())
                    if probe["decided_by"] == "search":
                        seen[i].append((probe["features"], int(env.board(i)["colour"])))
                    actions[i] = probe["move"]
                    if rng.random() < 0.04:
                        actions[i] = int(heuristic.act(env)[i])
            _, _, terminated, truncated, info = env.step(actions)
            ply += ~done
            for i in np.flatnonzero((terminated | truncated) & ~done):
                done[i] = True
                winner[i] = int(info["winner"][i])  # seat 0 holds black (no protocol)
        for i in range(boards):
            for features, colour in seen[i]:
                rows.append(features)
                outcomes.append(0.5 if winner[i] < 0 else float(winner[i] == colour))
        print(f"round {r + 1}: {len(rows)} positions, {time.monotonic() - start:.0f} s", flush=True)
    return np.asarray(rows, dtype=np.float64), np.asarray(outcomes, dtype=np.float64)


def design(x: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """The model's inputs (pvs_eval.c's order: mover patterns, other side's
    patterns (negated), mover classes, other side's classes (negated), flags)."""
    p = PATTERNS
    ns, no, cs, co = x[:, :p], x[:, p : 2 * p], x[:, 2 * p : 3 * p], x[:, 3 * p :]
    fours = lambda c: c[:, 9] + c[:, 10] + c[:, 11]  # noqa: E731
    threes = lambda c: c[:, 6] + c[:, 7] + c[:, 8]  # noqa: E731
    answer = co[:, 12] > 0  # the other side has an open three
    flags = np.stack(
        [
            answer & (fours(cs) > 0),
            answer & (fours(cs) == 0),
            (cs[:, 11] > 0) & ~answer,
            (cs[:, 8] > 0) & (fours(co) == 0) & ~answer,
            (cs[:, 8] > 0) & (fours(co) > 0) & ~answer,
            co[:, 11] > 0,
            (co[:, 8] > 0) & (threes(cs) + fours(cs) == 0),
            (co[:, 8] > 0) & (threes(cs) + fours(cs) > 0),
            threes(cs) > 0,
        ],
        axis=1,
    ).astype(np.float64)
    return np.concatenate(
        [
            ns[:, FITTED_PATTERNS],
            -no[:, FITTED_PATTERNS],
            cs[:, FITTED_CLASSES],
            -co[:, FITTED_CLASSES],
            flags,
        ],
        axis=1,
    )


def fit(f: npt.NDArray[Any], y: npt.NDArray[Any], l2: float) -> npt.NDArray[Any]:
    sd = f.std(0) + 1e-9
    z = f / sd
    w = np.zeros(z.shape[1])
    for _ in range(30):
        p = 1 / (1 + np.exp(-(z @ w)))
        grad = z.T @ (p - y) + l2 * w
        hess = (z * (p * (1 - p))[:, None]).T @ z + l2 * np.eye(len(w))
        w -= np.linalg.solve(hess, grad)
    return w / sd


def log_loss(p: npt.NDArray[Any], y: npt.NDArray[Any]) -> float:
    return float(-np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="freestyle")
    ap.add_argument("--rounds", type=int, default=50)
    ap.add_argument("--boards", type=int, default=64)
    ap.add_argument("--nodes", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--scale", type=float, default=600.0, help="evaluation units per log-odds")
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--out", default=None, help="also keep the positions here (.npz)")
    args = ap.parse_args()
    x, y = gather(args.variant, args.rounds, args.boards, args.nodes, args.seed)
    if args.out:
        np.savez(args.out, X=x, Y=y)
    f = design(x)
    w = fit(f, y, args.l2)
    base = np.full_like(y, y.mean())
    fitted = log_loss(1 / (1 + np.exp(-(f @ w))), y)
    print(f"{len(y)} positions; log loss {fitted:.4f}, base rate's {log_loss(base, y):.4f}")
    tables = np.zeros((4, PATTERNS))
    k = 0
    for row, idx in enumerate((FITTED_PATTERNS, FITTED_PATTERNS, FITTED_CLASSES, FITTED_CLASSES)):
        for i in idx:
            tables[row, i] = w[k]
            k += 1
    names = ("mover_pattern", "other_pattern", "mover_class", "other_class")
    for name, row in zip(names, tables, strict=True):
        values = ", ".join(str(int(round(v * args.scale))) for v in row)
        print(f"static const int {name}[] = {{{values}}};")
    values = ", ".join(str(int(round(v * args.scale))) for v in w[k:])
    print(f"static const int threat_value[9] = {{{values}}};")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
