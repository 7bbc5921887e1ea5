"""Small models used by ``loom demo``, the tests and ``tools/bench``.

:mod:`loom.skipfiles` treats this folder as user code, so loom compiles these like any model of yours.
Sizes are tiny on purpose: the demo and the benchmarks measure compilation and per-call overhead,
not arithmetic.
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn
from torch.nn import functional as F


def sin_plus_one(x: torch.Tensor) -> torch.Tensor:
    """The tiny function of the README: one pointwise chain."""
    return torch.sin(x) + 1


def warm_up(x: torch.Tensor) -> torch.Tensor:
    """An unrelated function to compile first, so that one-off imports and caches are not timed."""
    return torch.cos(x) * 2 - x


class TinyMLP(nn.Module):
    """Residual linear layers with ReLU and a final layer norm."""

    def __init__(self, width: int = 64, depth: int = 3) -> None:
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(width, width) for _ in range(depth)])
        self.norm = nn.LayerNorm(width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x`` of shape (batch, width) -> same shape."""
        for layer in self.layers:
            x = torch.relu(layer(x)) + x
        return self.norm(x)


class CausalSelfAttention(nn.Module):
    """Multi-head self-attention with a causal mask, written out (no fused attention kernel)."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        if dim % heads:
            raise ValueError(f"dim ({dim}) must be a multiple of heads ({heads})")
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x`` of shape (batch, steps, dim) -> same shape; step t attends to steps <= t."""
        batch, steps, dim = x.shape
        head_dim = dim // self.heads
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.reshape(batch, steps, self.heads, head_dim).transpose(1, 2)
        k = k.reshape(batch, steps, self.heads, head_dim).transpose(1, 2)
        v = v.reshape(batch, steps, self.heads, head_dim).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(head_dim)
        causal = torch.ones(steps, steps, dtype=torch.bool, device=x.device).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
        mixed = torch.matmul(F.softmax(scores, dim=-1), v)
        return self.out(mixed.transpose(1, 2).reshape(batch, steps, dim))


class TransformerBlock(nn.Module):
    """A pre-norm transformer block: attention and a GELU MLP, each with a residual connection."""

    def __init__(self, dim: int = 32, heads: int = 4) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.fc_in = nn.Linear(dim, 4 * dim)
        self.fc_out = nn.Linear(4 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x`` of shape (batch, steps, dim) -> same shape."""
        x = x + self.attn(self.norm1(x))
        return x + self.fc_out(F.gelu(self.fc_in(self.norm2(x))))


class TinyGPT(nn.Module):
    """A GPT-style language model: token and position embeddings, ``layers`` blocks, a tied LM head."""

    def __init__(self, vocab: int = 128, dim: int = 32, heads: int = 4, layers: int = 2, context: int = 32) -> None:
        super().__init__()
        self.context = context
        self.tokens = nn.Embedding(vocab, dim)
        self.positions = nn.Embedding(context, dim)
        self.blocks = nn.ModuleList([TransformerBlock(dim, heads) for _ in range(layers)])
        self.norm = nn.LayerNorm(dim)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Token ids of shape (batch, steps) -> logits of shape (batch, steps, vocab)."""
        steps = ids.shape[1]
        positions = torch.arange(steps, device=ids.device)
        x = self.tokens(ids) + self.positions(positions)
        for block in self.blocks:
            x = block(x)
        return F.linear(self.norm(x), self.tokens.weight)  # weights tied with the token embedding


def gpt2(layers: int = 2, dim: int = 64, heads: int = 4, vocab: int = 1000, context: int = 64) -> Any:
    """A Hugging Face ``GPT2LMHeadModel`` with a small config and random weights (no download), in eval mode."""
    import transformers

    config = transformers.GPT2Config(
        n_layer=layers, n_head=heads, n_embd=dim, vocab_size=vocab, n_positions=context,
        attn_pdrop=0.0, embd_pdrop=0.0, resid_pdrop=0.0, bos_token_id=0, eos_token_id=0,
    )
    return transformers.GPT2LMHeadModel(config).eval()


def generate(model: nn.Module, ids: torch.Tensor, steps: int = 4, stop_token: int | None = None) -> torch.Tensor:
    """Greedy decoding: append the most likely next token ``steps`` times, stopping early at ``stop_token``.

    The early stop reads a tensor's value in Python (``.item()``), which a graph cannot hold: loom
    breaks the graph there and runs that part as ordinary Python (``loom demo`` shows the break).
    """
    for _ in range(steps):
        logits = model(ids[:, -model.context :])
        next_id = logits[:, -1].argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
        if stop_token is not None and next_id[0, 0].item() == stop_token:
            break
    return ids
