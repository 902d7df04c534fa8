"""Datasets and records, both ways: a dataset's episodes written as record
files (``fiverow export --records``), and a folder of records made a dataset
(``fiverow import``), each game replayed in the C engine first."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..rules.config import VariantConfig, traits_of
from .game import Game, RecordError
from .replay import Replay, config_of, preset_of, replay


def game_of_episode(vd: Any, i: int, players: list[str]) -> Game:
    """Episode ``i`` of a dataset's variant (:class:`fiverow.data.VariantData`)
    as a :class:`Game`; ``players`` are the file's players' names."""
    ep = vd.episode(i)
    name, params = preset_of(vd.config)
    by_seat = [players[p] if 0 <= p < len(players) else "" for p in ep.players]
    black, white = by_seat[ep.black_seat], by_seat[1 - ep.black_seat]
    forfeit = ep.forfeit
    if ep.truncated and forfeit is None:
        result = "truncated"
    elif ep.winner < 0:
        result = "draw"
    else:
        result = "black" if ep.winner == ep.black_seat else "white"
    height, width = vd.obs_shape[1], vd.obs_shape[2]
    return Game(
        name,
        height,
        width,
        tuple(int(a) for a in ep.actions),
        (black, white),
        result,
        forfeit,
        params,
    )


def check_recordable(config: VariantConfig, format: str) -> None:
    """``RecordError`` unless games of ``config`` can be written as records in
    ``format``: MODLINSEQ draws its tiles at random (a record cannot replay
    it), and a ``.psq`` holds stones only (no opening protocol's steps)."""
    if "chance" in traits_of(config):
        raise RecordError(
            f"'{config.name}': {config['rule']} draws its tiles at random: records cannot replay it"
        )
    if format == "psq" and config["protocol"] not in ("free", "center"):
        raise RecordError(
            f"'{config.name}': its {config['protocol']} opening has steps (swaps, choices) that "
            "a .psq record cannot hold: use .sgf (export: --format sgf)"
        )


def export_dataset(
    path: str | Path,
    directory: str | Path,
    *,
    format: str = "psq",
    variant: str | None = None,
    overwrite: bool = False,
) -> list[Path]:
    """Write every episode of a dataset (or of its variant ``variant``) as a
    record file in ``directory`` (made if missing): ``<variant>-<episode>.psq``
    (or ``.sgf``). Checked before anything is written: the variants can be
    recorded in that format, and no file would be replaced (unless
    ``overwrite``)."""
    from .. import data
    from . import FORMATS, write

    if format not in FORMATS:
        raise RecordError(f"unknown record format {format!r}: one of {', '.join(FORMATS)}")
    out = Path(directory)
    if out.exists() and not out.is_dir():
        raise RecordError(f"'{out}' is a file, not a folder for the records")
    written: list[Path] = []
    with data.open(path) as ds:
        names = list(ds) if variant is None else [variant]
        if variant is not None and variant not in ds.variants:
            raise RecordError(f"'{path}' has no variant '{variant}' (it holds {', '.join(ds)})")
        plan: list[tuple[Any, int, Path]] = []
        for name in names:
            vd = ds[name]
            check_recordable(vd.config, format)
            digits = max(6, len(str(len(vd) - 1)))
            plan += [(vd, i, out / f"{name}-{i:0{digits}d}.{format}") for i in range(len(vd))]
        if not overwrite:
            taken = [target for _, _, target in plan if target.exists()]
            if taken:
                raise RecordError(
                    f"'{taken[0]}' exists ({len(taken)} of the records would replace files): "
                    "pass overwrite=True (CLI: --overwrite) to replace them"
                )
        out.mkdir(parents=True, exist_ok=True)
        for vd, i, target in plan:
            written.append(write(target, game_of_episode(vd, i, ds.players), format=format))
    return written


@dataclass
class ImportResult:
    """What :func:`import_records` did: the dataset written, its games, and
    each record (or game of a collection) skipped with the reason."""

    path: Path
    games: int
    records: int
    skipped: list[tuple[str, str]] = field(default_factory=list)


def record_files(source: str | Path) -> list[Path]:
    """The record files of a folder (``*.psq``, ``*.sgf``, sorted; sub-folders
    too), or the one file given."""
    from . import format_of

    root = Path(source)
    if root.is_dir():
        files = sorted(
            p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in (".psq", ".sgf")
        )
        if not files:
            raise RecordError(f"'{root}' holds no .psq or .sgf records")
        return files
    if not root.exists():
        raise RecordError(f"'{root}' does not exist")
    format_of(root)
    return [root]


def checked(game: Game, played: Replay) -> tuple[int, str | None]:
    """The winning seat of a replayed game (-1: none) and its forfeit, once
    the record's claims agree with the replay; ``RecordError`` otherwise."""
    n = len(game.moves)
    if game.forfeit is not None:
        if played.over:
            raise RecordError(
                f"the record says {game.result} won by forfeit ({game.forfeit}), but the game "
                f"ended by the rules after move {n}: {played.result}"
            )
        return played.seat_of(game.result), game.forfeit
    if not played.over:
        if game.result == "?":
            raise RecordError(f"unfinished: the game goes on after its {n} moves")
        raise RecordError(f"the record says {game.result}, but the game goes on after move {n}")
    if game.result not in ("?", played.result):
        raise RecordError(f"the record says {game.result}, the rules {played.result}")
    return played.winner, None


def import_records(
    source: str | Path,
    out: str | Path,
    *,
    variant: str | None = None,
    params: Mapping[str, Any] | None = None,
    overwrite: bool = False,
    on_skip: Callable[[str, str], None] | None = None,
) -> ImportResult:
    """A dataset at ``out`` (the format of ``fiverow generate``, read by
    :func:`fiverow.data.open`, ``Batches`` and ``balance --dataset``) of the
    games of the records in ``source`` (a folder, or one file). Each game is
    replayed in the C engine under its variant (the record's own; ``variant``
    with ``params`` for records that name none, freestyle by default): a
    record that cannot be read, breaks the rules, is unfinished or whose
    result disagrees with the rules is skipped, never written, and reported
    through ``on_skip(where, why)``. Each distinct variant is a group of its
    own; the file names every player the records name."""
    from ..data import MAX_PLAYERS, Writer
    from ..env.pool import Pool
    from . import read_all

    files = record_files(source)
    accepted: list[tuple[Game, VariantConfig, Replay, int, str | None]] = []
    skipped: list[tuple[str, str]] = []

    def skip(where: str, why: str) -> None:
        skipped.append((where, why))
        if on_skip is not None:
            on_skip(where, why)

    for file in files:
        try:
            games = read_all(file)
        except RecordError as e:
            skip(str(file), str(e).removeprefix(f"'{file}': "))
            continue
        for j, game in enumerate(games):
            where = str(file) if len(games) == 1 else f"{file} (game {j + 1})"
            try:
                config = config_of(game, variant, params)
                played = replay(game, config)
                winner, forfeit = checked(game, played)
            except RecordError as e:
                skip(where, str(e))
                continue
            accepted.append((game, config, played, winner, forfeit))
    if not accepted:
        first = f"; the first: {skipped[0][0]}: {skipped[0][1]}" if skipped else ""
        raise RecordError(f"no game to import from '{source}' ({len(skipped)} skipped{first})")
    groups: dict[tuple[Any, ...], tuple[str, VariantConfig]] = {}
    players: list[str] = []
    for game, config, _, _, _ in accepted:
        key = tuple(sorted(config.params.items()))
        if key not in groups:
            base = preset_of(config)[0]
            taken = {name for name, _ in groups.values()}
            name = base if base not in taken else f"{base}-{len(taken) + 1}"
            groups[key] = (name, config)
        for colour in ("black", "white"):
            name = game.players[0 if colour == "black" else 1] or "?"
            if name not in players:
                players.append(name)
    if len(players) > MAX_PLAYERS:
        raise RecordError(
            f"the records name {len(players)} players; a dataset holds at most {MAX_PLAYERS}"
        )
    pool = Pool(
        {name: {"num_envs": 1, "config": config} for name, config in groups.values()},
        seed=0,
        num_threads=1,
        autoreset_mode="disabled",
    )
    pool.reset(0)
    episodes = {name: 0 for name, _ in groups.values()}
    run = {
        "seats": "from records: seat 0 moved first",
        "seed": 0,
        "source": str(source),
        "records": len(files),
        "games_requested": len(accepted),
        "boards": {name: 1 for name in episodes},
    }
    with Writer(out, pool, players=players, overwrite=overwrite, run=run) as writer:
        for game, config, played, winner, forfeit in accepted:
            name = groups[tuple(sorted(config.params.items()))][0]
            black = players.index(game.players[0] or "?")
            white = players.index(game.players[1] or "?")
            seats = (black, white) if played.black_seat == 0 else (white, black)
            writer.add(
                0,
                played.actions,
                played.seats,
                played.colours,
                winner,
                group=name,
                episode=episodes[name],
                truncated=played.truncated and forfeit is None,
                scores=played.scores,
                black_seat=played.black_seat,
                opening=played.opening,
                forfeit=forfeit,
                players=seats,
            )
            episodes[name] += 1
    return ImportResult(Path(out), len(accepted), len(files), skipped)
