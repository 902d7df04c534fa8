from __future__ import annotations

import fcntl
import json
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

# Tests run in parallel (pytest-xdist), each worker's OpenMP teams beside the
# others': idle OpenMP threads must sleep, not spin on the cores the other
# workers need (libgomp reads this once, when fiverow loads; children inherit it).
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

import fiverow  # noqa: E402

DATA = Path(__file__).parent / "data"

# A suite started in the background (`cmd &`, nohup) inherits SIGINT ignored,
# and so would every process it starts: the Ctrl-C tests' generators would
# never see their SIGINT and hang. A handled SIGINT is reset to the default in
# a child by exec, so the children take Ctrl-C as a terminal's would.
signal.signal(signal.SIGINT, signal.default_int_handler)


def load_json(name: str) -> Any:
    with open(DATA / name) as f:
        return json.load(f)


def single_board(params: dict[str, Any] | str, **overrides: Any) -> fiverow.FiverowVectorEnv:
    """One board with autoreset off, reset with seed 0."""
    env = fiverow.make_vec(params, num_envs=1, seed=0, autoreset_mode="disabled", **overrides)
    env.reset()
    return env


def play_on(
    env: fiverow.FiverowVectorEnv, rows: list[str], cell: int, colour: str
) -> tuple[bool, int]:
    """Load rows with `colour` to move, play `cell`; (terminated, winner seat)."""
    env.load_position(0, rows, to_play=colour)
    _, _, terminated, _, info = env.step(np.array([cell]))
    return bool(terminated[0]), int(info["winner"][0])


@pytest.fixture
def data_dir() -> Path:
    return DATA


Built = TypeVar("Built", Path, dict[str, Path])


def build_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], Built]
) -> Built:
    """What `build(directory)` makes (a sanitizer driver, the fuzz targets: a
    path, or paths by name), made once per test run: pytest-xdist's workers
    share it, the first one building while the others wait on a lock and then
    take what it recorded, so that a parallel run compiles the C core once."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # shared by the workers of this run
    out, done = root / name, root / f"{name}.built.json"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            recorded = json.loads(done.read_text())
            return (
                Path(recorded)
                if isinstance(recorded, str)
                else {k: Path(v) for k, v in recorded.items()}
            )  # type: ignore[return-value]
        out.mkdir(exist_ok=True)
        built = build(out)
        done.write_text(
            json.dumps(
                str(built) if isinstance(built, Path) else {k: str(v) for k, v in built.items()}
            )
        )
        return built


# hypothesis (tests/test_properties.py): few examples in the suite, many under
# `make fuzz` (HYPOTHESIS_PROFILE=fuzz); derandomized in the suite so a run
# is repeatable
settings.register_profile(
    "ci",
    max_examples=8,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "fuzz", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
