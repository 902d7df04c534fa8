"""AlphaZero-style training on fiverow: search and game in C, the network in torch.

    python examples/alphazero.py                            # freestyle 9x9, 30 minutes
    python examples/alphazero.py --minutes 5 --out runs/az  # shorter
    python examples/alphazero.py --variant renju --size 0 --simulations 128   # any preset
    python examples/alphazero.py --load runs/az/net.pt --minutes 0 --eval-simulations 400
                                                            # evaluate a trained network
    python examples/alphazero.py --teacher "heuristic(epsilon=0.1)"   # learn from its games first

Each iteration plays one move on every board of a vector env with the batched
PUCT search (fiverow.search.MCTS: the trees live in C, the network evaluates
each round's leaves in one batch), writes every finished game with its search
policies and outcome through fiverow's HDF5 writer (``<out>/selfplay.h5``,
readable with ``fiverow.data.open``), and trains the network on a window of
recent positions (policy: cross-entropy to the visit distribution; value:
squared error to the outcome for the seat to move), with the eight symmetries
of a square board.

The search's root is checked by fiverow's threat-space solver (``--solver``,
default ``vct``: fiverow.solve over all boards at once, in C): where the seat
to move has a forced win by fours (and threes), the win's first move is
played instead of the most visited one, and in self-play it is that
position's policy target, so the network learns the wins the solver sees.

Every ``--eval-every`` seconds of training, ``fiverow.Match`` plays two agents
against each of ``--eval-opponents`` (default ``random,heuristic``; seats
alternating): the search with the network (no noise, most visited move, the
same root solver) and the network alone (its most likely legal move, no
search, no solver); every evaluation game opens with
``--eval-random-plies`` random moves, so that the games differ. Win rates with
Wilson 95% intervals and scores (wins + draws / 2) with 95% intervals go to
``<out>/curve.json`` and ``<out>/curve.png``, the
network to ``<out>/net.pt`` (torch) and ``<out>/net.fnet`` (``fiverow.nets``:
``players.make("net(path=<out>/net.fnet)")`` plays it in C), and a summary
with where the time went to ``<out>/summary.json``.
Evaluation time is not counted as training time.
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
import math
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
import torch

import fiverow
from fiverow import nets, players
from fiverow.data import Writer
from fiverow.nets.model import Net
from fiverow.search import MCTS

# ---- the network ----
# A small residual tower with a policy and a value head: fiverow.nets.model.Net
# (its architecture is the one fiverow.nets.export writes to a network file,
# which the C net player plays: players.make("net(path=...)")).


class Evaluator:
    """The search's callback: masked softmax priors and values on a batch of
    leaves; counts the time spent in the network."""

    def __init__(self, net: Net) -> None:
        self.net = net
        self.seconds = 0.0

    @torch.no_grad()
    def __call__(self, obs: np.ndarray, masks: np.ndarray, to_play: np.ndarray) -> Any:
        start = time.perf_counter()
        self.net.eval()
        logits, value = self.net(torch.tensor(obs, dtype=torch.float32))
        logits = logits.masked_fill(torch.tensor(masks) == 0, -1e9)
        out = torch.softmax(logits, dim=1).numpy(), value.numpy()
        self.seconds += time.perf_counter() - start
        return out


def solver_moves(env: Any, kind: str, nodes: int) -> np.ndarray:
    """Per board, the first move of a forced win for the seat to act that the
    threat-space solver finds (fiverow.solve: ``vcf`` or ``vct`` within
    ``nodes`` nodes), or -1: the search's move stands there."""
    if kind == "none":
        return np.full(env.num_envs, -1, dtype=np.int64)
    found = fiverow.solve.search_all(env, kind, max_nodes=nodes)
    return np.array([s.line[0] if s.line else -1 for s in found], dtype=np.int64)


# ---- agents for fiverow.Match ----


class SearchAgent:
    """The search with the network: the most visited move, no root noise;
    where the root solver (``solver``: "vcf", "vct" or "none") finds a forced
    win, that win's first move instead."""

    def __init__(
        self, net: Net, simulations: int, leaves: int, solver: str = "none", nodes: int = 0
    ) -> None:
        self.net, self.simulations, self.leaves = net, simulations, leaves
        self.solver, self.nodes = solver, nodes
        self.name = f"alphazero-search:{simulations}" + (f"+{solver}" if solver != "none" else "")
        self._mcts: MCTS | None = None
        self._env: Any = None

    def act(self, env: Any) -> np.ndarray:
        if self._env is not env:  # a new match: new trees
            self._env = env
            self._mcts = MCTS(
                env,
                simulations=self.simulations,
                leaves_per_round=self.leaves,
                dirichlet_alpha=0.0,
                reuse_tree=False,
            )
        assert self._mcts is not None
        self._mcts.run(Evaluator(self.net))
        win = solver_moves(env, self.solver, self.nodes)
        return np.where(win >= 0, win, np.asarray(self._mcts.actions(0.0)))


class PolicyAgent:
    """The network alone: its most likely legal move."""

    name = "alphazero-policy"

    def __init__(self, net: Net) -> None:
        self.net = net

    @torch.no_grad()
    def act(self, env: Any) -> np.ndarray:
        self.net.eval()
        obs = torch.tensor(env.unwrapped.pool.groups[env.config.name].obs, dtype=torch.float32)
        logits, _ = self.net(obs)
        logits = logits.masked_fill(torch.tensor(env.action_masks()) == 0, -torch.inf)
        return logits.argmax(dim=1).numpy()


class RandomOpening:
    """Uniformly random legal moves for the first ``plies`` plies of every
    game, then ``inner``'s: deterministic players (the heuristic, the
    agents above) would otherwise replay the same game on every board."""

    def __init__(self, inner: Any, plies: int) -> None:
        self.inner, self.plies = inner, plies
        self.name = getattr(inner, "name", str(inner))

    def act(self, env: Any) -> np.ndarray:
        actions = np.asarray(self.inner.act(env))
        if self.plies <= 0:
            return actions
        ply = env.unwrapped.pool.groups[env.config.name].episode_length
        return np.where(ply < self.plies, env.sample_legal(), actions)


# ---- symmetries of the square board ----


def augment(obs: torch.Tensor, pi: torch.Tensor, k: int, flip: bool) -> Any:
    """Rotate the observations and the board part of the policies by k
    quarter turns, then mirror them if flip (actions past the board's cells,
    if any, are special actions and stay)."""
    side = obs.shape[-1]
    cells = side * side
    board_pi = pi[:, :cells].reshape(-1, side, side)
    obs = torch.rot90(obs, k, dims=(2, 3))
    board_pi = torch.rot90(board_pi, k, dims=(1, 2))
    if flip:
        obs = torch.flip(obs, dims=(3,))
        board_pi = torch.flip(board_pi, dims=(2,))
    return obs, torch.cat([board_pi.reshape(-1, cells), pi[:, cells:]], dim=1)


# ---- self-play ----


class SelfPlay:
    """Every board plays the search against itself; finished games go to the
    training window and to the HDF5 writer."""

    def __init__(self, args: argparse.Namespace, params: dict[str, Any], out: Path) -> None:
        self.args = args
        self.env = fiverow.make_vec(
            args.variant, num_envs=args.envs, seed=args.seed, num_threads=args.threads, **params
        )
        self.obs, self.info = self.env.reset(seed=args.seed)
        self.mcts = MCTS(
            self.env,
            simulations=args.simulations,
            leaves_per_round=args.leaves,
            dirichlet_alpha=args.dirichlet,
            seed=args.seed,
        )
        self.writer = Writer(
            out / "selfplay.h5",
            self.env,
            policy=True,
            players=("alphazero", "alphazero"),
            overwrite=True,
            run={"args": vars(args)},
        )
        planes = self.env.planes
        self.black_plane = planes.index("black_to_move") if "black_to_move" in planes else None
        self.trace: list[list[tuple[np.ndarray, np.ndarray, int, int, int]]] = [
            [] for _ in range(args.envs)
        ]
        self.resetting = np.zeros(args.envs, dtype=bool)  # the next step resets these boards
        self.window: deque[tuple[np.ndarray, np.ndarray, float]] = deque(maxlen=args.window)
        self.evaluator: Evaluator | None = None
        self.games = self.moves = 0
        self.seconds = {"search": 0.0, "solver": 0.0, "network": 0.0, "env": 0.0, "record": 0.0}

    def step(self, net: Net) -> None:
        a = self.args
        evaluator = Evaluator(net)
        start = time.perf_counter()
        result = self.mcts.run(evaluator)
        explore = self.info["episode_length"] < a.temperature_moves
        actions = np.where(explore, self.mcts.actions(1.0), self.mcts.actions(0.0))
        policy = result.policy
        solved = time.perf_counter()
        win = solver_moves(self.env, a.solver, a.solver_nodes)
        if (win >= 0).any():  # a forced win: play it, and teach it (one-hot target)
            actions = np.where(win >= 0, win, actions)
            policy = policy.copy()
            policy[win >= 0] = 0.0
            policy[win >= 0, win[win >= 0]] = 1.0
        searched = time.perf_counter()
        self.seconds["solver"] += searched - solved
        to_play = self.info["to_play"]
        for i in np.flatnonzero(~self.resetting):
            black = self.obs[i, self.black_plane].flat[0] if self.black_plane is not None else 1
            colour = 0 if black else 1
            self.trace[i].append(
                (
                    self.obs[i].copy(),
                    policy[i].copy(),
                    int(to_play[i]),
                    colour,
                    int(actions[i]),
                )
            )
        stepped = time.perf_counter()
        self.obs, _, terminated, truncated, self.info = self.env.step(actions)
        self.mcts.advance(actions)
        self.moves += int((~self.resetting).sum())
        ended = time.perf_counter()
        done = terminated | truncated
        for i in np.flatnonzero(done & ~self.resetting):
            self.finish(i, int(self.info["winner"][i]), bool(truncated[i]))
        self.resetting = done
        self.seconds["network"] += evaluator.seconds
        self.seconds["search"] += solved - start - evaluator.seconds
        self.seconds["env"] += ended - stepped
        self.seconds["record"] += (stepped - searched) + (time.perf_counter() - ended)

    def finish(self, i: int, winner: int, truncated: bool) -> None:
        steps, self.trace[i] = self.trace[i], []
        for obs, pi, seat, _, _ in steps:
            z = 0.0 if winner < 0 else (1.0 if seat == winner else -1.0)
            self.window.append((obs, pi, z))
        self.writer.add(
            i,
            [s[4] for s in steps],
            [s[2] for s in steps],
            [s[3] for s in steps],
            winner,
            policy=np.stack([s[1] for s in steps]),
            truncated=truncated,
        )
        self.games += 1
        if self.games % 64 == 0:
            self.writer.flush()


def train(
    net: Net,
    opt: torch.optim.Optimizer,
    window: deque[tuple[np.ndarray, np.ndarray, float]],
    args: argparse.Namespace,
    square: bool,
    rng: np.random.Generator,
) -> float:
    net.train()
    losses = []
    for _ in range(args.train_steps):
        idx = rng.integers(0, len(window), min(args.batch_size, len(window)))
        obs = torch.from_numpy(np.stack([window[j][0] for j in idx])).float()
        pi = torch.from_numpy(np.stack([window[j][1] for j in idx]))
        z = torch.tensor([window[j][2] for j in idx], dtype=torch.float32)
        if square:
            obs, pi = augment(obs, pi, int(rng.integers(4)), bool(rng.integers(2)))
        logits, v = net(obs)
        loss = -(pi * torch.log_softmax(logits, dim=1)).sum(1).mean() + ((v - z) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return float(np.mean(losses)) if losses else math.nan


def teacher_positions(
    args: argparse.Namespace, params: dict[str, Any], out: Path
) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """Games of a built-in player (``--teacher``) against ``--teacher-opponent``
    (default: itself), half of them with the teacher as black, played and
    written in C with observations and policies (fiverow.generate), read back
    with h5py as training positions: the network starts from the players'
    moves and the games' outcomes instead of from nothing."""
    import h5py

    from fiverow.generate import generate

    opponent = args.teacher_opponent or args.teacher
    sides = [(args.teacher, opponent)]
    if opponent != args.teacher:
        sides.append((opponent, args.teacher))
    positions: list[tuple[np.ndarray, np.ndarray, float]] = []
    for k, (black, white) in enumerate(sides):
        path = out / ("teacher.h5" if k == 0 else "teacher-white.h5")  # the teacher's seat
        generate(
            path,
            args.variant,
            games=args.teacher_games // len(sides),
            black=black,
            white=white,
            seed=args.seed + 2 + k,
            num_threads=args.threads,
            obs=True,
            policy=True,
            overwrite=True,
            params=params,
        )
        with h5py.File(path, "r") as f:
            g = f[args.variant]
            obs = g["steps/obs"][:]
            pi = g["steps/policy"][:].astype(np.float32)
            seat = g["steps/seat"][:]
            offsets, lengths, winners = (
                g[f"episodes/{key}"][:] for key in ("offset", "length", "winner")
            )
        z = np.zeros(len(seat), dtype=np.float32)  # the outcome for the seat to move
        for start, n, winner in zip(offsets, lengths, winners, strict=True):
            if winner >= 0:
                z[start : start + n] = np.where(seat[start : start + n] == winner, 1.0, -1.0)
        positions += [(obs[i], pi[i], float(z[i])) for i in range(len(z))]
    return positions


# ---- evaluation and the curve ----

#: Where a curve point's list (``evaluate``) keeps the score, its low and high.
SCORE = slice(5, 8)


def evaluate(net: Net, args: argparse.Namespace, params: dict[str, Any]) -> dict[str, Any]:
    """Both agents against each of ``--eval-opponents``: per pairing
    [win rate, its Wilson 95% low, high, draws, games, score (wins + draws / 2
    per game), the score's 95% low, high]. The score's interval is
    (1 + d) / 2 over fiverow's interval for d = P(win) - P(loss) (MOVER with
    Clopper-Pearson cells, ``advantage_interval``)."""
    point: dict[str, Any] = {}
    agents = {
        "search": SearchAgent(
            net,
            args.eval_simulations or args.simulations,
            args.leaves,
            args.solver,
            args.solver_nodes,
        ),
        "policy": PolicyAgent(net),
    }
    for agent_name, agent in agents.items():
        for opponent in args.eval_opponents:
            result = fiverow.Match(
                args.variant,
                RandomOpening(agent, args.eval_random_plies),
                RandomOpening(players.make(opponent), args.eval_random_plies),
                games=args.eval_games,
                seed=args.seed + 1,
                num_threads=args.threads,
                params=params,
            ).play()
            score = result.total()
            point[f"{agent_name} vs {opponent}"] = [
                *score.win_rate(),
                score.draws,
                score.games,
                *score.score_interval(),
            ]
    return point


def plot(curve: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    colours = ["#2a6fb0", "#c8553d", "#3d9a50", "#8a5cb8", "#b08a2a"]
    keys = [k for k in curve[0] if " vs " in k]
    opponents = list(dict.fromkeys(k.split(" vs ")[1] for k in keys))
    t = [c["minutes"] for c in curve]
    for key in keys:
        agent, opponent = key.split(" vs ")
        r = np.array([c[key][SCORE] for c in curve])
        ax.errorbar(
            t,
            r[:, 0],
            yerr=[r[:, 0] - r[:, 1], r[:, 2] - r[:, 0]],
            marker="o",
            capsize=3,
            label=key,
            color=colours[opponents.index(opponent) % len(colours)],
            linestyle="-" if agent == "search" else "--",
        )
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("minutes of training (evaluation excluded)")
    ax.set_ylabel("score (wins + draws/2), 95% interval")
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def progress(elapsed: float, total: float, games: int, moves_per_s: float, loss: float) -> None:
    width = 30
    done = min(1.0, elapsed / total) if total > 0 else 1.0
    bar = "#" * int(done * width) + "-" * (width - int(done * width))
    sys.stderr.write(
        f"\r[{bar}] {elapsed / 60:5.1f}/{total / 60:.1f} min  games {games:6d}  "
        f"{moves_per_s:6.0f} self-play moves/s  loss {loss:6.3f}"
    )
    sys.stderr.flush()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--variant", default="freestyle", help="a preset (fiverow variants)")
    p.add_argument("--size", type=int, default=9, help="board size; 0 keeps the preset's")
    p.add_argument("--envs", type=int, default=128, help="boards in self-play")
    p.add_argument("--simulations", type=int, default=48, help="search simulations per move")
    p.add_argument("--leaves", type=int, default=8, help="leaves per tree per network batch")
    p.add_argument("--dirichlet", type=float, default=0.3, help="root noise alpha (0: none)")
    p.add_argument("--temperature-moves", type=int, default=6, help="moves drawn from visits")
    p.add_argument("--blocks", type=int, default=3, help="residual blocks")
    p.add_argument("--channels", type=int, default=32)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--train-steps", type=int, default=2, help="gradient steps per move")
    p.add_argument("--window", type=int, default=60_000, help="positions kept for training")
    p.add_argument("--minutes", type=float, default=30.0, help="training time")
    p.add_argument("--max-iterations", type=int, default=0, help="stop after this many (0: time)")
    p.add_argument("--eval-every", type=float, default=300.0, help="seconds of training")
    p.add_argument("--eval-games", type=int, default=64, help="games per opponent and agent")
    p.add_argument("--eval-simulations", type=int, default=0, help="0: --simulations")
    p.add_argument(
        "--eval-random-plies", type=int, default=2, help="random opening plies of evaluation games"
    )
    p.add_argument(
        "--solver",
        choices=("none", "vcf", "vct"),
        default="vct",
        help="root check of the search, in self-play and evaluation: a forced win the "
        "threat-space solver finds is played (and is the position's policy target)",
    )
    p.add_argument("--solver-nodes", type=int, default=20_000, help="solver budget per board")
    p.add_argument(
        "--eval-opponents",
        type=lambda text: [x.strip() for x in text.split(",") if x.strip()],
        default=["random", "heuristic"],
        help="built-in players the agents meet, comma-separated, e.g. random,heuristic,threat",
    )
    p.add_argument("--threads", type=int, default=None, help="C threads (default: all)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--load", default=None, help="start from this net.pt (same --blocks/--channels)")
    p.add_argument(
        "--teacher",
        default="",
        help="a built-in player, e.g. 'heuristic(epsilon=0.1)', whose games seed the training",
    )
    p.add_argument(
        "--teacher-opponent",
        default="",
        help="the teacher's opponent in its games, e.g. 'heuristic(epsilon=0.1)' (default: itself)",
    )
    p.add_argument("--teacher-games", type=int, default=2000, help="games the teacher plays")
    p.add_argument(
        "--teacher-steps", type=int, default=1000, help="gradient steps on them before self-play"
    )
    p.add_argument("--out", default="runs/alphazero")
    args = p.parse_args(argv)
    for name in ("envs", "simulations", "leaves", "blocks", "channels", "batch_size", "eval_games"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.solver_nodes < 1:
        p.error("--solver-nodes must be >= 1")

    def check_player(flag: str, spec: str) -> None:
        try:
            players.make(spec)
        except ValueError as e:
            p.error(f"{flag}: {e}")

    for spec in args.eval_opponents or ["(none)"]:
        check_player("--eval-opponents", spec)
    if args.teacher:
        check_player("--teacher", args.teacher)
        if args.teacher_opponent:
            check_player("--teacher-opponent", args.teacher_opponent)
        if args.teacher_games < 2 or args.teacher_steps < 0:
            p.error("--teacher-games must be >= 2 and --teacher-steps >= 0")
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    params = {"size": args.size} if args.size else {}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)

    sp = SelfPlay(args, params, out)
    shape = sp.env.single_observation_space.shape
    square = shape[1] == shape[2] and sp.env.config.params["geometry"] in ("plane", "torus")
    net = Net(shape, sp.env.n_actions, args.blocks, args.channels)
    if args.load:
        net.load_state_dict(torch.load(args.load, weights_only=True))
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    rng = np.random.default_rng(args.seed)
    curve: list[dict[str, Any]] = []
    training = 0.0  # seconds of self-play and training; evaluation excluded
    eval_seconds = train_seconds = 0.0
    next_eval = 0.0
    iteration = 0
    loss = math.nan
    wall = shown = time.perf_counter()
    teacher_left = 0  # gradient steps on the teacher's games still to take
    if args.teacher:
        t0 = time.perf_counter()
        sp.window.extend(teacher_positions(args, params, out))
        teacher_left = args.teacher_steps
        training += time.perf_counter() - t0  # generating counts as training time
    while True:
        stop = training >= 60 * args.minutes or (
            args.max_iterations and iteration >= args.max_iterations
        )
        if stop or training >= next_eval:
            t0 = time.perf_counter()
            point = {"minutes": round(training / 60, 2), "games": sp.games, "loss": loss}
            point.update(evaluate(net, args, params))
            curve.append(point)
            (out / "curve.json").write_text(json.dumps(curve, indent=1))
            plot(curve, out / "curve.png")
            torch.save(net.state_dict(), out / "net.pt")
            nets.export(net, out / "net.fnet", args.variant, params=params)  # for the C player
            eval_seconds += time.perf_counter() - t0
            next_eval = training + args.eval_every
            rates = "  ".join(
                "{} {:.2f} [{:.2f}, {:.2f}]".format(k, *v[SCORE])
                for k, v in point.items()
                if " vs " in k
            )
            print(f"\n[{point['minutes']:6.2f} min] games {sp.games:6d}  {rates}", flush=True)
        if stop:
            break
        t0 = time.perf_counter()
        if teacher_left > 0:  # first learn from the teacher, then play
            teacher_left -= args.train_steps
        else:
            sp.step(net)
        t1 = time.perf_counter()
        if len(sp.window) >= 4 * args.batch_size:
            loss = train(net, opt, sp.window, args, square, rng)
        t2 = time.perf_counter()
        train_seconds += t2 - t1
        training += t2 - t0
        iteration += 1
        if t2 - shown > 1.0:
            shown = t2
            rate = sp.moves / max(sum(sp.seconds.values()), 1e-9)
            progress(training, 60 * args.minutes, sp.games, rate, loss)
    sys.stderr.write("\n")
    sp.writer.close()
    seconds = {k: round(v, 2) for k, v in sp.seconds.items()}
    seconds.update(train=round(train_seconds, 2), evaluation=round(eval_seconds, 2))
    selfplay_seconds = sum(sp.seconds.values())
    summary = {
        "command": " ".join(["python", "examples/alphazero.py", *(argv or sys.argv[1:])]),
        "iterations": iteration,
        "games": sp.games,
        "teacher": args.teacher,
        "teacher_games": args.teacher_games if args.teacher else 0,
        "moves": sp.moves,
        "selfplay_moves_per_second": sp.moves / selfplay_seconds if selfplay_seconds else 0.0,
        "seconds": seconds,
        "wall_seconds": round(time.perf_counter() - wall, 1),
        "curve": curve,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


if __name__ == "__main__":
    main()
