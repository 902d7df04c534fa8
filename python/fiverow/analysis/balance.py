"""How balanced are the variants? Tournaments in C, statistics, a report.

>>> from fiverow import balance
>>> report = balance.run(["freestyle", "renju"], players=["heuristic"], games=2000, seed=1)
>>> print(report.table())                                # doctest: +SKIP
>>> report.write("balance-out")                          # report.md, report.json, plots

For each variant, games between the players, in one mixed pool: with one
player it plays both seats; with two and ``swap=True`` each pairing is
played both ways round (seats alternate game by game), which separates the
first seat's advantage from the players' strengths. Results per variant:
first-seat win, draw and second-seat win rates with Wilson 95% intervals, the
first-seat advantage with its interval, game lengths, and the cells where
winning moves were played; between variants: two-proportion and chi-square
tests with Holm-corrected p-values and effect sizes. ``stop`` ends a run early
once the answer is known (an SPRT per variant, or a target interval width).
A dataset written by ``fiverow generate`` can be read instead of playing.
"""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import players as players_mod
from ..data.selfplay import RECORD_DTYPE, Progress
from ..data.shards import RunSpec, cluster, open_games
from ..env.config import resolve
from ..env.pool import check_seed
from ..players.match import mixed_pool, variant_weights
from .stats import (
    SPRT,
    Comparison,
    Outcomes,
    Ratings,
    compare_variants,
    elo_ratings,
    interval_width_reached,
    length_summary,
    outcomes_from_winners,
)


@dataclass
class StopRule:
    """When a variant's answer is known. ``kind="sprt"``: Wald's test of the
    first seat's share of decisive games, H0 p = 0.5 against H1 p = 0.5 +
    ``delta`` (and, mirrored, the second seat's), each with error rates
    ``alpha`` / ``beta``; the variant is done when both tests have decided.
    ``kind="width"``: done when the first-seat win rate's Wilson 95% interval
    is at most ``width`` wide."""

    kind: str = "sprt"
    delta: float = 0.1
    alpha: float = 0.05
    beta: float = 0.05
    width: float = 0.05

    def __post_init__(self) -> None:
        if self.kind not in ("sprt", "width"):
            raise ValueError(f"stop rule must be 'sprt' or 'width', got {self.kind!r}")
        if self.kind == "sprt" and not 0 < self.delta < 0.5:
            raise ValueError(f"delta must be in (0, 0.5), got {self.delta}")
        if self.kind == "sprt":
            SPRT(0.5, 0.5 + self.delta, self.alpha, self.beta)  # checks alpha and beta
        if self.kind == "width" and not 0 < self.width < 1:
            raise ValueError(f"width must be in (0, 1), got {self.width}")


@dataclass
class VariantResult:
    """One variant's outcomes in a balance study."""

    variant: str
    outcomes: Outcomes
    lengths: npt.NDArray[np.int64]
    win_cells: npt.NDArray[np.int64]  # [height, width]: winning moves per cell
    decision: str | None = None  # the stop rule's verdict, if one was used

    def summary(self) -> dict[str, Any]:
        """The variant's rates, first-seat advantage and lengths (its JSON entry)."""
        rates = self.outcomes.rates()
        adv = self.outcomes.advantage()
        return {
            "variant": self.variant,
            "games": self.outcomes.games,
            "first_seat_wins": self.outcomes.first_wins,
            "draws": self.outcomes.draws,
            "second_seat_wins": self.outcomes.second_wins,
            **{f"{k}_rate": list(v) for k, v in rates.items()},
            "first_seat_advantage": list(adv),
            "length": length_summary(self.lengths),
            "decision": self.decision,
        }


@dataclass
class BalanceReport:
    """A balance study: each variant's results and the comparisons between them."""

    results: list[VariantResult]
    comparisons: list[Comparison]
    settings: dict[str, Any]
    ratings: dict[str, Ratings] = field(default_factory=dict)

    # ---- text ----

    def table(self) -> str:
        """A terminal table: one line per variant."""
        head = (
            f"{'variant':<18}{'games':>7}  {'first seat wins':<24}{'draws':<24}"
            f"{'second seat wins':<24}{'advantage':<24}{'length':>8}"
        )
        lines = [head]
        for r in self.results:
            rates = r.outcomes.rates()
            cells = [_fmt(*rates[k]) for k in ("first_seat_win", "draw", "second_seat_win")]
            adv = _fmt(*r.outcomes.advantage(), signed=True)
            mean = np.mean(r.lengths) if len(r.lengths) else math.nan
            lines.append(
                f"{r.variant:<18}{r.outcomes.games:>7}  {cells[0]:<24}{cells[1]:<24}"
                f"{cells[2]:<24}{adv:<24}{mean:>8.1f}"
            )
        return "\n".join(lines)

    def markdown(self, plots: Sequence[str] = ()) -> str:
        """The report as Markdown (report.md), linking the given plot files."""
        s = self.settings
        lines = [
            "# Variant balance",
            "",
            f"Players: {', '.join(s['players'])}"
            + (" (each pairing both ways round)" if s.get("swap") else "")
            + f"; {s['source']}; seed {s.get('seed')}.",
            "",
            "Rates with Wilson 95% intervals; the first-seat advantage is P(first wins) - "
            "P(second wins) with a 95% interval; truncated games count as draws.",
            "",
            "| variant | games | first seat wins | draws | second seat wins "
            "| first-seat advantage | mean length |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in self.results:
            rates = r.outcomes.rates()
            cells = [_fmt(*rates[k]) for k in ("first_seat_win", "draw", "second_seat_win")]
            adv = _fmt(*r.outcomes.advantage(), signed=True)
            mean = np.mean(r.lengths) if len(r.lengths) else math.nan
            lines.append(
                f"| {r.variant} | {r.outcomes.games} | {cells[0]} | {cells[1]} | {cells[2]} "
                f"| {adv} | {mean:.1f} |"
            )
        if self.comparisons:
            lines += [
                "",
                "## Pairwise comparisons",
                "",
                "First-seat win rates compared by a two-proportion z-test (Cohen's h), and "
                "the whole outcome (first wins, draws, second wins) by a chi-square test "
                "(Cramér's V); p-values Holm-corrected over the pairs.",
                "",
                "| variants | first-seat win rates | z | p (Holm) | h | chi-square p (Holm) | V |",
                "|---|---|---|---|---|---|---|",
            ]
            for c in self.comparisons:
                lines.append(
                    f"| {c.a} vs {c.b} | {c.rate_a:.3f} vs {c.rate_b:.3f} | {c.z:.2f} "
                    f"| {_p(c.p_holm)} | {c.cohens_h:.3f} | {_p(c.chi2_p_holm)} "
                    f"| {c.cramers_v:.3f} |"
                )
        for variant, ratings in self.ratings.items():
            lines += ["", f"## Ratings on {variant}", "", "| player | Elo | 95% interval |"]
            lines.append("|---|---|---|")
            for p, (e, lo, hi) in ratings.as_dict().items():
                lines.append(f"| {p} | {e:+.0f} | [{lo:+.0f}, {hi:+.0f}] |")
        if plots:
            lines += ["", "## Plots", ""]
            lines += [f"![{Path(p).stem}]({p})" for p in plots]
        return "\n".join(lines) + "\n"

    def to_json(self) -> dict[str, Any]:
        """The report as a JSON-ready dict (report.json)."""
        return {
            "settings": self.settings,
            "variants": [r.summary() for r in self.results],
            "comparisons": [c.__dict__ for c in self.comparisons],
            "ratings": {v: r.as_dict() for v, r in self.ratings.items()},
        }

    # ---- files ----

    def plot(self, directory: str | Path) -> list[Path]:
        """PNG plots: win rates with error bars, game-length histograms, and a
        heat map of winning-move cells per variant."""
        from . import balance_plots

        return balance_plots.write_all(self, Path(directory))

    def write(self, directory: str | Path, plots: bool = True) -> dict[str, Path]:
        """report.md, report.json and (with ``plots``) the PNGs in a directory."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        images = self.plot(out) if plots else []
        md = out / "report.md"
        md.write_text(self.markdown([p.name for p in images]))
        js = out / "report.json"
        js.write_text(json.dumps(self.to_json(), indent=1, default=_json_default) + "\n")
        return {"markdown": md, "json": js, **{p.stem: p for p in images}}


def check_report_dir(directory: str | Path) -> Path:
    """Make sure the report can be written to ``directory`` (created if need
    be) before any game is played: a long study is not lost to a bad path."""
    out = Path(directory)
    if not str(directory).strip():
        raise ValueError("the report directory is empty: name a directory (CLI: --out)")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as e:
        raise OSError(f"cannot write the report to '{out}': {e.strerror or e}") from None
    return out


def _json_default(x: Any) -> Any:
    if isinstance(x, np.integer | np.floating):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"cannot serialise {type(x).__name__}")


def _fmt(rate: float, low: float, high: float, signed: bool = False) -> str:
    if math.isnan(rate):
        return "-"
    sign = "+" if signed else ""
    return f"{rate:{sign}.3f} [{low:{sign}.3f}, {high:{sign}.3f}]"


def _p(p: float) -> str:
    return "nan" if math.isnan(p) else (f"{p:.2g}" if p >= 1e-4 else "<1e-4")


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
) -> VariantResult:
    decided = winners >= 0
    return VariantResult(
        name,
        outcomes_from_winners(winners),
        lengths.astype(np.int64),
        _win_cells(last_actions[decided].astype(np.int64), shape[0], shape[1], per_cell),
    )


def _shape_of(group: Any) -> tuple[tuple[int, int], int]:
    per_cell = int(group.config["modulus"]) if group.config["rule"] == "modlinseq" else 1
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
    ray: bool | str | None = None,
) -> BalanceReport:
    """Play up to ``games`` games per variant and report.

    ``players``: one player (both seats), or two (player 0 in the first seat;
    with ``swap=True`` the seats alternate game by game). ``stop`` ends the
    run once every variant is decided. ``params`` override every variant.
    ``ray``: play the games on a Ray cluster, the same games as here
    (``True``: a local Ray; ``"auto"``, or an address: a running cluster;
    :mod:`fiverow.distributed`)."""
    if isinstance(games, bool) or not isinstance(games, int | np.integer) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    games = int(games)
    seed = check_seed(seed) or 0
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
    weights = variant_weights(variants)
    n_variants = len(weights)
    per_variant_boards = boards or min(games, 1024)
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
        )
    pool = mixed_pool(
        {v: 1.0 for v in weights}, per_variant_boards * n_variants, params, seed, num_threads
    )
    spec = RunSpec(
        {v: 1.0 for v in weights},
        per_variant_boards * n_variants,
        seed,
        (first, second),
        swap,
        params,
        num_threads,
    )
    source = open_games(pool, spec, ray)
    total = games * n_variants
    bar = Progress(total, label="balance: ") if progress else None
    groups = [pool.groups[name] for name in pool._order]
    collected: list[npt.NDArray[Any]] = []
    tests: dict[str, list[SPRT]] = {}
    decisions: dict[str, str | None] = {g.name: None for g in groups}
    played = 0
    # with a stop rule, play a round at a time and look after each
    chunk = sum(g.num_envs for g in groups) if stop else total
    while played < total:
        new, interrupted = source.play(min(chunk, total - played), bar)
        n = len(new)
        played += n
        collected.append(new)
        if interrupted or n == 0:
            break
        if stop is not None:
            new = collected[-1]
            so_far = np.concatenate(collected)
            for gi, g in enumerate(groups):
                if decisions[g.name] is None:  # a verdict, once reached, stands
                    mine = new[new["group"] == gi]
                    in_order = mine["winner"][np.argsort(mine["game"], kind="stable")]
                    every = so_far["winner"][so_far["group"] == gi]
                    decisions[g.name] = _decide(
                        stop, in_order, every, tests.setdefault(g.name, _sprts(stop))
                    )
            if all(decisions.values()):
                break
    if bar:
        g_done, s_done = source.progress()
        bar.update(g_done, s_done, final=True)
    source.close()
    described = f"{played} games played in one pool of {len(groups)} variant(s)"
    settings = _settings(chosen, swap, games, seed, stop, params, described)
    return _report(groups, collected, decisions, settings)


def _settings(
    chosen: Sequence[Any],
    swap: bool,
    games: int,
    seed: int,
    stop: StopRule | None,
    params: Mapping[str, Any] | None,
    source: str,
) -> dict[str, Any]:
    from ..players.agent_match import agent_name

    return {
        "players": [agent_name(p) for p in chosen],
        "swap": swap,
        "games_per_variant": games,
        "seed": seed,
        "stop": None if stop is None else stop.__dict__,
        "params": dict(params or {}),
        "source": source,
    }


def _report(
    groups: Sequence[Any],
    collected: list[npt.NDArray[Any]],
    decisions: Mapping[str, str | None],
    settings: dict[str, Any],
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
            g.name, mine["winner"], mine["length"], mine["last_action"], shape, per_cell
        )
        r.decision = decisions[g.name]
        results.append(r)
    outcomes = {r.variant: r.outcomes for r in results}
    return BalanceReport(results, compare_variants(outcomes), settings)


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
) -> BalanceReport:
    """:func:`run` with a Gomocup engine or a Python player in a seat: each
    variant's games stepped from Python (:func:`fiverow.agent_match.play_agents`),
    a round of ``boards`` games at a time when a stop rule looks after each
    round; games lost by forfeit count as losses and are listed in the
    settings."""
    from ..env.pool import Pool
    from ..players.agent_match import Forfeit, play_agents

    first, second = chosen[0], chosen[-1]
    groups = [
        Pool({v: {"num_envs": 1, "config": resolve(v, **(params or {}))}}).groups[v]
        for v in variants
    ]
    bar = Progress(games * len(variants), label="balance: ") if progress else None
    collected: list[npt.NDArray[Any]] = []
    decisions: dict[str, str | None] = {v: None for v in variants}
    forfeits: list[tuple[str, Forfeit]] = []
    played = 0
    try:
        for gi, variant in enumerate(variants):
            tests = _sprts(stop) if stop is not None else []
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
                if stop is not None:
                    every = np.concatenate(so_far)["winner"]
                    decisions[variant] = _decide(stop, got["winner"], every, tests)
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
    )
    settings["forfeits"] = [
        {"variant": v, "game": f.game, "player": f.player, "seat": f.seat, "reason": f.reason}
        for v, f in forfeits
    ]
    return _report(groups, collected, decisions, settings)


def _sprts(stop: StopRule) -> list[SPRT]:
    """The first seat's test and the second seat's."""
    return [SPRT(0.5, 0.5 + stop.delta, stop.alpha, stop.beta) for _ in range(2)]


def _decide(
    stop: StopRule,
    new_winners: npt.NDArray[Any],
    all_winners: npt.NDArray[Any],
    tests: list[SPRT],
) -> str | None:
    """A variant's verdict after a round: ``new_winners`` are the round's games
    in game order, ``all_winners`` every game so far."""
    if stop.kind == "width":
        first = int(np.sum(all_winners == 0))
        return "width" if interval_width_reached(first, len(all_winners), stop.width) else None
    # each SPRT sees the decisive games one at a time, in order, and keeps
    # the verdict of its first crossing
    decisive = new_winners[new_winners >= 0]
    tests[0].update_sequence(decisive == 0)
    tests[1].update_sequence(decisive == 1)
    a, b = tests[0].decision, tests[1].decision
    if a == "H1":
        return "first seat favoured"
    if b == "H1":
        return "second seat favoured"
    if a == "H0" and b == "H0":
        return "balanced within delta"
    return None


def from_dataset(path: str | Path) -> BalanceReport:
    """The same report from the games of a dataset (``fiverow generate``)."""
    from .. import data

    with data.open(path) as ds:
        results = []
        for name in ds.variants:
            vd = ds[name]
            e = vd.episodes
            last = np.full(len(e["length"]), -1, dtype=np.int64)
            ends = e["offset"] + e["length"] - 1
            played = e["length"] > 0
            if played.any():  # one point read per game, in file order
                last[played] = vd._group["steps/action"][ends[played]]
            per_cell = int(vd.config["modulus"]) if vd.config["rule"] == "modlinseq" else 1
            winners = np.where(e["truncated"].astype(bool), -1, e["winner"])
            results.append(
                _variant_result(
                    name, winners, e["length"], last, (vd.obs_shape[1], vd.obs_shape[2]), per_cell
                )
            )
        settings = {
            "players": ds.players,
            "swap": False,
            "seed": ds.run.get("seed"),
            "source": f"the games of {Path(path).name}",
        }
    outcomes = {r.variant: r.outcomes for r in results}
    return BalanceReport(results, compare_variants(outcomes), settings)


def ladder(
    variant: str,
    players: Sequence[Any],
    *,
    games: int = 200,
    seed: int = 0,
    num_threads: int | None = None,
    bootstrap: int = 200,
    params: Mapping[str, Any] | None = None,
    ray: bool | str | None = None,
) -> Ratings:
    """Elo ratings of a ladder of players on one variant: every pair plays
    ``games`` games (seats alternating), ratings by maximum likelihood with
    bootstrap 95% intervals. ``ray``: each pair's games on a Ray cluster.
    Players: anything :func:`fiverow.players.make` takes (Python players too,
    as :class:`fiverow.Match` plays them)."""
    from ..players.agent import agent_name
    from ..players.match import Match

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
                ).play()
                g = result.games
                a_seat = np.where(g["seat0_player"] == 0, 0, 1)
                score = np.where(g["winner"] < 0, 0.5, (g["winner"] == a_seat).astype(float))
                a_idx += [i] * len(g)
                b_idx += [j] * len(g)
                scores += list(score)
    names = [agent_name(p) for p in chosen]
    return elo_ratings(names, a_idx, b_idx, scores, bootstrap, seed)
