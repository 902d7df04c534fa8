"""Renju throughput beside freestyle: JSON lines.

1. Python-level random play, env.step(env.sample_legal()), the forbidden mask
   kept exact at every step (15x15, 4096 envs) — and the same for freestyle.
2. A C micro-benchmark (benchmarks/c/forbidden_checks.c, built here with the
   extension's flags): full forbidden checks per second from the cells alone.

    python benchmarks/bench_renju.py [--threads 1,2]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import tempfile
from pathlib import Path

from bench_step import bench

ROOT = Path(__file__).resolve().parent.parent


def compile_args() -> list[str]:
    """The extension's own compiler flags, from setup.py."""
    spec = importlib.util.spec_from_file_location("fiverow_setup", ROOT / "setup.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.compile_args()


def forbidden_checks(positions: int) -> dict:
    # the core without the Python binding and the HDF5 writer
    sources = [
        str(p)
        for p in sorted((ROOT / "csrc").glob("*/*.c"))
        if p.parent.name not in ("python", "io")
    ]
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "forbidden_checks")
        cmd = [
            "gcc",
            *compile_args(),
            f"-I{ROOT / 'csrc'}",
            *sources,
            str(ROOT / "benchmarks" / "c" / "forbidden_checks.c"),
            "-o",
            exe,
            "-fopenmp",
            "-lpthread",
            "-lm",
        ]
        subprocess.run(cmd, check=True)
        out = subprocess.run([exe, str(positions)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--positions", type=int, default=20000)
    args = parser.parse_args()
    for threads in (int(t) for t in args.threads.split(",")):
        for variant in ("renju", "freestyle"):
            for row in bench(variant, args.envs, threads, "absolute", args.repeats, 300, 60):
                print(json.dumps(row), flush=True)
    print(json.dumps(forbidden_checks(args.positions)), flush=True)


if __name__ == "__main__":
    main()
