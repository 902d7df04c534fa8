"""fiverow.data.Writer: episodes played in Python, written into the dataset
format of `fiverow generate` (docs/hdf5.md) and read back with fiverow.data.
Round trips against a live env, flushing (in a subprocess, so that a deadlock
fails instead of hanging), the context manager, observations, and bad input."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import fiverow
from fiverow import data

HERE = Path(__file__).parent
SEED = 7
SIZE = 9
PLAYERS = ("alice", "bob")
WRITER_TIMEOUT = 120  # seconds for a subprocess that flushes; a deadlock fails the test


# ---- helpers ----


@dataclass
class Game:
    """One game as the live env played it."""

    board: int
    episode: int
    actions: list[int] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)
    colours: list[int] = field(default_factory=list)
    obs: list[np.ndarray] = field(default_factory=list)  # before each action
    masks: list[np.ndarray] = field(default_factory=list)
    policy: list[np.ndarray] = field(default_factory=list)  # float32, over the legal actions
    rewards: list[np.ndarray] = field(default_factory=list)  # by seat, per step
    final_obs: np.ndarray | None = None
    final_cells: np.ndarray | None = None
    winner: int = -2
    truncated: bool = False
    black_seat: int = 0

    @property
    def length(self) -> int:
        return len(self.actions)

    def arrays(self) -> dict[str, np.ndarray]:
        return {
            "actions": np.array(self.actions, dtype=np.int64),
            "seats": np.array(self.seats, dtype=np.int64),
            "colours": np.array(self.colours, dtype=np.int64),
            "obs": np.stack(self.obs),
            "policy": np.stack(self.policy),
        }


def make_env(name: str = "freestyle", num_envs: int = 4, seed: int = SEED) -> Any:
    overrides = {"size": SIZE} if name == "freestyle" else {}
    return fiverow.make_vec(name, num_envs=num_envs, seed=seed, **overrides)


def play(
    env: Any, games: int, rng_seed: int = 0, start: tuple[Any, Any] | None = None
) -> Iterator[Game]:
    """Random legal games on every board of `env` (next-step autoreset), each
    yielded as it ends, before the env steps again (so the board still shows the
    finished episode). Deterministic for a given env seed and rng_seed. `start`:
    what the env's reset() returned, if the caller reset it (a Writer must be
    made after the first reset: see the seed bug below)."""
    rng = np.random.default_rng(rng_seed)
    obs, info = env.reset() if start is None else start
    n = env.num_envs
    live = [Game(i, int(env.board(i)["episode"])) for i in range(n)]
    waiting = np.zeros(n, dtype=bool)  # ended: the next step resets the board
    done = 0
    while done < games:
        actions = env.sample_legal()
        for i in range(n):
            if waiting[i]:
                continue
            g = live[i]
            mask = info["action_mask"][i].astype(bool)
            assert mask[actions[i]]
            weights = rng.random(env.n_actions) * mask
            g.obs.append(obs[i].copy())
            g.masks.append(mask)
            g.policy.append((weights / weights.sum()).astype(np.float32))
            g.seats.append(int(info["to_play"][i]))
            g.colours.append(int(env.board(i)["colour"]))
            g.actions.append(int(actions[i]))
        obs, _, terminated, truncated, info = env.step(actions)
        for i in range(n):
            if waiting[i]:  # this step reset the board
                waiting[i] = False
                live[i] = Game(i, int(env.board(i)["episode"]))
                continue
            g = live[i]
            g.rewards.append(info["rewards"][i].copy())
            if terminated[i] or truncated[i]:
                board = env.board(i)
                g.final_obs = obs[i].copy()
                g.final_cells = board["cells"].copy()
                g.winner = int(info["winner"][i])
                g.truncated = bool(truncated[i])
                g.black_seat = int(board["black_seat"])
                waiting[i] = True
                yield g
                done += 1
                if done == games:
                    return


def add(w: data.Writer, g: Game, *, default_episode: bool = False, **extra: Any) -> None:
    """Add game g; with default_episode, leave `episode` to the writer (right only
    while the board still shows the finished episode)."""
    keys = {} if default_episode else {"episode": g.episode}
    if w.record_obs:
        extra.setdefault("obs", np.stack(g.obs))
    if w.record_policy:
        extra.setdefault("policy", np.stack(g.policy))
    w.add(
        g.board,
        g.actions,
        g.seats,
        g.colours,
        g.winner,
        truncated=g.truncated,
        black_seat=g.black_seat,
        **keys,
        **extra,
    )


def check_dataset(
    path: Path,
    games: list[Game],
    *,
    variant: str = "freestyle",
    seed: int = SEED,
    obs: bool = False,
    policy: bool = False,
    players: tuple[str, str] = PLAYERS,
) -> None:
    """The file at path holds exactly `games`, in order, and replays them."""
    assert path.exists()
    assert not Path(f"{path}.parts").exists(), "close() leaves one packed file"
    with data.open(path) as ds:
        assert ds.layout == "packed"
        assert ds.variants == [variant]
        assert ds.players == list(players)
        assert ds.run["player_names"] == list(players)
        assert len(ds) == len(games)
        vd = ds[variant]
        assert len(vd) == len(games)
        assert vd.steps == sum(g.length for g in games)
        assert vd.has_obs == obs and vd.has_policy == policy
        e = vd.episodes
        lengths = np.array([g.length for g in games])
        np.testing.assert_array_equal(e["length"], lengths)
        offsets = np.cumsum(lengths) - lengths
        np.testing.assert_array_equal(e["offset"], offsets)
        np.testing.assert_array_equal(e["game"], np.arange(len(games)))
        np.testing.assert_array_equal(e["board"], [g.board for g in games])
        np.testing.assert_array_equal(e["episode"], [g.episode for g in games])
        np.testing.assert_array_equal(e["seed"], np.full(len(games), seed))
        summary = vd.outcomes()
        assert summary["seat0_wins"] == sum(g.winner == 0 for g in games)
        assert summary["seat1_wins"] == sum(g.winner == 1 for g in games)
        for i, g in enumerate(games):
            ep = vd.episode(i)
            a = g.arrays()
            np.testing.assert_array_equal(ep.actions, a["actions"])
            np.testing.assert_array_equal(ep.seats, a["seats"])
            np.testing.assert_array_equal(ep.colours, a["colours"])
            assert ep.winner == g.winner
            assert ep.truncated == g.truncated
            assert ep.players == (0, 1)
            assert ep.black_seat == g.black_seat
            assert ep.opening == -1 and ep.scores == (0, 0)
            if policy:
                assert ep.policy is not None and ep.policy.dtype == np.float16
                assert ep.policy.shape == a["policy"].shape
                np.testing.assert_allclose(
                    ep.policy.astype(np.float32), a["policy"], rtol=1e-3, atol=1e-6
                )
            else:
                assert ep.policy is None
            if obs:
                assert ep.obs is not None and ep.obs.dtype == np.uint8
                np.testing.assert_array_equal(ep.obs, a["obs"])
            else:
                assert ep.obs is None
            # the replay rebuilds what the live env showed
            r = vd.replay(i)
            np.testing.assert_array_equal(r.obs, a["obs"])
            np.testing.assert_array_equal(r.masks, np.stack(g.masks))
            np.testing.assert_array_equal(r.final_obs, g.final_obs)
            np.testing.assert_array_equal(r.rewards, np.stack(g.rewards))
            if policy:
                assert r.policy is not None
                np.testing.assert_allclose(r.policy, a["policy"], rtol=1e-3, atol=1e-6)


def stones(obs: np.ndarray, planes: tuple[str, ...]) -> np.ndarray:
    """Cell codes (0 empty, 1 black, 2 white) from an absolute observation."""
    return obs[planes.index("black")] * 1 + obs[planes.index("white")] * 2


def run_isolated(code: str, timeout: float = WRITER_TIMEOUT) -> str:
    """Run code in a fresh interpreter (with this module importable); a hang
    (a deadlocked flush) fails the test instead of hanging the suite."""
    script = f"import sys\nsys.path.insert(0, {str(HERE)!r})\n" + textwrap.dedent(code)
    try:
        proc = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the writer did not finish in {timeout} s (deadlock?)")
    assert proc.returncode == 0, f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return proc.stdout


# ---- round trips ----


def test_round_trip_against_the_live_env(tmp_path):
    env = make_env()
    games = list(play(env, 10))
    assert len({g.board for g in games}) == 4
    assert any(g.episode > 0 for g in games)  # boards played several episodes
    path = tmp_path / "games.h5"
    w = data.Writer(path, env, policy=True, players=PLAYERS)
    for g in games:
        add(w, g)
    w.close()
    check_dataset(path, games, policy=True)
    with data.open(path) as ds:
        vd = ds["freestyle"]
        planes = env.planes
        for i, g in enumerate(games):
            assert g.winner in (0, 1)  # random 9x9 games end with five in a row
            final = vd.replay(i).final_obs
            np.testing.assert_array_equal(stones(final, planes), g.final_cells)


def test_default_episode_numbers_while_playing(tmp_path):
    """Games added as they end, leaving `episode` to the writer: the board's
    episode number is the one that just ended, not the next one."""
    env = make_env()
    start = env.reset()
    path = tmp_path / "live.h5"
    games = []
    with data.Writer(path, env, players=PLAYERS) as w:
        for g in play(env, 10, start=start):
            add(w, g, default_episode=True)
            games.append(g)
    assert any(g.episode > 0 for g in games)
    check_dataset(path, games)


def test_round_trip_with_random_rules(tmp_path):
    """MODLINSEQ draws its tiles from the board's keys: the replay is right only
    if seed, board and episode are the ones the game was played with."""
    env = make_env("modlinseq", num_envs=2)
    start = env.reset()
    path = tmp_path / "modlinseq.h5"
    games = []
    with data.Writer(path, env, players=PLAYERS) as w:
        for g in play(env, 4, start=start):
            add(w, g, default_episode=True)
            games.append(g)
    assert any(g.episode > 0 for g in games)
    check_dataset(path, games, variant="modlinseq")


# The seed column is the seed of the reset that keyed the boards, not the
# batch's seed when the writer was made (MODLINSEQ's tiles come from the keys).
@pytest.mark.parametrize("when", ["before_first_reset", "before_reseed"])
def test_writer_records_the_seed_the_games_were_played_with(tmp_path, when):
    env = make_env("modlinseq", num_envs=1, seed=5)
    path = tmp_path / "seed.h5"
    if when == "before_first_reset":
        w = data.Writer(path, env, players=PLAYERS)
        seed = 5
    else:
        env.reset()
        w = data.Writer(path, env, players=PLAYERS)
        env.reset(seed=11)
        seed = 11
    # play() resets without a seed: the first reset uses 5; a later one keeps 11
    g = next(play(env, 1))
    add(w, g)
    w.close()
    check_dataset(path, [g], variant="modlinseq", seed=seed)


def test_observations_round_trip_exactly(tmp_path):
    env = make_env()
    games = list(play(env, 6, rng_seed=3))
    path = tmp_path / "obs.h5"
    with data.Writer(path, env, obs=True, players=PLAYERS) as w:
        for g in games:
            add(w, g)
    check_dataset(path, games, obs=True)
    with data.open(path) as ds:
        vd = ds["freestyle"]
        assert vd.obs_shape == env.single_observation_space.shape
        for i, g in enumerate(games):
            stored = vd.episode(i).obs
            assert stored.shape == (g.length, *env.single_observation_space.shape)
            np.testing.assert_array_equal(stored, np.stack(g.obs))


def test_observations_are_stored_as_given(tmp_path):
    """The writer stores the observations it is given byte for byte (not rebuilt)."""
    env = make_env()
    g = next(play(env, 1))
    marked = np.stack(g.obs)
    marked[:, :, 0, 0] = np.arange(marked.shape[0])[:, None] % 2
    path = tmp_path / "marked.h5"
    with data.Writer(path, env, obs=True, players=PLAYERS) as w:
        add(w, g, obs=marked)
    with data.open(path) as ds:
        np.testing.assert_array_equal(ds["freestyle"].episode(0).obs, marked)


def test_obs_and_policy_together(tmp_path):
    env = make_env()
    games = list(play(env, 5, rng_seed=4))
    path = tmp_path / "both.h5"
    with data.Writer(path, env, obs=True, policy=True, players=PLAYERS) as w:
        for g in games:
            add(w, g)
    check_dataset(path, games, obs=True, policy=True)


def test_policy_extremes_survive_float16(tmp_path):
    """One-hot rows, zeros and small probabilities come back as float16 of the input."""
    env = make_env()
    g = next(play(env, 1))
    p = np.zeros((g.length, env.n_actions), dtype=np.float32)
    p[np.arange(g.length), g.actions] = 1.0
    p[:, 0] += 1e-4
    path = tmp_path / "extremes.h5"
    with data.Writer(path, env, policy=True, players=PLAYERS) as w:
        add(w, g, policy=p)
    with data.open(path) as ds:
        stored = ds["freestyle"].episode(0).policy
    np.testing.assert_array_equal(stored, p.astype(np.float16))


# ---- flush ----


def test_flush_between_adds_keeps_every_episode_in_order(tmp_path):
    """flush() right after construction, with nothing added, after the first
    add (the flush that deadlocked), several times in a row, then close() with
    episodes still unflushed: every episode is in the file, in order."""
    path = tmp_path / "flushed.h5"
    out = run_isolated(
        f"""
        from fiverow import data
        from test_writer import PLAYERS, add, make_env, play

        env = make_env()
        start = env.reset()
        w = data.Writer({str(path)!r}, env, policy=True, players=PLAYERS)
        w.flush()
        w.flush()
        for k, g in enumerate(play(env, 9, start=start)):
            add(w, g)
            if k in (0, 1, 4, 7):
                w.flush()
            if k == 4:
                w.flush()  # nothing new
        w.close()
        print("closed")
        """
    )
    assert "closed" in out
    games = list(play(make_env(), 9))  # the same seed plays the same games
    check_dataset(path, games, policy=True)


def test_flush_every_episode(tmp_path):
    path = tmp_path / "each.h5"
    run_isolated(
        f"""
        from fiverow import data
        from test_writer import PLAYERS, add, make_env, play

        env = make_env()
        start = env.reset()
        w = data.Writer({str(path)!r}, env, obs=True, players=PLAYERS, flush_seconds=0.01)
        for g in play(env, 7, rng_seed=1, start=start):
            add(w, g)
            w.flush()
        w.close()
        """
    )
    check_dataset(path, list(play(make_env(), 7, rng_seed=1)), obs=True)


def test_flush_with_nothing_added_writes_an_empty_dataset(tmp_path):
    path = tmp_path / "empty.h5"
    run_isolated(
        f"""
        from fiverow import data
        from test_writer import PLAYERS, make_env

        env = make_env()
        env.reset()
        w = data.Writer({str(path)!r}, env, players=PLAYERS)
        w.flush()
        w.flush()
        w.close()
        """
    )
    check_dataset(path, [])


# ---- the context manager and closing ----


def test_context_manager_closes_and_leaves_a_readable_file(tmp_path):
    env = make_env()
    games = list(play(env, 3))
    path = tmp_path / "ctx.h5"
    with data.Writer(path, env, players=PLAYERS) as w:
        for g in games:
            add(w, g)
        assert Path(f"{path}.parts").exists()  # still writing
    check_dataset(path, games)
    with pytest.raises(RuntimeError, match="closed"):
        add(w, games[0])


def test_context_manager_closes_on_an_exception(tmp_path):
    env = make_env()
    games = list(play(env, 2))
    path = tmp_path / "raised.h5"
    with pytest.raises(KeyError, match="stop"):
        with data.Writer(path, env, players=PLAYERS) as w:
            for g in games:
                add(w, g)
            raise KeyError("stop")
    check_dataset(path, games)


def test_add_and_flush_after_close_raise_and_change_nothing(tmp_path):
    env = make_env()
    games = list(play(env, 2))
    path = tmp_path / "closed.h5"
    w = data.Writer(path, env, players=PLAYERS)
    add(w, games[0])
    w.close()
    before = path.read_bytes()
    with pytest.raises(RuntimeError, match="closed"):
        add(w, games[1])
    with pytest.raises(RuntimeError, match="closed"):
        w.flush()
    w.close()  # a second close is harmless
    assert path.read_bytes() == before
    check_dataset(path, games[:1])


# ---- bad input ----


@pytest.fixture(scope="module")
def two_games() -> tuple[Game, Game]:
    env = make_env()
    a, b = list(play(env, 2, rng_seed=5))
    return a, b


N_ACTIONS = SIZE * SIZE


def bad_cases(g: Game) -> dict[str, tuple[dict[str, Any], dict[str, Any], type, str]]:
    """name: (writer options, add() arguments to change, exception, message)."""
    policy = np.stack(g.policy)
    obs = np.stack(g.obs)
    same_length = "same length"
    return {
        "actions_longer": ({}, {"actions": [*g.actions, 0]}, ValueError, same_length),
        "seats_shorter": ({}, {"seats": g.seats[:-1]}, ValueError, same_length),
        "colours_longer": ({}, {"colours": [*g.colours, 0]}, ValueError, same_length),
        "empty_episode": (
            {},
            {"actions": [], "seats": [], "colours": []},
            ValueError,
            "between 1 and max_steps",
        ),
        "longer_than_max_steps": (
            {},
            {
                "actions": np.zeros(N_ACTIONS + 1, dtype=np.int16),
                "seats": np.arange(N_ACTIONS + 1) % 2,
                "colours": np.arange(N_ACTIONS + 1) % 2,
            },
            ValueError,
            "max_steps",
        ),
        "policy_extra_column": (
            {"policy": True},
            {"policy": np.pad(policy, ((0, 0), (0, 1)))},
            ValueError,
            "policy",
        ),
        "policy_missing_row": ({"policy": True}, {"policy": policy[:-1]}, ValueError, "policy"),
        "policy_not_recorded": ({}, {"policy": policy}, ValueError, "exactly when"),
        "policy_missing": ({"policy": True}, {"policy": None}, ValueError, "exactly when"),
        "obs_extra_plane": (
            {"obs": True},
            {"obs": np.concatenate([obs, obs[:, :1]], axis=1)},
            ValueError,
            "obs",
        ),
        "obs_missing_row": ({"obs": True}, {"obs": obs[:-1]}, ValueError, "obs"),
        "obs_not_recorded": ({}, {"obs": obs}, ValueError, "exactly when"),
        "obs_missing": ({"obs": True}, {"obs": None}, ValueError, "exactly when"),
        "no_such_board": ({}, {"board": 4}, ValueError, "no such group or board"),
        "negative_board": ({}, {"board": -1}, ValueError, "no such group or board"),
        "no_such_group": ({}, {"group": "caro"}, KeyError, "no group 'caro'"),
    }


BAD = [
    "actions_longer",
    "seats_shorter",
    "colours_longer",
    "empty_episode",
    "longer_than_max_steps",
    "policy_extra_column",
    "policy_missing_row",
    "policy_not_recorded",
    "policy_missing",
    "obs_extra_plane",
    "obs_missing_row",
    "obs_not_recorded",
    "obs_missing",
    "no_such_board",
    "negative_board",
    "no_such_group",
]


def add_call(w: data.Writer, g: Game, change: dict[str, Any]) -> None:
    args: dict[str, Any] = {
        "board": g.board,
        "actions": g.actions,
        "seats": g.seats,
        "colours": g.colours,
        "winner": g.winner,
        "episode": g.episode,
        "black_seat": g.black_seat,
    }
    if w.record_obs:
        args["obs"] = np.stack(g.obs)
    if w.record_policy:
        args["policy"] = np.stack(g.policy)
    args.update(change)
    args = {k: v for k, v in args.items() if v is not None}
    w.add(**args)


def check_refused(tmp_path, games, options, change, error, words):
    """The bad add raises, the writer goes on, and the file holds only the good games."""
    first, second = games
    env = make_env()
    env.reset()
    path = tmp_path / "bad.h5"
    with data.Writer(path, env, players=PLAYERS, **options) as w:
        add(w, first)
        with pytest.raises(error, match=words):
            add_call(w, second, change)
        add(w, second)
    check_dataset(
        path, [first, second], obs=options.get("obs", False), policy=options.get("policy", False)
    )


@pytest.mark.parametrize("case", BAD)
def test_bad_add_is_refused_and_writes_nothing(tmp_path, two_games, case):
    cases = bad_cases(two_games[1])
    assert sorted(cases) == sorted(BAD)
    options, change, error, words = cases[case]
    check_refused(tmp_path, two_games, options, change, error, words)


# Arrays of the right size but the wrong shape are refused, not written scrambled.
@pytest.mark.parametrize("case", ["policy_transposed", "policy_flat", "obs_channels_last"])
def test_misshapen_arrays_of_the_right_size_are_refused(tmp_path, two_games, case):
    g = two_games[1]
    policy, obs = np.stack(g.policy), np.stack(g.obs)
    options, change = {
        "policy_transposed": ({"policy": True}, {"policy": np.ascontiguousarray(policy.T)}),
        "policy_flat": ({"policy": True}, {"policy": policy.ravel()}),
        "obs_channels_last": (
            {"obs": True},
            {"obs": np.ascontiguousarray(obs.transpose(0, 2, 3, 1))},
        ),
    }[case]
    check_refused(tmp_path, two_games, options, change, ValueError, None)


# Values outside the format (docs/hdf5.md) are refused: replay() could not use them.
@pytest.mark.parametrize(
    "case",
    ["seat_2", "colour_5", "winner_3", "action_out_of_range", "opening_99", "opening_-2"],
)
def test_values_outside_the_format_are_refused(tmp_path, two_games, case):
    g = two_games[1]
    change = {
        "seat_2": {"seats": [2] * g.length},
        "colour_5": {"colours": [5] * g.length},
        "winner_3": {"winner": 3},
        "action_out_of_range": {"actions": [*g.actions[:-1], N_ACTIONS]},
        "opening_99": {"opening": 99},
        "opening_-2": {"opening": -2},
    }[case]
    check_refused(tmp_path, two_games, {}, change, ValueError, None)


def test_existing_path_is_refused_and_left_alone(tmp_path, two_games):
    env = make_env()
    env.reset()
    path = tmp_path / "taken.h5"
    path.write_bytes(b"precious")
    with pytest.raises(OSError, match="exists") as e:
        data.Writer(path, env)
    assert "overwrite" in str(e.value) and str(path) in str(e.value)
    assert path.read_bytes() == b"precious"
    assert not Path(f"{path}.parts").exists()
    with data.Writer(path, env, overwrite=True, players=PLAYERS) as w:
        add(w, two_games[0])
    check_dataset(path, [two_games[0]])


def test_existing_dataset_is_refused_and_left_alone(tmp_path, two_games):
    env = make_env()
    env.reset()
    path = tmp_path / "dataset.h5"
    with data.Writer(path, env, players=PLAYERS) as w:
        add(w, two_games[0])
    before = path.read_bytes()
    with pytest.raises(OSError, match="exists"):
        data.Writer(path, env, players=PLAYERS)
    assert path.read_bytes() == before
    check_dataset(path, [two_games[0]])


def test_missing_directory_is_refused(tmp_path):
    env = make_env()
    env.reset()
    path = tmp_path / "nowhere" / "x.h5"
    with pytest.raises(OSError, match="nowhere"):
        data.Writer(path, env)
    assert not (tmp_path / "nowhere").exists()


def test_path_under_a_regular_file_is_refused(tmp_path):
    env = make_env()
    env.reset()
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(OSError, match="file"):
        data.Writer(blocker / "x.h5", env)
    assert blocker.read_text() == "not a directory"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_read_only_directory_is_refused(tmp_path):
    env = make_env()
    env.reset()
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        with pytest.raises(OSError, match="locked"):
            data.Writer(locked / "x.h5", env)
        assert list(locked.iterdir()) == []
    finally:
        locked.chmod(0o755)


def test_a_writer_of_many_players(tmp_path, two_games):
    """Each game says who sat in each seat: a file of a tournament's games."""
    first, second = two_games
    env = make_env()
    env.reset()
    path = tmp_path / "many.h5"
    with data.Writer(path, env, players=["ann", "ben", "cy"]) as w:
        add(w, first, players=(2, 0))
        add(w, second, players=(1, 1))
        for bad in ((0, 3), (-1, 0), (0,), (True, 0)):
            with pytest.raises(ValueError, match="two indices into the writer's 3 players"):
                add(w, second, players=bad)
    with data.open(path) as ds:
        assert ds.players == ["ann", "ben", "cy"]
        for i, g in enumerate((first, second)):
            np.testing.assert_array_equal(ds["freestyle"].episode(i).actions, g.actions)
        assert [ds["freestyle"].episode(i).players for i in (0, 1)] == [(2, 0), (1, 1)]
    with pytest.raises(ValueError, match="players must name 1..128 players"):
        data.Writer(tmp_path / "none.h5", env, players=[])
