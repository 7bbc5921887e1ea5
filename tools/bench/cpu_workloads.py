"""The workloads of ``cpu_bench.py``: small CPU models with random weights, seeded, no download.

Each factory returns ``(model, inputs)``; ``model(*inputs)`` returns one tensor. Sizes follow the
measurements in ``/work/shared/notes/cpu-codegen-facts.md`` (pointwise chain 512x2048, MLP 6x384,
transformer block d=192, GPT-2 3 layers d=192, ...), small enough that a full run stays in minutes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch
from bench_models import MLP
from torch import nn
from torch.nn import functional as F


class PointwiseChain(nn.Module):
    """Elementwise work only: what a fusing compiler turns into one loop."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.gelu(x) * 2.0 + 1.0
        y = torch.tanh(y) * torch.sigmoid(x) - 0.5 * x
        return torch.where(y > 0, y.exp() - 1.0, y * y)


class NormBlock(nn.Module):
    """Softmax, layer norm and group norm around a residual: reductions with pointwise work around them."""

    def __init__(self, channels: int = 64, width: int = 256) -> None:
        super().__init__()
        self.ln = nn.LayerNorm(width)
        self.gn = nn.GroupNorm(8, channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.softmax(self.ln(x) * 1.5, dim=-1) * x.shape[-1]
        y = self.gn(y + x)
        return F.silu(y) + x


class Block(nn.Module):
    """A GPT-style pre-norm transformer block written out with matmuls."""

    def __init__(self, dim: int = 192, heads: int = 6) -> None:
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(c // self.heads))
        mask = torch.ones(t, t, dtype=torch.bool).tril()
        att = att.masked_fill(~mask, float("-inf")).softmax(dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, t, c))
        return x + self.mlp(self.ln2(x))


class GPT2Logits(nn.Module):
    """GPT-2 from transformers (3 layers, d=192, random weights, no dropout) returning its logits."""

    def __init__(self) -> None:
        super().__init__()
        import transformers

        config = transformers.GPT2Config(
            n_layer=3, n_head=6, n_embd=192, vocab_size=1024, n_positions=128,
            resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=0, eos_token_id=0,
        )
        self.gpt2 = transformers.GPT2LMHeadModel(config)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.gpt2(ids, use_cache=False).logits


class ConvNet(nn.Module):
    """Convolutions with batch norm and ReLU, pooling, a linear head."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, padding=1, stride=2), nn.BatchNorm2d(64), nn.ReLU(),
            nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        )
        self.head = nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x).mean(dim=(2, 3)))


class EmbeddingLookup(nn.Module):
    """Rows gathered through a table of token ids and scaled: an indirect load per element, each index
    checked against the table's size (eager raises on one out of range)."""

    def __init__(self) -> None:
        super().__init__()
        self.table = nn.Embedding(50000, 256)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.table(ids) * 2.0


def _pointwise() -> tuple[nn.Module, tuple[Any, ...]]:
    return PointwiseChain(), (torch.randn(512, 2048),)


def _norm() -> tuple[nn.Module, tuple[Any, ...]]:
    return NormBlock(), (torch.randn(16, 64, 256),)


def _mlp() -> tuple[nn.Module, tuple[Any, ...]]:
    # Six linear layers with GELU between them (matmuls stay ATen calls; bias+GELU fuse).
    return MLP(width=384, depth=6, activation=F.gelu), (torch.randn(64, 384),)


def _block() -> tuple[nn.Module, tuple[Any, ...]]:
    return Block(), (torch.randn(4, 64, 192),)


def _gpt2() -> tuple[nn.Module, tuple[Any, ...]]:
    return GPT2Logits(), (torch.randint(0, 1024, (2, 64)),)


def _conv() -> tuple[nn.Module, tuple[Any, ...]]:
    return ConvNet(), (torch.randn(8, 3, 32, 32),)


def _embedding() -> tuple[nn.Module, tuple[Any, ...]]:
    return EmbeddingLookup(), (torch.randint(0, 50000, (8192,)),)


#: name → factory; the order is the table's.
WORKLOADS: dict[str, Callable[[], tuple[nn.Module, tuple[Any, ...]]]] = {
    "pointwise": _pointwise,
    "norms": _norm,
    "mlp": _mlp,
    "block": _block,
    "gpt2": _gpt2,
    "convnet": _conv,
    "embedding": _embedding,
}


def make(name: str, train: bool) -> tuple[nn.Module, tuple[Any, ...]]:
    """The workload, seeded, in train or eval mode; for training, float inputs of parameter-free models
    require grad (so that the backward has something to compute)."""
    torch.manual_seed(0)
    model, inputs = WORKLOADS[name]()
    model.train(train)
    if train and not any(p.requires_grad for p in model.parameters()):
        inputs = tuple(t.requires_grad_() if t.is_floating_point() else t for t in inputs)
    return model, inputs
