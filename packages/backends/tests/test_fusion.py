"""Fusion decisions: how many kernels known graphs become, what they store, and the bytes they move."""

from __future__ import annotations

import torch

aten = torch.ops.aten


def test_a_pointwise_chain_is_one_kernel_reading_once_and_writing_once(check):
    def fn(x, y):
        a = aten.add.Tensor(x, y)
        for _ in range(4):
            a = aten.mul.Tensor(aten.sigmoid.default(a), aten.tanh.default(a))
        return aten.sub.Tensor(a, 1.0)

    x, y = torch.randn(8, 16), torch.randn(16)
    compiled = check.aten(fn, x, y)
    (kernel,) = compiled.kernels
    assert kernel.kind == "pointwise"
    assert kernel.bytes_read == x.nbytes + y.nbytes
    assert kernel.bytes_written == x.nbytes
    assert {"add", "sigmoid", "tanh", "mul", "sub"} <= set(kernel.ops)
    assert kernel.name.startswith("loom_poi_add_sigmoid_tanh_mul")


def test_shared_intermediate_is_computed_once_and_not_stored(check):
    def fn(x):
        a = aten.exp.default(x)
        return aten.add.Tensor(a, 1.0), aten.mul.Tensor(a, 2.0)

    compiled = check.aten(fn, torch.randn(5, 7))
    (kernel,) = compiled.kernels
    assert len(kernel.stored) == 2
    assert kernel.source.count("tl.exp(") == 1


def test_reduction_with_prologue_and_epilogue_is_one_kernel(check):
    def fn(x, w, b):
        s = aten.sum.dim_IntList(aten.mul.Tensor(aten.exp.default(x), w), [1])
        return aten.add.Tensor(aten.mul.Tensor(s, 0.5), b)

    x, w, b = torch.randn(6, 9), torch.randn(9), torch.randn(6)
    compiled = check.aten(fn, x, w, b)
    (kernel,) = compiled.kernels
    assert kernel.kind == "persistent_reduction"
    assert kernel.bytes_read == x.nbytes + w.nbytes + b.nbytes
    assert kernel.bytes_written == b.nbytes  # the row sums stay in registers


def test_mean_and_variance_are_one_kernel(check):
    def fn(x):
        var, mean = aten.var_mean.correction(x, [1], correction=0, keepdim=True)
        return aten.mul.Tensor(aten.sub.Tensor(x, mean), aten.rsqrt.default(aten.add.Tensor(var, 1e-5)))

    compiled = check.aten(fn, torch.randn(4, 32))
    (kernel,) = compiled.kernels
    assert kernel.kind == "persistent_reduction"


def test_layer_norm_backward_shape_two_row_reductions_and_pointwise(check):
    def fn(g, xhat, rstd):
        s1 = aten.sum.dim_IntList(g, [1], True)
        s2 = aten.sum.dim_IntList(aten.mul.Tensor(g, xhat), [1], True)
        inner = aten.sub.Tensor(aten.sub.Tensor(aten.mul.Tensor(g, 32.0), s1), aten.mul.Tensor(xhat, s2))
        return aten.mul.Tensor(aten.div.Tensor(rstd, 32.0), inner)

    compiled = check.aten(fn, torch.randn(6, 32), torch.randn(6, 32), torch.rand(6, 1))
    assert len(compiled.kernels) == 1


def test_pointwise_around_an_extern_call(check):
    def fn(a, b, bias):
        return aten.relu.default(aten.add.Tensor(aten.mm.default(aten.mul.Tensor(a, 2.0), b), bias))

    compiled = check.aten(fn, torch.randn(4, 5), torch.randn(5, 3), torch.randn(3), externs=1)
    assert len(compiled.kernels) == 2  # the scaling before the matmul, bias + relu after it
    assert compiled.externs[0].op == "aten.mm.default"
    assert "matrix multiply" in compiled.externs[0].reason


def test_independent_ops_fuse_only_when_they_share_a_read(check):
    x, y = torch.randn(4, 4), torch.randn(4, 4)
    shared = check.aten(lambda a: (aten.sin.default(a), aten.cos.default(a)), x)
    assert len(shared.kernels) == 1
    unrelated = check.aten(lambda a, b: (aten.sin.default(a), aten.cos.default(b)), x, y)
    assert len(unrelated.kernels) == 2


def test_same_numel_different_shapes_fuse(check):
    def fn(x):
        a = aten.exp.default(x)
        return a, aten.add.Tensor(aten.view.default(a, [4, 3, 2]), 1.0)

    compiled = check.aten(fn, torch.randn(6, 4))
    assert len(compiled.kernels) == 1


def test_column_reduction_fuses_with_its_producer(check):
    def fn(x):
        a = aten.mul.Tensor(x, 3.0)
        return a, aten.sum.dim_IntList(a, [0])

    compiled = check.aten(fn, torch.randn(10, 6))
    assert len(compiled.kernels) == 1


def test_row_and_column_reductions_are_two_kernels(check):
    compiled = check.aten(lambda x: (aten.sum.dim_IntList(x, [0]), aten.sum.dim_IntList(x, [1])), torch.randn(5, 8))
    assert len(compiled.kernels) == 2


def test_a_transposed_read_of_a_fused_buffer_recomputes_it(check):
    def fn(x):
        a = aten.exp.default(x)
        return a, aten.add.Tensor(aten.t.default(a), a)

    compiled = check.aten(fn, torch.randn(6, 6))
    (kernel,) = compiled.kernels
    assert kernel.source.count("tl.exp(") == 2  # once where it is computed, once where it is read transposed


def test_a_transposed_read_of_a_value_needing_a_reduction_starts_a_new_kernel(check):
    def fn(x):
        a = aten.sub.Tensor(x, aten.sum.dim_IntList(x, [1], True))
        return a, aten.add.Tensor(aten.t.default(a), a)

    compiled = check.aten(fn, torch.randn(6, 6))
    assert len(compiled.kernels) == 2


def test_reductions_reading_a_reduction_run_in_a_later_loop(check):
    from loom_backends.triton import config

    config.persistent_reduction_limit, config.looped_rblock = 2, 4

    def fn(x):
        mean = aten.mean.dim(x, [1], True)
        centered = aten.sub.Tensor(x, mean)
        return aten.sum.dim_IntList(aten.mul.Tensor(centered, centered), [1])

    compiled = check.aten(fn, torch.randn(3, 11))
    (kernel,) = compiled.kernels
    assert kernel.source.count("for roffset in range(0, rnumel, RBLOCK):") == 2

