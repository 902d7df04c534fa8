"""The C core's rooms and the direction of their includes (issue 28).

csrc/ is split into rooms, each a folder; a room may include its own headers
and those of the rooms below it, never one above or beside it, so that no
include circle can form between rooms:

    base -> geometry -> game -> rules, openings -> variants -> players -> env -> io -> python

(`rules` and `openings` share a level: neither includes the other; both place
stones through `game`.) Run as a script (`make lint`) or through
tests/test_rooms.py; prints every include that goes the wrong way.
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


def main() -> int:
    problems = wrong_includes()
    for line in problems:
        print(line)
    if problems:
        print(f"{len(problems)} include(s) against the rooms' direction (tests/check_rooms.py)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
