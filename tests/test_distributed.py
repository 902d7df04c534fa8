"""Self-play on Ray (fiverow.distributed), on one local Ray of 2 CPUs started
once for the module: datasets and balance reports identical to one machine's
whatever the shards, a killed worker's shard played again, a killed driver's
finished shards kept readable and resumed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import h5py
import numpy as np
import pytest

ray = pytest.importorskip("ray")

from fiverow import Match, balance, cli, data  # noqa: E402
from fiverow.data.generate import generate, parts_of  # noqa: E402

MIX = {"freestyle": 1.0, "caro": 2.0}
PARAMS = {"size": 9}
BOARDS = 24
SEED = 4
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, logging_level="warning")
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


def columns(path: Path) -> dict[str, np.ndarray]:
    out = {}
    with h5py.File(path) as f:
        for v in f.attrs["variants"].split("\n"):
            for kind in ("steps", "episodes"):
                for name, ds in f[v][kind].items():
                    out[f"{v}/{kind}/{name}"] = ds[()]
    return out


def assert_same_games(want: Path, got: Path) -> None:
    a, b = columns(want), columns(got)
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def single(tmp_path: Path, **kw) -> Path:
    out = tmp_path / "single.h5"
    generate(out, **kw)
    return out


RUN = dict(variants=MIX, games=160, seed=SEED, boards=BOARDS, params=PARAMS)


def test_generate_on_ray_is_the_single_machine_file(cluster, tmp_path):
    want = single(tmp_path, **RUN)
    for shard_games in (13, 160):
        out = tmp_path / f"ray-{shard_games}.h5"
        r = generate(out, **RUN, ray=True, shard_games=shard_games)
        assert r.games == 160 and not r.interrupted
        assert_same_games(want, out)
        assert not parts_of(out).exists()
        with data.open(out) as ds:
            assert ds.run["shards"]["games_per_shard"] == shard_games


def test_balance_on_ray_is_the_same_report(cluster):
    kw = dict(players=["heuristic", "random"], games=30, seed=SEED, swap=True, params=PARAMS)
    here = balance.run(["freestyle", "caro"], **kw)
    there = balance.run(["freestyle", "caro"], **kw, ray=True)
    assert json.dumps(here.to_json(), default=str) == json.dumps(there.to_json(), default=str)
    stop = balance.StopRule("width", width=0.4)
    here = balance.run(["freestyle", "caro"], **kw, stop=stop, boards=8)
    there = balance.run(["freestyle", "caro"], **kw, stop=stop, boards=8, ray=True)
    assert json.dumps(here.to_json(), default=str) == json.dumps(there.to_json(), default=str)


def test_matches_and_ladders_on_ray_are_the_same(cluster):
    here = Match("freestyle", "heuristic", "random", games=20, seed=3, params=PARAMS).play()
    there = Match("freestyle", "heuristic", "random", games=20, seed=3, params=PARAMS, ray=True)
    np.testing.assert_array_equal(np.sort(here.games), np.sort(there.play().games))
    kw = dict(games=8, seed=2, bootstrap=20, params=PARAMS)
    ladder = ["random", "heuristic"]
    here_elo = balance.ladder("caro", ladder, **kw).as_dict()
    assert here_elo == balance.ladder("caro", ladder, **kw, ray=True).as_dict()


def test_the_public_name_loads_ray_only_when_used():
    code = (
        "import sys, fiverow; assert 'ray' not in sys.modules; "
        "import fiverow.distributed as d; assert 'ray' in sys.modules; "
        "assert d is fiverow.data.distributed and d.MAX_RETRIES == 3"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    subprocess.run([sys.executable, "-c", code], env=env, check=True)


def _descendants(pid: int) -> list[int]:
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    out, frontier = [], [pid]
    while frontier:
        p = frontier.pop()
        kids = [c for c, pp in parents.items() if pp == p]
        out += kids
        frontier += kids
    return out


def _playing_workers() -> list[int]:
    """This test's Ray workers running a shard (Ray names them by the task)."""
    found = []
    for pid in _descendants(os.getpid()):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if cmd.startswith(b"ray::_play"):
            found.append(pid)
    return found


def test_a_killed_workers_shard_is_played_again(cluster, tmp_path):
    run = dict(RUN, games=24, black="mcts:4", white="random")
    want = single(tmp_path, **run)
    out = tmp_path / "killed.h5"
    result: dict = {}
    worker = threading.Thread(
        target=lambda: result.setdefault("r", generate(out, **run, ray=True, shard_games=3))
    )
    worker.start()
    killed = None
    deadline = time.monotonic() + 120
    while killed is None and worker.is_alive() and time.monotonic() < deadline:
        pids = _playing_workers()
        if pids:
            killed = pids[0]
            os.kill(killed, signal.SIGKILL)
        time.sleep(0.02)
    worker.join(timeout=300)
    assert killed is not None, "no worker was seen playing"
    assert result["r"].games == 24
    assert_same_games(want, out)


def _cli_generate(out: Path, address: str, *extra: str) -> subprocess.Popen:
    argv = [
        sys.executable, "-m", "fiverow", "generate", "--mix", "freestyle:1,caro:2",
        "--games", "120", "--seed", str(SEED), "--boards", str(BOARDS), "--param", "size=9",
        "--black", "mcts:4", "--white", "random", "--out", str(out), "--ray", address,
        "--shard-games", "4",
        "--flush-seconds", "0.1", "--quiet", *extra,
    ]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    return subprocess.Popen(
        argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def _wait_for_segments(out: Path, n: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        if len(list(parts_of(out).glob("seg-*.h5"))) >= n and out.exists():
            return
        time.sleep(0.05)
    raise AssertionError(
        f"no {n} segments: {proc.poll()} {proc.stderr.read() if proc.stderr else ''}"
    )


SLOW = dict(RUN, games=120, black="mcts:4", white="random")  # long enough to be stopped


@pytest.fixture(scope="module")
def slow_single(tmp_path_factory) -> Path:
    return single(tmp_path_factory.mktemp("slow"), **SLOW)


@pytest.mark.slow  # make check: the kill runs
@pytest.mark.parametrize("how", ["ctrl-c", "kill"])
def test_a_stopped_driver_keeps_its_shards_and_resumes(cluster, slow_single, tmp_path, how):
    run, want = SLOW, slow_single
    out = tmp_path / "stopped.h5"
    proc = _cli_generate(out, cluster)
    _wait_for_segments(out, 2, proc)
    proc.send_signal(signal.SIGINT if how == "ctrl-c" else signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=120)
    if how == "ctrl-c":
        assert proc.returncode == 130, stderr  # the CLI says: interrupted
        assert "interrupted, kept" in stdout
    # the finished shards read as a dataset, each game as in the whole run
    whole = columns(want)
    with data.open(out) as ds:
        kept = sum(len(ds[v]) for v in ds.variants)
        assert 0 < kept < 120
        for v in ds.variants:
            games = ds[v].episodes["game"]
            mine = np.isin(whole[f"{v}/episodes/game"], games)
            np.testing.assert_array_equal(
                ds[v].episodes["length"], whole[f"{v}/episodes/length"][mine]
            )
    if how == "kill":  # or made one file of, as they are
        copy = tmp_path / "copy"
        copy.mkdir()
        shutil.copy(out, copy / out.name)
        shutil.copytree(parts_of(out), parts_of(copy / out.name))
        assert cli.main(["pack", str(copy / out.name)]) == 0
        with data.open(copy / out.name) as ds:
            assert sum(len(ds[v]) for v in ds.variants) == kept
            assert ds.run["shards"]["games_per_shard"] == 4
    r = generate(out, **run, ray=True, shard_games=4, resume=True)
    assert r.games == 120 and not r.interrupted
    assert_same_games(want, out)


def test_resume_with_other_settings_is_refused(cluster, tmp_path):
    out = tmp_path / "r.h5"
    os.makedirs(parts_of(out))
    (parts_of(out) / "plan.json").write_text(json.dumps({"request": {"seed": 1}, "shard_games": 5}))
    with pytest.raises(ValueError, match="other settings"):
        generate(out, **RUN, ray=True, resume=True)


def test_cli_generate_and_balance_take_ray(cluster, tmp_path, capsys):
    out = tmp_path / "cli.h5"
    assert cli.main(["generate", "--games", "20", "--param", "size=9", "--out", str(out),
                     "--ray", "--quiet"]) == 0  # fmt: skip
    assert "wrote 20 games" in capsys.readouterr().out
    assert cli.main(["balance", "--variants", "freestyle", "--games", "10", "--param", "size=9",
                     "--players", "random", "--ladder", "random,heuristic", "--ladder-games", "4",
                     "--ray", "--quiet"]) == 0  # fmt: skip
    assert "freestyle" in capsys.readouterr().out


@pytest.mark.parametrize(
    "kwargs,words",
    [
        ({"resume": True}, "for runs on Ray"),
        ({"shard_games": 4}, "for runs on Ray"),
        ({"ray": True, "shard_games": 0}, "shard_games"),
        ({"ray": True, "gzip": 11}, "gzip"),
        ({"ray": 3}, "ray must be"),
    ],
)
def test_bad_ray_arguments_are_refused(cluster, tmp_path, kwargs, words):
    with pytest.raises((ValueError, TypeError), match=words):
        generate(tmp_path / "bad.h5", "freestyle", games=4, **kwargs)
    assert not (tmp_path / "bad.h5").exists() and not parts_of(tmp_path / "bad.h5").exists()
