"""The residual network that :func:`fiverow.nets.export` writes, in torch.

The examples train it (examples/alphazero.py, examples/supervised.py,
examples/train_baseline.py) and :func:`fiverow.nets.to_torch` rebuilds it
from a network file. Importing this module imports torch (``pip install
'fiverow[train]'``).
"""

from __future__ import annotations

import torch
from torch import nn


class Residual(nn.Module):
    """Two 3x3 convolutions with batch norm; the block's input is added
    before the last ReLU."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.b1 = nn.BatchNorm2d(channels)
        self.c2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.b2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.b1(self.c1(x)))
        return torch.relu(x + self.b2(self.c2(y)))


class Net(nn.Module):
    """A small residual tower; a policy head over the actions (logits) and a
    value head in [-1, 1] for the seat to move.

    ``obs_shape`` is (planes, height, width) of the observation, ``n_actions``
    the variant's action count; ``blocks`` residual blocks of ``channels``
    channels; the policy head reduces to ``policy_channels`` planes before
    its linear layer, the value head has ``value_hidden`` hidden units (the
    file's size is mostly the policy head's linear layer:
    ``policy_channels * cells * n_actions`` floats)."""

    def __init__(
        self,
        obs_shape: tuple[int, ...],
        n_actions: int,
        blocks: int,
        channels: int,
        policy_channels: int = 2,
        value_hidden: int = 64,
    ) -> None:
        super().__init__()
        planes, height, width = obs_shape
        self.stem = nn.Sequential(
            nn.Conv2d(planes, channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(channels),
            nn.ReLU(),
        )
        self.tower = nn.Sequential(*[Residual(channels) for _ in range(blocks)])
        cells = height * width
        self.policy = nn.Sequential(
            nn.Conv2d(channels, policy_channels, 1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(policy_channels * cells, n_actions),
        )
        self.value = nn.Sequential(
            nn.Conv2d(channels, 1, 1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(cells, value_hidden),
            nn.ReLU(),
            nn.Linear(value_hidden, 1),
            nn.Tanh(),
        )

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.tower(self.stem(x))
        return self.policy(h), self.value(h).squeeze(-1)
