"""Channels-last layout for graphs with 2-D convolutions in the C backend (c/channels_last.py): the
convolutions and the kernels around them run channels-last, while every output, gradient and running
statistic keeps eager's values and strides."""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.fx.experimental.proxy_tensor import make_fx

import loom_backends
from loom_backends.c import compile_graph, config

aten = torch.ops.aten
CL = torch.channels_last


class Net(nn.Module):
    """conv-bn-relu twice (the second strided), then pooled; also returns an activation (a 4-D output)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.conv2, self.bn2 = nn.Conv2d(8, 16, 3, padding=1, stride=2), nn.BatchNorm2d(16)

    def forward(self, x):
        # functional calls: symbolic_trace records them as loom's translator does (call_function conv2d)
        a = F.relu(F.batch_norm(F.conv2d(x, self.conv1.weight, self.conv1.bias, 1, 1), self.bn1.running_mean,
                                self.bn1.running_var, self.bn1.weight, self.bn1.bias, self.training, 0.1, 1e-5))
        b = F.relu(F.batch_norm(F.conv2d(a, self.conv2.weight, self.conv2.bias, 2, 1), self.bn2.running_mean,
                                self.bn2.running_var, self.bn2.weight, self.bn2.bias, self.training, 0.1, 1e-5))
        return a * 0.5, b.mean(dim=(2, 3))  # fmt: skip


def _layout(t: torch.Tensor) -> tuple:
    return t.stride(), t.is_contiguous(), t.is_contiguous(memory_format=CL)


def _run(train: bool, memory_format: torch.memory_format):
    torch.manual_seed(0)
    model = Net().to(memory_format=memory_format).train(train)
    reference = copy.deepcopy(model)
    x = torch.randn(2, 3, 10, 10).contiguous(memory_format=memory_format)
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(model), [x])
    with torch.set_grad_enabled(train):
        got, want = compiled(x), reference(x)
        if train:
            sum(o.sum() for o in got).backward()
            sum(o.sum() for o in want).backward()
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-4, atol=1e-5)
        assert _layout(g) == _layout(w)
    for (name, p), q in zip(reference.named_parameters(), model.parameters()):
        if train:
            torch.testing.assert_close(q.grad, p.grad, rtol=1e-4, atol=1e-4, msg=name)
            assert _layout(q.grad) == _layout(p.grad), name
    for (name, b), c in zip(reference.named_buffers(), model.buffers()):
        torch.testing.assert_close(c, b, rtol=1e-4, atol=1e-6, msg=name)  # running stats updated as eager
    return compiled


def _host(compiled) -> str:
    return "\n".join(g.compiled.host_source for g in compiled.graphs)


@pytest.mark.parametrize("memory_format", [torch.contiguous_format, CL], ids=["nchw", "channels_last"])
@pytest.mark.parametrize("train", [True, False], ids=["training", "inference"])
def test_conv_net_matches_eager_values_and_strides(train, memory_format, threads):
    compiled = _run(train, memory_format)
    # the convolutions' activations are channels-last buffers (8 channels: strides (800, 1, 80, 8))
    assert "(2, 8, 10, 10), (800, 1, 80, 8)" in _host(compiled)
    if train:
        assert {g.kind for g in compiled.graphs} == {"forward", "backward"}


def test_off_keeps_eager_layout():
    config.c_channels_last = False
    try:
        compiled = _run(True, torch.contiguous_format)
    finally:
        config.c_channels_last = True
    assert "(800, 1, 80, 8)" not in _host(compiled)


def test_a_graph_viewing_a_convolution_keeps_eager_layout():
    # `view` of a channels-last activation would fail: the rewrite is checked on fake tensors and dropped
    def f(x, w):
        return (F.conv2d(x, w).relu().view(2, -1),)

    x, w = torch.randn(2, 3, 6, 6), torch.randn(4, 3, 3, 3)
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(f), [x, w])
    (got,) = compiled(x, w)
    torch.testing.assert_close(got, f(x, w)[0])
    assert "channels_last" not in str(compiled.graphs[0].graph_module.code)


def test_batch_norm_statistics_over_channels_last_are_column_reductions(threads):
    # mean, variance and the normalised output of a channels-last tensor: each channel's elements are
    # `C` apart, so the kernel walks blocks of channels (contiguous vectors), its per-channel values
    # (the mean the variance's loop reads) in arrays of the block's channels
    def f(x):
        var, mean = aten.var_mean.correction(x, [0, 2, 3], correction=0, keepdim=True)
        return aten.mul.Tensor(aten.sub.Tensor(x, mean), aten.rsqrt.default(aten.add.Tensor(var, 1e-5))), mean

    torch.manual_seed(0)
    x = torch.randn(4, 40, 6, 6).contiguous(memory_format=CL)  # 40 channels: a full block and a partial one
    compiled = compile_graph(make_fx(f)(x), [x])  # make_fx: nodes carry eager's strides (meta)
    for got, want in zip(compiled(x), f(x)):
        torch.testing.assert_close(got, want)
        assert got.stride() == want.stride()
    (kernel,) = compiled.kernels
    assert "x_block += 32" in kernel.source and "tmp" in kernel.source and "[xl] = " in kernel.source
    assert "x0[40*rindex + xindex]" not in kernel.source and "arg0[40*rindex + xindex]" in kernel.source


def test_pointwise_kernel_walks_a_channels_last_buffer_in_memory_order(threads):
    def f(x, w):
        return (aten.relu.default(aten.mul.Tensor(x, w)),)

    x, w = torch.randn(2, 16, 8, 8).contiguous(memory_format=CL), torch.randn(16, 1, 1)
    compiled = compile_graph(make_fx(f)(x, w), [x, w])
    (got,) = compiled(x, w)
    torch.testing.assert_close(got, f(x, w)[0])
    assert got.stride() == (1024, 1, 128, 16)
    (kernel,) = compiled.kernels
    assert "buf0[xindex]" in kernel.source or "buf0[xi + 16*xo]" in kernel.source, kernel.source


@pytest.mark.parametrize("memory_format", [torch.contiguous_format, CL], ids=["nchw", "channels_last"])
def test_a_kernel_output_read_only_by_a_convolution_is_stored_channels_last(memory_format):
    # relu's output has one user, the second convolution: the buffer stored for that extern call takes the
    # strides eager gives it (channels-last), not row-major, so neither the kernel nor oneDNN transposes
    def f(x, w1, w2):
        return (F.conv2d(F.conv2d(x, w1, padding=1).relu(), w2, padding=1),)

    torch.manual_seed(0)
    x = torch.randn(2, 3, 10, 10).contiguous(memory_format=memory_format)
    w1, w2 = torch.randn(8, 3, 3, 3), torch.randn(4, 8, 3, 3)
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(f), [x, w1, w2])
    (got,) = compiled(x, w1, w2)
    (want,) = f(x, w1, w2)
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
    assert _layout(got) == _layout(want)
    host = _host(compiled)
    assert "(2, 8, 10, 10), (800, 1, 80, 8)" in host and "(2, 8, 10, 10), (800, 100, 10, 1)" not in host
