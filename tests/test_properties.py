"""Properties of the Python surface for random action sequences on every
preset (hypothesis): masks are the rules' legal set, outcome rewards sum to
zero, state bytes and pickles give identical futures, the seed alone fixes a
trajectory (threads, pools), bad input is refused with nothing changed.

Example counts come from the hypothesis profile (tests/conftest.py): few in
the suite ("ci"), many under `make fuzz` (HYPOTHESIS_PROFILE=fuzz)."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fiverow
from fiverow.rules.renju import forbidden_points

# every preset; gomorpion on 9x9 so that play reaches cast ends quickly
VARIANTS: list[tuple[str, dict[str, Any]]] = [
    (p, {"size": 9} if p == "gomorpion" else {}) for p in fiverow.preset_names()
]
variants = st.sampled_from(VARIANTS)
# a move: the k-th legal action (any k: taken modulo the legal count)
choices = st.lists(st.integers(0, 2**16), min_size=1, max_size=40)


def make(variant: tuple[str, dict[str, Any]], **kwargs: Any) -> fiverow.FiverowVectorEnv:
    preset, overrides = variant
    kwargs.setdefault("num_envs", 1)
    env = fiverow.make_vec(preset, **overrides, **kwargs)
    env.reset()
    return env


def group(env: fiverow.FiverowVectorEnv) -> Any:
    return env.pool.groups[env.config.name]


def legal_choice(env: fiverow.FiverowVectorEnv, k: int) -> np.ndarray:
    """Per board, its (k mod n)-th legal action (0 where nothing is legal)."""
    out = np.zeros(env.num_envs, dtype=np.int64)
    for i, mask in enumerate(group(env).mask):
        legal = np.flatnonzero(mask)
        out[i] = legal[k % len(legal)] if len(legal) else 0
    return out


def outputs(env: fiverow.FiverowVectorEnv) -> tuple[bytes, ...]:
    g = group(env)
    return (
        *(env.get_state(i) for i in range(env.num_envs)),
        g.obs.tobytes(),
        g.mask.tobytes(),
        g.rewards.tobytes(),
        g.terminated.tobytes(),
        g.truncated.tobytes(),
    )


def reference_legal(env: fiverow.FiverowVectorEnv) -> np.ndarray | None:
    """The legal set the rules give in normal play of a line rule: the empty
    cells on the board, less black's forbidden points in renju (computed by
    fiverow.rules.renju.forbidden_points), black's first stone at the centre
    under protocol "center"; None where the rule or phase has
    more to it (gomorpion, modlinseq, opening protocols)."""
    params = env.config.params
    board = env.board(0)
    if params["rule"] in ("gomorpion", "modlinseq") or board["phase"] != 0:
        return None
    cells = board["cells"]
    legal = np.zeros(group(env).mask.shape[1], dtype=bool)
    legal[: cells.size] = cells.reshape(-1) == 0
    if params["protocol"] == "center" and not (cells == 1).any():  # black opens at the centre
        legal[:] = False
        legal[(cells.shape[0] // 2) * cells.shape[1] + cells.shape[1] // 2] = True
    if params["rule"] == "renju" and params["forbidden"] == "mask" and board["colour"] == 0:
        for r, c in forbidden_points(cells):
            legal[r * cells.shape[1] + c] = False
    if params["rule"] == "pente" and params["pente_opening"] == "tournament":
        # the first stone on the centre; black's second at least 3 cells from it
        h, w = cells.shape
        stones = int((cells != 0).sum())
        if stones == 0:
            legal[:] = False
            legal[(h // 2) * w + w // 2] = True
        elif stones == 2 and board["colour"] == 0:
            rows, cols = np.divmod(np.arange(h * w), w)
            near = np.maximum(abs(rows - h // 2), abs(cols - w // 2)) < 3
            legal[: h * w] &= ~near
    return legal


def probe(env: fiverow.FiverowVectorEnv, scratch: fiverow.FiverowVectorEnv, action: int) -> bool:
    """Is `action` accepted by a step of board 0 (on a copy, under 'raise')?"""
    scratch.set_state(0, env.get_state(0))
    try:
        scratch.step(np.array([action]))
    except ValueError:
        return False
    return True


@given(variant=variants, moves=choices, seed=st.integers(0, 2**32 - 1))
def test_masks_are_the_legal_set(variant, moves, seed):
    env = make(variant, seed=seed, autoreset_mode="disabled")
    scratch = make(variant, seed=seed, autoreset_mode="disabled")
    rng = np.random.default_rng(seed)
    for k in moves:
        mask = group(env).mask[0].astype(bool)
        assert mask.sum() == env.board(0)["n_legal"]
        expected = reference_legal(env)
        if expected is not None:
            np.testing.assert_array_equal(mask, expected)
        # the step agrees with the mask: a few legal actions taken, illegal refused
        legal, illegal = np.flatnonzero(mask), np.flatnonzero(~mask)
        for a in rng.choice(legal, size=min(3, len(legal)), replace=False):
            assert probe(env, scratch, int(a)), f"legal action {a} refused"
        for a in rng.choice(illegal, size=min(3, len(illegal)), replace=False):
            assert not probe(env, scratch, int(a)), f"illegal action {a} taken"
        env.step(legal_choice(env, k))
        if group(env).terminated[0] or group(env).truncated[0]:
            break


@given(variant=variants, moves=choices, seed=st.integers(0, 2**32 - 1))
def test_outcome_rewards_sum_to_zero(variant, moves, seed):
    env = make(variant, num_envs=2, seed=seed, illegal_action="lose")
    outcome = env.config.params["reward_mode"] == "outcome"
    for k in moves:
        actions = legal_choice(env, k)
        actions[1] = k % group(env).mask.shape[1]  # any action: illegal ones lose
        env.step(actions)
        rewards = group(env).rewards
        if outcome:
            np.testing.assert_array_equal(rewards.sum(axis=1), 0)
        ended = group(env).terminated
        assert np.all(rewards[~ended] == 0) or not outcome


@given(
    variant=variants,
    prefix=choices,
    suffix=choices,
    seed=st.integers(0, 2**32 - 1),
    illegal=st.sampled_from(["raise", "random"]),
)
def test_state_and_pickle_round_trips_give_the_same_future(variant, prefix, suffix, seed, illegal):
    env = make(variant, num_envs=2, seed=seed, illegal_action=illegal)
    for k in prefix:
        env.step(legal_choice(env, k))
    saved = [env.get_state(i) for i in range(2)]
    pickled = pickle.dumps(env)

    def future(e: fiverow.FiverowVectorEnv) -> list[tuple[bytes, ...]]:
        out = []
        for k in suffix:
            actions = legal_choice(e, k)
            if illegal == "random":  # board 1 plays anything: the env's own randomness
                actions[1] = k % group(e).mask.shape[1]
            e.step(actions)
            out.append(outputs(e))
        return out

    first = future(env)
    for i in range(2):
        env.set_state(i, saved[i])
    assert future(env) == first
    assert future(pickle.loads(pickled)) == first


def run_pool(groups: dict[str, Any], seed: int, threads: int, steps: int = 30) -> list[bytes]:
    """Every step of sampled legal actions: group "mine"'s states and outputs."""
    pool = fiverow.make_pool(groups, seed=seed, num_threads=threads)
    pool.reset()
    g = pool.groups["mine"]
    out = []
    for _ in range(steps):
        pool.step(pool.sample_legal())
        states = b"".join(pool.get_state("mine", i) for i in range(g.num_envs))
        out.append(states + g.obs.tobytes() + g.rewards.tobytes() + g.terminated.tobytes())
    return out


@given(variant=variants, other=variants, seed=st.integers(0, 2**32 - 1))
def test_the_seed_fixes_the_trajectory(variant, other, seed):
    """1 or 2 threads, alone or in a pool beside other variants (at the same
    group index: the index is part of every board's key, docs/hdf5.md)."""
    mine = {"num_envs": 4, "config": fiverow.resolve(variant[0], **variant[1])}
    theirs = {"num_envs": 3, "config": fiverow.resolve(other[0], **other[1])}
    freestyle = {"num_envs": 5, "config": fiverow.resolve("freestyle", size=9)}
    alone = run_pool({"mine": mine}, seed, threads=1)
    assert run_pool({"mine": mine}, seed, threads=2) == alone
    assert run_pool({"mine": mine, "theirs": theirs}, seed, threads=2) == alone
    second = run_pool({"theirs": theirs, "mine": mine}, seed, threads=1)
    assert run_pool({"theirs": freestyle, "mine": mine}, seed, threads=2) == second


@pytest.fixture(scope="module")
def played() -> fiverow.FiverowVectorEnv:
    env = make(("renju", {}), num_envs=3, seed=5)
    for k in range(12):
        env.step(legal_choice(env, k))
    return env


def snapshot(env: fiverow.FiverowVectorEnv) -> tuple[bytes, ...]:
    return outputs(env)


@given(
    actions=st.one_of(
        st.lists(st.integers(-(2**70), 2**70), min_size=0, max_size=5),
        st.lists(st.floats(allow_nan=True), min_size=3, max_size=3),
        st.lists(st.text(max_size=3), min_size=3, max_size=3),
        st.integers(-(2**40), 2**40),
    )
)
def test_bad_actions_are_refused_naming_them(played, actions):
    env = played
    before = snapshot(env)
    try:
        array = np.asarray(actions)
    except (OverflowError, ValueError):
        array = None
    acceptable = (
        array is not None
        and array.shape == (3,)
        and array.dtype.kind in "iu"
        and all(group(env).mask[i, int(a)] for i, a in enumerate(array) if 0 <= a < 225)
        and all(0 <= a < 225 for a in array)
    )
    if acceptable:
        return  # a legal step: nothing to refuse
    with pytest.raises((ValueError, TypeError), match=r"action|env \d|shape|integer"):
        env.step(actions)
    assert snapshot(env) == before


@given(state=st.binary(max_size=2048), flips=st.lists(st.integers(0, 10**6), max_size=8))
def test_bad_states_are_refused_naming_the_state(played, state, flips):
    env = played
    good = bytearray(env.get_state(1))
    for f in flips:  # a real state, a few bytes changed
        good[f % len(good)] ^= 1 + f % 255
    before = snapshot(env)
    for candidate in (state, bytes(good)):
        try:
            env.set_state(0, candidate)
        except ValueError as e:
            assert "state" in str(e)
            assert snapshot(env) == before
        else:  # accepted: it passed every check, and plays on
            env.set_state(0, before[0])
            assert snapshot(env) == before


rows_text = st.lists(st.text(alphabet="XO.x o#\n", min_size=0, max_size=17), max_size=17)


@given(rows=st.one_of(rows_text, st.lists(st.integers(), max_size=5), st.text(max_size=20)))
def test_bad_positions_are_refused_naming_the_position(played, rows):
    env = played
    before = snapshot(env)
    try:
        env.load_position(0, rows, to_play="black")
    except (ValueError, TypeError) as e:
        assert str(e)
        assert snapshot(env) == before
    else:
        # accepted: 15 rows of 15 of X, O and . with no five on the board
        assert len(rows) == 15 and all(len(r) == 15 and set(r) <= set("XO.") for r in rows)
        b = env.board(0)
        text = ["".join(".XO"[c] for c in row) for row in b["cells"]]
        assert text == list(rows)
        env.set_state(0, before[0])


@given(moves=choices, seed=st.integers(0, 2**16), preset=st.sampled_from(["caro", "renju"]))
def test_positions_load_as_played(moves, seed, preset):
    """A position played out, written as rows, loads to the same cells and legal set."""
    env = make((preset, {}), seed=seed, autoreset_mode="disabled")
    for k in moves:
        if group(env).terminated[0] or group(env).truncated[0]:
            break
        env.step(legal_choice(env, k))
    if group(env).terminated[0] or group(env).truncated[0]:
        return
    b = env.board(0)
    rows = ["".join(".XO"[c] for c in row) for row in b["cells"]]
    other = make((preset, {}), seed=seed + 1)
    other.load_position(0, rows, to_play="black" if b["colour"] == 0 else "white")
    np.testing.assert_array_equal(other.board(0)["cells"], b["cells"])
    if b["phase"] == 0:
        np.testing.assert_array_equal(group(other).mask[0], group(env).mask[0])
