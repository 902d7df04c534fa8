"""Memory bandwidth of this machine as a step-major pass sees it: JSON lines.

Builds benchmarks/c/bandwidth.c with the extension's flags and runs it on 1
and 2 threads: streaming copy and read (GB/s), and random cache lines touched
inside consecutive 1 KB boards, without and with prefetching (the ceiling of
`env.step` on batches far beyond the caches).

    python benchmarks/bench_bandwidth.py [--mb 512] [--threads 1,2] [--lines 12]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile

from bench_renju import ROOT, compile_args


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mb", type=int, default=512, help="buffer size, megabytes")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--lines", type=int, default=12, help="cache lines touched per board")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "bandwidth")
        source = str(ROOT / "benchmarks" / "c" / "bandwidth.c")
        subprocess.run(["gcc", *compile_args(), source, "-o", exe, "-fopenmp"], check=True)
        for threads in args.threads.split(","):
            env = dict(os.environ, OMP_NUM_THREADS=threads)
            cmd = [exe, str(args.mb), str(args.repeats), str(args.lines)]
            out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
            print(json.dumps(json.loads(out.stdout)), flush=True)


if __name__ == "__main__":
    main()
