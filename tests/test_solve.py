"""The threat-space solver (fiverow.solve): hand-built positions under every
line rule and geometry, lines replayed through the env against every legal
defence, batches, determinism and refusals."""

from __future__ import annotations

import numpy as np
import pytest
from solve_check import Lab, assert_forced_win

import fiverow
from fiverow import players, solve

from reference import next_table, wins

SIZE = 15


def rows_of(black=(), white=(), size=SIZE) -> list[str]:
    grid = [["."] * size for _ in range(size)]
    for r, c in black:
        grid[r][c] = "X"
    for r, c in white:
        grid[r][c] = "O"
    return ["".join(row) for row in grid]


def position(preset, black=(), white=(), to_play="black", **params):
    env = fiverow.make_vec(preset, num_envs=1, seed=0, **params)
    env.reset(seed=0)
    size = params.get("size", SIZE)
    env.load_position(0, rows_of(black, white, size), to_play=to_play)
    return env


def cell(r, c, size=SIZE):
    return r * size + c


def check(env, line, preset, **params):
    """The line wins against every defence (replayed through a fresh env)."""
    lab = Lab(preset, **params)
    assert_forced_win(lab, env.get_state(0), line)


def test_open_three_is_a_vcf_in_freestyle():
    env = position("freestyle", black=[(7, 4), (7, 5), (7, 6)], white=[(8, 4), (8, 5), (9, 5)])
    line = solve.vcf(env, 0)
    assert line is not None and len(line) == 3
    assert line[0] in (cell(7, 3), cell(7, 7))
    check(env, line, "freestyle")


# renju: (7, 6) makes two fours for black (a win in standard, a foul in renju)
DOUBLE_FOUR = {
    "black": [(7, 3), (7, 4), (7, 5), (4, 6), (5, 6), (6, 6)],
    "white": [(7, 2), (3, 6)],
}


def test_renju_vcf_fails_only_because_the_key_point_is_forbidden():
    standard = position("standard", **DOUBLE_FOUR)
    line = solve.vcf(standard, 0)
    assert line is not None and line[0] == cell(7, 6)
    check(standard, line, "standard")
    renju = position("renju", **DOUBLE_FOUR)
    forbidden = fiverow.renju.forbidden_points(rows_of(**DOUBLE_FOUR))
    assert forbidden.get((7, 6)) == "double-four"
    assert solve.vcf(renju, 0) is None
    assert solve.search(renju, 0, "vcf").result == "none"


# white's four on the diagonal can only be stopped at (7, 7), a double-three
# for black
THROUGH_FOUL = {
    "black": [(7, 5), (7, 6), (5, 7), (6, 7), (2, 2)],
    "white": [(3, 3), (4, 4), (5, 5)],
}


@pytest.mark.parametrize("forbidden", ["mask", "lose"])
def test_renju_white_wins_through_a_forbidden_point(forbidden):
    env = position("renju", to_play="white", forbidden=forbidden, **THROUGH_FOUL)
    line = solve.vcf(env, 0)
    assert line is not None and line[0] == cell(6, 6)
    if forbidden == "mask":
        assert line[-1] == cell(7, 7)  # black could not block there
    check(env, line, "renju", forbidden=forbidden)
    freestyle = position("freestyle", to_play="white", **THROUGH_FOUL)
    assert solve.vcf(freestyle, 0) is None  # black blocks at (7, 7)


# (7, 4) makes a row four and a column four, each with one end blocked
BLOCKED_ENDS = {
    "black": [(7, 1), (7, 2), (7, 3), (4, 4), (5, 4), (6, 4)],
    "white": [(7, 0), (3, 4)],
}


def test_caro_four_with_a_blocked_end_is_no_threat():
    freestyle = position("freestyle", **BLOCKED_ENDS)
    line = solve.vcf(freestyle, 0)
    assert line is not None and line[0] == cell(7, 4)
    caro = position("caro", **BLOCKED_ENDS)  # caro_ends="open"
    assert solve.vcf(caro, 0) is None
    assert solve.vct(caro, 0) is None
    # with "gomocup" the edge and one opposing stone do not block
    gomocup = position("caro", caro_ends="gomocup", **BLOCKED_ENDS)
    line = solve.vcf(gomocup, 0)
    assert line is not None
    check(gomocup, line, "caro", caro_ends="gomocup")


def test_caro_double_four_wins_against_every_reply_including_the_ends():
    """A straight four alone is stopped in caro ("open"): a stone just past one
    end spoils the five at the other. Two fours on two lines are not."""
    single = position("caro", black=[(7, 2), (7, 3), (7, 4)], white=[(0, 0), (0, 14)])
    assert solve.vcf(single, 0) is None
    env = position(
        "caro",
        black=[(7, 2), (7, 3), (7, 4), (4, 5), (5, 5), (6, 5)],
        white=[(0, 0), (0, 14), (14, 0), (14, 14)],
    )
    line = solve.vcf(env, 0)
    assert line is not None and line[0] == cell(7, 5)
    check(env, line, "caro")


# (7, 4) makes a column four and, in freestyle, a row four whose five point
# (7, 5) would be an overline in standard
OVERLINE = {
    "black": [(7, 1), (7, 2), (7, 3), (7, 6), (4, 4), (5, 4), (6, 4)],
    "white": [(7, 0), (3, 4)],
}


def test_standard_overline_is_not_a_five():
    six = {"black": [(7, 2), (7, 3), (7, 4), (7, 6), (7, 7)], "white": [(0, 0), (0, 1)]}
    assert solve.vcf(position("freestyle", **six), 0) == [cell(7, 5)]
    assert solve.vcf(position("standard", **six), 0) is None
    freestyle = position("freestyle", **OVERLINE)
    line = solve.vcf(freestyle, 0)
    assert line is not None and line[0] == cell(7, 4)
    check(freestyle, line, "freestyle")
    assert solve.vcf(position("standard", **OVERLINE), 0) is None


def test_torus_lines_wrap():
    stones = {"black": [(7, 13), (7, 14), (7, 0)], "white": [(9, 1), (10, 2), (11, 5)]}
    torus = position("torus", **stones)
    line = solve.vcf(torus, 0)
    assert line is not None
    check(torus, line, "torus")
    assert solve.vcf(position("freestyle", **stones), 0) is None


def test_strip_rows_join_end_to_start():
    def strip(preset):
        env = fiverow.make_vec(preset, num_envs=1, seed=0, size=10)
        env.reset(seed=0)
        cells = np.zeros(100, np.uint8)
        cells[[8, 9, 10]] = 1
        cells[[55, 66, 77]] = 2
        env.load_position(0, cells.reshape(10, 10), to_play="black")
        return env

    env = strip("strip")
    line = solve.vcf(env, 0)
    assert line is not None and line[0] in (7, 11)
    check(env, line, "strip")
    assert solve.vcf(strip("freestyle"), 0) is None


def test_hex_axes():
    env = fiverow.make_vec("hex", num_envs=1, seed=0)
    env.reset(seed=0)
    nxt = next_table(env)
    g = env.pool.groups[env.config.name]
    cells = np.where(np.array(env.board(0)["cells"]).reshape(-1) == 3, 3, 0).astype(np.uint8)
    c = g.n_cells // 2
    run = [c]
    for _ in range(2):
        run.append(nxt[run[-1]][2][0])  # along the second axis
    cells[run] = 1
    far = [x for x in range(g.n_cells) if cells[x] == 0][:3]
    cells[far] = 2
    env.load_position(0, cells.reshape(g.height, g.width), to_play="black")
    line = solve.vcf(env, 0)
    assert line is not None and len(line) == 3
    check(env, line, "hex")


def test_vct_finds_a_double_three():
    """Two open threes from one move: no VCF, a VCT (three, block, four...)."""
    env = position(
        "freestyle",
        black=[(7, 5), (7, 6), (5, 8), (6, 8)],
        white=[(0, 0), (0, 14), (14, 0), (14, 14)],
    )
    assert solve.vcf(env, 0) is None
    s = solve.search(env, 0, "vct", max_depth=4)
    assert s.result == "win" and s.line is not None
    assert s.line[0] == cell(7, 8)
    # the line replays to a win, and every reply to the first move loses
    lab = Lab("freestyle")
    state = env.get_state(0)
    after = lab.play([state], [s.line[0]])[0]
    for r in after["legal"]:
        o = lab.play([after["state"]], [r])[0]
        lab.env.set_state(0, o["state"])
        assert solve.vct(lab.env, 0, max_depth=3) is not None, r
    replay = state
    for a in s.line:
        replay = lab.play([replay], [a])[0]
        last = replay
        replay = replay["state"]
    assert last["status"] == 1 and last["winner"] == 0


def test_line_rules_refused_where_undefined():
    for preset in ("gomorpion", "modlinseq"):
        env = fiverow.make_vec(preset, num_envs=1, seed=0)
        env.reset(seed=0)
        with pytest.raises(ValueError, match=f"rule '{preset}'"):
            solve.vcf(env, 0)
        with pytest.raises(ValueError, match=f"rule '{preset}'"):
            solve.vct_all(env)


def test_bad_arguments():
    env = position("freestyle", black=[(7, 7)], white=[(8, 8)])
    for kwargs, name in [
        ({"max_depth": 0}, "max_depth"),
        ({"max_depth": 61}, "max_depth"),
        ({"max_nodes": 0}, "max_nodes"),
    ]:
        with pytest.raises(ValueError, match=name):
            solve.vcf(env, 0, **kwargs)
    with pytest.raises(ValueError, match="index"):
        solve.vcf(env, 1)
    with pytest.raises(TypeError, match="max_depth"):
        solve.vct(env, 0, max_depth=2.5)
    with pytest.raises(ValueError, match="kind"):
        solve.search(env, 0, "vcx")
    with pytest.raises(TypeError, match="vector env"):
        solve.vcf("freestyle", 0)
    pool = fiverow.make_pool({"freestyle": 1, "caro": 1})
    pool.reset(seed=0)
    with pytest.raises(TypeError, match="mixed pool"):
        solve.vcf(pool, 0)
    swap2 = fiverow.make_vec("freestyle-swap2", num_envs=1, seed=0)
    swap2.reset(seed=0)
    with pytest.raises(ValueError, match="opening"):
        solve.vcf(swap2, 0)
    assert solve.vcf_all(swap2) == [None]


def test_ended_board_is_refused():
    env = fiverow.make_vec("freestyle", num_envs=1, seed=0)
    env.reset(seed=0)
    env.load_position(
        0, rows_of(black=[(7, 3), (7, 4), (7, 5), (7, 6)], white=[(0, 0)]), to_play="black"
    )
    line = solve.vcf(env, 0, max_depth=1)
    assert line is not None and len(line) == 1
    env.step(np.array(line[:1]))
    with pytest.raises(ValueError, match="over"):
        solve.vcf(env, 0)


def random_positions(preset, boards, plies, seed, **params):
    """Heuristic games with some random moves, stopped at various lengths."""
    env = fiverow.make_vec(preset, num_envs=boards, seed=seed, **params)
    env.reset(seed=seed)
    player = players.make("heuristic(epsilon=0.35)")
    stop = np.random.default_rng(seed).integers(plies // 2, plies, boards)
    for ply in range(plies):
        actions = player.act(env)
        live = np.array([env.board(i)["status"] == 0 and ply < stop[i] for i in range(boards)])
        if not live.any():
            break
        # boards that stopped replay nothing: step only the live ones
        states = [env.get_state(i) for i in range(boards)]
        env.step(np.where(live, actions, env.sample_legal()))
        for i in np.flatnonzero(~live):
            env.set_state(i, states[i])
    return env


PROPERTY = [
    ("freestyle", {"size": 11}),
    ("standard", {"size": 11}),
    ("caro", {"size": 11, "caro_ends": "not_both_blocked"}),
    ("renju", {"size": 11}),
    ("renju", {"size": 11, "forbidden": "lose", "protocol": "free"}),
    ("torus", {"size": 11}),
    ("strip", {}),
    ("hex", {"order": 5}),
]


@pytest.mark.parametrize("preset,params", PROPERTY, ids=[f"{p}-{o}" for p, o in PROPERTY])
def test_every_vcf_line_wins_against_every_defence(preset, params):
    env = random_positions(preset, 96, 36, seed=5, **params)
    lines = solve.vcf_all(env)
    lab = Lab(preset, **params)
    found = 0
    for i, line in enumerate(lines):
        if env.board(i)["status"] != 0:
            assert line is None
            continue
        single = solve.search(env, i, "vcf")
        assert single.line == line  # the batch gives the same answers
        if line is None:
            assert single.result == "none"
            continue
        found += 1
        assert_forced_win(lab, env.get_state(i), line)
    assert found >= 3, f"only {found} positions with a VCF: the test sees too little"


def crossing_fours(count, seed, size=11):
    """Positions with two lines of three black stones that one empty point
    would turn into two fours, and stones of both colours scattered about
    (some on the lines' ends): caro's VCFs, which heuristic games rarely
    reach."""
    rng = np.random.default_rng(seed)
    directions = [(0, 1), (1, 0), (1, 1), (1, -1)]
    out = []
    while len(out) < count:
        grid = np.zeros((size, size), np.uint8)
        p = rng.integers(3, size - 3, 2)
        for axis in rng.choice(4, 2, replace=False):
            dr, dc = directions[axis]
            start = -int(rng.integers(0, 4))
            for k in range(start, start + 4):
                r, c = p[0] + k * dr, p[1] + k * dc
                if k and 0 <= r < size and 0 <= c < size:
                    grid[r, c] = 1
        for colour, n in ((2, 9), (1, 3)):
            for _ in range(n):
                r, c = rng.integers(0, size, 2)
                if grid[r, c] == 0 and (r, c) != tuple(p):
                    grid[r, c] = colour
        out.append(grid)
    return out


def test_every_caro_vcf_line_wins_against_every_defence():
    """Caro with both ends required open (the preset), on constructed
    positions: every line found wins against every reply, including a stone
    just past either end of a five."""
    grids = crossing_fours(40, seed=1)
    env = fiverow.make_vec("caro", num_envs=len(grids), seed=0, size=11)
    env.reset(seed=0)
    for i, grid in enumerate(grids):
        env.load_position(i, grid, to_play="black")
    lines = solve.vcf_all(env)
    lab = Lab("caro", size=11)
    found = [i for i, line in enumerate(lines) if line is not None]
    for i in found:
        assert_forced_win(lab, env.get_state(i), lines[i])
    assert len(found) >= 3 and len(found) < len(grids)  # some blocked, some not


def test_batch_is_deterministic_across_thread_counts():
    source = random_positions("freestyle", 32, 24, seed=5, size=11)
    lines = []
    for threads in (1, 2):
        env = fiverow.make_vec("freestyle", num_envs=32, seed=5, size=11, num_threads=threads)
        env.reset(seed=5)
        for i in range(32):
            env.set_state(i, source.get_state(i))
        lines.append((solve.vcf_all(env), solve.vct_all(env, max_depth=5, max_nodes=5000)))
    assert lines[0] == lines[1]
    assert any(x is not None for x in lines[0][1])


def has_five_point(lab, state, stone, nxt, params):
    """Reference check (tests/reference.py): could `stone` win at once?"""
    lab.env.set_state(0, state)
    cells = lab.env.board(0)["cells"].reshape(-1).tolist()
    rule = dict(params)
    if rule["rule"] == "renju":
        rule["rule"] = "standard" if stone == 1 else "freestyle"
    return any(cells[q] == 0 and wins(rule, nxt, cells, q, stone) for q in range(len(cells)))


def wins_in_two(lab, state, attacker, nxt, params):
    """Brute force through the env: is there a move after which every legal
    reply leaves the attacker a five (or that wins at once)? Only moves after
    which the attacker has a five point are followed: the defender's stones
    cannot make one."""
    info = lab.state_info(state)
    lab.env.set_state(0, state)
    stone = 1 + lab.env.board(0)["colour"]
    for c in info["legal"]:
        after = lab.play([state], [c])[0]
        if after["status"] == 1 and after["winner"] == attacker:
            return True
        if after["status"] != 0 or not has_five_point(lab, after["state"], stone, nxt, params):
            continue
        replies = after["legal"]
        outcomes = lab.play([after["state"]] * len(replies), replies)
        if any(o["status"] == 2 or o["status"] == 1 and o["winner"] != attacker for o in outcomes):
            continue
        live = [o["state"] for o in outcomes if o["status"] == 0]
        if all(lab.immediate_wins(live, attacker)):
            return True
    return False


@pytest.mark.parametrize(
    "preset,params",
    [("freestyle", {"size": 9}), ("caro", {"size": 9}), ("renju", {"size": 9})],
)
def test_depth_two_vcf_matches_brute_force(preset, params):
    """Completeness where brute force is affordable: a VCF of depth 2 (a four,
    then a five) exists exactly when some move wins against every reply."""
    grids = crossing_fours(6, seed=4, size=9)
    env = random_positions(preset, 12, 28, seed=2, **params)
    for i, grid in enumerate(grids):
        env.load_position(i, grid, to_play="black")
    lab = Lab(preset, **params)
    nxt = next_table(env)
    seen = {True: 0, False: 0}
    for i in range(12):
        b = env.board(i)
        if b["status"] != 0:
            continue
        expected = wins_in_two(lab, env.get_state(i), b["seat"], nxt, env.config.params)
        assert (solve.vcf(env, i, max_depth=2) is not None) == expected, i
        seen[expected] += 1
    assert seen[True] >= 1 and seen[False] >= 1


@pytest.mark.parametrize(
    "preset,params",
    [
        ("freestyle", {"size": 11}),
        ("renju", {"size": 11}),
        ("caro", {"size": 11, "caro_ends": "not_both_blocked"}),
    ],
)
def test_vct_lines_replay_to_a_win(preset, params):
    """Every VCT line is legal move by move and ends with the attacker's five;
    where the defender had a choice the line shows one reply."""
    env = random_positions(preset, 64, 30, seed=9, **params)
    lines = solve.vct_all(env, max_depth=6, max_nodes=20000)
    lab = Lab(preset, **params)
    found = 0
    for i, line in enumerate(lines):
        if line is None:
            continue
        found += 1
        attacker = env.board(i)["seat"]
        state = env.get_state(i)
        for a in line:
            after = lab.play([state], [a])[0]
            assert a in lab.state_info(state)["legal"], (i, line)
            state = after["state"]
        assert after["status"] == 1 and after["winner"] == attacker, (i, line)
    assert found >= 3
