"""OpenSpiel: every preset as an OpenSpiel Python game, its states C boards.

>>> import pyspiel
>>> from fiverow import openspiel
>>> openspiel.register()
>>> game = pyspiel.load_game("fiverow_renju")
>>> state = game.new_initial_state()
>>> state.apply_action(state.legal_actions()[0])

Game names are ``fiverow_`` and the preset's name with ``-`` made ``_``
(``fiverow_renju_soosorv8``); every variant parameter is a game parameter
(``pyspiel.load_game("fiverow_freestyle(height=9,width=9)")``); a game's
string carries those that apply to its variant. OpenSpiel's C++ bots
(``pyspiel.MCTSBot``) crash on Python games: use its Python bots
(``open_spiel.python.algorithms.mcts.MCTSBot``). Players are
the seats (a protocol may hand black to either, and a seat may act twice in a
row); actions are the env's, special actions included. A state holds its
board's state bytes: cloning copies them, pickling and OpenSpiel's
serialization carry them (a process that unpickles a state calls
``register()`` first), and every action is played by the C engine.

Returns are the engine's rewards by seat added up: +1 / -1 / 0 by the outcome
(for Gomorpion and MODLINSEQ, the outcome of the final score), a zero-sum game
with terminal rewards; with ``reward_mode="points"`` the points each seat
scored, a general-sum game rewarded as it goes (``max_utility`` is then a
bound, not a reachable score). A game cut at ``max_steps`` ends with what was
earned so far (0 each by outcome).

MODLINSEQ is a game of chance with hidden hands: its first node is a chance
node that picks the deal (outcome k deals as seed k does, among ``DEALS``
equally likely), and each player's observation shows its own hand only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from ..env.pool import IllegalActionError
from ..env.vector import FiverowVectorEnv
from ..rules.config import (
    VariantConfig,
    applicable_params,
    param_specs,
    preset_names,
    resolve,
    traits_of,
)

#: MODLINSEQ's chance node: the number of equally likely deals (seeds).
DEALS = 1 << 16

_PREFIX = "fiverow_"
_REGISTERED: dict[str, str] = {}  # game name -> preset


class _Engine:
    """The one C board every state of a game is played on, and which state's
    bytes it holds now (installing them again is skipped)."""

    def __init__(self, config: VariantConfig) -> None:
        self.env = FiverowVectorEnv(
            config, 1, num_threads=1, autoreset_mode="disabled", observation="mover"
        )
        self.env.reset(seed=0)
        self.initial = self.loaded = self.env.get_state(0)
        self.initial_mask = self.mask()
        self.action_names = [self.env.action_name(a) for a in range(self.env.n_actions)]
        chance = "chance" in traits_of(config)
        self.chance_outcomes = [(k, 1.0 / DEALS) for k in range(DEALS)] if chance else []

    def holding(self, board: bytes) -> FiverowVectorEnv:
        if self.loaded is not board:
            self.env.set_state(0, board)
            self.loaded = board
        return self.env

    def mask(self) -> bytes:
        """The legal-action mask of the board it holds (a byte per action)."""
        return self.env._group.mask[0].tobytes()

    def played(self) -> bytes:
        """The board's bytes after an action (now what it holds)."""
        self.loaded = self.env.get_state(0)
        return self.loaded


#: one engine per distinct game (name and parameters), found by its key
_ENGINES: dict[str, _Engine] = {}


def game_name(preset: str) -> str:
    """The OpenSpiel name of a preset: ``renju-soosorv8`` -> ``fiverow_renju_soosorv8``."""
    return _PREFIX + re.sub(r"[^a-z0-9_]", "_", preset.lower())


def register() -> list[str]:
    """Register every preset as an OpenSpiel game (again is fine); returns the names."""
    for preset in preset_names():
        name = game_name(preset)
        if name not in _REGISTERED:
            config = resolve(preset)
            pyspiel.register_game(_game_type(name, config), _creator(preset))
            _REGISTERED[name] = preset
    return sorted(_REGISTERED)


#: the game class registered for each preset (a class, as OpenSpiel's own
#: Python games register: OpenSpiel keeps the creator until the process has
#: shut Python down, and a class, unlike a closure, is not freed then)
_GAME_CLASSES: dict[str, type[FiverowGame]] = {}


def _creator(preset: str) -> type[FiverowGame]:
    def __init__(self: FiverowGame, params: dict[str, Any] | None = None) -> None:
        FiverowGame.__init__(self, preset, params)

    cls = type(_class_name(preset), (FiverowGame,), {"__init__": __init__, "__module__": __name__})
    _GAME_CLASSES[preset] = cls
    globals()[cls.__name__] = cls  # pickle finds a game's class by name
    return cls


def _class_name(preset: str) -> str:
    return "FiverowGame_" + game_name(preset)[len(_PREFIX) :]


def __getattr__(name: str) -> Any:
    # a game class asked for by name (unpickling in a fresh process): register first
    if name.startswith("FiverowGame_"):
        register()
        if name in globals():
            return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _pays_points(config: VariantConfig) -> bool:
    return "scoring" in traits_of(config) and config["reward_mode"] == "points"


def _game_type(name: str, config: VariantConfig) -> pyspiel.GameType:
    chance = "chance" in traits_of(config)
    points = _pays_points(config)
    kind = pyspiel.GameType
    return kind(
        short_name=name,
        long_name=f"fiverow {config.name}",
        dynamics=kind.Dynamics.SEQUENTIAL,
        chance_mode=kind.ChanceMode.EXPLICIT_STOCHASTIC
        if chance
        else kind.ChanceMode.DETERMINISTIC,
        information=kind.Information.IMPERFECT_INFORMATION
        if chance
        else kind.Information.PERFECT_INFORMATION,
        utility=kind.Utility.GENERAL_SUM if points else kind.Utility.ZERO_SUM,
        reward_model=kind.RewardModel.REWARDS if points else kind.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=not chance,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_to_spiel(resolve(config.name).params),
    )


def _to_spiel(params: Mapping[str, Any]) -> dict[str, Any]:
    """Parameters as OpenSpiel's game strings carry them: a set parameter
    ("2,3", Pente's capture_lengths) as "[2;3]" (a comma would end it, and a
    lone "2" would read back as an int)."""
    specs = param_specs()
    return {k: f"[{str(v).replace(',', ';')}]" if specs[k].is_set else v for k, v in params.items()}


def from_spiel(params: Mapping[str, Any]) -> dict[str, Any]:
    """Parameters as OpenSpiel gave them, as fiverow reads them: the inverse
    of how game strings carry set parameters ("[2;3]" is "2,3")."""
    specs = param_specs()
    out: dict[str, Any] = {}
    for k, v in params.items():
        if k in specs and specs[k].is_set and isinstance(v, str):
            v = v.strip("[]").replace(";", ",")
        out[k] = v
    return out


def _max_points(config: VariantConfig, env: FiverowVectorEnv) -> float:
    """A bound on one seat's points (reward_mode="points")."""
    if "tiles" not in traits_of(config):
        return float(int(env._group.on_board.sum()))  # gomorpion: a point per captured stone
    # MODLINSEQ: at most one scoring turn per tile; a turn scores its segment
    # and one more per tile and line, each at most C(2T - 1, 2) for T tiles (a
    # bounce line may pass a cell twice)
    tiles = int(config["modulus"]) * int(config["copies"])
    segments = 1 + int(config["hand_size"]) * 3
    return float(tiles * segments * (2 * tiles - 1) * (2 * tiles - 2) // 2)


class FiverowGame(pyspiel.Game):
    """One fiverow variant as an OpenSpiel game (made by ``pyspiel.load_game``)."""

    def __init__(self, preset: str, params: dict[str, Any] | None = None) -> None:
        defaults = resolve(preset).params
        given = from_spiel(params or {})
        unknown = set(given) - set(defaults)
        if unknown:
            raise ValueError(f"unknown parameters {sorted(unknown)}; known: {sorted(defaults)}")
        changed = {k: v for k, v in given.items() if v != defaults[k]}
        self.config = resolve(preset, **changed)
        self.chance = "chance" in traits_of(self.config)
        name = game_name(preset)
        self._key = f"{name}({','.join(f'{k}={v}' for k, v in sorted(self.config.params.items()))})"
        if self._key not in _ENGINES:
            _ENGINES[self._key] = _Engine(self.config)
        env = _ENGINES[self._key].env
        points = _pays_points(self.config)
        info = pyspiel.GameInfo(
            num_distinct_actions=env.n_actions,
            max_chance_outcomes=DEALS if self.chance else 0,
            num_players=2,
            min_utility=0.0 if points else -1.0,
            max_utility=_max_points(self.config, env) if points else 1.0,
            utility_sum=None if points else 0.0,
            max_game_length=env._group.max_steps,
        )
        # the game's parameters (its string, what load_game reads back): those
        # that apply to the variant, not the other rules' and geometries'
        params = _to_spiel(applicable_params(self.config.params))
        super().__init__(_game_type(name, self.config), info, params)

    def new_initial_state(self, state: Any = None) -> FiverowState:
        if state is not None:
            raise ValueError("fiverow states start from new_initial_state() and take actions")
        return FiverowState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        """OpenSpiel's observer: the board planes as the observed player sees them."""
        if iig_obs_type is None or (not iig_obs_type.perfect_recall and _own_view(iig_obs_type)):
            return BoardObserver(self, params)
        if not self.chance:
            return IIGObserverForPublicInfoGame(iig_obs_type, params)
        raise ValueError(f"{self.get_type().short_name} provides no observation {iig_obs_type}")


def _own_view(iig_obs_type: Any) -> bool:
    return bool(iig_obs_type.public_info) and (
        iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
    )


class FiverowState(pyspiel.State):
    """A position: the board's state bytes and what follows from them. Every
    attribute is a plain value, so OpenSpiel's clone (a deep copy of them) and
    its serialization (a pickle of them) carry the board exactly."""

    def __init__(self, game: FiverowGame) -> None:
        super().__init__(game)
        engine = _ENGINES[game._key]
        self._key = game._key
        self._board = engine.initial
        self._chance = game.chance
        self._player = 0
        # legal actions as mask bytes: a clone copies immutable bytes for free
        self._mask = b"" if game.chance else engine.initial_mask
        self._text: str | None = None  # __str__, made once per position
        self._terminal = False
        self._rewards = [0.0, 0.0]
        self._returns = [0.0, 0.0]

    def _engine(self) -> FiverowVectorEnv:
        """The C board, holding this state."""
        return _ENGINES[self._key].holding(self._board)

    # ---- OpenSpiel's State API ----

    def current_player(self) -> int:
        """OpenSpiel's player to act: 0 or 1, or the chance / terminal player id."""
        if self._terminal:
            return int(pyspiel.PlayerId.TERMINAL)
        if self._chance:
            return int(pyspiel.PlayerId.CHANCE)
        return self._player

    def _legal_actions(self, player: int) -> list[int]:
        return np.flatnonzero(np.frombuffer(self._mask, dtype=np.uint8)).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The chance node's outcomes with their probabilities (none at a player's node)."""
        return _ENGINES[self._key].chance_outcomes if self._chance else []

    def _apply_action(self, action: int) -> None:
        engine = _ENGINES[self._key]
        if self._chance:
            env = engine.env
            env.reset(seed=int(action))  # outcome k deals as seed k
            self._chance = False
        else:
            env = self._engine()
            try:
                _, _, terminated, truncated, info = env.step(np.array([action]))
            except IllegalActionError as e:  # in OpenSpiel's words: players, legal_actions()
                message = _spiel_message(self.get_game().get_type().short_name, self._player, e)
                raise IllegalActionError(e.count, e.refused, e.boards, message) from None
            self._rewards = [float(r) for r in info["rewards"][0]]
            self._returns = [a + r for a, r in zip(self._returns, self._rewards, strict=True)]
            self._terminal = bool(terminated[0] or truncated[0])
        self._player = int(env._group.to_play[0])
        self._mask = b"" if self._terminal else engine.mask()
        self._text = None
        self._board = engine.played()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        return _ENGINES[self._key].action_names[action]

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self._terminal

    def returns(self) -> list[float]:
        """Each player's total reward so far (the outcome once the game is over)."""
        return list(self._returns)

    def rewards(self) -> list[float]:
        """Each player's reward of the last action."""
        return list(self._rewards)

    def __str__(self) -> str:
        if self._chance:
            return "(the tiles are not dealt yet)"
        if self._text is None:
            self._text = self._engine().render_env(0, "ansi")
        return self._text


def _spiel_message(game: str, player: int, error: IllegalActionError) -> str:
    """A refused action as an OpenSpiel user reads it."""
    refused = error.refused[0]
    if refused.kind == "over":
        return f"{game}: the state is terminal; no action can be applied to it"
    what = f"action {refused.action}" + (f" ({refused.name})" if refused.name else "")
    return (
        f"{game}: {what} is not legal for player {player}: {refused.reason}; nothing was "
        "applied. state.legal_actions() lists the legal ones"
    )


class BoardObserver:
    """A player's observation: the ``observation="mover"`` planes with that
    player in the mover's place (own / opponent stones, its colour, its own
    MODLINSEQ hand), as a float tensor; the string is the board as text (for
    MODLINSEQ with the player's own hand only)."""

    def __init__(self, game: FiverowGame, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        group = _ENGINES[game._key].env._group
        shape = (len(group.planes), group.height, group.width)
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}
        self._name = game.config.name
        self._hands = game.chance  # MODLINSEQ: hidden hands

    def set_from(self, state: FiverowState, player: int) -> None:
        """Fill ``tensor`` with the board as ``player`` sees it."""
        if state._chance:
            self.tensor.fill(0)
            return
        engine = state._engine()
        self.tensor[:] = engine.pool.observe(self._name, 0, player).reshape(-1)

    def string_from(self, state: FiverowState, player: int) -> str:
        """The board as text, for ``player``."""
        if state._chance:
            return ""
        text = str(state)
        if not self._hands:
            return text
        # MODLINSEQ: the last line shows both hands; a player sees its own
        board = state._engine().board(0)
        hands = np.frombuffer(board["hands"], dtype=np.uint8).reshape(2, -1)
        held = " ".join(str(v) for v, k in enumerate(hands[player]) for _ in range(k))
        lines = text.splitlines()[:-1]
        lines.append(
            f"seat {board['seat']} to act; scores {board['scores'][0]} : {board['scores'][1]}; "
            f"player {player}'s hand [{held}]; bag {board['bag_left']}"
        )
        return "\n".join(lines) + "\n"
