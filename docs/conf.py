"""Sphinx configuration of fiverow's documentation site (`make docs`).

The pages are the Markdown files of docs/ and the README (MyST), the API
reference comes from the docstrings (autodoc), the CLI reference from the
argparse parsers (sphinx-argparse), and one page per preset is generated at
build time with its board drawn by fiverow's SVG renderer (_ext/presets.py).
`make docs` builds with warnings as errors (-W)."""

from __future__ import annotations

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

from fiverow import __version__  # noqa: E402  (the package the site documents)

project = "fiverow"
author = "fiverow authors"
copyright = "2026, fiverow authors"  # noqa: A001
release = version = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "sphinxarg.ext",
    "presets",
    "docstrings",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "screenshots"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
html_theme = "furo"
html_title = f"fiverow {__version__}"
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": True, "show-inheritance": True}
# sphinx-argparse's domain cannot resolve MyST's "any" links; every other warning stays an error
suppress_warnings = ["myst.header", "myst.domains"]
