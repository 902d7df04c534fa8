"""External Gomocup brains as players: scripted brains (tests/brains/scripted.py)
for each fault, the pool of processes, clean-up on every way out, and a
round trip through ``fiverow engine`` that plays exactly the in-process games."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import fiverow
from fiverow.cli import main as cli_main
from fiverow.engines import Gomocup, PositionPlayer, gomocup_config, rule_bits

BRAIN = Path(__file__).parent / "brains" / "scripted.py"
ENGINE = [sys.executable, "-m", "fiverow", "engine"]


def scripted(mode="good", n=1, **kwargs):
    kwargs.setdefault("timeout_turn", 2000)
    return Gomocup([sys.executable, str(BRAIN), mode, str(n)], **kwargs)


def play_one(env, by_seat, board=0, plies=None):
    """Play board ``board``'s game to its end (or ``plies`` moves): {"winner",
    "forfeit", "moves"}."""
    moves = []
    for _ in range(plies or 500):
        b = env.board(board)
        if b["status"] != 0:
            return {"winner": int(b["winner"]), "forfeit": None, "moves": moves}
        seat = int(b["seat"])
        player = by_seat[seat]
        acting = np.zeros(env.num_envs, dtype=bool)
        acting[board] = True
        actions = np.asarray(
            player.act(env, acting) if isinstance(player, Gomocup) else player.act(env)
        )
        if isinstance(player, Gomocup):
            forfeits = player.take_forfeits()
            if forfeits:
                return {"winner": 1 - seat, "forfeit": forfeits[board], "moves": moves}
        moves.append(int(actions[board]))
        step = np.zeros(env.num_envs, dtype=np.int64)
        step[board] = actions[board]
        env.step(step)
    assert plies, "the game did not end"
    return {"winner": -1, "forfeit": None, "moves": moves}


def small_env(name="freestyle", boards=1, **overrides):
    overrides.setdefault("size", 9)
    env = fiverow.make_vec(name, boards, seed=0, autoreset_mode="disabled", **overrides)
    env.reset()
    return env


def test_a_good_brain_plays_a_whole_game():
    with scripted("good") as brain:
        result = play_one(small_env(), {0: brain, 1: fiverow.players.make("random")})
        assert result["forfeit"] is None and result["winner"] in (-1, 0, 1)
        assert brain.about == {"name": "scripted", "version": "1", "mode": "good"}
        assert brain.faults == []


@pytest.mark.parametrize(
    "mode,expected",
    [
        ("crash", "crash: crashed (exit code 3): scripted brain: crashing on purpose"),
        ("hang", "timeout: no answer to the move request within 400 ms"),
        ("garbage", "garbage: not a move: 'I think therefore I am'"),
        ("illegal", "illegal: illegal move "),
        ("error", "refused: answered 'ERROR I would rather not'"),
    ],
)
def test_each_fault_loses_the_game_with_its_reason(mode, expected):
    with scripted(mode, 2, timeout_turn=200, tolerance=200) as brain:
        env = small_env()
        result = play_one(env, {0: brain, 1: fiverow.players.make("random")})
        assert result["forfeit"].startswith(expected), result
        assert result["winner"] == 1 and len(result["moves"]) == 2  # one move each, then the fault
        assert brain.faults == [(0, 0, result["forfeit"])]
        if mode == "illegal":
            assert result["forfeit"].endswith(": occupied")
        # the next game: a crashed or hung brain is replaced by a new process (whose
        # first move is good); any other is told RESTART, and misbehaves again
        env.reset()
        actions = brain.act(env, np.array([True]))
        forfeits = brain.take_forfeits()
        if mode in ("crash", "hang"):
            assert forfeits == {} and env.action_masks()[0][actions[0]]
        else:
            assert forfeits[0].split(":")[0] == result["forfeit"].split(":")[0]


def test_match_time_runs_out():
    with scripted("slow", 2, timeout_turn=5000, timeout_match=1000, tolerance=100) as brain:
        result = play_one(small_env(), {0: brain, 1: fiverow.players.make("random")})
        assert result["forfeit"].startswith("timeout: no answer to the move request within"), result


def test_commands_are_not_sent_while_a_brain_finishes_its_answer():
    """The Rapfi trap: a brain that drops what arrives just after its answer
    loses every game to a manager that answers at once, and none to the default
    pause."""
    env = small_env()
    with scripted("drop", timeout_turn=300, tolerance=200, settle=0.0, startup=1.0) as brain:
        result = play_one(env, {0: brain, 1: fiverow.players.make("random")})
        assert result["forfeit"] and result["forfeit"].startswith("timeout"), result
    env.reset()
    with scripted("drop", settle=0.3) as brain:
        result = play_one(env, {0: brain, 1: fiverow.players.make("random")}, plies=12)
        assert result["forfeit"] is None and len(result["moves"]) == 12, result


def test_a_pool_of_processes_serves_many_boards(tmp_path, monkeypatch):
    pids = tmp_path / "pids"
    monkeypatch.setenv("FIVEROW_BRAIN_PIDS", str(pids))
    env = small_env(boards=5)
    with scripted("good", processes=2) as brain:
        for _ in range(4):
            actions = brain.act(env)
            assert brain.take_forfeits() == {}
            env.step(actions)
        assert len(set(pids.read_text().split())) == 2
    for pid in pids.read_text().split():
        assert not Path(f"/proc/{pid}").exists()  # closed: ended and reaped
    # two boards at once on one brain: each move goes with RESTART and BOARD
    cells = [env.board(i)["cells"] for i in range(5)]
    assert all((c == 1).sum() == 2 and (c == 2).sum() == 2 for c in cells)


def test_swap2_opening_with_a_brain():
    env = small_env("freestyle-swap2", size=15)
    with scripted("good") as brain:
        result = play_one(env, {0: brain, 1: brain})
        assert result["forfeit"] is None
        n = 225
        assert result["moves"][:4] == [
            result["moves"][0],
            result["moves"][1],
            result["moves"][2],
            n,
        ]
        # three stones, then SWAP (the scripted brain always swaps): TAKE_BLACK


def test_bad_arguments():
    with pytest.raises(ValueError, match="command"):
        Gomocup("")
    with pytest.raises(ValueError, match="timeout_turn"):
        Gomocup("x", timeout_turn=-1)
    with pytest.raises(ValueError, match="INFO rule"):
        Gomocup("x", rule=12)
    brain = Gomocup([sys.executable, str(BRAIN)], rule=4)
    with pytest.raises(ValueError, match="disagrees"):
        brain.act(small_env())
    with pytest.raises(ValueError, match="square boards"):
        Gomocup("x").act(fiverow.make_vec("hex", 1))
    with pytest.raises(ValueError, match="openings"):
        Gomocup("x").act(fiverow.make_vec("renju-soosorv8", 1))


def test_ctrl_c_ends_every_brain(tmp_path):
    pids = tmp_path / "pids"
    script = textwrap.dedent(
        f"""
        import sys, numpy as np, fiverow
        from fiverow.engines import Gomocup
        env = fiverow.make_vec("freestyle", 3, seed=0, size=9)
        env.reset()
        brain = Gomocup([sys.executable, {str(BRAIN)!r}, "hang"], timeout_turn=60000, processes=3)
        print("ready", flush=True)
        brain.act(env)
        """
    )
    env = {**os.environ, "FIVEROW_BRAIN_PIDS": str(pids)}
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    started: list[str] = []
    try:
        assert proc.stdout.readline().strip() == "ready"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(started) < 3:
            started = pids.read_text().split() if pids.exists() else []
            time.sleep(0.05)
        assert len(started) == 3
        time.sleep(0.3)  # the brains are thinking (hanging)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        assert "KeyboardInterrupt" in err
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and any(Path(f"/proc/{p}").exists() for p in started):
            time.sleep(0.05)
        assert not [p for p in started if Path(f"/proc/{p}").exists()]
    finally:  # whatever failed above, leave nothing running
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in started:  # only a brain of this test still running
            try:
                if b"scripted.py" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    os.kill(int(pid), signal.SIGKILL)
            except (OSError, ProcessLookupError):
                pass


class Twin:
    """In process, what ``fiverow engine --player P --seed S`` plays: the move
    of P on each position, the board re-seeded before each."""

    def __init__(self, player, seed=0):
        self.positions = PositionPlayer(fiverow.players.make(player), seed)

    def act(self, env):
        actions = np.zeros(env.num_envs, dtype=np.int64)
        for i in range(env.num_envs):
            b = env.board(i)
            if b["status"] == 0:
                h, w = b["cells"].shape
                config = gomocup_config(
                    w, h, rule_bits(env.config["rule"], env.config["caro_ends"])
                )
                actions[i] = self.positions.move(config, b["cells"], int(b["colour"]))
        return actions


ROUND_TRIP_VARIANTS = [
    ("freestyle", {"size": 9}),
    ("standard", {"size": 9}),
    ("renju", {"size": 9}),
    ("caro", {"size": 9, "caro_ends": "gomocup"}),
]


def test_round_trip_through_fiverow_engine():
    """fiverow's own brain driven through Gomocup plays the same games as the
    same players in process, on every Gomocup rule (timing plays no part:
    heuristic players); the same two brain processes go from rule to rule."""
    black, white = "heuristic(epsilon=0.2)", "heuristic"
    engines = {
        0: Gomocup([*ENGINE, "--player", black, "--seed", "5"], timeout_turn=20000),
        1: Gomocup([*ENGINE, "--player", white, "--seed", "7"], timeout_turn=20000),
    }
    twins = {0: Twin(black, 5), 1: Twin(white, 7)}
    try:
        for variant, overrides in ROUND_TRIP_VARIANTS:
            for game in range(1 if variant == "renju" else 2):
                env_a = small_env(variant, **overrides)
                env_b = small_env(variant, **overrides)
                if game == 1:  # a second game from another first stone
                    for env in (env_a, env_b):
                        env.step(np.array([30]))
                via_engines = play_one(env_a, engines)
                in_process = play_one(env_b, twins)
                assert via_engines["forfeit"] is None, variant
                assert via_engines == in_process, variant
                assert len(in_process["moves"]) >= 9
    finally:
        for brain in engines.values():
            brain.close()


def test_specs_read_back():
    from fiverow.engines import from_spec, is_spec

    for text in ("gomocup:./pbrain-x --flag", "gomocup(timeout_turn=1000,settle=0.1):pbrain-y"):
        assert is_spec(text) and from_spec(text).name == text
    brain = from_spec("GOMOCUP( rule = 4 ):z", timeout_match=60000)
    assert (brain.rule, brain.timeout_match, brain.command) == (4, 60000, "z")
    assert brain.name == "gomocup(timeout_match=60000,rule=4):z"
    assert not is_spec("heuristic") and not is_spec(None)
    for bad, message in (
        ("gomocup:", "command is missing"),
        ("gomocup(foo=1):x", "settings are key=value"),
        ("gomocup(timeout_turn=a):x", "must be a whole number"),
        ("gomocup(timeout_turn=1)x", "end with '):'"),
        ("heuristic", "gomocup:COMMAND"),
    ):
        with pytest.raises(ValueError, match=re.escape(message)):
            from_spec(bad)
    with pytest.raises(ValueError, match="disagree"):
        from_spec("gomocup(rule=4):x", rule=1)


def test_matches_with_brains_count_forfeits_as_losses():
    crash = f"gomocup(timeout_turn=2000):{sys.executable} {BRAIN} crash 2"
    brain = fiverow.players.make(crash)
    assert isinstance(brain, Gomocup) and brain.name == crash
    try:
        result = fiverow.Match(
            "freestyle", brain, "random", games=4, boards=2, seed=1, params={"size": 9}
        ).play()
    finally:
        brain.close()
    assert result.total().losses == 4 and result.total().wins == 0
    assert len(result.forfeits) == 4 and sorted(f.game for f in result.forfeits) == [0, 1, 2, 3]
    assert all(f.reason.startswith("crash: crashed (exit code 3)") for f in result.forfeits)
    assert "forfeits: crash" in str(result)
    # a good brain, both seats in turn, on two variants: every game is played out
    good = fiverow.players.make(f"gomocup:{sys.executable} {BRAIN} good")
    try:
        result = fiverow.Match(
            ["freestyle", "standard"], good, "random", games=4, boards=2, params={"size": 9}
        ).play()
    finally:
        good.close()
    assert result.forfeits == [] and result.total().games == 4
    assert set(result.games["seat0_player"]) == {0, 1}


def test_datasets_of_engine_games(tmp_path, monkeypatch):
    """fiverow generate with an engine: the games go through the C writer, the
    engine's name, settings and ABOUT are in the run record, a crash loses its
    game (listed in the file) and the other games replay as played."""
    monkeypatch.setenv("FIVEROW_BRAIN_ONCE", str(tmp_path / "crashed"))
    out = tmp_path / "engine.h5"
    black = f"gomocup(timeout_turn=3000):{sys.executable} {BRAIN} crash-once 3"
    code = cli_main(
        [
            "generate",
            "--variant",
            "freestyle",
            "--param",
            "size=9",
            "--black",
            black,
            "--white",
            "heuristic",
            "--games",
            "4",
            "--boards",
            "2",
            "--seed",
            "3",
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    with fiverow.data.open(out) as ds:
        assert ds.players == [black, "heuristic"]
        spec = ds.run["players"][0]
        assert spec["kind"] == "gomocup" and spec["timeout_turn"] == 3000
        assert spec["about"] == {"name": "scripted", "version": "1", "mode": "crash-once"}
        vd = ds["freestyle"]
        assert len(vd) == 4
        assert list(vd.forfeits.values()) == [
            "crash: crashed (exit code 3): scripted brain: crashing on purpose"
        ]
        (lost,) = vd.forfeits
        assert vd.episode(lost).winner == 1 and vd.episode(lost).length == 4
        for i in range(4):
            if i != lost:
                replay = vd.replay(i)  # the recorded moves end the game as recorded
                assert replay.returns[-1] in (-1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="one variant per run"):
        fiverow.generate.generate(
            tmp_path / "m.h5",
            ["freestyle", "caro"],
            games=2,
            black=f"gomocup:{sys.executable} {BRAIN}",
        )
    with pytest.raises(ValueError, match="policy"):
        fiverow.generate.generate(
            tmp_path / "p.h5",
            "freestyle",
            games=2,
            policy=True,
            black=f"gomocup:{sys.executable} {BRAIN}",
        )


def test_balance_with_an_engine():
    from fiverow import balance

    crash = f"gomocup:{sys.executable} {BRAIN} crash 4"
    report = balance.run(
        ["freestyle", "standard"], [crash, "heuristic"], games=4, swap=True, params={"size": 9}
    )
    assert [r.variant for r in report.results] == ["freestyle", "standard"]
    assert all(r.outcomes.games == 4 for r in report.results)
    # the brain crashes at its process's 4th move: most games are forfeited,
    # in both seats (they swap), each counted as the other seat's win
    forfeits = report.settings["forfeits"]
    assert len(forfeits) >= 4 and {f["seat"] for f in forfeits} == {0, 1}
    assert all(f["reason"].startswith("crash") and f["player"] == crash for f in forfeits)
    for variant in ("freestyle", "standard"):
        lost = [f for f in forfeits if f["variant"] == variant]
        result = next(r for r in report.results if r.variant == variant)
        assert result.outcomes.first_wins >= sum(f["seat"] == 1 for f in lost)
        assert result.outcomes.second_wins >= sum(f["seat"] == 0 for f in lost)
    good = f"gomocup:{sys.executable} {BRAIN}"
    report = balance.run(
        "freestyle", [good], games=4, params={"size": 9}, stop=balance.StopRule("width", width=0.9)
    )
    assert report.settings["forfeits"] == [] and report.results[0].outcomes.games == 4
