"""``fiverow view``: one dataset episode as a self-contained HTML page.

The page needs no network: the board is inline SVG (drawn by
:mod:`fiverow.render.svg`, so every geometry looks as ``svg()`` draws it), and
a few lines of inline JavaScript show, for the step the slider is on, the
pieces of the picture that hold at that step. Each piece is what one cell
shows over a range of steps, so a game of n moves costs about one element
per stone rather than n pictures.

>>> from fiverow.records import viewer
>>> viewer.write("data.h5", "freestyle", 0, "game.html")  # doctest: +SKIP
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

import numpy as np

from .. import data
from ..env.pool import Pool
from ..env.vector import FiverowVectorEnv
from ..render.svg import caption, cell_glyphs, forbidden_cells, layout, winning_line
from ..rules.config import traits_of
from ..rules.renju import OPENINGS


def episode_boards(variant_data: Any, i: int) -> tuple[list[dict[str, Any]], list[str]]:
    """The board before each action of episode ``i`` and after the last (as
    ``env.board()`` gives it), and the actions' names. The episode restarts
    from the keys the dataset stores (seed, group, board, episode), so a
    variant whose rules draw at random (MODLINSEQ's bag) replays exactly."""
    vd = variant_data
    i = vd._index(i)
    ep = vd.episode(i)
    e = vd.episodes
    board, episode = int(e["board"][i]), int(e["episode"][i])
    # a pool in which the episode's board has the same keys as when it was played
    groups: dict[str, Any] = {
        f"_key{k}": {"num_envs": 1, "config": vd.config} for k in range(vd.key_group)
    }
    groups[vd.name] = {"num_envs": board + 1, "config": vd.config}
    pool = Pool(groups, num_threads=1, autoreset_mode="disabled")
    pool.reset(int(e["seed"][i]))
    mask = np.zeros(board + 1, dtype=np.bool_)
    mask[board] = True
    for _ in range(episode):
        pool.reset(None, {vd.name: mask})
    env = FiverowVectorEnv(vd.config, 1, num_threads=1, autoreset_mode="disabled")
    env.reset(seed=0)
    env.set_state(0, pool.get_state(vd.name, board))
    boards = [env.board(0)]
    names = []
    for action in ep.actions.astype(np.int64):
        names.append(env.action_name(int(action)))
        env.step(np.array([action]))
        boards.append(env.board(0))
    env.close()
    return boards, names


def _outcome(vd: Any, i: int, players: Sequence[str], forfeit: str | None) -> str:
    ep = vd.episode(i)
    names = [players[p] if 0 <= p < len(players) else f"player {p}" for p in ep.players]
    colour = {ep.black_seat: "black", 1 - ep.black_seat: "white"}
    if forfeit:
        loser = 1 - ep.winner if ep.winner >= 0 else -1
        who = f"{colour.get(loser, 'a player')} ({names[loser]})" if loser >= 0 else "a player"
        return f"{who} forfeits: {forfeit}"
    if ep.truncated:
        return "stopped at the move limit"
    if ep.winner < 0:
        return "draw"
    return f"{colour[ep.winner]} ({names[ep.winner]}) wins"


def game_html(path: str | Path, variant: str, episode: int, *, cell_px: float | None = None) -> str:
    """The page of one episode (see :func:`write`)."""
    with data.open(path) as ds:
        vd = ds[variant]
        boards, names = episode_boards(vd, episode)
        ep = vd.episode(episode)
        players = ds.players
        forfeit = ep.forfeit
        title = f"{variant} episode {vd._index(episode)} of {Path(path).name}"
        outcome = _outcome(vd, episode, players, forfeit)
        seats = [players[p] if 0 <= p < len(players) else "?" for p in ep.players]
        who = {ep.black_seat: "black", 1 - ep.black_seat: "white"}
        cast = ", ".join(f"{who[s]}: {seats[s]}" for s in (ep.black_seat, 1 - ep.black_seat))
        opening = ep.opening_name
        config = vd.config
    return render_page(
        boards,
        names,
        config,
        title=title,
        subtitle=cast,
        outcome=outcome,
        opening=opening,
        cell_px=cell_px,
    )


def render_page(
    boards: Sequence[Mapping[str, Any]],
    names: Sequence[str],
    config: Any,
    *,
    title: str,
    subtitle: str = "",
    outcome: str = "",
    opening: str | None = None,
    cell_px: float | None = None,
) -> str:
    """The page from the boards of a game (``len(names) + 1`` of them)."""
    final = boards[-1]
    cells = np.asarray(final["cells"])
    height, width = cells.shape
    lay = layout(config, height, width, cell_px, True, cells.reshape(-1) != 3)
    n_cells = height * width
    numbers: dict[int, int] = {}
    stone_moves = 0
    pieces: dict[tuple[int, str], list[list[int]]] = {}
    open_piece: dict[int, tuple[str, int]] = {}
    captions: list[str] = []
    ring = winning_line(final, config)
    modlinseq = "tiles" in traits_of(config)
    for t, board in enumerate(boards):
        if t > 0:
            action = _action_cell(names, t - 1, board, boards[t - 1], n_cells)
            if action is not None and not modlinseq:
                stone_moves += 1
                numbers.setdefault(action, stone_moves)
        glyphs = cell_glyphs(
            board,
            config,
            lay,
            numbers=numbers,
            forbidden=forbidden_cells(board, config),
            highlight=ring if t == len(boards) - 1 else (),
        )
        captions.append(caption(board, config))
        for cell in set(open_piece) | set(glyphs):
            markup = glyphs.get(cell, "")
            current = open_piece.get(cell)
            if current is not None and current[0] == markup:
                continue
            if current is not None:
                pieces.setdefault((cell, current[0]), []).append([current[1], t])
                del open_piece[cell]
            if markup:
                open_piece[cell] = (markup, t)
    for cell, (markup, start) in open_piece.items():
        pieces.setdefault((cell, markup), []).append([start, len(boards)])
    body = [lay.open(), *lay.background]
    for (_, markup), spans in pieces.items():
        for a, b in spans:
            body.append(f'<g data-a="{a}" data-b="{b}">{markup}</g>')
    body.append("</svg>")
    moves = [{"n": k + 1, "name": name} for k, name in enumerate(names)]
    page = _TEMPLATE
    for token, value in {
        "@TITLE@": escape(title),
        "@SUBTITLE@": escape(subtitle + (f"; opening {opening}" if opening else "")),
        "@SVG@": "\n".join(body),
        "@STEPS@": str(len(boards) - 1),
        "@DATA@": json.dumps({"moves": moves, "captions": captions, "outcome": outcome}).replace(
            "</", "<\\/"
        ),
    }.items():
        page = page.replace(token, value)
    return page


def _action_cell(
    names: Sequence[str],
    k: int,
    board: Mapping[str, Any],
    before: Mapping[str, Any],
    n_cells: int,
) -> int | None:
    """The cell a stone went to on step k (None for a special action)."""
    last = int(board.get("last_move", -1))
    if 0 <= last < n_cells and int(board.get("steps", 0)) != int(before.get("steps", 0)):
        after = np.asarray(board["cells"]).reshape(-1)
        prior = np.asarray(before["cells"]).reshape(-1)
        if after[last] != prior[last]:
            return last
    return None


def record_html(
    path: str | Path,
    *,
    variant: str | None = None,
    game: int = 0,
    cell_px: float | None = None,
) -> str:
    """The page of a game record (``.psq``, ``.sgf``; :mod:`fiverow.records`):
    its game ``game`` (an SGF collection holds several), replayed in the
    engine under the record's variant (``variant`` for a record that names
    none; default freestyle)."""
    from .. import records

    games = records.read_all(path)
    if not -len(games) <= game < len(games):
        raise ValueError(f"'{path}' holds {len(games)} game(s): there is no game {game}")
    record = games[game]
    try:
        config = records.config_of(record, variant)
        played = records.replay(record, config, boards=True)
    except records.RecordError as e:
        raise records.RecordError(f"'{path}': {e}") from None
    black, white = (name or "?" for name in record.players)
    names = {"black": black, "white": white}
    if record.forfeit is not None:
        loser = "white" if record.result == "black" else "black"
        outcome = f"{loser} ({names[loser]}) forfeits: {record.forfeit}"
    elif played.over:
        outcome = {"truncated": "stopped at the move limit", "draw": "draw"}.get(
            played.result, f"{played.result} ({names.get(played.result, '?')}) wins"
        )
    else:
        outcome = "unfinished"
    which = f" (game {game % len(games)})" if len(games) > 1 else ""
    return render_page(
        played.boards,
        played.names,
        config,
        title=f"{config.name}: {Path(path).name}{which}",
        subtitle=f"black: {black}, white: {white}",
        outcome=outcome,
        opening=OPENINGS[played.opening] if 0 <= played.opening < len(OPENINGS) else None,
        cell_px=cell_px,
    )


def write_record(path: str | Path, out: str | Path, **kwargs: Any) -> Path:
    """Write the page of the game record ``path`` to ``out`` (keywords as
    :func:`record_html`) and return its path."""
    target = Path(out)
    target.write_text(record_html(path, **kwargs), encoding="utf-8")
    return target


def write(path: str | Path, variant: str, episode: int, out: str | Path, **kwargs: Any) -> Path:
    """Write the page of episode ``episode`` of ``variant`` in dataset ``path``
    to ``out`` and return its path."""
    html = game_html(path, variant, episode, **kwargs)
    target = Path(out)
    target.write_text(html, encoding="utf-8")
    return target


_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>@TITLE@</title>
<style>
body { font-family: sans-serif; margin: 16px; color: #222; background: #faf8f2; }
h1 { font-size: 18px; margin: 0 0 2px 0; }
.sub { color: #555; margin-bottom: 8px; font-size: 14px; }
.wrap { display: flex; gap: 18px; align-items: flex-start; flex-wrap: wrap; }
.controls { margin: 8px 0; display: flex; gap: 6px; align-items: center; }
#step { width: 320px; }
#status { font-size: 14px; margin: 4px 0 8px 0; min-height: 1.2em; }
#caption { font-size: 13px; color: #444; min-height: 1.2em; }
#moves { max-height: 560px; overflow-y: auto; font-size: 13px; display: grid;
  grid-template-columns: repeat(2, max-content); column-gap: 14px; align-content: start;
  position: relative; border-left: 1px solid #ccc; padding-left: 10px; min-width: 220px; }
#moves div { cursor: pointer; padding: 1px 4px; white-space: nowrap; }
#moves div.now { background: #d42020; color: #fff; border-radius: 3px; }
.hide-num .num { display: none; }
button { font-size: 13px; }
</style>
</head>
<body>
<h1>@TITLE@</h1>
<div class="sub">@SUBTITLE@</div>
<div class="wrap">
<div>
<div id="board">
@SVG@
</div>
<div class="controls">
<button id="first" title="first (Home)">&#124;&lt;</button>
<button id="prev" title="back (Left)">&lt;</button>
<input id="step" type="range" min="0" max="@STEPS@" value="@STEPS@">
<button id="next" title="forward (Right)">&gt;</button>
<button id="last" title="last (End)">&gt;&#124;</button>
<button id="play">play</button>
<label><input id="nums" type="checkbox" checked> numbers</label>
</div>
<div id="status"></div>
<div id="caption"></div>
</div>
<div id="moves"></div>
</div>
<script>
"use strict";
const DATA = @DATA@;
const slider = document.getElementById("step");
const pieces = Array.from(document.querySelectorAll("#board g[data-a]")).map(
  (g) => [g, Number(g.dataset.a), Number(g.dataset.b)]);
const list = document.getElementById("moves");
DATA.moves.forEach((m, k) => {
  const row = document.createElement("div");
  row.textContent = m.n + ". " + m.name;
  row.addEventListener("click", () => show(k + 1));
  list.appendChild(row);
});
// the move list keeps the current move in view (scrolling the list only)
function follow(row) {
  const top = row.offsetTop, bottom = top + row.offsetHeight;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
}
// #move=20 in the page's address opens step 20
function fromHash() {
  const m = /^#(?:move=)?(\\d+)$/.exec(location.hash);
  return m ? Number(m[1]) : null;
}
function show(step) {
  const s = Math.max(0, Math.min(Number(slider.max), Number(step)));
  slider.value = String(s);
  for (const [g, a, b] of pieces) g.style.display = (a <= s && s < b) ? "" : "none";
  Array.from(list.children).forEach((row, k) => row.classList.toggle("now", k === s - 1));
  if (s > 0) follow(list.children[s - 1]); else list.scrollTop = 0;
  if (fromHash() !== s) {
    try { history.replaceState(null, "", "#move=" + s); } catch (e) { /* a sandboxed page */ }
  }
  const n = DATA.moves.length;
  let text = s === 0 ? "start" : "move " + s + " of " + n + ": " + DATA.moves[s - 1].name;
  if (s === n && DATA.outcome) text += " \\u2014 " + DATA.outcome;
  document.getElementById("status").textContent = text;
  document.getElementById("caption").textContent = DATA.captions[s] || "";
  document.body.dataset.step = String(s);
}
slider.addEventListener("input", () => show(slider.value));
document.getElementById("first").addEventListener("click", () => show(0));
document.getElementById("prev").addEventListener("click", () => show(Number(slider.value) - 1));
document.getElementById("next").addEventListener("click", () => show(Number(slider.value) + 1));
document.getElementById("last").addEventListener("click", () => show(slider.max));
document.getElementById("nums").addEventListener("change", (e) => {
  document.getElementById("board").classList.toggle("hide-num", !e.target.checked);
});
let timer = null;
document.getElementById("play").addEventListener("click", (e) => {
  if (timer) { clearInterval(timer); timer = null; e.target.textContent = "play"; return; }
  if (Number(slider.value) >= Number(slider.max)) show(0);
  e.target.textContent = "pause";
  timer = setInterval(() => {
    if (Number(slider.value) >= Number(slider.max)) { clearInterval(timer); timer = null;
      e.target.textContent = "play"; return; }
    show(Number(slider.value) + 1);
  }, 500);
});
document.addEventListener("keydown", (e) => {
  const keys = {ArrowLeft: -1, ArrowRight: 1};
  if (e.key in keys) show(Number(slider.value) + keys[e.key]);
  if (e.key === "Home") show(0);
  if (e.key === "End") show(slider.max);
});
window.addEventListener("hashchange", () => { if (fromHash() !== null) show(fromHash()); });
show(fromHash() !== null ? fromHash() : slider.value);
</script>
</body>
</html>
"""
