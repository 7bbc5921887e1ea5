"""Reductions against eager ATen: every rule, over leading, middle, trailing and all dims, with keepdim,
in persistent (whole row in one block) and looped (row walked in small blocks) kernels, with NaN."""

from __future__ import annotations

import pytest
import torch

from loom_backends.triton import config

aten = torch.ops.aten


@pytest.fixture(params=["persistent", "looped"])
def mode(request):
    if request.param == "looped":
        limit, block = config.persistent_reduction_limit, config.looped_rblock
        config.persistent_reduction_limit, config.looped_rblock = 2, 4
        yield request.param
        config.persistent_reduction_limit, config.looped_rblock = limit, block
    else:
        yield request.param


def sample(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if not dtype.is_floating_point:
        return torch.randint(-5, 6, shape, generator=g).to(dtype)
    return (torch.randn(shape, generator=g) * 3).to(dtype)


REDUCTIONS = {
    "sum": lambda x, d, k: aten.sum.dim_IntList(x, d, k),
    "sum_all": lambda x, d, k: aten.sum.default(x),
    "sum_to_f64": lambda x, d, k: aten.sum.dim_IntList(x, d, k, dtype=torch.float64),
    "mean": lambda x, d, k: aten.mean.dim(x, d, k),
    "prod": lambda x, d, k: aten.prod.dim_int(x, d[0], k),
    "amax": lambda x, d, k: aten.amax.default(x, d, k),
    "amin": lambda x, d, k: aten.amin.default(x, d, k),
    "max_dim": lambda x, d, k: aten.max.dim(x, d[0], k),
    "min_dim": lambda x, d, k: aten.min.dim(x, d[0], k),
    "max_all": lambda x, d, k: aten.max.default(x),
    "argmax": lambda x, d, k: aten.argmax.default(x, d[0], k),
    "argmin": lambda x, d, k: aten.argmin.default(x, d[0], k),
    "argmax_flat": lambda x, d, k: aten.argmax.default(x),
    "any": lambda x, d, k: aten.any.dims(x, d, k),
    "all": lambda x, d, k: aten.all.dim(x, d[0], k),
    "var": lambda x, d, k: aten.var.correction(x, d, correction=1, keepdim=k),
    "var_pop": lambda x, d, k: aten.var.correction(x, d, correction=0, keepdim=k),
    "std": lambda x, d, k: aten.std.correction(x, d, correction=1, keepdim=k),
    "var_mean": lambda x, d, k: aten.var_mean.correction(x, d, correction=1, keepdim=k),
}


def _fn(name, dims, keepdim):
    reduce = REDUCTIONS[name]

    def fn(x):
        return reduce(x, dims, keepdim)

    return fn


@pytest.mark.parametrize("name", list(REDUCTIONS))
@pytest.mark.parametrize(
    "shape, dims, keepdim, layout",
    [((6, 10), [1], False, "contiguous"), ((6, 10), [0], True, "contiguous"), ((3, 4, 5), [1], False, "transposed"),
     ((3, 4, 5), [0, 2], True, "contiguous")],
    ids=["rows", "cols-keepdim", "middle-transposed", "outer-keepdim"],
)  # fmt: skip
def test_reduction_float32(name, shape, dims, keepdim, layout, mode, check):
    x = sample(shape, torch.float32)
    if layout == "transposed":
        x = sample(tuple(reversed(shape)), torch.float32).permute(*reversed(range(len(shape))))
    fn = _fn(name, dims, keepdim)
    if name in ("prod", "max_dim", "min_dim", "argmax", "argmin", "all") and len(dims) > 1:
        pytest.skip("single-dim op")
    check.aten(fn, x)


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "argmax", "var_mean", "prod", "any", "max_dim"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.int32, torch.int64, torch.bool], ids=str)
def test_reduction_dtypes(name, dtype, mode, check):
    x = sample((5, 12), dtype, seed=1)
    fn = _fn(name, [1], False)
    try:
        fn(x)
    except RuntimeError:
        pytest.skip("eager does not take this dtype")
    check.aten(fn, x)


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin", "max_dim", "argmax", "argmin", "var", "prod"])
def test_nan_and_inf_propagate(name, mode, check):
    x = sample((4, 9), torch.float32, seed=2)
    x[0, 3] = float("nan")
    x[1, 5] = float("inf")
    x[2, 0] = float("-inf")
    x[3, 1] = x[3, 7] = 100.0  # a tie: the first index wins, as in eager
    check.aten(_fn(name, [1], False), x)


def test_ties_keep_the_first_index_across_loop_blocks(mode, check):
    x = torch.zeros(3, 20)
    x[:, 2] = x[:, 13] = x[:, 17] = 5.0
    check.aten(lambda a: (aten.argmax.default(a, 1), aten.max.dim(a, 1)), x)


def test_empty_sum_and_single_element_reductions(check):
    check.aten(lambda a: aten.sum.dim_IntList(a, [1]), torch.empty(3, 0))
    check.aten(lambda a: (aten.sum.dim_IntList(a, [1], True), aten.amax.default(a, [1])), torch.randn(4, 1))


def test_reduction_of_a_zero_dim_tensor(check):
    check.aten(lambda a: (aten.sum.default(a), aten.amax.default(a)), torch.tensor(2.5))


@pytest.mark.triton_only
def test_long_rows_loop(check):
    """A row longer than the persistent limit is walked in blocks (and still matches)."""
    limit = config.persistent_reduction_limit
    config.persistent_reduction_limit = 64
    try:
        compiled = check.aten(_softmax, torch.randn(3, 300))
    finally:
        config.persistent_reduction_limit = limit
    (kernel,) = compiled.kernels
    assert kernel.kind == "reduction"
    assert kernel.source.count("for roffset in range(0, rnumel, RBLOCK):") >= 2


def _softmax(x):
    m = aten.amax.default(x, [1], True)
    e = aten.exp.default(aten.sub.Tensor(x, m))
    return aten.div.Tensor(e, aten.sum.dim_IntList(e, [1], True))


def test_softmax_like_chain_is_one_kernel_in_both_modes(mode, check):
    compiled = check.aten(_softmax, sample((6, 10), torch.float32))
    assert len(compiled.kernels) == 1
    kinds = {"triton": "reduction" if mode == "looped" else "persistent_reduction", "c": "reduction"}
    assert compiled.kernels[0].kind == kinds[check.generator]
