"""MODLINSEQ (SPEC section 7) against the seed's own examples (sections 12-14),
the rules of a turn, and random play checked by an independent validator."""

from __future__ import annotations

import numpy as np
import pytest

import fiverow
from fiverow.modlinseq import (
    address,
    axial_address,
    axial_of,
    cell_of,
    segment_points,
    segments,
    sequence_label,
)

import reference
from conftest import DATA


def game(preset: str = "modlinseq", **kw) -> fiverow.FiverowVectorEnv:
    env = fiverow.make_vec(preset, num_envs=1, seed=0, autoreset_mode="disabled", **kw)
    env.reset()
    return env


def all_hands(m: int, copies: int = 1) -> np.ndarray:
    """Both hands holding `copies` of every value."""
    return np.full((2, m), copies, dtype=np.int64)


# ---- notation ----


def test_order6_addresses_match_the_map():
    lines = (DATA / "modlinseq_order6_map.txt").read_text().splitlines()
    rows = [line.split() for line in lines if line.strip() and line.strip()[0] in "BEHMPTA"]
    assert len(rows) == 13
    for r, names in enumerate(rows):
        b = 6 - r
        first_a = max(-6, -6 - b)
        for k, name in enumerate(names):
            a = first_a + k
            assert axial_address(a, b) == name.rstrip("*"), (a, b)
            assert axial_of(name.rstrip("*")) == (a, b)
            cell = cell_of(name.rstrip("*"))
            assert address(cell) == name.rstrip("*")


def test_sequence_labels():
    assert sequence_label([3, 7, 11, 15], 18) == "M18-S4-A3  3 ~ 7 ~ 11 ~ 15"
    assert sequence_label([15, 2, 7, 12, 17], 18) == "M18-S5-A2  15 ~ 2 ~ 7 ~ 12 ~ 17"
    assert sequence_label([0, 1, 2, 3, 4, 5], 18) == "M18-S1-A0  0 ~ 1 ~ 2 ~ 3 ~ 4 ~ 5"
    assert sequence_label([14, 17, 2, 5, 8, 11, 14], 18).startswith("M18-S3-A2  ")
    assert sequence_label([4, 1, 18, 15, 12, 9], 20).startswith("M20-S3-A0  ")
    assert sequence_label([17, 1, 5, 9], 20).startswith("M20-S4-A1  ")
    assert [segment_points(n) for n in (2, 3, 4, 5, 12, 18)] == [0, 1, 3, 6, 55, 136]


# ---- section 12: a square torus ----


def torus(width: int = 10, height: int = 8, modulus: int = 18) -> fiverow.FiverowVectorEnv:
    return game("modlinseq", geometry="torus", height=height, width=width, modulus=modulus)


def test_figure_12a_sequences():
    env = torus()
    values = np.full((8, 10), -1)
    values[0, 0:4] = [3, 7, 11, 15]
    values[2, 0:5] = [15, 2, 7, 12, 17]
    values[4, [7, 8, 9, 0, 1, 2]] = [0, 1, 2, 3, 4, 5]  # wraps
    values[6, [5, 6, 7, 8, 9, 0, 1]] = [14, 17, 2, 5, 8, 11, 14]  # wraps
    env.load_tiles(0, values)
    found = {s.label: (len(s.cells), s.points) for s in segments(env)}
    assert found == {
        "M18-S4-A3  3 ~ 7 ~ 11 ~ 15": (4, 3),
        "M18-S5-A2  15 ~ 2 ~ 7 ~ 12 ~ 17": (5, 6),
        "M18-S1-A0  0 ~ 1 ~ 2 ~ 3 ~ 4 ~ 5": (6, 10),
        "M18-S3-A2  14 ~ 17 ~ 2 ~ 5 ~ 8 ~ 11 ~ 14": (7, 15),
    }


def test_figure_12h_is_rejected():
    """3 ~ 4 ~ 5 and 6 ~ 7 ~ 8 reaching opposite edges join into 6 7 8 3 4 5."""
    env = torus()
    values = np.full((8, 10), -1)
    values[3, [0, 1, 2]] = [3, 4, 5]
    values[3, [7, 8]] = [6, 7]
    env.load_tiles(0, values, all_hands(18))
    m = 18
    eight_on_the_edge = (3 * 10 + 9) * m + 8
    assert not env.action_masks()[0, eight_on_the_edge]
    with pytest.raises(ValueError, match="breaks a progression"):
        env.step(np.array([eight_on_the_edge]))
    values[3, 9] = 8
    with pytest.raises(ValueError, match="not an arithmetic progression"):
        env.load_tiles(0, values)
    flat = game("modlinseq", geometry="plane", height=8, width=10)
    values[3, 9] = -1
    flat.load_tiles(0, values, all_hands(18))
    assert flat.action_masks()[0, eight_on_the_edge]  # without the wrap it is fine


@pytest.mark.parametrize("width,closes", [(12, True), (10, False), (6, True), (9, False)])
def test_a_loop_closes_only_on_a_multiple_of_the_period(width, closes):
    """Step 3 mod 18 has period 6: a row of 12 or 6 cells can close, 10 or 9 not."""
    env = torus(width=width, height=7)
    values = np.full((7, width), -1)
    values[3, : width - 1] = [(3 * k) % 18 for k in range(width - 1)]
    env.load_tiles(0, values, all_hands(18))
    last = 3 * width + width - 1
    legal_values = [v for v in range(18) if env.action_masks()[0, last * 18 + v]]
    assert legal_values == ([(3 * (width - 1)) % 18] if closes else [])


# ---- section 13: hex order 6 wrap, order 5 bounce ----


def test_section_13_1_wrap_loops_hold_7_to_13_tiles():
    env = game()
    nxt = reference.next_table(env)
    lengths = set()
    for c in np.flatnonzero(env.pool.groups["modlinseq"].on_board.reshape(-1)):
        for od in (0, 2, 4):
            x, d, n = int(c), od, 0
            while True:
                x, d = nxt[x][d]
                n += 1
                if x == c:
                    break
            lengths.add(n)
    assert lengths == set(range(7, 14))


def bounce5() -> fiverow.FiverowVectorEnv:
    return game("modlinseq", order=5, edge="bounce", modulus=20)


def load_named(env, tiles: dict[str, int], order: int, hands=None) -> None:
    side = 2 * order + 1
    values = np.full(side * side, -1)
    for name, v in tiles.items():
        values[cell_of(name, order)] = v
    env.load_tiles(0, values.reshape(side, side), hands)


def test_table_13a_radius_case():
    env = bounce5()
    load_named(env, {"T2": 0, "T4": 10, "T7": 0, "T11": 10}, 5)
    (seg,) = [s for s in segments(env) if len(s.cells) > 2]
    assert [address(c, 5) for c in seg.cells] == ["T2", "T4", "T7", "T11", "T7", "T4", "T2"]
    assert seg.values == (0, 10, 0, 10, 0, 10, 0) and seg.points == 15


def test_table_13a_radius_case_step_zero():
    env = bounce5()
    load_named(env, {"P4": 8, "P7": 8, "P11": 8}, 5)
    (seg,) = [s for s in segments(env) if len(s.cells) > 2]
    assert len(seg.cells) == 5 and seg.points == 6 and set(seg.values) == {8}


def test_table_13a_radius_case_blocks_the_corner():
    """6M2 ~ 7M4 ~ 8M7 is valid, but no value fits M11 (9 would need 10 on M7)."""
    env = bounce5()
    load_named(env, {"M2": 6, "M4": 7, "M7": 8}, 5, all_hands(20))
    corner = cell_of("M11", 5)
    assert not env.action_masks()[0, corner * 20 : corner * 20 + 20].any()


def test_table_13a_non_corner_case():
    """6 ~ 9 ~ 12 ~ 15 ~ 18 ~ 1 ~ 4 reflecting off a side: 7 tiles, 15 points."""
    env = bounce5()
    nxt = reference.next_table(env)
    cell, od = cell_of("H5", 5), 2  # axial (1, 2), going up along b to H8, H12 (the rim)
    assert axial_of("H5") == (1, 2) and axial_of("H12") == (1, 4)
    walk = [(cell, od)]
    for _ in range(6):
        cell, od = nxt[cell][od]
        walk.append((cell, od))
    assert len({c for c, _ in walk}) == 7 and walk[-1][1] not in (2, 3)  # it reflected
    load_named(env, {address(c, 5): (6 + 3 * k) % 20 for k, (c, _) in enumerate(walk)}, 5)
    (seg,) = [s for s in segments(env) if len(s.cells) == 7]
    assert sorted(seg.values) == sorted((6 + 3 * k) % 20 for k in range(7))
    assert seg.points == 15


# ---- section 14: tess-2 ----


def test_tess2_loops_of_49_tiles():
    env = game("modlinseq", geometry="tess", order=2, modulus=7, copies=8, hand_size=1)
    g = env.pool.groups["modlinseq"]
    assert int(g.on_board.sum()) == 49
    values = np.full(81, -1)
    for c in np.flatnonzero(g.on_board.reshape(-1)):
        a, b = axial_of(address(int(c), 4))
        values[c] = (a - 2 * b) % 7
    env.load_tiles(0, values.reshape(9, 9))  # every segment a progression: accepted
    loops = {s.label.split("  ")[0]: s for s in segments(env)}
    assert all(len(s.cells) == 49 and s.points == 48 * 47 // 2 for s in loops.values())
    quoted = [
        ["A0", "M1", "M2", "M4", "B10", "E4", "E5"],
        ["A0", "T1", "T2", "T4", "H10", "M4", "M5"],
        ["A0", "P1", "P2", "P4", "E10", "H4", "H5"],
    ]

    def runs(cells):  # the loop read from A0 either way round
        k = cells.index(cell_of("A0", 4))
        forward = [cells[(k + j) % len(cells)] for j in range(len(cells))]
        return forward, [forward[0]] + forward[1:][::-1]

    for names in quoted:
        want = [cell_of(n, 4) for n in names]
        assert any(r[: len(want)] == want for s in loops.values() for r in runs(list(s.cells)))


# ---- turns ----


def test_a_turn_extends_one_segment_then_scores():
    env = game("modlinseq", geometry="plane", size=7, modulus=10, copies=4, hand_size=6)
    values = np.full((7, 7), -1)
    values[3, 2] = 1
    hands = np.zeros((2, 10), dtype=np.int64)
    hands[0, [2, 3, 4]] = 1
    hands[1, [5, 6]] = 1
    env.load_tiles(0, values, hands)
    m = 10

    def tile(row, col, v):
        return (row * 7 + col) * m + v

    with pytest.raises(ValueError, match="touch"):
        env.step(np.array([tile(0, 0, 2)]))
    env.step(np.array([tile(3, 3, 2)]))  # 1 ~ 2
    mask = env.action_masks()[0]
    assert mask[tile(4, 3, 3)] and mask[tile(3, 4, 3)]  # the line is not chosen yet
    assert not mask[tile(5, 5, 3)]  # but the turn stays one segment
    env.step(np.array([tile(3, 4, 3)]))  # now the row is the turn's line
    mask = env.action_masks()[0]
    assert mask[tile(3, 5, 4)] and not mask[tile(4, 4, 4)] and not mask[tile(2, 3, 4)]
    env.step(np.array([tile(3, 5, 4)]))
    _, reward, _, _, info = env.step(np.array([7 * 7 * m]))  # END_TURN
    # 1 ~ 2 ~ 3 ~ 4 scores (4-1)(4-2)/2 = 3, once, however many of its tiles are new
    assert info["scores"][0].tolist() == [3, 0] and reward[0] == 0.0
    assert info["to_play"][0] == 1


def test_pass_twice_ends_the_game():
    env = game()
    n_cells = env.pool.groups["modlinseq"].n_cells
    pass_action = n_cells * 18 + 1
    env.step(np.array([pass_action]))
    _, _, terminated, _, info = env.step(np.array([pass_action]))
    assert terminated[0] and info["winner"][0] == -1


def test_hand_and_bag_in_the_observation():
    env = game()
    g = env.pool.groups["modlinseq"]
    b = env.board(0)
    hands = np.frombuffer(b["hands"], dtype=np.uint8).reshape(2, 18)
    obs = g.obs[0]
    planes = env.planes
    for v in range(18):
        assert obs[planes.index(f"hand_{v}")].all() == (hands[0, v] >= 1)
    bag = sum(obs[planes.index(f"bag_{1 << k}")][6, 6] << k for k in range(9))
    assert bag == b["bag_left"] == 72 - 12
    # the opponent's hand is nowhere in the observation
    assert not any(p.startswith("opponent") for p in planes)


# ---- random legal play, checked by an independent validator ----


def validate(env, index: int) -> None:
    """Every maximal segment along every walk is an arithmetic progression mod M."""
    m = int(env.config["modulus"])
    nxt = reference.next_table(env)
    tiles = np.frombuffer(env.board(index)["tiles"], dtype=np.uint8).astype(int) - 1
    n_dirs = len(nxt[0])
    for c in np.flatnonzero(tiles >= 0):
        for od in range(0, n_dirs, 2):
            # back to the first tile (or all the way round a cycle of tiles)
            x, d, cyclic = int(c), od + 1, False
            while True:
                nx, nd = nxt[x][d]
                if nx < 0 or tiles[nx] < 0:
                    break
                x, d = nx, nd
                if (x, d) == (c, od + 1):
                    cyclic = True
                    break
            start = (int(c), od) if cyclic else (x, d ^ 1)
            x, d = start
            seq = [tiles[x]]
            while True:
                nx, nd = nxt[x][d]
                if nx < 0 or tiles[nx] < 0 or (nx, nd) == start:
                    break
                x, d = nx, nd
                seq.append(tiles[x])
            if len(seq) < 2:
                continue
            steps = {(seq[i + 1] - seq[i]) % m for i in range(len(seq) - 1)}
            if cyclic:
                steps.add((seq[0] - seq[-1]) % m)
            assert len(steps) == 1, (address(int(c), env.config["order"]), seq)


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"edge": "wall", "order": 4, "modulus": 12, "copies": 3},
        {"edge": "bounce", "order": 5, "modulus": 20},
        {"geometry": "tess", "order": 2, "modulus": 7, "copies": 6, "hand_size": 4},
        {"geometry": "torus", "size": 8, "modulus": 9, "copies": 5},
        {"geometry": "plane", "size": 8, "modulus": 6, "copies": 6},
    ],
)
def test_random_legal_play_keeps_every_segment_valid(overrides):
    env = fiverow.make_vec("modlinseq", num_envs=6, seed=4, **overrides)
    env.reset()
    games = 0
    for _ in range(160):
        _, _, terminated, truncated, _ = env.step(env.sample_legal())
        for i in range(env.num_envs):
            if not (terminated[i] or truncated[i]):
                validate(env, i)
        games += int(terminated.sum())
        assert not truncated.any()
    assert games > 0
