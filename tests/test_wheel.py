"""The wheel as a user gets it (issue 21): `make wheel`'s steps (the sdist,
the wheel built from it for any x86-64, auditwheel putting the HDF5 C library
inside), installed into a fresh venv outside the source tree and run there
with the system's HDF5 hidden (tests/wheel/smoke.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

#: `make check`: building the wheel takes minutes
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
SMOKE = Path(__file__).resolve().parent / "wheel" / "smoke.py"
AUDITWHEEL = Path(sys.executable).parent / "auditwheel"


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    assert proc.returncode == 0, f"{cmd}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def system_hdf5() -> list[Path]:
    """The system's HDF5 shared libraries (what a machine without them lacks)."""
    libdir = Path(sysconfig.get_config_var("LIBDIR") or "/usr/lib")
    dirs = {libdir, Path("/usr/lib/x86_64-linux-gnu"), Path("/usr/lib/aarch64-linux-gnu")}
    return sorted(p for d in dirs if d.is_dir() for p in d.glob("libhdf5*.so*"))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    if given := os.environ.get("FIVEROW_TEST_WHEEL"):  # one `make wheel` built already
        return Path(given)
    out = tmp_path_factory.mktemp("wheel")
    env = dict(os.environ, FIVEROW_DISPATCH="1")
    env.pop("PYTHONPATH", None)
    run([sys.executable, "-m", "build", "--no-isolation", "--outdir", out / "raw", ROOT], env=env)
    sdist = next((out / "raw").glob("fiverow-*.tar.gz"))
    raw = next((out / "raw").glob("fiverow-*.whl"))
    tools = dict(os.environ, PATH=f"{AUDITWHEEL.parent}{os.pathsep}{os.environ['PATH']}")
    run([AUDITWHEEL, "repair", "--wheel-dir", out / "dist", raw], env=tools)  # needs patchelf
    repaired = next((out / "dist").glob("fiverow-*manylinux*.whl"))
    assert sdist.stat().st_size > 0
    return repaired


def test_wheel_carries_hdf5_and_no_source_build(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("fiverow.libs/libhdf5") for n in names), names
    assert sum(n.startswith("fiverow/_core") and n.endswith(".so") for n in names) == 1
    assert "fiverow/presets/freestyle.toml" in names
    for baseline in ("freestyle", "renju", "freestyle-9x9"):  # the networks, package data
        assert f"fiverow/nets/baselines/{baseline}.fnet" in names


def test_wheel_installs_and_runs_without_system_hdf5(wheel, tmp_path):
    # nothing of the checkout or of the test run's environment reaches the venv
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", venv], env=env)
    py = venv / "bin" / "python"
    run([py, "-m", "pip", "install", "--quiet", wheel], env=env, cwd=tmp_path)
    site = Path(
        run(
            [py, "-c", "import fiverow; print(fiverow.__file__)"], env=env, cwd=tmp_path
        ).stdout.strip()
    ).parent.parent
    assert site.is_relative_to(venv), site
    core = next(site.glob("fiverow/_core*.so"))
    ldd = run(["ldd", core]).stdout
    # "libhdf5_serial-<hash>.so.103 => <site>/fiverow/../fiverow.libs/libhdf5_serial-... (0x...)"
    hdf5 = [line.split("=>")[1].split()[0] for line in ldd.splitlines() if "libhdf5" in line]
    inside = (site / "fiverow.libs").resolve()
    assert hdf5 and all(Path(p).resolve().parent == inside for p in hdf5), ldd
    hidden = system_hdf5()
    smoke = [py, SMOKE]
    if hidden and shutil.which("unshare"):
        # a private mount namespace where every system libhdf5 reads as empty
        mounts = "".join(f"mount --bind /dev/null {p} && " for p in hidden)
        probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
        if probe.returncode == 0:
            # first proof that the system's HDF5 is gone: loading it fails
            gone = f'! "{py}" -c "import ctypes; ctypes.CDLL(\'{hidden[0]}\')" 2>/dev/null && '
            smoke = ["unshare", "-rm", "sh", "-c", mounts + gone + f'exec "{py}" "{SMOKE}"']
    proc = run(smoke, env=env, cwd=tmp_path)
    assert '"episodes": 24' in proc.stdout, proc.stdout
