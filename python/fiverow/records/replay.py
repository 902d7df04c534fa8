"""A record's game under fiverow's rules: the variant it names, and its
moves replayed in the C engine, which checks each and finds the outcome."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from ..env.vector import FiverowVectorEnv
from ..rules.config import VariantConfig, preset_names, resolve, traits_of
from .game import Game, RecordError

#: The board's size parameters: a record carries the size itself.
_SIZE_PARAMS = ("size", "height", "width")
#: Parameters that only name or describe, never change the rules.
_NOT_RULES = ("name", "description")


def preset_of(config: VariantConfig) -> tuple[str, dict[str, Any]]:
    """The preset a config is (or is closest to) and the parameters where it
    differs, its board's size aside: what a record names."""
    names = preset_names()
    candidates = [config.name] if config.name in names else names
    best: tuple[int, str, dict[str, Any]] | None = None
    for name in candidates:
        base = resolve(name).params
        diff = {
            k: v
            for k, v in config.params.items()
            if base.get(k) != v and k not in _SIZE_PARAMS and k not in _NOT_RULES
        }
        if not _same_geometry(base, config.params):
            continue
        if best is None or len(diff) < best[0]:
            best = (len(diff), name, diff)
    if best is None:
        raise RecordError(f"no preset has the geometry of variant '{config.name}'")
    return best[1], best[2]


def _same_geometry(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return bool(a["geometry"] == b["geometry"])


def config_of(
    game: Game, variant: str | None = None, params: Mapping[str, Any] | None = None
) -> VariantConfig:
    """The variant a game is played under: the preset its record names (with
    the record's parameters), else ``variant`` (default freestyle) with
    ``params``; on square boards at the record's size. ``RecordError`` when
    the record's board cannot be that variant's, or the variant is one a
    record cannot replay (MODLINSEQ draws its tiles at random)."""
    name = game.variant or variant or "freestyle"
    overrides = dict(game.params) if game.variant else dict(params or {})
    try:
        preset = resolve(name)
        if preset["geometry"] in ("plane", "strip", "torus"):
            if (preset["height"], preset["width"]) != (game.height, game.width):
                overrides.setdefault("height", game.height)
                overrides.setdefault("width", game.width)
        config = resolve(name, **overrides)
    except ValueError as e:
        raise RecordError(f"variant '{name}': {e}") from None
    if "chance" in traits_of(config):
        raise RecordError(
            f"{config['rule']} draws its tiles at random from the game's seed: a record "
            "cannot replay it (records are for stone games)"
        )
    raster = _raster(config)
    if raster != (game.height, game.width):
        raise RecordError(
            f"the record's {game.width}x{game.height} board is not the {raster[1]}x{raster[0]} "
            f"raster of '{name}' ({config['geometry']} board)"
        )
    return config


@cache
def _env_of(key: tuple[tuple[str, Any], ...]) -> FiverowVectorEnv:
    config = resolve(dict(key))
    return FiverowVectorEnv(config, 1, seed=0, num_threads=1, autoreset_mode="disabled")


def env_of(config: VariantConfig) -> FiverowVectorEnv:
    """A one-board env of ``config`` (one per variant, reused), reset."""
    env = _env_of(tuple(sorted({"name": config.name, **config.params}.items())))
    env.reset(seed=0)
    return env


def _raster(config: VariantConfig) -> tuple[int, int]:
    env = env_of(config)
    g = env._group
    return g.height, g.width


@dataclass
class Replay:
    """A game replayed: each step's seat and colour (as a dataset stores
    them), whether it placed a stone, and how the game stands after the
    last move."""

    config: VariantConfig
    actions: list[int]
    seats: list[int] = field(default_factory=list)
    colours: list[int] = field(default_factory=list)
    stones: list[bool] = field(default_factory=list)
    over: bool = False
    winner: int = -1  # seat
    truncated: bool = False
    scores: tuple[int, int] = (0, 0)
    black_seat: int = 0
    opening: int = -1
    to_move: int = 0  # the seat to move after the last move (when not over)
    boards: list[dict[str, Any]] = field(default_factory=list)
    names: list[str] = field(default_factory=list)

    @property
    def result(self) -> str:
        """The outcome in a record's words (``"?"`` while the game goes on)."""
        if not self.over:
            return "?"
        if self.truncated:
            return "truncated"
        if self.winner < 0:
            return "draw"
        return "black" if self.winner == self.black_seat else "white"

    def seat_of(self, colour: str) -> int:
        """The seat that holds ``colour`` ("black" or "white") at the end."""
        return self.black_seat if colour == "black" else 1 - self.black_seat


def replay(game: Game, config: VariantConfig, *, boards: bool = False) -> Replay:
    """Play the game's moves in the C engine under ``config``. ``RecordError``
    names the first move the rules refuse (``move 7 (h8): occupied``), or a
    move after the end. ``boards``: keep the board before each move and after
    the last (``env.board()`` dicts, for the viewer)."""
    env = env_of(config)
    g = env._group
    out = Replay(config, list(game.moves))
    board = env.board(0)
    if boards:
        out.boards.append(board)
    for k, action in enumerate(game.moves):
        if out.over:
            raise RecordError(f"move {k + 1}: the game was over after move {k}")
        if not 0 <= action < g.n_actions:
            raise RecordError(f"move {k + 1}: action {action} is not one of this variant's")
        reason = env.illegal_reason(0, action)
        if reason is not None:
            raise RecordError(f"move {k + 1} ({env.action_name(action)}): {reason}")
        out.seats.append(int(board["seat"]))
        out.colours.append(int(board["colour"]))
        out.names.append(env.action_name(action))
        before = np.asarray(board["cells"]).reshape(-1)
        _, _, terminated, truncated, info = env.step(np.array([action], dtype=np.int64))
        board = env.board(0)
        after = np.asarray(board["cells"]).reshape(-1)
        out.stones.append(
            bool(action < g.n_cells and before[action] == 0 and after[action] in (1, 2))
        )
        if boards:
            out.boards.append(board)
        if terminated[0] or truncated[0]:
            out.over, out.truncated = True, bool(truncated[0])
            out.winner = int(info["winner"][0])
    out.scores = (int(board["scores"][0]), int(board["scores"][1]))
    out.black_seat = int(board["black_seat"])
    out.opening = int(board["opening"])
    out.to_move = int(board["seat"])
    return out
