"""Supervised learning from a dataset of strong games, batches from fiverow.data.Batches.

    python examples/supervised.py                         # freestyle 15x15, 25 minutes of training
    python examples/supervised.py --minutes 5 --games 4000 --out runs/sl
    python examples/supervised.py --data games.h5         # train on a dataset you have

1. Games: ``--games`` games of ``--player`` against itself (default
   ``heuristic(epsilon=0.05)``: the heuristic, with one move in twenty random so
   that the games differ), written by ``fiverow.generate`` with the player's
   policies, moves only; and ``--val-games`` more with another seed, held out.
   ``--data`` reads a dataset instead (it needs policies).
2. Training: a small residual network (examples/alphazero.py's) on batches of
   ``fiverow.data.Batches`` (rebuilt in C from the moves, shuffled, one of the
   8 symmetries of the board at random per position): cross-entropy to the
   recorded policy and squared error to the outcome for the seat to move,
   for ``--minutes`` of training. The held-out games are scored every
   ``--val-every`` steps (policy loss, value loss, how often the network's
   most likely move is one the player would play).
3. Evaluation with ``fiverow.Match`` against ``random`` and ``heuristic`` (seats
   alternating, ``--eval-random-plies`` random opening plies so that games
   differ): the network alone (its most likely legal move) and the network
   inside ``fiverow.search.MCTS`` (``--eval-simulations``). Win rates with Wilson
   95% intervals.

Outputs in ``--out``: ``curve.json`` (losses), ``loss.png``, ``net.pt``,
``net.fnet`` (``fiverow.nets``: ``players.make("net(path=...)")`` plays it in C),
``summary.json`` (data, timings, scores).
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
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

import fiverow
from fiverow import data, nets, players
from fiverow.generate import generate

sys.path.insert(0, str(Path(__file__).resolve().parent))
from alphazero import Net, PolicyAgent, RandomOpening, SearchAgent  # noqa: E402 - the sibling example


def make_data(args: argparse.Namespace, params: dict[str, Any], out: Path) -> tuple[Path, Path]:
    """The training and the held-out file: games of --player against itself."""
    paths = []
    for name, games, seed in (("train", args.games, args.seed), ("val", args.val_games, -1)):
        path = out / f"{name}.h5"
        generate(
            path,
            args.variant,
            games=games,
            black=args.player,
            white=args.player,
            seed=args.seed + 1000 if seed < 0 else seed,
            num_threads=args.threads,
            policy=True,
            overwrite=True,
            params=params,
            progress=sys.stderr.isatty(),
        )
        paths.append(path)
    return paths[0], paths[1]


def losses(net: Net, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor, Any]:
    """Policy cross-entropy (illegal actions masked out), value squared error,
    and how often the most likely move is in the target policy's support."""
    logits, value = net(batch["obs"].float())
    logits = logits.masked_fill(~batch["mask"], -1e9)
    target = batch["policy"]
    policy_loss = -(target * torch.log_softmax(logits, dim=1)).sum(1).mean()
    value_loss = ((value - batch["value"]) ** 2).mean()
    best = logits.argmax(dim=1)
    hit = (target.gather(1, best[:, None]).squeeze(1) > 0).float().mean()
    return policy_loss, value_loss, hit


def train_step(
    net: Net, opt: torch.optim.Optimizer, batch: dict[str, np.ndarray]
) -> tuple[float, float, float]:
    """One optimiser step on a batch of ``fiverow.data.Batches``: the policy
    loss, the value loss and the top-move hit rate, as floats."""
    tensors = {k: torch.from_numpy(v) for k, v in batch.items()}
    policy_loss, value_loss, hit = losses(net, tensors)
    opt.zero_grad()
    (policy_loss + value_loss).backward()
    opt.step()
    return policy_loss.item(), value_loss.item(), hit.item()


@torch.no_grad()
def validate(net: Net, path: Path, args: argparse.Namespace) -> dict[str, float]:
    """Mean losses over every held-out position (no symmetry, no shuffle)."""
    net.eval()
    totals = np.zeros(3)
    n = 0
    with data.Batches(path, 1024, symmetries=False, shuffle=False, num_threads=args.threads) as b:
        for batch in b:
            t = {k: torch.from_numpy(v) for k, v in batch.items()}
            p, v, hit = losses(net, t)
            k = len(batch["obs"])
            totals += k * np.array([p.item(), v.item(), hit.item()])
            n += k
    net.train()
    names = ("policy_loss", "value_loss", "top1_in_policy")
    return dict(zip(names, (totals / n).tolist(), strict=True))


def evaluate(net: Net, args: argparse.Namespace, params: dict[str, Any]) -> dict[str, Any]:
    """Win rates (rate, low, high) and draws of the network alone and inside
    the search, against random and heuristic."""
    scores: dict[str, Any] = {}
    agents = {
        "policy": (PolicyAgent(net), args.eval_games),
        f"search:{args.eval_simulations}": (
            SearchAgent(net, args.eval_simulations, args.leaves),
            args.eval_search_games,
        ),
    }
    for agent_name, (agent, games) in agents.items():
        for opponent in ("random", "heuristic"):
            start = time.perf_counter()
            result = fiverow.Match(
                args.variant,
                RandomOpening(agent, args.eval_random_plies),
                RandomOpening(players.make(opponent), args.eval_random_plies),
                games=games,
                seed=args.seed + 7,
                num_threads=args.threads,
                params=params,
            ).play()
            score = result.total()
            rate, low, high = score.win_rate()
            scores[f"{agent_name} vs {opponent}"] = {
                "games": score.games,
                "wins": score.wins,
                "losses": score.losses,
                "draws": score.draws,
                "win_rate": [rate, low, high],
                "seconds": round(time.perf_counter() - start, 1),
            }
            print(
                f"{agent_name} vs {opponent}: {score.wins}-{score.losses}-{score.draws}, "
                f"win rate {rate:.3f} [{low:.3f}, {high:.3f}]",
                flush=True,
            )
    return scores


def plot(curve: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(12, 3.8))
    train = [c for c in curve if "train_policy_loss" in c]
    val = [c for c in curve if "val" in c]
    for ax, key, title in (
        (axes[0], "policy_loss", "policy cross-entropy"),
        (axes[1], "value_loss", "value squared error"),
    ):
        ax.plot(
            [c["positions"] / 1e6 for c in train],
            [c[f"train_{key}"] for c in train],
            label="training batches",
            color="#2a6fb0",
        )
        ax.plot(
            [c["positions"] / 1e6 for c in val],
            [c["val"][key] for c in val],
            "o-",
            label="held-out games",
            color="#c8553d",
        )
        ax.set_title(title)
        ax.set_xlabel("positions trained on (millions)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    axes[2].plot(
        [c["positions"] / 1e6 for c in val],
        [c["val"]["top1_in_policy"] for c in val],
        "o-",
        color="#c8553d",
    )
    axes[2].set_ylim(0, 1)
    axes[2].set_title("held out: top move is one the player plays")
    axes[2].set_xlabel("positions trained on (millions)")
    axes[2].grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--variant", default="freestyle", help="a preset (fiverow variants)")
    p.add_argument("--size", type=int, default=0, help="board size; 0 keeps the preset's")
    p.add_argument("--player", default="heuristic(epsilon=0.05)", help="whose games to learn")
    p.add_argument("--games", type=int, default=16000, help="training games")
    p.add_argument("--val-games", type=int, default=400, help="held-out games")
    p.add_argument("--data", default=None, help="train on this dataset (with policies) instead")
    p.add_argument("--blocks", type=int, default=3, help="residual blocks")
    p.add_argument("--channels", type=int, default=32)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--buffer", type=int, default=1 << 16, help="Batches' shuffle buffer")
    p.add_argument("--minutes", type=float, default=25.0, help="training time")
    p.add_argument("--max-steps", type=int, default=0, help="stop after this many (0: time)")
    p.add_argument("--log-every", type=int, default=50, help="steps between loss points")
    p.add_argument("--val-every", type=int, default=500, help="steps between held-out scores")
    p.add_argument("--eval-games", type=int, default=200, help="games of the policy agent")
    p.add_argument("--eval-search-games", type=int, default=64, help="games of the search agent")
    p.add_argument("--eval-simulations", type=int, default=64)
    p.add_argument("--leaves", type=int, default=8, help="leaves per tree per network batch")
    p.add_argument("--eval-random-plies", type=int, default=2)
    p.add_argument("--threads", type=int, default=None, help="C and torch threads")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="runs/supervised")
    args = p.parse_args(argv)
    for name in ("games", "val_games", "blocks", "channels", "batch_size", "log_every"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1")
    try:
        players.make(args.player)
    except ValueError as e:
        p.error(f"--player: {e}")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    params = {"size": args.size} if args.size else {}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    wall = time.perf_counter()

    start = time.perf_counter()
    if args.data:
        train_path = Path(args.data)
        with data.open(train_path) as ds:
            if args.variant not in ds.variants:
                args.variant = ds.variants[0]
        val_path = None
    else:
        train_path, val_path = make_data(args, params, out)
    data_seconds = time.perf_counter() - start

    loader = data.Batches(
        train_path,
        args.batch_size,
        variants=[args.variant],
        buffer=args.buffer,
        seed=args.seed,
        num_threads=args.threads,
        policy=True,
        epochs=1_000_000,  # until the time is up
        drop_last=True,
    )
    (obs_shape, n_actions, _), *_ = loader.shapes
    with data.open(train_path) as ds:
        positions_in_file = ds[args.variant].steps
    net = Net(obs_shape, n_actions, args.blocks, args.channels)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    curve: list[dict[str, Any]] = []
    sums = np.zeros(3)
    step = positions = 0
    seconds = {"batches": 0.0, "network": 0.0, "validation": 0.0}
    train_start = time.perf_counter()
    t = time.perf_counter()
    for batch in loader:
        t1 = time.perf_counter()
        seconds["batches"] += t1 - t
        sums += train_step(net, opt, batch)
        step += 1
        positions += len(batch["obs"])
        t = time.perf_counter()
        seconds["network"] += t - t1
        elapsed = t - train_start
        done = elapsed >= 60 * args.minutes or (args.max_steps and step >= args.max_steps)
        if step % args.log_every == 0 or done:
            k = step % args.log_every or args.log_every
            point: dict[str, Any] = {"step": step, "positions": positions}
            point.update(
                train_policy_loss=sums[0] / k, train_value_loss=sums[1] / k, train_top1=sums[2] / k
            )
            sums[:] = 0
            if val_path is not None and (step % args.val_every == 0 or done):
                v0 = time.perf_counter()
                point["val"] = validate(net, val_path, args)
                seconds["validation"] += time.perf_counter() - v0
                train_start += time.perf_counter() - v0  # not training time
            point["minutes"] = round((time.perf_counter() - train_start) / 60, 2)
            curve.append(point)
            line = f"step {step:6d}  {positions / 1e6:6.2f} M positions  " + "  ".join(
                f"{key} {value:.3f}" for key, value in point.items() if key.startswith("train_")
            )
            if "val" in point:
                line += "  held out: " + "  ".join(f"{k} {v:.3f}" for k, v in point["val"].items())
            print(line, flush=True)
            t = time.perf_counter()
        if done:
            break
    loader.close()
    train_seconds = sum(v for k, v in seconds.items() if k != "validation")
    torch.save(net.state_dict(), out / "net.pt")
    nets.export(net, out / "net.fnet", args.variant, params=params)  # the C net player's file
    (out / "curve.json").write_text(json.dumps(curve, indent=1))
    plot(curve, out / "loss.png")

    start = time.perf_counter()
    scores = evaluate(net, args, params)
    eval_seconds = time.perf_counter() - start
    summary = {
        "command": " ".join(["python", "examples/supervised.py", *(argv or sys.argv[1:])]),
        "variant": args.variant,
        "player": args.player,
        "train_file": str(train_path),
        "positions_in_file": positions_in_file,
        "steps": step,
        "positions_trained": positions,
        "epochs": positions / positions_in_file,
        "network": {"blocks": args.blocks, "channels": args.channels},
        "seconds": {
            "data": round(data_seconds, 1),
            "training": round(train_seconds, 1),
            **{k: round(v, 1) for k, v in seconds.items()},
            "evaluation": round(eval_seconds, 1),
            "wall": round(time.perf_counter() - wall, 1),
        },
        "batches_positions_per_second": positions / seconds["batches"] if seconds["batches"] else 0,
        "final": curve[-1] if curve else {},
        "scores": scores,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


if __name__ == "__main__":
    main()
