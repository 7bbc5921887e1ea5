"""Floating-point sums over long rows in the C generator keep several vector accumulators (``c/lanes.py``):
blocks of 64 elements into per-lane accumulators, the row's tail in the plain loop, the lanes folded after."""

from __future__ import annotations

import pytest
import torch

from loom_backends.c import compile_graph, lanes

from .conftest import assert_same

aten = torch.ops.aten
SHORT, LONG = lanes.MIN_ROW - 1, 3 * lanes.MIN_ROW + 77  # LONG is not a multiple of the 64-element block


def sums(x):
    return (
        aten.sum.default(x),
        aten.mean.default(x),
        aten.sum.dim_IntList(aten.mul.Tensor(x, x), [0]),
    ) + tuple(aten.var_mean.correction(x, [0], correction=1)[i] for i in range(2))  # two loops, each a sum


def row_sums(x):
    return aten.sum.dim_IntList(x, [1]), aten.mean.dim(aten.exp.default(x), [1])


def compiled_and_source(fn, inputs):
    compiled = compile_graph(torch.fx.symbolic_trace(fn), inputs)
    assert compiled.fallback_reason is None, compiled.fallback_reason
    return compiled, "\n".join(k.source for k in compiled.kernels)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("n", [SHORT, LONG, 4 * LONG], ids=["short", "long", "longer"])
def test_full_sums_match_eager(dtype, n, threads):
    torch.manual_seed(0)
    x = torch.randn(n, dtype=dtype) + 0.25
    compiled, source = compiled_and_source(sums, [x])
    assert ("_lanes[" in source) == (n >= lanes.MIN_ROW)
    assert_same(compiled(x), sums(x))


@pytest.mark.parametrize("length", [SHORT, LONG])
def test_row_sums_match_eager(length, threads):
    torch.manual_seed(0)
    x = torch.randn(3, length)
    compiled, source = compiled_and_source(row_sums, [x])
    assert ("_lanes[" in source) == (length >= lanes.MIN_ROW)
    assert_same(compiled(x), row_sums(x))


def test_only_float_sums_take_lanes():
    x = torch.randn(LONG)
    i = torch.randint(-9, 9, (LONG,))

    def others(x, i):
        return aten.amax.default(x, [0]), aten.sum.default(i), aten.argmax.default(x), aten.prod.default(x)

    compiled, source = compiled_and_source(others, [x, i])
    assert "_lanes[" not in source
    assert_same(compiled(x, i), others(x, i))


def test_a_symbolic_row_takes_lanes_from_its_length_at_run_time(dynamic):
    import loom_backends

    def f(x):
        return (aten.sum.default(aten.mul.Tensor(x, x)),)

    gm, example = dynamic.graph(f, [torch.randn(LONG)], {0: {0}})
    compiled = loom_backends.get("c")(gm, example)
    (graph,) = [g.compiled for g in compiled.graphs]
    assert graph.fallback_reason is None and "_lanes[" in graph.c_source
    for n in (5, 63, 64, SHORT, lanes.MIN_ROW, LONG):
        x = torch.randn(n)
        assert_same(compiled(x)[0], f(x)[0])


def test_lanes_compile_without_warnings(compiles_without_warnings):
    x = torch.randn(3, LONG, dtype=torch.float64)

    def f(x):
        return sums(aten.select.int(x, 0, 0)) + row_sums(x) + (aten.sum.default(aten.ones_like.default(x)),)  # no rindex read

    compiled, source = compiled_and_source(f, [x])
    assert source.count("_lanes[r_lane] = ") >= 4
    compiles_without_warnings(compiled.c_source)
