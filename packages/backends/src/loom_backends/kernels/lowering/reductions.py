"""Reductions: sum, mean, prod, amax/amin, max/min (with indices), argmax/argmin, any/all, var/std.

A reduction is always stored (``ComputedBuffer`` with ``ReductionLoops``); whatever lazy pointwise work
produced its input is inlined into its loop (the prologue), and pointwise work on its result (``mean``'s
division, ``var``'s normalisation) stays lazy, to be fused into the same kernel as an epilogue by the
scheduler. ``var`` is two reductions (the mean, then the squared deviations) that the scheduler puts in
one kernel.
"""

from __future__ import annotations

from typing import Any

import sympy
import torch

from .. import symbols
from ..context import Unsupported, current
from ..ir import BufferView, Layout, Pointwise, ReductionLoops, TensorValue, merge_origins
from ..ops import ops
from .common import HALF, check_tensors, current_op, dims, make_pointwise, sizevars
from .registry import register_lowering
from .views import reshape_view

aten = torch.ops.aten


def _acc_dtype(dtype: torch.dtype) -> torch.dtype:
    return torch.float32 if dtype in HALF else dtype


def _keepdim_view(value: BufferView, shape: tuple[Any, ...], reduced: tuple[int, ...]) -> BufferView:
    """``value`` (the kept dims) seen with size-1 dims put back at ``reduced`` positions."""
    size, stride = list(value.layout.size), list(value.layout.stride)
    for d in reduced:
        inner = stride[d] * size[d] if d < len(size) else sympy.Integer(1)
        size.insert(d, sympy.Integer(1))
        stride.insert(d, inner)
    lay = value.layout
    return BufferView(value.buffer, Layout(tuple(size), tuple(stride), lay.offset, lay.dtype, lay.device))


def reduce(
    x: TensorValue,
    reduced: tuple[int, ...],
    keepdim: bool,
    reduction_type: str,
    dtype: torch.dtype,
    src_dtype: torch.dtype | None = None,
    transform: Any = None,
    name: str | None = None,
) -> TensorValue:
    """Reduce ``x`` over ``reduced`` dims; the loaded value is converted to ``src_dtype`` then ``transform``-ed."""
    device = check_tensors(x)
    src = src_dtype or dtype
    kept_shape = tuple(s for d, s in enumerate(x.shape) if d not in reduced)
    rnumel = symbols.product(x.shape[d] for d in reduced)
    load = x.loader()

    def value(index: list[Any]) -> Any:
        v = load(index)
        if x.dtype != src:
            v = ops.to_dtype(v, src)
        return transform(v) if transform is not None else v

    if rnumel == 0 and reduction_type not in ("sum", "prod"):
        raise Unsupported(f"{reduction_type} of an empty tensor")
    if rnumel == 1 or not reduced:  # nothing to reduce: a pointwise value over the kept dims
        result = _no_reduction(x, reduced, reduction_type, value, dtype)
        return result if not keepdim else reshape_view(result, [1 if d in reduced else s for d, s in enumerate(x.shape)])
    if rnumel == 0:  # the sum of nothing is 0, the product 1
        identity = 0 if reduction_type == "sum" else 1
        empty = Pointwise(kept_shape, dtype, device, lambda index: ops.constant(identity, dtype), (current_op(),))
        return reshape_view(empty, [1 if d in reduced else s for d, s in enumerate(x.shape)]) if keepdim else empty
    loops = ReductionLoops(tuple(x.shape), tuple(reduced), reduction_type, value, src)
    origins = merge_origins(x.origins, [name or current_op()])
    view = current().reduction_buffer(kept_shape, dtype, device, loops, origins)
    return _keepdim_view(view, x.shape, reduced) if keepdim else view


def _no_reduction(x: TensorValue, reduced: tuple[int, ...], kind: str, value: Any, dtype: torch.dtype) -> TensorValue:
    kept = [d for d in range(x.ndim) if d not in reduced]
    shape = tuple(x.shape[d] for d in kept)

    def fn(index: list[Any]) -> Any:
        full = [sympy.Integer(0)] * x.ndim
        for d, i in zip(kept, index):
            full[d] = i
        if kind in ("argmax", "argmin"):
            return ops.constant(0, dtype)
        return ops.to_dtype(value(full), dtype)

    return Pointwise(shape, dtype, x.device, fn, merge_origins(x.origins, [current_op()]))


# ------------------------------------------------------------------------------------------------ sum
@register_lowering(aten.sum.dim_IntList, aten.sum.default)
def sum_(x: TensorValue, dim: Any = None, keepdim: bool = False, *, dtype: torch.dtype | None = None) -> Any:
    out = dtype or (torch.int64 if not x.dtype.is_floating_point else x.dtype)
    reduced = dims(dim if dim not in ([], ()) else None, x.ndim)
    return reduce(x, reduced, keepdim, "sum", out, _acc_dtype(out))


@register_lowering(aten.prod.dim_int, aten.prod.default)
def prod(x: TensorValue, dim: Any = None, keepdim: bool = False, *, dtype: torch.dtype | None = None) -> Any:
    out = dtype or (torch.int64 if not x.dtype.is_floating_point else x.dtype)
    return reduce(x, dims(dim, x.ndim), keepdim, "prod", out, _acc_dtype(out))


@register_lowering(aten.mean.dim, aten.mean.default)
def mean(x: TensorValue, dim: Any = None, keepdim: bool = False, *, dtype: torch.dtype | None = None) -> Any:
    out = dtype or x.dtype
    if not out.is_floating_point:
        raise Unsupported("mean of integers")
    reduced = dims(dim if dim not in ([], ()) else None, x.ndim)
    n = symbols.product(x.shape[d] for d in reduced)
    acc = _acc_dtype(out)
    total = reduce(x, reduced, keepdim, "sum", acc, acc)
    return _divide(total, n, out, acc)


def _count(n: Any) -> Any:
    """A reduction's element count as a constant: a float, or the size expression (dynamic shapes)."""
    count = symbols.static_int(n)
    return float(count) if count is not None else n


def _divide(value: TensorValue, n: Any, out: torch.dtype, acc: torch.dtype) -> TensorValue:
    count = _count(n)
    return make_pointwise(lambda v: ops.truediv(v, ops.constant(count, acc)), [value], out, acc)


# ----------------------------------------------------------------------------------------- max / min
def _extreme(x: TensorValue, reduced: tuple[int, ...], keepdim: bool, kind: str) -> TensorValue:
    if x.dtype == torch.bool:  # max of bools is any, min is all
        r = reduce(x, reduced, keepdim, kind, torch.int8, torch.int8)
        return make_pointwise(lambda v: ops.to_dtype(v, torch.bool), [r], torch.bool, torch.int8)
    return reduce(x, reduced, keepdim, kind, x.dtype, _acc_dtype(x.dtype))


@register_lowering(aten.amax)
def amax(x: TensorValue, dim: Any = (), keepdim: bool = False) -> Any:
    return _extreme(x, dims(dim if dim not in ([], ()) else None, x.ndim), keepdim, "max")


@register_lowering(aten.amin)
def amin(x: TensorValue, dim: Any = (), keepdim: bool = False) -> Any:
    return _extreme(x, dims(dim if dim not in ([], ()) else None, x.ndim), keepdim, "min")


@register_lowering(aten.max.default)
def max_all(x: TensorValue) -> Any:
    return _extreme(x, dims(None, x.ndim), False, "max")


@register_lowering(aten.min.default)
def min_all(x: TensorValue) -> Any:
    return _extreme(x, dims(None, x.ndim), False, "min")


def _arg(x: TensorValue, dim: Any, keepdim: bool, kind: str) -> TensorValue:
    if dim is None:
        if keepdim:
            raise Unsupported(f"{kind} with dim=None and keepdim")
        reduced = tuple(range(x.ndim))
    else:
        reduced = dims(dim, x.ndim)
    src = torch.int8 if x.dtype == torch.bool else _acc_dtype(x.dtype)
    return reduce(x, reduced, keepdim, kind, torch.int64, src)


@register_lowering(aten.argmax.default)
def argmax(x: TensorValue, dim: int | None = None, keepdim: bool = False) -> Any:
    return _arg(x, dim, keepdim, "argmax")


@register_lowering(aten.argmin.default)
def argmin(x: TensorValue, dim: int | None = None, keepdim: bool = False) -> Any:
    return _arg(x, dim, keepdim, "argmin")


@register_lowering(aten.max.dim)
def max_dim(x: TensorValue, dim: int, keepdim: bool = False) -> Any:
    return _extreme(x, dims(dim, x.ndim), keepdim, "max"), _arg(x, dim, keepdim, "argmax")


@register_lowering(aten.min.dim)
def min_dim(x: TensorValue, dim: int, keepdim: bool = False) -> Any:
    return _extreme(x, dims(dim, x.ndim), keepdim, "min"), _arg(x, dim, keepdim, "argmin")


# ------------------------------------------------------------------------------------------- any / all
def _logical(x: TensorValue, dim: Any, keepdim: bool, kind: str) -> TensorValue:
    reduced = dims(dim if dim not in ([], ()) else None, x.ndim)
    flag = make_pointwise(lambda v: ops.to_dtype(ops.ne(v, ops.constant(0, x.dtype)), torch.int8), [x], torch.int8, x.dtype)
    r = reduce(flag, reduced, keepdim, kind, torch.int8, torch.int8)
    out = torch.uint8 if x.dtype == torch.uint8 else torch.bool
    return make_pointwise(lambda v: ops.to_dtype(v, out), [r], out, torch.int8)


@register_lowering(aten.any.default, aten.any.dim, aten.any.dims)
def any_(x: TensorValue, dim: Any = None, keepdim: bool = False) -> Any:
    return _logical(x, dim, keepdim, "max")


@register_lowering(aten.all.default, aten.all.dim, aten.all.dims)
def all_(x: TensorValue, dim: Any = None, keepdim: bool = False) -> Any:
    return _logical(x, dim, keepdim, "min")


# ------------------------------------------------------------------------------------------ variance
def _var_mean(x: TensorValue, dim: Any, correction: Any, keepdim: bool) -> tuple[TensorValue, TensorValue]:
    if not x.dtype.is_floating_point:
        raise Unsupported("variance of integers")
    reduced = dims(dim if dim not in ([], ()) else None, x.ndim)
    acc = _acc_dtype(x.dtype)
    n_expr = symbols.product(x.shape[d] for d in reduced)
    n = symbols.static_int(n_expr)
    correction = 1 if correction is None else correction
    if n is None:  # symbolic: the divisor n - correction must be >= 0 for every size
        if not isinstance(correction, int) or not sizevars().provably_le(correction, n_expr):
            raise Unsupported("variance whose divisor may be negative for some sizes")
    total = reduce(x, reduced, True, "sum", acc, acc, name="mean")
    count = _count(n_expr)
    mean_kept = make_pointwise(lambda v: ops.truediv(v, ops.constant(count, acc)), [total], acc)

    def square(a: Any, m: Any) -> Any:
        d = ops.sub(a, m)
        return ops.mul(d, d)

    deviations = make_pointwise(square, [x, mean_kept], acc)
    squares = reduce(deviations, reduced, keepdim, "sum", acc, acc, name="var")
    denominator: Any = float(max(0, n - correction)) if n is not None else sympy.expand(n_expr - correction)
    var = make_pointwise(lambda v: ops.truediv(v, ops.constant(denominator, acc)), [squares], x.dtype, acc)
    mean_out = mean_kept if keepdim else reshape_view(mean_kept, [s for d, s in enumerate(x.shape) if d not in reduced])
    mean_out = make_pointwise(lambda v: v, [mean_out], x.dtype, acc, name="mean")
    return var, mean_out


@register_lowering(aten.var.correction, aten.var.default)
def var(x: TensorValue, dim: Any = None, *, correction: Any = None, keepdim: bool = False) -> Any:
    return _var_mean(x, dim, correction, keepdim)[0]


@register_lowering(aten.var.dim)
def var_dim(x: TensorValue, dim: Any = None, unbiased: bool = True, keepdim: bool = False) -> Any:
    return _var_mean(x, dim, 1 if unbiased else 0, keepdim)[0]


@register_lowering(aten.std.correction, aten.std.default)
def std(x: TensorValue, dim: Any = None, *, correction: Any = None, keepdim: bool = False) -> Any:
    v = _var_mean(x, dim, correction, keepdim)[0]
    return make_pointwise(ops.sqrt, [v], x.dtype, _acc_dtype(x.dtype))


@register_lowering(aten.var_mean.correction)
def var_mean(x: TensorValue, dim: Any = None, *, correction: Any = None, keepdim: bool = False) -> Any:
    return _var_mean(x, dim, correction, keepdim)
