"""A public object of the API reference without a docstring is a warning, so
the -W build of `make docs` fails on it (autodoc alone renders it blank)."""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)
CHECKED = {"module", "class", "function", "method", "property"}


def check(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    leaf = name.rsplit(".", 1)[-1]
    if not str(getattr(obj, "__module__", None) or "fiverow").startswith("fiverow"):
        return  # a name a module imports (Iterator, Callable), not fiverow's API
    if what in CHECKED and not leaf.startswith("_") and not any(line.strip() for line in lines):
        logger.warning(f"{what} {name} has no docstring", type="fiverow", subtype="docstring")


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("autodoc-process-docstring", check)
    return {"parallel_read_safe": True}
