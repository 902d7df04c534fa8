"""fiverow: vectorized C self-play environments for five-in-a-row games.

>>> import fiverow
>>> env = fiverow.make_vec("freestyle", num_envs=4096, seed=0)
>>> obs, info = env.reset()
>>> obs, reward, terminated, truncated, info = env.step(env.sample_legal())

The package's rooms, bottom to top (a module imports at module level only
its own room and the rooms below it: tests/check_rooms.py):

- ``analysis`` (statistics: intervals, tests, SPRT, Elo) and ``rules`` (the
  variants: configs and presets, cell notation, renju's forbidden points and
  openings, MODLINSEQ's addresses);
- ``render`` (text, image and SVG boards);
- ``env`` (the pool of C boards, the vector and single envs, spaces,
  registration, the env's opponent);
- ``nets`` (networks evaluated in C: export, load, the baselines);
- ``players`` (the ``Player`` of the built-in players, Python agents, opening
  books, batched search, the solver);
- ``runs`` (games in bulk: self-play in C, shards, Ray runs, a run's output
  file, games with a Python agent, matches);
- ``data`` (datasets: reader, writer, Minari export, batches, generation);
- ``records`` (game records: Gomocup's ``.psq`` and SGF, the HTML viewer)
  and ``studies`` (the balance study);
- ``adapters`` (PettingZoo, OpenSpiel and Stable-Baselines3, as
  ``fiverow.pettingzoo``, ``fiverow.openspiel`` and ``fiverow.sb3``, imported
  on first use; Gomocup engines);
- ``cli``; ``presets`` holds one TOML file per preset.

The public module names of earlier releases stay importable as aliases of
their new homes (``fiverow.stats`` is ``fiverow.analysis.stats``,
``fiverow.data.selfplay`` is ``fiverow.runs.selfplay``).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from typing import Any

from . import data, nets, players, records, render
from ._version import __version__
from .env.pool import Pool
from .env.registration import env_id, register_envs
from .env.single import FiverowEnv, make
from .env.vector import FiverowVectorEnv, make_vec
from .rules.config import VariantConfig, param_specs, preset_names, resolve, variants
from .runs.match import Match

# Public module names -> the module's home. `import fiverow.stats` and
# `fiverow.stats` both give the moved module itself (not a copy), so code and
# monkeypatches written against the old names keep working.
MODULE_ALIASES = {
    "config": "rules.config",
    "pool": "env.pool",
    "vector": "env.vector",
    "single": "env.single",
    "spaces": "env.spaces",
    "registration": "env.registration",
    "notation": "rules.notation",
    "renju": "rules.renju",
    "modlinseq": "rules.modlinseq",
    "match": "runs.match",
    "agent_match": "runs.agent_match",
    "search": "players.search",
    "solve": "players.solve",
    "generate": "data.generate",
    "selfplay": "runs.selfplay",
    "stats": "analysis.stats",
    "balance": "studies.balance",
    "balance_plots": "studies.balance_plots",
    "engines": "adapters.gomocup",
}
# Modules moved inside the package: their old dotted names -> their homes, kept
# the same way (`fiverow.env.config` is `fiverow.rules.config`, also as the
# attribute `config` of `fiverow.env`).
MOVED_MODULES = {
    "env.config": "rules.config",
    "env.notation": "rules.notation",
    "render.viewer": "records.viewer",
    "data.selfplay": "runs.selfplay",
    "data.shards": "runs.shards",
    "players.match": "runs.match",
    "players.agent_match": "runs.agent_match",
    "analysis.balance": "studies.balance",
    "analysis.balance_report": "studies.balance_report",
    "analysis.balance_plots": "studies.balance_plots",
}
# Modules whose dependencies are optional extras (pettingzoo, open_spiel, ...):
# imported on first use (`fiverow.pettingzoo` or `import fiverow.pettingzoo`),
# so `import fiverow` never needs them. An old dotted name (`data.distributed`)
# works the same; importing the module by any of its names sets all of them.
LAZY_ALIASES: dict[str, str] = {
    "pettingzoo": "adapters.pettingzoo",
    "openspiel": "adapters.openspiel",
    "sb3": "adapters.sb3",
    "distributed": "runs.distributed",
    "data.distributed": "runs.distributed",
}


def _alias(old: str, module: Any) -> None:
    """``fiverow.<old>`` (dotted: ``fiverow.data.selfplay``) is ``module``: by
    import and as the attribute of its package."""
    sys.modules[f"{__name__}.{old}"] = module
    parent, _, name = f"{__name__}.{old}".rpartition(".")
    setattr(sys.modules[parent], name, module)


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Answers `import fiverow.<alias>` with the module at the alias's home."""

    def find_spec(self, fullname: str, path: object, target: object = None) -> Any:
        prefix, _, name = fullname.partition(".")
        home = LAZY_ALIASES.get(name) if prefix == __name__ else None
        if home is None:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(f"{__name__}.{home}"))


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, home: str) -> None:
        self.home = home

    def create_module(self, spec: Any) -> Any:
        module = importlib.import_module(self.home)
        for old, home in LAZY_ALIASES.items():  # all its old names, as when it lived there
            if f"{__name__}.{home}" == self.home:
                _alias(old, module)
        return module

    def exec_module(self, module: Any) -> None:
        pass  # the home module ran when it was imported


sys.meta_path.insert(0, _AliasFinder())


def __getattr__(name: str) -> Any:
    if name in LAZY_ALIASES:
        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


for _old, _new in (MODULE_ALIASES | MOVED_MODULES).items():
    _alias(_old, importlib.import_module(f".{_new}", __name__))
del _old, _new


def make_pool(groups: dict, **kwargs: object) -> Pool:  # type: ignore[type-arg]
    """Boards of several variants stepped together: ``make_pool({"freestyle": 1024,
    "strip": 1024})``. Keyword arguments as :class:`Pool`."""
    return Pool(groups, **kwargs)  # type: ignore[arg-type]


register_envs()

__all__ = [
    "FiverowEnv",
    "FiverowVectorEnv",
    "LAZY_ALIASES",
    "MODULE_ALIASES",
    "MOVED_MODULES",
    "Match",
    "Pool",
    "VariantConfig",
    "__version__",
    "data",
    "env_id",
    "make",
    "make_pool",
    "make_vec",
    "nets",
    "param_specs",
    "players",
    "preset_names",
    "records",
    "register_envs",
    "render",
    "resolve",
    "variants",
    *MODULE_ALIASES,
]
