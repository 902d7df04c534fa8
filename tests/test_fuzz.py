"""The libFuzzer targets of the C core (tests/fuzz/fuzz_*.c, built with clang
and -fsanitize=fuzzer,address,undefined): every committed input (seed corpus
and the regressions, crashes found earlier and fixed) replayed, then each
target fuzzed for a few seconds (FIVEROW_FUZZ_SECONDS, default 3). Long runs:
`make fuzz` (docs/fuzzing.md)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import build_once

HERE = Path(__file__).resolve().parent
SECONDS = int(os.environ.get("FIVEROW_FUZZ_SECONDS", "3"))


def _run_fuzz() -> Any:
    spec = importlib.util.spec_from_file_location("run_fuzz", HERE / "fuzz" / "run_fuzz.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["run_fuzz"] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


RUN_FUZZ = _run_fuzz()


@pytest.fixture(scope="module")
def binaries(tmp_path_factory) -> dict[str, Path]:
    if shutil.which(RUN_FUZZ.CC) is None:
        pytest.fail(f"{RUN_FUZZ.CC} not found: the fuzz targets need it (make sysdeps installs it)")
    built: dict[str, Path] = build_once(tmp_path_factory, "fuzz", RUN_FUZZ.build)
    return built


@pytest.mark.parametrize("target", RUN_FUZZ.TARGETS)
def test_committed_inputs_pass(binaries, target):
    proc = RUN_FUZZ.replay(binaries[target], target)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "Running" in proc.stderr  # the inputs were found and run


@pytest.mark.slow  # make check: fuzzing runs for its time
@pytest.mark.parametrize("target", RUN_FUZZ.TARGETS)
def test_short_fuzz_run_finds_nothing(binaries, target, tmp_path):
    result = RUN_FUZZ.run(binaries[target], target, SECONDS, tmp_path)
    log = (tmp_path / f"{target}.log").read_text()
    assert result.returncode == 0 and not result.crashes, log[-4000:]
    assert result.executions > 0 and result.coverage > 0, log[-2000:]
