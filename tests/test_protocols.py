"""Opening protocols (SPEC section 5): soosorv and swap2, phase by phase."""

from __future__ import annotations

import csv

import numpy as np
import pytest

import fiverow
from fiverow import _core
from fiverow.notation import parse_cell
from fiverow.renju import OPENINGS, forbidden_points

from conftest import DATA, load_json

N = 225
SWAP, NO_SWAP = N, N + 1


def declare(k: int) -> int:
    return N + 1 + k


TAKE_BLACK, TAKE_WHITE, PLACE_TWO = N, N + 1, N + 2


def cell(name: str) -> int:
    return parse_cell(name, 15, 15)


def play(env, *actions):
    """Step a one-board env through actions (cell names or action numbers)."""
    out = None
    for a in actions:
        out = env.step(np.array([cell(a) if isinstance(a, str) else a]))
    return out


def board(env):
    return env.board(0)


# ---- the 26 openings ----


def _offset(name: str) -> tuple[int, int]:
    c = cell(name)
    return c % 15 - 7, 7 - c // 15


PLACEMENTS = list(csv.DictReader(open(DATA / "renju_opening_placements.csv")))


def test_every_placement_is_its_canonical_opening():
    assert len(PLACEMENTS) == 184
    for row in PLACEMENTS:
        index = _core.opening_of(*_offset(row["w2"]), *_offset(row["b3"]))
        assert OPENINGS[index] == f"{row['code']} {row['romaji']}", row


def test_openings_match_the_json():
    names = [f"{o['code']} {o['romaji']}" for o in load_json("renju_26_openings.json")["openings"]]
    assert list(OPENINGS) == names


@pytest.mark.parametrize("row", PLACEMENTS[::9], ids=lambda r: f"{r['w2']}-{r['b3']}")
def test_soosorv_reports_the_opening(row):
    env = fiverow.make_vec("renju-soosorv8", num_envs=1, seed=0)
    _, info = env.reset()
    assert info["opening"][0] == -1
    _, _, _, _, info = play(env, row["b1"], row["w2"], row["b3"])
    assert OPENINGS[info["opening"][0]] == f"{row['code']} {row['romaji']}"
    assert "opening " + row["code"] in env.render_env(0, "ansi")


# ---- soosorv ----

SOOSORV = load_json("soosorv_vectors.json")["vectors"]


@pytest.mark.parametrize("vector", SOOSORV, ids=[v["name"] for v in SOOSORV])
def test_soosorv_offer_symmetry(vector):
    stones = vector["stones"]
    black = [c for c, colour in stones.items() if colour == "B"]
    white = [c for c, colour in stones.items() if colour == "W"]
    assert black[0] == "h8"
    env = fiverow.make_vec("renju-soosorv8", num_envs=1, seed=0)
    env.reset()
    offers = vector["offers"]
    play(env, "h8", white[0], black[1], NO_SWAP, white[1], declare(len(offers)), NO_SWAP)
    b = board(env)
    assert b["phase_name"] == "offer"
    assert bin(b["stabilizer"]).count("1") == vector["stabilizer_size"]
    valid = True
    for name in offers:
        if not env.action_masks()[0, cell(name)]:
            valid = False
            with pytest.raises(ValueError, match="symmetrical|occupied"):
                play(env, name)
            break
        play(env, name)
    assert valid == vector["valid"]


def test_soosorv_golden_sequence_and_seats():
    """Every phase in turn; a swap moves black to seat 1, whose five then wins."""
    env = fiverow.make_vec("renju-soosorv8", num_envs=1, seed=0, autoreset_mode="disabled")
    _, info = env.reset()
    expected = [
        # action, phase after, seat to act after, seat holding black after
        ("h8", "second stone", 0, 0),
        ("h9", "third stone", 0, 0),
        ("h10", "swap", 1, 0),
        (SWAP, "fourth stone", 0, 1),  # seat 1 took black; white's holder is seat 0
        ("a1", "declare", 0, 1),
        (declare(2), "second swap", 1, 1),
        (NO_SWAP, "offer", 1, 1),
        ("h11", "offer", 1, 1),
        ("f3", "pick", 0, 1),
        ("h11", "play", 0, 1),  # the offer is black stone 5; white (seat 0) plays 6
        ("a2", "play", 1, 1),
        ("h12", "play", 0, 1),
        ("a3", "play", 1, 1),
        ("h13", "play", 0, 1),
        ("a4", "play", 1, 1),
    ]
    for action, phase, seat, black_seat in expected:
        _, _, terminated, _, info = play(env, action)
        b = board(env)
        assert (b["phase_name"], b["seat"], b["black_seat"]) == (phase, seat, black_seat), action
        assert info["to_play"][0] == seat and info["black_seat"][0] == black_seat
        assert not terminated[0]
    cells = b["cells"].reshape(-1)
    assert cells[cell("h11")] == 1 and cells[cell("f3")] == 0  # the other offer is gone
    _, reward, terminated, _, info = play(env, "h14")  # h10..h14: exactly five
    assert terminated[0] and info["winner"][0] == 1
    assert list(info["rewards"][0]) == [-1.0, 1.0] and reward[0] == 1.0


def test_soosorv_observation_planes():
    env = fiverow.make_vec("renju-soosorv4", num_envs=1, seed=0)
    env.reset()
    planes = env.planes
    play(env, "h8", "h9", "h10", NO_SWAP, "a1", declare(3), NO_SWAP, "c3")
    obs = env.pool.groups["renju-soosorv4"].obs[0]

    def p(name):
        return obs[planes.index(name)]

    assert p("phase_offer").all() and not p("phase_play").any()
    assert p("declared_1").all() and p("declared_2").all() and not p("declared_4").any()
    assert p("offered")[12, 2] == 1 and p("offered").sum() == 1
    assert p("mover_is_black").all()  # seat 0 holds black and offers
    assert p("black_to_move").all()


def test_out_of_phase_actions_are_rejected():
    env = fiverow.make_vec("renju-soosorv4", num_envs=1, seed=0)
    env.reset()
    with pytest.raises(ValueError, match=r"SWAP is not allowed now \(phase: first stone\)"):
        play(env, SWAP)
    with pytest.raises(ValueError, match="centre"):
        play(env, "a1")
    play(env, "h8")
    with pytest.raises(ValueError, match="3x3"):
        play(env, "h11")
    play(env, "h9")
    with pytest.raises(ValueError, match="5x5"):
        play(env, "a1")
    play(env, "j10")
    with pytest.raises(ValueError, match="a decision is due"):
        play(env, "a1")
    play(env, NO_SWAP, "a1")
    with pytest.raises(ValueError, match=r"DECLARE_5 is not allowed now"):
        play(env, declare(5))  # soosorv4 offers at most 4
    before = env.get_state(0)
    with pytest.raises(ValueError):
        play(env, TAKE_BLACK + 10)  # beyond the action space
    assert env.get_state(0) == before


# ---- swap2 ----


@pytest.mark.parametrize(
    "choices,black_seat,to_play",
    [
        ([TAKE_BLACK], 1, 0),  # B takes black; white (A) plays stone 4
        ([TAKE_WHITE], 0, 1),  # B takes white and plays stone 4
        ([PLACE_TWO, "i9", "i10", TAKE_BLACK], 0, 1),  # A takes black; B (white) plays 6
        ([PLACE_TWO, "i9", "i10", TAKE_WHITE], 1, 0),
    ],
)
def test_swap2_choices(choices, black_seat, to_play):
    env = fiverow.make_vec("freestyle-swap2", num_envs=1, seed=0)
    env.reset()
    play(env, "h8", "h9", "h10")
    b = board(env)
    assert (b["phase_name"], b["seat"]) == ("choice", 1)
    assert set(np.flatnonzero(env.action_masks()[0])) == {TAKE_BLACK, TAKE_WHITE, PLACE_TWO}
    _, _, _, _, info = play(env, *choices)
    b = board(env)
    assert b["phase_name"] == "play" and b["colour"] == 1
    assert info["black_seat"][0] == black_seat and info["to_play"][0] == to_play
    assert env.action_masks()[0].sum() == 225 - b["cells"].astype(bool).sum()


def test_swap2_reward_follows_the_seat():
    env = fiverow.make_vec("freestyle-swap2", num_envs=1, seed=0)
    env.reset()
    # B takes black: A (seat 0) is white and plays on; A's five wins for seat 0
    play(env, "h8", "h9", "h10", TAKE_BLACK)
    moves = ["a1", "b8", "a2", "c8", "a3", "d8", "a4", "e8"]
    play(env, *moves)
    _, reward, terminated, _, info = play(env, "a5")
    assert terminated[0] and info["winner"][0] == 0 and reward[0] == 1.0


def test_swap2_with_renju_masks_black_fouls():
    env = fiverow.make_vec("renju", num_envs=1, seed=0, protocol="swap2")
    env.reset()
    assert env.action_masks()[0, :225].all()  # the first stone may go anywhere


# ---- the mask is exact in every phase ----


def _orbit(c: int, stabilizer: int) -> set[int]:
    r, col = divmod(c, 15)
    y, x = 7 - r, col - 7
    maps = [(x, y), (-y, x), (-x, -y), (y, -x), (-x, y), (x, -y), (y, x), (-y, -x)]
    return {(7 - ty) * 15 + 7 + tx for t, (tx, ty) in enumerate(maps) if stabilizer >> t & 1}


def _stabilizer(cells: np.ndarray) -> int:
    stones = {c: v for c, v in enumerate(cells) if v in (1, 2)}
    bits = 0
    for t in range(8):
        if all(cells[next(iter(_orbit_t(c, t)))] == v for c, v in stones.items()):
            bits |= 1 << t
    return bits


def _orbit_t(c: int, t: int) -> set[int]:
    return _orbit(c, 1 << t)


def expected_mask(env, max_offers: int) -> np.ndarray:
    b = board(env)
    cells = b["cells"].reshape(-1)
    empty = cells == 0
    mask = np.zeros(env.n_actions, dtype=bool)
    phase = b["phase_name"]
    rows, cols = np.divmod(np.arange(225), 15)
    dist = np.maximum(abs(rows - 7), abs(cols - 7))
    if phase == "first stone":
        mask[112] = True
    elif phase == "second stone":
        mask[:225] = empty & (dist <= 1)
    elif phase == "third stone":
        mask[:225] = empty & (dist <= 2)
    elif phase in ("swap", "second swap"):
        mask[[SWAP, NO_SWAP]] = True
    elif phase == "fourth stone":
        mask[:225] = empty
    elif phase == "declare":
        mask[[declare(k) for k in range(1, max_offers + 1)]] = True
    elif phase == "offer":
        offered = np.frombuffer(b["offered"], dtype=np.uint8)
        stab = _stabilizer(cells)
        assert stab == b["stabilizer"]
        excluded = set()
        for c in np.flatnonzero(offered):
            excluded |= _orbit(int(c), stab)
        fouls = {r * 15 + c for (r, c) in forbidden_points(b["cells"].astype(np.int64))}
        mask[:225] = empty
        for c in excluded | fouls:
            mask[c] = False
    elif phase == "pick":
        mask[:225] = np.frombuffer(b["offered"], dtype=np.uint8) == 1
    else:  # play: renju, black's fouls masked
        mask[:225] = empty
        if b["colour"] == 0:
            for r, c in forbidden_points(b["cells"].astype(np.int64)):
                mask[r * 15 + c] = False
    return mask


@pytest.mark.parametrize("preset,max_offers", [("renju-soosorv8", 8), ("renju-soosorv4", 4)])
def test_soosorv_mask_exact_in_every_phase(preset, max_offers):
    env = fiverow.make_vec(preset, num_envs=1, seed=0, autoreset_mode="disabled")
    phases = set()
    for seed in range(40):
        env.reset(seed=seed)
        for _ in range(24):
            np.testing.assert_array_equal(env.action_masks()[0], expected_mask(env, max_offers))
            phases.add(board(env)["phase_name"])
            _, _, terminated, truncated, _ = env.step(env.sample_legal())
            if terminated[0] or truncated[0]:
                break
    assert len(phases) == 10


# ---- random self-play through the protocols ----


@pytest.mark.parametrize("preset", ["renju-soosorv8", "renju-soosorv4", "freestyle-swap2"])
def test_random_play_never_reaches_an_illegal_state(preset):
    env = fiverow.make_vec(preset, num_envs=1024, seed=5)
    env.reset()
    games = 0
    for t in range(200):
        actions = env.sample_legal()
        mask = env.action_masks().copy()
        _, _, terminated, truncated, info = env.step(actions)
        assert mask[np.arange(1024), actions].all()
        games += int((terminated | truncated).sum())
        if t % 50 == 49:  # set_state checks every field against the position
            for i in range(0, 1024, 37):
                env.set_state(i, env.get_state(i))
    stats = env.rollout(100)
    assert stats["steps"] == 102_400 and games + stats["episodes"] > 1000
    assert set(np.unique(info["black_seat"])) <= {0, 1}
