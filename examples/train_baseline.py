"""Train one of the baseline networks fiverow ships (``players.make("net:NAME")``).

    python examples/train_baseline.py freestyle --install        # net:freestyle
    python examples/train_baseline.py renju --install            # net:renju
    python examples/train_baseline.py freestyle-9x9 --install    # net:freestyle-9x9
    python examples/train_baseline.py freestyle --teacher threat # another teacher

The one command per baseline (docs/training.md gives the figures of the
shipped files):

1. Teacher games: ``--games`` games of ``--teacher`` (a built-in player,
   default ``pvs(nodes=2000)``, the strongest built-in player at a budget
   that plays hundreds of moves a second) against itself, the first ``--random-plies`` plies of
   each game random so that the games differ; at every ply the teacher's
   policy is recorded (also on the random plies: the target is what the
   teacher would play there). Written with ``fiverow.data.Writer``
   (``<out>/teacher.h5``), and ``--val-games`` more with another seed
   (``<out>/val.h5``), held out.
2. Supervised training of the residual network (``fiverow.nets.model.Net``)
   on batches of ``fiverow.data.Batches`` (rebuilt in C from the moves, one
   of the board's symmetries at random per position): cross-entropy to the
   teacher's policy, squared error to the outcome for the seat to move, for
   ``--max-steps`` (5000; or ``--minutes`` of training); the held-out games are scored every
   ``--val-every`` steps.
3. Self-play, when ``--selfplay-rounds`` > 0: each round exports the network
   and lets it play ``--selfplay-games`` games against itself in C
   (``fiverow.generate`` with ``net(path=...,simulations=N,temperature=1)``:
   the C net player's PUCT search, no torch), then trains
   ``--selfplay-steps`` steps on the search's visit counts and outcomes of
   the last ``--window`` rounds.
4. The network file ``<out>/net.fnet`` (``fiverow.nets.export``), evaluated
   with ``fiverow.Match`` against ``--eval-opponents`` (the net's policy
   alone, ``--eval-random-plies`` random opening plies, seats alternated),
   after the supervised phase and after each self-play round.

Outputs in ``--out``: ``net.fnet``, ``net.pt`` (the torch state dict),
``curve.json`` (losses and scores, the points docs/training.md plots),
``loss.png``, ``summary.json``. ``--install`` copies the network into the
package (``python/fiverow/nets/baselines/NAME.fnet``) and the curve and
summary into ``docs/training/baseline-NAME-*.json``.
"""

from __future__ import annotations

import os

# Two OpenMP runtimes share the cores (fiverow's libgomp, torch's own copy),
# and an idle thread of either spins while the other works: wait passively
# unless told otherwise. Read once, when the runtimes load: so before torch
# and fiverow (docs/training.md, "Two OpenMP runtimes").
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import argparse
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

import fiverow
from fiverow import data, nets, players
from fiverow.generate import generate
from fiverow.nets.model import Net

sys.path.insert(0, str(Path(__file__).resolve().parent))
from alphazero import RandomOpening  # noqa: E402 - the sibling examples
from supervised import plot, train_step, validate  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

#: Each baseline's variant and network (15x15: one policy plane, so that the
#: policy head's linear layer, cells x actions floats, keeps the file small).
BASELINES: dict[str, dict[str, Any]] = {
    "freestyle": {
        "variant": "freestyle",
        "params": {},
        "blocks": 3,
        "channels": 32,
        "policy_channels": 1,
        "value_hidden": 32,
    },
    "renju": {
        "variant": "renju",
        "params": {},
        "blocks": 3,
        "channels": 32,
        "policy_channels": 1,
        "value_hidden": 32,
    },
    "freestyle-9x9": {
        "variant": "freestyle",
        "params": {"size": 9},
        "blocks": 3,
        "channels": 32,
        "policy_channels": 2,
        "value_hidden": 64,
    },
}


# ---- 1. the teacher's games ----


def teacher_games(
    path: Path, args: argparse.Namespace, games: int, seed: int
) -> tuple[int, int, float]:
    """Play ``games`` teacher games on ``--boards`` boards and write them with
    the teacher's policy at every ply. Returns (games, positions, seconds)."""
    base = BASELINES[args.baseline]
    env = fiverow.make_vec(
        base["variant"],
        num_envs=min(args.boards, games),
        seed=seed,
        num_threads=args.threads,
        **base["params"],
    )
    teacher = players.make(args.teacher)
    boards = env.num_envs
    _, info = env.reset(seed=seed)
    game = np.arange(boards)
    episode = np.zeros(boards, dtype=np.int64)
    logs: list[list[tuple[int, int, int, np.ndarray]]] = [[] for _ in range(boards)]
    resetting = np.zeros(boards, dtype=bool)
    written = positions = 0
    start = time.perf_counter()
    with data.Writer(
        path,
        env,
        policy=True,
        players=(teacher.name, teacher.name),
        overwrite=True,
        run={"teacher": teacher.name, "random_plies": args.random_plies, "seed": seed},
    ) as writer:
        while written < games:
            actions, policy = teacher.act(env, policy=True)
            opening = info["episode_length"] < args.random_plies
            actions = np.where(opening, env.sample_legal(), actions)
            for b in np.flatnonzero(~resetting & (game < games)):
                board = env.board(int(b))
                logs[b].append((int(actions[b]), board["seat"], board["colour"], policy[b].copy()))
            _, _, terminated, truncated, info = env.step(actions)
            resetting = terminated | truncated
            for i in (int(x) for x in np.flatnonzero(resetting)):
                if game[i] < games:
                    steps = logs[i]
                    writer.add(
                        i,
                        [s[0] for s in steps],
                        [s[1] for s in steps],
                        [s[2] for s in steps],
                        int(info["winner"][i]),
                        episode=int(episode[i]),
                        policy=np.stack([s[3] for s in steps]),
                        truncated=bool(truncated[i]),
                    )
                    written += 1
                    positions += len(steps)
                    if written % 64 == 0:
                        writer.flush()
                        print(f"teacher games: {written}/{games}", flush=True)
                logs[i] = []
                game[i] += boards
                episode[i] += 1
    env.close()
    return written, positions, time.perf_counter() - start


# ---- 2. and 3. training ----


def train_steps(
    net: Net,
    opt: torch.optim.Optimizer,
    sources: list[Path],
    args: argparse.Namespace,
    curve: list[dict[str, Any]],
    state: dict[str, Any],
    *,
    minutes: float,
    max_steps: int,
    phase: str,
    val_path: Path | None,
) -> None:
    """Train on batches of ``sources`` until ``minutes`` of training or
    ``max_steps`` steps (either 0: no such limit), adding points to the curve."""
    loader = data.Batches(
        [str(p) for p in sources],
        args.batch_size,
        buffer=args.buffer,
        seed=args.seed + state["steps"],
        num_threads=args.threads,
        policy=True,
        epochs=1_000_000,  # until the time or the steps are up
        drop_last=True,
    )
    sums = np.zeros(3)
    taken = 0
    began = time.perf_counter()
    net.train()
    for batch in loader:
        sums += train_step(net, opt, batch)
        taken += 1
        state["steps"] += 1
        state["positions"] += len(batch["obs"])
        elapsed = time.perf_counter() - began
        done = (minutes and elapsed >= 60 * minutes) or (max_steps and taken >= max_steps)
        if state["steps"] % args.log_every == 0 or done:
            k = taken % args.log_every or min(args.log_every, taken)
            point: dict[str, Any] = {
                "phase": phase,
                "step": state["steps"],
                "positions": state["positions"],
                "train_policy_loss": sums[0] / k,
                "train_value_loss": sums[1] / k,
                "train_top1": sums[2] / k,
            }
            sums[:] = 0
            if val_path is not None and (state["steps"] % args.val_every == 0 or done):
                v0 = time.perf_counter()
                point["val"] = validate(net, val_path, args)
                began += time.perf_counter() - v0  # not training time
                net.train()
            point["minutes"] = round((state["train_seconds"] + elapsed) / 60, 2)
            curve.append(point)
            print(
                f"{phase} step {state['steps']:6d}  "
                + "  ".join(f"{k} {v:.3f}" for k, v in point.items() if k.startswith("train_"))
                + (
                    "  held out: " + "  ".join(f"{k} {v:.3f}" for k, v in point["val"].items())
                    if "val" in point
                    else ""
                ),
                flush=True,
            )
        if done:
            break
    loader.close()
    state["train_seconds"] += time.perf_counter() - began


# ---- 4. the file and its strength ----


def export(net: Net, out: Path, args: argparse.Namespace, note: str) -> Path:
    base = BASELINES[args.baseline]
    path = out / "net.fnet"
    nets.export(net, path, base["variant"], params=base["params"], note=note)
    torch.save(net.state_dict(), out / "net.pt")
    return path


def evaluate(path: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The network's policy alone against each of ``--eval-opponents``: score
    (wins + draws / 2) with its 95% interval, wins, losses, draws."""
    base = BASELINES[args.baseline]
    point: dict[str, Any] = {}
    for opponent in args.eval_opponents:
        result = fiverow.Match(
            base["variant"],
            RandomOpening(players.make("net", path=path), args.eval_random_plies),
            RandomOpening(players.make(opponent), args.eval_random_plies),
            games=args.eval_games,
            seed=args.seed + 1,
            num_threads=args.threads,
            params=base["params"],
        ).play()
        score = result.total()
        point[f"policy vs {opponent}"] = {
            "score": list(score.score_interval()),
            "wins": score.wins,
            "losses": score.losses,
            "draws": score.draws,
            "games": score.games,
        }
        s, low, high = score.score_interval()
        print(f"policy vs {opponent}: score {s:.3f} [{low:.3f}, {high:.3f}]", flush=True)
    return point


def selfplay_games(path: Path, net_file: Path, args: argparse.Namespace, seed: int) -> None:
    base = BASELINES[args.baseline]
    player = f"net(path={net_file},simulations={args.selfplay_simulations},temperature=1)"
    generate(
        path,
        base["variant"],
        games=args.selfplay_games,
        black=player,
        seed=seed,
        num_threads=args.threads,
        policy=True,
        overwrite=True,
        params=base["params"],
    )


# ---- the command ----


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("baseline", choices=sorted(BASELINES), help="which baseline")
    p.add_argument(
        "--teacher", default="pvs(nodes=2000)", help="the built-in player whose games teach"
    )
    p.add_argument("--games", type=int, default=4000, help="teacher games")
    p.add_argument("--val-games", type=int, default=200, help="held-out teacher games")
    p.add_argument("--random-plies", type=int, default=4, help="random plies opening each game")
    p.add_argument("--boards", type=int, default=256, help="teacher games played at once")
    p.add_argument("--data", default=None, help="a directory with teacher.h5 and val.h5 to reuse")
    p.add_argument("--blocks", type=int, default=0, help="residual blocks (0: the baseline's)")
    p.add_argument("--channels", type=int, default=0, help="0: the baseline's")
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--buffer", type=int, default=1 << 16, help="Batches' shuffle buffer")
    p.add_argument(
        "--minutes", type=float, default=0.0, help="supervised training time (0: no limit)"
    )
    p.add_argument(
        "--max-steps", type=int, default=5000, help="supervised steps (0: until --minutes)"
    )
    p.add_argument("--log-every", type=int, default=50, help="steps between loss points")
    p.add_argument("--val-every", type=int, default=500, help="steps between held-out scores")
    p.add_argument("--selfplay-rounds", type=int, default=0, help="self-play rounds after it")
    p.add_argument("--selfplay-games", type=int, default=256, help="games per round")
    p.add_argument("--selfplay-simulations", type=int, default=32, help="the C search's")
    p.add_argument("--selfplay-steps", type=int, default=300, help="training steps per round")
    p.add_argument("--window", type=int, default=4, help="rounds of games trained on")
    p.add_argument(
        "--eval-opponents",
        type=lambda text: [x.strip() for x in text.split(",") if x.strip()],
        default=["random", "heuristic"],
        help="built-in players the network meets, comma-separated",
    )
    p.add_argument("--eval-games", type=int, default=200, help="games per opponent")
    p.add_argument("--eval-random-plies", type=int, default=2)
    p.add_argument("--threads", type=int, default=None, help="C and torch threads")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="default: runs/baseline-NAME")
    p.add_argument(
        "--install",
        action="store_true",
        help="copy the network into the package and its curve into docs/training",
    )
    args = p.parse_args(argv)
    for name in ("games", "val_games", "boards", "batch_size", "log_every", "eval_games"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1")
    for name in ("random_plies", "selfplay_rounds", "blocks", "channels", "max_steps", "minutes"):
        if getattr(args, name) < 0:
            p.error(f"--{name.replace('_', '-')} must be >= 0")
    if not args.max_steps and not args.minutes:
        p.error("give --max-steps or --minutes: the supervised phase needs an end")
    for spec, flag in [(args.teacher, "--teacher")] + [
        (o, "--eval-opponents") for o in args.eval_opponents
    ]:
        try:
            made = players.make(spec)
        except (ValueError, OSError) as e:
            p.error(f"{flag}: {e}")
        if flag == "--teacher" and not isinstance(made, players.Player):
            p.error("--teacher must be a built-in player (its policy is recorded)")
    args.out = args.out or f"runs/baseline-{args.baseline}"
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    base = BASELINES[args.baseline]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    wall = time.perf_counter()
    seconds: dict[str, float] = {}

    if args.data:
        train_path, val_path = Path(args.data) / "teacher.h5", Path(args.data) / "val.h5"
        teacher = {"games": None, "positions": None, "seconds": 0.0, "reused": str(args.data)}
    else:
        train_path, val_path = out / "teacher.h5", out / "val.h5"
        games, positions, secs = teacher_games(train_path, args, args.games, args.seed)
        _, _, val_secs = teacher_games(val_path, args, args.val_games, args.seed + 1000)
        teacher = {"games": games, "positions": positions, "seconds": round(secs + val_secs, 1)}
    seconds["teacher_games"] = float(teacher["seconds"])

    env = fiverow.make_vec(base["variant"], 1, **base["params"])
    net = Net(
        env.single_observation_space.shape,
        env.n_actions,
        args.blocks or base["blocks"],
        args.channels or base["channels"],
        policy_channels=base["policy_channels"],
        value_hidden=base["value_hidden"],
    )
    env.close()
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    curve: list[dict[str, Any]] = []
    state: dict[str, Any] = {"steps": 0, "positions": 0, "train_seconds": 0.0}
    train_steps(
        net,
        opt,
        [train_path],
        args,
        curve,
        state,
        minutes=args.minutes,
        max_steps=args.max_steps,
        phase="supervised",
        val_path=val_path,
    )
    command = " ".join(["python", "examples/train_baseline.py", *(argv or sys.argv[1:])])
    net_file = export(net, out, args, note=command)
    t0 = time.perf_counter()
    curve.append(
        {"phase": "supervised", "minutes": curve[-1]["minutes"], **evaluate(net_file, args)}
    )
    seconds["evaluation"] = time.perf_counter() - t0
    seconds["selfplay_games"] = 0.0

    rounds: list[Path] = []
    for r in range(args.selfplay_rounds):
        t0 = time.perf_counter()
        games_file = out / f"selfplay-{r}.h5"
        selfplay_games(games_file, net_file, args, args.seed + 2000 + r)
        seconds["selfplay_games"] += time.perf_counter() - t0
        state["train_seconds"] += time.perf_counter() - t0  # counts as training time
        rounds = [*rounds, games_file][-args.window :]
        train_steps(
            net,
            opt,
            rounds,
            args,
            curve,
            state,
            minutes=1e9,
            max_steps=args.selfplay_steps,
            phase=f"selfplay {r + 1}",
            val_path=val_path,
        )
        net_file = export(net, out, args, note=command)
        t0 = time.perf_counter()
        point = {"phase": f"selfplay {r + 1}", "minutes": curve[-1]["minutes"]}
        curve.append({**point, **evaluate(net_file, args)})
        seconds["evaluation"] += time.perf_counter() - t0

    (out / "curve.json").write_text(json.dumps(curve, indent=1))
    plot([c for c in curve if "train_policy_loss" in c or "val" in c], out / "loss.png")
    info = nets.inspect(net_file)
    summary = {
        "command": command,
        "baseline": args.baseline,
        "variant": base["variant"],
        "params": base["params"],
        "teacher": args.teacher,
        "teacher_games": teacher,
        "network": {k: info[k] for k in ("blocks", "channels", "policy_channels", "value_hidden")},
        "file_bytes": info["bytes"],
        "steps": state["steps"],
        "positions_trained": state["positions"],
        "seconds": {
            "training": round(state["train_seconds"], 1),
            **{k: round(v, 1) for k, v in seconds.items()},
            "wall": round(time.perf_counter() - wall, 1),
        },
        "final": [c for c in curve if any(" vs " in k for k in c)][-1],
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    if args.install:
        shutil.copyfile(
            net_file,
            ROOT / "python" / "fiverow" / "nets" / "baselines" / nets.BASELINES[args.baseline],
        )
        docs = ROOT / "docs" / "training"
        shutil.copyfile(out / "curve.json", docs / f"baseline-{args.baseline}-curve.json")
        shutil.copyfile(out / "summary.json", docs / f"baseline-{args.baseline}-summary.json")
        print(f"installed {net_file} as net:{args.baseline}", flush=True)
    return summary


if __name__ == "__main__":
    main()
