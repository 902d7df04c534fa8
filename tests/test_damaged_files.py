"""Damaged dataset files (issue 27): every reader, the command line's and the
Python ones, reports a damaged file in one line that names it (and the group
and dataset where known), never with h5py's traceback; ``fiverow info
--check`` reads every chunk and names what is damaged."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import h5py
import pytest

from fiverow import data, players
from fiverow.data.generate import generate, parts_of
from fiverow.data.shards import RunSpec, ShardFile, assemble, plan, play_shard, segment_path

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> Path:
    """A small dataset with policies: 40 games of mcts:4 on 9x9."""
    path = tmp_path_factory.mktemp("clean") / "games.h5"
    generate(path, "freestyle", games=40, black="mcts:4", policy=True, seed=3, params={"size": 9})
    return path


def overwrite(path: Path, offset: int, count: int) -> None:
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(bytes([0xAB]) * count)


def chunk_at(path: Path, name: str) -> tuple[int, int]:
    """(byte offset, size) of the first chunk of a dataset."""
    with h5py.File(path, "r") as f:
        info = f[name].id.get_chunk_info(0)
        return int(info.byte_offset), int(info.size)


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(ROOT / "python"), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-m", "fiverow", *argv], capture_output=True, text=True, env=env
    )


def assert_one_line(result: subprocess.CompletedProcess[str], path: Path, *words: str) -> None:
    assert result.returncode == 2, result
    err = result.stderr
    assert err.startswith("fiverow: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and str(path) in err, err
    for word in words:
        assert word in err, err


@pytest.fixture
def middle(clean, tmp_path) -> Path:
    """The issue's file: 2,000 bytes overwritten in the middle."""
    path = tmp_path / "middle.h5"
    shutil.copy(clean, path)
    overwrite(path, path.stat().st_size // 2 - 1000, 2000)
    return path


@pytest.fixture
def policy_chunk(clean, tmp_path) -> Path:
    """One chunk of steps/policy damaged (its middle overwritten)."""
    path = tmp_path / "policy.h5"
    shutil.copy(clean, path)
    offset, size = chunk_at(path, "freestyle/steps/policy")
    overwrite(path, offset + size // 2, 200)
    return path


def test_the_clean_file_checks_whole(clean):
    result = data.check(clean)
    assert result.ok and result.problems == []
    assert result.datasets == 16 and result.chunks >= 16
    run = cli("info", "--check", str(clean))
    assert run.returncode == 0, run
    assert run.stdout.splitlines()[-1].startswith(f"check: {result.chunks} chunks of 16 datasets")


def test_a_file_damaged_in_the_middle_is_one_line_for_every_reader(middle, tmp_path):
    with pytest.raises(data.DatasetError) as e:
        with data.open(middle) as ds:
            for name in ds.variants:
                for i in range(len(ds[name])):
                    ds[name].episode(i)
    assert str(middle) in str(e.value) and "\n" not in str(e.value)
    assert "freestyle" in str(e.value)
    with pytest.raises(data.DatasetError, match="middle.h5"):
        for _ in data.Batches(middle, batch_size=32):
            pass
    assert_one_line(cli("info", str(middle)), middle, "freestyle")
    assert_one_line(cli("balance", "--dataset", str(middle), "--quiet"), middle)
    assert_one_line(cli("view", str(middle), "--out", str(tmp_path / "v.html")), middle)
    check = cli("info", "--check", str(middle))
    assert check.returncode == 1 and "Traceback" not in check.stderr
    damaged = check.stdout.splitlines()
    assert damaged and all(line.startswith(f"damaged: '{middle}': ") for line in damaged)
    assert any("group 'freestyle" in line for line in damaged), damaged


def test_a_damaged_policy_chunk_opens_and_is_named_where_it_is_read(policy_chunk, tmp_path):
    path = policy_chunk
    # open and info read no step: the damage is not met there ...
    assert cli("info", str(path)).returncode == 0
    with data.open(path) as ds:
        vd = ds["freestyle"]
        assert len(vd) == 40
        # ... but every read of it names the file, the group, the dataset and the rows
        with pytest.raises(data.DatasetError) as e:
            vd.episode(0)
    message = str(e.value)
    assert message.startswith(f"'{path}': group 'freestyle', dataset 'steps/policy', rows 0..")
    assert "info --check" in message and "\n" not in message
    with pytest.raises(data.DatasetError, match="dataset 'steps/policy', rows "):
        for _ in data.Batches(path, batch_size=64, policy=True):
            pass
    with data.open(path) as ds:  # the moves alone still read
        assert len(ds["freestyle"].episodes["length"]) == 40
    view = cli("view", str(path), "--out", str(tmp_path / "v.html"))
    assert_one_line(view, path, "group 'freestyle', dataset 'steps/policy'")
    # --check finds it without being told where
    result = data.check(path)
    assert len(result.problems) == 1
    assert result.problems[0].startswith(
        f"'{path}': group 'freestyle', dataset 'steps/policy', rows 0.."
    )
    check = cli("info", "--check", str(path))
    assert check.returncode == 1
    assert check.stdout == f"damaged: {result.problems[0]}\n"
    assert check.stderr == f"{path}: 1 damaged part(s) found\n"


def test_check_reads_the_segment_files_of_a_killed_runs_file(tmp_path):
    """A killed run's file reads its episodes from segment files: a damaged
    chunk there is named with the dataset, its rows in the whole file, and
    the segment file."""
    out = tmp_path / "killed.h5"
    random = players.make("random")
    spec = RunSpec({"freestyle": 1.0}, 8, 5, (random, random), False, {"size": 9})
    parts_of(out).mkdir()
    shards = plan(0, 16, 8)
    for shard in shards:
        play_shard(spec, shard, ShardFile(str(segment_path(out, shard.index))))
    assemble(out, [s.index for s in shards], 5, {"players": ["random", "random"]}, pack=False)
    assert data.check(out).ok
    second = segment_path(out, 1)
    offset, size = chunk_at(second, "freestyle/steps/action")
    overwrite(second, offset + size // 2, min(size // 2, 40))
    with data.open(out) as ds:
        first_row = int(ds["freestyle"].episodes["offset"][8])
    (problem,) = data.check(out).problems
    assert problem.startswith(
        f"'{second}': group 'freestyle', dataset 'steps/action', rows {first_row}.."
    ), problem


def test_a_missing_file_is_an_error_not_damage(tmp_path):
    with pytest.raises(data.DatasetError, match="no such dataset"):
        data.check(tmp_path / "nothing.h5")
    assert_one_line(cli("info", "--check", str(tmp_path / "nothing.h5")), tmp_path, "no such")


def test_a_file_that_is_not_hdf5_is_damage(tmp_path):
    path = tmp_path / "text.h5"
    path.write_text("not HDF5\n")
    (problem,) = data.check(path).problems
    assert problem.startswith(f"'{path}' is not a readable HDF5 file")
    assert cli("info", "--check", str(path)).returncode == 1


@pytest.mark.parametrize(
    "text,words",
    [
        ('{"settings": ', "is not a balance report.json: Expecting value"),
        ("[1, 2]", "is not a balance report.json with its games recorded"),
        ('{"settings": {}, "variants": [{"variant": "x"}]}', "missing 'record'"),
    ],
)
def test_a_bad_report_json_is_named(tmp_path, text, words):
    path = tmp_path / "bad.json"
    path.write_text(text)
    assert_one_line(cli("balance", "--report", str(path)), path, words)
    assert_one_line(cli("balance", "--report", str(tmp_path / "none.json")), tmp_path, "no such")
