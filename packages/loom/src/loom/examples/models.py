"""Small models used by ``loom demo``, the tests and ``tools/bench``."""

from __future__ import annotations

import torch


def sin_plus_one(x: torch.Tensor) -> torch.Tensor:
    """The tiny function of the README: one pointwise chain."""
    return torch.sin(x) + 1


class TinyMLP(torch.nn.Module):
    """Three residual linear layers and a layer norm."""

    def __init__(self, width: int = 64, depth: int = 3) -> None:
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(width, width) for _ in range(depth)])
        self.norm = torch.nn.LayerNorm(width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = torch.relu(layer(x)) + x
        return self.norm(x)
