"""Every code block of README.md and docs/*.md runs, so that no example rots
(issue 21). The convention, also told to readers in docs/doc-tests.md:

- Pages run in order (README first), all in one scratch directory, so a page
  reads the files an earlier block wrote (`data.h5`). A page's Python blocks
  share one namespace, in order, that starts empty (nothing imported for it:
  a reader may start on any page); `>>>` blocks are doctests in it. A block
  that uses `fiverow` imports it itself (a reader pastes one block).
- Shell lines: `fiverow ...` runs, with the long-job flags of SCALED capped
  (`--games 100000` runs 4 games; `generate` and `balance --out` may
  overwrite); the same caps apply to the keyword arguments of Python blocks
  (`games=200` plays 4). `python SCRIPT ...` for the
  scripts of examples/ and benchmarks/ (minutes-long jobs, run by their own
  tests) is checked against the script's parser: every flag must exist.
  `make TARGET` must name a target of the Makefile, `pip install '.[x]'` an
  extra of pyproject.toml.
- `--ray ADDRESS` is dropped (the job runs in process). `./pbrain-rapfi`, the
  Gomocup brain the engine pages use, is fiverow's own engine (the heuristic)
  behind the two-line wrapper docs/engines.md shows.
- A block with a comment line holding "not run by the doc tests" is skipped;
  the comment says why, and readers see it.
"""

from __future__ import annotations

import ast
import doctest
import functools
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```", re.S | re.M)
MARK = "not run by the doc tests"
SCALED = {  # flag / keyword -> the cap the runner applies
    "games": 4,
    "ladder-games": 4,
    "ladder_games": 4,
    "teacher-games": 4,
    "simulations": 8,
    "steps": 20,
    "envs": 16,
    "num_envs": 64,
}


def blocks(page: Path) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(page.read_text())]


MCTS_CAP = 8  # simulations of an "mcts:N" player spec


def scale_specs(text: str) -> str:
    return re.sub(r"mcts:(\d+)", lambda m: f"mcts:{min(int(m.group(1)), MCTS_CAP)}", text)


def scale_python(source: str) -> str:
    def cap(m: re.Match[str]) -> str:
        value = int(m.group(2).replace("_", ""))
        return f"{m.group(1)}={min(value, SCALED[m.group(1)])}"

    names = "|".join(re.escape(k) for k in SCALED if "-" not in k)
    return scale_specs(re.sub(rf"\b({names})=([\d_]+)", cap, source))


def scale_args(args: list[str]) -> list[str]:
    out = [scale_specs(a) for a in args]
    for i, a in enumerate(out[:-1]):
        key = a.removeprefix("--")
        if a.startswith("--") and key in SCALED and out[i + 1].isdigit():
            out[i + 1] = str(min(int(out[i + 1]), SCALED[key]))
    return out


def overwrite(args: list[str]) -> list[str]:
    """Pages share files (README's data.h5 is written again by hdf5.md, its
    report/ by balance.md)."""
    writes = args[:1] == ["generate"] or (args[:1] == ["balance"] and "--out" in args)
    return ["--overwrite"] if writes and "--overwrite" not in args else []


def drop_ray(args: list[str]) -> list[str]:
    """`--ray ADDRESS` runs in this process instead (Ray has its own tests)."""
    i = args.index("--ray") if "--ray" in args else -1
    return args if i < 0 else args[:i] + args[i + 2 :]


def shell_commands(text: str) -> list[list[str]]:
    joined = re.sub(r"\\\n", " ", text)
    return [words for line in joined.splitlines() if (words := shlex.split(line, comments=True))]


@functools.cache  # a page names one script several times: ask its --help once
def script_flags(script: Path) -> str:
    proc = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 0, f"{script} --help failed:\n{proc.stderr[-2000:]}"
    return proc.stdout


def run_shell(words: list[str], cwd: Path) -> None:
    cmd, args = words[0], words[1:]
    if cmd == "fiverow":
        proc = subprocess.run(
            [sys.executable, "-m", "fiverow", *scale_args(drop_ray(args)), *overwrite(args)],
            stdin=subprocess.DEVNULL,  # `fiverow engine` and `fiverow play` end at EOF
            capture_output=True,
            text=True,
            cwd=cwd,
            timeout=300,
        )
        assert proc.returncode == 0, f"{words}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    elif cmd == "python" and args[:2] == ["-m", "pip"]:
        run_shell(["pip", *args[2:]], cwd)
    elif cmd == "python":
        script = ROOT / args[0]
        assert script.is_file() and script.parent.name in ("examples", "benchmarks"), words
        usage = script_flags(script)
        for flag in (a.split("=")[0] for a in args[1:] if a.startswith("--")):
            assert re.search(rf"{re.escape(flag)}\b", usage), f"{script.name} has no {flag}"
    elif cmd == "make":
        targets = re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M)
        assert all(t in targets for t in args), f"{words}: Makefile targets are {targets}"
    elif cmd == "pip" and args[:1] == ["install"]:
        extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
            "optional-dependencies"
        ]
        for spec in args[1:]:
            if m := re.fullmatch(r"(?:-e )?\.\[([\w,]+)\]", spec):
                assert all(x in extras for x in m.group(1).split(",")), spec
    else:
        pytest.fail(f"a doc block runs {cmd!r}, which the doc tests do not know: {MARK} it")


BRAIN = f"""#!/bin/sh
exec "{sys.executable}" -m fiverow engine --player heuristic "$@"
"""


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("docs")
    brain = out / "pbrain-rapfi"  # the Gomocup brain the pages name: fiverow's own
    brain.write_text(BRAIN)
    brain.chmod(0o755)
    return out


# the pages run in order in one scratch directory (a page reads what an earlier
# one wrote): `make test` hands a file's tests to one worker (--dist loadfile)
@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_page_blocks_run(page, scratch, monkeypatch):
    monkeypatch.chdir(scratch)
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(scratch / "minari"))  # not ~/.minari
    namespace: dict = {"__name__": f"doc_{page.stem}"}  # nothing imported: the page's own
    for lang, text in blocks(page):
        marked = any(MARK in line for line in text.splitlines() if line.lstrip().startswith("#"))
        if lang not in ("python", "sh", "bash") or marked:
            continue
        if lang == "python" and text.lstrip().startswith(">>>"):
            test = doctest.DocTestParser().get_doctest(text, namespace, page.name, str(page), 0)
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
            runner.run(test, clear_globs=False)
            assert runner.failures == 0, f"{page.name}: a doctest block failed (output above)"
        elif lang == "python":
            code = compile(scale_python(text), f"{page.name} block", "exec")
            exec(code, namespace)  # noqa: S102 - the page's own example
        else:
            for words in shell_commands(text):
                run_shell(words, scratch)


def python_source(text: str) -> str:
    """A Python block's code (a ``>>>`` block's examples)."""
    if text.lstrip().startswith(">>>"):
        return "".join(e.source for e in doctest.DocTestParser().get_examples(text))
    return text


def imported_names(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names |= {a.asname or a.name for a in node.names}
    return names


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_each_block_that_uses_fiverow_imports_it(page):
    """A reader pastes one block (issue 27: docs/gomorpion.md's first block and
    one of docs/api.md used ``fiverow`` without importing it)."""
    text = page.read_text()
    missing = []
    for match in FENCE.finditer(text):
        lang, block = match.group(1), match.group(2)
        if lang != "python" or any(MARK in line for line in block.splitlines()):
            continue
        tree = ast.parse(python_source(block))
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        if "fiverow" in used and "fiverow" not in imported_names(tree):
            missing.append(text[: match.start()].count("\n") + 1)
    assert missing == [], f"{page.name}: blocks at lines {missing} use fiverow without importing it"
