"""Gymnasium ids for every preset: ``gymnasium.make("fiverow/Freestyle-v0")``."""

from __future__ import annotations

import dataclasses

import gymnasium
from gymnasium.envs.registration import EnvSpec

from ..rules.config import VariantConfig, preset_names, resolve

NAMESPACE = "fiverow"


def env_id(preset: str) -> str:
    """Gymnasium id of a preset: ``renju-soosorv8`` -> ``fiverow/RenjuSoosorv8-v0``."""
    camel = "".join(part[:1].upper() + part[1:] for part in preset.split("-"))
    return f"{NAMESPACE}/{camel}-v0"


def register_envs() -> list[str]:
    """Register every preset with Gymnasium (done on ``import fiverow``).

    The registered single env defaults to ``illegal_action="lose"`` (PettingZoo
    classic's convention): generic tools sample actions without the mask, and
    ``check_env`` even samples before a ``reset()`` that can make them illegal
    (the centre rule of renju). ``fiverow.make`` and ``make_vec`` default to
    ``"raise"``; pass ``illegal_action=`` to choose.
    """
    ids = []
    for preset in preset_names():
        eid = env_id(preset)
        if eid not in gymnasium.registry:
            gymnasium.register(
                id=eid,
                entry_point="fiverow.single:FiverowEnv",
                vector_entry_point="fiverow.vector:FiverowVectorEnv",
                kwargs={"variant": preset, "illegal_action": "lose"},
            )
        ids.append(eid)
    return ids


def variant_spec(config: VariantConfig) -> EnvSpec:
    """The Gymnasium spec that makes a single env of ``config``
    (``gymnasium.make(spec)``): the preset's registered spec, with the
    variant's parameters in its kwargs where they differ from the preset's
    (a custom variant's id is made from its name the same way)."""
    register_envs()
    if config.name in preset_names():
        spec = gymnasium.spec(env_id(config.name))
        if resolve(config.name).params == config.params:
            return spec
    else:
        spec = gymnasium.spec(env_id(preset_names()[0]))
    variant = {**config.params, "name": config.name}
    return dataclasses.replace(
        spec, id=env_id(config.name), kwargs={**spec.kwargs, "variant": variant}
    )
