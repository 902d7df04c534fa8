"""The package's layout: rooms, public module names kept as aliases, presets
shipped inside the package, a source tree importable without installing."""

import importlib
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import fiverow

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("old,new", sorted(fiverow.MODULE_ALIASES.items()))
def test_old_module_names_are_the_moved_modules(old, new):
    moved = importlib.import_module(f"fiverow.{new}")
    assert importlib.import_module(f"fiverow.{old}") is moved
    assert getattr(fiverow, old) is moved


@pytest.mark.parametrize("old,new", sorted(fiverow.MOVED_MODULES.items()))
def test_moved_modules_keep_their_dotted_names(old, new):
    """`fiverow.data.selfplay` is `fiverow.runs.selfplay` itself, by import and
    as an attribute of its old package (so monkeypatches reach it)."""
    moved = importlib.import_module(f"fiverow.{new}")
    assert importlib.import_module(f"fiverow.{old}") is moved
    package, _, name = old.rpartition(".")
    assert getattr(importlib.import_module(f"fiverow.{package}"), name) is moved


def test_moved_names_import_from_their_old_modules():
    from fiverow.data.generate import parts_of, writer_spec
    from fiverow.env.pool import parse_position, position_cells
    from fiverow.players.match import mixed_pool, variant_weights

    assert writer_spec is fiverow.runs.output.writer_spec
    assert parts_of is fiverow.runs.output.parts_of
    assert mixed_pool is fiverow.runs.selfplay.mixed_pool
    assert variant_weights is fiverow.runs.selfplay.variant_weights
    assert parse_position is fiverow.rules.notation.parse_position
    assert position_cells is fiverow.rules.notation.position_cells


@pytest.mark.parametrize(
    "name", ["data", "players", "stats", "search", "renju", "modlinseq", "render", "generate"]
)
def test_documented_submodules_are_attributes_after_import_fiverow(name):
    code = f"import fiverow; print(fiverow.{name}.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().startswith("fiverow.")


def test_modlinseq_notation_is_reachable_from_import_fiverow():
    """Issue 12, defect 8: one rule for the public submodules (docs/hex-modlinseq.md
    uses ``fiverow.modlinseq.address``)."""
    code = "import fiverow; print(fiverow.modlinseq.address(0, 6), fiverow.renju.OPENINGS[0])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split()[0] == fiverow.modlinseq.address(0, 6)


def test_presets_ship_inside_the_package():
    presets = Path(fiverow.__file__).parent / "presets"
    assert sorted(p.stem for p in presets.glob("*.toml")) == sorted(fiverow.preset_names())


def test_source_tree_imports_without_the_installed_package(tmp_path):
    """`PYTHONPATH=python python -c "import fiverow"` from a checkout: no site
    hooks (so no editable-install finder), only the tree and the dependencies."""
    deps = sysconfig.get_paths()["purelib"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "python"), deps])}
    code = "import fiverow; print(fiverow.__file__); print(len(fiverow.preset_names()))"
    out = subprocess.run(
        [sys.executable, "-S", "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    path, count = out.stdout.split()
    assert Path(path).is_relative_to(REPO / "python")
    assert int(count) == len(fiverow.preset_names())


def test_the_command_runs_as_a_module():
    for module in ("fiverow", "fiverow.cli"):
        out = subprocess.run(
            [sys.executable, "-m", module, "variants"], capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        assert "freestyle" in out.stdout


def test_lazy_aliases_import_their_home_on_first_use(monkeypatch):
    monkeypatch.setitem(fiverow.LAZY_ALIASES, "lazy_stats_for_test", "analysis.stats")
    monkeypatch.delitem(sys.modules, "fiverow.lazy_stats_for_test", raising=False)
    module = importlib.import_module("fiverow.lazy_stats_for_test")
    assert module is fiverow.analysis.stats
    assert fiverow.lazy_stats_for_test is module
    monkeypatch.delattr(fiverow, "lazy_stats_for_test")
    sys.modules.pop("fiverow.lazy_stats_for_test")


def test_a_lazy_alias_may_name_a_module_of_a_room():
    """`fiverow.data.distributed` (Ray) stays importable by its old name, and
    only on first use."""
    code = (
        "import sys, fiverow\n"
        "assert 'ray' not in sys.modules\n"
        "from fiverow.data import distributed\n"
        "assert distributed is sys.modules['fiverow.runs.distributed']\n"
        "assert fiverow.distributed is distributed\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    code = (  # by its other name: both names are set, as when it lived in data/
        "import sys, fiverow\n"
        "import fiverow.distributed as d\n"
        "assert d is fiverow.data.distributed is sys.modules['fiverow.data.distributed']\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_adapters_load_their_library_only_when_used():
    code = (
        "import sys, fiverow\n"
        "assert 'pettingzoo' not in sys.modules and 'pyspiel' not in sys.modules\n"
        "import fiverow.pettingzoo\n"
        "assert fiverow.pettingzoo is sys.modules['fiverow.adapters.pettingzoo']\n"
        "assert fiverow.openspiel.game_name('renju-soosorv8') == 'fiverow_renju_soosorv8'\n"
        "assert 'pettingzoo' in sys.modules and 'pyspiel' in sys.modules\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_unknown_attributes_still_raise():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        fiverow.nope  # noqa: B018
