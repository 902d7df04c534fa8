"""Crash runs of the dataset writer: `fiverow generate` killed (SIGKILL) at 20
points spread from its start-up to its final pack always leaves either no file
or a file that `fiverow.data.open` reads, or that `fiverow pack` repairs,
with every finished episode intact (its replay gives its recorded outcome)
and none duplicated."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from fiverow import data
from fiverow.data.generate import pack

KILL_POINTS = 20


def generate_cmd(path: Path, games: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "fiverow.cli",
        "generate",
        "--mix",
        "freestyle:1,renju-soosorv8:1",
        "--games",
        str(games),
        "--boards",
        "16",
        "--flush-seconds",
        "0.05",
        "--out",
        str(path),
        "--quiet",
    ]


def check_dataset(path: Path) -> int:
    """Open (packing first if the file needs it); every episode's offsets,
    uniqueness and, for a sample, its replay's outcome; returns the episodes."""
    try:
        ds = data.open(path)
    except data.DatasetError:
        pack(path)
        ds = data.open(path)
    total = 0
    with ds:
        for name in ds.variants:
            vd = ds[name]
            e = vd.episodes
            n = len(e["game"])
            total += n
            lengths = e["length"].astype(np.int64)
            assert np.all(lengths > 0)
            np.testing.assert_array_equal(e["offset"], np.cumsum(lengths) - lengths)
            assert lengths.sum() == vd.steps
            keys = set(zip(e["board"].tolist(), e["episode"].tolist(), strict=True))
            assert len(keys) == n, f"{name}: an episode is recorded twice"
            assert len(set(e["game"].tolist())) == n
            for i in sorted({0, n // 2, n - 1}) if n else []:
                episode, replay = vd.episode(i), vd.replay(i)
                assert replay.masks[np.arange(episode.length), replay.actions].all()
                last = replay.returns[-1]
                if episode.winner < 0:
                    assert last == 0
                else:  # +1 for the winner's moves, -1 for the loser's
                    assert last == (1 if replay.seats[-1] == episode.winner else -1)
    return total


def wait_for_output(path: Path, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    """Until the run has written something (its segment directory or file)."""
    deadline = time.monotonic() + timeout
    parts = Path(f"{path}.parts")
    while time.monotonic() < deadline and proc.poll() is None:
        if parts.exists() or path.exists():
            return
        time.sleep(0.01)


@pytest.mark.slow  # make check: the kill runs
@pytest.mark.serial  # kills at random moments: a loaded machine shifts where they land
def test_killed_anywhere_the_file_reads_or_packs(tmp_path):
    rng = random.Random(17)
    outcomes = {"no file": 0, "read": 0, "finished": 0}
    for point in range(KILL_POINTS):
        path = tmp_path / f"run{point}.h5"
        # even points: an endless run; odd: one that ends (and packs) near the kill
        games = 10**8 if point % 2 == 0 else 48
        proc = subprocess.Popen(
            generate_cmd(path, games), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        if point >= 4:  # the first few die during start-up, the rest once writing
            wait_for_output(path, proc)
        time.sleep(rng.uniform(0.0, 1.0))
        proc.kill()
        _, err = proc.communicate(timeout=60)
        if proc.returncode == 0:  # it finished first: a packed file of every game
            outcomes["finished"] += 1
            assert check_dataset(path) == games
            continue
        assert proc.returncode == -signal.SIGKILL, err[-2000:]
        # an endless run killed once it had written: its file must be there
        assert path.exists() or point % 2 or point < 4, f"point {point}: no file"
        if not path.exists():
            outcomes["no file"] += 1
            continue
        outcomes["read"] += 1
        check_dataset(path)
    # the endless runs killed after start-up read, whatever the timing; the
    # short ones may finish before their kill on a fast machine
    assert outcomes["read"] >= (KILL_POINTS - 4) // 2, outcomes


@pytest.mark.parametrize("preset", ["freestyle", "renju", "caro", "freestyle-swap2", "hex"])
def test_replaying_an_episode_in_an_env_gives_its_outcome(tmp_path, preset):
    """The recorded actions stepped through a fresh env (illegal actions raise)
    end the game at the last step with the recorded winner."""
    import fiverow
    from fiverow.data.generate import generate

    path = tmp_path / "g.h5"
    generate(path, preset, games=6, boards=3, seed=3, black="heuristic", white="random")
    with data.open(path) as ds:
        vd = ds[preset]
        for i in range(len(vd)):
            ep = vd.episode(i)
            env = fiverow.make_vec(preset, num_envs=1, seed=0, autoreset_mode="disabled")
            env.reset()
            g = env.pool.groups[preset]
            for t, a in enumerate(ep.actions):
                assert not (g.terminated[0] or g.truncated[0]), f"ended before step {t}"
                env.step(np.array([a]))
            assert bool(g.truncated[0]) == bool(ep.truncated)
            assert int(g.winner[0]) == ep.winner
            assert g.terminated[0] or g.truncated[0]
