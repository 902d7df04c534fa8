"""The built site in a headless browser (`make docs` runs this after Sphinx):
the landing page, a preset page with its board and the API reference load with
no console error, and their screenshots are written to docs/screenshots/.

    python docs/check_site.py docs/_build/html
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PAGES = {  # screenshot name -> page of the site
    "landing": "index.html",
    "preset-renju": "presets/renju.html",
    "api-reference": "reference/api.html",
}
# Chromium's log line for a page's console message: ...:CONSOLE(line)] "text", source: url
RAW_RST = re.compile(r"\.\. (py|auto)\w*::")
CONSOLE = re.compile(r'CONSOLE\(\d+\)\] "(.*)", source: (\S*)')


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    raise SystemExit("no headless browser: install chromium (apt-get install chromium)")


def shoot(page: Path, png: Path, profile: Path) -> list[str]:
    """Screenshot of one page; the console messages it logged."""
    cmd = [
        chromium(),
        "--headless",
        "--no-sandbox",  # CI may run as root
        "--disable-gpu",
        "--hide-scrollbars",
        "--enable-logging=stderr",
        "--v=0",
        f"--user-data-dir={profile}",
        "--window-size=1280,900",
        "--virtual-time-budget=3000",
        f"--screenshot={png}",
        page.as_uri(),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 or not png.is_file():
        raise SystemExit(f"chromium failed on {page}:\n{proc.stderr[-2000:]}")
    return [f"{m.group(1)} ({m.group(2)})" for m in CONSOLE.finditer(proc.stderr)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, help="the built HTML site (docs/_build/html)")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "screenshots")
    args = parser.parse_args()
    args.out.mkdir(exist_ok=True)
    errors = []
    with tempfile.TemporaryDirectory() as profile:
        for name, rel in PAGES.items():
            page = args.site.resolve() / rel  # a file URI needs an absolute path
            if not page.is_file():
                errors.append(f"{rel}: not in the site")
                continue
            text = page.read_text()
            if name.startswith("preset") and "<svg" not in text:
                errors.append(f"{rel}: no board (no <svg>)")
            # autodoc's output must be rendered, not shown as reStructuredText
            # (MyST reads a bare {automodule} block's output as Markdown)
            if name == "api-reference" and (RAW_RST.search(text) or "sig-name" not in text):
                errors.append(f"{rel}: the API entries are raw reStructuredText, not rendered")
            for message in shoot(page, args.out / f"{name}.png", Path(profile)):
                errors.append(f"{rel}: console: {message}")
    for e in errors:
        print(e, file=sys.stderr)
    print(f"{len(PAGES)} pages, {len(errors)} problems; screenshots in {args.out}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
