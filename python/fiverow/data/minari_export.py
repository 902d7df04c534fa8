"""A dataset's variant as a Minari dataset (``pip install 'minari[hdf5]'``)."""

from __future__ import annotations

import builtins
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from ..env.registration import variant_spec
from .reader import Dataset


def export_minari(
    path: str | Path,
    dataset_id: str,
    variant: str | None = None,
    *,
    author: str | None = None,
    description: str | None = None,
) -> Any:
    """Write one variant of a dataset as a Minari dataset (``minari.load_dataset(
    dataset_id)`` loads it). Each step's reward is the acting seat's, as the
    env reports it; observations are rebuilt by replay (absolute planes), and
    each step's legal mask goes into ``infos["action_mask"]``. The dataset's
    env spec is the variant's registered Gymnasium id (``fiverow/Renju-v0``,
    with the variant's parameters where they differ from the preset's), so
    that ``recover_environment()`` makes the env."""
    try:
        import minari
        from minari.data_collector import EpisodeBuffer
    except ImportError as e:
        raise ImportError("export_minari needs minari: pip install 'minari[hdf5]' pillow") from e
    from gymnasium import spaces

    with Dataset(path) as ds:
        if variant is None:
            if len(ds.variants) != 1:
                raise ValueError(
                    f"{path} holds {', '.join(ds.variants)}: say which variant to export"
                )
            variant = ds.variants[0]
        vd = ds[variant]
        buffers = []
        for i in builtins.range(len(vd)):
            r = vd.replay(i)
            n = len(r.actions)
            acting = r.rewards[np.arange(n), r.seats.astype(np.int64)]
            ended_by_truncation = bool(vd.episodes["truncated"][i])
            terminated = np.zeros(n, dtype=bool)
            truncated = np.zeros(n, dtype=bool)
            (truncated if ended_by_truncation else terminated)[-1] = True
            masks = np.concatenate([r.masks, np.zeros((1, vd.n_actions), dtype=bool)])
            buffers.append(
                EpisodeBuffer(
                    id=i,
                    observations=np.concatenate([r.obs, r.final_obs[None]]),
                    actions=r.actions,
                    rewards=acting.astype(np.float64),
                    terminations=terminated,
                    truncations=truncated,
                    infos={"action_mask": masks.astype(np.uint8)},
                )
            )
        algorithm = "fiverow self-play: " + " vs ".join(ds.players)
        text = description or f"fiverow self-play of {variant}, exported from {Path(path).name}"
        with warnings.catch_warnings():
            # minari asks for metadata a local export does not have (e-mail, permalink)
            warnings.simplefilter("ignore", UserWarning)
            return minari.create_dataset_from_buffers(
                dataset_id=dataset_id,
                buffer=buffers,
                env=variant_spec(vd.config),
                observation_space=spaces.Box(0, 1, vd.obs_shape, dtype=np.uint8),
                action_space=spaces.Discrete(vd.n_actions),
                algorithm_name=algorithm,
                author=author,
                description=text,
            )
