"""An opponent in the loop: one seat of every board is played for the agent.

``make_vec(preset, num_envs, opponent=..., agent_seat=...)`` (and ``make``)
takes any player :func:`fiverow.players.make` takes. A built-in player moves
in C inside the same ``step`` call (the same parallel region as the agent's
move); a Python player is called once per round with the vector env, for
every board that waits on it at once, until every board is at the agent's
turn or finished. ``agent_seat`` is 0, 1 or ``"random"`` (drawn per episode
from the board's seeded stream); when the opponent moves first, the reset
observation already shows its moves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ..players import Player
    from ..players.agent import Agent
    from .vector import FiverowVectorEnv

#: agent_seat values and their C codes
AGENT_SEATS: dict[object, int] = {0: 0, 1: 1, "random": 2}
_NONE, _BUILTIN, _EXTERNAL = 0, 1, 2


def agent_seat_code(agent_seat: object) -> int:
    if isinstance(agent_seat, bool | np.bool_) or agent_seat not in AGENT_SEATS:
        raise ValueError(f"agent_seat must be 0, 1 or 'random', got {agent_seat!r}")
    return AGENT_SEATS[agent_seat]  # type: ignore[index]


@dataclass(frozen=True)
class Opponent:
    """The resolved opponent of an env: a built-in player or a Python one."""

    player: Player | Agent
    agent_seat: int | str

    @property
    def builtin(self) -> bool:
        from ..players import Player

        return isinstance(self.player, Player)

    @property
    def name(self) -> str:
        from ..players.agent import agent_name

        return agent_name(self.player)

    def seat(self, batch: Any) -> None:
        """Seat this opponent on every board of a C batch (before a reset)."""
        kind = _BUILTIN if self.builtin else _EXTERNAL
        spec = self.player.spec() if self.builtin else None  # type: ignore[union-attr]
        batch.set_opponent(kind, spec, agent_seat_code(self.agent_seat))


def resolve_opponent(opponent: Any, agent_seat: object) -> Opponent | None:
    """``opponent`` as :func:`fiverow.players.make` takes it (None: no
    opponent, both seats are the caller's), with the agent's seat checked."""
    from .. import players

    code = agent_seat_code(agent_seat)
    if opponent is None:
        if code != 0:
            raise ValueError(
                f"agent_seat={agent_seat!r} needs an opponent: without one, the caller plays "
                "both seats"
            )
        return None
    return Opponent(players.make(opponent), agent_seat)  # type: ignore[arg-type]


def play_python_opponent(env: FiverowVectorEnv, opponent: Opponent) -> None:
    """Rounds of the Python opponent: one ``act(env)`` call for every board that
    waits on it, until none does. Its actions on other boards are ignored."""
    from ..players.agent import checked_actions

    group = env._group
    pool = env.pool
    while group.waiting.any():
        forfeits: dict[int, str] = {}
        actions = checked_actions(opponent.player, "the opponent", env, group.waiting, forfeits)
        if forfeits:  # an engine that failed: the env has no way to score it
            shown = ", ".join(f"board {b}: {why}" for b, why in sorted(forfeits.items())[:5])
            raise RuntimeError(f"the opponent ({opponent.name}) forfeited ({shown})")
        result = pool._batch.opponent_step([np.ascontiguousarray(actions, dtype=np.int64)])
        if result is not None:  # checked above: only a bug gets here
            count, errors = result
            raise RuntimeError("the opponent's actions: " + pool._format_errors(count, errors))
