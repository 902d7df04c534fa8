"""sb3-contrib's MaskablePPO against fiverow's built-in opponents.

    python examples/sb3_maskable_ppo.py    # freestyle 9x9: random 10 min, then heuristic 25
    python examples/sb3_maskable_ppo.py --random-minutes 0 --random-steps 200000

The environment is ``--envs`` boards of
``fiverow.make_vec("freestyle", size=9, opponent="random", agent_seat="random")``
as one Stable-Baselines3 ``VecEnv`` (``fiverow.sb3.VecEnv``: every board
stepped in one C call) in SB3's ``VecMonitor``. The opponent moves inside
``step`` (in C), so the learner sees a single-agent game from its seat (drawn
per episode: it plays both colours); rewards are +1 / -1 / 0 from that seat
and MaskablePPO reads the legal actions from ``env.action_masks()``.

Training runs against ``random`` for ``--random-minutes`` of training time
(or ``--random-steps``, whichever comes first), then against ``heuristic``
for ``--heuristic-minutes`` (the same model, ``set_env``): minutes, so that a
run on a shared machine ends in time. Every ``--eval-minutes`` of training the
policy (sampled, as it trains) plays ``--eval-games`` games against each
opponent through ``fiverow.make_vec`` with the opponent in the loop: win /
draw / loss rates with Wilson 95% intervals go to ``<out>/curve.json`` and
``<out>/curve.png`` (the evaluations do not count as training time); the
model to ``<out>/model.zip``.
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
import time
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.vec_env import VecMonitor
from torch import nn

import fiverow
import fiverow.sb3
from fiverow.analysis.stats import wilson_interval


class BoardCNN(BaseFeaturesExtractor):
    """Two 3x3 convolutions over the planes (SB3's NatureCNN wants 36x36 images)."""

    def __init__(self, observation_space: gymnasium.spaces.Box, channels: int = 32) -> None:
        planes, height, width = observation_space.shape
        super().__init__(observation_space, features_dim=channels * height * width)
        self.net = nn.Sequential(
            nn.Conv2d(planes, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
            nn.ReLU(),
            nn.Flatten(),
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.net(observations)  # type: ignore[no-any-return]


def training_env(args: argparse.Namespace, opponent: str, seed: int) -> VecMonitor:
    """``--envs`` boards against ``opponent``, stepped in one C call, as an SB3 VecEnv."""
    boards = fiverow.make_vec(
        args.variant,
        args.envs,
        seed=seed,  # board i plays its own stream of (seed, i)
        autoreset_mode="same_step",  # what SB3 expects: one C call per step
        opponent=opponent,
        agent_seat="random",
        **size_of(args),
    )
    return VecMonitor(fiverow.sb3.VecEnv(boards))


def size_of(args: argparse.Namespace) -> dict[str, int]:
    return {"size": args.size} if args.size else {}


def evaluate(model: MaskablePPO, args: argparse.Namespace, opponent: str, seed: int) -> Any:
    """``--eval-games`` games of the policy (sampled, as it trains) against
    ``opponent``: the first game of each board of a vector env, seats drawn
    per game. Returns the (win, draw, loss) counts."""
    env = fiverow.make_vec(
        args.variant,
        args.eval_games,
        seed=seed,
        opponent=opponent,
        agent_seat="random",
        **size_of(args),
    )
    obs, _ = env.reset()
    done = np.zeros(env.num_envs, dtype=bool)
    won = np.zeros(env.num_envs, dtype=bool)
    drawn = np.zeros(env.num_envs, dtype=bool)
    while not done.all():
        # a board whose first game is over plays on (its next-step reset
        # ignores the action; a finished board's mask allows every action)
        actions, _ = model.predict(
            obs.copy(), action_masks=env.action_masks().copy(), deterministic=False
        )
        obs, reward, terminated, truncated, _ = env.step(actions)
        ended = (terminated | truncated) & ~done
        won |= ended & (reward > 0)
        drawn |= ended & (reward == 0)
        done |= ended
    wins, draws = int(won.sum()), int(drawn.sum())
    return wins, draws, env.num_envs - wins - draws


class Curve(BaseCallback):
    """One phase: evaluations every ``--eval-minutes`` of training (and every
    ``--eval-every`` steps, if set), written to the curve as they come; the
    phase ends at its step budget (``learn``) or its minutes (here)."""

    def __init__(
        self, args: argparse.Namespace, curve: list[dict[str, Any]], phase: str, minutes: float
    ) -> None:
        super().__init__()
        self.args, self.curve, self.phase = args, curve, phase
        self.deadline = TRAIN_CLOCK.seconds() + 60 * minutes if minutes > 0 else float("inf")
        self.next_eval_seconds = self.next_eval_steps = float("inf")

    def _on_training_start(self) -> None:
        self.next_eval_seconds = TRAIN_CLOCK.seconds() + 60 * self.args.eval_minutes
        if self.args.eval_every:
            self.next_eval_steps = self.num_timesteps + self.args.eval_every

    def _on_step(self) -> bool:
        due = TRAIN_CLOCK.seconds() >= self.next_eval_seconds
        if due or self.num_timesteps >= self.next_eval_steps:
            record(self.model, self.args, self.curve, self.phase)
            self.next_eval_seconds = TRAIN_CLOCK.seconds() + 60 * self.args.eval_minutes
            if self.args.eval_every:
                self.next_eval_steps = self.num_timesteps + self.args.eval_every
        return TRAIN_CLOCK.seconds() < self.deadline


def record(model: Any, args: argparse.Namespace, curve: list[dict[str, Any]], phase: str) -> None:
    start = time.perf_counter()
    point: dict[str, Any] = {
        "timesteps": int(model.num_timesteps),
        "train_seconds": round(TRAIN_CLOCK.seconds(), 1),
        "phase": phase,
    }
    for k, opponent in enumerate(("random", "heuristic")):
        w, d, lo = evaluate(model, args, opponent, seed=10_000 + 7 * len(curve) + k)
        n = w + d + lo
        low, high = wilson_interval(w, n)
        point[f"vs {opponent}"] = {
            "win": w,
            "draw": d,
            "loss": lo,
            "rate": w / n,
            "ci": [low, high],
        }
    episodes = [e["r"] for e in model.ep_info_buffer] if model.ep_info_buffer else []
    point["train_win_rate_last_100"] = float(np.mean(np.array(episodes) > 0)) if episodes else None
    point["eval_seconds"] = round(time.perf_counter() - start, 1)
    TRAIN_CLOCK.exclude(time.perf_counter() - start)
    curve.append(point)
    r, h = point["vs random"], point["vs heuristic"]
    print(
        f"{point['timesteps']:>9} steps {point['train_seconds']:>7.0f} s  [{phase}]  "
        f"vs random {r['rate']:.2f} [{r['ci'][0]:.2f}, {r['ci'][1]:.2f}]  "
        f"vs heuristic {h['rate']:.2f} [{h['ci'][0]:.2f}, {h['ci'][1]:.2f}]",
        flush=True,
    )
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "curve.json").write_text(json.dumps(curve, indent=1))


class Clock:
    """Training time: wall time minus the evaluations."""

    def __init__(self) -> None:
        self.restart()

    def restart(self) -> None:
        self.start = time.perf_counter()
        self.excluded = 0.0

    def seconds(self) -> float:
        return time.perf_counter() - self.start - self.excluded

    def exclude(self, seconds: float) -> None:
        self.excluded += seconds


TRAIN_CLOCK = Clock()


def plot(curve: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    minutes = [p["train_seconds"] / 60 for p in curve]
    for opponent, colour in (("random", "tab:blue"), ("heuristic", "tab:red")):
        rates = [p[f"vs {opponent}"]["rate"] for p in curve]
        low = [p[f"vs {opponent}"]["ci"][0] for p in curve]
        high = [p[f"vs {opponent}"]["ci"][1] for p in curve]
        ax.plot(minutes, rates, "o-", color=colour, label=f"vs {opponent}")
        ax.fill_between(minutes, low, high, color=colour, alpha=0.2)
    # the switch: the random phase's last point (evaluated as the phase ends)
    before = [p["train_seconds"] / 60 for p in curve if p["phase"] == "random"]
    switch = before[-1] if before and curve[-1]["phase"] == "heuristic" else None
    if switch is not None:
        ax.axvline(switch, color="grey", ls="--", lw=1)
        ax.text(switch, 1.02, " opponent: heuristic", color="grey", fontsize=8)
    ax.set_xlabel("training minutes (evaluations excluded)")
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_ylim(0, 1.08)
    ax.legend(loc="center right")
    ax.set_title("MaskablePPO, freestyle 9x9, opponent in the loop")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--variant", default="freestyle", help="a preset (fiverow variants)")
    p.add_argument("--size", type=int, default=9, help="board size; 0 keeps the preset's")
    p.add_argument("--envs", type=int, default=16)
    p.add_argument("--n-steps", type=int, default=128, help="steps per env per rollout")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--epochs", type=int, default=4, help="PPO epochs per rollout")
    p.add_argument("--channels", type=int, default=16)
    p.add_argument("--random-steps", type=int, default=1_000_000)
    p.add_argument("--random-minutes", type=float, default=10.0, help="0: steps only")
    p.add_argument("--heuristic-steps", type=int, default=2_000_000)
    p.add_argument("--heuristic-minutes", type=float, default=25.0, help="0: steps only")
    p.add_argument("--eval-minutes", type=float, default=5.0, help="of training time")
    p.add_argument("--eval-every", type=int, default=0, help="steps (0: by minutes only)")
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--threads", type=int, default=2, help="torch threads")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="runs/sb3_maskable_ppo")
    args = p.parse_args(argv)
    for name in ("envs", "n_steps", "batch_size", "epochs", "eval_games", "threads"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1")
    for name in ("random_steps", "heuristic_steps", "eval_every"):
        if getattr(args, name) < 0:
            p.error(f"--{name.replace('_', '-')} must be >= 0")
    for name in ("random_minutes", "heuristic_minutes", "eval_minutes"):
        if not getattr(args, name) >= 0:
            p.error(f"--{name.replace('_', '-')} must be >= 0")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model = MaskablePPO(
        "CnnPolicy",
        training_env(args, "random", args.seed),
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.epochs,
        learning_rate=args.lr,
        policy_kwargs={
            "features_extractor_class": BoardCNN,
            "features_extractor_kwargs": {"channels": args.channels},
            "normalize_images": False,  # planes are 0 / 1 already
        },
        seed=args.seed,
        verbose=0,
    )
    curve: list[dict[str, Any]] = []
    wall = time.perf_counter()
    TRAIN_CLOCK.restart()
    record(model, args, curve, "random")
    phases = (
        ("random", args.random_steps, args.random_minutes),
        ("heuristic", args.heuristic_steps, args.heuristic_minutes),
    )
    for phase, steps, minutes in phases:
        if steps <= 0:
            continue
        model.set_env(training_env(args, phase, args.seed + 1000 * len(curve)))
        callback = Curve(args, curve, phase, minutes)
        model.learn(steps, callback=callback, reset_num_timesteps=False)
        if curve[-1]["timesteps"] != model.num_timesteps:
            record(model, args, curve, phase)
    model.save(out / "model.zip")
    plot(curve, out / "curve.png")
    summary = {
        "timesteps": int(model.num_timesteps),
        "train_seconds": round(TRAIN_CLOCK.seconds(), 1),
        "wall_seconds": round(time.perf_counter() - wall, 1),
        "final": curve[-1],
        "args": vars(args),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


if __name__ == "__main__":
    main()
