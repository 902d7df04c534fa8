"""The rooms of the C core and of the Python package, and the direction of
their includes and imports (issue 28).

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

The Python package (python/fiverow/) has rooms too, its subpackages, in
one order, bottom to top:

    _core, _version, presets -> analysis, rules -> render -> env -> nets ->
    players -> runs -> data -> records, studies -> adapters -> cli -> fiverow

A module imports, at module level, only modules of its own room and of the
rooms below it (rooms on one level import neither of each other), so no
import circle can form between rooms. `fiverow` is the package's own
`__init__` (and `__main__`), which gathers every room's public names. Imports
inside a function and under `if TYPE_CHECKING:` are not counted: they run
when called, with the whole package loaded, and are left for optional
libraries and for the few lookups up by name (an env's opponent by name,
`players.make` of a Gomocup engine, a network's player).

Run as a script (`make lint`) or through tests/test_rooms.py; prints every
include and import that goes the wrong way and every family branch outside
its room.
"""

from __future__ import annotations

import ast
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


PACKAGE = Path(__file__).resolve().parent.parent / "python" / "fiverow"
#: The Python rooms, bottom (0) to top.
PY_LEVELS: dict[str, int] = {
    "_core": 0,
    "_version": 0,
    "presets": 0,
    "analysis": 1,
    "rules": 1,
    "render": 2,
    "env": 3,
    "nets": 4,
    "players": 5,
    "runs": 6,
    "data": 7,
    "records": 8,
    "studies": 8,
    "adapters": 9,
    "cli": 10,
    "": 11,  # the package's __init__ and __main__
}


def _modules(package: Path) -> dict[str, Path]:
    """The package's modules by dotted name (the C extension by its stub)."""
    modules: dict[str, Path] = {}
    for path in sorted([*package.rglob("*.py"), *package.rglob("*.pyi")]):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules.setdefault(".".join(parts), path)
    return modules


def _module_level_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """The imports run when the module is imported: not those in a function,
    nor those under ``if TYPE_CHECKING:``."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                found.extend(_module_level_imports(ast.Module(body=[child], type_ignores=[])))
        else:
            found.extend(_module_level_imports(node))
    return found


def _targets(
    node: ast.Import | ast.ImportFrom, name: str, ispkg: bool, modules: dict[str, Path]
) -> list[str]:
    """The modules an import statement of module ``name`` loads: ``from . import
    a, b`` loads the modules a and b, ``from .a import x`` the module a."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        base = name.split(".")[: len(name.split(".")) - (0 if ispkg else 1)]
        base = base[: len(base) - (node.level - 1)]
        module = ".".join(base + ([node.module] if node.module else []))
    else:
        module = node.module or ""
    subs = [f"{module}.{a.name}" for a in node.names if f"{module}.{a.name}" in modules]
    return subs if len(subs) == len(node.names) else [module, *subs]


def _room(module: str) -> str:
    parts = module.split(".")
    return "" if len(parts) == 1 or parts[1] == "__main__" else parts[1]


def wrong_imports(package: Path = PACKAGE, levels: dict[str, int] = PY_LEVELS) -> list[str]:
    """Every module-level import of a room above or beside the importing
    module's room, and every module outside a known room."""
    problems: list[str] = []
    modules = _modules(package)
    top = package.name
    for name, path in modules.items():
        room = _room(name)
        rel = path.relative_to(package.parent)
        if room not in levels:
            problems.append(f"{rel}: not in a room ({', '.join(r for r in levels if r)})")
            continue
        if path.suffix != ".py":
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in _module_level_imports(tree):
            for target in _targets(node, name, path.name == "__init__.py", modules):
                if target != top and not target.startswith(top + "."):
                    continue
                other = _room(target)
                if other == room:
                    continue
                if other not in levels:
                    problems.append(f"{rel}:{node.lineno}: imports {target}, which is in no room")
                elif levels[other] >= levels[room]:
                    where = "beside" if levels[other] == levels[room] else "above"
                    problems.append(
                        f"{rel}:{node.lineno} ({room}) imports {target} "
                        f"({other or top}), a room {where} it"
                    )
    return problems


def main() -> int:
    problems = wrong_includes() + family_branches() + wrong_imports()
    for line in problems:
        print(line)
    if problems:
        print(f"{len(problems)} problem(s) with the rooms (tests/check_rooms.py)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
