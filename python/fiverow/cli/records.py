"""``fiverow export`` (a dataset's episodes as game records) and ``fiverow
import`` (a folder of records as a dataset)."""

from __future__ import annotations

import argparse
import sys


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "export", help="write a dataset's episodes as game records (.psq or .sgf), one a file"
    )
    p.add_argument("path", help="the dataset (HDF5) file")
    p.add_argument("--records", required=True, metavar="DIR", help="the folder of the records")
    p.add_argument(
        "--format",
        choices=["psq", "sgf"],
        default="psq",
        help="psq: Gomocup's (Piskvork), stones only (default); sgf: FF[4]GM[4], which also "
        "holds the opening protocols' steps",
    )
    p.add_argument("--variant", default=None, help="only this variant group (default: all)")
    p.add_argument("--overwrite", action="store_true", help="replace records already there")
    p.set_defaults(func=run_export)

    p = sub.add_parser(
        "import",
        help="make a dataset of a folder of game records (.psq, .sgf), each replayed and checked",
    )
    p.add_argument("source", help="a folder of .psq / .sgf records (or one record)")
    p.add_argument("--out", required=True, help="the HDF5 file to write")
    p.add_argument(
        "--variant",
        default=None,
        help="the variant of records that name none (a Gomocup .psq; default: freestyle)",
    )
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a parameter of --variant (repeatable)",
    )
    p.add_argument("--overwrite", action="store_true", help="replace an existing file")
    p.set_defaults(func=run_import)


def run_export(args: argparse.Namespace) -> int:
    from ..records import export_dataset

    files = export_dataset(
        args.path, args.records, format=args.format, variant=args.variant, overwrite=args.overwrite
    )
    print(f"wrote {len(files)} records to {args.records}")
    return 0


def run_import(args: argparse.Namespace) -> int:
    from ..records import import_records
    from . import parse_params

    def skipped(where: str, why: str) -> None:
        print(f"skipped {where}: {why}", file=sys.stderr)

    result = import_records(
        args.source,
        args.out,
        variant=args.variant,
        params=parse_params(args.param),
        overwrite=args.overwrite,
        on_skip=skipped,
    )
    print(
        f"wrote {result.games} games from {result.records} records to {result.path}"
        + (f" ({len(result.skipped)} skipped)" if result.skipped else "")
    )
    return 0
