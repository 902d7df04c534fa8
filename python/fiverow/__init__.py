"""fiverow: vectorized C self-play environments for five-in-a-row games.

>>> import fiverow
>>> env = fiverow.make_vec("freestyle", num_envs=4096, seed=0)
>>> obs, info = env.reset()
>>> obs, reward, terminated, truncated, info = env.step(env.sample_legal())

The package's rooms: ``env`` (configs, pool, vector and single envs),
``rules`` (renju, modlinseq helpers), ``render``, ``players`` (built-in
players, matches, batched search), ``data`` (datasets, generation),
``analysis`` (statistics, balance), ``cli`` and ``presets`` (one TOML file per
preset). The public module names of earlier releases stay importable as
aliases of their new homes (``fiverow.stats`` is ``fiverow.analysis.stats``).
"""

from __future__ import annotations

import importlib
import sys
from importlib.metadata import PackageNotFoundError, version

from . import data, players, render
from .env.config import VariantConfig, param_specs, preset_names, resolve, variants
from .env.pool import Pool
from .env.registration import env_id, register_envs
from .env.single import FiverowEnv, make
from .env.vector import FiverowVectorEnv, make_vec
from .players.match import Match

try:
    __version__ = version("fiverow")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0"

# Public module names -> the module's home. `import fiverow.stats` and
# `fiverow.stats` both give the moved module itself (not a copy), so code and
# monkeypatches written against the old names keep working.
MODULE_ALIASES = {
    "config": "env.config",
    "pool": "env.pool",
    "vector": "env.vector",
    "single": "env.single",
    "spaces": "env.spaces",
    "registration": "env.registration",
    "notation": "env.notation",
    "renju": "rules.renju",
    "modlinseq": "rules.modlinseq",
    "match": "players.match",
    "agent_match": "players.agent_match",
    "search": "players.search",
    "generate": "data.generate",
    "selfplay": "data.selfplay",
    "stats": "analysis.stats",
    "balance": "analysis.balance",
    "balance_plots": "analysis.balance_plots",
}
for _old, _new in MODULE_ALIASES.items():
    _module = importlib.import_module(f".{_new}", __name__)
    sys.modules[f"{__name__}.{_old}"] = _module
    globals()[_old] = _module
del _old, _new, _module


def make_pool(groups: dict, **kwargs: object) -> Pool:  # type: ignore[type-arg]
    """Boards of several variants stepped together: ``make_pool({"freestyle": 1024,
    "strip": 1024})``. Keyword arguments as :class:`Pool`."""
    return Pool(groups, **kwargs)  # type: ignore[arg-type]


register_envs()

__all__ = [
    "FiverowEnv",
    "FiverowVectorEnv",
    "MODULE_ALIASES",
    "Match",
    "Pool",
    "VariantConfig",
    "__version__",
    "data",
    "env_id",
    "make",
    "make_pool",
    "make_vec",
    "param_specs",
    "players",
    "preset_names",
    "register_envs",
    "render",
    "resolve",
    "variants",
    *MODULE_ALIASES,
]
