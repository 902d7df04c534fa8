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

import numpy as np
import numpy.typing as npt

try:
    import torch
    from torch.utils.data import IterableDataset, get_worker_info
except ImportError as e:  # say what to do
    raise ImportError("fiverow.data.TorchBatches needs torch: pip install torch") from e

from .batches import Batches, SourceArg
from .reader import Dataset


def _paths(source: SourceArg) -> list[str | Path]:
    """Files rather than open handles: each worker opens its own."""
    items: list[str | Path | Dataset] = (
        [source] if isinstance(source, str | Path | Dataset) else list(source)
    )
    return [item.path if isinstance(item, Dataset) else item for item in items]


#: A packed batch larger than this crosses from a worker in shared memory (one
#: tensor, one file descriptor); a smaller one as bytes through the worker's
#: pipe, which is faster for it (benchmarks/bench_batches.py --loader).
SHARED_MEMORY_BYTES = 1 << 20


class PackedBatch:
    """A batch on its way out of a DataLoader worker: its arrays in one buffer.

    torch sends each tensor of a dict across on its own (a shared-memory
    segment and a file descriptor passed over a socket each: most of a small
    batch's time); packed, a batch crosses in one piece. It is unpickled in
    the main process as the batch itself, a dict of tensors (views of one
    buffer), so the DataLoader yields dicts as without workers."""

    def __init__(self, batch: dict[str, npt.NDArray[Any]]) -> None:
        layout = []
        at = 0
        for name, array in batch.items():
            layout.append((name, array.dtype.str, array.shape, at, at + array.nbytes))
            at += array.nbytes
        self.buffer = np.empty(at, dtype=np.uint8)
        for (_, _, _, start, stop), array in zip(layout, batch.values(), strict=True):
            self.buffer[start:stop] = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
        self.layout = tuple(layout)

    def __reduce__(self) -> tuple[Any, ...]:
        payload: Any = self.buffer
        if self.buffer.nbytes > SHARED_MEMORY_BYTES:
            payload = torch.from_numpy(self.buffer)  # moved to shared memory by torch
        return (unpack_batch, (payload, self.layout))

    def unpack(self) -> dict[str, torch.Tensor]:
        """The batch as a dict of tensors (what the main process receives)."""
        return unpack_batch(self.buffer, self.layout)


def unpack_batch(
    payload: npt.NDArray[np.uint8] | torch.Tensor, layout: tuple[Any, ...]
) -> dict[str, torch.Tensor]:
    """A :class:`PackedBatch`'s arrays as tensors, views of its one buffer."""
    buffer = payload.numpy() if isinstance(payload, torch.Tensor) else payload
    return {
        name: torch.from_numpy(buffer[start:stop].view(np.dtype(dtype)).reshape(shape))
        for name, dtype, shape, start, stop in layout
    }


class TorchBatches(IterableDataset):  # type: ignore[type-arg,misc]
    """:class:`~fiverow.data.Batches` for ``torch.utils.data.DataLoader``:
    the same arguments, batches as dicts of tensors. Use
    ``DataLoader(ds, batch_size=None, num_workers=k)``: the batches are made
    here; each worker reads a disjoint share of the games (no position
    twice), with its own shuffle buffer and its own last, smaller batch
    (unless ``drop_last``), and sends each batch to the main process in one
    piece (a :class:`PackedBatch`, a dict of tensors again once received).
    Call :meth:`set_epoch` before each epoch, as with torch's
    DistributedSampler: workers start afresh every epoch. A
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

    def __iter__(self) -> Iterator[dict[str, torch.Tensor] | PackedBatch]:
        index, count = self.kwargs.get("shard", (0, 1))
        info = get_worker_info()
        if info is not None:
            index, count = index * info.num_workers + info.id, count * info.num_workers
        kwargs = {**self.kwargs, "shard": (index, count)}
        with Batches(self.source, self.batch_size, **kwargs) as batches:
            batches.set_epoch(self.epoch)
            for batch in batches:
                if info is not None:  # a worker: the batch crosses to the main process
                    yield PackedBatch(batch)
                else:
                    yield {name: torch.from_numpy(array) for name, array in batch.items()}
