"""The balance report's plots (matplotlib, drawn off-screen to PNG files)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .balance import BalanceReport

OUTCOMES = (
    ("first_seat_win", "first seat wins", "#2a6fb0"),
    ("draw", "draws", "#9a9a9a"),
    ("second_seat_win", "second seat wins", "#c8553d"),
)


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as e:
        raise ImportError("balance plots need matplotlib: pip install matplotlib") from e
    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    return plt


def _grid(n: int) -> tuple[int, int]:
    cols = min(n, 4)
    return math.ceil(n / cols), cols


def win_rates(report: BalanceReport, path: Path) -> Path:
    plt = _pyplot()
    names = [r.variant for r in report.results]
    x = np.arange(len(names))
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(names) + 2), 4.5))
    width = 0.27
    for k, (key, label, colour) in enumerate(OUTCOMES):
        rates = [r.outcomes.rates()[key] for r in report.results]
        mid = np.array([v[0] for v in rates])
        err = np.array([[v[0] - v[1] for v in rates], [v[2] - v[0] for v in rates]])
        err = np.clip(np.nan_to_num(err), 0, None)  # rounding at 0 and 1
        ax.bar(x + (k - 1) * width, mid, width, yerr=err, capsize=3, label=label, color=colour)
    ax.set_xticks(x, names, rotation=30, ha="right")
    ax.set_ylim(0, 1)
    ax.set_ylabel("share of games (95% interval)")
    ax.set_title("Outcomes by variant: " + ", ".join(report.settings["players"]))
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def lengths(report: BalanceReport, path: Path) -> Path:
    plt = _pyplot()
    rows, cols = _grid(len(report.results))
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.6 * rows), squeeze=False)
    for ax, r in zip(axes.flat, report.results, strict=False):
        if len(r.lengths):
            ax.hist(r.lengths, bins=min(40, max(5, len(np.unique(r.lengths)))), color="#2a6fb0")
        ax.set_title(f"{r.variant} (mean {np.mean(r.lengths) if len(r.lengths) else 0:.0f})")
        ax.set_xlabel("steps")
    for ax in list(axes.flat)[len(report.results) :]:
        ax.axis("off")
    fig.suptitle("Game lengths")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def win_cells(report: BalanceReport, path: Path) -> Path:
    plt = _pyplot()
    rows, cols = _grid(len(report.results))
    fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 3.2 * rows), squeeze=False)
    for ax, r in zip(axes.flat, report.results, strict=False):
        ax.imshow(r.win_cells, cmap="magma", interpolation="nearest")
        ax.set_title(f"{r.variant} ({int(r.win_cells.sum())} wins)", fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
    for ax in list(axes.flat)[len(report.results) :]:
        ax.axis("off")
    fig.suptitle("Cells of the winning moves")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_all(report: BalanceReport, directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    return [
        win_rates(report, directory / "win_rates.png"),
        lengths(report, directory / "lengths.png"),
        win_cells(report, directory / "win_cells.png"),
    ]
