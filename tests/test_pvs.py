"""The pvs player: legal, finished games on every line preset; its tactics
(wins in one, stops of fours, VCF of its own and against it); renju's fouls;
its pattern classes against the rule; determinism; budgets and refusals."""

from __future__ import annotations

import numpy as np
import pytest
from test_solve import random_positions

import fiverow
from fiverow import _core, players, solve
from fiverow.players import Player

FAST = players.make("pvs", nodes=400)
#: threat classes (csrc/players/pvs_patterns.h)
FORBID, FOUR_LIKE, OPEN_FOUR, FIVE = 1, (9, 10, 11), 12, 13


def probe(env, i, player=FAST):
    pool = env.unwrapped.pool
    return _core.pvs_probe(pool._batch, 0, i, player.spec())


def classes(env, i, player=FAST):
    """Black's and white's threat class of every cell (255 on stones)."""
    b = env.board(i)
    return np.frombuffer(probe(env, i, player)["classes"], dtype=np.uint8).reshape(
        2, *np.asarray(b["cells"]).shape
    )


def rows_of(size, black=(), white=()):
    rows = [["."] * size for _ in range(size)]
    for r, c in black:
        rows[r][c] = "X"
    for r, c in white:
        rows[r][c] = "O"
    return ["".join(r) for r in rows]


def messy_positions(preset, boards, **params):
    """Positions of random play near the stones, each stopped at a random
    ply or where the side to move can win at once (so that many have fives)."""
    env = fiverow.make_vec(preset, num_envs=boards, seed=4, **params)
    env.reset(seed=4)
    player = players.make("heuristic(epsilon=1)")
    stop = np.random.default_rng(4).integers(16, 64, boards)
    won = np.zeros(boards, dtype=bool)
    for ply in range(64):
        if ply >= 8:  # the opening protocols are over
            won |= [s.result == "win" for s in solve.search_all(env, "vcf", max_depth=1)]
        actions = player.act(env)
        live = np.array(
            [env.board(i)["status"] == 0 and ply < stop[i] and not won[i] for i in range(boards)]
        )
        if not live.any():
            break
        states = [env.get_state(i) for i in range(boards)]
        env.step(np.where(live, actions, env.sample_legal()))
        for i in np.flatnonzero(~live):
            env.set_state(i, states[i])
    return env


def one_board(preset="freestyle", **params):
    env = fiverow.make_vec(preset, num_envs=1, seed=0, **params)
    env.reset(seed=0)
    return env


def play_out(preset, player, boards=3, seed=0, **params):
    """Games with the player in both seats, stepped from Python (an illegal
    action raises); returns the finished games' (terminated, truncated)."""
    env = fiverow.make_vec(preset, num_envs=boards, seed=seed, **params)
    env.reset(seed=seed)
    ended = np.zeros(boards, dtype=bool)
    outcomes = []
    for _ in range(env.unwrapped.pool.groups[env.unwrapped.pool._order[0]].max_steps + 2):
        actions = player.act(env)
        actions = np.where(ended, env.sample_legal(), actions)
        _, _, terminated, truncated, _ = env.step(actions)
        for i in np.flatnonzero((terminated | truncated) & ~ended):
            outcomes.append((bool(terminated[i]), bool(truncated[i])))
        ended |= terminated | truncated
        if ended.all():
            break
    assert ended.all()
    return outcomes


LINE_PRESETS = [
    ("freestyle", {"size": 11}),
    ("standard", {"size": 11}),
    ("caro", {"size": 11, "caro_ends": "open"}),
    ("caro", {"size": 11, "caro_ends": "not_both_blocked"}),
    ("caro", {"size": 11, "caro_ends": "gomocup"}),
    ("caro", {"size": 11, "caro_ends": "gomocup6"}),
    ("renju", {"size": 11}),
    ("renju", {"size": 11, "forbidden": "lose", "protocol": "free"}),
    ("renju-soosorv8", {}),
    ("freestyle-swap2", {"size": 11}),
    ("strip", {}),
    ("torus", {"size": 11}),
    ("hex", {"order": 5}),
    ("hex", {"order": 5, "edge": "bounce"}),
    ("freestyle", {"size": 9, "connect": 4}),
    ("standard", {"size": 13, "connect": 6}),
]


@pytest.mark.parametrize("preset,params", LINE_PRESETS)
def test_pvs_plays_legal_moves_and_finishes_games(preset, params):
    outcomes = play_out(preset, FAST, **params)
    assert outcomes and all(t or tr for t, tr in outcomes)


@pytest.mark.parametrize("preset,params", LINE_PRESETS[:8] + LINE_PRESETS[10:])
def test_five_classes_are_the_rules_wins(preset, params):
    """A cell is of class five for a side exactly where its stone ends the
    game with a win (the rule's own test), on random positions, for the side
    to move and for the other one."""
    env = messy_positions(preset, 24, **params)
    lab = fiverow.make_vec(preset, num_envs=1, seed=0, autoreset_mode="disabled", **params)
    lab.reset(seed=0)
    wins = 0
    for i in range(24):
        b = env.board(i)
        if b["status"] != 0 or b["phase"] != 0:
            continue
        for side in ("mover", "other"):
            colour = int(b["colour"]) ^ (side == "other")
            lab.load_position(0, b["cells"], "black" if colour == 0 else "white")
            if lab.board(0)["status"] != 0:
                continue
            cls = classes(lab, 0)[colour].reshape(-1)
            state = lab.get_state(0)
            for cell in np.flatnonzero(np.asarray(b["cells"]).reshape(-1) == 0):
                lab.set_state(0, state)
                try:
                    _, _, terminated, _, info = lab.step(np.array([cell]))
                except ValueError:
                    continue  # not legal here (a renju foul under forbidden="mask")
                won = bool(terminated[0]) and int(info["winner"][0]) == int(b["seat"]) ^ (
                    side == "other"
                )
                assert won == (cls[cell] == FIVE), (i, side, int(cell), int(cls[cell]))
                wins += won
    assert wins > 0


def test_takes_a_win_in_one_and_blocks_a_four():
    env = one_board(size=15)
    env.load_position(
        0, rows_of(15, black=[(7, 3), (7, 4), (7, 5), (7, 6)], white=[(8, 3), (9, 4)]), "black"
    )
    r = probe(env, 0)
    assert r["move"] in (7 * 15 + 2, 7 * 15 + 7) and r["decided_by"] == "five"
    env.load_position(
        0,
        rows_of(15, black=[(7, 3), (7, 4), (7, 5), (7, 6)], white=[(7, 2), (9, 4), (10, 10)]),
        "white",
    )
    assert probe(env, 0)["move"] == 7 * 15 + 7
    assert int(FAST.act(env)[0]) == 7 * 15 + 7


def test_stops_an_open_three():
    env = one_board(size=15)
    env.load_position(
        0, rows_of(15, black=[(7, 5), (7, 6), (7, 7)], white=[(3, 3), (11, 11)]), "white"
    )
    move = int(players.make("pvs", nodes=3000).act(env)[0])
    env.step(np.array([move]))
    # black has no open four to make now
    after = classes(env, 0)
    assert not (after[0] == OPEN_FOUR).any()


def test_finds_a_known_vcf():
    """Where the solver finds a VCF of three moves or more, pvs plays a VCF
    too: after its move and the forced stop the win is still there."""
    env = random_positions("freestyle", 128, 40, seed=11, size=11)
    pvs = players.make("pvs", nodes=5000)
    moves = pvs.act(env)
    lab = one_board(size=11)
    checked = 0
    for i in range(128):
        b = env.board(i)
        if b["status"] != 0:
            continue
        line = solve.vcf(env, i, max_nodes=20000)
        if line is None or len(line) < 3:
            continue
        checked += 1
        assert probe(env, i, pvs)["decided_by"] in ("vcf", "open four"), i
        me = "black" if b["colour"] == 0 else "white"
        lab.load_position(0, b["cells"], me)
        lab.step(np.array([moves[i]]))
        mine = classes(lab, 0)[int(b["colour"])].reshape(-1)
        fives = np.flatnonzero(mine == FIVE)
        assert len(fives) >= 1, i  # a four (or an open four)
        if len(fives) >= 2:
            continue  # two five points: won
        lab.step(np.array([fives[0]]))
        assert solve.vcf(lab, 0, max_nodes=20000) is not None, i
    assert checked >= 3


def opponent_vcf_after(lab, cells, me, move):
    """The opponent's VCF after the mover's move (None: it has none)."""
    lab.load_position(0, cells, me)
    lab.step(np.array([move]))
    if lab.board(0)["status"] != 0:
        return None
    return solve.vcf(lab, 0, max_nodes=20000)


def test_defends_against_a_vcf():
    """Where the opponent would have a VCF of a four or more were the mover
    to pass, and playing a cell of that line stops it, pvs's move stops it
    too (random positions)."""
    env, checked = random_positions("freestyle", 96, 40, seed=8, size=11), 0
    lab = one_board(size=11)
    pvs = players.make("pvs", nodes=20000)
    moves = pvs.act(env)
    for i in range(96):
        b = env.board(i)
        if b["status"] != 0 or solve.vcf(env, i, max_nodes=20000):
            continue  # over, or a win of its own
        me, other = ("black", "white") if b["colour"] == 0 else ("white", "black")
        lab.load_position(0, b["cells"], other)
        threat = solve.vcf(lab, 0, max_nodes=20000)
        if threat is None or len(threat) < 3:
            continue
        if all(opponent_vcf_after(lab, b["cells"], me, c) for c in threat[::2]):
            continue  # none of the line's cells stops it
        checked += 1
        assert opponent_vcf_after(lab, b["cells"], me, moves[i]) is None, i
    assert checked >= 3


def test_never_plays_a_renju_foul_as_black():
    """With forbidden="lose" a foul is legal and loses: pvs never plays one."""
    env = random_positions("renju", 64, 40, seed=5, size=11, forbidden="lose", protocol="free")
    moves = FAST.act(env)
    seen = 0
    for i in range(64):
        b = env.board(i)
        if b["status"] != 0 or b["colour"] != 0:
            continue
        forbidden = fiverow.rules.renju.forbidden_points(np.asarray(b["cells"]))
        seen += len(forbidden)
        assert divmod(int(moves[i]), 11) not in forbidden, i
    assert seen > 0


def test_uses_a_renju_foul_as_white():
    """White's four whose only stop is a black foul (a double three) wins:
    pvs as white plays it at once."""
    # black twos crossing at (7, 7): a stone there is a double three; black at
    # (2, 2) closes the diagonal, so white's four on it has one five point
    black = [(7, 5), (7, 6), (5, 7), (6, 7), (2, 2), (12, 13)]
    white = [(3, 3), (4, 4), (5, 5), (10, 2), (1, 13)]
    env = one_board("renju", size=15)
    env.load_position(0, rows_of(15, black=black, white=white), "white")
    forbidden = fiverow.rules.renju.forbidden_points(np.asarray(env.board(0)["cells"]))
    assert (7, 7) in forbidden
    # white at (6, 6) makes a four whose five point (7, 7) black may not stop
    r = probe(env, 0, players.make("pvs", nodes=2000))
    assert r["move"] == 6 * 15 + 6 and r["value"] > 20000


def test_same_moves_on_one_and_two_threads():
    def moves(threads):
        r = fiverow.Match(
            "freestyle",
            "pvs(nodes=800)",
            "heuristic",
            games=8,
            seed=3,
            num_threads=threads,
            openings="balanced",
            params={"size": 11},
        ).play()
        return sorted(r.games["moves_hash"].tolist())

    assert moves(1) == moves(2)


def test_act_is_the_same_on_one_and_two_threads():
    def moves(threads):
        env = fiverow.make_vec("freestyle", num_envs=24, seed=2, size=11, num_threads=threads)
        env.reset(seed=2)
        player = players.make("heuristic(epsilon=0.3)")
        for _ in range(12):
            env.step(player.act(env))
        return players.make("pvs", nodes=2000).act(env)

    assert (moves(1) == moves(2)).all()


def test_budgets_are_respected():
    env = random_positions("freestyle", 8, 30, seed=1, size=15)
    for i in range(8):
        if env.board(i)["status"] != 0:
            continue
        r = probe(env, i, players.make("pvs", nodes=1500))
        assert r["nodes"] <= 1500 + 64
        r = probe(env, i, players.make("pvs", nodes=10**6, depth=2))
        assert r["depth"] <= 2
        r = probe(env, i, players.make("pvs", nodes=10**9, time_ms=30))
        assert r["nodes"] < 10**9  # the clock stopped it
    assert players.make("pvs(nodes=1234,depth=7,time_ms=5)").spec()["time_ms"] == 5


@pytest.mark.parametrize(
    "text,message",
    [
        ("pvs(nodes=0)", "nodes must be in 1..1000000000"),
        ("pvs(depth=0)", "depth must be in 1..60"),
        ("pvs(depth=61)", "depth must be in 1..60"),
        ("pvs(time_ms=-1)", "time_ms must be in 0..3600000"),
        ("pvs(width=3)", "unknown parameter"),
        ("pvs(nodes=1.5)", "must be an integer"),
    ],
)
def test_bad_budgets_are_refused(text, message):
    with pytest.raises(ValueError, match=message):
        players.make(text)


@pytest.mark.parametrize(
    "preset,params,message",
    [
        ("gomorpion", {}, "player 'pvs' does not play rule 'gomorpion'"),
        ("modlinseq", {}, "player 'pvs' does not play rule 'modlinseq'"),
        ("freestyle", {"connect": 12, "size": 15}, "player 'pvs' plays connect 2..8"),
        ("torus", {"size": 7}, "player 'pvs' needs every wrapping line to hold 9 cells"),
    ],
)
def test_other_variants_are_refused(preset, params, message):
    env = fiverow.make_vec(preset, num_envs=2, seed=0, **params)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=message):
        FAST.act(env)
    with pytest.raises(ValueError, match=message):
        fiverow.Match(preset, FAST, "random", games=2, params=params).play()


def test_name_reads_back():
    p = players.make("pvs", nodes=50000, time_ms=40)
    assert p.name == "pvs(nodes=50000,time_ms=40)"
    assert players.make(p.name) == p
    assert players.make("pvs").name == "pvs"
    assert Player(kind="pvs").nodes == players.PVS_DEFAULT_NODES


def test_protocol_decisions_are_legal():
    env = fiverow.make_vec("renju-soosorv4", num_envs=4, seed=0)
    env.reset(seed=0)
    for _ in range(12):
        actions = FAST.act(env)
        for i, a in enumerate(actions):
            assert env.action_masks()[i][a]
        env.step(actions)


def test_engine_plays_pvs_by_default_on_a_clock():
    """``fiverow engine`` is pvs unless told otherwise; with a turn limit it
    searches on a clock (the same legal answers), without one on its nodes."""
    from fiverow.engines import EngineServer

    server = EngineServer()
    assert server.player.kind == "pvs"
    assert 'player="pvs"' in server.handle("ABOUT")[0]
    assert server.handle("START 15") == ["OK"]
    server.handle("INFO timeout_turn 60")
    first = server.handle("BEGIN")[-1]
    x, y = (int(v) for v in first.split(","))
    assert (x, y) == (7, 7)  # the centre of an empty board
    reply = server.handle("TURN 8,8")[-1]
    rx, ry = (int(v) for v in reply.split(","))
    assert (rx, ry) not in ((7, 7), (8, 8)) and 0 <= rx < 15 and 0 <= ry < 15
    untimed = EngineServer("pvs(nodes=500)")
    untimed.handle("START 15")
    assert untimed.handle("BEGIN")[-1] == "7,7"
