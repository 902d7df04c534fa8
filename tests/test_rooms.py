"""The rooms (issue 28): in the C core includes go only downwards between
rooms, and only the rules' room and the registry know which rule family a
variant is; in the Python package module-level imports go only downwards
between rooms (tests/check_rooms.py, also run by `make lint`)."""

from __future__ import annotations

from pathlib import Path

from check_rooms import CSRC, PACKAGE, PY_LEVELS, family_branches, wrong_imports, wrong_includes


def test_no_room_includes_one_above_or_beside_it():
    assert wrong_includes() == []


def test_no_code_outside_the_rules_asks_which_family_it_is():
    assert family_branches() == []


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_the_checks_see_a_wrong_include_and_a_family_branch(tmp_path):
    write(tmp_path, "rules/x.c", '#include "env/batch.h"\n#include "game/game.h"\n')
    write(tmp_path, "openings/y.c", '#include "rules/renju.h"\n')
    write(tmp_path, "stray.c", "")
    write(tmp_path, "players/z.c", '#include "rules/gomorpion.h"\nif (v->p.rule == RULE_CARO)\n')
    wrong = wrong_includes(tmp_path)
    assert "rules/x.c (rules) includes env/batch.h (env)" in wrong
    assert "openings/y.c (openings) includes rules/renju.h (rules)" in wrong
    assert any(line.startswith("stray.c: not in a room") for line in wrong)
    assert len(wrong) == 3  # players/z.c -> rules is downwards: allowed by the rooms
    branches = family_branches(tmp_path)
    assert "players/z.c:2: asks the rule family (p.rule)" in branches
    assert "players/z.c:2: asks the rule family (RULE_CARO)" in branches
    assert "players/z.c: includes rules/gomorpion.h, a rule family's own header" in branches


def test_the_core_is_in_rooms():
    assert {p.name for p in CSRC.iterdir() if p.is_dir()} >= {"game", "rules", "players", "env"}


def test_no_python_room_imports_one_above_or_beside_it():
    assert wrong_imports() == []


def test_every_python_subpackage_is_a_room():
    rooms = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert rooms <= set(PY_LEVELS)
    assert {"env", "players", "runs", "data", "studies"} <= rooms


def test_the_python_check_sees_an_import_up_or_beside(tmp_path):
    package = tmp_path / "fiverow"
    write(package, "__init__.py", "from . import env, rules\nfrom .env.pool import Pool\n")
    write(package, "_core.pyi", "def f() -> None: ...\n")
    write(package, "rules/__init__.py", "")
    write(package, "rules/config.py", "from .. import _core\nfrom ..env import pool\n")
    write(package, "env/__init__.py", "")
    write(package, "env/pool.py", "from ..rules.config import x\nfrom ..analysis import stats\n")
    write(package, "analysis/__init__.py", "")
    write(package, "analysis/stats.py", "import fiverow.rules.config\n")
    write(package, "stray/__init__.py", "")
    write(
        package,
        "rules/quiet.py",
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ..env.pool import Pool\n"
        "def f():\n    from ..env import pool\n"
        "class C:\n    def g(self):\n        from .. import env\n",
    )
    levels = {"_core": 0, "analysis": 1, "rules": 1, "env": 2, "": 3}
    wrong = wrong_imports(package, levels)
    assert (
        "fiverow/rules/config.py:2 (rules) imports fiverow.env.pool (env), a room above it" in wrong
    )
    beside = "(analysis) imports fiverow.rules.config (rules), a room beside it"
    assert f"fiverow/analysis/stats.py:1 {beside}" in wrong
    assert any(line.startswith("fiverow/stray/__init__.py: not in a room") for line in wrong)
    # env imports rules and analysis, below it; the package's __init__ imports
    # down; rules/quiet.py only lazily
    assert len(wrong) == 3
