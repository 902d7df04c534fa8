"""Built-in players, in C: ``random``, ``heuristic``, ``mcts``, ``threat``,
``net`` (a network file, :mod:`fiverow.nets`) and ``pvs``.

>>> import fiverow
>>> from fiverow import players
>>> env = fiverow.make_vec("freestyle", num_envs=64, seed=0)
>>> obs, info = env.reset()
>>> actions = players.make("heuristic").act(env)
>>> obs, reward, terminated, truncated, info = env.step(actions)

A player picks the move of the seat to act on every board at once (OpenMP
over the boards). Its randomness (tie breaks, playouts) is drawn from the
board's key, episode and step and the player's ``seed``: the same env seed
gives the same moves on any number of threads.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from types import SimpleNamespace
from typing import Any, overload

import numpy as np
import numpy.typing as npt

from .. import _core, nets
from ..env.pool import MAX_SEED, Pool
from .agent import Agent, as_agent

KINDS = ("random", "heuristic", "mcts", "threat", "net", "pvs")
ROLLOUTS = ("heuristic", "random")
# The threat player's MCTS mode (simulations > 0) takes these too.
_THREAT_MCTS = ("rollout", "depth", "c_uct", "epsilon")
_THREAT = ("nodes", "plies", "width", "vct_depth", "simulations", *_THREAT_MCTS)
#: The parameters each kind uses (every kind takes ``seed``).
KIND_PARAMS = {
    "random": ("seed",),
    "heuristic": ("epsilon", "seed"),
    "mcts": ("simulations", "rollout", "width", "depth", "c_uct", "epsilon", "seed"),
    "threat": (*_THREAT, "seed"),
    "net": ("path", "simulations", "temperature", "c_puct", "seed"),
    "pvs": ("nodes", "depth", "time_ms", "seed"),
}
_SHOWN = {
    "heuristic": ("epsilon",),
    "mcts": ("rollout", "width", "depth", "c_uct", "epsilon"),
    "threat": _THREAT,
    "net": ("simulations", "temperature", "c_puct"),
    "pvs": ("nodes", "depth", "time_ms"),
}
#: Fields only the net player has (left out of the other kinds' specs).
_NET_ONLY = ("path", "temperature", "c_puct")
#: The pvs player's default budget: moves played per decision (the C core's
#: PVS_DEFAULT_NODES).
PVS_DEFAULT_NODES = 5000


@dataclass(frozen=True)
class Player:
    """A built-in player and its parameters (each kind uses its own: see
    ``KIND_PARAMS``).

    - ``simulations``: playouts per move; ``threat``: 0 (the default) searches
      its root moves by alpha-beta, more by MCTS with that many playouts (and
      ``rollout``, ``depth``, ``c_uct``, ``epsilon`` as MCTS uses them).
    - ``rollout``: the playout policy, ``"heuristic"`` (epsilon-greedy) or ``"random"``.
    - ``width``: children per tree node, the heuristic's best candidates (0: every
      legal action); ``threat``: moves per alpha-beta node, by their line windows
      (1..64).
    - ``depth``: playout plies before an unfinished playout counts as a draw (or,
      in scoring games, as won by the seat ahead).
    - ``c_uct``: exploration constant.
    - ``epsilon``: the probability of a random candidate instead of the best, in
      heuristic moves: the heuristic player's own (default 0) or MCTS playouts'
      (default 0.1). A little makes heuristic self-play games differ.
    - ``nodes`` (``threat``, ``pvs``): moves its searches (VCF and VCT, its own
      and its opponent's, and alpha-beta) may play per decision, all together;
      the default is 100000 for ``threat``, ``PVS_DEFAULT_NODES`` for ``pvs``.
    - ``depth`` (``pvs``): iterations of its iterative deepening at most (1..60).
    - ``time_ms`` (``pvs``): milliseconds per decision, 0 (the default) for none;
      with a clock the moves depend on the machine's speed, so datasets use
      ``nodes`` alone.
    - ``plies`` (``threat``): alpha-beta depth (moves that answer a five do
      not count).
    - ``vct_depth`` (``threat``): attacker moves of its VCT searches.
    - ``path`` (``net``): the network file (:func:`fiverow.nets.export`); ``net``'s
      ``simulations`` (default 0) is the policy alone, more a PUCT search with
      the network at the leaves.
    - ``temperature`` (``net``): 0 (the default) plays the best action (highest
      logit, or most visited); ``T > 0`` draws from softmax(logits / T), or from
      visits^(1/T) after a search.
    - ``c_puct`` (``net``): the search's exploration constant.
    - ``seed``: mixed into every decision's random stream.
    """

    kind: str = "random"
    simulations: int | None = None  # None: 400 for MCTS, 0 for threat (alpha-beta) and net
    rollout: str = "heuristic"
    width: int = 10
    depth: int = 60
    c_uct: float = 1.0
    epsilon: float | None = None  # None: 0 for the heuristic, 0.1 for MCTS (and threat) playouts
    seed: int = 0
    nodes: int | None = None  # None: 100000 for threat, PVS_DEFAULT_NODES for pvs
    plies: int = 2
    vct_depth: int = 8
    path: str = ""
    temperature: float = 0.0
    c_puct: float = 1.5
    time_ms: int = 0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"player kind must be one of {', '.join(KINDS)}, got {self.kind!r}")
        if self.epsilon is None:
            object.__setattr__(self, "epsilon", 0.1 if self.kind in ("mcts", "threat") else 0.0)
        if self.simulations is None:
            object.__setattr__(self, "simulations", 0 if self.kind in ("threat", "net") else 400)
        if self.nodes is None:
            object.__setattr__(self, "nodes", PVS_DEFAULT_NODES if self.kind == "pvs" else 100000)
        self._check_types()
        if self.kind == "net":
            self._check_net()
        _core.check_player(self.spec())

    def _check_net(self) -> None:
        """The network file, by its absolute path (the same file from any
        working directory, and the name reads it back)."""
        if not isinstance(self.path, str | os.PathLike) or not os.fspath(self.path):
            raise ValueError(
                "player 'net' needs a network file: net(path=FILE), or a baseline "
                f"net:NAME ({', '.join(nets.BASELINES)})"
            )
        object.__setattr__(self, "path", os.path.abspath(os.path.expanduser(os.fspath(self.path))))

    def _check_types(self) -> None:
        """Whole numbers where the C core counts, real numbers where it weighs,
        so that no value is silently truncated (and the name reads back)."""
        for key in (
            "simulations",
            "width",
            "depth",
            "seed",
            "nodes",
            "plies",
            "vct_depth",
            "time_ms",
        ):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int | np.integer):
                raise ValueError(f"player '{key}' must be an integer, got {value!r}")
            object.__setattr__(self, key, int(value))
        for key in ("c_uct", "epsilon", "temperature", "c_puct"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int | float | np.number):
                raise ValueError(f"player '{key}' must be a number, got {value!r}")
            object.__setattr__(self, key, float(value))
        if not 0 <= self.seed <= MAX_SEED:
            raise ValueError(f"player 'seed' must be >= 0 and <= 2**64-1, got {self.seed}")
        if self.rollout not in ROLLOUTS:
            raise ValueError(
                f"player 'rollout' must be one of {', '.join(ROLLOUTS)}, got {self.rollout!r}"
            )

    @property
    def name(self) -> str:
        """Short name, which :func:`make` reads back: ``random``, ``heuristic``,
        ``heuristic(epsilon=0.1)``, ``mcts:400``, ``mcts:100(rollout=random)``,
        ``threat``, ``threat(nodes=50000)``, ``threat(simulations=400)``,
        ``net:freestyle``, ``net:freestyle(simulations=64)``,
        ``net(path=/abs/file.fnet)``, ``pvs``, ``pvs(nodes=100000)``,
        ``pvs(time_ms=40)`` (parameters shown where they differ from the
        defaults)."""
        if self.kind == "random":
            return f"random(seed={self.seed})" if self.seed else "random"
        shown = _SHOWN[self.kind]
        # (a net player's defaults need no network file)
        defaults: Any = _NET_DEFAULTS if self.kind == "net" else Player(kind=self.kind)
        changed = [
            f"{k}={getattr(self, k):g}"
            if isinstance(getattr(self, k), float)
            else f"{k}={getattr(self, k)}"
            for k in shown
            if getattr(self, k) != getattr(defaults, k)
        ]
        if self.seed:
            changed.append(f"seed={self.seed}")
        base = f"mcts:{self.simulations}" if self.kind == "mcts" else self.kind
        if self.kind == "net":
            name = nets.baseline_name(self.path)
            if name:
                base = f"net:{name}"
            else:
                changed.insert(0, f"path={self.path}")
        return base + (f"({','.join(changed)})" if changed else "")

    def spec(self) -> dict[str, Any]:
        """The parameters as the C core takes them (a net player's network by
        its path; the other kinds without the net's fields)."""
        spec = asdict(self)
        if self.kind != "net":
            for key in _NET_ONLY:
                del spec[key]
        return spec

    def act(
        self, env: Any, *, policy: bool = False
    ) -> npt.NDArray[np.int64] | tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """Actions for every board of a vector env (0 where an episode has ended,
        which a next-step autoreset ignores). With ``policy=True`` also the
        player's distribution over the actions, ``float32[num_envs, n_actions]``
        (MCTS: visit counts; heuristic: its best moves, evenly; threat: its
        move; random: uniform over the legal actions; net: softmax of its
        logits over the legal actions, or its search's visit counts)."""
        pool, name = _pool_of(env)
        if name is None:
            raise TypeError("act() takes a vector env; use act_pool() for a pool of several groups")
        return act_pool(self, pool, policy=policy)[name]  # type: ignore[no-any-return]


_NET_DEFAULTS = SimpleNamespace(simulations=0, temperature=0.0, c_puct=1.5)


def act_pool(player: Player, pool: Pool, *, policy: bool = False) -> dict[str, Any]:
    """:meth:`Player.act` on every group of a pool: ``{group: actions}`` (or
    ``{group: (actions, policies)}``)."""
    pool._require_reset()
    groups = [pool.groups[name] for name in pool._order]
    actions = [np.zeros(g.num_envs, dtype=np.int64) for g in groups]
    policies = [np.zeros((g.num_envs, g.n_actions), dtype=np.float32) for g in groups]
    _core.act(pool._batch, player.spec(), actions, policies if policy else None)
    return {
        g.name: (a, p) if policy else a for g, a, p in zip(groups, actions, policies, strict=True)
    }


def _pool_of(env: Any) -> tuple[Pool, str | None]:
    if isinstance(env, Pool):
        return env, env._order[0] if len(env._order) == 1 else None
    pool = getattr(getattr(env, "unwrapped", env), "pool", None)
    if isinstance(pool, Pool):
        return pool, pool._order[0]
    raise TypeError(f"act() takes a fiverow vector env or pool, got {type(env).__name__}")


def _parse_value(text: str) -> Any:
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


@overload
def make(name: str | Player = "random", **params: Any) -> Player: ...
@overload
def make(name: Agent | Callable[[Any], npt.ArrayLike], **params: Any) -> Agent: ...
def make(
    name: str | Player | Agent | Callable[[Any], npt.ArrayLike] = "random", **params: Any
) -> Player | Agent:
    """A player, the one entry point for every kind: a built-in player by name,
    ``make("heuristic")``, ``make("mcts", simulations=400)``, ``make("mcts:200")``
    (the number after the colon is ``simulations``), or with parameters in
    parentheses, as :attr:`Player.name` writes them: ``make("heuristic(epsilon=0.1)")``,
    ``make("mcts:100(rollout=random)")``, ``make("threat")``,
    ``make("threat(nodes=50000)")``, ``make("pvs(nodes=100000)")``; a network,
    ``make("net(path=net.fnet)")``, ``make("net", path=...)`` or a baseline
    shipped with the package, ``make("net:freestyle")``,
    ``make("net:freestyle(simulations=64)")`` (a path in a name may not hold
    ``,`` ``(`` or ``)``: pass ``path=`` then);
    ``make("gomocup:./pbrain-rapfi")``
    (settings: ``gomocup(timeout_turn=1000):CMD``) is an external engine,
    :class:`fiverow.engines.Gomocup`; a :class:`Player` (with ``params``
    replaced); or a player written in Python, which comes back as it is (an
    object with ``act(env)``, :class:`fiverow.players.agent.Agent`) or wrapped
    (a function ``f(env) -> actions``)."""
    if isinstance(name, Player):
        return replace(name, **params) if params else name
    if not isinstance(name, str):
        agent = as_agent(name)
        if agent is None:
            raise TypeError(
                "a player is a built-in player's name, a fiverow.players.Player, an object "
                "that has act(env) or a function f(env) -> actions; "
                f"got {type(name).__name__} {name!r}"
            )
        if params:
            raise TypeError(
                f"parameters ({', '.join(sorted(params))}) apply to built-in players only, "
                f"not to the Python player {name!r}"
            )
        return agent
    if name.strip()[:8].lower() in ("gomocup:", "gomocup("):
        from ..adapters.gomocup import from_spec  # noqa: PLC0415 (it imports this module)

        return from_spec(name, **params)  # type: ignore[return-value]
    name = name.strip()
    if name.endswith(")") and "(" in name:
        name, _, inner = name[:-1].partition("(")
        for item in filter(None, (i.strip() for i in inner.split(","))):
            key, eq, value = item.partition("=")
            if not eq:
                raise ValueError(f"player parameters in parentheses are key=value, got {item!r}")
            key, value = key.strip(), value.strip()
            params.setdefault(key, value if key == "path" else _parse_value(value))
    kind, colon, number = name.partition(":")
    kind = kind.strip().lower()
    if colon and kind == "net":
        if "path" in params:
            raise ValueError(f"'{name}' names a baseline network; path= names a file: not both")
        params["path"] = nets.baseline(number.strip())
    elif colon:
        if kind != "mcts":
            raise ValueError(
                f"only mcts takes a number (its simulations), and net a baseline name: {name!r}"
            )
        try:
            simulations = int(number)
        except ValueError:
            raise ValueError(f"'{name}': the number after 'mcts:' must be an integer") from None
        if params.get("simulations", simulations) != simulations:
            raise ValueError(f"'{name}' and simulations={params['simulations']} disagree")
        params["simulations"] = simulations
    if kind not in KIND_PARAMS:
        raise ValueError(f"player kind must be one of {', '.join(KINDS)}, got {kind!r}")
    allowed = KIND_PARAMS[kind]
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {', '.join(unknown)} for player {kind!r}; "
            f"it takes: {', '.join(allowed)}"
        )
    unused = sorted(set(params) & set(_THREAT_MCTS)) if kind == "threat" else []
    if unused and not params.get("simulations"):
        raise ValueError(
            f"player 'threat' takes {', '.join(unused)} only with simulations > 0 "
            "(its MCTS mode); without them it searches by alpha-beta"
        )
    return Player(kind=kind, **params)
