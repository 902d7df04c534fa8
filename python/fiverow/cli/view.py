"""``fiverow view``: one dataset episode, or one game record, as a
self-contained HTML page."""

from __future__ import annotations

import argparse
from pathlib import Path

#: Suffixes of the game records ``view`` reads (:mod:`fiverow.records`).
RECORD_SUFFIXES = (".psq", ".sgf")


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "view",
        help="one episode of a dataset, or a game record (.psq, .sgf), as an HTML page "
        "(slider, move list; no network)",
    )
    p.add_argument("path", help="the dataset (HDF5) file, or a .psq / .sgf game record")
    p.add_argument(
        "--variant",
        default=None,
        help="the variant group (default: the only one); for a record that names no "
        "variant, its variant (default: freestyle)",
    )
    p.add_argument(
        "--episode",
        type=int,
        default=0,
        help="episode index in the variant (default 0); for an SGF collection, its game",
    )
    p.add_argument("--out", required=True, help="the HTML file to write")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .. import data
    from ..records import viewer

    if Path(args.path).suffix.lower() in RECORD_SUFFIXES:
        out = viewer.write_record(args.path, args.out, variant=args.variant, game=args.episode)
        print(f"wrote {out}")
        return 0
    variant = args.variant
    with data.open(args.path) as ds:
        names = list(ds)
        if variant is None:
            if len(names) != 1:
                raise ValueError(f"--variant: the dataset holds {', '.join(names)}; name one")
            variant = names[0]
        if variant not in names:
            raise ValueError(
                f"--variant: '{args.path}' has no '{variant}' (it holds {', '.join(names)})"
            )
        n = len(ds[variant])
    if not -n <= args.episode < n:
        raise ValueError(
            f"--episode {args.episode}: '{variant}' in '{args.path}' has {n} episodes (0..{n - 1})"
        )
    out = viewer.write(args.path, variant, args.episode, args.out)
    print(f"wrote {out}")
    return 0
