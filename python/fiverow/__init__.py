"""fiverow: vectorized C self-play environments for five-in-a-row games.

>>> import fiverow
>>> env = fiverow.make_vec("freestyle", num_envs=4096, seed=0)
>>> obs, info = env.reset()
>>> obs, reward, terminated, truncated, info = env.step(env.sample_legal())
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from . import data, generate, players
from .config import VariantConfig, param_specs, preset_names, resolve, variants
from .match import Match
from .pool import Pool
from .registration import env_id, register_envs
from .single import FiverowEnv, make
from .vector import FiverowVectorEnv, make_vec

try:
    __version__ = version("fiverow")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0"


def make_pool(groups: dict, **kwargs: object) -> Pool:  # type: ignore[type-arg]
    """Boards of several variants stepped together: ``make_pool({"freestyle": 1024,
    "strip": 1024})``. Keyword arguments as :class:`Pool`."""
    return Pool(groups, **kwargs)  # type: ignore[arg-type]


register_envs()

__all__ = [
    "FiverowEnv",
    "FiverowVectorEnv",
    "Match",
    "Pool",
    "VariantConfig",
    "__version__",
    "data",
    "env_id",
    "generate",
    "make",
    "make_pool",
    "make_vec",
    "param_specs",
    "players",
    "preset_names",
    "register_envs",
    "resolve",
    "variants",
]
