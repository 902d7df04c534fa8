"""Build and run the libFuzzer targets of the C core (tests/fuzz/fuzz_*.c).

The core (csrc/ without the Python binding) is compiled once with clang and
-fsanitize=fuzzer-no-link,address,undefined, then each target is linked with
-fsanitize=fuzzer. A run starts from the committed seed corpus
(tests/fuzz/corpus/TARGET) and writes what it finds to a working corpus;
inputs under tests/fuzz/regressions/TARGET (crashes found earlier, since
fixed) are replayed first.

    python tests/fuzz/run_fuzz.py --seconds 360 --out build/fuzz   # make fuzz
    python tests/fuzz/run_fuzz.py --seconds 3 --out /tmp/f state   # one target

tests/test_fuzz.py runs every target for a few seconds in the suite. Prints
one JSON line per target: executions, executions per second, coverage
(libFuzzer's cov and ft counters), corpus size, crashes.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TARGETS = ("actions", "state", "position", "params", "h5")
CC = os.environ.get("FUZZ_CC", "clang")
FINDINGS = ("crash-", "leak-", "timeout-", "oom-")
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]

# The variants the targets play: every preset, and the overrides that reach
# code the presets do not (as tests/test_sanitized.py's RANDOM_PLAY).
EXTRA_VARIANTS: list[tuple[str, dict[str, object]]] = [
    ("renju", {"forbidden": "lose", "protocol": "free"}),
    ("renju", {"geometry": "torus", "size": 13}),
    ("renju", {"protocol": "swap2"}),
    ("renju-soosorv4", {"forbidden": "lose"}),
    ("gomorpion", {"size": 9}),
    ("gomorpion", {"size": 11, "neighbourhood": 4, "capture_threshold": 3}),
    ("hex", {"order": 5, "edge": "bounce", "rule": "caro", "caro_ends": "gomocup"}),
    ("hex", {"geometry": "tess", "order": 3}),
    ("modlinseq", {"order": 5, "edge": "bounce", "modulus": 20}),
    ("modlinseq", {"geometry": "tess", "order": 2, "modulus": 7, "copies": 6}),
    ("caro", {"caro_ends": "gomocup6", "max_steps": 40}),
    ("freestyle", {"size": 9, "connect": 4, "max_steps": 30}),
]


@dataclass
class RunResult:
    target: str
    seconds: float
    executions: int
    execs_per_second: int
    coverage: int
    features: int
    corpus: int
    crashes: list[str]
    returncode: int


def variant_lines() -> list[str]:
    sys.path.insert(0, str(ROOT / "python"))
    import fiverow

    variants: list[tuple[str, dict[str, object]]] = [(n, {}) for n in fiverow.preset_names()]
    lines = []
    for name, overrides in variants + EXTRA_VARIANTS:
        params = fiverow.resolve(name, **overrides).params
        lines.append(" ".join(f"{k}={v}" for k, v in params.items()))
    return lines


def write_presets(out: Path) -> None:
    body = ",\n".join(f'    "{line}"' for line in variant_lines())
    text = (
        "/* written by tests/fuzz/run_fuzz.py from fiverow's presets */\n"
        f"static const char *const FUZZ_PRESETS[] = {{\n{body}\n}};\n"
    )
    path = out / "fuzz_presets.inc"
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def hdf5_flags() -> tuple[list[str], list[str]]:
    import importlib.util

    spec = importlib.util.spec_from_file_location("fiverow_setup", ROOT / "setup.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    flags: tuple[list[str], list[str]] = module.hdf5_flags()
    return flags


def _compile(source: Path, obj: Path, cflags: list[str]) -> None:
    deps = [
        source,
        *(ROOT / "csrc").glob("*/*.h"),
        *HERE.glob("*.h"),
        obj.parent / "fuzz_presets.inc",
    ]
    if obj.exists() and obj.stat().st_mtime > max(d.stat().st_mtime for d in deps if d.exists()):
        return
    subprocess.run([CC, *cflags, "-c", str(source), "-o", str(obj)], check=True)


def build(out: Path, jobs: int = 2) -> dict[str, Path]:
    """Compile the core and link every target into out/; returns their paths."""
    if shutil.which(CC) is None:
        raise SystemExit(f"{CC} not found: apt-get install clang libclang-rt-dev (make sysdeps)")
    out.mkdir(parents=True, exist_ok=True)
    write_presets(out)
    h5_cflags, h5_ldflags = hdf5_flags()
    # POSIX declarations (clock_gettime, gmtime_r, strtok_r) that gcc exposes by default
    base = [
        "-std=c11",
        "-D_DEFAULT_SOURCE",
        "-O1",
        "-g",
        "-fopenmp",
        "-Wall",
        "-Wextra",
        "-Werror",
        *SANITIZE,
    ]
    core = [p for p in sorted((ROOT / "csrc").glob("*/*.c")) if p.parent.name != "python"]
    core_flags = [*base, "-fsanitize=fuzzer-no-link", f"-I{ROOT / 'csrc'}", *h5_cflags]
    target_flags = [*core_flags, f"-I{HERE}", f"-I{out}"]
    work = [(src, out / "obj" / f"{src.parent.name}_{src.stem}.o", core_flags) for src in core]
    work += [(HERE / f"fuzz_{t}.c", out / "obj" / f"fuzz_{t}.o", target_flags) for t in TARGETS]
    (out / "obj").mkdir(exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for f in [pool.submit(_compile, *w) for w in work]:
            f.result()
    objs = [str(out / "obj" / f"{src.parent.name}_{src.stem}.o") for src in core]
    binaries = {}
    for t in TARGETS:
        binary = out / f"fuzz_{t}"
        cmd = [CC, *base, "-fsanitize=fuzzer", str(out / "obj" / f"fuzz_{t}.o"), *objs]
        subprocess.run([*cmd, *h5_ldflags, "-lm", "-o", str(binary)], check=True)
        binaries[t] = binary
    return binaries


def _env() -> dict[str, str]:
    return dict(
        os.environ,
        ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:allocator_may_return_null=1",
        UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1",
        OMP_NUM_THREADS="1",
    )


def replay(binary: Path, target: str) -> subprocess.CompletedProcess[str]:
    """Run the target once on every committed input (seeds and regressions)."""
    files = sorted(
        str(p)
        for d in (HERE / "corpus" / target, HERE / "regressions" / target)
        if d.is_dir()
        for p in d.iterdir()
    )
    return subprocess.run(
        [str(binary), *files], capture_output=True, text=True, env=_env(), timeout=600
    )


def run(binary: Path, target: str, seconds: int, work: Path) -> RunResult:
    """Fuzz one target for `seconds` from the seed corpus; crashes go to work/."""
    corpus = work / "corpus" / target
    corpus.mkdir(parents=True, exist_ok=True)
    artifacts = work / "crashes" / target
    artifacts.mkdir(parents=True, exist_ok=True)
    cmd = [
        str(binary),
        str(corpus),
        str(HERE / "corpus" / target),
        f"-max_total_time={seconds}",
        "-timeout=120",  # generous: a loaded machine is slow, not hung
        "-rss_limit_mb=2048",
        "-max_len=4096",
        "-print_final_stats=1",
        f"-artifact_prefix={artifacts}/",
    ]
    dictionary = HERE / f"{target}.dict"
    if dictionary.exists():
        cmd.append(f"-dict={dictionary}")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=_env(), timeout=seconds + 600)
    log = proc.stderr
    (work / f"{target}.log").write_text(log)

    def stat(name: str) -> int:
        m = re.search(rf"stat::{name}:\s+(\d+)", log)
        return int(m.group(1)) if m else 0

    cov = re.findall(r"cov: (\d+) ft: (\d+) corp: (\d+)", log)
    last = cov[-1] if cov else ("0", "0", "0")
    return RunResult(
        target=target,
        seconds=seconds,
        executions=stat("number_of_executed_units"),
        execs_per_second=stat("average_exec_per_sec"),
        coverage=int(last[0]),
        features=int(last[1]),
        corpus=int(last[2]),
        # libFuzzer's findings; its "slow-unit-" files (inputs over 10 s, met
        # on a loaded machine) are kept beside them but are not failures
        crashes=sorted(str(p) for p in artifacts.iterdir() if p.name.startswith(FINDINGS)),
        returncode=proc.returncode,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("targets", nargs="*", help=f"some of {', '.join(TARGETS)} (default: all)")
    parser.add_argument("--seconds", type=int, default=360, help="per target")
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "fuzz")
    parser.add_argument("--jobs", type=int, default=2, help="compile jobs")
    args = parser.parse_args()
    unknown = set(args.targets) - set(TARGETS)
    if unknown:
        parser.error(f"unknown targets {sorted(unknown)}; known: {', '.join(TARGETS)}")
    binaries = build(args.out, args.jobs)
    failed = 0
    for t in args.targets or TARGETS:
        again = replay(binaries[t], t)
        if again.returncode:
            print(again.stderr[-4000:], file=sys.stderr)
            failed += 1
        result = run(binaries[t], t, args.seconds, args.out)
        print(json.dumps(asdict(result)), flush=True)
        failed += bool(result.crashes or result.returncode)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
