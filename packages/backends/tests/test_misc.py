"""Conversions, copies, constants, arange, cat, padding, where and the gathers, against eager ATen."""

from __future__ import annotations

import pytest
import torch

aten = torch.ops.aten


@pytest.mark.parametrize("src", [torch.float32, torch.float16, torch.bfloat16, torch.int32, torch.int64, torch.bool, torch.float64], ids=str)
@pytest.mark.parametrize("dst", [torch.float32, torch.float16, torch.bfloat16, torch.int32, torch.uint8, torch.bool], ids=str)
def test_to_copy(src, dst, check):
    x = (torch.randn(4, 5) * 7).to(src)
    check.aten(lambda a: aten._to_copy.default(a, dtype=dst), x, exact_float=True)


def test_half_conversions_round_like_eager(check):
    x = torch.randn(64) * 1000 + 0.123456
    fn = lambda a: aten._to_copy.default(aten._to_copy.default(a, dtype=torch.float16), dtype=torch.float32)
    check.aten(fn, x, exact_float=True)


@pytest.mark.parametrize("dst", [torch.int32, torch.float32, torch.float64, torch.bfloat16], ids=str)
def test_converting_a_computed_half_value_rounds_it_first(dst, check):
    # 1 + 1.999 is 3.0 in float16 (2.999 in the float32 it is computed in): .to(int32) must give 3
    a = torch.tensor([1.0, 1.0, 0.1], dtype=torch.float16)
    b = torch.tensor([1.9990234375, 0.5, 0.2], dtype=torch.float16)
    check.aten(lambda x, y: aten._to_copy.default(aten.add.Tensor(x, y), dtype=dst), a, b, exact_float=True)


def test_clone_copy_and_constants(check):
    x = torch.randn(3, 4)
    check.aten(lambda a: aten.clone.default(a), x)
    check.aten(lambda a, b: aten.copy.default(a, b), torch.zeros(3, 4, dtype=torch.float16), torch.randn(4))
    check.aten(lambda a: aten.full_like.default(a, 2.5), x)
    check.aten(lambda a: aten.fill.Scalar(a, 7), torch.zeros(2, 3, dtype=torch.int32))
    check.aten(lambda a: aten.add.Tensor(a, aten.full.default([3, 4], -1.5)), x)
    check.aten(lambda a: aten.add.Tensor(a, aten.scalar_tensor.default(4.0)), x)
    check.aten(lambda a: aten.mul.Tensor(a, aten.ones.default([4])), x)
    check.aten(lambda a: aten.mul.Tensor(a, aten.zeros_like.default(a)), x)
    check.aten(lambda a: aten.full.default([2, 2], True), x)


@pytest.mark.parametrize("args", [(10,), (2, 11), (1, 10, 3), (0.5, 3.0, 0.25), (5, -5, -2)])
def test_arange(args, check):
    check.aten(lambda a: aten.add.Tensor(a, aten.arange.start_step(*args) if len(args) == 3 else aten.arange.start(*args) if len(args) == 2 else aten.arange.default(*args)), torch.tensor(1))


@pytest.mark.parametrize("pad", [[1, 2], [0, 0, 2, 1], [-1, 2, 1, -2], [3, 0, 0, 0, 1, 1]])
def test_constant_pad_nd(pad, check):
    x = torch.randn(3, 4, 5)
    check.aten(lambda a: aten.constant_pad_nd.default(a, pad, 0.5), x)
    check.aten(lambda a: aten.constant_pad_nd.default(aten.exp.default(a), pad), x)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat(dim, check):
    a, b, c = torch.randn(2, 3), torch.randn(2, 3), torch.randn(2, 3)
    check.aten(lambda x, y, z: aten.cat.default([x, aten.mul.Tensor(y, 2), z], dim), a, b, c)


def test_cat_mixed_dtypes_and_legacy_empty(check):
    a, b = torch.randn(2, 3), torch.randint(0, 5, (4, 3), dtype=torch.int32)
    check.aten(lambda x, y: aten.cat.default([x, y], 0), a, b)
    check.aten(lambda x, y: aten.cat.default([x, y], 0), torch.randn(3, 2), torch.empty(0))


def test_masked_reads_along_a_dim_of_size_one(check):
    # the masks of cat, padding and slice_scatter are 0-d there (index 0), combined with xmask
    check.aten(lambda x, y: aten.cat.default([x, y], 1), torch.randn(2, 0), torch.randn(2, 1))
    check.aten(lambda x: aten.constant_pad_nd.default(x, [1, 0], 2.0), torch.randn(2, 0))
    check.aten(lambda x: aten.constant_pad_nd.default(x, [-1, 0, 0, 1], 2.0), torch.randn(2, 2))
    check.aten(lambda x, y: aten.slice_scatter.default(x, y, 1, 0, 1), torch.randn(2, 1), torch.randn(2, 1))


def test_masked_read_of_a_single_element(check):
    # the address is a scalar (index 0) under a block mask: Triton needs a block address there
    check.aten(lambda x: aten.constant_pad_nd.default(aten.sum.dim_IntList(x, [-1]), [1, 0]), torch.randn(1, 3))
    check.aten(lambda x: aten.cat.default([aten.amax.default(x, [-1]), aten.amax.default(x, [-1])]), torch.randn(1, 3))
    check.aten(lambda x: aten.constant_pad_nd.default(x, [1, 1]), torch.randn(1))
    check.aten(lambda x, y: aten.sum.dim_IntList(aten.cat.default([x, y], 0), [1]), torch.randn(1, 1), torch.randn(3, 1))
    check.aten(lambda x: aten.sum.dim_IntList(aten.constant_pad_nd.default(x, [1, 1, 1, 1]), [1]), torch.randn(1, 1))


def test_where_with_tensor_and_scalar_branches(check):
    x, y = torch.randn(3, 5), torch.randn(5)
    check.aten(lambda a, b: aten.where.self(aten.gt.Tensor(a, b), a, b), x, y)
    check.aten(lambda a, b: aten.where.ScalarSelf(aten.gt.Scalar(a, 0), 1.0, aten.mul.Tensor(b, 2)), x, y)


def test_embedding_and_gathers(check):
    weight = torch.randn(10, 4)
    idx = torch.tensor([[1, 9, -1], [0, 3, 3]])
    check.aten(lambda w, i: aten.embedding.default(w, i), weight, idx.clamp(min=0))
    check.aten(lambda w, i: aten.index_select.default(w, 0, i), weight, torch.tensor([3, 0, 9, 3]))
    check.aten(lambda w, i: aten.index_select.default(w, 1, i), weight, torch.tensor([3, 0]))
    check.aten(lambda w, i: aten.gather.default(w, 1, i), weight, torch.randint(0, 4, (10, 2)))
    check.aten(lambda w, i: aten.index.Tensor(w, [i]), weight, idx)  # negative indices wrap
    check.aten(lambda w, i: aten.index.Tensor(w, [None, i]), weight, torch.tensor([2, -1]))


def test_embedding_of_a_computed_table_fuses(check):
    def fn(w, i):
        return aten.mul.Tensor(aten.embedding.default(aten.exp.default(w), i), 2.0)

    compiled = check.aten(fn, torch.randn(7, 3), torch.tensor([6, 0, 2]))
    assert len(compiled.kernels) == 1


@pytest.mark.parametrize("dim, start, end", [(0, 1, 3), (1, None, 2), (1, -3, 9223372036854775807)])
def test_slice_scatter(dim, start, end, check):
    x = torch.randn(4, 5)
    src = aten.slice.Tensor(torch.randn(4, 5), dim, start, end)
    compiled = check.aten(lambda a, b: aten.slice_scatter.default(a, b, dim, start, end), x, src)
    assert len(compiled.kernels) == 1
