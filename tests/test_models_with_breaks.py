"""Real models with a print and a data-dependent branch inserted into their forward still match eager."""

from __future__ import annotations

import contextlib
import copy
import io
import sys
from pathlib import Path

import pytest
import torch
from torch import nn

import loom

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "bench"))
from bench_models import MLP, Transformer
from breaks_harness import show


class Tap(nn.Module):
    """Wraps a submodule: prints, then branches on the data (both graph breaks)."""

    def __init__(self, inner: nn.Module, label: str) -> None:
        super().__init__()
        self.inner = inner
        self.label = label

    def forward(self, *args, **kwargs):
        y = self.inner(*args, **kwargs)
        hidden = y[0] if isinstance(y, tuple) else y
        show(self.label, tuple(hidden.shape))
        if hidden.mean() > 0:
            hidden = hidden * 1.5
        else:
            hidden = hidden * 0.5
        return (hidden, *y[1:]) if isinstance(y, tuple) else hidden


class ResBlock(nn.Module):
    def __init__(self, channels: int = 4) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(out)) + x)


def mlp_with_taps():
    model = MLP(width=16, depth=3).eval()
    model.layers[1] = Tap(model.layers[1], "layer1")
    return model, (torch.randn(4, 16),)


def resblock_with_taps():
    model = ResBlock().train()
    model.conv2 = Tap(model.conv2, "conv2")
    return model, (torch.randn(2, 4, 6, 6),)


def transformer_with_taps():
    model = Transformer(vocab=32, dim=16, heads=2, layers=2, context=8).eval()
    model.blocks[0].mlp = Tap(model.blocks[0].mlp, "block0.mlp")
    return model, (torch.randint(0, 32, (2, 8)),)


def gpt2_with_taps():
    transformers = pytest.importorskip("transformers")
    config = transformers.GPT2Config(n_layer=2, n_head=2, n_embd=16, vocab_size=32, n_positions=16)
    model = transformers.GPT2LMHeadModel(config).eval()
    model.transformer.h[1].mlp = Tap(model.transformer.h[1].mlp, "h1.mlp")
    return model, (torch.randint(0, 32, (2, 8)),)


def llama_with_taps():
    # the break is inside the attention, after the decoder layer's `residual = hidden_states`
    transformers = pytest.importorskip("transformers")
    config = transformers.LlamaConfig(num_hidden_layers=2, hidden_size=16, intermediate_size=32,
                                      num_attention_heads=2, num_key_value_heads=1, vocab_size=32)
    model = transformers.LlamaForCausalLM(config).eval()
    model.model.layers[0].self_attn = Tap(model.model.layers[0].self_attn, "layer0.attention")
    return model, (torch.randint(0, 32, (2, 8)),)


def bert_with_taps():
    transformers = pytest.importorskip("transformers")
    config = transformers.BertConfig(num_hidden_layers=2, num_attention_heads=2, hidden_size=16,
                                     intermediate_size=32, vocab_size=32, max_position_embeddings=16)
    model = transformers.BertModel(config).eval()
    model.encoder.layer[0].output.dense = Tap(model.encoder.layer[0].output.dense, "layer0.output")
    return model, (torch.randint(0, 32, (2, 8)),)


def _logits(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if hasattr(out, "logits"):
        return [out.logits]
    return [out.last_hidden_state, out.pooler_output]


@pytest.mark.parametrize("build", [mlp_with_taps, resblock_with_taps, transformer_with_taps, gpt2_with_taps,
                                   bert_with_taps, llama_with_taps])
def test_model_with_print_and_branch_matches_eager(build):
    torch.manual_seed(0)
    model, inputs = build()
    eager_model = copy.deepcopy(model)
    eager_out, eager_print = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(eager_print):
        expected = eager_model(*inputs)
    loom.reset()
    compiled = loom.compile(model, backend="eager")
    with contextlib.redirect_stdout(eager_out):
        actual = compiled(*inputs)
    assert eager_out.getvalue() == eager_print.getvalue()
    for a, e in zip(_logits(actual), _logits(expected)):
        torch.testing.assert_close(a, e)
    stats = loom.stats()
    assert stats["graph_breaks"] >= 2 and stats["graphs"] >= 3, stats
    for (name, a), (_, e) in zip(model.state_dict().items(), eager_model.state_dict().items()):
        torch.testing.assert_close(a, e, msg=name)  # BatchNorm running statistics in train mode
