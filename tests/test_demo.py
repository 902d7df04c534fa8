"""`fiverow demo`, the main job of `make run` (issue 26): self-play of every
preset to HDF5, the balance table and report, one game per preset as an HTML
page, every output's path printed; an earlier demo is kept unless asked."""

from __future__ import annotations

import pytest

import fiverow
from fiverow import cli
from fiverow.cli import demo


def test_demo_writes_the_dataset_the_balance_table_and_a_game_per_preset(tmp_path, capsys):
    out = tmp_path / "run"
    (out / "games").mkdir(parents=True)
    (out / "selfplay.h5").write_text("an earlier demo's")
    args = ["demo", "--out", str(out), "--games", "3", "--quiet"]
    # an earlier demo is kept unless asked, refused before any game
    with pytest.raises(ValueError, match="--overwrite"):
        demo.run(cli.build_parser().parse_args(args))
    assert cli.main([*args, "--overwrite"]) == 0
    printed = capsys.readouterr().out
    presets = fiverow.preset_names()
    with fiverow.data.open(out / "selfplay.h5") as ds:
        assert sorted(ds) == sorted(presets)
        assert all(len(ds[p]) == 3 for p in presets)
    for preset in presets:
        page = out / "games" / f"{preset}.html"
        assert page.stat().st_size > 0 and str(page) in printed
        assert any(line.startswith(preset + " ") for line in printed.splitlines())  # its row
    assert (out / "balance" / "report.md").exists() and "advantage" in printed
    assert str(out / "selfplay.h5") in printed


def test_demo_refuses_bad_settings(tmp_path, capsys):
    assert cli.main(["demo", "--out", str(tmp_path / "x"), "--games", "0"]) == 2
    assert "--games must be at least 1" in capsys.readouterr().err
