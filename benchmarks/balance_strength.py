"""Does the first seat's edge change with the player's strength? Two balance
reports compared preset by preset: JSON lines (or a Markdown table).

For every preset in both reports: the difference of the first-seat
advantages (second report minus first) with its interval and p-value
(fiverow.stats.advantage_difference: MOVER from the two advantage intervals,
the two studies being independent samples), Holm-corrected over the presets
compared; and the difference of mean game lengths by Welch's t-test, also
Holm-corrected. The reports keep every game (report.json), so nothing is
replayed.

    python benchmarks/balance_strength.py docs/balance/heuristic/report.json \\
        docs/balance/mcts/report.json --markdown
"""

from __future__ import annotations

import argparse
import json

import numpy as np
from scipy import stats as sps

from fiverow import balance
from fiverow.stats import advantage_difference, holm


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("first", help="report.json of the first study (e.g. the weaker player)")
    ap.add_argument("second", help="report.json of the second study")
    ap.add_argument("--level", type=float, default=0.95)
    ap.add_argument("--markdown", action="store_true", help="a Markdown table instead")
    args = ap.parse_args()
    a = {r.variant: r for r in balance.from_report(args.first).results}
    b = {r.variant: r for r in balance.from_report(args.second).results}
    rows = []
    for name in [v for v in b if v in a]:
        ra, rb = a[name], b[name]
        diff, low, high, p = advantage_difference(rb.outcomes, ra.outcomes, level=args.level)
        la, lb = ra.lengths.astype(float), rb.lengths.astype(float)
        if np.ptp(la) == 0 and np.ptp(lb) == 0:
            length_p = 1.0 if la[0] == lb[0] else 0.0  # constant lengths (a full board)
        else:
            length_p = float(sps.ttest_ind(lb, la, equal_var=False).pvalue)
        rows.append(
            {
                "variant": name,
                "advantage_first": ra.outcomes.advantage(level=args.level),
                "advantage_second": rb.outcomes.advantage(level=args.level),
                "games": [ra.outcomes.games, rb.outcomes.games],
                "difference": [diff, low, high],
                "p": p,
                "mean_length": [float(la.mean()), float(lb.mean())],
                "length_p": length_p,
            }
        )
    for key in ("p", "length_p"):
        for row, adjusted in zip(rows, holm([r[key] for r in rows]), strict=True):
            row[key + "_holm"] = adjusted
    if not args.markdown:
        for row in rows:
            print(json.dumps(row))
        return
    pct = f"{100 * args.level:g}%"
    print(
        f"| variant | advantage, first | advantage, second | difference [{pct}] "
        "| p (Holm) | mean length | length p (Holm) |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        d, lo, hi = r["difference"]
        fa, fb = r["advantage_first"], r["advantage_second"]
        print(
            f"| {r['variant']} | {fa[0]:+.3f} [{fa[1]:+.3f}, {fa[2]:+.3f}] "
            f"| {fb[0]:+.3f} [{fb[1]:+.3f}, {fb[2]:+.3f}] "
            f"| {d:+.3f} [{lo:+.3f}, {hi:+.3f}] | {r['p']:.2g} ({r['p_holm']:.2g}) "
            f"| {r['mean_length'][0]:.1f} -> {r['mean_length'][1]:.1f} "
            f"| {r['length_p']:.2g} ({r['length_p_holm']:.2g}) |"
        )


if __name__ == "__main__":
    main()
