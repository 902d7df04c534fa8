"""benchmarks/caro_draws.py: its solver scan finds a forced win left in a
drawn game, and the script runs end to end (the decisive counts, Fisher's
exact test)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import fiverow

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "caro_draws.py"


def load():
    spec = importlib.util.spec_from_file_location("caro_draws", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def actions(*names: str) -> list[int]:
    env = fiverow.make_vec("caro", num_envs=1, seed=0)
    lookup = {env.action_name(a): a for a in range(env.n_actions)}
    return [lookup[n] for n in names]


def test_the_scan_counts_a_win_the_players_left():
    caro = load()
    # black h8 h9 h10 in a column, open at both ends; white far away. After
    # the sixth move black, to move, wins by fours when a five needs one open
    # end (h11; white blocks one end, the other five point is left). With
    # open ends (both end cells empty) it does not: white's stone past the
    # four spoils both fives. The seventh move is never scanned.
    game = actions("h8", "a1", "h9", "a3", "h10", "a5", "o15")
    found = caro.missed_wins("not_both_blocked", [game], nodes=5000, threads=1)
    assert found["positions"] == 6
    assert found["vcf"] >= 1, found
    found = caro.missed_wins("open", [game], nodes=5000, threads=1)
    assert found == {"vcf": 0, "vct": 0, "unknown": 0, "positions": 6}
    quiet = actions("h8", "a1", "c3", "a3", "m12", "a5", "o15")
    assert caro.missed_wins("not_both_blocked", [quiet], nodes=5000, threads=1)["vcf"] == 0


def test_the_script_end_to_end(monkeypatch, capsys):
    caro = load()
    argv = ["caro_draws.py", "--players", "heuristic,random", "--games", "4"]
    argv += ["--ends", "open,not_both_blocked", "--threads", "1", "--scan-nodes", "500"]
    monkeypatch.setattr(sys, "argv", argv)
    caro.main()
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["caro_ends"] for x in lines[:2]] == ["open", "not_both_blocked"]
    for line in lines[:2]:
        assert line["games"] == 4
        assert line["a_wins"] + line["a_losses"] + line["draws"] == 4
        if line["draws"]:
            assert line["missed_wins"]["positions"] > 0
    summary = lines[2]
    assert summary["games_each"] == 4
    assert 0.0 <= summary["fisher_exact_p"] <= 1.0
    decisive = [x["a_wins"] + x["a_losses"] for x in lines[:2]]
    assert list(summary["decisive_by_ends"].values()) == decisive
