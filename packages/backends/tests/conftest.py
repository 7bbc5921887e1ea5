"""Shared fixtures: small models built here (loom's translator is not needed to make FX graphs)."""

from __future__ import annotations

import os
import tempfile
import types

import pytest
import torch
from torch import nn

# Every generated kernel goes to a throw-away cache, never the user's ~/.cache.
os.environ.setdefault("LOOM_CACHE_DIR", tempfile.mkdtemp(prefix="loom-test-cache-"))
torch.set_num_threads(1)


class MLP(nn.Module):
    def __init__(self, d_in: int = 12, hidden: int = 24, d_out: int = 6) -> None:
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.fc1(x))
        x = torch.nn.functional.gelu(self.fc2(x))
        return torch.log_softmax(self.fc3(x), dim=-1)


class Block(nn.Module):
    """A pre-norm transformer block (GPT-2 style) written out by hand."""

    def __init__(self, d: int = 16, heads: int = 2, seq: int = 5) -> None:
        super().__init__()
        self.d = d
        self.heads = heads
        self.register_buffer("mask", torch.ones(seq, seq, dtype=torch.bool).tril())
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        c, h = self.d, self.heads
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q = q.view(b, t, h, c // h).transpose(1, 2)
        k = k.view(b, t, h, c // h).transpose(1, 2)
        v = v.view(b, t, h, c // h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (c // h) ** 0.5)
        att = att.masked_fill(~self.mask, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        x = x + self.proj(y)
        return x + self.out(torch.nn.functional.gelu(self.fc(self.ln2(x)), approximate="tanh"))


def trace(fn_or_module) -> torch.fx.GraphModule:
    return torch.fx.symbolic_trace(fn_or_module)


@pytest.fixture
def models() -> types.SimpleNamespace:
    return types.SimpleNamespace(MLP=MLP, Block=Block, trace=trace)
