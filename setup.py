"""Build of the C extension fiverow._core (metadata lives in pyproject.toml)."""

import glob
import os
import platform
import shlex
import subprocess

from setuptools import Extension, setup

# x86-64-v3 adds BMI2 (pdep, used to pick a random legal action without a
# branch) and AVX2; v2 still has popcnt. Chosen from the building CPU, since
# the extension is built where it runs; FIVEROW_MARCH overrides ("" for none).
# FIVEROW_DISPATCH=1 (make wheel) builds for any x86-64 instead: x86-64-v2 as
# a whole, the hot loops also for x86-64-v3, chosen at load (csrc/base/cpu_dispatch.h).
# CFLAGS=-DFIVEROW_NO_INTRINSICS with FIVEROW_MARCH="" leaves portable C only.
_V3_FLAGS = {"avx2", "bmi1", "bmi2", "fma", "movbe", "abm", "f16c"}


def default_march() -> str:
    if platform.machine() not in ("x86_64", "AMD64"):
        return ""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        flags = []
    return "x86-64-v3" if _V3_FLAGS <= set(flags) else "x86-64-v2"


def dispatch_build() -> bool:
    return os.environ.get("FIVEROW_DISPATCH", "") not in ("", "0")


def compile_args() -> list[str]:
    args = ["-O3", "-fopenmp", "-std=c11", "-Wall", "-Wextra", "-fno-strict-aliasing", "-flto=auto",
            "-fvisibility=hidden", "-fno-semantic-interposition",
            # CPython's own CFLAGS carry -fwrapv, which costs the step loop a
            # quarter of its speed; the core has no signed overflow (the
            # sanitizer build in the tests checks that without -fwrapv).
            "-fno-wrapv"]
    dispatch = dispatch_build()
    x86 = platform.machine() in ("x86_64", "AMD64")
    baseline = "x86-64-v2" if x86 else ""
    march = os.environ.get("FIVEROW_MARCH", baseline if dispatch else default_march())
    if march:
        args.append(f"-march={march}")
    if dispatch:
        # -g0: the wheel ships no debug info (CPython's CFLAGS carry -g)
        args += ["-DFIVEROW_DISPATCH", "-g0"]
    return args


def c_sources(binding: bool = True, root: str = "") -> list[str]:
    """The C core's sources, room by room (csrc/<room>/*.c), relative to root
    (the checkout; paths stay relative for setuptools when it is ""); without
    the binding (csrc/python/) for the standalone C builds of the tests,
    fuzzers and benchmarks."""
    rooms = sorted(glob.glob(os.path.join(root, "csrc", "*", "")))
    return [
        path
        for room in rooms
        if binding or os.path.basename(os.path.normpath(room)) != "python"
        for path in sorted(glob.glob(os.path.join(room, "*.c")))
    ]


def hdf5_flags() -> tuple[list[str], list[str]]:
    """Compile and link flags of the HDF5 C library, from pkg-config (Debian's
    libhdf5-dev lives under hdf5/serial). The shared library is linked: the
    static line `h5cc -show` prints fails inside a shared object."""
    try:
        out = subprocess.run(
            ["pkg-config", "--cflags", "--libs", "hdf5"], capture_output=True, text=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise SystemExit(
            "fiverow needs the HDF5 C library: `pkg-config --cflags --libs hdf5` failed "
            f"({e}); on Debian/Ubuntu run `apt-get install libhdf5-dev pkg-config` "
            "(make setup does it)"
        ) from e
    words = shlex.split(out)
    cflags = [w for w in words if w.startswith("-I")]
    # zlib: the writer compresses chunks itself (csrc/io/h5chunk.c); HDF5 needs it anyway
    ldflags = [w for w in words if not w.startswith("-I")] + ["-lz"]
    return cflags, ldflags


# setuptools runs this file as __main__; benchmarks import it for the flags.
if __name__ == "__main__":
    hdf5_cflags, hdf5_ldflags = hdf5_flags()
    setup(
        ext_modules=[
            Extension(
                "fiverow._core",
                sources=c_sources(),
                depends=sorted(glob.glob("csrc/*/*.h")),
                include_dirs=["csrc"],
                extra_compile_args=compile_args() + hdf5_cflags,
                extra_link_args=["-fopenmp", "-flto=auto", "-O3", *hdf5_ldflags]
                + (["-g0"] if dispatch_build() else []),
            )
        ]
    )
