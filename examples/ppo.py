"""Masked-action PPO on a fiverow vector env, in one file (in the style of CleanRL).

    python examples/ppo.py                                 # freestyle 9x9 against random
    python examples/ppo.py --opponent heuristic --minutes 20
    python examples/ppo.py --opponent self                 # the policy plays both seats

The agent holds seat ``i % 2`` on board ``i``, so it plays both colours; the
opponent (a built-in player, or the policy itself with ``--opponent self``)
moves on the other seat. Illegal actions get no probability: the logits are
masked with the env's exact ``action_masks()``. One agent transition runs
from its move to its next decision (or the episode's end), with the reward for
its seat; advantages are GAE over each board's chain of transitions, cut at the
end of each rollout (a transition still open there joins the next rollout).

Every ``--eval-every`` seconds ``fiverow.Match`` plays the greedy policy against
the opponent (and random): win rates with Wilson 95% intervals go to
``<out>/curve.json``; the network to ``<out>/ppo.pt``.
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
from torch import nn

import fiverow
from fiverow import players


class ActorCritic(nn.Module):
    def __init__(self, obs_shape: tuple[int, ...], n_actions: int, channels: int) -> None:
        super().__init__()
        planes, height, width = obs_shape
        self.body = nn.Sequential(
            nn.Conv2d(planes, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
            nn.ReLU(),
        )
        cells = height * width
        self.actor = nn.Sequential(
            nn.Conv2d(channels, 2, 1), nn.Flatten(), nn.Linear(2 * cells, n_actions)
        )
        self.critic = nn.Sequential(
            nn.Conv2d(channels, 1, 1),
            nn.Flatten(),
            nn.Linear(cells, 64),
            nn.ReLU(),
            nn.Linear(64, 1),
        )

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits and values."""
        h = self.body(obs)
        logits = self.actor(h).masked_fill(~mask, -1e9)
        return logits, self.critic(h).squeeze(-1)


def as_tensors(obs: np.ndarray, mask: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    # copies: the env's outputs are read-only views it overwrites on the next step
    return torch.tensor(obs, dtype=torch.float32), torch.tensor(mask, dtype=torch.bool)


class GreedyAgent:
    """The policy's most likely legal move, for fiverow.Match."""

    name = "ppo-greedy"

    def __init__(self, net: ActorCritic) -> None:
        self.net = net

    @torch.no_grad()
    def act(self, env: Any) -> np.ndarray:
        obs = np.asarray(env.unwrapped.pool.groups[env.config.name].obs)
        logits, _ = self.net(*as_tensors(obs, env.action_masks()))
        return logits.argmax(dim=1).numpy()


class Rollouts:
    """Per board: the open agent transition and the chain of closed ones."""

    def __init__(self, n: int) -> None:
        self.open: list[dict[str, Any] | None] = [None] * n
        self.chains: list[list[dict[str, Any]]] = [[] for _ in range(n)]

    def close(self, i: int, next_value: float, done: bool) -> None:
        t = self.open[i]
        if t is not None:
            t["next_value"], t["done"] = next_value, done
            self.chains[i].append(t)
            self.open[i] = None

    def batch(self, gamma: float, lam: float) -> dict[str, torch.Tensor]:
        """GAE over each board's chain; the chains are emptied."""
        rows: list[dict[str, Any]] = []
        for chain in self.chains:
            adv = 0.0
            for t in reversed(chain):
                nonterminal = 0.0 if t["done"] else 1.0
                delta = t["reward"] + gamma * t["next_value"] * nonterminal - t["value"]
                adv = delta + gamma * lam * nonterminal * adv
                t["advantage"] = adv
            rows.extend(chain)
            chain.clear()
        return {
            "obs": torch.from_numpy(np.stack([r["obs"] for r in rows])).float(),
            "mask": torch.from_numpy(np.stack([r["mask"] for r in rows])).bool(),
            "action": torch.tensor([r["action"] for r in rows]),
            "logp": torch.tensor([r["logp"] for r in rows]),
            "value": torch.tensor([r["value"] for r in rows]),
            "advantage": torch.tensor([r["advantage"] for r in rows], dtype=torch.float32),
        }


def collect(
    env: Any, net: ActorCritic, opponent: Any, state: dict[str, Any], steps: int, roll: Rollouts
) -> int:
    """Play ``steps`` plies on every board; returns the episodes finished."""
    n = env.num_envs
    agent_seat = np.arange(n) % 2
    finished = 0
    for _ in range(steps):
        obs, info = state["obs"], state["info"]
        mine = (info["to_play"] == agent_seat) & ~state["resetting"]
        with torch.no_grad():
            logits, values = net(*as_tensors(obs, info["action_mask"]))
            dist = torch.distributions.Categorical(logits=logits)
            sampled = dist.sample()
            logp = dist.log_prob(sampled)
        if opponent == "self":
            other = sampled.numpy()
        else:
            other = np.asarray(opponent.act(env))
        actions = np.where(mine, sampled.numpy(), other)
        for i in np.flatnonzero(mine):
            roll.close(i, float(values[i]), done=False)
            roll.open[i] = {
                "obs": obs[i].copy(),
                "mask": info["action_mask"][i].copy(),
                "action": int(actions[i]),
                "logp": float(logp[i]),
                "value": float(values[i]),
                "reward": 0.0,
            }
        obs, _, terminated, truncated, info = env.step(actions)
        rewards = info["rewards"][np.arange(n), agent_seat]
        for i in np.flatnonzero(~state["resetting"]):
            t = roll.open[i]
            if t is not None:
                t["reward"] += float(rewards[i])
        done = terminated | truncated
        for i in np.flatnonzero(done & ~state["resetting"]):
            roll.close(i, 0.0, done=True)
            finished += 1
        state.update(obs=obs, info=info, resetting=done)
    return finished


def update(
    net: ActorCritic,
    opt: torch.optim.Optimizer,
    b: dict[str, torch.Tensor],
    args: argparse.Namespace,
) -> dict[str, float]:
    returns = b["advantage"] + b["value"]
    n = len(returns)
    size = max(1, n // args.minibatches)
    stats: dict[str, float] = {}
    for _ in range(args.update_epochs):
        for idx in torch.randperm(n).split(size):
            logits, value = net(b["obs"][idx], b["mask"][idx])
            dist = torch.distributions.Categorical(logits=logits)
            logp = dist.log_prob(b["action"][idx])
            ratio = (logp - b["logp"][idx]).exp()
            adv = b["advantage"][idx]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8) if len(idx) > 1 else adv
            pg = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
            vloss = 0.5 * ((value - returns[idx]) ** 2).mean()
            # entropy over the legal actions only (masked logits carry ~0 mass)
            entropy = dist.entropy().mean()
            loss = pg + args.vf_coef * vloss - args.ent_coef * entropy
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), args.max_grad_norm)
            opt.step()
            stats = {
                "policy_loss": pg.item(),
                "value_loss": vloss.item(),
                "entropy": entropy.item(),
            }
    return stats


def evaluate(net: ActorCritic, args: argparse.Namespace, params: dict[str, Any]) -> dict[str, Any]:
    point: dict[str, Any] = {}
    for opponent in ("random", "heuristic"):
        score = (
            fiverow.Match(
                args.variant,
                GreedyAgent(net),
                opponent,
                games=args.eval_games,
                seed=args.seed + 1,
                num_threads=args.threads,
                params=params,
            )
            .play()
            .total()
        )
        point[f"vs {opponent}"] = [*score.win_rate(), score.draws]
    return point


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--variant", default="freestyle", help="a preset (fiverow variants)")
    p.add_argument("--size", type=int, default=9, help="board size; 0 keeps the preset's")
    p.add_argument("--opponent", default="random", help="a built-in player name, or 'self'")
    p.add_argument("--envs", type=int, default=256)
    p.add_argument("--num-steps", type=int, default=32, help="plies per board per rollout")
    p.add_argument("--channels", type=int, default=32)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--minibatches", type=int, default=4)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--max-iterations", type=int, default=0, help="stop after this many (0: time)")
    p.add_argument("--eval-every", type=float, default=120.0, help="seconds of training")
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="runs/ppo")
    args = p.parse_args(argv)
    if args.opponent != "self":
        players.make(args.opponent)  # a bad name fails here, with the known names
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    params = {"size": args.size} if args.size else {}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    env = fiverow.make_vec(
        args.variant, num_envs=args.envs, seed=args.seed, num_threads=args.threads, **params
    )
    obs, info = env.reset(seed=args.seed)
    state = {"obs": obs, "info": info, "resetting": np.zeros(args.envs, dtype=bool)}
    opponent = "self" if args.opponent == "self" else players.make(args.opponent)
    net = ActorCritic(env.single_observation_space.shape, env.n_actions, args.channels)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr, eps=1e-5)
    roll = Rollouts(args.envs)
    curve: list[dict[str, Any]] = []
    training, next_eval, iteration, episodes, stats = 0.0, 0.0, 0, 0, {}
    while True:
        stop = training >= 60 * args.minutes or (
            args.max_iterations and iteration >= args.max_iterations
        )
        if stop or training >= next_eval:
            point = {"minutes": round(training / 60, 2), "episodes": episodes, **stats}
            point.update(evaluate(net, args, params))
            curve.append(point)
            (out / "curve.json").write_text(json.dumps(curve, indent=1))
            torch.save(net.state_dict(), out / "ppo.pt")
            next_eval = training + args.eval_every
            rates = "  ".join(
                f"{k} {v[0]:.2f} [{v[1]:.2f}, {v[2]:.2f}]" for k, v in point.items() if "vs" in k
            )
            print(f"[{point['minutes']:6.2f} min] episodes {episodes:7d}  {rates}", flush=True)
        if stop:
            break
        t0 = time.perf_counter()
        episodes += collect(env, net, opponent, state, args.num_steps, roll)
        b = roll.batch(args.gamma, args.gae_lambda)
        if len(b["action"]):
            stats = update(net, opt, b, args)
        training += time.perf_counter() - t0
        iteration += 1
        sys.stderr.write(
            f"\riteration {iteration:5d}  {training / 60:5.1f}/{args.minutes:.1f} min  "
            f"episodes {episodes:7d}  entropy {stats.get('entropy', float('nan')):.3f}"
        )
    sys.stderr.write("\n")
    summary = {"iterations": iteration, "episodes": episodes, "curve": curve}
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


if __name__ == "__main__":
    main()
