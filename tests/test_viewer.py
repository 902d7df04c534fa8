"""``fiverow view``: the HTML page of an episode, checked in a real headless
browser (Debian's chromium; `make test` installs it, this test skips without it)."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fiverow import data
from fiverow.cli import main as cli
from fiverow.data.generate import generate
from fiverow.render import viewer

HARNESS_HEAD = """<script>
window.__errors = [];
window.addEventListener("error", (e) => window.__errors.push(String(e.message)));
const __consoleError = console.error;
console.error = (...a) => { window.__errors.push(a.join(" ")); __consoleError(...a); };
</script>"""

HARNESS_BODY = """<script>
(function () {
  const slider = document.getElementById("step");
  const stones = () => Array.from(document.querySelectorAll("#board g[data-a]")).filter(
    (g) => g.style.display !== "none" && g.querySelector("circle")).length;
  const status = () => document.getElementById("status").textContent;
  const at = (v) => { slider.value = String(v); slider.dispatchEvent(new Event("input"));
    return {stones: stones(), status: status()}; };
  const res = {max: Number(slider.max), loaded: {stones: stones(), status: status()}};
  res.start = at(0);
  res.five = at(5);
  res.end = at(slider.max);
  res.errors = window.__errors;
  const pre = document.createElement("pre");
  pre.id = "harness";
  pre.textContent = JSON.stringify(res);
  document.body.appendChild(pre);
})();
</script>"""


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip(
        "no headless browser: `make test` installs Debian's chromium (apt-get install chromium)"
    )


def browser_args(tmp_path: Path) -> list[str]:
    return [
        chromium(),
        "--headless",
        "--no-sandbox",  # tests may run as root
        "--disable-gpu",
        "--hide-scrollbars",
        f"--user-data-dir={tmp_path / 'profile'}",
    ]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    path = tmp_path_factory.mktemp("view") / "games.h5"
    generate(
        path,
        {"freestyle": 1, "modlinseq": 1, "renju": 1},
        games=6,
        black="heuristic",
        white="random",
        seed=2,
        boards=3,
    )
    return path


def test_view_writes_a_self_contained_page(dataset, tmp_path, capsys):
    out = tmp_path / "game.html"
    assert (
        cli(["view", str(dataset), "--variant", "freestyle", "--episode", "1", "--out", str(out)])
        == 0
    )
    page = out.read_text()
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page and "<link" not in page and " src=" not in page
    with data.open(dataset) as ds:
        moves = len(ds["freestyle"].episode(1).actions)
    assert f'max="{moves}"' in page
    for variant in ("modlinseq", "renju"):  # tiles drawn step by step; renju's forbidden marks
        text = viewer.game_html(dataset, variant, 0)
        assert "<svg" in text and "DATA" in text
    assert cli(["view", str(dataset), "--out", str(out)]) == 2  # three variants: name one
    assert "--variant" in capsys.readouterr().err


def test_episode_boards_replay_the_recorded_game(dataset):
    with data.open(dataset) as ds:
        for name in ds:
            vd = ds[name]
            for i in range(len(vd)):
                boards, names = viewer.episode_boards(vd, i)
                ep = vd.episode(i)
                assert len(boards) == ep.length + 1 and len(names) == ep.length
                assert boards[-1]["winner"] == ep.winner
                assert boards[-1]["scores"] == ep.scores


def test_the_page_in_a_headless_browser(dataset, tmp_path):
    out = tmp_path / "game.html"
    viewer.write(dataset, "freestyle", 1, out)
    page = out.read_text()
    harness = tmp_path / "harness.html"
    harness.write_text(
        page.replace("</head>", HARNESS_HEAD + "</head>").replace(
            "</body>", HARNESS_BODY + "</body>"
        )
    )
    dom = subprocess.run(
        [*browser_args(tmp_path), "--virtual-time-budget=3000", "--dump-dom", harness.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = re.search(r'<pre id="harness">(.*?)</pre>', dom.stdout, re.S)
    assert found, dom.stderr[-2000:]
    result = json.loads(html.unescape(found.group(1)))
    with data.open(dataset) as ds:
        moves = len(ds["freestyle"].episode(1).actions)
    assert result["errors"] == []
    assert result["max"] == moves
    assert result["loaded"]["stones"] == moves  # opens on the final position
    assert result["start"] == {"stones": 0, "status": "start"}
    assert result["five"]["stones"] == 5 and result["five"]["status"].startswith("move 5 of")
    assert result["end"]["stones"] == moves
    assert "wins" in result["end"]["status"] or "draw" in result["end"]["status"]
    # and a screenshot of the page as it opens
    png = tmp_path / "viewer.png"
    shot = subprocess.run(
        [*browser_args(tmp_path), "--window-size=1000,760", f"--screenshot={png}", out.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert png.exists(), shot.stderr[-2000:]
    from PIL import Image

    image = Image.open(png).convert("RGB")
    assert image.size == (1000, 760)
    colours = image.getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50  # a board, stones and text, not a blank page
    wood = sum(n for n, rgb in colours if abs(rgb[0] - 0xDC) < 8 and abs(rgb[1] - 0xB3) < 8)
    assert wood > 50_000  # the board is there


def test_python_m_fiverow_view(dataset, tmp_path):
    out = tmp_path / "r.html"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "fiverow",
            "view",
            str(dataset),
            "--variant",
            "renju",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert out.exists() and "wrote" in proc.stdout


FOLLOW_HARNESS = """<style>#moves { max-height: 60px !important; }</style>
<script>
(function () {
  const slider = document.getElementById("step");
  const list = document.getElementById("moves");
  const at = (v) => { slider.value = String(v); slider.dispatchEvent(new Event("input")); };
  const inView = (k) => {
    const r = list.children[k].getBoundingClientRect(), l = list.getBoundingClientRect();
    return r.top >= l.top - 1 && r.bottom <= l.bottom + 1;
  };
  const state = (k) => ({step: Number(document.body.dataset.step), hash: location.hash,
    scroll: list.scrollTop, inView: inView(k), now: list.children[k].classList.contains("now")});
  const max = Number(slider.max);
  const res = {max: max, loaded: state(4)};
  at(max); res.end = state(max - 1);
  at(1); res.first = state(0);
  location.hash = "#move=3";
  setTimeout(() => {
    res.hashed = state(2);
    res.errors = window.__errors;
    const pre = document.createElement("pre");
    pre.id = "harness";
    pre.textContent = JSON.stringify(res);
    document.body.appendChild(pre);
  }, 200);
})();
</script>"""


def test_the_move_list_follows_and_a_fragment_opens_a_step(tmp_path):
    out = tmp_path / "game.html"
    long_game = tmp_path / "random.h5"
    generate(long_game, "freestyle", games=1, black="random", seed=1)
    with data.open(long_game) as ds:
        moves = ds["freestyle"].episode(0).length
    assert moves > 30  # more moves than the shrunk list shows at once
    viewer.write(long_game, "freestyle", 0, out)
    harness = tmp_path / "follow.html"
    harness.write_text(
        out.read_text()
        .replace("</head>", HARNESS_HEAD + "</head>")
        .replace("</body>", FOLLOW_HARNESS + "</body>")
    )
    dom = subprocess.run(
        [
            *browser_args(tmp_path),
            "--virtual-time-budget=3000",
            "--dump-dom",
            harness.as_uri() + "#move=5",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = re.search(r'<pre id="harness">(.*?)</pre>', dom.stdout, re.S)
    assert found, dom.stderr[-2000:]
    result = json.loads(html.unescape(found.group(1)))
    assert result["errors"] == []
    assert result["max"] == moves
    # #move=5 opened step 5, its move highlighted and in view
    assert result["loaded"] == {**result["loaded"], "step": 5, "inView": True, "now": True}
    # the last move: the list scrolled to it; the address names the step
    end = result["end"]
    assert end["step"] == moves and end["inView"] and end["now"] and end["scroll"] > 0
    assert end["hash"] == f"#move={moves}"
    first = result["first"]
    assert first["step"] == 1 and first["inView"] and first["scroll"] == 0
    # a new fragment moves the page there
    assert result["hashed"]["step"] == 3 and result["hashed"]["now"]


def test_an_episode_out_of_range_is_one_line(dataset, tmp_path):
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "fiverow",
            "view",
            str(dataset),
            "--variant",
            "freestyle",
            "--episode",
            "9",
            "--out",
            str(tmp_path / "x.html"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr == (
        f"fiverow: error: --episode 9: 'freestyle' in '{dataset}' has 2 episodes (0..1)\n"
    )
    assert not (tmp_path / "x.html").exists()
    assert cli(["view", str(dataset), "--variant", "caro", "--out", str(tmp_path / "x.html")]) == 2


def test_the_last_modlinseq_tile_keeps_its_number(dataset):
    from fiverow.render.svg import MARK, cell_glyphs, layout

    with data.open(dataset) as ds:
        vd = ds["modlinseq"]
        boards, names = viewer.episode_boards(vd, 0)
        config = vd.config
    tiles_placed = [
        b
        for b in boards[1:]
        if 0 <= b["last_move"] and np.frombuffer(b["tiles"], np.uint8)[b["last_move"]]
    ]
    assert tiles_placed
    board = tiles_placed[0]
    cells = np.asarray(board["cells"])
    lay = layout(config, *cells.shape, None, True, cells.reshape(-1) != 3)
    glyph = cell_glyphs(board, config, lay)[board["last_move"]]
    value = int(np.frombuffer(board["tiles"], np.uint8)[board["last_move"]]) - 1
    assert f">{value}</text>" in glyph  # the number is drawn
    assert f'fill="{MARK}"' not in glyph  # and no red dot over it
    assert f'fill="none" stroke="{MARK}"' in glyph  # the tile is ringed instead
