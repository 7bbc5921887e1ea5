"""Whole models through the ``triton`` backend: forward and backward match eager, with few kernels."""

from __future__ import annotations

import copy

import pytest
import torch
from torch import nn

import loom_backends


class ConvNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.head = nn.Linear(4, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn(self.conv(x)))
        return self.head(y.mean(dim=(2, 3)))


class Embedder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(11, 8)
        self.norm = nn.LayerNorm(8)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.norm(self.emb(idx))).sum(dim=1)


def train_step(module, inputs, *, grad_input=True):
    reference = copy.deepcopy(module)
    gm = torch.fx.symbolic_trace(module)
    ours = [x.clone().requires_grad_(grad_input and x.is_floating_point()) for x in inputs]
    theirs = [x.clone().requires_grad_(grad_input and x.is_floating_point()) for x in inputs]
    compiled = loom_backends.get("triton")(gm, ours)
    out, want = compiled(*ours), reference(*theirs)
    torch.testing.assert_close(out, want, atol=1e-5, rtol=1e-4)
    grad = torch.randn_like(want)
    out.backward(grad)
    want.backward(grad)
    for a, b in zip(ours, theirs):
        if a.requires_grad:
            torch.testing.assert_close(a.grad, b.grad, atol=1e-5, rtol=1e-4)
    for (name, p), q in zip(gm.named_parameters(), reference.parameters()):
        torch.testing.assert_close(p.grad, q.grad, atol=1e-5, rtol=1e-4, msg=name)
    return compiled


# kernels per graph: a regression guard (the benchmark compares these with inductor's)
@pytest.mark.parametrize(
    "name, shape, forward_kernels, backward_kernels",
    [("MLP", (2, 8, 12), 3, 4), ("Block", (2, 5, 16), 7, 10)],
)
def test_models_train_through_triton(name, shape, forward_kernels, backward_kernels, models):
    torch.manual_seed(0)
    compiled = train_step(getattr(models, name)(), [torch.randn(*shape)])
    fw, bw = compiled.graph("forward").compiled, compiled.graph("backward").compiled
    assert fw.fallback_reason is None and bw.fallback_reason is None
    assert len(fw.kernels) <= forward_kernels, [k.name for k in fw.kernels]
    assert len(bw.kernels) <= backward_kernels, [k.name for k in bw.kernels]
    assert {e.op for e in compiled.externs} <= {"aten.mm.default", "aten.bmm.default"}
    assert len(compiled.kernels) == len(fw.kernels) + len(bw.kernels)


def test_conv_batchnorm_net_trains(models):
    torch.manual_seed(1)
    compiled = train_step(ConvNet(), [torch.randn(2, 3, 6, 6)])
    ops = {e.op for e in compiled.externs}
    assert "aten.convolution.default" in ops and "aten.convolution_backward.default" in ops
    assert not any("batch_norm" in op for op in ops)  # decomposed and fused


def test_embedding_layernorm_trains():
    torch.manual_seed(2)
    compiled = train_step(Embedder(), [torch.randint(0, 11, (3, 4))], grad_input=False)
    assert [e.op for e in compiled.graph("forward").compiled.externs] == []


def test_inference_graph_in_half_precision(models):
    torch.manual_seed(3)
    module = models.MLP().to(torch.bfloat16).eval()
    for p in module.parameters():
        p.requires_grad_(False)
    x = torch.randn(4, 12, dtype=torch.bfloat16)
    compiled = loom_backends.get("triton")(torch.fx.symbolic_trace(module), [x])
    torch.testing.assert_close(compiled(x), module(x), atol=2e-2, rtol=2e-2)
    assert [g.kind for g in compiled.graphs] == ["inference"]


def test_gpt2_from_transformers_trains_through_triton(gpt2_training):
    """A real model, captured by TorchDynamo as loom's translator would hand it over."""
    artifacts = gpt2_training("triton", n_layer=2, n_embd=32, vocab_size=97, n_positions=16, ids_shape=(2, 12))
    graphs = [g for a in artifacts for g in a.graphs]
    assert {g.kind for g in graphs} == {"forward", "backward"}
    assert all(g.compiled.fallback_reason is None for g in graphs)
    externs = {e.op.split(".")[1] for a in artifacts for e in a.externs}
    allowed = {"mm", "bmm", "index_put", "embedding_dense_backward", "_scaled_dot_product_flash_attention_for_cpu",
               "_scaled_dot_product_flash_attention_for_cpu_backward"}  # fmt: skip
    assert externs <= allowed, externs
