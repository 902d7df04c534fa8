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


@pytest.mark.serial  # a time limit: a loaded machine moves where it falls
def test_match_time_runs_out():
    with scripted("slow", 2, timeout_turn=5000, timeout_match=1000, tolerance=100) as brain:
        result = play_one(small_env(), {0: brain, 1: fiverow.players.make("random")})
        assert result["forfeit"].startswith("timeout: no answer to the move request within"), result


@pytest.mark.serial  # a race with the brain's timing, decided on an unloaded machine
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


# ---- dialects and faults between commands (issue 27) ----


def brain_log(tmp_path, monkeypatch):
    """Every line the scripted brains read: (pid, line) pairs."""
    log = tmp_path / "brain.log"
    monkeypatch.setenv("FIVEROW_BRAIN_LOG", str(log))

    def lines():
        text = log.read_text() if log.exists() else ""
        return [tuple(row.split(" ", 1)) if " " in row else (row, "") for row in text.splitlines()]

    return lines


def swap2_blocks(lines):
    """The stones of every SWAP2BOARD block sent, in order."""
    blocks, current = [], None
    for _, line in lines:
        if line == "SWAP2BOARD":
            current = []
        elif line == "DONE" and current is not None:
            blocks.append(current)
            current = None
        elif current is not None:
            current.append(line)
    return blocks


@pytest.mark.parametrize("mode,form", [("rapfi", "x,y,field"), ("gomocup2020", "x,y")])
def test_swap2_with_either_form_of_the_stones(tmp_path, monkeypatch, mode, form):
    """Rapfi reads SWAP2BOARD stones as x,y,field and answers ERROR to each
    x,y one (then opens anew); a 2020 brain refuses x,y,field. Either plays
    every Swap2 game: a refused block is sent again in the other form, the
    brain's other lines about it are dropped (not read as the answer to the
    next command), and the form that worked is kept for the brain."""
    lines = brain_log(tmp_path, monkeypatch)
    brain = scripted(mode)
    try:
        result = fiverow.Match(
            "freestyle-swap2", brain, "random", games=4, boards=1, seed=1, params={"size": 15}
        ).play()
    finally:
        brain.close()
    assert result.forfeits == [] and result.total().games == 4
    assert brain.swap2_form == form and brain.faults == []
    with_stones = [b for b in swap2_blocks(lines()) if b]
    assert with_stones, "the brain never had to read stones"
    wrong = [b for b in with_stones if (b[0].count(",") == 2) != (form == "x,y,field")]
    assert len(wrong) == (1 if mode == "rapfi" else 0)  # tried once in the other form, then kept
    if mode == "rapfi":  # the first block with stones went as x,y, the next ones with fields
        assert with_stones[0][0].count(",") == 1 and with_stones[1][0].count(",") == 2
        # fields: 1 for the brain's colour (the colour to move: white, after 3 stones)
        assert [s.rsplit(",", 1)[1] for s in with_stones[1][:3]] == ["2", "1", "2"]


def test_unrequested_lines_are_not_read_as_answers():
    """A brain that sends an extra ERROR line after its moves: the line is
    dropped before the next command, not taken for its answer."""
    with scripted("extra-error") as brain:
        result = play_one(small_env(), {0: brain, 1: fiverow.players.make("random")})
        assert result["forfeit"] is None and len(result["moves"]) >= 9, result
        unrequested = brain._slots[0].brain.unrequested
        assert "ERROR an unrequested line" in unrequested


def test_a_brain_that_refuses_restart_gets_start(tmp_path, monkeypatch):
    lines = brain_log(tmp_path, monkeypatch)
    brain = scripted("no-restart", processes=1)
    try:
        result = fiverow.Match(
            "freestyle", brain, "random", games=3, boards=1, params={"size": 9}
        ).play()
    finally:
        brain.close()
    assert result.forfeits == [] and result.total().games == 3
    assert brain.restarts is False
    sent = [line for _, line in lines()]
    assert sent.count("RESTART") == 1  # asked once, refused, then START for each new game
    assert sent.count("START 9") == 3


def test_a_brain_killed_between_moves_loses_that_game():
    """One behaviour: the game in which a move is asked of a dead brain is
    lost as a crash; the next game gets a new process."""
    with scripted("die", 2) as brain:
        env = small_env()
        result = play_one(env, {0: brain, 1: fiverow.players.make("random")})
        assert result["forfeit"].startswith("crash: crashed (killed by signal 9)"), result
        assert result["winner"] == 1 and len(result["moves"]) == 4  # its 2nd answer, then dead
        env.reset()
        actions = brain.act(env, np.array([True]))
        assert brain.take_forfeits() == {} and env.action_masks()[0][actions[0]]


def test_a_brain_that_never_answers_about_is_asked_once(tmp_path, monkeypatch):
    lines = brain_log(tmp_path, monkeypatch)
    brain = scripted("no-about", processes=1, startup=1.0)
    try:
        result = fiverow.Match(
            "freestyle", brain, "random", games=3, boards=1, params={"size": 9}
        ).play()
    finally:
        brain.close()
    assert result.forfeits == [] and result.total().games == 3
    assert [line for _, line in lines()].count("ABOUT") == 1
    assert brain.about == {"error": "no answer to ABOUT in 1 s"}


@pytest.mark.parametrize(
    "brain,variant,params,words",
    [
        ("gomocup:/nonexistent/pbrain-x", "freestyle", {}, "cannot start: [Errno 2]"),
        ("bad-size", "freestyle", {}, "cannot play freestyle on 9x9: START 9 answered 'ERROR"),
        (
            "rapfi",
            "caro",
            {"caro_ends": "gomocup"},
            "cannot play caro (INFO rule 9): it answered 'ERROR Unknown rule id: 9",
        ),
        ("good", "hex", {"size": None}, "cannot play hex: Gomocup brains play on square boards"),
    ],
)
def test_an_engine_that_cannot_play_is_reported_before_the_first_move(
    tmp_path, monkeypatch, capsys, brain, variant, params, words
):
    from fiverow.engines import EngineError

    lines = brain_log(tmp_path, monkeypatch)
    spec = brain if brain.startswith("gomocup:") else f"gomocup:{sys.executable} {BRAIN} {brain}"
    overrides = {"size": 9, **params}
    overrides = {k: v for k, v in overrides.items() if v is not None}
    engine = fiverow.players.make(spec)
    try:
        with pytest.raises(EngineError) as e:
            engine.check_env(fiverow.make_vec(variant, 1, **overrides))
    finally:
        engine.close()
    assert str(e.value).startswith(f"the engine {spec} ") and words in str(e.value)
    argv = ["--variant", variant, *(f"--param={k}={v}" for k, v in overrides.items())]
    # generate: before any file, whichever seat the engine is in, the other never asked
    for seat in ("--black", "--white"):
        out = tmp_path / "e.h5"
        other = "--white" if seat == "--black" else "--black"
        good = f"gomocup:{sys.executable} {BRAIN}"
        code = cli_main(
            ["generate", *argv, seat, spec, other, good, "--games", "2", "--out", str(out)]
        )
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and words in err, err
        assert not out.exists()
        assert not [line for _, line in lines() if line in ("BEGIN", "TURN") or "," in line]
    # play: before the person's first move, not "you win"
    code = cli_main(["play", *argv, "--opponent", spec])
    out, err = capsys.readouterr()
    assert code == 2 and words in err and "your move" not in out and "you win" not in out
    # balance and Match too
    assert cli_main(["balance", "--variants", variant, "--players", spec, "--games", "2",
                     *argv]) == 2  # fmt: skip
    assert words in capsys.readouterr().err


def test_a_game_forfeited_before_any_move_is_listed_not_written(tmp_path, capsys):
    """An engine whose first move of every game is garbage: no episode has
    steps to write; each game is in the file's forfeits, the file opens."""
    out = tmp_path / "g.h5"
    black = f"gomocup:{sys.executable} {BRAIN} garbage 1"
    argv = ["generate", "--param", "size=9", "--black", black, "--white", "random"]
    assert cli_main([*argv, "--games", "3", "--out", str(out), "--quiet"]) == 0
    assert "wrote 0 games" in capsys.readouterr().out
    with fiverow.data.open(out) as ds:
        assert len(ds) == 0
        assert [f["moves"] for f in ds.forfeit_records] == [0, 0, 0]
        assert all(f["reason"].startswith("garbage") for f in ds.forfeit_records)


def test_stones_a_brain_placed_in_the_swap2_opening_keep_their_order(tmp_path, monkeypatch):
    """The stones a brain decided ahead (its three opening stones, the 4th
    with which it takes white) are placed by fiverow one move at a time; the
    BOARD that later tells the brain the position lists every stone in the
    order played, colours alternating (Rapfi read a black stone listed before
    its own white one as two black moves in a row, and lost track)."""
    lines = brain_log(tmp_path, monkeypatch)
    brain = scripted("swap2-white")
    try:
        result = fiverow.Match(
            "freestyle-swap2", brain, "random", games=4, boards=1, seed=2, params={"size": 15}
        ).play()
    finally:
        brain.close()
    assert result.forfeits == []
    boards, current = [], None
    for _, line in lines():
        if line == "BOARD":
            current = []
        elif line == "DONE" and current is not None:
            boards.append([int(stone.rsplit(",", 1)[1]) for stone in current])
            current = None
        elif current is not None:
            current.append(line)
    assert any(len(fields) >= 5 for fields in boards), boards
    for fields in boards:
        assert all(a != b for a, b in zip(fields, fields[1:], strict=False)), fields
