"""The balance report: per-variant results, the pairwise comparisons, and
their text forms (terminal table, Markdown, JSON) and files."""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..analysis.stats import Comparison, Outcomes, Ratings, holm_tested, length_summary


@dataclass
class VariantResult:
    """One variant's outcomes in a balance study."""

    variant: str
    outcomes: Outcomes
    lengths: npt.NDArray[np.int64]
    win_cells: npt.NDArray[np.int64]  # [height, width]: winning moves per cell
    decision: str | None = None  # the stop rule's verdict, if one was used
    # the winning seat of every game in the order played (-1: draw or truncated)
    winners: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    # which player (0 or 1) sat in the first seat, game by game (empty: unknown)
    seat0_players: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64))
    #: how many of the games differ in their moves (None: not known)
    distinct: int | None = None

    def by_player(self) -> Outcomes | None:
        """The games from player 0's side (wins, draws, player 1's wins),
        whichever seat each sat in; None when the seats are not recorded."""
        if len(self.seat0_players) != len(self.winners) or not len(self.winners):
            return None
        player0_seat = (self.seat0_players != 0).astype(np.int64)  # player 0 sat second
        decided = self.winners >= 0
        p0_wins = int(np.sum(decided & (self.winners == player0_seat)))
        p1_wins = int(np.sum(decided & (self.winners != player0_seat)))
        return Outcomes(p0_wins, int(np.sum(~decided)), p1_wins)

    def summary(self, level: float = 0.95) -> dict[str, Any]:
        """The variant's rates, first-seat advantage and lengths (its JSON entry)."""
        rates = self.outcomes.rates(level)
        adv = self.outcomes.advantage(level=level)
        return {
            "variant": self.variant,
            "games": self.outcomes.games,
            "first_seat_wins": self.outcomes.first_wins,
            "draws": self.outcomes.draws,
            "second_seat_wins": self.outcomes.second_wins,
            **{f"{k}_rate": list(v) for k, v in rates.items()},
            "first_seat_advantage": list(adv),
            "first_seat_advantage_p": self.outcomes.advantage_p_value(),
            "length": length_summary(self.lengths),
            "decision": self.decision,
            "distinct_games": self.distinct,
            # every game, so that the report can be rebuilt (from_report)
            "record": {
                "winners": self.winners.tolist(),
                "lengths": self.lengths.tolist(),
                "win_cells": self.win_cells.tolist(),
                "seat0_players": self.seat0_players.tolist(),
            },
        }


@dataclass
class BalanceReport:
    """A balance study: each variant's results and the comparisons between them."""

    results: list[VariantResult]
    comparisons: list[Comparison]
    settings: dict[str, Any]
    ratings: dict[str, Ratings] = field(default_factory=dict)

    @property
    def level(self) -> float:
        """The confidence level of the report's intervals (the run's ``level``,
        0.95 unless set)."""
        return float(self.settings.get("level", 0.95))

    def advantage_p_values(self) -> list[tuple[float, float]]:
        """Each variant's p-value of no first-seat advantage, and the same
        Holm-corrected over the variants (those with games)."""
        raw = [r.outcomes.advantage_p_value() for r in self.results]
        return list(zip(raw, holm_tested(raw), strict=True))

    @property
    def two_players(self) -> tuple[str, str] | None:
        """The two players' names when two played with their seats swapped
        (each player's results then say more than each seat's), else None."""
        players = self.settings.get("players") or []
        if len(players) != 2 or not self.settings.get("swap"):
            return None
        if players[0] == players[1]:
            return (f"{players[0]} (player 0)", f"{players[1]} (player 1)")
        return (str(players[0]), str(players[1]))

    def player_rows(self) -> list[tuple[str, str, int, int, int, tuple[float, float, float]]]:
        """With two players and swapped seats: per variant and player, (variant,
        player, wins, draws, losses, (score, low, high)), the score counting a
        draw as half a win, its interval at the report's level (the first-seat
        advantage's interval, applied to player 0 against player 1)."""
        names = self.two_players
        if names is None:
            return []
        rows = []
        for r in self.results:
            o = r.by_player()
            if o is None:
                continue
            d, low, high = o.advantage(level=self.level)
            score = ((1 + d) / 2, (1 + low) / 2, (1 + high) / 2)
            rows.append((r.variant, names[0], o.first_wins, o.draws, o.second_wins, score))
            flipped = (1 - score[0], 1 - score[2], 1 - score[1])
            rows.append((r.variant, names[1], o.second_wins, o.draws, o.first_wins, flipped))
        return rows

    # ---- text ----

    def table(self) -> str:
        """A terminal table: one line per variant (with its stop rule's
        verdict when one was used); with two players and swapped seats, a
        second table of how each player did."""
        stopped = self.settings.get("stop") is not None
        head = (
            f"{'variant':<18}{'games':>7}{'distinct':>9}  {'first seat wins':<24}{'draws':<24}"
            f"{'second seat wins':<24}{'advantage':<24}{'p':>7}{'length':>8}"
        ) + ("  verdict" if stopped else "")
        lines = [head]
        for r in self.results:
            rates = r.outcomes.rates(self.level)
            cells = [_fmt(*rates[k]) for k in ("first_seat_win", "draw", "second_seat_win")]
            adv = _fmt(*r.outcomes.advantage(level=self.level), signed=True)
            mean = np.mean(r.lengths) if len(r.lengths) else math.nan
            distinct = "?" if r.distinct is None else str(r.distinct)
            lines.append(
                f"{r.variant:<18}{r.outcomes.games:>7}{distinct:>9}  {cells[0]:<24}{cells[1]:<24}"
                f"{cells[2]:<24}{adv:<24}{_p(r.outcomes.advantage_p_value()):>7}{mean:>8.1f}"
                + (f"  {r.decision or 'undecided'}" if stopped else "")
            )
        rows = self.player_rows()
        if rows:
            pct = f"{100 * self.level:g}%"
            lines += [
                "",
                "by player (seats swapped game by game; score: a draw counts half):",
                f"{'variant':<18}{'player':<28}{'wins':>6}{'draws':>7}{'losses':>8}  score [{pct}]",
            ]
            for variant, player, w, dr, lo, score in rows:
                lines.append(f"{variant:<18}{player:<28}{w:>6}{dr:>7}{lo:>8}  {_fmt(*score)}")
        return "\n".join(lines)

    def markdown(self, plots: Sequence[str] = ()) -> str:
        """The report as Markdown (report.md), linking the given plot files."""
        s = self.settings
        pct = f"{100 * self.level:g}%"
        stopped = s.get("stop") is not None
        lines = [
            "# Variant balance",
            "",
            f"Players: {', '.join(s['players'])}"
            + (" (each pairing both ways round)" if s.get("swap") else "")
            + f"; {s['source']}; seed {s.get('seed')}; openings {s.get('openings', 'none')}.",
            "",
            f"Rates (shares of all games) with Wilson {pct} intervals. The first-seat "
            "advantage is P(first wins) - P(second wins), a draw counting 0, with a "
            f"{pct} interval (MOVER from Clopper-Pearson intervals of the two win rates); "
            "p is the two-sided p-value of no advantage that agrees with that interval "
            f"(p < {1 - self.level:.2g} exactly when it excludes 0), and Holm-corrected "
            "over the variants. Truncated games count as draws. Distinct: how many of the "
            "games differ in their moves (deterministic players repeat games, and the "
            "intervals count every game as independent).",
        ]
        if stopped:
            lines += ["", _stop_sentence(s["stop"], s.get("games_per_variant"))]
        head = (
            "| variant | games | distinct | first seat wins | draws | second seat wins "
            "| first-seat advantage | p | p (Holm) | mean length |"
        )
        rule = "|---|---|---|---|---|---|---|---|---|---|"
        if stopped:
            head, rule = head + " verdict |", rule + "---|"
        lines += ["", head, rule]
        for r, (p, p_holm) in zip(self.results, self.advantage_p_values(), strict=True):
            rates = r.outcomes.rates(self.level)
            cells = [_fmt(*rates[k]) for k in ("first_seat_win", "draw", "second_seat_win")]
            adv = _fmt(*r.outcomes.advantage(level=self.level), signed=True)
            mean = np.mean(r.lengths) if len(r.lengths) else math.nan
            distinct = "?" if r.distinct is None else str(r.distinct)
            row = (
                f"| {r.variant} | {r.outcomes.games} | {distinct} | {cells[0]} | {cells[1]} "
                f"| {cells[2]} | {adv} | {_p(p)} | {_p(p_holm)} | {mean:.1f} |"
            )
            if stopped:
                row += f" {r.decision or 'undecided'} |"
            lines.append(row)
        rows = self.player_rows()
        if rows:
            lines += [
                "",
                "## By player",
                "",
                "The seats alternated game by game, so each player's results cover both "
                "seats alike. The score counts a draw as half a win; its "
                f"{pct} interval is that of the advantage above, applied to the first "
                "player against the second.",
                "",
                "| variant | player | wins | draws | losses | score |",
                "|---|---|---|---|---|---|",
            ]
            for variant, player, wins, draws, losses, score in rows:
                lines.append(
                    f"| {variant} | {player} | {wins} | {draws} | {losses} | {_fmt(*score)} |"
                )
        if self.comparisons:
            lines += self._comparisons_markdown(pct)
        for variant, ratings in self.ratings.items():
            lines += ["", f"## Ratings on {variant}", ""]
            lines += [f"| player | Elo | {100 * ratings.level:g}% interval |", "|---|---|---|"]
            for player, (e, lo, hi) in ratings.as_dict().items():
                lines.append(f"| {player} | {e:+.0f} | [{lo:+.0f}, {hi:+.0f}] |")
        if plots:
            lines += ["", "## Plots", ""]
            lines += [f"![{Path(p).stem}]({p})" for p in plots]
        return "\n".join(lines) + "\n"

    def _comparisons_markdown(self, pct: str) -> list[str]:
        cs = self.comparisons
        tested = sum(not math.isnan(c.advantage_p) for c in cs)
        exact_rate = sum(c.p_method != "z-test" for c in cs)
        exact_table = sum(c.chi2_method != "chi-square" for c in cs)
        lines = [
            "",
            "## Pairwise comparisons",
            "",
            f"Holm's correction is over the {tested} pairs that could be tested. "
            "**Advantage**: the difference of the two first-seat advantages with its "
            f"{pct} interval (MOVER from the two advantage intervals) and the p-value of "
            "no difference that agrees with it. **Win rate**: the first seat's win rates "
            "(a draw counts as not a win) by a two-proportion z-test (Cohen's h), or "
            "Fisher's exact test where an expected count is below 5 "
            f"({exact_rate} of {len(cs)} pairs). **Outcome**: the whole 2 x 3 table "
            "(first wins, draws, second wins) by Pearson's chi-square test (Cramér's V), "
            "or the Fisher-Freeman-Halton exact test where an expected count is below 5 "
            f"({exact_table} of {len(cs)} pairs).",
            "",
            "| variants | advantages | difference | p | p (Holm) | win rates | z | p (Holm) "
            "| h | outcome p (Holm) | V |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for c in cs:
            rate_p = _p(c.p_holm) + ("" if c.p_method == "z-test" else " (exact)")
            table_p = _p(c.chi2_p_holm) + ("" if c.chi2_method == "chi-square" else " (exact)")
            lines.append(
                f"| {c.a} vs {c.b} | {c.advantage_a:+.3f} vs {c.advantage_b:+.3f} "
                f"| {_fmt(c.advantage_diff, c.advantage_low, c.advantage_high, signed=True)} "
                f"| {_p(c.advantage_p)} | {_p(c.advantage_p_holm)} "
                f"| {c.rate_a:.3f} vs {c.rate_b:.3f} | {c.z:.2f} | {rate_p} "
                f"| {c.cohens_h:.3f} | {table_p} | {c.cramers_v:.3f} |"
            )
        return lines

    def to_json(self) -> dict[str, Any]:
        """The report as a JSON-ready dict (report.json)."""
        variants = [r.summary(self.level) for r in self.results]
        for v, (_, p_holm) in zip(variants, self.advantage_p_values(), strict=True):
            v["first_seat_advantage_p_holm"] = p_holm
        for variant, player, wins, draws, losses, score in self.player_rows():
            entry = next(v for v in variants if v["variant"] == variant)
            entry.setdefault("by_player", []).append(
                {
                    "player": player,
                    "wins": wins,
                    "draws": draws,
                    "losses": losses,
                    "score": list(score),
                }
            )
        return {
            "settings": self.settings,
            "variants": variants,
            "comparisons": [c.__dict__ for c in self.comparisons],
            "ratings": {v: r.as_dict() for v, r in self.ratings.items()},
        }

    # ---- files ----

    def plot(self, directory: str | Path) -> list[Path]:
        """PNG plots: win rates with error bars, game-length histograms, and a
        heat map of winning-move cells per variant."""
        from . import balance_plots

        return balance_plots.write_all(self, Path(directory))

    def write(
        self, directory: str | Path, plots: bool = True, *, overwrite: bool = False
    ) -> dict[str, Path]:
        """report.md, report.json and (with ``plots``) the PNGs in a directory.
        A directory that already holds a report is refused unless
        ``overwrite`` (CLI: ``--overwrite``); then that report's files go first."""
        out = check_report_dir(directory, overwrite=overwrite)
        for name in REPORT_FILES:
            (out / name).unlink(missing_ok=True)
        images = self.plot(out) if plots else []
        md = out / "report.md"
        md.write_text(self.markdown([p.name for p in images]))
        js = out / "report.json"
        js.write_text(_json_text(self.to_json()) + "\n")
        return {"markdown": md, "json": js, **{p.stem: p for p in images}}


def _stop_sentence(stop: dict[str, Any], cap: int | None) -> str:
    level = f"{100 * stop.get('level', 0.95):g}%"
    if stop["kind"] == "width":
        what = (
            "first-seat advantage"
            if stop.get("of", "first_seat_win") == "advantage"
            else "first-seat win rate"
        )
        rule = f"once the {level} interval of its {what} was at most {stop['width']:g} wide"
    else:
        rule = (
            "at the SPRT verdict on its decisive games (two one-sided tests of the "
            f"first seat's share, 0.5 against 0.5 +- {stop['delta']:g}, each at alpha / 2 = "
            f"{stop['alpha'] / 2:g}, beta = {stop['beta']:g})"
        )
    return f"Each variant stopped {rule}, or at {cap} games; rounds are checked as they end."


#: The files a report writes (the PNGs with ``plots``).
REPORT_FILES = ("report.md", "report.json", "win_rates.png", "lengths.png", "win_cells.png")


def check_report_dir(directory: str | Path, *, overwrite: bool = False) -> Path:
    """Make sure the report can be written to ``directory`` (created if need
    be) before any game is played: a long study is not lost to a bad path,
    nor an earlier report to a new one (refused unless ``overwrite``)."""
    out = Path(directory)
    if not str(directory).strip():
        raise ValueError("the report directory is empty: name a directory (CLI: --out)")
    existing = [name for name in REPORT_FILES[:2] if (out / name).exists()]
    if existing and not overwrite:
        raise OSError(
            f"'{out}' holds a report ({', '.join(existing)}); pass overwrite=True "
            "(CLI: --overwrite) to replace it, or name another directory"
        )
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as e:
        raise OSError(f"cannot write the report to '{out}': {e.strerror or e}") from None
    return out


def _json_text(doc: dict[str, Any]) -> str:
    """The report as indented JSON, except each game record's lists, which
    go on one line each (24000 games are not 50000 lines)."""
    compact: dict[str, str] = {}
    for i, v in enumerate(doc.get("variants", [])):
        record = v.get("record")
        if record:
            for key, values in record.items():
                mark = f"@record-{i}-{key}@"
                compact[f'"{mark}"'] = json.dumps(values, default=_json_default)
                record[key] = mark
    text = json.dumps(doc, indent=1, default=_json_default)
    for mark, values in compact.items():
        text = text.replace(mark, values, 1)
    return text


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
    if math.isnan(p):
        return "-"
    return f"{p:.2g}" if p >= 1e-4 else "<1e-4"
