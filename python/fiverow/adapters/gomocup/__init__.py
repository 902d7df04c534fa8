"""Gomocup engines, both ways (public as ``fiverow.engines``).

- ``fiverow engine --player mcts:400`` (:func:`serve`, :class:`EngineServer`):
  a built-in player as a Gomocup brain, for Piskvork or a Gomocup manager.
- :class:`Gomocup`: an external brain as a fiverow player.

The protocol itself (parsing, both directions) is :mod:`.protocol`; the
supported subset and the time rule are in docs/engines.md.
"""

from .player import EngineError, Gomocup, from_spec, is_spec
from .position import PositionPlayer, gomocup_config
from .protocol import parse_answer, parse_line, rule_bits, rule_params
from .server import EngineServer, serve

__all__ = [
    "EngineError",
    "EngineServer",
    "Gomocup",
    "from_spec",
    "is_spec",
    "PositionPlayer",
    "gomocup_config",
    "parse_answer",
    "parse_line",
    "rule_bits",
    "rule_params",
    "serve",
]
