"""fiverow.data.Batches as a torch IterableDataset (torch is optional: this
module is imported when ``fiverow.data.TorchBatches`` is first used).

>>> ds = data.TorchBatches("games.h5", 256, seed=1)  # doctest: +SKIP
>>> loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=2)
>>> for epoch in range(3):
...     ds.set_epoch(epoch)
...     for batch in loader: ...
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

try:
    import torch
    from torch.utils.data import IterableDataset, get_worker_info
except ImportError as e:  # say what to do
    raise ImportError("fiverow.data.TorchBatches needs torch: pip install torch") from e

from . import Dataset
from .batches import Batches, SourceArg


def _paths(source: SourceArg) -> list[str | Path]:
    """Files rather than open handles: each worker opens its own."""
    items: list[str | Path | Dataset] = (
        [source] if isinstance(source, str | Path | Dataset) else list(source)
    )
    return [item.path if isinstance(item, Dataset) else item for item in items]


class TorchBatches(IterableDataset):  # type: ignore[type-arg,misc]
    """:class:`~fiverow.data.Batches` for ``torch.utils.data.DataLoader``:
    the same arguments, batches as dicts of tensors. Use
    ``DataLoader(ds, batch_size=None, num_workers=k)``: the batches are made
    here; each worker reads a disjoint share of the games (no position
    twice), with its own shuffle buffer and its own last, smaller batch
    (unless ``drop_last``). Call :meth:`set_epoch` before each epoch, as with
    torch's DistributedSampler: workers start afresh every epoch. A
    ``shard=(rank, ranks)`` argument (distributed training) is split again
    between the workers."""

    def __init__(self, source: SourceArg, batch_size: int, **kwargs: Any) -> None:
        super().__init__()
        self.source = _paths(source)
        self.batch_size = batch_size
        self.kwargs = kwargs
        self.epoch = 0
        with Batches(self.source, batch_size, **kwargs) as probe:  # checks every argument now
            self.variants = list(probe.variants)
            self.files = list(probe.files)
            self.shapes = probe.shapes

    def set_epoch(self, epoch: int) -> None:
        self.epoch = int(epoch)

    def __iter__(self) -> Iterator[dict[str, torch.Tensor]]:
        index, count = self.kwargs.get("shard", (0, 1))
        info = get_worker_info()
        if info is not None:
            index, count = index * info.num_workers + info.id, count * info.num_workers
        kwargs = {**self.kwargs, "shard": (index, count)}
        with Batches(self.source, self.batch_size, **kwargs) as batches:
            batches.set_epoch(self.epoch)
            for batch in batches:
                yield {name: torch.from_numpy(array) for name, array in batch.items()}
