"""The loop shapes the C generator picks for speed (column reductions, values stored for later kernels, split
rows, Welford statistics): each checked against eager and by the shape of the generated code."""

from __future__ import annotations

import torch
from torch.fx.experimental.proxy_tensor import make_fx

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


def test_a_split_row_divides_only_its_row_number():
    # heads split out of a [B, T, 3*C] projection: `xindex // (T*C)` in rows of 64 elements must be
    # `xo // (T*C/64)`, not `(xi + 64*xo) / (T*C)` (an int64 division per element of the vector loop)
    import re

    from loom_backends.c.tiling import XI, XO, split_index
    from loom_backends.kernels.symbols import XINDEX, FloorDiv, ModularIndexing, cexpr

    ranges = {XO: 768, XI: 64}
    assert cexpr(split_index(FloorDiv(XINDEX, 12288), XINDEX, XO, XI, 64, ranges)) == "xo / 192"
    assert cexpr(split_index(ModularIndexing(XINDEX, 2048, 6), XINDEX, XO, XI, 64, ranges)) == "(xo / 32) % 6"
    assert cexpr(split_index(FloorDiv(XINDEX + 128, 256), XINDEX, XO, XI, 64, ranges)) == "(2 + xo) / 4"
    assert "xi" in cexpr(split_index(FloorDiv(XINDEX + 3, 256), XINDEX, XO, XI, 64, ranges))  # may carry

    def f(x, b):
        q, k, v = aten.split.Tensor(aten.add.Tensor(x, b), 192, -1)
        heads = [aten.clone.default(aten.permute.default(aten.view.default(t, [4, 64, 6, 32]), [0, 2, 1, 3]),
                                    memory_format=torch.contiguous_format) for t in (q, k, v)]  # fmt: skip
        return tuple(heads)

    x, b = torch.randn(4, 64, 576), torch.randn(576)
    compiled = compile_graph(torch.fx.symbolic_trace(f), [x, b])
    for got, want in zip(compiled(x, b), f(x, b)):
        torch.testing.assert_close(got, want)
    source = "\n".join(k.source for k in compiled.kernels)
    assert "xo" in source and not re.search(r"\(xi \+ \d+\*xo\) /", source), source


def test_a_value_of_a_split_reduction_row_is_computed_outside_its_vector_loop(threads):
    # a batch norm backward's sum over (N, H*W) reads a per-sample value: once per `ro`, outside the `ri`
    # vector loop (inside it, it kept gcc from vectorising the loop at all)
    def f(x, s):
        return (aten.sum.dim_IntList(aten.mul.Tensor(x, aten.div.Tensor(aten.view.default(s, [6, 1, 1]), 3.0)), [0, 2]),)

    x, s = torch.randn(6, 5, 24), torch.randn(6)
    compiled = compile_graph(torch.fx.symbolic_trace(f), [x, s])
    torch.testing.assert_close(compiled(x, s)[0], f(x, s)[0])
    (kernel,) = compiled.kernels
    lines = kernel.source.splitlines()
    load = next(i for i, line in enumerate(lines) if "arg1[ro]" in line)
    divide = next(i for i, line in enumerate(lines) if "/ 3.0f" in line)
    vector_loop = next(i for i, line in enumerate(lines) if "for (int64_t ri = 0;" in line)
    assert load < vector_loop and divide < vector_loop, kernel.source


def test_an_exponential_read_by_two_kernels_is_computed_once_and_stored():
    # a softmax feeding a group norm: its statistics and its output are two more kernels after the
    # softmax's own; each recomputed `exp` per element before, now the softmax kernel stores it once
    def f(x, w, b):
        y = aten.add.Tensor(aten.mul.Tensor(torch.softmax(x, -1), 256.0), x)
        return (torch.group_norm(y, 4, w, b),)

    torch.manual_seed(0)
    x, w, b = torch.randn(4, 16, 256), torch.randn(16), torch.randn(16)
    gm = torch.fx.symbolic_trace(f)
    compiled = loom_backends.get("c")(gm, [x, w, b])
    torch.testing.assert_close(compiled(x, w, b)[0], f(x, w, b)[0], atol=1e-5, rtol=1e-5)
    source = c_source(compiled)
    assert source.count("expf(") == 1, source


def test_generated_c_compiles_without_warnings(compiles_without_warnings):
    # -Wall -Wextra -Werror over kernels of every loop shape: flat and split pointwise rows, tiles, scratch
    # rows, split reduction rows, column reductions, argmax, integer division, half types, checked indices
    def f(x, t, w, i, j, h, g, wg):
        exp = aten.exp.default(aten.sub.Tensor(x, aten.amax.default(x, [1], True)))
        return (
            aten.mul.Tensor(aten.gelu.default(x), w),
            aten.add.Tensor(aten.t.default(t), 1.0),
            aten.div.Tensor(exp, aten.sum.dim_IntList(exp, [1], True)),  # a softmax
            aten.sum.dim_IntList(aten.mul.Tensor(g, aten.view.default(wg, [8, 1])), [1, 2]),
            aten.sum.dim_IntList(x, [0]),
            aten.argmax.default(x, 1),
            aten.remainder.Tensor(i, j),
            aten.floor_divide.default(aten.to(i, torch.uint8), aten.to(j, torch.uint8)),
            aten.any.dim(aten.gt.Scalar(x, 0.0), 1),
            aten.mul.Tensor(h, 2.0),
            aten.index_select.default(t, 0, aten.remainder.Scalar(i, 64)),  # an index checked against its size
        )

    x, t, w = torch.randn(32, 64), torch.randn(64, 48), torch.randn(64)
    i, j = torch.randint(0, 50, (40,), dtype=torch.int32), torch.randint(1, 9, (40,), dtype=torch.int32)
    h, g, wg = torch.randn(33, dtype=torch.bfloat16), torch.randn(4, 8, 64), torch.randn(8)
    inputs = [x, t, w, i, j, h, g, wg]
    compiled = compile_graph(torch.fx.symbolic_trace(f), inputs)
    for got, want in zip(compiled(*inputs), f(*inputs)):
        torch.testing.assert_close(got, want)
    for shape in ("x_block", "aligned(64)", "for (int64_t ro", "xi0", "for (int64_t xo = ", "_index"):
        assert shape in compiled.c_source, shape
    compiles_without_warnings(compiled.c_source)


def test_a_cat_fused_with_its_column_sum_compares_blocks_not_elements(threads):
    # the transformer block's q/k/v gradient cat with its bias gradient: segment edges at multiples of the
    # block's 32 columns are tested once per block (gcc unswitches the loop), not masked per element
    def f(a, b, c):
        y = aten.cat.default([a, aten.permute.default(b, [1, 0]), c], 1)
        return y, aten.sum.dim_IntList(y, [0])

    torch.manual_seed(0)
    a, b, c = torch.randn(256, 64), torch.randn(32, 256), torch.randn(256, 96)
    compiled = compile_graph(torch.fx.symbolic_trace(f), [a, b, c])
    for got, want in zip(compiled(a, b, c), f(a, b, c)):
        torch.testing.assert_close(got, want)
    source = "\n".join(k.source for k in compiled.kernels)
    assert "x_block += 32" in source
    assert "x_block >= 64L" in source and "x_block < 96L" in source
    assert "(int64_t)(xindex)" not in source  # no per-element segment test left


def test_a_cat_edge_inside_a_block_stays_an_element_comparison(threads):
    def f(a, c):
        y = aten.cat.default([a, c], 1)
        return (aten.sum.dim_IntList(y, [0]),)

    torch.manual_seed(0)
    a, c = torch.randn(256, 40), torch.randn(256, 30)  # the edge at 40 lies inside the second block
    compiled = compile_graph(torch.fx.symbolic_trace(f), [a, c])
    torch.testing.assert_close(compiled(a, c)[0], f(a, c)[0])
    source = "\n".join(k.source for k in compiled.kernels)
    assert "x_block += 32" in source and "x_block >= 40L" not in source and "x_block < 40L" not in source


def _channels_last_mean(c: int, two_loops: bool = False):
    def f(x, mean, var, w, b):
        y = aten.relu.default(aten.add.Tensor(aten.mul.Tensor(aten.mul.Tensor(
            aten.sub.Tensor(x, mean), aten.rsqrt.default(aten.add.Tensor(var, 1e-5))), w), b))
        if two_loops:  # a variance: two loops over each row (the staged column form)
            return (aten.var.correction(y, [2, 3], correction=0),)
        return (aten.mean.dim(y, [2, 3]),)

    torch.manual_seed(0)
    x = torch.randn(8, c, 16, 16).contiguous(memory_format=torch.channels_last)
    params = [torch.randn(c, 1, 1) for _ in range(4)]
    params[1] = params[1].abs()
    return f, [x, *params]


def test_a_column_block_reads_per_channel_values_as_vectors(threads):
    # a mean over H, W of a channels-last [N, C, H, W] tensor (after an eval-mode batch norm and ReLU): rows
    # n*C + c; a block of 32 rows starting at a multiple of 32 lies in one sample, so the channel is
    # `x_block % 64 + xl` (contiguous loads), not `xindex % 64` per element (a gather of each parameter)
    f, args = _channels_last_mean(64)
    compiled = compile_graph(torch.fx.symbolic_trace(f), args)
    torch.testing.assert_close(compiled(*args)[0], f(*args)[0])
    (kernel,) = compiled.kernels
    assert "x_block += 32" in kernel.source
    assert "x_block % 64 + xl;" in kernel.source and "x_block / 64;" in kernel.source
    assert "xindex % 64" not in kernel.source and "xindex / 64" not in kernel.source


def test_column_blocks_keep_per_element_indices_where_a_block_can_cross_a_row_edge(threads):
    # 48 channels: a block of 32 rows can straddle two samples; several loops: blocks start at multiples of 16
    for c, two_loops in ((48, False), (64, True)):
        f, args = _channels_last_mean(c, two_loops)
        compiled = compile_graph(torch.fx.symbolic_trace(f), args)
        torch.testing.assert_close(compiled(*args)[0], f(*args)[0])
        (kernel,) = compiled.kernels
        assert "x_block +=" in kernel.source
        assert f"xindex % {c}" in kernel.source and "x_block % " not in kernel.source


def test_a_transposed_copy_of_short_rows_vectorises_across_rows(threads):
    # an image batch copied to channels-last ([N, 3, H, W] -> [N, H, W, 3]) and scaled: rows of 3 elements,
    # each read 1024 apart; the vector loop runs over the rows (xo), each row's 3 elements inside, instead of
    # rows of 3072 with an int64 `xi / 3` and `xi % 3` per element
    def f(x):
        return (aten.clone.default(aten.mul.Tensor(x, 2.0), memory_format=torch.channels_last),)

    for channels in (3, 4):
        torch.manual_seed(0)
        x = torch.randn(8, channels, 32, 32)
        compiled = compile_graph(make_fx(f)(x), [x])
        got, want = compiled(x)[0], f(x)[0]
        torch.testing.assert_close(got, want)
        assert got.stride() == want.stride()
        (kernel,) = compiled.kernels
        assert f"#pragma omp simd\n    for (int64_t xo = x_begin / {channels}; xo < x_end / {channels}; xo++) {{" in kernel.source
        assert f"for (int64_t xi = 0; xi < {channels}; xi++)" in kernel.source
        assert "xi / " not in kernel.source and "xi % " not in kernel.source
