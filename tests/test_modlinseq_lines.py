"""MODLINSEQ on boards whose lines turn or wrap (SPEC section 7 rulings, issue
20): a segment is one run whichever end it is walked from and scores once; a
loop through corners and reflections closes like any other; the turn keeps
every line on which its tiles form one segment. Checked on the issue's
examples, on every line of hex orders 2-6 with edge="bounce" and of tess-2
and tess-3, and against the independent reference (reference_modlinseq.py)."""

from __future__ import annotations

import functools
import itertools
from collections import Counter

import numpy as np
import pytest

import fiverow
from fiverow.modlinseq import cell_of

import reference_modlinseq as ref
from reference import next_table

BOUNCE = [(("order", n), ("edge", "bounce")) for n in range(2, 7)]
TESS = [(("geometry", "tess"), ("order", n)) for n in (2, 3)]
GEOMETRIES = BOUNCE + TESS
IDS = [f"{dict(g).get('geometry', 'hex')}-{dict(g)['order']}" for g in GEOMETRIES]


@functools.cache
def board(geometry: tuple, modulus: int) -> fiverow.FiverowVectorEnv:
    """One board (reused: load_tiles restarts it) with 8 copies of each value."""
    env = fiverow.make_vec(
        "modlinseq",
        num_envs=1,
        seed=0,
        autoreset_mode="disabled",
        modulus=modulus,
        copies=8,
        hand_size=min(6, modulus * 4),
        **dict(geometry),
    )
    env.reset()
    return env


@functools.cache
def lines_of(geometry: tuple) -> ref.Lines:
    return ref.Lines.of(board(geometry, 18))


def n_cells(env: fiverow.FiverowVectorEnv) -> int:
    return int(env.pool.groups[env.config.name].n_cells)


def radius(env: fiverow.FiverowVectorEnv) -> int:
    return int(env.pool.groups[env.config.name].width) // 2


def holding(m: int, *values: int) -> np.ndarray:
    """Seat 0 holds the values; seat 1 one tile of 0 (hands of a loaded board)."""
    hands = np.zeros((2, m), dtype=np.int64)
    for v in values:
        hands[0, v] += 1
    hands[1, 0] += 1
    return hands


def load(env: fiverow.FiverowVectorEnv, tiles: dict[str, int], hands: np.ndarray) -> None:
    values = np.full(n_cells(env), -1)
    for name, v in tiles.items():
        values[cell_of(name, radius(env))] = v
    env.load_tiles(0, values, hands)


def tile(env: fiverow.FiverowVectorEnv, name: str, value: int) -> int:
    return cell_of(name, radius(env)) * int(env.config["modulus"]) + value


def end_turn(env: fiverow.FiverowVectorEnv) -> int:
    """END_TURN; the points it scored for the seat that ended its turn."""
    seat = int(env.board(0)["seat"])
    before = int(env.board(0)["scores"][seat])
    env.step(np.array([n_cells(env) * int(env.config["modulus"])]))
    return int(env.board(0)["scores"][seat]) - before


def play(env: fiverow.FiverowVectorEnv, *actions: int) -> None:
    for a in actions:
        assert env.action_masks()[0, a], env.action_name(a)
        env.step(np.array([a]))


# ---- the examples ----

BOUNCE6 = (("order", 6), ("edge", "bounce"))


@pytest.mark.parametrize(
    "tiles,last,value",
    [
        ({"E17": 7, "E18": 17}, "E16", 15),  # through a corner: 15 ~ 7 ~ 17
        ({"B11": 1, "B12": 5}, "B17", 3),  # the V off a side: 1 ~ 3 ~ 5
    ],
)
def test_a_run_through_a_rim_cell_scores_once(tiles, last, value):
    env = board(BOUNCE6, 18)
    load(env, tiles, holding(18, 1, 2, value))
    play(env, tile(env, last, value))
    assert end_turn(env) == 1


def test_the_seeds_reflected_run_scores_15_whichever_tile_comes_last():
    names = ["P5", "P9", "P14", "P20", "P15", "T7", "T8"]
    values = [6, 9, 12, 15, 18, 1, 4]
    env = board(BOUNCE6, 20)
    for k, name in enumerate(names):
        tiles = {n: v for j, (n, v) in enumerate(zip(names, values, strict=True)) if j != k}
        load(env, tiles, holding(20, values[k]))
        play(env, tile(env, name, values[k]))
        assert end_turn(env) == 15, name


PERIMETER = ["E2", "E3", "H2", "H3", "M2", "M3", "P2", "P3", "T2", "T3", "B2", "B3"]


def test_the_perimeter_loop_of_order_2_closes():
    """0..11 round the rim of order 2, step 1 mod 12: 12 x 1 = 0, a loop of 12."""
    env = board((("order", 2), ("edge", "bounce")), 12)
    full = dict(zip(PERIMETER, range(12), strict=True))
    load(env, full, holding(12, 0))  # accepted
    for name, value in full.items():
        load(env, {n: v for n, v in full.items() if n != name}, holding(12, value))
        play(env, tile(env, name, value))
        assert end_turn(env) == 55, name  # (12 - 1)(12 - 2) / 2


def test_a_broken_perimeter_loop_is_refused():
    env = board((("order", 2), ("edge", "bounce")), 12)
    full = dict(zip(PERIMETER, range(12), strict=True))
    full["B3"] = 10  # 11 ~ 0 would be the closing step; 10 ~ 0 is not 1
    with pytest.raises(ValueError, match="not an arithmetic progression"):
        load(env, full, holding(12, 0))
    del full["B3"]
    load(env, full, holding(12, 10, 11))
    mask = env.action_masks()[0]
    assert mask[tile(env, "B3", 11)] and not mask[tile(env, "B3", 10)]


def test_the_turn_keeps_both_lines_its_tiles_share():
    """16P15 and 2P14 lie on a row and on the reflected line P14 ~ P20 ~ P15:
    4P9 extends the second, whichever order the three tiles come in."""
    env = board(BOUNCE6, 18)
    turn = [("P15", 16), ("P14", 2), ("P9", 4)]
    GROWING = {("P15", "P14", "P9"), ("P14", "P15", "P9"), ("P14", "P9", "P15")}
    scores = set()
    for order in itertools.permutations(turn):
        load(env, {"P20": 0}, holding(18, 2, 4, 16))
        legal = []
        for name, value in order:
            legal.append(bool(env.action_masks()[0, tile(env, name, value)]))
            if not legal[-1]:
                break
            env.step(np.array([tile(env, name, value)]))
        if all(legal):
            scores.add(end_turn(env))
        # each tile extends the turn's segment: P9 neither touches P20 nor
        # lies next to P15 ~ P20 alone
        names = tuple(name for name, _ in order)
        assert all(legal) == (names in GROWING), order
    assert scores == {3}  # P9 ~ P14 ~ P20 ~ P15 = 4 ~ 2 ~ 0 ~ 16


# ---- every line of bounce and tess boards ----


def progression_fill(cells: tuple[int, ...], cyclic: bool) -> tuple[int, dict[int, int]] | None:
    """Values for a whole cyclic line: step 1 mod M, M the largest period that
    divides the line's length, agrees at the cells met twice and needs at most
    8 copies of a value; None when there is none."""
    if not cyclic:
        return None
    for m in range(36, 1, -1):
        for s in range(1, m):
            if (len(cells) * s) % m:
                continue
            values: dict[int, int] = {}
            if all(values.setdefault(c, (k * s) % m) == (k * s) % m for k, c in enumerate(cells)):
                if max(Counter(values.values()).values()) <= 8:
                    return m, values
    return None


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=IDS)
def test_every_cyclic_line_closes_wherever_its_last_tile_goes(geometry):
    lines = lines_of(geometry)
    checked = 0
    for k, (cells, cyclic) in enumerate(lines.lines):
        fill = progression_fill(cells, cyclic)
        if fill is None:  # no progression fits the cells the line meets twice
            continue
        m, values = fill
        env = board(geometry, m)
        full = np.full(n_cells(env), -1)
        full[list(values)] = list(values.values())
        env.load_tiles(0, full)  # the loop is accepted
        for c, v in values.items():
            without = full.copy()
            without[c] = -1
            env.load_tiles(0, without, holding(m, v))
            play(env, c * m + v)
            expected = ref.turn_points(lines, full, [c])
            assert expected >= ref.points(len(cells))
            assert end_turn(env) == expected, (k, c)
        checked += 1
    assert checked >= len(lines.lines) // 2


def run_values(cells: tuple[int, ...], m: int) -> dict[int, int] | None:
    """A progression mod m along the run's walk, the same at a cell met twice."""
    for s in (1, 5, 7, m // 2):
        values: dict[int, int] = {}
        if all(values.setdefault(c, (k * s) % m) == (k * s) % m for k, c in enumerate(cells)):
            return values
    return None


@pytest.mark.parametrize("geometry", GEOMETRIES, ids=IDS)
def test_runs_of_3_to_6_score_once_whichever_tile_comes_last(geometry):
    lines = lines_of(geometry)
    env = board(geometry, 18)
    literal = checked = 0
    for line, (cells, cyclic) in enumerate(lines.lines):
        length = len(cells)
        for start, n in itertools.product(range(length), range(3, 7)):
            if not cyclic and start + n > length:
                continue
            picked = {cells[(start + k) % length] for k in range(n)}
            values = np.full(n_cells(env), -1)
            values[list(picked)] = 0
            # the segment the picked cells make on this line (a walk through a
            # corner meets cells twice), and a progression along it
            walk = next(r for _, r in lines.segments(values, line) if picked <= set(r))
            fill = run_values(walk, 18)
            if fill is None:
                continue
            values[list(fill)] = list(fill.values())
            segs = lines.all_segments(values, picked)
            if not ref.valid(lines, values, 18, segs=segs):
                continue  # the picked cells break a progression on a crossing line
            for c in picked:
                without = values.copy()
                without[c] = -1
                env.load_tiles(0, without, holding(18, int(values[c])))
                play(env, c * 18 + int(values[c]))
                got, expected = end_turn(env), ref.turn_points(lines, values, [c], segs)
                assert got == expected, (line, start, n, c)
                literal += got == ref.points(len(walk))  # nothing on crossing lines
                checked += 1
    assert checked and literal >= checked // 2


# ---- turns and masks against the reference ----


def reference_view(env: fiverow.FiverowVectorEnv, i: int = 0):
    b = env.board(i)
    values = np.frombuffer(b["tiles"], dtype=np.uint8).astype(int) - 1
    m = int(env.config["modulus"])
    hand = np.frombuffer(b["hands"], dtype=np.uint8).reshape(2, m)[b["seat"]]
    placed_plane = env.pool.groups[env.config.name].obs[i][env.planes.index("placed_this_turn")]
    placed = [int(c) for c in np.flatnonzero(placed_plane.reshape(-1))]
    opened = bool(set(np.flatnonzero(values >= 0).tolist()) - set(placed))
    return values, hand, placed, opened


def reference_mask(env, lines, nxt, i: int = 0) -> np.ndarray:
    values, hand, placed, opened = reference_view(env, i)
    return ref.legal_mask(lines, nxt, values, placed, opened, hand, n_cells(env))


RANDOM_GAMES = [
    ("bounce-2", {"order": 2, "edge": "bounce", "modulus": 12, "copies": 2, "hand_size": 4}),
    ("bounce-3", {"order": 3, "edge": "bounce", "modulus": 6, "copies": 8, "hand_size": 6}),
    ("bounce-5", {"order": 5, "edge": "bounce", "modulus": 20}),
    ("tess-2", {"geometry": "tess", "order": 2, "modulus": 7, "copies": 8, "hand_size": 6}),
    ("wrap-3", {"order": 3, "modulus": 9, "copies": 6}),
    ("wall-3", {"order": 3, "edge": "wall", "modulus": 8, "copies": 5}),
    ("torus-5", {"geometry": "torus", "size": 5, "modulus": 5, "copies": 6}),
    ("plane-6", {"geometry": "plane", "size": 6, "modulus": 6, "copies": 6}),
]


def long_turns(env, rng, i: int = 0) -> int:
    """A random legal action that prefers tiles to ending the turn: long turns."""
    mask = env.action_masks()[i]
    tiles = np.flatnonzero(mask[:-2])
    if len(tiles) and rng.random() < 0.85:
        return int(rng.choice(tiles))
    return int(rng.choice(np.flatnonzero(mask)))


@pytest.mark.parametrize("name,overrides", RANDOM_GAMES, ids=[n for n, _ in RANDOM_GAMES])
def test_masks_and_points_agree_with_the_reference(name, overrides):
    env = fiverow.make_vec("modlinseq", num_envs=1, seed=11, autoreset_mode="disabled", **overrides)
    lines, nxt = ref.Lines.of(env), next_table(env)
    rng = np.random.default_rng(5)
    m = int(env.config["modulus"])
    steps = 0
    for _ in range(3):  # games, long ones cut short: seconds per board
        env.reset()
        while not env.board(0)["status"] and steps < 400:
            want = reference_mask(env, lines, nxt)
            got = env.action_masks()[0]
            assert np.array_equal(got, want), (steps, np.flatnonzero(got != want))
            action = long_turns(env, rng)
            values, _, placed, _ = reference_view(env)
            points = ref.turn_points(lines, values, placed)
            before = env.board(0)["scores"]
            env.step(np.array([action]))
            if action == n_cells(env) * m:
                assert sum(env.board(0)["scores"]) - sum(before) == points
            steps += 1
    assert steps > 50


@pytest.mark.parametrize("name,overrides", RANDOM_GAMES[:4], ids=[n for n, _ in RANDOM_GAMES[:4]])
def test_every_order_of_a_turns_tiles(name, overrides):
    """Every order of a played turn's tiles: legal exactly when the reference
    says so (each tile keeps the turn one segment; the first touches the
    board), and the legal orders score the same."""
    env = fiverow.make_vec("modlinseq", num_envs=1, seed=3, autoreset_mode="disabled", **overrides)
    lines, nxt = ref.Lines.of(env), next_table(env)
    rng = np.random.default_rng(8)
    m, end = int(env.config["modulus"]), n_cells(env) * int(env.config["modulus"])
    turns = 0
    env.reset()
    while turns < 12 and not env.board(0)["status"]:
        state = env.get_state(0)
        turn = []
        while True:
            action = long_turns(env, rng)
            env.step(np.array([action]))
            if action >= end:
                break
            turn.append(action)
        if not 2 <= len(turn) <= 4:
            continue
        after = env.get_state(0)
        scores = set()
        for order in itertools.permutations(turn):
            env.set_state(0, state)
            legal = True
            for a in order:
                values, hand, placed, opened = reference_view(env)
                want = ref.tile_legal(lines, nxt, values, placed, opened, m, a // m, a % m)
                assert bool(env.action_masks()[0, a]) == want, (order, a)
                if not want:
                    legal = False
                    break
                env.step(np.array([a]))
            if legal:
                scores.add(end_turn(env))
        assert len(scores) == 1, [env.action_name(a) for a in turn]
        env.set_state(0, after)
        turns += 1
    assert turns >= 5
