"""Built-in players (random, heuristic, MCTS, threat): construction, validation, legal and
deterministic actions, tactics (win at once, block), every preset; matches between
players (fiverow.match)."""

from __future__ import annotations

import _thread
import dataclasses
import io
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import fiverow
from fiverow import players
from fiverow.match import Match, MatchResult, VariantScore

KINDS = ["random", "heuristic", "mcts", "threat", "pvs"]
SIZE = 15  # freestyle: 15 x 15


def player(kind: str, **params) -> players.Player:
    """A player that stays fast in tests (MCTS: few simulations, short playouts;
    threat: a small node budget)."""
    if kind == "mcts":
        params = {"simulations": 8, "depth": 10, **params}
    if kind in ("threat", "pvs"):
        params = {"nodes": 3000, **params}
    return players.make(kind, **params)


def env_of(preset: str = "freestyle", num_envs: int = 8, seed: int = 0, **kwargs):
    env = fiverow.make_vec(preset, num_envs=num_envs, seed=seed, **kwargs)
    _, info = env.reset()
    return env, info


def check_act(env, info, actions, policies, done) -> None:
    """Actions legal on every ongoing board (0 on finished ones); policies a
    distribution over the legal actions."""
    mask = info["action_mask"].astype(bool)
    assert actions.dtype == np.int64 and actions.shape == (env.num_envs,)
    assert policies.dtype == np.float32 and policies.shape == (env.num_envs, env.n_actions)
    for i in range(env.num_envs):
        if done[i]:
            assert actions[i] == 0
            continue
        assert mask[i, actions[i]], f"env {i}: illegal action {actions[i]}"
        assert np.all(policies[i][~mask[i]] == 0), f"env {i}: policy on illegal actions"
        assert np.all(policies[i] >= 0)
        assert policies[i].sum() == pytest.approx(1.0, abs=1e-4)


# ---- construction and validation ----


def test_make_by_name_and_defaults():
    p = players.make("mcts")
    assert (p.kind, p.simulations, p.rollout, p.width, p.depth) == (
        "mcts",
        400,
        "heuristic",
        10,
        60,
    )
    assert (p.c_uct, p.epsilon, p.seed) == (1.0, 0.1, 0)
    assert p.name == "mcts:400"
    m = players.make("mcts:200")
    assert m.simulations == 200 and m.name == "mcts:200"
    assert players.make("random").name == "random"
    assert players.make("heuristic").name == "heuristic"
    assert players.make("mcts", simulations=37).name == "mcts:37"
    # a Player passes through make(), with parameters replaced
    assert players.make(m) is m
    assert players.make(m, seed=5) == dataclasses.replace(m, seed=5)


def test_player_is_frozen():
    p = players.make("heuristic")
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.seed = 3  # type: ignore[misc]


def test_spec_holds_every_parameter():
    p = players.make("mcts", simulations=12, rollout="random", width=0, depth=7, c_uct=0.5)
    assert p.spec() == {
        "kind": "mcts",
        "simulations": 12,
        "rollout": "random",
        "width": 0,
        "depth": 7,
        "c_uct": 0.5,
        "epsilon": 0.1,
        "seed": 0,
        "nodes": 100000,
        "plies": 2,
        "vct_depth": 8,
        "time_ms": 0,
    }


@pytest.mark.parametrize(
    "name, params, words",
    [
        ("chess", {}, ["kind", "chess"]),
        ("random", {"bogus": 1}, ["bogus"]),
        ("heuristic:5", {}, ["mcts", "heuristic:5"]),
        ("mcts:abc", {}, ["integer"]),
        ("mcts", {"simulations": 0}, ["simulations"]),
        ("mcts", {"epsilon": 2}, ["epsilon"]),
        ("mcts", {"rollout": "x"}, ["rollout"]),
        ("mcts", {"c_uct": -1}, ["c_uct"]),
        ("mcts", {"c_uct": float("nan")}, ["c_uct"]),
        ("mcts", {"width": -1}, ["width"]),
        ("mcts", {"depth": -1}, ["depth"]),
        ("threat", {"nodes": 0}, ["nodes"]),
        ("threat", {"vct_depth": 0}, ["vct_depth"]),
        ("threat", {"vct_depth": 61}, ["vct_depth"]),
        ("threat", {"plies": 0}, ["plies"]),
        ("threat", {"plies": 13}, ["plies"]),
        ("threat", {"width": 65}, ["width"]),
        ("threat:5", {}, ["mcts", "threat:5"]),
        ("threat", {"simulations": -1}, ["simulations", "0..1000000"]),
        ("threat", {"simulations": 5, "depth": -1}, ["depth"]),
    ],
)
def test_make_rejects_bad_input(name, params, words):
    with pytest.raises(ValueError) as e:
        players.make(name, **params)
    for word in words:
        assert word in str(e.value)


def test_act_rejects_what_is_not_an_env():
    pool = fiverow.make_pool({"freestyle": 2, "caro": 2}, seed=0)
    pool.reset()
    with pytest.raises(TypeError, match="act_pool"):
        players.make("random").act(pool)
    with pytest.raises(TypeError):
        players.make("random").act(object())


# ---- acting ----


@pytest.mark.parametrize("kind", KINDS)
def test_act_is_legal_and_policies_are_distributions(kind):
    """Through whole games (next-step autoreset): legal actions, policies on the
    legal actions summing to 1, and 0 / an empty policy on finished boards."""
    env, info = env_of(num_envs=8, seed=11)
    p = player(kind)
    done = np.zeros(env.num_envs, dtype=bool)
    finished = 0
    for _ in range(60):
        actions, policies = p.act(env, policy=True)
        check_act(env, info, actions, policies, done)
        assert np.all(policies[done] == 0)
        _, _, terminated, truncated, info = env.step(actions)
        done = terminated | truncated
        finished += int(done.sum())
    if kind != "random":
        assert finished > 0  # the finished-board branch was exercised


@pytest.mark.parametrize("kind", KINDS)
def test_act_without_policy_matches_act_with_policy(kind):
    """The choice depends on the board's keys, not on the call: asking twice (and
    with or without the policy) gives the same actions."""
    env, _ = env_of(num_envs=16, seed=2)
    for _ in range(3):
        env.step(env.sample_legal())
    p = player(kind)
    a1 = p.act(env)
    a2, _ = p.act(env, policy=True)
    a3 = p.act(env)
    assert isinstance(a1, np.ndarray) and a1.dtype == np.int64
    np.testing.assert_array_equal(a1, a2)
    np.testing.assert_array_equal(a1, a3)


def test_random_policy_is_uniform_over_legal_actions():
    env, info = env_of(num_envs=4, seed=5)
    for _ in range(7):
        _, _, _, _, info = env.step(env.sample_legal())
    _, pol = players.make("random").act(env, policy=True)
    mask = info["action_mask"].astype(np.float32)
    np.testing.assert_allclose(pol, mask / mask.sum(1, keepdims=True), atol=1e-6)


def test_act_pool_acts_on_every_group():
    pool = fiverow.make_pool({"freestyle": 4, "caro": 3, "strip": 2}, seed=1)
    pool.reset()
    out = players.act_pool(players.make("heuristic"), pool, policy=True)
    assert list(out) == ["freestyle", "caro", "strip"]
    for name, (actions, policies) in out.items():
        g = pool.groups[name]
        mask = g.info()["action_mask"].astype(bool)
        assert actions.shape == (g.num_envs,) and policies.shape == (g.num_envs, g.n_actions)
        assert mask[np.arange(g.num_envs), actions].all()
        np.testing.assert_allclose(policies.sum(1), 1.0, atol=1e-5)
    plain = players.act_pool(players.make("heuristic"), pool)
    for name in out:
        np.testing.assert_array_equal(plain[name], out[name][0])
    # a one-group pool can also be passed to act()
    single = fiverow.make_pool({"caro": 3}, seed=1)
    single.reset()
    assert players.make("random").act(single).shape == (3,)


@pytest.mark.parametrize("kind", KINDS)
def test_same_seed_same_actions_on_any_thread_count(kind):
    def trajectory(threads):
        env, _ = env_of(num_envs=12, seed=21, num_threads=threads)
        p = player(kind)
        out = []
        for _ in range(25):
            a, pol = p.act(env, policy=True)
            out.append((a.copy(), pol.copy()))
            env.step(a)
        return out

    one, two = trajectory(1), trajectory(2)
    for (a1, p1), (a2, p2) in zip(one, two, strict=True):
        np.testing.assert_array_equal(a1, a2)
        np.testing.assert_array_equal(p1, p2)


@pytest.mark.parametrize("kind", KINDS)
def test_player_seed_changes_tie_breaks(kind):
    """On positions where the player has several equal choices, its ``seed``
    changes which one it takes; the same seed takes the same one."""
    env, _ = env_of(num_envs=32, seed=4)
    for _ in range(4):
        env.step(env.sample_legal())
    a0 = player(kind, seed=0).act(env)
    np.testing.assert_array_equal(a0, player(kind, seed=0).act(env))
    others = [player(kind, seed=s).act(env) for s in (1, 2, 3)]
    assert any(np.any(a != a0) for a in others)


# ---- tactics ----


def line_cells(start, direction, n):
    (r, c), (dr, dc) = start, direction
    return [(r + k * dr, c + k * dc) for k in range(n)]


def board_rows(stones: dict[tuple[int, int], str]) -> list[str]:
    rows = [["."] * SIZE for _ in range(SIZE)]
    for (r, c), ch in stones.items():
        rows[r][c] = ch
    return ["".join(row) for row in rows]


DIRECTIONS = {"row": (0, 1), "column": (1, 0), "diagonal": (1, 1), "anti-diagonal": (1, -1)}


def four_with_one_open_end(me: str, direction, start=(4, 5)):
    """Four stones of `me` closed by the opponent at one end: the one winning
    (or, for the opponent, blocking) cell is the other end."""
    other = "O" if me == "X" else "X"
    cells = line_cells(start, direction, 6)  # closed end, four stones, open end
    stones = {cells[0]: other}
    stones.update({cell: me for cell in cells[1:5]})
    r, c = cells[5]
    return stones, r * SIZE + c


TACTIC_PLAYERS = {
    "heuristic": lambda: players.make("heuristic"),
    "mcts": lambda: players.make("mcts", simulations=50),
    "threat": lambda: players.make("threat", nodes=3000),
}


@pytest.mark.parametrize("who", list(TACTIC_PLAYERS))
@pytest.mark.parametrize("colour", ["black", "white"])
@pytest.mark.parametrize("direction", list(DIRECTIONS))
def test_player_completes_five(who, colour, direction):
    """Its own four with an open end, and an opponent's four too: it wins at once
    rather than blocking."""
    me = "X" if colour == "black" else "O"
    stones, win = four_with_one_open_end(me, DIRECTIONS[direction])
    theirs, _ = four_with_one_open_end("O" if me == "X" else "X", (0, 1), start=(12, 2))
    stones.update(theirs)
    env = fiverow.make_vec("freestyle", num_envs=2, seed=3, autoreset_mode="disabled")
    env.reset()
    env.load_position(0, board_rows(stones), to_play=colour)
    env.load_position(1, board_rows(stones), to_play=colour)
    actions = TACTIC_PLAYERS[who]().act(env)
    assert list(actions) == [win, win]
    _, _, terminated, _, info = env.step(actions)
    assert terminated.all()
    assert list(info["winner"]) == [0 if colour == "black" else 1] * 2


@pytest.mark.parametrize("who", list(TACTIC_PLAYERS))
@pytest.mark.parametrize("colour", ["black", "white"])
def test_player_fills_the_gap_of_a_broken_four(who, colour):
    me = "X" if colour == "black" else "O"
    stones = {(6, c): me for c in (3, 4, 6, 7)}
    stones[(0, 0)] = "O" if me == "X" else "X"
    env = fiverow.make_vec("freestyle", num_envs=1, seed=0, autoreset_mode="disabled")
    env.reset()
    env.load_position(0, board_rows(stones), to_play=colour)
    assert TACTIC_PLAYERS[who]().act(env)[0] == 6 * SIZE + 5


@pytest.mark.parametrize("who", list(TACTIC_PLAYERS))
@pytest.mark.parametrize("colour", ["black", "white"])
@pytest.mark.parametrize("direction", list(DIRECTIONS))
def test_player_blocks_the_opponents_five(who, colour, direction):
    me = "X" if colour == "black" else "O"
    other = "O" if me == "X" else "X"
    stones, block = four_with_one_open_end(other, DIRECTIONS[direction])
    stones.update({(13, 1): me, (13, 3): me, (11, 12): me})  # nothing of its own to win with
    env = fiverow.make_vec("freestyle", num_envs=1, seed=8, autoreset_mode="disabled")
    env.reset()
    env.load_position(0, board_rows(stones), to_play=colour)
    assert TACTIC_PLAYERS[who]().act(env)[0] == block


def test_random_player_does_not_always_find_the_win():
    """The tactic tests can fail: a player that ignores the board misses the win."""
    stones, win = four_with_one_open_end("X", (0, 1))
    env = fiverow.make_vec("freestyle", num_envs=32, seed=0, autoreset_mode="disabled")
    env.reset()
    for i in range(32):
        env.load_position(i, board_rows(stones), to_play="black")
    assert np.any(players.make("random").act(env) != win)


# ---- every preset with every player ----


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("preset", fiverow.preset_names())
def test_every_preset_with_every_player(preset, kind):
    overrides = {"size": 9} if preset == "gomorpion" else {}
    env, info = env_of(preset, num_envs=4, seed=6, **overrides)
    p = player(kind)
    if kind == "pvs" and preset in ("gomorpion", "modlinseq", "connect6", "pente"):
        with pytest.raises(ValueError, match=f"player 'pvs' does not play rule '{preset}'"):
            p.act(env)
        return
    done = np.zeros(env.num_envs, dtype=bool)
    for _ in range(3 if preset == "modlinseq" else 12):
        actions, policies = p.act(env, policy=True)
        check_act(env, info, actions, policies, done)
        _, _, terminated, truncated, info = env.step(actions)
        done = terminated | truncated


def test_presets_are_the_documented_ones():
    assert set(fiverow.preset_names()) == {
        "freestyle",
        "standard",
        "caro",
        "strip",
        "torus",
        "renju",
        "renju-soosorv8",
        "renju-soosorv4",
        "freestyle-swap2",
        "gomorpion",
        "hex",
        "modlinseq",
        "connect6",
        "pente",
    }


# ---- matches ----


def check_scores(result: MatchResult) -> None:
    """Every VariantScore agrees with the per-game records."""
    g = result.games
    for gi, v in enumerate(result.variants):
        mine = g[g["group"] == gi]
        a_seat = mine["seat0_player"].astype(int)  # A sits in seat 0 when seat0_player == 0
        a_seat = np.where(a_seat == 0, 0, 1)
        assert v.games == len(mine)
        assert v.wins == int(np.sum(mine["winner"] == a_seat))
        assert v.losses == int(np.sum((mine["winner"] >= 0) & (mine["winner"] != a_seat)))
        assert v.draws == int(np.sum(mine["winner"] < 0))
        assert v.truncated == int(np.sum(mine["truncated"] != 0))
        assert v.first_seat_wins == int(np.sum(mine["winner"] == 0))
        assert v.wins + v.losses + v.draws == v.games


def test_score_interval_is_the_advantage_interval_mapped():
    """(1 + d) / 2 over the MOVER interval of d = P(A wins) - P(B wins): the
    figures of docs/players.md's 200-game rows."""
    v = VariantScore("renju", 200, 176, 0, 24, 0, 0)
    score, low, high = v.score_interval()
    assert score == v.score == pytest.approx(0.94)
    assert (round(low, 3), round(high, 3)) == (0.912, 0.961)
    _, low, high = VariantScore("freestyle", 200, 53, 144, 3, 0, 0).score_interval()
    assert (round(low, 3), round(high, 3)) == (0.213, 0.339)


def test_heuristic_beats_random():
    result = Match("freestyle", "heuristic", "random", games=200, seed=1).play()
    assert isinstance(result, MatchResult) and not result.interrupted
    (v,) = result.variants
    assert isinstance(v, VariantScore) and v.variant == "freestyle" and v.games == 200
    assert v.wins >= 190, v
    assert v.score >= 0.95
    rate, low, high = v.win_rate()
    assert low <= rate <= high and rate == v.wins / 200
    check_scores(result)
    text = str(result)
    assert "heuristic vs random" in text and "freestyle" in text and "200" in text


def test_random_does_not_beat_heuristic():
    """Player A is A: swapping the players swaps the outcome."""
    (v,) = Match("freestyle", "random", "heuristic", games=100, seed=1).play().variants
    assert v.losses >= 95


def test_match_records_and_alternating_seats():
    result = Match("freestyle", "heuristic", "random", games=50, seed=3).play()
    g = result.games
    assert g.dtype.names == (
        "game",
        "group",
        "board",
        "episode",
        "length",
        "scores",
        "seat0_player",
        "winner",
        "truncated",
        "black_seat",
        "opening",
        "book",
        "last_action",
        "moves_hash",
    )
    assert sorted(g["game"].tolist()) == list(range(50))
    np.testing.assert_array_equal(g["seat0_player"], g["game"] % 2)
    assert set(np.unique(g["winner"])) <= {-1, 0, 1}
    assert np.all(g["length"] >= 9)  # five stones of the winner need nine moves
    assert np.all((g["last_action"] >= 0) & (g["last_action"] < 225))
    # the heuristic (A) wins from either seat: A holds seat 1 when seat0_player == 1
    for seat in (0, 1):
        mine = g[g["seat0_player"] == seat]
        assert np.mean(mine["winner"] == seat) >= 0.9
    check_scores(result)


def test_match_is_the_same_on_any_thread_count():
    def play(threads):
        return Match(
            ["freestyle", "strip"],
            "heuristic",
            players.make("mcts", simulations=8, depth=6),
            games=16,
            seed=5,
            num_threads=threads,
        ).play()

    one, two = play(1), play(2)
    assert one.games.dtype == two.games.dtype
    for name in one.games.dtype.names:
        np.testing.assert_array_equal(one.games[name], two.games[name], err_msg=name)
    assert one.variants == two.variants


def test_match_seed_changes_the_games():
    a = Match("freestyle", "random", "random", games=40, seed=1).play().games
    b = Match("freestyle", "random", "random", games=40, seed=2).play().games
    assert not np.array_equal(a["length"], b["length"])


def test_match_mixes_variants():
    result = Match(["freestyle", "caro"], "random", "random", games=60, seed=2).play()
    assert [v.variant for v in result.variants] == ["freestyle", "caro"]
    assert sum(v.games for v in result.variants) == 60
    assert all(v.games > 0 for v in result.variants)
    assert set(np.unique(result.games["group"])) == {0, 1}
    np.testing.assert_array_equal(result.games["seat0_player"], result.games["game"] % 2)
    check_scores(result)
    total = result.total()
    assert total.variant == "all" and total.games == 60
    assert total.wins == sum(v.wins for v in result.variants)
    lines = str(result).splitlines()
    assert any(line.startswith("freestyle") for line in lines)
    assert any(line.startswith("caro") for line in lines)
    assert any(line.startswith("all") for line in lines)


def test_match_weights_split_the_games():
    result = Match({"freestyle": 3, "strip": 1}, "heuristic", "random", games=40, seed=0).play()
    by_name = {v.variant: v.games for v in result.variants}
    assert by_name["freestyle"] + by_name["strip"] == 40
    assert by_name["freestyle"] > by_name["strip"]
    check_scores(result)


@pytest.mark.parametrize("games, boards", [(5, 2), (3, 8), (7, None), (1, 1)])
def test_match_plays_exactly_the_games_asked(games, boards):
    result = Match("freestyle", "heuristic", "random", games=games, boards=boards, seed=4).play()
    assert len(result.games) == games
    assert sorted(result.games["game"].tolist()) == list(range(games))


def test_match_takes_player_objects():
    mcts = players.make("mcts", simulations=16, depth=10)
    result = Match("freestyle", mcts, "random", games=8, seed=0).play()
    assert result.player_a == "mcts:16(depth=10)" and result.player_b == "random"
    assert result.variants[0].wins >= 7


@pytest.mark.parametrize("games", [0, -1, 1.5, True, "10"])
def test_match_rejects_bad_games(games):
    with pytest.raises(ValueError, match="games"):
        Match("freestyle", "random", "random", games=games)


def test_match_rejects_bad_variants_and_players():
    with pytest.raises(ValueError, match="variant"):
        Match([], "random", "random", games=2)
    with pytest.raises(ValueError, match="kind"):
        Match("freestyle", "chess", "random", games=2)
    with pytest.raises(ValueError, match="weights"):
        Match({"freestyle": 0}, "random", "random", games=2).play()
    with pytest.raises(ValueError, match="nope"):
        Match("nope", "random", "random", games=2).play()


INTERRUPTED_MATCH = """
import sys
import threading
from fiverow.match import Match
print("playing", flush=True)
result = Match("freestyle", "random", "random", games=10**9, boards=64, seed=0).play()
print("interrupted", result.interrupted, len(result.games), flush=True)
"""


def test_ctrl_c_stops_a_match_and_keeps_the_games():
    """Ctrl-C during play() stops the games in play: play() returns a result
    marked interrupted with the games finished so far."""
    proc = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTED_MATCH],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "playing"
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    words = out.split()
    assert words[:2] == ["interrupted", "True"], out + err
    assert int(words[2]) > 0


class LateStarter:
    """A stand-in for _core.SelfPlay for a worker that enters run() after the
    Ctrl-C: like the real run(), it clears any stop asked before it started.
    It interrupts the main thread itself, so the order holds on any load."""

    def __init__(self) -> None:
        self.stop_asked = threading.Event()
        self.stopped_by_request = False

    def run(self, games: int) -> int:
        _thread.interrupt_main()
        self.stop_asked.wait(30.0)  # the stop asked in answer to the Ctrl-C...
        self.stop_asked.clear()  # ...is cleared as run() starts afresh
        self.stopped_by_request = self.stop_asked.wait(10.0)
        return 1 if self.stopped_by_request else 0

    def stop(self) -> None:
        self.stop_asked.set()

    def progress(self) -> tuple[int, int]:
        return 0, 0


def test_ctrl_c_before_the_worker_starts_is_not_lost():
    """A stop cleared by a worker that starts late is asked again."""
    from fiverow.selfplay import run

    sp = LateStarter()
    played, interrupted = run(sp, 10)
    assert interrupted
    assert sp.stopped_by_request and played == 1


class StartInterrupted(threading.Thread):
    """A thread whose start() is hit by a Ctrl-C half way."""

    def start(self) -> None:
        signal.raise_signal(signal.SIGINT)
        super().start()


def test_ctrl_c_inside_thread_start_is_held_and_reported():
    """A Ctrl-C inside Thread.start() neither escapes (the thread would play on
    unseen) nor is lost: the thread runs and the stop is reported."""
    from fiverow.selfplay import start_holding_ctrl_c

    ran = threading.Event()
    worker = StartInterrupted(target=ran.set)
    assert start_holding_ctrl_c(worker) is True
    worker.join(10.0)
    assert ran.is_set()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_inside_thread_start_goes_to_the_callers_handler():
    """A handler the caller installed sees the held Ctrl-C once it is back."""
    from fiverow.selfplay import start_holding_ctrl_c

    seen: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: seen.append(signum))
    try:
        worker = StartInterrupted(target=lambda: None)
        assert start_holding_ctrl_c(worker) is False  # the caller's handler did not raise
        worker.join(10.0)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert seen == [signal.SIGINT]


@pytest.mark.parametrize(
    "name, message",
    [
        ("mcts(simulations=2.7)", "'simulations' must be an integer"),
        ("mcts:100(width=3.9)", "'width' must be an integer"),
        ("heuristic(seed=1.5)", "'seed' must be an integer"),
        ("heuristic(seed=-1)", "'seed' must be >= 0"),
        ("mcts:", "the number after 'mcts:' must be an integer"),
        ("mcts:100(simulations=5)", "disagree"),
        ("random(width=3)", "unknown parameter.*width.*for player 'random'"),
        ("heuristic(rollout=random)", "unknown parameter.*rollout"),
        ("mcts:100(rollout=greedy)", "'rollout' must be one of heuristic, random"),
        ("heuristic(epsilon=abc)", "'epsilon' must be a number"),
        ("threat(nodes=2.5)", "'nodes' must be an integer"),
        ("threat(width=3.5)", "'width' must be an integer"),
        ("threat(c_puct=1)", "unknown parameter.*c_puct.*for player 'threat'"),
        ("threat(rollout=random)", "rollout.*only with simulations > 0"),
        ("threat(simulations=2.5)", "'simulations' must be an integer"),
        ("threat(simulations=10,rollout=greedy)", "'rollout' must be one of heuristic, random"),
    ],
)
def test_player_parameters_are_checked_not_truncated(name, message):
    with pytest.raises(ValueError, match=message):
        players.make(name)


@pytest.mark.parametrize(
    "name",
    [
        "random(seed=3)",
        "heuristic(epsilon=0.1)",
        "mcts:50(c_uct=2)",
        "mcts:100(rollout=random)",
        "threat",
        "threat(nodes=5000,vct_depth=6)",
    ],
)
def test_player_names_read_back(name):
    player = players.make(name)
    assert player.name == name
    assert players.make(player.name) == player


# ---- Match.play shows progress on a terminal (issue 27) ----


class Terminal(io.StringIO):
    """stderr as a terminal."""

    def isatty(self) -> bool:
        return True


def first_legal(env):
    return env.action_masks().argmax(axis=1)


@pytest.mark.parametrize("player_b", ["random", first_legal], ids=["builtin", "python"])
def test_match_play_shows_progress_on_a_terminal_by_default(monkeypatch, player_b):
    def match():
        return fiverow.Match("freestyle", "random", player_b, games=12, seed=1, params={"size": 7})

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    result = match().play()
    shown = terminal.getvalue()
    assert "match: 12/12 games" in shown and "games/s" in shown and "ETA" in shown, shown
    assert shown.startswith("\r") and shown.endswith("\n")
    assert result.total().games == 12

    terminal = Terminal()  # asked for none
    monkeypatch.setattr(sys, "stderr", terminal)
    assert match().play(progress=False).total().games == 12
    assert terminal.getvalue() == ""

    piped = io.StringIO()  # not a terminal: none by default, a plain line when asked
    monkeypatch.setattr(sys, "stderr", piped)
    match().play()
    assert piped.getvalue() == ""
    match().play(progress=True)
    assert piped.getvalue().startswith("match: 12/12 games") and "\r" not in piped.getvalue()


def test_match_play_refuses_a_progress_that_is_not_a_bool():
    with pytest.raises(TypeError, match="progress must be True, False or None"):
        fiverow.Match("freestyle", "random", "random", games=2).play(progress="yes")
