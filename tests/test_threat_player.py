"""The threat player: it plays its forced wins, stops the opponent's, and
works wherever player names are taken (Match, generate, balance, the CLI)."""

from __future__ import annotations

import numpy as np
import pytest
from test_solve import random_positions

import fiverow
from fiverow import Match, cli, players, solve
from fiverow.analysis import balance

THREAT = players.make("threat", nodes=20000)
#: The same root stage, then MCTS over the root moves instead of alpha-beta.
THREAT_MCTS = players.make("threat", nodes=20000, simulations=40)
BOTH = pytest.mark.parametrize("player", [THREAT, THREAT_MCTS], ids=["alphabeta", "mcts"])


def flipped(env, i):
    """A one-board freestyle 11x11 env holding board i's stones with the other
    colour to act (the opponent's view, were the mover to pass)."""
    b = env.board(i)
    other = fiverow.make_vec("freestyle", num_envs=1, seed=0, size=11)
    other.reset(seed=0)
    other.load_position(0, b["cells"], to_play="white" if b["colour"] == 0 else "black")
    return other


def positions(preset="freestyle", boards=96, seed=7, **params):
    env = random_positions(preset, boards, 40, seed=seed, size=11, **params)
    return env, [i for i in range(boards) if env.board(i)["status"] == 0]


@BOTH
def test_threat_plays_its_vcf(player):
    env, live = positions(boards=192)
    moves = player.act(env)
    checked = 0
    for i in live:
        s = solve.search(env, i, "vcf", max_nodes=2000)
        if s.result != "win" or len(s.line) < 3:
            continue
        checked += 1
        assert moves[i] == s.line[0], i
    assert checked >= 3


@BOTH
def test_threat_stops_the_opponents_vcf_where_the_heuristic_does_not(player):
    """On every position where the opponent would have a VCF were the mover to
    pass and the mover has no forced win of its own, the threat player's move
    leaves the opponent no VCF whenever some move does."""
    env, live = positions(seed=8)
    ours = player.act(env)
    theirs = players.make("heuristic").act(env)
    lab = fiverow.make_vec("freestyle", num_envs=1, seed=0, size=11)
    lab.reset(seed=0)
    threatened = stopped = heuristic_stopped = 0

    def stops(i, move):
        lab.set_state(0, env.get_state(i))
        lab.step(np.array([move]))
        return lab.board(0)["status"] == 0 and solve.vcf(lab, 0, max_nodes=20000) is None

    for i in live:
        if solve.vcf(flipped(env, i), 0) is None or solve.vct(env, i, max_nodes=5000):
            continue
        if solve.vcf(env, i) is not None:
            continue
        legal = np.flatnonzero(env.action_masks()[i])
        if not any(stops(i, int(a)) for a in legal):
            continue  # lost whatever it plays
        threatened += 1
        stopped += stops(i, int(ours[i]))
        heuristic_stopped += stops(i, int(theirs[i]))
    assert threatened >= 3
    assert stopped == threatened
    assert heuristic_stopped < threatened  # the positions test something


def test_threat_beats_the_heuristic_on_a_small_board():
    result = Match(
        "freestyle", "threat(nodes=5000)", "heuristic", games=8, seed=2, params={"size": 11}
    ).play()
    score = result.variants[0]
    assert score.wins > score.losses


@pytest.mark.parametrize("name", ["threat(nodes=2000)", "threat(nodes=2000,simulations=30)"])
def test_match_is_the_same_on_any_thread_count(name):
    def play(threads):
        return Match("renju", name, "heuristic", games=6, seed=3, num_threads=threads).play()

    one, two = play(1), play(2)
    for name in one.games.dtype.names:
        np.testing.assert_array_equal(one.games[name], two.games[name], err_msg=name)


def test_threat_in_generate_and_balance(tmp_path, capsys):
    out = tmp_path / "games.h5"
    code = cli.main(
        [
            "generate",
            "--variant",
            "renju",
            "--games",
            "4",
            "--black",
            "threat(nodes=2000)",
            "--white",
            "heuristic",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code in (0, None) and out.exists()
    with fiverow.data.open(out) as data:
        assert len(data) == 4
        assert "threat(nodes=2000)" in data.players
    report = balance.run(["caro"], ["threat(nodes=1000)", "heuristic"], games=2, seed=0)
    assert report.results[0].outcomes.games == 2


def test_mcts_mode_searches_the_root_moves_only():
    """threat(simulations=N): the policy is the playouts' visit counts, on at
    most `width` moves (the heuristic's best) or, when the opponent threatens,
    at most 8 (the defences), and the move is the most visited one."""
    env, live = positions(seed=9)
    player = players.make("threat", nodes=5000, simulations=64, width=6)
    moves, policy = player.act(env, policy=True)
    legal = env.action_masks()
    searched = 0
    for i in live:
        support = np.flatnonzero(policy[i])
        assert legal[i][support].all(), i
        assert len(support) <= 8, i  # max(width, 8 defences)
        assert policy[i].sum() == pytest.approx(1.0), i
        assert policy[i][moves[i]] == policy[i].max(), i
        searched += len(support) > 1
    assert searched >= 5  # positions with a choice to search, not only forced ones
    again = players.make("threat(nodes=5000,simulations=64,width=6)").act(env)
    np.testing.assert_array_equal(moves, again)


def test_mcts_mode_name_and_checks():
    player = players.make("threat", simulations=200, c_uct=0.5)
    assert player.name == "threat(simulations=200,c_uct=0.5)"
    assert players.make(player.name) == player
    assert players.make("threat").simulations == 0  # alpha-beta by default
    with pytest.raises(ValueError, match="simulations must be in 0..1000000"):
        players.make("threat", simulations=-1)
    with pytest.raises(ValueError, match="rollout"):
        players.make("threat", simulations=10, rollout="nope")
