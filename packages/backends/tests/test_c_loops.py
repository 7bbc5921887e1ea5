"""The loop shapes the C generator picks for speed (column reductions, values stored for later kernels, split
rows, Welford statistics): each checked against eager and by the shape of the generated code."""

from __future__ import annotations

import torch

import loom_backends
from loom_backends.c import compile_graph

aten = torch.ops.aten


def c_source(compiled) -> str:
    return "\n".join(k.source for g in compiled.graphs for k in g.compiled.kernels)


def test_a_reduction_over_rows_walks_blocks_of_columns(threads):
    # sum over dim 0 of a row-major tensor (a bias gradient): walked row by row its vector loop would read
    # one float per cache line; blocks of columns read contiguous vectors
    def f(x, w):
        y = aten.mul.Tensor(x, w)
        return (
            aten.sum.dim_IntList(y, [0]),
            aten.amax.default(x, [0]),
            aten.add.Tensor(aten.mean.dim(x, [0], True), 1.0),
        )

    torch.manual_seed(0)
    x, w = torch.randn(300, 70), torch.randn(70)  # 70 columns: two full blocks of 32 and a partial one
    x[5, 3], x[7, 40] = float("nan"), float("inf")
    compiled = compile_graph(torch.fx.symbolic_trace(f), [x, w])
    for got, want in zip(compiled(x, w), f(x, w)):
        torch.testing.assert_close(got, want, equal_nan=True)
    (kernel,) = compiled.kernels
    assert "x_block += 32" in kernel.source
    assert "arg0[70*rindex + xindex]" in kernel.source  # contiguous in the vector loop over xl
    assert "reduction(" not in kernel.source  # one accumulator per column, no lane reduction


def test_a_long_column_sum_is_as_accurate_as_a_row_sum():
    def f(x):
        return (aten.sum.dim_IntList(x, [0]),)

    def g(x):
        return (aten.sum.dim_IntList(x, [1]),)

    torch.manual_seed(0)
    x = torch.rand(20000, 40) + 1.0  # a single running total would drift by ~1e-4 relative
    want = x.double().sum(0)
    columns = compile_graph(torch.fx.symbolic_trace(f), [x])(x)[0]
    rows = compile_graph(torch.fx.symbolic_trace(g), [x.t().contiguous()])(x.t().contiguous())[0]
    column_error = float(((columns.double() - want).abs() / want).max())
    row_error = float(((rows.double() - want).abs() / want).max())
    assert column_error < 2e-6 and column_error < 4 * max(row_error, 1e-7)


def test_layer_norm_weight_gradient_is_a_column_reduction():
    ln = torch.nn.LayerNorm(48)
    x = torch.randn(6, 20, 48)
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(ln), [x.clone().requires_grad_()])
    ours, theirs = x.clone().requires_grad_(), x.clone().requires_grad_()
    out = compiled(ours)
    want = ln(theirs)
    grad = torch.randn_like(want)
    out.backward(grad)
    weight_grad = ln.weight.grad.clone()
    ln.zero_grad()
    want.backward(grad)
    torch.testing.assert_close(weight_grad, ln.weight.grad, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(ours.grad, theirs.grad, atol=1e-5, rtol=1e-5)
    assert "x_block" in c_source(compiled)
