"""A pool: groups of boards, one variant per group, stepped by C in one call.

The vector environment is a pool with one group; dataset generation and the
balance tool run pools of several variants. Output arrays are allocated here
once and written by C in place (zero copy): each call returns the same arrays,
overwritten by the next call. Copy what you keep.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from .. import _core
from ..rules.config import VariantConfig, resolve
from ..rules.notation import POSITION_CHARS as POSITION_CHARS  # board characters: notation's
from ..rules.notation import action_name, parse_action, parse_position
from ..rules.notation import position_cells as position_cells

AUTORESET_MODES = {"next_step": 0, "same_step": 1, "disabled": 2}
ILLEGAL_ACTIONS = {"raise": 0, "lose": 1, "random": 2}
OBSERVATIONS = {"absolute": 0, "mover": 1}

#: The largest number of offending envs an illegal-action error lists.
_ERRORS_SHOWN = 10

GroupsArg = Mapping[str, "int | Mapping[str, Any]"]


def _choice(value: object, table: Mapping[str, int], what: str) -> str:
    text = getattr(value, "name", value)  # gymnasium's AutoresetMode enum
    if isinstance(text, str):
        key = text.lower()
        key = {"nextstep": "next_step", "samestep": "same_step"}.get(key, key)
        if key in table:
            return key
    raise ValueError(f"{what} must be one of {', '.join(table)}, got {value!r}")


#: The largest ``num_threads`` (the C core's limit: more threads than this
#: only make OpenMP fail to create its team).
MAX_THREADS = _core.MAX_THREADS
#: The largest number of boards in a group (C counts boards in an int).
MAX_ENVS = 2**31 - 1


def check_count(value: object, what: str, lo: int, hi: int, *, allow_none: bool = False) -> None:
    """Refuse a count that is not an integer in ``lo..hi`` (numpy integers are fine)."""
    if value is None and allow_none:
        return
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        none = " or None" if allow_none else ""
        raise TypeError(f"{what} must be an int{none}, got {type(value).__name__} {value!r}")
    if not lo <= int(value) <= hi:
        raise ValueError(f"{what} must be in {lo}..{hi}, got {value}")


#: The largest seed: seeds are 64-bit unsigned keys in the C core.
MAX_SEED = (1 << 64) - 1


def check_seed(seed: object) -> int | None:
    """``seed`` as an int in 0..2**64-1, or None; anything else raises, naming it."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"seed must be an int or None, got {type(seed).__name__}")
    if not 0 <= int(seed) <= MAX_SEED:
        # seeds are 64-bit keys in C: a larger one would silently wrap
        raise ValueError(f"seed must be >= 0 and <= 2**64-1, got {seed}")
    return int(seed)


def fresh_seed() -> int:
    """A seed from the operating system's entropy, for reset(seed=None)."""
    entropy = np.random.SeedSequence().entropy
    assert isinstance(entropy, int)
    return entropy % (1 << 63)


@dataclass
class _GroupSpec:
    name: str
    config: VariantConfig
    num_envs: int


def _parse_groups(groups: GroupsArg) -> list[_GroupSpec]:
    if not isinstance(groups, Mapping) or not groups:
        raise ValueError("groups must be a non-empty mapping of name -> num_envs (or dict)")
    out = []
    for name, spec in groups.items():
        if isinstance(spec, Mapping):
            spec = dict(spec)
            if "num_envs" not in spec:
                raise ValueError(f"group '{name}' needs 'num_envs'")
            num_envs = spec.pop("num_envs")
            given = spec.pop("config", None)
            if isinstance(given, VariantConfig) and not spec:
                config = given
            else:
                base = spec.pop("variant", spec.pop("preset", name))
                config = resolve(base, **spec)
        else:
            num_envs = spec
            config = resolve(name)
        check_count(num_envs, f"group '{name}': num_envs", 1, MAX_ENVS)
        out.append(_GroupSpec(str(name), config, int(num_envs)))
    return out


#: C's reasons that are not about the rules (the others name the rule broken)
EPISODE_OVER = "the episode is over"
OPPONENT_TO_ACT = "the opponent is to act on this board"


@dataclass(frozen=True)
class RefusedAction:
    """One action a step refused: where, what, and why (C's reason)."""

    group: str
    index: int
    action: int
    #: the action's name (``h8``), None when out of range
    name: str | None
    reason: str

    @property
    def kind(self) -> str:
        """``"range"``, ``"over"`` (the board's episode is over), ``"waiting"``
        (the opponent is to act) or ``"illegal"`` (the rules forbid it)."""
        if self.name is None:
            return "range"
        return {EPISODE_OVER: "over", OPPONENT_TO_ACT: "waiting"}.get(self.reason, "illegal")

    def describe(self) -> str:
        """``action 18 (a7): occupied`` / ``action 99 is out of range 0..80``."""
        if self.name is None:
            return f"action {self.action} is {self.reason}"
        return f"action {self.action} ({self.name}): {self.reason}"


class IllegalActionError(ValueError):
    """A step refused some actions and stepped nothing (``illegal_action="raise"``,
    or an action out of range, or a finished board not reset). ``refused``
    lists the first ones (:class:`RefusedAction`), ``count`` all of them. The
    message is the vector env's; the single env, PettingZoo and OpenSpiel
    adapters say it in their own API's words."""

    def __init__(
        self,
        count: int,
        refused: list[RefusedAction],
        boards: dict[str, int],
        message: str | None = None,
    ) -> None:
        self.count = count
        self.refused = refused
        self.boards = boards  # group -> number of boards
        super().__init__(message or self._message())

    def __reduce__(self) -> tuple[Any, ...]:  # pickles (Ray, multiprocessing) as it is
        return (type(self), (self.count, self.refused, self.boards, str(self)))

    def kinds(self) -> set[str]:
        """The kinds of the refused actions listed (:attr:`RefusedAction.kind`)."""
        return {r.kind for r in self.refused}

    def _message(self) -> str:
        total = sum(self.boards.values())
        parts = []
        for r in self.refused:
            where = f"{r.group} " if len(self.boards) > 1 else ""
            where += f"env {r.index}: " if self.boards[r.group] > 1 else ""
            parts.append(where + r.describe())
        more = f"; and {self.count - len(parts)} more" if self.count > len(parts) else ""
        envs = "env" if total == 1 else "envs"
        head = f"illegal actions in {self.count} of {total} {envs}, no env was stepped: "
        return head + "; ".join(parts) + more + "." + vector_remedies(self.kinds())


def vector_remedies(kinds: set[str]) -> str:
    """What a vector env's user does about refused actions of these kinds."""
    text = ""
    if "illegal" in kinds:
        text += (
            " Play legal actions only: mask them with info['action_mask'] (or "
            "env.action_masks(), which sb3-contrib's MaskablePPO reads), or make the env "
            "with illegal_action='lose' (an illegal action loses the game) or "
            "illegal_action='random' (a random legal action is played instead)."
        )
    if "over" in kinds:
        text += (
            " A finished episode must be reset first: reset(options={'reset_mask': done}) "
            "(or autoreset_mode='next_step' / 'same_step')."
        )
    if "waiting" in kinds:
        text += " The opponent moves on its own inside step(): act only where it is your turn."
    return text


class Group:
    """One group of a pool: its variant, spaces and output arrays."""

    def __init__(self, pool: Pool, index: int, spec: _GroupSpec) -> None:
        info = pool._batch.group_info(index)
        self.name = spec.name
        self.config = spec.config
        self.index = index
        self.num_envs: int = info["num_envs"]
        self.n_actions: int = info["n_actions"]
        self.n_cells: int = info["n_cells"]
        self.height: int = info["height"]
        self.width: int = info["width"]
        self.max_steps: int = info["max_steps"]
        self.state_size: int = info["state_size"]
        self.planes: tuple[str, ...] = tuple(info["planes"])
        self.on_board = np.frombuffer(info["on_board"], dtype=np.uint8).reshape(
            self.height, self.width
        )
        self.special_actions: tuple[str, ...] = tuple(info["specials"])
        #: the rule family (csrc/rules/) and its traits ("lines", "scoring",
        #: "captures", "tiles", ...): what the Python layer asks instead of names
        self.family: str = info["family"]
        self.traits: frozenset[str] = frozenset(info["traits"])
        #: actions that name cells (MODLINSEQ: cells x values)
        self.action_cells: int = info["action_cells"]
        #: (code, name) of each protocol phase, in the order of the phase planes
        self.phases: tuple[tuple[int, str], ...] = tuple(info["phases"])
        shape = (len(self.planes), self.height, self.width)
        # planes are 0/1 but for a family's counts (Pente's captures)
        high = np.broadcast_to(
            np.array(info["plane_high"], dtype=np.uint8)[:, None, None], shape
        ).copy()
        self.single_observation_space = spaces.Box(0, high, shape, dtype=np.uint8)
        self.single_action_space = spaces.Discrete(self.n_actions)
        n = self.num_envs
        self.obs = np.zeros((n, *shape), dtype=np.uint8)
        self.mask = np.zeros((n, self.n_actions), dtype=np.uint8)
        self.reward = np.zeros(n, dtype=np.float32)
        self.rewards = np.zeros((n, 2), dtype=np.float32)
        self.terminated = np.zeros(n, dtype=np.bool_)
        self.truncated = np.zeros(n, dtype=np.bool_)
        self.to_play = np.zeros(n, dtype=np.int8)
        self.winner = np.full(n, -1, dtype=np.int8)
        self.episode_length = np.zeros(n, dtype=np.int32)
        self.illegal = np.zeros(n, dtype=np.bool_)
        self.sampled = np.zeros(n, dtype=np.int64)
        self.black_seat = np.zeros(n, dtype=np.int8)
        self.phase = np.zeros(n, dtype=np.int8)
        self.opening = np.full(n, -1, dtype=np.int8)
        self.scores = np.zeros((n, 2), dtype=np.int32)
        self.cast_points = np.zeros((n, 2), dtype=np.int32)
        self.casts = np.zeros(n, dtype=np.int32)
        self.captures = np.zeros((n, 2), dtype=np.int32)
        self.agent_seat = np.zeros(n, dtype=np.int8)
        self.waiting = np.zeros(n, dtype=np.bool_)
        arrays: dict[str, npt.NDArray[Any]] = {
            "obs": self.obs,
            "mask": self.mask,
            "reward": self.reward,
            "rewards": self.rewards,
            "terminated": self.terminated,
            "truncated": self.truncated,
            "to_play": self.to_play,
            "winner": self.winner,
            "episode_length": self.episode_length,
            "illegal": self.illegal,
            "sampled": self.sampled,
            "black_seat": self.black_seat,
            "phase": self.phase,
            "opening": self.opening,
            "scores": self.scores,
            "cast_points": self.cast_points,
            "casts": self.casts,
            "captures": self.captures,
            "agent_seat": self.agent_seat,
            "waiting": self.waiting,
        }
        self.same_step = pool.autoreset_mode == "same_step"
        #: same-step mode: the info of the games that ended in the last step
        self.final: dict[str, npt.NDArray[Any]] = {}
        if self.same_step:
            self.has_final = np.zeros(n, dtype=np.bool_)
            arrays["has_final"] = self.has_final
            for key in _FINAL_KEYS:
                arrays[f"final_{_FINAL_KEYS[key]}"] = np.zeros_like(arrays[key])
        #: the writable arrays C writes (a pickled pool's outputs go back into them)
        self._buffers = arrays
        for key, array in arrays.items():
            pool._batch.bind(index, key, array)
            # what users see is read-only: C updates planes and masks in place,
            # so a write into them would corrupt every later step
            view = array.view()
            view.flags.writeable = False
            setattr(self, key, view)
        for key in _FINAL_KEYS if self.same_step else ():
            self.final[key] = getattr(self, f"final_{_FINAL_KEYS[key]}")
        #: with an opponent, the info reports the agent's seat
        self.with_opponent = False
        self._report_illegal = pool.illegal_action != "raise"
        self.has_protocol = len(self.phases) > 1
        #: scoring games report running scores
        self.scoring = "scoring" in self.traits
        #: families that take stones off the board report the captures
        self.capturing = "captures" in self.traits

    @property
    def geometry(self) -> str:
        return str(self.config["geometry"])

    @property
    def tile_modulus(self) -> int:
        """MODLINSEQ's tile values per cell (its actions are cell x value), 0
        where an action is a cell."""
        return self.action_cells // self.n_cells if self.action_cells > self.n_cells else 0

    def action_name(self, action: int) -> str:
        if not 0 <= action < self.n_actions:
            raise ValueError(f"action {action} is out of range 0..{self.n_actions - 1}")
        return action_name(
            action,
            self.n_cells,
            self.height,
            self.width,
            self.geometry,
            self.special_actions,
            self.tile_modulus,
        )

    def parse_action(self, text: str) -> int:
        """The action named ``text``, as :meth:`action_name` writes it (see
        :func:`fiverow.notation.parse_action`)."""
        return parse_action(
            text,
            self.n_cells,
            self.height,
            self.width,
            self.geometry,
            self.special_actions,
            self.tile_modulus,
            self.on_board.reshape(-1).astype(bool).tolist(),
        )

    def info(self) -> dict[str, Any]:
        """The info dict of the last reset / step (arrays shared with C). In
        same-step mode, where games ended, ``final_obs`` and ``final_info``
        (every key below, of the finished games) with their ``_`` masks."""
        info = self._info_of(
            {key: getattr(self, key) for key in _FINAL_KEYS}, action_mask=self.mask
        )
        if self.same_step and self.has_final.any():
            info["final_obs"] = self.final["obs"]
            info["_final_obs"] = self.has_final
            final = self._info_of(self.final, action_mask=self.final["mask"])
            for key in list(final):
                final[f"_{key}"] = self.has_final
            info["final_info"] = final
            info["_final_info"] = self.has_final
        return info

    def _info_of(
        self, arrays: Mapping[str, npt.NDArray[Any]], action_mask: npt.NDArray[Any]
    ) -> dict[str, Any]:
        info: dict[str, Any] = {
            "action_mask": action_mask,
            "to_play": arrays["to_play"],
            "rewards": arrays["rewards"],
            "winner": arrays["winner"],
            "episode_length": arrays["episode_length"],
        }
        if self.with_opponent:
            info["agent_seat"] = arrays["agent_seat"]
        if self._report_illegal:
            info["illegal"] = arrays["illegal"]
        if self.scoring:
            info["scores"] = arrays["scores"]
            info["cast_points"] = arrays["cast_points"]
            info["casts"] = arrays["casts"]
        if self.capturing:
            info["captures"] = arrays["captures"]
        if self.has_protocol:
            info["black_seat"] = arrays["black_seat"]
            info["phase"] = arrays["phase"]
            info["opening"] = arrays["opening"]
        return info


#: Same-step mode: the outputs kept for the games that end (group attribute:
#: the name C binds it under, after ``final_``).
_FINAL_KEYS = {
    "obs": "obs",
    "mask": "mask",
    "rewards": "rewards",
    "to_play": "to_play",
    "winner": "winner",
    "episode_length": "length",
    "illegal": "illegal",
    "black_seat": "black_seat",
    "phase": "phase",
    "opening": "opening",
    "scores": "scores",
    "cast_points": "cast_points",
    "casts": "casts",
    "captures": "captures",
    "agent_seat": "agent_seat",
}


class Pool:
    """Groups of boards, possibly of different variants, stepped together in C.

    ``groups`` maps a group name to its number of boards (the name is then a
    preset) or to a dict ``{"num_envs": n, "variant": preset, **overrides}``.
    """

    def __init__(
        self,
        groups: GroupsArg,
        *,
        seed: int | None = None,
        num_threads: int | None = None,
        autoreset_mode: Any = "next_step",
        illegal_action: str = "raise",
        observation: str = "absolute",
    ) -> None:
        self.autoreset_mode = _choice(autoreset_mode, AUTORESET_MODES, "autoreset_mode")
        self.illegal_action = _choice(illegal_action, ILLEGAL_ACTIONS, "illegal_action")
        self.observation = _choice(observation, OBSERVATIONS, "observation")
        if num_threads is None:
            num_threads = _core.max_threads()
        check_count(num_threads, "num_threads", 1, MAX_THREADS)
        self.num_threads = int(num_threads)
        self._seed = check_seed(seed)
        specs = _parse_groups(groups)
        self._batch = _core.Batch(
            [(s.config.params, s.num_envs) for s in specs],
            self.num_threads,
            AUTORESET_MODES[self.autoreset_mode],
            ILLEGAL_ACTIONS[self.illegal_action],
            OBSERVATIONS[self.observation],
        )
        self.groups: dict[str, Group] = {s.name: Group(self, i, s) for i, s in enumerate(specs)}
        self._order = list(self.groups)
        self._has_reset = False

    # ---- pickling (copy.deepcopy too) ----

    def __getstate__(self) -> dict[str, Any]:
        """The groups, the options, every board's state bytes (random-number keys
        and counters included) and the outputs of the last call: an unpickled
        pool continues exactly as this one would."""
        return {
            "groups": {
                name: {"num_envs": g.num_envs, "config": g.config}
                for name, g in self.groups.items()
            },
            "options": {
                "seed": self._seed,
                "num_threads": self.num_threads,
                "autoreset_mode": self.autoreset_mode,
                "illegal_action": self.illegal_action,
                "observation": self.observation,
            },
            "boards": {
                name: [self.get_state(name, i) for i in range(g.num_envs)]
                for name, g in self.groups.items()
            }
            if self._has_reset
            else None,
            "outputs": {
                name: {key: array.copy() for key, array in g._buffers.items()}
                for name, g in self.groups.items()
            },
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["groups"], **state["options"])  # type: ignore[misc]
        if state["boards"] is not None:
            self.reset(seed=0)  # allocates every board; each is then overwritten
            for name, boards in state["boards"].items():
                for i, board in enumerate(boards):
                    self.set_state(name, i, board)
        for name, outputs in state["outputs"].items():
            for key, array in outputs.items():
                np.copyto(self.groups[name]._buffers[key], array)

    # ---- helpers ----

    def group(self, name: str) -> Group:
        """The group named ``name`` (a preset or variant of the pool)."""
        try:
            return self.groups[name]
        except KeyError:
            raise KeyError(f"no group '{name}'; groups: {', '.join(self._order)}") from None

    def _actions(self, group: Group, actions: object) -> npt.NDArray[np.int64]:
        if actions is None:
            raise TypeError(
                f"actions for '{group.name}' must be an array of {group.num_envs} integers, "
                "got None"
            )
        a = np.asarray(actions)
        if a.shape != (group.num_envs,):
            raise ValueError(
                f"actions for '{group.name}' must have shape ({group.num_envs},), got {a.shape}"
            )
        if a.dtype.kind not in "iu":
            raise TypeError(f"actions for '{group.name}' must be integers, got dtype {a.dtype}")
        if a.dtype != np.int64:
            if a.dtype == np.uint64 and a.size and int(a.max()) > np.iinfo(np.int64).max:
                raise ValueError(f"actions for '{group.name}' out of range (uint64 overflow)")
            a = a.astype(np.int64)
        return np.ascontiguousarray(a)

    def _illegal_error(
        self, count: int, errors: Sequence[tuple[int, int, int, str]]
    ) -> IllegalActionError:
        """The refused actions of a step (C's ``(group, index, action, reason)``), named."""
        refused = []
        for gi, index, action, reason in errors[:_ERRORS_SHOWN]:
            g = self.groups[self._order[gi]]
            in_range = 0 <= action < g.n_actions
            refused.append(
                RefusedAction(
                    g.name,
                    index,
                    action,
                    g.action_name(action) if in_range else None,
                    reason if in_range else f"out of range 0..{g.n_actions - 1}",
                )
            )
        return IllegalActionError(
            count, refused, {name: g.num_envs for name, g in self.groups.items()}
        )

    def _format_errors(self, count: int, errors: Sequence[tuple[int, int, int, str]]) -> str:
        return str(self._illegal_error(count, errors))

    def _require_reset(self, method: str = "step") -> None:
        if not self._has_reset:
            raise RuntimeError(f"call reset() before {method}()")

    # ---- the API ----

    def reset(
        self, seed: int | None = None, masks: Mapping[str, npt.ArrayLike] | None = None
    ) -> None:
        """Reset every board, or the boards where ``masks[name]`` is True.

        With a seed, boards are re-keyed from it (same seed, same games);
        without one, each board starts its next episode.
        """
        seed = check_seed(seed)
        if seed is None and not self._has_reset:
            seed = self._seed if self._seed is not None else fresh_seed()
        mask_arrays = None
        if masks is not None:
            unknown = set(masks) - set(self.groups)
            if unknown:
                raise KeyError(f"reset masks for unknown groups: {sorted(unknown)}")
            mask_arrays = []
            for name in self._order:
                g = self.groups[name]
                m = np.asarray(masks.get(name, np.zeros(g.num_envs, dtype=np.bool_)))
                if m.shape != (g.num_envs,) or m.dtype != np.bool_:
                    raise ValueError(
                        f"reset mask for '{name}' must be a bool array of shape "
                        f"({g.num_envs},), got {m.dtype} {m.shape}"
                    )
                mask_arrays.append(np.ascontiguousarray(m))
            if not self._has_reset:
                raise RuntimeError("call reset() without a mask first")
        self._batch.reset(seed, mask_arrays)
        self._has_reset = True

    def step(self, actions: Mapping[str, npt.ArrayLike]) -> None:
        """Step every board of every group; results are in each group's arrays.

        Raises ``ValueError`` (and steps nothing) on an action out of range, on
        a finished episode that was not reset, or, with
        ``illegal_action="raise"``, on an illegal action.
        """
        self._require_reset()
        if not isinstance(actions, Mapping) or set(actions) != set(self.groups):
            raise ValueError(
                f"actions must map every group name to an array: {', '.join(self._order)}"
            )
        arrays = [self._actions(self.groups[n], actions[n]) for n in self._order]
        result = self._batch.step(arrays)
        if result is not None:
            count, errors = result
            raise self._illegal_error(count, errors)

    def sample_legal(self) -> dict[str, npt.NDArray[np.int64]]:
        """A uniformly random legal action per board, drawn in C (0 where done)."""
        self._require_reset("sample_legal")
        self._batch.sample()
        return {name: g.sampled for name, g in self.groups.items()}

    def rollout(self, steps: int) -> dict[str, int]:
        """Every board plays ``steps`` random legal moves in C, resetting finished games
        at once. Returns totals (steps, episodes, seat wins, draws, truncations)."""
        self._require_reset("rollout")
        if isinstance(steps, bool) or not isinstance(steps, int | np.integer):
            raise TypeError(f"steps must be an int, got {steps!r}")
        stats: dict[str, int] = self._batch.rollout(int(steps))
        return stats

    # ---- single boards ----

    def get_state(self, name: str, index: int) -> bytes:
        """Board ``index`` of group ``name`` as bytes (restore it with :meth:`set_state`)."""
        self._require_reset("get_state")
        return bytes(self._batch.get_state(self.group(name).index, index))

    def set_state(self, name: str, index: int, state: bytes) -> None:
        """Restore board ``index`` of group ``name`` from :meth:`get_state` bytes."""
        self._require_reset("set_state")
        self._batch.set_state(self.group(name).index, index, state)

    def clone(self, name: str, src: int, dst: int) -> None:
        """Copy board ``src`` of group ``name`` onto board ``dst`` (the same future)."""
        self._require_reset("clone")
        self._batch.clone(self.group(name).index, src, dst)

    def observe(
        self, name: str, index: int, seat: int, kind: str = "mover"
    ) -> npt.NDArray[np.uint8]:
        """Board ``index`` as seat ``seat`` sees it, whoever is to act: planes of
        ``kind`` (``"mover"``: own / opponent stones, the seat's colour, its own
        MODLINSEQ hand), a fresh ``uint8[C, H, W]`` array."""
        self._require_reset("observe")
        g = self.group(name)
        if isinstance(seat, bool) or seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, got {seat!r}")
        code = OBSERVATIONS[_choice(kind, OBSERVATIONS, "kind")]
        data = self._batch.observe(g.index, index, int(seat), code)
        return np.frombuffer(data, dtype=np.uint8).reshape(-1, g.height, g.width).copy()

    def board(self, name: str, index: int) -> dict[str, Any]:
        """Cells (``[H, W]``: 0 empty, 1 black, 2 white, 3 off board) and header of a board."""
        self._require_reset("board")
        g = self.group(name)
        data: dict[str, Any] = self._batch.board(g.index, index)
        data["cells"] = np.frombuffer(data["cells"], dtype=np.uint8).reshape(g.height, g.width)
        return data

    def load_position(
        self,
        name: str,
        index: int,
        rows: Sequence[str] | npt.ArrayLike,
        to_play: str = "auto",
        scores: tuple[int, int] | None = None,
    ) -> None:
        """Set up a position: rows of ``X`` (black), ``O`` (white), ``.`` (empty), or an
        array of cell codes. ``to_play`` is ``"black"``, ``"white"`` or ``"auto"`` (black
        when the stone counts are equal). The episode restarts from it, in normal play.

        Gomorpion also reads ``x`` / ``o`` (recapturable) and ``B`` / ``W`` (captured)
        stones, computes the sieges as at a cast end, and credits captured stones to
        the other colour unless ``scores`` (by seat) says otherwise."""
        self._require_reset("load_position")
        g = self.group(name)
        cells, status = parse_position(rows, g.height, g.width)
        if to_play == "auto":
            colour = 0 if (cells == 1).sum() == (cells == 2).sum() else 1
        elif to_play in ("black", "white"):
            colour = 0 if to_play == "black" else 1
        else:
            raise ValueError(f"to_play must be 'black', 'white' or 'auto', got {to_play!r}")
        five = self._batch.load_position(
            g.index,
            index,
            cells.tobytes(),
            colour,
            None if status is None else status.tobytes(),
            None if scores is None else (int(scores[0]), int(scores[1])),
        )
        if five is not None:  # refused, nothing changed: name the stones of the five
            who = "black" if cells[five[0]] == 1 else "white"
            names = " ".join(g.action_name(c) for c in five)
            raise ValueError(f"position refused: it is already won ({who} five: {names})")
