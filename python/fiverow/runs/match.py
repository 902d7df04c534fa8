"""Matches between two built-in players over many boards, in C.

>>> import fiverow
>>> result = fiverow.Match("freestyle", "heuristic", "random", games=200, seed=1).play()
>>> print(result)  # doctest: +SKIP

Seats alternate with the game number, so each player holds the first seat in
half of the games; results come with Wilson 95% intervals. With ``openings``
(:mod:`fiverow.players.openings`) every game starts from an opening, each
played from both seats, and the result says how many games were distinct.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import players as players_mod
from ..analysis.stats import advantage_interval, wilson_interval
from ..env.pool import check_seed
from ..players import Player
from ..players import openings as openings_mod
from ..players.openings import OpeningBook, distinct_games
from .agent_match import Agent, Forfeit, agent_name, play_agents
from .selfplay import (
    RECORD_DTYPE,
    Progress,
    default_boards,
    mixed_pool,
    split_boards,
    variant_weights,
)
from .shards import RunSpec, open_games


@dataclass
class VariantScore:
    """One variant's results, from player A's side."""

    variant: str
    games: int
    wins: int  # player A
    losses: int
    draws: int
    truncated: int
    first_seat_wins: int

    @property
    def score(self) -> float:
        """Player A's score: wins + draws / 2, per game."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else float("nan")

    def win_rate(self) -> tuple[float, float, float]:
        """Player A's win rate with its Wilson 95% interval: (rate, low, high)."""
        low, high = wilson_interval(self.wins, self.games)
        return (self.wins / self.games if self.games else float("nan"), low, high)

    def score_interval(self) -> tuple[float, float, float]:
        """Player A's score with its 95% interval: (score, low, high). The score
        is (1 + d) / 2 for d = P(A wins) - P(B wins), so the interval is that of
        d, the MOVER interval of the balance reports' first-seat advantage
        (:func:`fiverow.analysis.intervals.advantage_interval`), mapped."""
        _, low, high = advantage_interval(self.wins, self.draws, self.losses)
        return self.score, (1 + float(low)) / 2, (1 + float(high)) / 2


@dataclass
class MatchResult:
    player_a: str
    player_b: str
    variants: list[VariantScore]
    games: npt.NDArray[Any]  # one record per game (fiverow.selfplay.RECORD_DTYPE)
    interrupted: bool = False
    #: Games lost by a player's failure (an engine that crashed, hung, ...).
    forfeits: list[Forfeit] = field(default_factory=list)
    #: The games' openings: ``none``, ``balanced`` or a file's path.
    openings: str = "none"

    @property
    def distinct(self) -> int:
        """How many of the games differ in their moves (deterministic players
        repeat games; intervals that count every game as independent are too
        narrow when this is well below the games played)."""
        return distinct_games(self.games)

    def total(self) -> VariantScore:
        fields = ("games", "wins", "losses", "draws", "truncated", "first_seat_wins")
        sums = {f: sum(getattr(v, f) for v in self.variants) for f in fields}
        return VariantScore("all", **sums)

    def __str__(self) -> str:
        head = f"{self.player_a} vs {self.player_b}" + (
            " (interrupted)" if self.interrupted else ""
        )
        lines = [
            head,
            f"{'variant':<18}{'games':>7}{'A wins':>8}{'B wins':>8}{'draws':>7}"
            f"{'A win rate (95% CI)':>26}",
        ]
        rows = self.variants + ([self.total()] if len(self.variants) > 1 else [])
        for v in rows:
            rate, lo, hi = v.win_rate()
            lines.append(
                f"{v.variant:<18}{v.games:>7}{v.wins:>8}{v.losses:>8}{v.draws:>7}"
                f"{rate:>12.3f} [{lo:.3f}, {hi:.3f}]"
            )
        lines.append(
            f"openings: {self.openings}; distinct games: {self.distinct} of {len(self.games)}"
        )
        for f in self.forfeits:
            lines.append(f"game {f.game}: {f.player} (seat {f.seat}) forfeits: {f.reason}")
        return "\n".join(lines)


class Match:
    """Player A against player B on one variant or a mix, ``games`` games.

    ``params`` override every variant's parameters (``{"size": 9}``);
    ``alternate=False`` keeps player A in the first seat. ``ray``: the games
    of built-in players on a Ray cluster, the same games
    (:mod:`fiverow.distributed`). ``openings``: ``"none"`` (the default),
    ``"balanced"`` or a file of openings (:mod:`fiverow.players.openings`);
    every opening is played from both seats. A player may also be
    a Python agent, any object with ``act(env) -> actions`` over a vector env
    (:class:`fiverow.agent_match.Agent`; a ``name`` attribute names it) or a
    function ``f(env) -> actions``, as :func:`fiverow.players.make` takes: the
    games are then stepped from Python, one variant at a time."""

    def __init__(
        self,
        variants: str | Sequence[str] | Mapping[str, float],
        player_a: str | Player | Agent | Callable[[Any], Any],
        player_b: str | Player | Agent | Callable[[Any], Any],
        *,
        games: int = 100,
        seed: int = 0,
        num_threads: int | None = None,
        boards: int | None = None,
        alternate: bool = True,
        params: Mapping[str, Any] | None = None,
        ray: bool | str | None = None,
        openings: str | os.PathLike[str] | OpeningBook | None = "none",
    ) -> None:
        if isinstance(games, bool) or not isinstance(games, int | np.integer) or games < 1:
            raise ValueError(f"games must be a positive integer, got {games!r}")
        self.weights = variant_weights(variants)
        self.player_a = _player(player_a)
        self.player_b = _player(player_b)
        self.games = int(games)
        self.seed = check_seed(seed) or 0
        self.num_threads = num_threads
        self.boards = default_boards(self.games) if boards is None else int(boards)
        if self.boards < 1:
            raise ValueError(f"boards must be >= 1, got {boards}")
        self.alternate = alternate
        self.params = dict(params or {})
        self.ray = ray
        self.openings = openings_mod.book(openings)

    def play(self, progress: bool | None = None) -> MatchResult:
        """Play every game: results per variant and in total, with Wilson intervals.

        ``progress``: a progress line on stderr (games, games/s, steps/s, ETA),
        as ``fiverow generate`` shows. ``None`` (the default) shows it when
        stderr is a terminal; ``True`` always (off a terminal, a line every
        10 s); ``False`` never."""
        if progress is not None and not isinstance(progress, bool):
            raise TypeError(f"progress must be True, False or None, got {progress!r}")
        show = sys.stderr.isatty() if progress is None else progress
        if not (isinstance(self.player_a, Player) and isinstance(self.player_b, Player)):
            if self.ray is not None and self.ray is not False:
                raise ValueError("ray plays built-in players only; Python agents play here")
            return self._play_agents(Progress(self.games, label="match: ") if show else None)
        pool = mixed_pool(self.weights, self.boards, self.params, self.seed, self.num_threads)
        pair = (self.player_a, self.player_b)
        spec = RunSpec(
            self.weights,
            self.boards,
            self.seed,
            pair,
            self.alternate,
            self.params,
            self.num_threads,
            openings=self.openings,
        )
        source = open_games(pool, spec, self.ray)
        bar = Progress(self.games, label="match: ") if show else None
        games, interrupted = source.play(self.games, bar)
        if bar:
            games_done, steps_done = source.progress()
            bar.update(games_done, steps_done, final=True)
        source.close()
        return MatchResult(
            self.player_a.name,
            self.player_b.name,
            [score_variant(games, gi, name) for gi, name in enumerate(pool._order)],
            games,
            interrupted,
            openings=openings_mod.name_of(self.openings),
        )

    def _play_agents(self, bar: Progress | None) -> MatchResult:
        counts = split_games(self.games, self.weights)
        boards = split_boards(self.boards, self.weights)
        parts: list[npt.NDArray[Any]] = []
        scores: list[VariantScore] = []
        forfeits: list[Forfeit] = []
        for gi, name in enumerate(self.weights):
            if counts[name] == 0:  # fewer games than variants
                scores.append(score_variant(np.zeros(0, dtype=RECORD_DTYPE), gi, name))
                continue
            lost: list[Forfeit] = []
            games = play_agents(
                name,
                self.player_a,
                self.player_b,
                games=counts[name],
                boards=boards[name],
                seed=self.seed,
                num_threads=self.num_threads,
                alternate=self.alternate,
                params=self.params,
                forfeits=lost,
                progress=bar,
                done_before=(sum(map(len, parts)), sum(int(p["length"].sum()) for p in parts)),
                openings=self.openings,
            )
            offset = int(sum(len(p) for p in parts))  # game numbers run on across variants
            forfeits += [replace(f, game=f.game + offset) for f in lost]
            games["group"] = gi
            parts.append(games)
            scores.append(score_variant(games, gi, name))
        games = np.concatenate(parts)
        games["game"] = np.arange(len(games))
        if bar:
            bar.update(len(games), int(games["length"].sum()), final=True)
        return MatchResult(
            agent_name(self.player_a),
            agent_name(self.player_b),
            scores,
            games,
            forfeits=forfeits,
            openings=openings_mod.name_of(self.openings),
        )


def split_games(games: int, weights: Mapping[str, float]) -> dict[str, int]:
    """``games`` shared among the variants in proportion to the weights,
    exactly (largest remainders; a variant may get none when games are few)."""
    total = float(sum(weights.values()))
    exact = {name: games * w / total for name, w in weights.items()}
    counts = {name: int(x) for name, x in exact.items()}
    by_remainder = sorted(exact, key=lambda name: counts[name] - exact[name])
    for name in by_remainder[: games - sum(counts.values())]:
        counts[name] += 1
    return counts


def _player(p: Any) -> Player | Agent:
    """A built-in player by name or Player, or a Python agent as it is."""
    return players_mod.make(p)


def score_variant(games: npt.NDArray[Any], group: int, name: str) -> VariantScore:
    g = games[games["group"] == group]
    winner = g["winner"].astype(np.int64)
    decided = winner >= 0
    # the player who won: the one in the winning seat
    a_seat = np.where(g["seat0_player"] == 0, 0, 1)
    a_wins = int(np.sum(decided & (winner == a_seat)))
    b_wins = int(np.sum(decided & (winner != a_seat)))
    return VariantScore(
        name,
        len(g),
        a_wins,
        b_wins,
        int(np.sum(~decided)),
        int(np.sum(g["truncated"] != 0)),
        int(np.sum(winner == 0)),
    )
