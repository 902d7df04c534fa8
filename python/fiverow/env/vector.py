"""The Gymnasium vector environment: one pool group behind ``gymnasium.vector.VectorEnv``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from .. import render as _render
from ..rules.config import VariantConfig, cell_values, resolve
from ..rules.renju import OPENINGS
from .opponent import Opponent, play_python_opponent, resolve_opponent
from .pool import Group, Pool, check_count, check_seed

_AUTORESET_ENUM = {
    "next_step": AutoresetMode.NEXT_STEP,
    "same_step": AutoresetMode.SAME_STEP,
    "disabled": AutoresetMode.DISABLED,
}

Obs = npt.NDArray[np.uint8]


class FiverowVectorEnv(VectorEnv[Obs, npt.NDArray[np.int64], npt.NDArray[Any]]):
    """``num_envs`` boards of one variant, stepped in C.

    Observations and infos are read-only views of buffers that C rewrites in
    place: they stay valid until the next ``step``/``reset``; copy what you
    keep. Rewards and the terminated / truncated flags are fresh arrays on
    every step (Gymnasium's reward wrappers write into them).

    ``info`` holds ``action_mask`` (``uint8[num_envs, n_actions]``; a finished
    board's mask allows every action), ``to_play`` (seat to act next),
    ``rewards`` (``[num_envs, 2]`` by seat), ``winner`` (seat, -1 for none or
    a draw) and ``episode_length`` (plies of both seats); in ``same_step``
    mode also ``final_obs`` / ``final_info`` (every info key of the games that
    ended) with their ``_`` masks; with ``illegal_action`` ``"lose"`` or
    ``"random"``, ``illegal``; with an ``opponent``, ``agent_seat``.

    ``opponent`` plays one seat of every board inside ``step`` (see
    :mod:`fiverow.env.opponent`): a built-in player's name or spec
    (``"random"``, ``"heuristic(epsilon=0.1)"``, ``"mcts:100"``), a
    :class:`fiverow.players.Player`, or a Python player (an object with
    ``act(env)`` or a function ``f(env) -> actions``, called with this env).
    ``agent_seat`` (0, 1 or ``"random"``, per episode) is the seat left to the
    caller; rewards and flags are then the agent's.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "autoreset_mode": None}

    def __init__(
        self,
        variant: str | Mapping[str, Any] | Path | VariantConfig = "freestyle",
        num_envs: int = 1,
        *,
        seed: int | None = None,
        num_threads: int | None = None,
        autoreset_mode: Any = "next_step",
        illegal_action: str = "raise",
        observation: str = "absolute",
        render_mode: str | None = None,
        opponent: Any = None,
        agent_seat: int | str = 0,
        **overrides: Any,
    ) -> None:
        self.opponent: Opponent | None = resolve_opponent(opponent, agent_seat)
        config = variant if isinstance(variant, VariantConfig) else resolve(variant, **overrides)
        if isinstance(variant, VariantConfig) and overrides:
            config = resolve({**config.params, "name": config.name}, **overrides)
        if render_mode not in (None, "ansi", "rgb_array"):
            raise ValueError(
                f"render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}"
            )
        self.pool = Pool(
            {config.name: {"num_envs": num_envs, "config": config}},
            seed=seed,
            num_threads=num_threads,
            autoreset_mode=autoreset_mode,
            illegal_action=illegal_action,
            observation=observation,
        )
        self._group: Group = self.pool.groups[config.name]
        if self.opponent is not None:
            self.opponent.seat(self.pool._batch)
            self._group.with_opponent = True
        self._opponent_moving = False
        self.config = config
        self.num_envs = self._group.num_envs
        self.render_mode = render_mode
        self.metadata = {
            **type(self).metadata,
            "autoreset_mode": _AUTORESET_ENUM[self.pool.autoreset_mode],
        }
        self.single_observation_space = self._group.single_observation_space
        self.single_action_space = self._group.single_action_space
        g = self._group
        single = g.single_observation_space
        self.observation_space = spaces.Box(
            0,
            np.broadcast_to(single.high, (self.num_envs, *single.shape)),
            (self.num_envs, *single.shape),
            dtype=np.uint8,
        )
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, g.n_actions))
        self._seed = seed
        self._mask_bool = g.mask.view(np.bool_)  # read-only, as every output

    def _check_open(self, what: str) -> None:
        if self.closed:
            raise RuntimeError(f"{what}: this {type(self).__name__} is closed")

    # pickle / deepcopy: the pool carries the boards; the group's views are rebuilt
    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        del state["_group"], state["_mask_bool"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._group = self.pool.groups[self.config.name]
        self._mask_bool = self._group.mask.view(np.bool_)
        if self.opponent is not None:  # the new pool's C batch gets the opponent again
            self.opponent.seat(self.pool._batch)
            self._group.with_opponent = True

    def _check_can_move(self, what: str) -> None:
        """Open, and not inside a Python opponent's ``act`` (which only chooses)."""
        self._check_open(what)
        if self._opponent_moving:
            raise RuntimeError(f"{what} called from inside the opponent's act(env)")

    def _settle(self) -> None:
        """A Python opponent moves on every board waiting for it (a built-in
        one has moved in C already)."""
        if self.opponent is None or self.opponent.builtin:
            return
        self._opponent_moving = True
        try:
            play_python_opponent(self, self.opponent)
        finally:
            self._opponent_moving = False

    # ---- facts ----

    @property
    def planes(self) -> tuple[str, ...]:
        """Names of the observation planes, in order."""
        return self._group.planes

    @property
    def n_actions(self) -> int:
        """Number of actions (cells, then protocol or pass actions)."""
        return self._group.n_actions

    @property
    def num_threads(self) -> int:
        """OpenMP threads the boards are stepped with."""
        return self.pool.num_threads

    def action_name(self, action: int) -> str:
        """``h8``-style name of an action (cell) or the name of a special action."""
        return self._group.action_name(int(action))

    def parse_action(self, name: str) -> int:
        """The action of a name as :meth:`action_name` writes it (``h8``, ``E4``,
        ``7E4``, ``TAKE_BLACK``): ``ValueError`` naming what was expected, and
        :class:`fiverow.notation.OffBoardError` for a cell off the board."""
        return self._group.parse_action(name)

    # ---- Gymnasium API ----

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """Reset all envs, or those in ``options["reset_mask"]`` (bool ``[num_envs]``)."""
        self._check_can_move("reset()")
        check_seed(seed)  # the same errors as make_vec(seed=...)
        super().reset(seed=seed)
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        if options:
            raise ValueError(f"unknown reset options: {sorted(options)} (known: reset_mask)")
        if mask is not None:
            if not isinstance(mask, np.ndarray):
                raise TypeError(f"options['reset_mask'] must be a numpy array, got {type(mask)}")
            self.pool.reset(seed, {self._group.name: mask})
        else:
            self.pool.reset(seed)
        self._settle()
        return self._group.obs, self._group.info()

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        Obs, npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]
    ]:
        self._check_can_move("step()")
        g = self._group
        self.pool.step({g.name: actions})
        self._settle()
        return g.obs, g.reward.copy(), g.terminated.copy(), g.truncated.copy(), g.info()

    def sample_legal(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal action per env, sampled in C: a read-only view of
        one buffer that the next call overwrites (copy it to keep it)."""
        self._check_open("sample_legal()")
        return self.pool.sample_legal()[self._group.name]

    def legal_actions(self, index: int) -> list[int]:
        """The legal actions of env ``index`` as a sorted list (empty once its
        episode is over, also while it waits for its next-step reset)."""
        self._check_open("legal_actions()")
        g = self._group
        check_count(index, "index", 0, self.num_envs - 1)
        self.pool._require_reset("legal_actions")
        # a finished board (not yet reset) has none; its mask allows every action
        if self.pool.autoreset_mode != "same_step" and (g.terminated[index] or g.truncated[index]):
            return []
        return np.flatnonzero(g.mask[index]).tolist()

    def illegal_reason(self, index: int, action: int) -> str | None:
        """Why ``action`` cannot be played on board ``index`` now, in the rules'
        words (``"occupied"``, ``"forbidden for black (double-three)"``, ...),
        or None when it can. Nothing changes: the engine is asked, and steps
        no board, as it does for an illegal action under
        ``illegal_action="raise"`` (the only mode this works in)."""
        self._check_open("illegal_reason()")
        g = self._group
        check_count(index, "index", 0, self.num_envs - 1)
        if not 0 <= action < g.n_actions:
            return f"action {action} is out of range 0..{g.n_actions - 1}"
        self.pool._require_reset("illegal_reason")
        if g.terminated[index] or g.truncated[index]:
            return "the game is over"
        if g.mask[index, action]:
            return None
        if self.pool.illegal_action != "raise":
            raise ValueError("illegal_reason() needs an env made with illegal_action='raise'")
        actions = np.zeros(self.num_envs, dtype=np.int64)
        actions[index] = action
        # an illegal action steps no board, so this asks and changes nothing
        result = self.pool._batch.step([actions])
        assert result is not None, "an action off the mask was played"
        reasons = [r for _, i, _, r in result[1] if i == index]
        return str(reasons[0]) if reasons else "not legal now"

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """Legal-action mask as bool ``[num_envs, n_actions]`` (sb3-contrib convention):
        a read-only view, overwritten by the next step."""
        return self._mask_bool

    def rollout(self, steps: int) -> dict[str, int]:
        """Random self-play that stays in C: every env plays ``steps`` moves (both
        seats, whatever the opponent; it then moves where it is to act)."""
        self._check_can_move("rollout()")
        stats = self.pool.rollout(steps)
        self._settle()
        return stats

    def render(self) -> tuple[Any, ...] | None:
        if self.render_mode is None:
            return None
        return tuple(self.render_env(i) for i in range(self.num_envs))

    def render_env(self, index: int, mode: str | None = None) -> Any:
        """Render one env: text (``"ansi"``) or an RGB array (``"rgb_array"``)."""
        mode = mode or self.render_mode or "ansi"
        g = self._group
        if not self.pool._has_reset:
            raise RuntimeError("call reset() before render()")
        board = self.pool.board(g.name, index)
        shape = (g.height, g.width)
        if g.geometry in ("hex", "tess") or "tiles" in g.traits:
            return self._render_tiles_or_hex(board, mode)
        if mode == "ansi":
            shape = (g.height, g.width)
            offered = np.frombuffer(board["offered"], dtype=np.uint8).reshape(shape)
            gomorpion = "statuses" in g.traits
            text = _render.ansi(
                board["cells"],
                board["last_move"],
                g.geometry,
                offered,
                np.frombuffer(board["stone_status"], dtype=np.uint8).reshape(shape)
                if gomorpion
                else None,
                np.frombuffer(board["siege"], dtype=np.uint8).reshape(shape) if gomorpion else None,
            )
            if g.has_protocol:
                text += protocol_status(board, g.special_actions) + "\n"
            if gomorpion:
                text += (
                    f"scores {board['scores'][0]} : {board['scores'][1]}, "
                    f"casts {board['casts']}\n{_render.GOMORPION_LEGEND}\n"
                )
            return text
        if mode == "rgb_array":
            return _render.rgb(board["cells"], board["last_move"])
        raise ValueError(f"render mode must be 'ansi' or 'rgb_array', got {mode!r}")

    def _render_tiles_or_hex(self, board: dict[str, Any], mode: str) -> Any:
        g = self._group
        shape = (g.height, g.width)
        modlinseq = "tiles" in g.traits
        tiles = np.frombuffer(board["tiles"], dtype=np.uint8).reshape(shape) if modlinseq else None
        if mode == "rgb_array":
            if g.geometry in ("hex", "tess"):
                m = cell_values(g.config)
                return _render.hex_rgb(board["cells"], board["last_move"], tiles, m)
            return _render.rgb(board["cells"], board["last_move"])
        if mode != "ansi":
            raise ValueError(f"render mode must be 'ansi' or 'rgb_array', got {mode!r}")
        if g.geometry in ("hex", "tess"):
            text = _render.hex_ansi(board["cells"], board["last_move"], tiles)
        else:  # MODLINSEQ on a square board: values in a grid
            assert tiles is not None
            text = (
                "\n".join(" ".join(f"{v - 1:>2}" if v else " ." for v in row) for row in tiles)
                + "\n"
            )
        if modlinseq:
            hands = np.frombuffer(board["hands"], dtype=np.uint8).reshape(2, -1)
            held = [" ".join(str(v) for v, k in enumerate(h) for _ in range(k)) for h in hands]
            text += (
                f"seat {board['seat']} to act; scores {board['scores'][0]} : "
                f"{board['scores'][1]}; hands [{held[0]}] / [{held[1]}]; "
                f"bag {board['bag_left']}\n"
            )
        return text

    # ---- single boards (search, analysis, tests) ----

    def get_state(self, index: int) -> bytes:
        """The full state of one env as bytes (a memcpy; includes its RNG state)."""
        return self.pool.get_state(self._group.name, index)

    def set_state(self, index: int, state: bytes) -> None:
        """Install state bytes from ``get_state`` of the same variant; checked first.
        With an opponent to act in it, the opponent moves."""
        self.pool.set_state(self._group.name, index, state)
        self._settle()

    def clone(self, src: int, dst: int) -> None:
        """Copy env ``src`` onto env ``dst``."""
        self.pool.clone(self._group.name, src, dst)
        self._settle()

    def board(self, index: int) -> dict[str, Any]:
        """Board ``index`` as a dict of plain values (what the renderers draw)."""
        return self.pool.board(self._group.name, index)

    def load_position(
        self,
        index: int,
        rows: Sequence[str] | npt.ArrayLike,
        to_play: str = "auto",
        scores: tuple[int, int] | None = None,
    ) -> None:
        """Start env ``index`` from a position (rows of ``X``/``O``/``.``; see
        :meth:`fiverow.Pool.load_position` for gomorpion's statuses and scores).
        With an opponent to play in it, the opponent moves at once."""
        self.pool.load_position(self._group.name, index, rows, to_play, scores)
        self._settle()

    def load_tiles(
        self, index: int, values: npt.ArrayLike, hands: npt.ArrayLike | None = None
    ) -> None:
        """MODLINSEQ: start env ``index`` from tiles (an int array ``[H, W]``, -1 for
        empty) and, optionally, both hands (counts, ``[2, modulus]``); the bag holds
        the other tiles, shuffled. A position whose segments are not all arithmetic
        progressions mod M is refused."""
        g = self._group
        v = np.asarray(values)
        if v.shape not in ((g.height, g.width), (g.n_cells,)) or v.dtype.kind not in "iu":
            raise ValueError(f"values must be an integer array of shape ({g.height}, {g.width})")
        m = int(self.config["modulus"])
        if v.min(initial=-1) < -1 or v.max(initial=-1) >= m:
            raise ValueError(f"tile values must be -1 (empty) or 0..{m - 1}")
        hand_bytes = None
        if hands is not None:
            h = np.asarray(hands)
            if h.shape != (2, m) or h.dtype.kind not in "iu" or h.min(initial=0) < 0:
                raise ValueError(f"hands must be non-negative counts of shape (2, {m})")
            hand_bytes = h.astype(np.uint8).tobytes()
        self.pool._require_reset()
        tiles = (v.reshape(-1) + 1).astype(np.uint8).tobytes()
        self.pool._batch.load_tiles(g.index, index, tiles, hand_bytes)
        self._settle()

    def __repr__(self) -> str:
        more = ""
        if self.opponent is not None:
            more = f", opponent={self.opponent.name!r}, agent_seat={self.opponent.agent_seat!r}"
        return f"FiverowVectorEnv({self.config.name!r}, num_envs={self.num_envs}{more})"


def protocol_status(board: dict[str, Any], specials: tuple[str, ...]) -> str:
    """One line on where an opening protocol stands."""
    colour = "black" if board["colour"] == 0 else "white"
    parts = [
        f"phase: {board['phase_name']}",
        f"seat {board['seat']} to act",
        f"seat {board['black_seat']} holds black",
        f"next stone {colour}",
    ]
    if board["declared"]:
        parts.append(f"offers {board['offers']}/{board['declared']}")
    if board["opening"] >= 0:
        parts.append(f"opening {OPENINGS[board['opening']]}")
    return "; ".join(parts)


def make_vec(
    name_or_config: str | Mapping[str, Any] | Path | VariantConfig = "freestyle",
    num_envs: int = 1,
    seed: int | None = None,
    num_threads: int | None = None,
    autoreset_mode: Any = "next_step",
    illegal_action: str = "raise",
    observation: str = "absolute",
    opponent: Any = None,
    agent_seat: int | str = 0,
    **overrides: Any,
) -> FiverowVectorEnv:
    """``num_envs`` boards of a variant as a Gymnasium vector environment.

    ``name_or_config`` is a preset name (see :func:`fiverow.variants`), a path
    to a TOML file or a dict of parameters; keyword ``overrides`` change single
    parameters (``make_vec("caro", caro_ends="gomocup")``). ``opponent`` and
    ``agent_seat``: see :class:`FiverowVectorEnv`
    (``make_vec("freestyle", 64, opponent="heuristic", agent_seat="random")``).
    """
    return FiverowVectorEnv(
        name_or_config,
        num_envs,
        seed=seed,
        num_threads=num_threads,
        autoreset_mode=autoreset_mode,
        illegal_action=illegal_action,
        observation=observation,
        opponent=opponent,
        agent_seat=agent_seat,
        **overrides,
    )
