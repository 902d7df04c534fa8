"""``fiverow view``: one dataset episode as a self-contained HTML page."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "view",
        help="one episode of a dataset as an HTML page (slider, move list; no network)",
    )
    p.add_argument("path", help="the dataset (HDF5) file")
    p.add_argument("--variant", default=None, help="the variant group (default: the only one)")
    p.add_argument(
        "--episode", type=int, default=0, help="episode index in the variant (default 0)"
    )
    p.add_argument("--out", required=True, help="the HTML file to write")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .. import data
    from ..render import viewer

    variant = args.variant
    if variant is None:
        with data.open(args.path) as ds:
            names = list(ds)
        if len(names) != 1:
            raise ValueError(f"--variant: the dataset holds {', '.join(names)}; name one")
        variant = names[0]
    out = viewer.write(args.path, variant, args.episode, args.out)
    print(f"wrote {out}")
    return 0
