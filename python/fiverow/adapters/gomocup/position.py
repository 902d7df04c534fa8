"""A built-in player asked for one move on a given position.

A Gomocup brain is told positions, not games: ``fiverow engine`` loads each
one into a board of its own and lets a built-in player pick the move. The
board is re-seeded before every position, so a move is a pure function of the
position, the colour to move, the player and the seed: the same engine plays
the same game every time, and an in-process twin (the same class over a
vector env's boards) reproduces an engine's games exactly.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ...env.vector import FiverowVectorEnv
from ...players import Player
from ...rules.config import VariantConfig, resolve
from .protocol import rule_params


def gomocup_config(
    width: int, height: int, rule_bits: int, protocol: str = "free"
) -> VariantConfig:
    """The fiverow variant of a Gomocup game: a ``width`` x ``height`` plane under
    the ``INFO rule`` value ``rule_bits``. ValueError for a size or rule fiverow
    does not have."""
    params: dict[str, Any] = {
        "name": "gomocup",
        "geometry": "plane",
        "height": height,
        "width": width,
        "protocol": protocol,
        **rule_params(rule_bits),
    }
    return resolve(params)


#: The node budget of a pvs search on a clock: the clock decides.
PVS_CLOCK_NODES = 1_000_000_000


class PositionPlayer:
    """``move(config, cells, colour)``: the cell a built-in player picks on a
    position (``cells``: ``[H, W]`` codes 0 empty, 1 black, 2 white)."""

    def __init__(self, player: Player, seed: int = 0) -> None:
        self.player = player
        self.seed = seed
        self._envs: dict[tuple[Any, ...], FiverowVectorEnv] = {}

    def env(self, config: VariantConfig) -> FiverowVectorEnv:
        """A one-board env of the variant (made once per variant), reset with the seed."""
        key = tuple(sorted(config.params.items()))
        env = self._envs.get(key)
        if env is None:
            env = FiverowVectorEnv(config, 1, num_threads=1, autoreset_mode="disabled")
            self._envs[key] = env
        env.reset(seed=self.seed)
        return env

    def move(
        self,
        config: VariantConfig,
        cells: npt.NDArray[np.uint8],
        colour: int,
        simulations: int | None = None,
        time_ms: int | None = None,
    ) -> int:
        """The player's cell for ``colour`` (0 black, 1 white) to move; with
        ``simulations``, a searching player (MCTS, a net with simulations)
        searches that many instead of its own; with ``time_ms``, a pvs player
        searches on that clock instead of its node budget. ValueError for a
        position the rules refuse or with no legal move."""
        env = self.env(config)
        env.load_position(0, cells, to_play="black" if colour == 0 else "white")
        if not env.action_masks()[0].any():
            raise ValueError("no legal move in this position")
        return self.act(env, simulations, time_ms)

    def act(
        self, env: FiverowVectorEnv, simulations: int | None = None, time_ms: int | None = None
    ) -> int:
        """The player's action on board 0 of ``env`` as it stands."""
        player = self.player
        if simulations is not None and player.kind in ("mcts", "net") and player.simulations:
            player = replace(player, simulations=int(simulations))
        if time_ms is not None and player.kind == "pvs":
            player = replace(player, time_ms=int(time_ms), nodes=PVS_CLOCK_NODES)
        return int(player.act(env)[0])

    def close(self) -> None:
        """Close the envs kept per variant."""
        for env in self._envs.values():
            env.close()
        self._envs.clear()
