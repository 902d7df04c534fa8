"""Runs on Ray when part of the cluster fails (issue 27): a worker node lost
in the middle of `generate --ray` (Ray's own `ray.cluster_utils.Cluster`, two
nodes), a lost progress actor, a shard Ray gives up on, and a wrong address.
Progress never takes a run down; a lost node loses nothing finished, and the
run completes or stops in one line saying how to resume."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")

from ray.cluster_utils import Cluster  # noqa: E402

from fiverow import data, players  # noqa: E402
from fiverow.data import distributed  # noqa: E402
from fiverow.data.generate import generate, parts_of  # noqa: E402
from fiverow.data.selfplay import Progress  # noqa: E402
from fiverow.data.shards import RunSpec, plan  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# long enough games (about 0.15 s each) that a node can be removed mid-run
RUN = dict(
    variants="freestyle",
    games=48,
    seed=4,
    boards=8,
    black="mcts:32",
    white="heuristic",
    params={"size": 9},
)


def columns(path: Path) -> dict[str, np.ndarray]:
    with data.open(path) as ds:
        vd = ds["freestyle"]
        e = vd.episodes
        out = {f"episodes/{k}": v for k, v in e.items()}
        out["steps/action"] = np.concatenate([vd.episode(i).actions for i in range(len(vd))])
    return out


def cli(*argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    env.pop("RAY_ADDRESS", None)
    return subprocess.run(
        [sys.executable, "-m", "fiverow", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


@pytest.mark.serial
@pytest.mark.parametrize("address", ["127.0.0.1:1", "ray://127.0.0.1:1"])
def test_a_wrong_address_fails_in_one_line_naming_it(tmp_path, address):
    with pytest.raises(distributed.ClusterError, match=f"cannot reach a Ray cluster at {address}"):
        distributed.check_reachable(address)
    with pytest.raises(ValueError, match="not a cluster address"):
        distributed.check_reachable("no-port-here")
    out = tmp_path / "r.h5"
    run = cli("generate", "--games", "4", "--out", str(out), "--ray", address, "--quiet")
    assert run.returncode == 2, run
    assert run.stderr.startswith("fiverow: error: cannot reach a Ray cluster at " + address)
    assert run.stderr.count("\n") == 1 and "--resume" not in run.stderr, run.stderr
    assert not out.exists() and not parts_of(out).exists()
    run = cli("balance", "--variants", "freestyle", "--games", "4", "--ray", address, "--quiet")
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run
    assert f"cannot reach a Ray cluster at {address}" in run.stderr


@pytest.mark.slow
@pytest.mark.serial
def test_an_address_where_something_else_listens_fails_naming_it(tmp_path):
    """A port that accepts connections but is not Ray's: Ray's own client
    gives up after about 40 s (its warnings on stderr); the run then stops
    with one line of its own naming the address."""
    with socket.socket() as listener:
        listener.bind(("0.0.0.0", 0))
        listener.listen(8)
        address = f"127.0.0.1:{listener.getsockname()[1]}"
        out = tmp_path / "r.h5"
        run = cli("generate", "--games", "4", "--out", str(out), "--ray", address, "--quiet")
    assert run.returncode == 2, run
    last = run.stderr.splitlines()[-1]
    assert last.startswith(f"fiverow: error: cannot reach a Ray cluster at {address}: ")
    assert "not answer as Ray's GCS" in last and "Traceback" not in run.stderr
    assert not out.exists()


@pytest.fixture(scope="module")
def head():
    """A cluster of one head node (1 CPU); tests add and remove nodes."""
    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "include_dashboard": False},
    )
    ray.init(address=cluster.address, logging_level="warning")
    yield cluster
    ray.shutdown()
    cluster.shutdown()


@pytest.fixture(scope="module")
def single(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("single") / "single.h5"
    generate(out, **RUN)
    return out


@pytest.mark.slow
@pytest.mark.serial
def test_losing_a_worker_node_mid_run_loses_nothing(head, single, tmp_path, capsys):
    """Ray plays the lost node's shards again on the node left: the file is
    the single-machine one, game for game, with the progress bar on."""
    worker = head.add_node(num_cpus=2)
    head.wait_for_nodes()
    out = tmp_path / "lost.h5"
    result: dict = {}

    def run() -> None:
        try:
            result["r"] = generate(out, **RUN, ray=head.address, shard_games=2, progress=True)
        except BaseException as e:  # noqa: BLE001 - the test reports it
            result["error"] = e

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and thread.is_alive():
        if len(list(parts_of(out).glob("seg-*.h5"))) >= 2:
            break
        time.sleep(0.02)
    assert thread.is_alive(), f"the run ended before the node could be removed: {result}"
    head.remove_node(worker, allow_graceful=False)
    thread.join(timeout=600)
    assert not thread.is_alive()
    assert "error" not in result, result
    assert result["r"].games == 48 and not result["r"].interrupted
    want, got = columns(single), columns(out)
    assert want.keys() == got.keys()
    for name in want:
        np.testing.assert_array_equal(want[name], got[name], err_msg=name)
    assert "generate: 48/48 games" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.serial
def test_a_lost_progress_actor_leaves_the_progress_line_counting(head, capsys):
    """The progress actor killed after the first shard: every shard is still
    played and the progress line goes on from the finished shards."""
    random = players.make("random")
    spec = RunSpec({"freestyle": 1.0}, 4, 3, (random, random), False, {"size": 9}, 1)
    shards = plan(0, 24, 4)
    board = distributed._new_board()
    done: list[int] = []

    def on_done(shard, records, _data) -> None:
        if not done:
            ray.kill(board)
        done.append(len(records))

    bar = Progress(24, label="shards: ")
    interrupted = distributed.run_shards(spec, shards, on_done, bar=bar, board=board)
    assert not interrupted and sum(done) == 24 and len(done) == 6
    bar.update(24, 0, final=True)
    assert "shards: 24/24 games" in capsys.readouterr().err
    # and a killed actor handed to the next run is replaced, not waited on
    assert not distributed.run_shards(spec, shards[:1], lambda *a: None, board=board)


@pytest.mark.slow
@pytest.mark.serial
def test_a_shard_ray_gives_up_on_stops_the_run_saying_how_to_resume(
    head, single, tmp_path, monkeypatch
):
    """When Ray cannot play a shard even after its retries, the finished
    shards are kept and the error says to resume; resuming completes the
    file, game for game."""
    out = tmp_path / "stopped.h5"
    real_run_shards = distributed.run_shards

    def failing_run_shards(spec, shards, on_done, **kwargs):
        def on_done_then_fail(shard, records, blob):
            on_done(shard, records, blob)
            if shard.index == 3:
                raise distributed.ShardLost(shards[-1], ray.exceptions.NodeDiedError("n1"))

        return real_run_shards(spec, shards, on_done_then_fail, **kwargs)

    monkeypatch.setattr(distributed, "run_shards", failing_run_shards)
    with pytest.raises(distributed.ClusterError) as e:
        generate(out, **RUN, ray=head.address, shard_games=4)
    message = str(e.value)
    assert message.startswith("the run stopped: shard 11 (games 44..47) failed on the cluster")
    assert "NodeDiedError" in message and "--resume" in message and str(out) in message
    with data.open(out) as ds:
        assert 4 <= len(ds) < 48  # the finished shards, readable
    monkeypatch.setattr(distributed, "run_shards", real_run_shards)
    r = generate(out, **RUN, ray=head.address, shard_games=4, resume=True)
    assert r.games == 48
    want, got = columns(single), columns(out)
    for name in want:
        np.testing.assert_array_equal(want[name], got[name], err_msg=name)
