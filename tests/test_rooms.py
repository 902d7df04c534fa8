"""The C core's rooms (issue 28): includes go only downwards between rooms,
and only the rules' room and the registry know which rule family a variant is
(tests/check_rooms.py, also run by `make lint`)."""

from __future__ import annotations

from pathlib import Path

from check_rooms import CSRC, family_branches, wrong_includes


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
