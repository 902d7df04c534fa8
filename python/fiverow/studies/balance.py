"""How balanced are the variants? Tournaments in C, statistics, a report.

>>> from fiverow import balance
>>> report = balance.run(["freestyle", "renju"], players=["heuristic"], games=2000, seed=1)
>>> print(report.table())                                # doctest: +SKIP
>>> report.write("balance-out")                          # report.md, report.json, plots

For each variant, games between the players: with one player it plays both
seats; with two and ``swap=True`` each pairing is played both ways round
(seats alternate game by game), which separates the first seat's advantage
from the players' strengths. Results per variant: first-seat win, draw and
second-seat win rates with Wilson intervals, the first-seat advantage with
its interval and p-value, game lengths, and the cells where winning moves
were played; between variants: the difference of advantages with its
interval, and tests of the win rates and of the whole outcome, Holm-corrected,
exact where counts are small (:func:`fiverow.stats.compare_variants`).
Intervals are at ``level`` (0.95 by default). ``stop`` ends a variant early
once its answer is known (a pair of SPRTs, or a target interval width). A
dataset written by ``fiverow generate`` can be read instead of playing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import data
from .. import players as players_mod
from ..analysis.intervals import check_level
from ..analysis.stats import (
    Outcomes,
    Ratings,
    SeatSPRT,
    compare_variants,
    elo_ratings,
    interval_width_reached,
    outcomes_from_winners,
)
from ..env.pool import Pool, check_seed
from ..env.vector import make_vec
from ..players import openings as openings_mod
from ..players.agent import agent_name
from ..players.openings import OpeningBook, distinct_games
from ..rules.config import cell_values, resolve
from ..runs.agent_match import Forfeit, check_players, play_agents
from ..runs.match import Match
from ..runs.selfplay import RECORD_DTYPE, Progress, mixed_pool, variant_weights
from ..runs.shards import RunSpec, cluster, open_games
from .balance_report import BalanceReport, VariantResult, check_report_dir

__all__ = [
    "BalanceReport",
    "StopRule",
    "VariantResult",
    "check_report_dir",
    "from_dataset",
    "from_report",
    "ladder",
    "run",
]


@dataclass
class StopRule:
    """When a variant's answer is known.

    ``kind="sprt"``: two one-sided Wald tests of the first seat's share of
    the decisive games, H0 p = 0.5 against H1 p = 0.5 + ``delta`` and
    against p = 0.5 - ``delta``, each at ``alpha / 2`` (so that naming a
    favoured seat when the seats are even happens with probability at most
    ``alpha``; exact figures: :func:`fiverow.stats.seat_sprt_probabilities`)
    and ``beta``; the verdict is reached at the first game where one test
    names its seat or both accept "within delta" (:class:`fiverow.stats.SeatSPRT`).

    ``kind="width"``: done when the ``level`` interval of the first-seat win
    rate (``of="first_seat_win"``, Wilson) or of the first-seat advantage
    (``of="advantage"``) is at most ``width`` wide."""

    kind: str = "sprt"
    delta: float = 0.1
    alpha: float = 0.05
    beta: float = 0.05
    width: float = 0.05
    of: str = "first_seat_win"
    level: float = 0.95

    def __post_init__(self) -> None:
        if self.kind not in ("sprt", "width"):
            raise ValueError(f"stop rule must be 'sprt' or 'width', got {self.kind!r}")
        if self.kind == "sprt":
            SeatSPRT(self.delta, self.alpha, self.beta)  # checks delta, alpha and beta
        if self.kind == "width" and not 0 < self.width < 2:
            raise ValueError(f"width must be in (0, 2), got {self.width}")
        if self.of not in ("first_seat_win", "advantage"):
            raise ValueError(f"of must be 'first_seat_win' or 'advantage', got {self.of!r}")
        if self.kind == "width" and self.of == "first_seat_win" and not self.width < 1:
            raise ValueError(f"width must be in (0, 1) for a rate, got {self.width}")
        self.level = check_level(self.level)

    def reached(self, outcomes: Outcomes) -> bool:
        """The width rule: is the interval narrow enough?"""
        if outcomes.games == 0:
            return False
        if self.of == "advantage":
            _, low, high = outcomes.advantage(level=self.level)
            return high - low <= self.width
        return interval_width_reached(
            outcomes.first_wins, outcomes.games, self.width, level=self.level
        )


# ---- from records ----


def _win_cells(last_actions: npt.NDArray[Any], height: int, width: int, per_cell: int) -> Any:
    cells = np.zeros(height * width, dtype=np.int64)
    a = last_actions[(last_actions >= 0) & (last_actions < height * width * per_cell)]
    np.add.at(cells, a // per_cell, 1)
    return cells.reshape(height, width)


def _variant_result(
    name: str,
    winners: npt.NDArray[Any],
    lengths: npt.NDArray[Any],
    last_actions: npt.NDArray[Any],
    shape: tuple[int, int],
    per_cell: int,
    seat0_players: npt.NDArray[Any] | None = None,
) -> VariantResult:
    decided = winners >= 0
    return VariantResult(
        name,
        outcomes_from_winners(winners),
        lengths.astype(np.int64),
        _win_cells(last_actions[decided].astype(np.int64), shape[0], shape[1], per_cell),
        winners=winners.astype(np.int64),
        seat0_players=np.zeros(0, np.int64)
        if seat0_players is None
        else np.asarray(seat0_players, dtype=np.int64),
    )


def _shape_of(group: Any) -> tuple[tuple[int, int], int]:
    per_cell = cell_values(group.config)
    return (group.height, group.width), per_cell


def run(
    variants: str | Sequence[str] | Mapping[str, float],
    players: Sequence[str | players_mod.Player] = ("heuristic",),
    *,
    games: int = 1000,
    seed: int = 0,
    num_threads: int | None = None,
    swap: bool = False,
    stop: StopRule | None = None,
    boards: int | None = None,
    params: Mapping[str, Any] | None = None,
    progress: bool = False,
    level: float = 0.95,
    ray: bool | str | None = None,
    openings: str | os.PathLike[str] | OpeningBook | None = "none",
) -> BalanceReport:
    """Play up to ``games`` games per variant and report, with intervals at
    ``level``.

    ``openings``: ``"none"`` (every game from the empty board), ``"balanced"``
    or a file of openings (:mod:`fiverow.players.openings`); game ``k`` plays
    opening ``(k // 2) % n``, so with ``swap`` each opening is played from both
    seats. The report counts the distinct games of each variant.

    ``players``: one player (both seats), or two (player 0 in the first seat;
    with ``swap=True`` the seats alternate game by game). ``params`` override
    every variant. Without ``stop`` every game is played in one pool of all
    the variants. With ``stop`` the games are played in rounds of ``boards``
    games per variant (default: ``games``, at most 1024), each round in a
    fresh pool of the variants still undecided (seeded from ``seed`` and the
    round number), and a variant stops playing once the rule decides it;
    with ``stop`` and ``ray`` the rounds are those of the one pool, looked
    at after each. ``ray``: play the games on a Ray cluster, the same games
    as here (``True``: a local Ray; ``"auto"``, or an address: a running
    cluster; :mod:`fiverow.distributed`)."""
    if isinstance(games, bool) or not isinstance(games, int | np.integer) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    games = int(games)
    seed = check_seed(seed) or 0
    level = check_level(level)
    if isinstance(players, str | players_mod.Player):
        players = [players]  # one player named on its own, not a sequence of letters
    if stop is not None and not isinstance(stop, StopRule):
        raise TypeError(f"stop must be a fiverow.balance.StopRule or None, got {stop!r}")
    if boards is not None and (
        isinstance(boards, bool) or not isinstance(boards, int | np.integer) or boards < 1
    ):
        raise ValueError(f"boards must be a positive integer, got {boards!r}")
    chosen = [players_mod.make(p) for p in players]
    if not 1 <= len(chosen) <= 2:
        raise ValueError(f"balance takes one or two players, got {len(chosen)}")
    first, second = chosen[0], chosen[-1]
    book = openings_mod.book(openings)
    weights = variant_weights(variants)
    n_variants = len(weights)
    per_variant_boards = int(boards or min(games, 1024))
    if not all(isinstance(p, players_mod.Player) for p in chosen):  # an engine, a Python player
        if ray is not None:
            raise ValueError(
                "ray= plays built-in players only; an engine or a Python player runs here"
            )
        return _run_agents(
            list(weights),
            chosen,
            games=games,
            seed=seed,
            num_threads=num_threads,
            swap=swap,
            stop=stop,
            boards=per_variant_boards,
            params=params,
            progress=progress,
            level=level,
            openings=book,
        )
    if stop is not None:
        plan = _Plan(
            (first, second),
            swap,
            games,
            per_variant_boards,
            params,
            seed,
            num_threads,
            Progress(games * n_variants, label="balance: ") if progress else None,
            book,
        )
        with cluster(ray):  # one Ray for every round
            results, played, rounds = _play_until_decided(list(weights), stop, plan, ray)
        source_text = (
            f"{played} games played in {rounds} round(s) of up to {per_variant_boards} "
            f"games per undecided variant"
        )
        settings = _settings(chosen, swap, games, seed, stop, params, source_text, level, book)
        outcomes = {r.variant: r.outcomes for r in results}
        return BalanceReport(results, compare_variants(outcomes, level=level), settings)
    boards_in_all = per_variant_boards * n_variants
    pool = mixed_pool({v: 1.0 for v in weights}, boards_in_all, params, seed, num_threads)
    spec = RunSpec(
        {v: 1.0 for v in weights},
        boards_in_all,
        seed,
        (first, second),
        swap,
        params,
        num_threads,
        openings=book,
    )
    source = open_games(pool, spec, ray)
    bar = Progress(games * n_variants, label="balance: ") if progress else None
    done, _ = source.play(games * n_variants, bar)
    if bar:
        g_done, s_done = source.progress()
        bar.update(g_done, s_done, final=True)
    source.close()
    groups = [pool.groups[name] for name in pool._order]
    described = f"{len(done)} games played in one pool of {len(groups)} variant(s)"
    settings = _settings(chosen, swap, games, seed, stop, params, described, level, book)
    return _report(groups, [done], {g.name: None for g in groups}, settings, level)


def _settings(
    chosen: Sequence[Any],
    swap: bool,
    games: int,
    seed: int,
    stop: StopRule | None,
    params: Mapping[str, Any] | None,
    source: str,
    level: float,
    book: OpeningBook | None = None,
) -> dict[str, Any]:

    return {
        "players": [agent_name(p) for p in chosen],
        "swap": swap,
        "games_per_variant": games,
        "seed": seed,
        "stop": None if stop is None else stop.__dict__,
        "params": dict(params or {}),
        "source": source,
        "level": level,
        "openings": openings_mod.name_of(book),
    }


def _report(
    groups: Sequence[Any],
    collected: list[npt.NDArray[Any]],
    decisions: Mapping[str, str | None],
    settings: dict[str, Any],
    level: float,
) -> BalanceReport:
    """The report from the games of each variant (``group`` = index in ``groups``)."""
    games_done: npt.NDArray[Any] = (
        np.concatenate(collected) if collected else np.zeros(0, dtype=RECORD_DTYPE)
    )
    results = []
    for gi, g in enumerate(groups):
        mine = games_done[games_done["group"] == gi]
        shape, per_cell = _shape_of(g)
        r = _variant_result(
            g.name,
            mine["winner"],
            mine["length"],
            mine["last_action"],
            shape,
            per_cell,
            mine["seat0_player"],
        )
        r.decision = decisions[g.name]
        r.distinct = distinct_games(mine)
        results.append(r)
    outcomes = {r.variant: r.outcomes for r in results}
    return BalanceReport(results, compare_variants(outcomes, level=level), settings)


@dataclass
class _Plan:
    """What every round of a run shares: who plays, how many games, where."""

    players: tuple[Any, Any]
    swap: bool
    games: int  # per variant, at most
    boards: int  # per variant
    params: Mapping[str, Any] | None
    seed: int
    num_threads: int | None
    bar: Progress | None
    openings: OpeningBook | None = None


def _by_variant(done: npt.NDArray[Any], pool: Pool) -> list[tuple[str, Any, npt.NDArray[Any]]]:
    """Each group's finished games, in game order: (name, group, records)."""
    out = []
    for gi, name in enumerate(pool._order):
        mine = done[done["group"] == gi]
        out.append((name, pool.groups[name], mine[np.argsort(mine["game"], kind="stable")]))
    return out


def _result(name: str, games: npt.NDArray[Any], shape: tuple[tuple[int, int], int]) -> Any:
    return _variant_result(
        name,
        games["winner"],
        games["length"],
        games["last_action"],
        shape[0],
        shape[1],
        games["seat0_player"],
    )


def _round_seed(seed: int, round_number: int) -> int:
    """A round's pool seed: independent streams for (seed, round)."""
    state = np.random.SeedSequence([seed, round_number]).generate_state(2, np.uint32)
    return int(state[0]) << 32 | int(state[1])


def _play_until_decided(
    names: list[str], stop: StopRule, plan: _Plan, ray: bool | str | None
) -> tuple[list[VariantResult], int, int]:
    """Rounds of ``plan.boards`` games per undecided variant, each in a fresh
    pool (here, or on Ray: the same games), until every variant is decided
    or has played ``plan.games`` games."""
    collected: dict[str, list[npt.NDArray[Any]]] = {v: [] for v in names}
    shapes: dict[str, tuple[tuple[int, int], int]] = {}
    tests = {v: _seat_test(stop) for v in names}
    decisions: dict[str, str | None] = {v: None for v in names}
    played = {v: 0 for v in names}
    done_games = done_steps = rounds = 0
    while True:
        # every undecided variant has played the same rounds: one count for all
        todo = [v for v in names if decisions[v] is None and played[v] < plan.games]
        if not todo:
            break
        per_variant = min(plan.boards, plan.games - played[todo[0]])
        seed = _round_seed(plan.seed, rounds)
        weights = {v: 1.0 for v in todo}
        boards = per_variant * len(todo)
        pool = mixed_pool(weights, boards, plan.params, seed, plan.num_threads)
        spec = RunSpec(
            weights,
            boards,
            seed,
            plan.players,
            plan.swap,
            plan.params,
            plan.num_threads,
            openings=plan.openings,
        )
        source = open_games(pool, spec, ray)
        rounds += 1
        show = None
        if plan.bar is not None:
            show = _Offset(plan.bar, done_games, done_steps)
        done, interrupted = source.play(boards, show)
        g_now, s_now = source.progress()
        source.close()
        done_games, done_steps = done_games + g_now, done_steps + s_now
        for v, group, mine in _by_variant(done, pool):
            shapes.setdefault(v, _shape_of(group))
            collected[v].append(mine)
            played[v] += len(mine)
            if not interrupted:
                decisions[v] = _decide(stop, mine["winner"], collected[v], tests[v])
        if interrupted or len(done) == 0:
            break
    if plan.bar:
        plan.bar.update(done_games, done_steps, final=True)
    results = []
    for v in names:
        mine = np.concatenate(collected[v]) if collected[v] else np.zeros(0, RECORD_DTYPE)
        r = _result(v, mine, shapes.get(v, ((1, 1), 1)))
        r.decision = decisions[v]
        r.distinct = distinct_games(mine)
        results.append(r)
    return results, sum(played.values()), rounds


@dataclass
class _Offset:
    """Progress of a round, shown after the rounds before it."""

    bar: Progress
    games: int
    steps: int

    def update(self, g: int, s: int) -> None:
        self.bar.update(self.games + g, self.steps + s)


def _run_agents(
    variants: list[str],
    chosen: list[Any],
    *,
    games: int,
    seed: int,
    num_threads: int | None,
    swap: bool,
    stop: StopRule | None,
    boards: int,
    params: Mapping[str, Any] | None,
    progress: bool,
    level: float,
    openings: OpeningBook | None = None,
) -> BalanceReport:
    """:func:`run` with a Gomocup engine or a Python player in a seat: each
    variant's games stepped from Python (:func:`fiverow.agent_match.play_agents`),
    a round of ``boards`` games at a time when a stop rule looks after each
    round; games lost by forfeit count as losses and are listed in the
    settings."""

    first, second = chosen[0], chosen[-1]
    groups = [
        Pool({v: {"num_envs": 1, "config": resolve(v, **(params or {}))}}).groups[v]
        for v in variants
    ]
    for variant in variants:  # every engine on every variant, before the first game
        env = make_vec(variant, num_envs=1, **(params or {}))
        try:
            check_players(env, first, second)
        except BaseException:
            for player in {id(p): p for p in chosen}.values():
                close = getattr(player, "close", None)
                if callable(close):
                    close()
            raise
        finally:
            env.close()
    bar = Progress(games * len(variants), label="balance: ") if progress else None
    collected: list[npt.NDArray[Any]] = []
    decisions: dict[str, str | None] = {v: None for v in variants}
    forfeits: list[tuple[str, Forfeit]] = []
    played = 0
    try:
        for gi, variant in enumerate(variants):
            test = _seat_test(stop) if stop is not None else None
            done, so_far = 0, []
            while done < games and decisions[variant] is None:
                chunk = min(boards if stop else games, games - done)
                lost: list[Forfeit] = []
                got = play_agents(
                    variant,
                    first,
                    second,
                    games=chunk,
                    boards=boards,
                    seed=seed + done,
                    num_threads=num_threads,
                    alternate=swap,
                    params=params or {},
                    forfeits=lost,
                    openings=openings,
                )
                got["group"] = gi
                got["game"] += done
                forfeits += [(variant, f) for f in lost]
                collected.append(got)
                so_far.append(got)
                done += chunk
                played += chunk
                if bar:
                    bar.update(played, int(sum(int(c["length"].sum()) for c in collected)))
                if stop is not None and test is not None:
                    decisions[variant] = _decide(stop, got["winner"], so_far, test)
    finally:
        for player in {id(p): p for p in chosen}.values():
            close = getattr(player, "close", None)
            if callable(close):
                close()
    settings = _settings(
        chosen,
        swap,
        games,
        seed,
        stop,
        params,
        f"{played} games played from Python, one variant at a time",
        level,
        openings,
    )
    settings["forfeits"] = [
        {"variant": v, "game": f.game, "player": f.player, "seat": f.seat, "reason": f.reason}
        for v, f in forfeits
    ]
    return _report(groups, collected, decisions, settings, level)


def _seat_test(stop: StopRule) -> SeatSPRT:
    """The stop rule's pair of one-sided SPRTs for one variant."""
    return SeatSPRT(stop.delta, stop.alpha, stop.beta)


def _decide(
    stop: StopRule,
    new_winners: npt.NDArray[Any],
    so_far: list[npt.NDArray[Any]],
    test: SeatSPRT,
) -> str | None:
    """A variant's verdict after a round: ``new_winners`` are the round's games
    in game order, ``so_far`` every round's records."""
    if stop.kind == "width":
        every = np.concatenate([r["winner"] for r in so_far])
        return "width" if stop.reached(outcomes_from_winners(every)) else None
    # the SPRTs see the decisive games one at a time, in order; the verdict
    # of the first game that settles them stands
    decisive = new_winners[new_winners >= 0]
    return test.update_sequence(decisive == 0)


def from_dataset(path: str | Path, *, level: float = 0.95) -> BalanceReport:
    """The same report from the games of a dataset (``fiverow generate``),
    with intervals at ``level``."""
    level = check_level(level)
    with data.open(path) as ds:
        results = []
        for name in ds.variants:
            vd = ds[name]
            e = vd.episodes
            last = np.full(len(e["length"]), -1, dtype=np.int64)
            ends = e["offset"] + e["length"] - 1
            played = e["length"] > 0
            if played.any():  # one point read per game, in file order
                last[played] = data.read_rows(path, vd._group["steps/action"], ends[played])
            per_cell = cell_values(vd.config)
            winners = np.where(e["truncated"].astype(bool), -1, e["winner"])
            r = _variant_result(
                name,
                winners,
                e["length"],
                last,
                (vd.obs_shape[1], vd.obs_shape[2]),
                per_cell,
                e["players"][:, 0],
            )
            actions = np.asarray(vd._group["steps/action"])
            spans = zip(e["offset"], e["length"], strict=True)
            r.distinct = len({actions[o : o + n].tobytes() for o, n in spans})
            results.append(r)
        settings = {
            "players": ds.players,
            "swap": False,
            "seed": ds.run.get("seed"),
            "source": f"the games of {Path(path).name}",
            "level": level,
            "openings": ds.run.get("openings", "none"),
        }
    outcomes = {r.variant: r.outcomes for r in results}
    return BalanceReport(results, compare_variants(outcomes, level=level), settings)


def from_report(path: str | Path, *, level: float | None = None) -> BalanceReport:
    """A report rebuilt from the ``report.json`` of an earlier one (which
    keeps every game's winner and length and the winning cells): the
    statistics are computed afresh, at ``level`` (default: the report's), so
    a long study need not be played again to be re-analysed."""
    try:
        doc = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise FileNotFoundError(f"no such report: '{path}'") from None
    except ValueError as e:  # not JSON, not text
        raise ValueError(f"'{path}' is not a balance report.json: {e}") from None
    try:
        settings = dict(doc["settings"])
        results = []
        for v in doc["variants"]:
            rec = v["record"]
            winners = np.asarray(rec["winners"], dtype=np.int64)
            r = VariantResult(
                v["variant"],
                outcomes_from_winners(winners),
                np.asarray(rec["lengths"], dtype=np.int64),
                np.asarray(rec["win_cells"], dtype=np.int64),
                v.get("decision"),
                winners,
                seat0_players=np.asarray(rec.get("seat0_players", []), dtype=np.int64),
                distinct=v.get("distinct_games"),
            )
            results.append(r)
    except (KeyError, TypeError, ValueError) as e:
        what = f"missing {e}" if isinstance(e, KeyError) else str(e)
        raise ValueError(
            f"'{path}' is not a balance report.json with its games recorded ({what})"
        ) from None
    level = check_level(settings.get("level", 0.95) if level is None else level)
    settings["level"] = level
    report = BalanceReport(
        results, compare_variants({r.variant: r.outcomes for r in results}, level=level), settings
    )
    for variant, rows in doc.get("ratings", {}).items():
        values = np.asarray(list(rows.values()), dtype=np.float64).reshape(-1, 3)
        report.ratings[variant] = Ratings(list(rows), values[:, 0], values[:, 1], values[:, 2])
    return report


def ladder(
    variant: str,
    players: Sequence[Any],
    *,
    games: int = 200,
    seed: int = 0,
    num_threads: int | None = None,
    bootstrap: int = 200,
    params: Mapping[str, Any] | None = None,
    level: float = 0.95,
    ray: bool | str | None = None,
) -> Ratings:
    """Elo ratings of a ladder of players on one variant: every pair plays
    ``games`` games (seats alternating), ratings by maximum likelihood with
    bootstrap intervals at ``level`` (:func:`fiverow.stats.elo_ratings`).
    ``ray``: each pair's games on a Ray cluster. Players: anything
    :func:`fiverow.players.make` takes (Python players too, as
    :class:`fiverow.Match` plays them)."""

    chosen = [players_mod.make(p) for p in players]
    if len(chosen) < 2:
        raise ValueError("a ladder needs at least two players")
    a_idx, b_idx, scores = [], [], []
    with cluster(ray):  # one Ray for every pair
        for i in range(len(chosen)):
            for j in range(i + 1, len(chosen)):
                result = Match(
                    variant,
                    chosen[i],
                    chosen[j],
                    games=games,
                    seed=seed + 7919 * (i * len(chosen) + j),
                    num_threads=num_threads,
                    params=params,
                    ray=ray,
                ).play(progress=False)
                g = result.games
                a_seat = np.where(g["seat0_player"] == 0, 0, 1)
                score = np.where(g["winner"] < 0, 0.5, (g["winner"] == a_seat).astype(float))
                a_idx += [i] * len(g)
                b_idx += [j] * len(g)
                scores += list(score)
    names = [agent_name(p) for p in chosen]
    return elo_ratings(names, a_idx, b_idx, scores, bootstrap, seed, level=level)
