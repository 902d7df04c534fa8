"""Caro's draws: the rule or the players? (issue 16 §2)

The same two players play caro under each end condition (``caro_ends``:
``open``, the preset's, needs both end cells of the five empty; the others
are looser: docs/variants.md), seats alternated, and the share of decisive
games is compared across the end conditions with Fisher's exact test. Then
every position of every drawn game is given to the solver for the side to
move (VCF, then VCT, at a budget larger than the players'): a forced win the
game did not take is a win the players missed. If the same players decide
games under a looser end condition, and the solver finds no forced win in
the drawn games, the draws come from the rule as far as threat-space search
can see. One JSON line per end condition, then a summary line.

    python benchmarks/caro_draws.py --players threat,heuristic --games 100
    python benchmarks/caro_draws.py --players threat,threat --games 40 --ends open,gomocup
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

import fiverow
from fiverow import data, solve
from fiverow.analysis.stats import exact_table_test, wilson_interval
from fiverow.data.generate import generate

ENDS = ("open", "not_both_blocked", "gomocup", "gomocup6")


def play(ends: str, a: str, b: str, games: int, seed: int, threads: int, folder: Path) -> list:
    """Episodes (winner seat, A's seat, actions) of games between A and B,
    A in the first seat in half of them."""
    out = []
    for first, second, a_seat in ((a, b, 0), (b, a, 1)):
        path = folder / f"caro-{ends}-{a_seat}.h5"
        generate(
            path,
            "caro",
            games=games // 2 + (games % 2 if a_seat == 0 else 0),
            black=first,
            white=second,
            seed=seed,
            num_threads=threads,
            params={"caro_ends": ends},
            overwrite=True,
        )
        with data.open(path) as ds:
            group = ds["caro"]
            for i in range(len(group)):
                ep = group.episode(i)
                out.append((int(ep.winner), a_seat, np.asarray(ep.actions, dtype=np.int64)))
    return out


def missed_wins(ends: str, drawn: list, nodes: int, threads: int) -> dict[str, int]:
    """Positions of the drawn games where the side to move had a forced win
    the solver finds (VCF, then VCT), and the positions scanned."""
    found = {"vcf": 0, "vct": 0, "unknown": 0, "positions": 0}
    by_length: dict[int, list] = {}
    for actions in drawn:
        by_length.setdefault(len(actions), []).append(actions)
    for length, games in by_length.items():
        moves = np.stack(games)
        env = fiverow.make_vec(
            "caro", num_envs=len(games), seed=0, num_threads=threads, caro_ends=ends
        )
        env.reset(seed=0)
        for ply in range(length - 1):
            env.step(moves[:, ply])
            found["positions"] += len(games)
            vcf = solve.search_all(env, "vcf", max_nodes=nodes)
            vct = solve.search_all(env, "vct", max_nodes=nodes)
            for f, t in zip(vcf, vct, strict=True):
                found["vcf"] += f.result == "win"
                found["vct"] += f.result != "win" and t.result == "win"
                found["unknown"] += f.result != "win" and t.result == "unknown"
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", default="threat,heuristic", help="A,B")
    ap.add_argument("--games", type=int, default=100, help="games per end condition")
    ap.add_argument("--ends", default="open,not_both_blocked,gomocup")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--scan-nodes", type=int, default=50_000, help="solver budget per position")
    ap.add_argument("--no-scan", action="store_true", help="skip the solver scan of drawn games")
    args = ap.parse_args()
    a, _, b = args.players.partition(",")
    ends_list = [e.strip() for e in args.ends.split(",") if e.strip()]
    bad = [e for e in ends_list if e not in ENDS]
    if bad or not b or args.games < 2:
        ap.error(f"--ends from {', '.join(ENDS)}; --players A,B; --games >= 2 (bad: {bad})")
    table: list[list[int]] = [[], []]
    with tempfile.TemporaryDirectory() as tmp:
        for ends in ends_list:
            start = time.perf_counter()
            episodes = play(ends, a, b, args.games, args.seed, args.threads, Path(tmp))
            wins = sum(w >= 0 and w == s for w, s, _ in episodes)
            losses = sum(w >= 0 and w != s for w, s, _ in episodes)
            drawn = [acts for w, _, acts in episodes if w < 0]
            games = len(episodes)
            decisive = wins + losses
            table[0].append(decisive)
            table[1].append(games - decisive)
            low, high = wilson_interval(decisive, games)
            line: dict[str, Any] = {
                "caro_ends": ends,
                "player_a": a,
                "player_b": b,
                "games": games,
                "a_wins": wins,
                "a_losses": losses,
                "draws": len(drawn),
                "a_score": round((wins + len(drawn) / 2) / games, 4),
                "decisive": round(decisive / games, 4),
                "decisive_ci95": [round(low, 4), round(high, 4)],
                "mean_length": round(float(np.mean([len(x) for *_, x in episodes])), 1),
                "play_seconds": round(time.perf_counter() - start, 1),
            }
            if drawn and not args.no_scan:
                start = time.perf_counter()
                line["missed_wins"] = missed_wins(ends, drawn, args.scan_nodes, args.threads)
                line["scan_seconds"] = round(time.perf_counter() - start, 1)
            print(json.dumps(line), flush=True)
    if len(ends_list) > 1:
        p = exact_table_test(np.array(table))
        print(
            json.dumps(
                {
                    "decisive_by_ends": dict(zip(ends_list, table[0], strict=True)),
                    "games_each": args.games,
                    "fisher_exact_p": round(p, 6),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
