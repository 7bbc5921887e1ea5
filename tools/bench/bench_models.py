"""Models shared by the benchmarks: an MLP, a GPT-style transformer, and GPT-2 from transformers.

Small configurations with random weights (no download), so a cold compile is measured in seconds.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F


class MLP(nn.Module):
    """Linear layers with an activation (ReLU unless told) between them."""

    def __init__(self, width: int = 64, depth: int = 3,
                 activation: Callable[[torch.Tensor], torch.Tensor] = F.relu) -> None:
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))
        self.activation = activation

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = self.activation(x)
        return x


class SelfAttention(nn.Module):
    """Causal multi-head self-attention written out with matmuls."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        mask = torch.tril(torch.ones(t, t, dtype=torch.bool))
        att = F.softmax(att.masked_fill(~mask, float("-inf")), dim=-1)
        return self.proj((att @ v).transpose(1, 2).contiguous().view(b, t, c))


class Block(nn.Module):
    """A pre-norm transformer block."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = SelfAttention(dim, heads)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class Transformer(nn.Module):
    """A small GPT-style model: embeddings, blocks, final norm and head."""

    def __init__(self, vocab: int = 128, dim: int = 64, heads: int = 4, layers: int = 2, context: int = 32) -> None:
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(context, dim)
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        _, t = idx.shape
        x = self.tok(idx) + self.pos(torch.arange(t))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


def gpt2(layers: int = 2) -> nn.Module:
    """GPT-2 from transformers with a small configuration and random weights."""
    import transformers

    config = transformers.GPT2Config(n_layer=layers, n_head=2, n_embd=64, vocab_size=128, n_positions=64)
    return transformers.GPT2LMHeadModel(config).eval()


#: name → (model factory, example input factory)
MODELS: dict[str, tuple[Callable[[], nn.Module], Callable[[], Any]]] = {
    "mlp": (lambda: MLP().eval(), lambda: torch.randn(8, 64)),
    "transformer": (lambda: Transformer().eval(), lambda: torch.randint(0, 128, (2, 32))),
    "gpt2": (gpt2, lambda: torch.randint(0, 128, (2, 32))),
}
