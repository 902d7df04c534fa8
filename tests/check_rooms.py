"""The C core's rooms and the direction of their includes (issue 28).

csrc/ is split into rooms, each a folder; a room may include its own headers
and those of the rooms below it, never one above or beside it, so that no
include circle can form between rooms:

    base -> geometry -> game -> rules, openings -> variants -> players -> env -> io -> python

(`rules` and `openings` share a level: neither includes the other; both place
stones through `game`.)

A second check: only the rules' own room and the registry (`variants`) know
which rule family a variant is. Elsewhere nothing compares the `rule`
parameter or includes a family's header: code asks the family's row
(csrc/game/rule_family.h) or a trait it declares. The one exception is the
binding of `fiverow.renju.forbidden_points`, a renju-only function.

Run as a script (`make lint`) or through tests/test_rooms.py; prints every
include that goes the wrong way and every family branch outside its room.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

CSRC = Path(__file__).resolve().parent.parent / "csrc"
LEVELS: dict[str, int] = {
    "base": 0,
    "geometry": 1,
    "game": 2,
    "rules": 3,
    "openings": 3,
    "variants": 4,
    "players": 5,
    "env": 6,
    "io": 7,
    "python": 8,
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def wrong_includes(root: Path = CSRC) -> list[str]:
    """Every include of a room above or beside the including file's room, and
    every file outside a known room or include without a room."""
    problems: list[str] = []
    for path in sorted(root.rglob("*.[ch]")):
        rel = path.relative_to(root)
        room = rel.parts[0] if len(rel.parts) > 1 else ""
        if room not in LEVELS:
            problems.append(f"{rel}: not in a room ({', '.join(LEVELS)})")
            continue
        for name in INCLUDE.findall(path.read_text()):
            target = name.split("/")[0] if "/" in name else ""
            if target not in LEVELS:
                problems.append(f"{rel}: includes {name!r}, which names no room")
            elif target != room and LEVELS[target] >= LEVELS[room]:
                problems.append(f"{rel} ({room}) includes {name} ({target})")
    return problems


#: Where a rule family may be named.
FAMILY_ROOMS = ("rules", "variants")
#: Files outside them that may include one family's header, and why.
FAMILY_HEADER_USERS = {"python/module.c": "rules/renju.h"}  # fiverow.renju.forbidden_points
FAMILY_BRANCH = re.compile(r"\bp\.rule\b|\bRULE_[A-Z0-9]+\b|\boff_(renju|gomorpion|modlinseq)\b")
#: Names that look like a family branch and are not.
NOT_BRANCHES = ("RULE_TRAITS", "RULE_SNAPSHOT_WORDS", "RULE_FAMILY_H")


def family_branches(root: Path = CSRC) -> list[str]:
    """Every place outside the rules' room and the registry that asks which
    family a variant is (the rule parameter, a family's header)."""
    problems: list[str] = []
    for path in sorted(root.rglob("*.[ch]")):
        rel = path.relative_to(root)
        if rel.parts[0] in FAMILY_ROOMS:
            continue
        text = path.read_text()
        for number, line in enumerate(text.splitlines(), 1):
            for m in FAMILY_BRANCH.finditer(line):
                if m.group(0) not in NOT_BRANCHES:
                    problems.append(f"{rel}:{number}: asks the rule family ({m.group(0)})")
        for name in INCLUDE.findall(text):
            if name.startswith("rules/") and FAMILY_HEADER_USERS.get(str(rel)) != name:
                problems.append(f"{rel}: includes {name}, a rule family's own header")
    return problems


def main() -> int:
    problems = wrong_includes() + family_branches()
    for line in problems:
        print(line)
    if problems:
        print(f"{len(problems)} problem(s) with the rooms (tests/check_rooms.py)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
