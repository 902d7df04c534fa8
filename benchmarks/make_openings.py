"""Make the built-in balanced opening book (python/fiverow/presets/balanced-openings.txt).

Candidates are the openings of three stones near the centre (``--stones 2,3``
adds those of two): black on the centre, white on one of the five cells of
a quarter of the 5x5 around it (every other white cell near the centre is
one of these under a symmetry of the square) and black anywhere else in the
5x5; each once up to the symmetries. ``pvs`` searches each one for the side
to move (freestyle 15x15, ``--nodes`` per position) and the openings it
judges closest to even are kept: those whose value for the side to move is
within ``--margin`` (the evaluation's units), the ``--keep`` closest if more
are. Openings of two stones leave black to move, which freestyle favours
beyond what a search of the opening sees: the default leaves them out.

    python benchmarks/make_openings.py --nodes 200000 --keep 24 \
        --out python/fiverow/presets/balanced-openings.txt

prints each candidate's value and how many were kept.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import fiverow
from fiverow import _core, players

SYMMETRIES = [
    lambda x, y: (x, y),
    lambda x, y: (-y, x),
    lambda x, y: (-x, -y),
    lambda x, y: (y, -x),
    lambda x, y: (-x, y),
    lambda x, y: (x, -y),
    lambda x, y: (y, x),
    lambda x, y: (-y, -x),
]
WHITE = [(0, 1), (1, 1), (0, 2), (1, 2), (2, 2)]


def canonical(opening: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """The least image of an opening under the symmetries (stones keep their order)."""
    return min(tuple(f(x, y) for x, y in opening) for f in SYMMETRIES)


def candidates(stones: set[int]) -> list[tuple[tuple[int, int], ...]]:
    seen: set[tuple[tuple[int, int], ...]] = set()
    out = []
    for w in WHITE:
        for opening in [((0, 0), w)] * (2 in stones) + [
            ((0, 0), w, (x, y))
            for x in range(-2, 3)
            for y in range(-2, 3)
            if (x, y) not in ((0, 0), w)
        ]:
            key = canonical(opening)
            if len(opening) in stones and key not in seen:
                seen.add(key)
                out.append(opening)
    return out


def value(opening: tuple[tuple[int, int], ...], nodes: int) -> int:
    """pvs's value of the position after the opening, for the side to move."""
    env = fiverow.make_vec("freestyle", num_envs=1, seed=0)
    env.reset(seed=0)
    pool = env.unwrapped.pool
    for cell in _core.opening_cells(pool._batch, 0, [opening])[0]:
        env.step([cell])
    probe = _core.pvs_probe(pool._batch, 0, 0, players.make("pvs", nodes=nodes).spec())
    env.close()
    return int(probe["value"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=200000, help="pvs nodes per position")
    ap.add_argument("--margin", type=int, default=450, help="largest |value| kept")
    ap.add_argument("--keep", type=int, default=24, help="at most this many openings")
    ap.add_argument("--stones", default="3", help="opening lengths: 3, or 2,3")
    ap.add_argument("--out", default="-", help="the book file ('-': stdout)")
    args = ap.parse_args()
    start = time.monotonic()
    judged = []
    for opening in candidates({int(n) for n in args.stones.split(",")}):
        v = value(opening, args.nodes)
        judged.append((abs(v), v, opening))
        text = " ".join(f"{x},{y}" for x, y in opening)
        print(f"{v:>7}  {text}", file=sys.stderr)
    judged.sort(key=lambda j: (j[0], len(j[2]), j[2]))
    kept = [j for j in judged if j[0] <= args.margin][: args.keep]
    lines = [
        "# fiverow's balanced opening book (benchmarks/make_openings.py): one opening per",
        "# line, stones black first as x,y offsets from the centre (x right, y up).",
        f"# Each judged by pvs(nodes={args.nodes}) on freestyle 15x15 within {args.margin}",
        "# of even for the side to move; the value follows each line.",
    ]
    for _, v, opening in sorted(kept, key=lambda j: (len(j[2]), j[2])):
        lines.append(" ".join(f"{x},{y}" for x, y in opening) + f"  # {v:+d}")
    text = "\n".join(lines) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text, encoding="utf-8")
    print(
        f"{len(judged)} candidates, {len(kept)} kept (|value| <= {args.margin}), "
        f"{time.monotonic() - start:.0f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
