"""Variant balance reports (fiverow.balance): a seeded run against its golden
report, the report's invariants, files and JSON, stop rules, seats and swaps,
reports read back from datasets, Elo ladders, and the ``balance`` command.

Regenerate the golden report after an intended change: python tests/test_balance.py
"""

from __future__ import annotations

import difflib
import itertools
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from fiverow import balance, cli, data, generate, stats

GOLDEN = Path(__file__).parent / "data" / "golden" / "balance_report.md"
GOLDEN_VARIANTS = ["freestyle", "torus", "caro"]
GOLDEN_GAMES = 300
PNG = b"\x89PNG\r\n\x1a\n"


def golden_run(num_threads: int) -> balance.BalanceReport:
    """The golden report's run: random players, 300 games on each of three
    variants (one of them with draws, so that every column is exercised)."""
    return balance.run(
        GOLDEN_VARIANTS, ["random"], games=GOLDEN_GAMES, seed=7, num_threads=num_threads
    )


@pytest.fixture(scope="module")
def report() -> balance.BalanceReport:
    return golden_run(2)


def decided(result: balance.VariantResult) -> int:
    return result.outcomes.first_wins + result.outcomes.second_wins


# ---- the golden report ----


@pytest.mark.parametrize("num_threads", [1, 2])
def test_golden_report(num_threads):
    assert GOLDEN.exists(), "no golden report: run python tests/test_balance.py"
    expected = GOLDEN.read_text()
    actual = golden_run(num_threads).markdown()
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(True), actual.splitlines(True), "stored", "now"
            )
        )
        pytest.fail(f"balance report changed (num_threads={num_threads}):\n{diff}")


def test_thread_count_does_not_change_the_games(report):
    one = golden_run(1)
    for a, b in zip(one.results, report.results, strict=True):
        assert a.outcomes == b.outcomes
        np.testing.assert_array_equal(a.lengths, b.lengths)
        np.testing.assert_array_equal(a.win_cells, b.win_cells)


def test_seed_changes_the_games(report):
    other = balance.run(GOLDEN_VARIANTS, ["random"], games=GOLDEN_GAMES, seed=8, num_threads=2)
    assert [r.outcomes for r in other.results] != [r.outcomes for r in report.results]


# ---- invariants of a report ----


def test_outcomes_lengths_and_win_cells(report):
    assert [r.variant for r in report.results] == GOLDEN_VARIANTS
    for r in report.results:
        o = r.outcomes
        assert o.first_wins + o.draws + o.second_wins == o.games == GOLDEN_GAMES
        assert len(r.lengths) == GOLDEN_GAMES and r.lengths.dtype == np.int64
        # a five of one colour takes at least nine moves; 15 x 15 boards
        assert r.lengths.min() >= 1 and r.lengths.max() <= 15 * 15
        assert r.win_cells.shape == (15, 15)
        assert r.win_cells.min() >= 0
        # one winning move per decided game
        assert r.win_cells.sum() == decided(r)
        assert r.decision is None
    freestyle = report.results[0]
    assert freestyle.lengths.min() >= 9
    # random play on caro (no blocked fives, no overlines) ends some games drawn
    assert report.results[2].outcomes.draws > 0


def test_comparisons_cover_every_pair_once(report):
    pairs = [(c.a, c.b) for c in report.comparisons]
    assert pairs == list(itertools.combinations(GOLDEN_VARIANTS, 2))
    outcomes = {r.variant: r.outcomes for r in report.results}
    for c in report.comparisons:
        oa, ob = outcomes[c.a], outcomes[c.b]
        assert c.rate_a == oa.first_wins / oa.games and c.rate_b == ob.first_wins / ob.games
        assert (
            c.p_value
            == stats.two_proportion_test(oa.first_wins, oa.games, ob.first_wins, ob.games)[1]
        )
        assert 0 <= c.p_value <= c.p_holm <= 1 and 0 <= c.chi2_p <= c.chi2_p_holm <= 1
    assert [c.p_holm for c in report.comparisons] == stats.holm(
        [c.p_value for c in report.comparisons]
    )
    # caro (many draws) differs clearly from freestyle
    by_pair = {(c.a, c.b): c for c in report.comparisons}
    assert by_pair["freestyle", "caro"].chi2_p_holm < 1e-4


def test_settings(report):
    s = report.settings
    assert s["players"] == ["random"] and s["swap"] is False and s["seed"] == 7
    assert s["games_per_variant"] == GOLDEN_GAMES and s["stop"] is None and s["params"] == {}
    assert s["source"] == "900 games played in one pool of 3 variant(s)"
    assert report.ratings == {}


def test_table(report):
    lines = report.table().splitlines()
    assert len(lines) == 1 + len(GOLDEN_VARIANTS)
    assert lines[0].startswith("variant") and "advantage" in lines[0]
    for line, r in zip(lines[1:], report.results, strict=True):
        assert line.split()[:2] == [r.variant, str(GOLDEN_GAMES)]
        rate, low, high = r.outcomes.rates()["first_seat_win"]
        assert f"{rate:.3f} [{low:.3f}, {high:.3f}]" in line
        assert f"{np.mean(r.lengths):.1f}" in line


def test_json_is_serialisable_and_matches_the_results(report):
    doc = report.to_json()
    text = json.dumps(doc, allow_nan=False)  # plain types only, no NaN
    back = json.loads(text)
    assert back["settings"]["seed"] == 7
    assert [v["variant"] for v in back["variants"]] == GOLDEN_VARIANTS
    for v, r in zip(back["variants"], report.results, strict=True):
        o = r.outcomes
        assert (v["games"], v["first_seat_wins"], v["draws"], v["second_seat_wins"]) == (
            o.games,
            o.first_wins,
            o.draws,
            o.second_wins,
        )
        assert v["first_seat_win_rate"] == pytest.approx(list(o.rates()["first_seat_win"]))
        assert v["first_seat_advantage"] == pytest.approx(list(o.advantage()))
        assert v["length"]["mean"] == pytest.approx(float(np.mean(r.lengths)))
        assert v["length"]["max"] == r.lengths.max()
    assert len(back["comparisons"]) == 3
    assert back["comparisons"][0]["a"] == "freestyle" and "chi2_p_holm" in back["comparisons"][0]


def test_a_report_is_rebuilt_from_its_json(report, tmp_path):
    """report.json keeps every game: the report rebuilt from it is the same,
    and the statistics can be recomputed at another level without replaying."""
    path = report.write(tmp_path, plots=False)["json"]
    # every game kept, each record's list on one line: 900 games, not 1800 lines
    assert len(path.read_text().splitlines()) < 300
    back = balance.from_report(path)
    assert back.markdown() == report.markdown()
    for a, b in zip(back.results, report.results, strict=True):
        np.testing.assert_array_equal(a.winners, b.winners)
        np.testing.assert_array_equal(a.win_cells, b.win_cells)
    at90 = balance.from_report(path, level=0.9)
    assert at90.settings["level"] == 0.9
    assert at90.results[0].outcomes.advantage(level=0.9) == pytest.approx(
        tuple(at90.to_json()["variants"][0]["first_seat_advantage"])
    )
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"settings": {}, "variants": [{"variant": "x"}]}))
    with pytest.raises(ValueError, match="games recorded"):
        balance.from_report(bad)


def test_cli_balance_from_a_report(report, tmp_path, capsys):
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report.to_json()))
    out_dir = tmp_path / "again"
    argv = ["balance", "--report", str(path), "--no-plots", "--out", str(out_dir), "--quiet"]
    assert cli.main(argv) == 0
    assert (out_dir / "report.md").read_text() == report.markdown()
    assert cli.main(["balance", "--report", str(path), "--dataset", str(path)]) != 0
    assert "give one" in capsys.readouterr().err


def test_write_report_and_plots(report, tmp_path):
    files = report.write(tmp_path / "out")
    assert set(files) == {"markdown", "json", "win_rates", "lengths", "win_cells"}
    names = {p.name for p in files.values()}
    assert names == {"report.md", "report.json", "win_rates.png", "lengths.png", "win_cells.png"}
    for key in ("win_rates", "lengths", "win_cells"):
        content = files[key].read_bytes()
        assert content.startswith(PNG) and len(content) > 1000, key
    md = files["markdown"].read_text()
    assert md == report.markdown(["win_rates.png", "lengths.png", "win_cells.png"])
    assert "![win_cells](win_cells.png)" in md
    assert md.startswith(report.markdown().rstrip("\n"))
    assert json.loads(files["json"].read_text()) == json.loads(json.dumps(report.to_json()))


def test_write_without_plots(report, tmp_path):
    files = report.write(tmp_path, plots=False)
    assert set(files) == {"markdown", "json"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json", "report.md"]
    assert "## Plots" not in files["markdown"].read_text()


# ---- run: players, seats, parameters ----


def test_two_players_fixed_and_swapped_seats():
    """Heuristic beats random on freestyle; without swap it keeps its seat,
    with swap the seats alternate game by game, so wins split evenly by seat."""
    games = 100
    h_first = balance.run("freestyle", ["heuristic", "random"], games=games, seed=2).results[0]
    r_first = balance.run("freestyle", ["random", "heuristic"], games=games, seed=2).results[0]
    assert h_first.outcomes.first_wins >= 0.9 * games
    assert r_first.outcomes.second_wins >= 0.9 * games
    swapped = balance.run("freestyle", ["random", "heuristic"], games=games, seed=2, swap=True)
    o = swapped.results[0].outcomes
    assert o.games == games and abs(o.first_wins - o.second_wins) <= 0.1 * games
    assert swapped.settings["players"] == ["random", "heuristic"] and swapped.settings["swap"]
    assert "(each pairing both ways round)" in swapped.markdown()


def test_params_override_every_variant():
    rep = balance.run(["freestyle", "torus"], ["random"], games=60, seed=1, params={"size": 9})
    assert rep.settings["params"] == {"size": 9}
    for r in rep.results:
        assert r.win_cells.shape == (9, 9)
        assert r.win_cells.sum() == decided(r)
        assert r.lengths.max() <= 81


def test_truncated_games_count_as_draws():
    rep = balance.run(["freestyle"], ["random"], games=50, seed=1, params={"max_steps": 30})
    r = rep.results[0]
    assert r.outcomes == stats.Outcomes(0, 50, 0)
    assert np.all(r.lengths == 30)
    assert r.win_cells.sum() == 0


def test_more_games_than_boards_keeps_every_variant_at_its_count():
    rep = balance.run(["freestyle", "torus"], ["random"], games=150, seed=4, boards=64)
    assert [r.outcomes.games for r in rep.results] == [150, 150]
    assert rep.settings["source"].startswith("300 games")


def test_progress_goes_to_stderr(capsys):
    balance.run("freestyle", ["random"], games=20, seed=1, progress=True)
    out, err = capsys.readouterr()
    assert out == "" and "balance: 20/20 games" in err


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"games": 0}, "positive integer"),
        ({"games": -3}, "positive integer"),
        ({"games": True}, "positive integer"),
        ({"games": 2.5}, "positive integer"),
        ({"players": []}, "one or two players"),
        ({"players": ["random"] * 3}, "one or two players"),
        ({"players": ["nobody"]}, "nobody"),
        ({"variants": "nosuch"}, "unknown variant"),
        ({"variants": []}, "at least one variant"),
        ({"seed": -1}, "seed"),
    ],
)
def test_run_rejects_bad_arguments(kwargs, words):
    args = {"variants": "freestyle", "players": ["random"], "games": 10, "seed": 0, **kwargs}
    variants = args.pop("variants")
    with pytest.raises(ValueError, match=words):
        balance.run(variants, **args)


def test_run_takes_a_numpy_integer_game_count():
    """Match and generate accept numpy integers for ``games``; run() says
    "games must be a positive integer, got np.int64(20)"."""
    rep = balance.run("freestyle", ["random"], games=np.int64(20), seed=1)
    assert rep.results[0].outcomes.games == 20


# ---- stop rules ----


def test_width_rule_stops_at_the_first_round_narrow_enough():
    """Rounds of 64 games; the run ends after the first round whose Wilson
    interval of the first-seat win rate is at most 0.1 wide (about 384 games),
    long before the 100000 games allowed: the games of the rounds before were
    not yet enough."""
    rule = balance.StopRule("width", width=0.1)
    rep = balance.run("freestyle", ["random"], games=100_000, seed=11, boards=64, stop=rule)
    r = rep.results[0]
    n = r.outcomes.games
    assert r.decision == "width"
    assert n % 64 == 0 and 300 <= n <= 512
    assert len(r.winners) == n and stats.outcomes_from_winners(r.winners) == r.outcomes
    assert stats.interval_width_reached(r.outcomes.first_wins, n, 0.1)
    assert rep.settings["stop"] == {
        "kind": "width",
        "delta": 0.1,
        "alpha": 0.05,
        "beta": 0.05,
        "width": 0.1,
        "of": "first_seat_win",
        "level": 0.95,
    }
    before = r.winners[: n - 64]
    assert not stats.interval_width_reached(int(np.sum(before == 0)), n - 64, 0.1)


def test_width_rule_on_the_advantage_and_at_another_level():
    """Stopping on the advantage's interval (a width of 0.2 is +-0.1) at a 90%
    level: fewer games than at 95%, each run at its first round narrow enough."""
    runs = {}
    for level in (0.95, 0.9):
        rule = balance.StopRule("width", width=0.2, of="advantage", level=level)
        rep = balance.run("freestyle", ["random"], games=100_000, seed=5, boards=32, stop=rule)
        r = rep.results[0]
        _, lo, hi = r.outcomes.advantage(level=level)
        assert r.decision == "width" and hi - lo <= 0.2
        earlier = stats.outcomes_from_winners(r.winners[: r.outcomes.games - 32])
        _, lo, hi = earlier.advantage(level=level)
        assert hi - lo > 0.2
        runs[level] = r.outcomes.games
    assert runs[0.9] < runs[0.95] <= 512


def test_stopped_runs_do_not_depend_on_the_thread_count():
    rule = balance.StopRule("sprt", delta=0.1)
    kwargs = {"games": 2000, "seed": 4, "boards": 24, "stop": rule}
    one = balance.run(["freestyle", "torus"], ["random"], num_threads=1, **kwargs)
    two = balance.run(["freestyle", "torus"], ["random"], num_threads=2, **kwargs)
    for a, b in zip(one.results, two.results, strict=True):
        assert a.outcomes == b.outcomes and a.decision == b.decision
        np.testing.assert_array_equal(a.winners, b.winners)
        np.testing.assert_array_equal(a.lengths, b.lengths)


def test_sprt_rule_decides_every_variant():
    rule = balance.StopRule("sprt", delta=0.1)
    rep = balance.run(["freestyle", "torus"], ["random"], games=20_000, seed=3, stop=rule)
    verdicts = {"first seat favoured", "second seat favoured", "balanced within delta"}
    assert all(r.decision in verdicts for r in rep.results)
    assert all(r.outcomes.games < 20_000 for r in rep.results)
    # random play is near balanced (first-seat share of decisive games ~0.5)
    assert {r.decision for r in rep.results} == {"balanced within delta"}


@pytest.mark.parametrize(
    ("players", "verdict", "seat"),
    [
        (["heuristic", "random"], "first seat favoured", "first_wins"),
        (["random", "heuristic"], "second seat favoured", "second_wins"),
    ],
)
def test_sprt_rule_finds_a_favoured_seat(players, verdict, seat):
    rule = balance.StopRule("sprt", delta=0.1)
    rep = balance.run("freestyle", players, games=2000, seed=5, boards=32, stop=rule)
    r = rep.results[0]
    assert r.decision == verdict
    assert r.outcomes.games <= 64 and getattr(r.outcomes, seat) >= 0.9 * r.outcomes.games


@pytest.mark.parametrize(
    "kwargs",
    [
        {"kind": "bogus"},
        {"kind": "sprt", "delta": 0.0},
        {"kind": "sprt", "delta": 0.5},
        {"kind": "width", "width": 0.0},
        {"kind": "width", "width": 1.0},
    ],
)
def test_stop_rule_rejects_bad_parameters(kwargs):
    with pytest.raises(ValueError):
        balance.StopRule(**kwargs)


def test_stop_rule_rejects_bad_error_rates():
    """alpha and beta are checked when the rule is made, like delta and width,
    not by the first SPRT after a round of games has been played."""
    for kwargs in ({"alpha": 0.0}, {"beta": 1.5}):
        with pytest.raises(ValueError):
            balance.StopRule("sprt", **kwargs)


def test_sprt_rule_keeps_the_verdict_of_the_first_crossing():
    """A sequential test decides once, at the first game that settles it; the
    variant then stops playing at the end of that round, while the others go
    on. The verdict reported must be the one the pair of SPRTs reaches on the
    decisive games in the order they were played, not a re-test of the games
    played after it (random self-play on freestyle and strip: delta 0.05 makes
    the runs long enough to end in different rounds)."""
    delta, boards = 0.05, 16
    rep = balance.run(
        ["freestyle", "strip"],
        ["random"],
        games=3000,
        seed=37,
        boards=boards,
        num_threads=2,
        stop=balance.StopRule("sprt", delta=delta),
    )
    played = {}
    for r in rep.results:
        decisive = r.winners[r.winners >= 0]
        test = stats.SeatSPRT(delta)
        verdict = test.update_sequence(decisive == 0)
        assert r.decision == verdict
        # the game that settled it, among all the variant's games
        settled_at = int(np.flatnonzero(r.winners >= 0)[test.games - 1]) + 1
        assert r.outcomes.games == boards * -(-settled_at // boards), r.variant
        played[r.variant] = r.outcomes.games
    assert len(set(played.values())) == 2, played  # each stopped on its own


# ---- reports from datasets ----


def test_from_dataset_equals_the_same_games_played(tmp_path):
    """generate() with the golden run's pool (300 boards per variant, seed 7)
    writes the very games run() plays: the report read back is the same."""
    path = tmp_path / "games.h5"
    generate.generate(path, ["freestyle", "torus"], games=600, boards=600, seed=7, num_threads=2)
    from_file = balance.from_dataset(path)
    played = balance.run(["freestyle", "torus"], ["random"], games=300, seed=7, num_threads=2)
    with data.open(path) as ds:
        summary = ds.summary()
    for f, p in zip(from_file.results, played.results, strict=True):
        s = summary[f.variant]
        assert f.outcomes == stats.Outcomes(
            s["seat0_wins"], s["draws"] + s["truncated"], s["seat1_wins"]
        )
        assert f.outcomes == p.outcomes
        assert len(f.lengths) == s["episodes"] and f.lengths.sum() == s["steps"]
        np.testing.assert_array_equal(f.lengths, p.lengths)
        np.testing.assert_array_equal(f.win_cells, p.win_cells)
    assert from_file.settings["players"] == ["random", "random"]
    assert from_file.settings["seed"] == 7
    assert "the games of games.h5; seed 7; openings none." in from_file.markdown()
    # the tables below the header are the same
    assert from_file.markdown().split("\n", 3)[3] == played.markdown().split("\n", 3)[3]
    json.dumps(from_file.to_json(), allow_nan=False)


def test_from_dataset_counts_truncated_games_as_draws(tmp_path):
    path = tmp_path / "short.h5"
    generate.generate(path, "freestyle", games=40, seed=1, params={"max_steps": 30})
    with data.open(path) as ds:
        assert ds.summary()["freestyle"]["truncated"] == 40
    r = balance.from_dataset(path).results[0]
    assert r.outcomes == stats.Outcomes(0, 40, 0)
    assert r.win_cells.sum() == 0


def test_from_dataset_missing_file(tmp_path):
    with pytest.raises(data.DatasetError):
        balance.from_dataset(tmp_path / "missing.h5")


# ---- Elo ladder ----


def test_ladder_rates_the_heuristic_above_random():
    ratings = balance.ladder(
        "freestyle", ["random", "heuristic"], games=40, seed=1, num_threads=2, bootstrap=50
    )
    assert ratings.players == ["random", "heuristic"]
    assert ratings.elo.mean() == pytest.approx(0.0, abs=1e-9)
    assert ratings.elo[1] - ratings.elo[0] > 200
    assert np.all(ratings.low <= ratings.elo) and np.all(ratings.elo <= ratings.high)
    with pytest.raises(ValueError, match="two players"):
        balance.ladder("freestyle", ["random"], games=4)


def test_ratings_appear_in_the_report():
    rep = balance.run("freestyle", ["random"], games=20, seed=1)
    rep.ratings["freestyle"] = stats.Ratings(
        ["random", "heuristic"],
        np.array([-100.0, 100.0]),
        np.array([-150.0, 60.0]),
        np.array([-60.0, 150.0]),
    )
    md = rep.markdown()
    assert "## Ratings on freestyle" in md
    assert "| heuristic | +100 | [+60, +150] |" in md
    doc = json.loads(json.dumps(rep.to_json()))
    assert doc["ratings"]["freestyle"]["random"] == [-100.0, -150.0, -60.0]


# ---- the command line ----


def balance_argv(*extra: str) -> list[str]:
    return [
        "balance",
        "--variants",
        "freestyle,torus",
        "--players",
        "random",
        "--games",
        "200",
        "--seed",
        "1",
        "--quiet",
        *extra,
    ]


def test_cli_balance_prints_a_table_and_writes_the_report(tmp_path, capsys):
    out_dir = tmp_path / "r"
    assert cli.main(balance_argv("--out", str(out_dir))) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert lines[0].startswith("variant")
    assert lines[1].split()[:2] == ["freestyle", "200"]
    assert lines[2].split()[:2] == ["torus", "200"]
    assert lines[-1].startswith("wrote ")
    for name in ("report.md", "report.json", "win_rates.png", "lengths.png", "win_cells.png"):
        assert (out_dir / name).stat().st_size > 0, name
    assert (out_dir / "lengths.png").read_bytes().startswith(PNG)
    expected = balance.run(["freestyle", "torus"], ["random"], games=200, seed=1)
    assert lines[:3] == expected.table().splitlines()
    assert json.loads((out_dir / "report.json").read_text())["settings"]["seed"] == 1


def test_cli_balance_json(tmp_path, capsys):
    assert cli.main(balance_argv("--json")) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [v["variant"] for v in doc["variants"]] == ["freestyle", "torus"]
    assert all(v["games"] == 200 for v in doc["variants"])
    assert len(doc["comparisons"]) == 1


def test_cli_balance_no_plots_stop_and_ladder(tmp_path, capsys):
    out_dir = tmp_path / "r"
    argv = balance_argv("--stop", "width", "--width", "0.2", "--no-plots")
    argv += ["--ladder", "random,heuristic", "--ladder-games", "20", "--out", str(out_dir)]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "Elo on freestyle:" in out and "heuristic" in out
    assert sorted(p.name for p in out_dir.iterdir()) == ["report.json", "report.md"]
    doc = json.loads((out_dir / "report.json").read_text())
    assert [v["decision"] for v in doc["variants"]] == ["width", "width"]
    assert doc["settings"]["stop"]["kind"] == "width"
    assert set(doc["ratings"]["freestyle"]) == {"random", "heuristic"}


def test_cli_balance_stop_on_the_advantage_with_boards_level_and_error_rates(capsys):
    argv = ["balance", "--variants", "freestyle", "--players", "random", "--games", "2000"]
    argv += ["--stop", "width", "--width-of", "advantage", "--width", "0.3", "--boards", "32"]
    argv += ["--level", "0.9", "--alpha", "0.1", "--beta", "0.2", "--seed", "3", "--quiet"]
    assert cli.main([*argv, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    stop = doc["settings"]["stop"]
    assert stop["of"] == "advantage" and stop["level"] == 0.9 and stop["width"] == 0.3
    assert (stop["alpha"], stop["beta"]) == (0.1, 0.2)
    assert doc["settings"]["level"] == 0.9
    (v,) = doc["variants"]
    assert v["decision"] == "width" and v["games"] % 32 == 0 and v["games"] < 2000
    _, lo, hi = v["first_seat_advantage"]
    assert hi - lo <= 0.3
    assert stats.Outcomes(v["first_seat_wins"], v["draws"], v["second_seat_wins"]).advantage(
        level=0.9
    ) == pytest.approx(tuple(v["first_seat_advantage"]))


def test_cli_balance_from_a_dataset(tmp_path, capsys):
    path = tmp_path / "games.h5"
    generate.generate(path, ["freestyle", "torus"], games=100, seed=3)
    assert cli.main(["balance", "--dataset", str(path), "--quiet", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    with data.open(path) as ds:
        summary = ds.summary()
    for v in doc["variants"]:
        s = summary[v["variant"]]
        assert (v["first_seat_wins"], v["second_seat_wins"]) == (s["seat0_wins"], s["seat1_wins"])
        assert v["games"] == s["episodes"]
    assert doc["settings"]["source"] == "the games of games.h5"


def test_cli_balance_players_with_parameters(capsys):
    """Commas inside a player's parentheses belong to that player."""
    argv = ["balance", "--variants", "freestyle", "--games", "10", "--quiet", "--json"]
    argv += ["--players", "heuristic(epsilon=0.1),mcts:8(rollout=random,depth=10)", "--swap"]
    assert cli.main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["players"] == [
        "heuristic(epsilon=0.1)",
        "mcts:8(rollout=random,depth=10)",
    ]
    assert doc["settings"]["swap"] is True and doc["variants"][0]["games"] == 10


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--players", "random,random,random"], "one or two players"),
        (["--players", "a,b,c"], "player kind"),
        (["--players", ""], "one or two players"),
        (["--variants", "nosuch"], "unknown variant"),
        (["--games", "0"], "positive integer"),
        (["--stop", "sprt", "--delta", "0.7"], "delta"),
        (["--stop", "width", "--width", "1.5"], "width"),
        (["--seed", "-1"], "seed"),
        (["--threads", "0"], "num_threads"),
        (["--param", "size=nine"], "--param size"),
        (["--ladder", "random"], "two players"),
        (["--dataset", "{tmp}/missing.h5"], "no such dataset"),
    ],
)
def test_cli_balance_errors(tmp_path, capsys, extra, words):
    argv = balance_argv() + [a.replace("{tmp}", str(tmp_path)) for a in extra]
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert err.startswith("fiverow: error: ") and words in err
    assert "Traceback" not in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("extra", [["--stop", "bogus"], ["--games", "many"]])
def test_cli_balance_usage_errors(tmp_path, capsys, extra):
    with pytest.raises(SystemExit) as e:
        cli.main(balance_argv(*extra))
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "usage:" in err and "invalid" in err and "Traceback" not in err


@pytest.mark.parametrize("variants", [",", "freestyle:abc"])
def test_cli_balance_variant_errors_name_the_option(tmp_path, capsys, variants):
    """``balance`` has no --mix option: its --variants errors must say --variants."""
    argv = ["balance", "--variants", variants, "--players", "random", "--games", "5", "--quiet"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("fiverow: error: ")
    assert "--variants" in err and "--mix" not in err, err


def write_golden() -> None:
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    text = golden_run(2).markdown()
    assert golden_run(1).markdown() == text
    GOLDEN.write_text(text)
    print(f"wrote {GOLDEN}", file=sys.stderr)


if __name__ == "__main__":
    write_golden()


def test_run_arguments_are_checked():
    with pytest.raises(TypeError, match="stop must be"):
        balance.run(["freestyle"], ["random"], games=2, stop="sprt")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="boards must be a positive integer"):
        balance.run(["freestyle"], ["random"], games=2, boards=0)


def test_one_player_may_be_named_on_its_own():
    report = balance.run(["freestyle"], "random", games=4, params={"size": 7})  # type: ignore[arg-type]
    assert report.results[0].outcomes.games == 4


def test_cli_balance_checks_the_out_directory_before_playing(tmp_path, capsys, monkeypatch):
    def played(*args, **kwargs):
        raise AssertionError("games were played before --out was checked")

    monkeypatch.setattr(balance, "run", played)
    (tmp_path / "file").write_text("not a directory")
    assert cli.main(balance_argv("--out", str(tmp_path / "file" / "report"))) == 2
    err = capsys.readouterr().err
    assert err.startswith("fiverow: error: cannot write the report to ")
    assert str(tmp_path / "file" / "report") in err


def test_cli_balance_keeps_an_existing_report_without_overwrite(tmp_path, capsys, monkeypatch):
    """A long study's report is not replaced by a short one unless asked
    (as generate does), and the refusal comes before any game is played."""
    out_dir = tmp_path / "r"
    assert cli.main(balance_argv("--out", str(out_dir), "--no-plots")) == 0
    study = (out_dir / "report.json").read_bytes()
    capsys.readouterr()

    def played(*args, **kwargs):
        raise AssertionError("games were played before --out was checked")

    with monkeypatch.context() as m:
        m.setattr(balance, "run", played)
        assert cli.main(balance_argv("--out", str(out_dir), "--games", "10")) == 2
    err = capsys.readouterr().err
    assert err.startswith("fiverow: error: ") and err.count("\n") == 1
    assert str(out_dir) in err and "--overwrite" in err and "report.json" in err
    assert (out_dir / "report.json").read_bytes() == study
    argv = balance_argv("--out", str(out_dir), "--games", "10", "--no-plots", "--overwrite")
    assert cli.main(argv) == 0
    doc = json.loads((out_dir / "report.json").read_text())
    assert [v["games"] for v in doc["variants"]] == [10, 10]


def test_write_refuses_an_existing_report_unless_overwrite(report, tmp_path):
    report.write(tmp_path)
    markdown = (tmp_path / "report.md").read_text()
    with pytest.raises(OSError, match="overwrite=True"):
        report.write(tmp_path, plots=False)
    assert (tmp_path / "report.md").read_text() == markdown
    # replaced: the old report's plots go too, so none is left over from it
    files = report.write(tmp_path, plots=False, overwrite=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json", "report.md"]
    assert set(files) == {"markdown", "json"}


def test_two_swapped_players_are_reported_each(tmp_path):
    """With two players and swapped seats the table, report.md and
    report.json say how each player did, whichever seat it held."""
    rep = balance.run("freestyle", ["random", "heuristic"], games=40, seed=2, swap=True)
    r = rep.results[0]
    assert sorted(set(r.seat0_players.tolist())) == [0, 1]  # both sat first
    mine = r.by_player()
    assert mine is not None and mine.games == 40
    # the counts by player, from each game's winner and who sat first
    random_seat = np.where(r.seat0_players == 0, 0, 1)
    assert mine.first_wins == int(np.sum(r.winners == random_seat))
    assert mine.second_wins == int(np.sum((r.winners >= 0) & (r.winners != random_seat)))
    assert mine.second_wins >= 36  # heuristic beats random, in either seat
    rows = rep.player_rows()
    assert [(v, p) for v, p, *_ in rows] == [("freestyle", "random"), ("freestyle", "heuristic")]
    (_, _, w, d, lo, score), (_, _, w2, d2, lo2, score2) = rows
    assert (w, d, lo) == (mine.first_wins, mine.draws, mine.second_wins) == (lo2, d2, w2)
    assert score[1] <= score[0] <= score[2] and score2[0] == pytest.approx(1 - score[0])
    table = rep.table().splitlines()
    start = table.index("by player (seats swapped game by game; score: a draw counts half):")
    assert table[start + 2].split()[:5] == ["freestyle", "random", str(w), str(d), str(lo)]
    assert table[start + 3].split()[:5] == ["freestyle", "heuristic", str(w2), str(d2), str(lo2)]
    md = rep.markdown()
    assert "## By player" in md and f"| freestyle | heuristic | {w2} | {d2} | {lo2} |" in md
    doc = rep.to_json()
    assert [p["player"] for p in doc["variants"][0]["by_player"]] == ["random", "heuristic"]
    path = rep.write(tmp_path, plots=False)["json"]
    assert balance.from_report(path).markdown() == md  # the seats are in report.json
    # one player, or two in fixed seats: the seats are the players, no second table
    fixed = balance.run("freestyle", ["random", "heuristic"], games=10, seed=2)
    assert fixed.player_rows() == [] and "by player" not in fixed.table()
    assert "## By player" not in fixed.markdown()


def test_cli_balance_prints_the_verdicts_and_each_players_results(capsys):
    argv = ["balance", "--variants", "freestyle", "--players", "heuristic,random", "--swap"]
    argv += ["--stop", "sprt", "--games", "400", "--boards", "16", "--seed", "5", "--quiet"]
    argv += ["--param", "size=9"]
    assert cli.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("variant") and lines[0].endswith("verdict")
    # the seats alternate, so neither seat is favoured: the players are
    assert lines[1].startswith("freestyle") and lines[1].endswith("balanced within delta")
    assert any(line.split()[:2] == ["freestyle", "heuristic"] for line in lines[3:])
    assert any(line.split()[:2] == ["freestyle", "random"] for line in lines[3:])
