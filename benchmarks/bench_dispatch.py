"""The portable wheel against the source build, in the same run: JSON lines.

Each build is a directory that holds an importable `fiverow` (a source tree's
python/, or the site-packages of a venv the wheel was installed into). Rounds
alternate the builds, each round one bench_step.py run per build in a fresh
interpreter (PYTHONPATH pointing at that build), so that the load of a shared
machine falls on both alike; a build's figure is its best over the rounds.
The last lines give each mode's ratio of every build to the first one.

    python benchmarks/bench_dispatch.py --build native=python \\
        --build wheel=/tmp/venv/lib/python3.11/site-packages
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

STEP_BENCH = Path(__file__).resolve().parent / "bench_step.py"


def run_build(path: str, args: argparse.Namespace) -> tuple[str, list[dict]]:
    env = dict(os.environ, PYTHONPATH=path)
    probe = "import fiverow, fiverow._core as c; print(c.cpu_path(), fiverow.__file__)"
    cpu_path, where = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    if not where.startswith(str(Path(path).resolve())):
        raise SystemExit(f"--build {path}: fiverow imported from {where}, not from that directory")
    cmd = [
        sys.executable,
        str(STEP_BENCH),
        "--variants",
        args.variant,
        "--envs",
        str(args.envs),
        "--threads",
        args.threads,
        "--repeats",
        str(args.repeats),
        "--clock",
        args.clock,
    ]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    return cpu_path, [r for r in rows if "steps_per_s" in r]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--build", action="append", required=True, help="NAME=DIR; the first is the reference"
    )
    parser.add_argument("--variant", default="freestyle")
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--threads", default="1")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clock", default="wall", choices=["wall", "process"])
    args = parser.parse_args()
    builds = []
    for spec in args.build:
        name, sep, path = spec.partition("=")
        if not sep or not name or not Path(path).is_dir():
            parser.error(f"--build {spec!r}: expected NAME=DIR with an existing directory")
        builds.append((name, path))
    best: dict[tuple[str, str, int], int] = {}
    for rnd in range(args.rounds):
        for name, path in builds:
            cpu_path, rows = run_build(path, args)
            for row in rows:
                row.update(build=name, cpu_path=cpu_path, round=rnd)
                print(json.dumps(row), flush=True)
                key = (name, row["mode"], row["threads"])
                best[key] = max(best.get(key, 0), row["steps_per_s"])
    reference = builds[0][0]
    for (name, mode, threads), rate in sorted(best.items()):
        ratio = rate / best[(reference, mode, threads)]
        summary = {"build": name, "mode": mode, "threads": threads, "best_steps_per_s": rate}
        summary[f"ratio_to_{reference}"] = round(ratio, 3)
        print(json.dumps(summary), flush=True)
    print(json.dumps({"load_average": os.getloadavg()}), flush=True)


if __name__ == "__main__":
    main()
